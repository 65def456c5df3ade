"""Held-out step accuracy of the ``small`` model on teacher demonstrations, offline: the harness
behind the step-accuracy table in docs/learning.md (not an episode success rate).

    python scripts/step_accuracy.py demos OUT --train 300 --heldout 30
        the scripted teacher on six MiniWoB++ pages (OUT/train, OUT/heldout and their bc
        selections), replies as bare commands (``ground=False``)
    python scripts/step_accuracy.py train OUT --steps 1200 [--ground] [--prompt-loss-weight 0.3]
        [--lr 1e-3] [--batch-size 8] [--layers L] [--heads H] [--width W] [--vocab V] [--threads 2]
        trains a fresh ``small`` model on OUT's training steps and prints, every
        ``--eval-every`` updates, the share of held-out steps whose greedy reply parses into the
        teacher's action, per page

``--ground`` lays each step out as the grounded ``compact`` template does (ids after names;
the reply opens with the element's line in ``<think>``). The loss is the trainer's
(``objectives.batch_loss``); the optimizer differs from it: AdamW with 50 warm-up steps and a
cosine decay to a tenth. Runs on CPU; no other process
should load the machine (thread contention slows torch on 2 cores by up to 20x).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import re
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

import torch

from webdojo.asgi import free_port
from webdojo.judges.base import JudgeOptions
from webdojo.judges.runner import judge_run
from webdojo.parsing import ParseFormat, parse
from webdojo.policies import ScriptedPolicy
from webdojo.prompts import get_template
from webdojo.prompts.compact import element_line
from webdojo.rollout.run import RunConfig, run_job
from webdojo.tasks.loader import load_spec
from webdojo.training.batches import corpus_texts
from webdojo.training.contexts import selection_examples
from webdojo.training.encoding import collate, encode_example, encode_prompt
from webdojo.training.examples import Example
from webdojo.training.objectives import batch_loss
from webdojo.training.select_runs import SelectSettings, select
from webdojo.training.tiny_models import SMALL_TEXT, VOCAB_SIZES, ModelBundle, load_bundle

PAGES = "click-test+click-button+click-link+enter-text+focus-text+click-checkboxes"
_ID = re.compile(r"(click|type|select) \[(\d+)\]")


def demos(out: Path, n_train: int, n_heldout: int) -> None:
    port = free_port()
    for name, spec in (("train", f"{n_train}@0"), ("heldout", f"{n_heldout}@100000")):
        tasks = load_spec(f"miniwob:{PAGES}:{spec}")
        tasks = replace(tasks, tasks=[t.model_copy(update={"step_cap": 8}) for t in tasks.tasks])
        teacher = ScriptedPolicy(template=get_template("compact", ground=False))
        config = RunConfig(
            tasks=f"miniwob:{PAGES}:{spec}",
            policy="scripted",
            concurrency=4,
            out=str(out / name),
            site_port=port,
            extra={"template": "compact"},
        )
        asyncio.run(run_job(config, tasks, teacher))
        asyncio.run(judge_run(out / name, "programmatic", JudgeOptions()))
        select([out / name], out / f"{name}-sel", SelectSettings(rule="bc", judge="programmatic"))


def grounded(example: Example) -> Example:
    """A demonstration step whose page the grounded template laid out: its bare reply opens
    with its element's line, as the grounded teacher writes it."""
    match = _ID.match(example.reply)
    page = example.prompt[1]["content"].partition("\nPage:\n")[2]
    line = element_line(page, int(match[2])) if match else None
    return (
        example if line is None else replace(example, reply=f"<think>{line}</think>{example.reply}")
    )


def train(args: argparse.Namespace) -> None:
    def load(name: str) -> list[Example]:
        found = selection_examples(
            args.out / f"{name}-sel", template="compact", template_options={"ground": args.ground}
        )
        return [grounded(e) for e in found] if args.ground else found

    train_set, heldout = load("train"), load("heldout")
    shape = {"num_hidden_layers": args.layers, "num_attention_heads": args.heads}
    shape |= {"hidden_size": args.width, "intermediate_size": args.width and 2 * args.width}
    SMALL_TEXT.update({k: v for k, v in shape.items() if v})
    if args.heads:
        SMALL_TEXT["num_key_value_heads"] = args.heads
    if args.vocab:
        VOCAB_SIZES["small"] = args.vocab
    print(f"small: {SMALL_TEXT}, vocab {VOCAB_SIZES['small']}", flush=True)
    torch.manual_seed(args.seed)
    bundle = load_bundle("small", corpus=corpus_texts(train_set), seed=args.seed)
    encoded = [encode_example(bundle, e, 2048) for e in train_set]
    opt = torch.optim.AdamW(bundle.model.parameters(), lr=args.lr, weight_decay=0.0)
    steps = args.steps
    schedule = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1, (s + 1) / 50) * (0.1 + 0.45 * (1 + math.cos(math.pi * s / steps)))
    )
    rng, order, started = random.Random(args.seed), [], time.time()
    for step in range(1, steps + 1):
        if len(order) < args.batch_size:
            more = list(range(len(encoded)))
            rng.shuffle(more)
            order += more
        picked, order = order[: args.batch_size], order[args.batch_size :]
        batch = collate([encoded[i] for i in picked], bundle.tokenizer.pad_token_id)
        bundle.model.train()
        examples = [train_set[i] for i in picked]
        loss, _ = batch_loss(bundle.model, batch, examples, "sft", args.prompt_loss_weight)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(bundle.model.parameters(), 1.0)
        opt.step()
        schedule.step()
        opt.zero_grad(set_to_none=True)
        if step % args.eval_every == 0 or step == steps:
            took = time.time() - started
            print(f"step {step} ({took:.0f} s): {accuracy(bundle, heldout)}", flush=True)


@torch.inference_mode()
def accuracy(bundle: ModelBundle, heldout: list[Example]) -> dict[str, object]:
    bundle.model.eval()
    right: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    eos = bundle.tokenizer.eos_token_id
    for example in heldout:
        inputs = encode_prompt(bundle, example.prompt)
        out = bundle.model.generate(
            **inputs,
            max_new_tokens=40,
            do_sample=False,
            eos_token_id=eos,
            pad_token_id=bundle.tokenizer.pad_token_id,
        )
        new = out[0, inputs["input_ids"].shape[1] :].tolist()
        text = bundle.tokenizer.decode(new[: new.index(eos)] if eos in new else new)
        page = example.sample.task_id.split(".")[1]
        total[page] += 1
        right[page] += _same_action(text, example.reply)
    result: dict[str, object] = {p: f"{right[p]}/{total[p]}" for p in sorted(total)}
    result["all"] = round(sum(right.values()) / sum(total.values()), 3)
    return result


def _same_action(reply: str, teacher: str) -> bool:
    try:
        got = parse(reply, ParseFormat.BROWSERAGENT).action
    except Exception:  # any reply that does not parse is wrong
        return False
    return got == parse(teacher, ParseFormat.BROWSERAGENT).action


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=["demos", "train"])
    parser.add_argument("out", type=Path)
    parser.add_argument("--train", type=int, default=300, help="demos: instances per page")
    parser.add_argument("--heldout", type=int, default=30, help="demos: held-out per page")
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--eval-every", type=int, default=400)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--ground", action="store_true")
    parser.add_argument("--prompt-loss-weight", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2, help="torch threads")
    parser.add_argument("--layers", type=int, default=0, help="small's layers (0: the default)")
    parser.add_argument("--heads", type=int, default=0, help="small's heads (0: the default)")
    parser.add_argument("--width", type=int, default=0, help="small's width (0: the default)")
    parser.add_argument("--vocab", type=int, default=0, help="small's tokenizer (0: default)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    if args.stage == "demos":
        demos(args.out, args.train, args.heldout)
    else:
        train(args)


if __name__ == "__main__":
    main()
