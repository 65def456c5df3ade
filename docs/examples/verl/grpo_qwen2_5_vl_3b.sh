#!/usr/bin/env bash
# GRPO with verl 0.9.1 on webdojo's built-in tasks: Qwen2.5-VL-3B-Instruct on one 8-GPU node.
# An example to start from, not a measured recipe: it has not been run on GPUs by us yet.
#
#   pip install 'webdojo[verl]' 'verl[vllm]==0.9.1'
#   python make_rows.py                 # writes train.parquet and val.parquet (see docs)
#   bash grpo_qwen2_5_vl_3b.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3 -m verl.trainer.main_ppo \
  algorithm.adv_estimator=grpo \
  data.train_files=train.parquet \
  data.val_files=val.parquet \
  data.train_batch_size=32 \
  data.max_prompt_length=8192 \
  data.max_response_length=16384 \
  data.return_raw_chat=True \
  actor_rollout_ref.model.path=Qwen/Qwen2.5-VL-3B-Instruct \
  actor_rollout_ref.actor.optim.lr=1e-6 \
  actor_rollout_ref.actor.ppo_mini_batch_size=16 \
  actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=1 \
  actor_rollout_ref.actor.use_kl_loss=True \
  actor_rollout_ref.rollout.name=vllm \
  actor_rollout_ref.rollout.mode=async \
  actor_rollout_ref.rollout.n=8 \
  actor_rollout_ref.rollout.prompt_length=8192 \
  actor_rollout_ref.rollout.response_length=16384 \
  actor_rollout_ref.rollout.gpu_memory_utilization=0.6 \
  actor_rollout_ref.rollout.multi_turn.enable=True \
  actor_rollout_ref.rollout.agent.default_agent_loop=webdojo_agent \
  actor_rollout_ref.rollout.agent.agent_loop_config_path="$here/agent_loops.yaml" \
  trainer.n_gpus_per_node=8 \
  trainer.nnodes=1 \
  trainer.total_epochs=5 \
  trainer.logger='["console"]' \
  "$@"
