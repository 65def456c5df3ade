"""The reference trainer: SFT or a policy-gradient update on selected examples, in one loop.

    result = train(TrainConfig(mode="sft", model="tiny", out=Path("out")), examples)

Read it top to bottom: the settings, then ``train``: check the data, load (or resume) the
model, then one loop of read batch -> loss -> step -> log -> checkpoint. The losses are in
``objectives``, the data order in ``batches``, the learning rate's course in ``schedules``,
checkpoints in ``checkpoints``.

Output directory:

    OUT/metrics.jsonl    one line per step: step, loss, tokens, reply_tokens, samples, lr,
                         seconds, sample_ids (the examples of the step, in order)
    OUT/checkpoints/     see ``checkpoints`` (every ``checkpoint_every`` steps and at the end)
    OUT/base/            LoRA only: the frozen base model

``resume`` goes on from the newest checkpoint: same model, optimizer, random state and data
position, so the steps after it read exactly the examples an uninterrupted run would have
read. Metrics lines past that checkpoint (written before the run was killed) are dropped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import torch
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from webdojo.errors import ConfigError, OutOfMemory, ResumeMismatch
from webdojo.training import checkpoints
from webdojo.training.batches import (
    batch_indices,
    check_examples,
    corpus_texts,
    fingerprint,
    length_batch,
    sample_id,
)
from webdojo.training.encoding import collate, encode_example
from webdojo.training.examples import Example
from webdojo.training.objectives import Mode, batch_loss
from webdojo.training.schedules import check_schedule, make_scheduler
from webdojo.training.tiny_models import ModelBundle, check_bundle, load_bundle, peft_quiet

METRICS = "metrics.jsonl"


@dataclass(frozen=True)
class TrainConfig:
    mode: Mode = "sft"  # sft: cross-entropy on replies; rl: policy gradient (objectives.py)
    model: str = "tiny"  # tiny | tiny-vl | a model or checkpoint directory
    out: Path = Path("train-out")  # metrics.jsonl and checkpoints/
    steps: int = 20  # optimizer steps in all (a resumed run goes on up to this)
    batch_size: int = 8  # examples per step
    lr: float = 1e-3  # AdamW; right for tiny models from scratch, ~1e-5 for a pretrained one
    lr_schedule: str = "constant"  # constant | linear | cosine (down to 0 at the last step)
    warmup_steps: int = 0  # the rate rises linearly from 0 over these first steps
    prompt_loss_weight: float = 0.0  # sft: this times the prompts' mean token loss is added to
    # the replies' (objectives.py); for models trained from scratch
    weight_decay: float = 0.0
    grad_clip: float = 1.0  # max gradient norm; 0 turns clipping off
    max_tokens: int = 4096  # longer examples lose prompt tokens from the left (encoding.py)
    seed: int = 0  # data order and the tiny models' weights
    group_by_length: bool = False  # batches of similar length: less padding (batches.py)
    checkpoint_every: int = 0  # steps between checkpoints; 0: only at the end
    keep_checkpoints: int = 2  # newest checkpoints kept on disk
    lora: bool = False  # train a LoRA adapter (peft) instead of every weight
    lora_rank: int = 8
    bf16: bool | None = None  # bfloat16 autocast; None: on when the GPU supports it
    device: str = "auto"  # auto: cuda when available, else cpu
    resume: bool = False  # go on from OUT's newest checkpoint
    progress: bool = True  # a rich progress bar on stderr


@dataclass(frozen=True)
class TrainResult:
    steps: int  # steps done in all (resumed runs included)
    loss_first: float | None  # the loss of step 1 and of the last step (metrics.jsonl)
    loss_last: float | None
    tokens: int  # this call's tokens (prompt + reply), samples and wall time
    samples: int
    seconds: float
    checkpoint: str | None  # the newest checkpoint directory
    device: str = "cpu"  # where it trained (cpu, cuda, cuda:1...)
    dtype: str = "float32"  # the compute dtype: bfloat16 under autocast, else float32

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0

    @property
    def samples_per_s(self) -> float:
        return self.samples / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "steps": self.steps,
            "loss_first": self.loss_first,
            "loss_last": self.loss_last,
            "tokens": self.tokens,
            "samples": self.samples,
            "seconds": round(self.seconds, 3),
            "samples_per_s": round(self.samples_per_s, 3),
            "tokens_per_s": round(self.tokens_per_s, 1),
            "checkpoint": self.checkpoint,
            "device": self.device,
            "dtype": self.dtype,
        }


OnStep = Callable[[dict[str, Any]], None]  # called with each step's metrics line


def train(
    config: TrainConfig,
    examples: list[Example],
    bundle: ModelBundle | None = None,
    on_step: OnStep | None = None,
) -> TrainResult:
    """Train ``bundle`` (else ``load_bundle(config.model)``, its tokenizer trained on the
    examples' texts) on ``examples`` in place; see the module docstring. Typed errors
    (``TrainingError``, ``OutOfMemory``) come before the first step where detectable.
    ``on_step`` gets each step's metrics line once it is logged (and checkpointed, if due)."""
    out = Path(config.out)
    grouped = ("grouped by length",) if config.group_by_length else ()  # older ids unchanged
    data_id = fingerprint(examples, config.mode, config.batch_size, config.seed, *grouped)
    resumed = _find_resume(config, out, data_id)
    bundle, lengths = _prepare(config, examples, bundle, resumed)
    order = _order(config, lengths)
    device = _device(config)
    if config.lora and not hasattr(bundle.model, "peft_config"):
        checkpoints.save_base(out, bundle)
        bundle.model = _with_lora(bundle.model, config.lora_rank)
    bundle.model.to(device)
    _check_memory(bundle.model, device)
    params = [p for p in bundle.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.lr, weight_decay=config.weight_decay)
    start = 0
    if resumed is not None:
        optimizer.load_state_dict(resumed.state["optimizer"])
        checkpoints.restore_rng(resumed.state["rng"])
        start = resumed.step
    schedule = make_scheduler(
        optimizer, config.lr_schedule, config.lr, config.warmup_steps, config.steps, start
    )
    _truncate_metrics(out / METRICS, start)
    pad_id = bundle.tokenizer.pad_token_id
    pad_id = pad_id if pad_id is not None else bundle.tokenizer.eos_token_id

    bundle.model.train()
    tokens = samples = 0
    newest = resumed.path if resumed is not None else None
    began = time.perf_counter()
    with _progress_bar(config) as bar, open(out / METRICS, "a", encoding="utf-8") as log:
        task = bar.add_task(config.mode, total=config.steps, completed=start)
        for step in range(start, config.steps):
            picked = [examples[i] for i in order(step)]
            line = _step(config, bundle, optimizer, params, picked, step, pad_id, device)
            schedule.step()
            tokens, samples = tokens + line["tokens"], samples + line["samples"]
            log.write(json.dumps(line) + "\n")
            log.flush()
            if _checkpoint_due(config, step + 1):
                newest = _save(config, out, bundle, optimizer, step + 1, data_id)
            bar.update(task, advance=1, description=f"{config.mode} loss {line['loss']:.4f}")
            if on_step is not None:
                on_step(line)
    result = _result(out, tokens, samples, time.perf_counter() - began, newest)
    return replace(result, device=str(device), dtype=str(_dtype(config, device)).split(".")[-1])


def _step(
    config: TrainConfig,
    bundle: ModelBundle,
    optimizer: torch.optim.Optimizer,
    params: list[torch.nn.Parameter],
    picked: list[Example],
    step: int,
    pad_id: int,
    device: torch.device,
) -> dict[str, Any]:
    """Update on step ``step``'s batch ``picked``; its metrics line."""
    t0 = time.perf_counter()
    batch = collate([encode_example(bundle, e, config.max_tokens) for e in picked], pad_id)
    batch = {k: v.to(device) for k, v in batch.items()}
    loss = _update(config, bundle, optimizer, params, batch, picked, device)
    return {
        "step": step + 1,
        "loss": loss,
        "tokens": int(batch["attention_mask"].sum()),
        "reply_tokens": int((batch["labels"] != -100).sum()),
        "samples": len(picked),
        "lr": optimizer.param_groups[0]["lr"],
        "seconds": round(time.perf_counter() - t0, 4),
        "sample_ids": [sample_id(e) for e in picked],
    }


def _order(config: TrainConfig, lengths: list[int]) -> Callable[[int], list[int]]:
    """Which examples step ``s`` reads (``batches``): from the data cursor ``s * batch_size``,
    or batch ``s`` of the length-grouped stream."""
    size, seed = config.batch_size, config.seed
    if config.group_by_length:
        frozen = tuple(lengths)
        return lambda step: length_batch(frozen, seed, step, size)
    return lambda step: batch_indices(len(lengths), seed, step * size, size)


def _prepare(
    config: TrainConfig,
    examples: list[Example],
    bundle: ModelBundle | None,
    resumed: checkpoints.Resumed | None,
) -> tuple[ModelBundle, list[int]]:
    """The model to train, after every check that can be made before the first step, and
    each example's length in tokens."""
    if config.prompt_loss_weight and config.mode != "sft":
        raise ConfigError("a prompt loss weight is for sft: rl scores the sampled replies only")
    if config.prompt_loss_weight < 0:
        raise ConfigError(f"prompt loss weight {config.prompt_loss_weight}: it cannot be negative")
    check_schedule(config.lr_schedule, config.warmup_steps, config.steps)
    if resumed is not None:
        if bundle is not None:
            raise ConfigError("resume loads the model from its checkpoint: pass no bundle")
        bundle = load_bundle(resumed.path)
    elif bundle is None:
        check_examples(examples, config.mode, vision=config.model == "tiny-vl")
        bundle = load_bundle(config.model, corpus=corpus_texts(examples), seed=config.seed)
    check_bundle(bundle)
    check_examples(examples, config.mode, vision=bundle.vision)
    # every example encodes and fits, before any step
    return bundle, [encode_example(bundle, e, config.max_tokens).n_tokens for e in examples]


def _update(
    config: TrainConfig,
    bundle: ModelBundle,
    optimizer: torch.optim.Optimizer,
    params: list[torch.nn.Parameter],
    batch: dict[str, torch.Tensor],
    picked: list[Example],
    device: torch.device,
) -> float:
    """One optimizer step on one batch; its loss."""
    try:
        with _autocast(config, device):
            loss, _ = batch_loss(
                bundle.model, batch, picked, config.mode, config.prompt_loss_weight
            )
        loss.backward()
        if config.grad_clip > 0:
            torch.nn.utils.clip_grad_norm_(params, config.grad_clip)
        optimizer.step()
    except torch.OutOfMemoryError as exc:
        raise _oom(config) from exc
    finally:
        optimizer.zero_grad(set_to_none=True)
    return float(loss.detach())


def _find_resume(config: TrainConfig, out: Path, data_id: str) -> checkpoints.Resumed | None:
    found = checkpoints.latest(out)
    if found is None:
        return None
    if not config.resume:
        raise ConfigError(
            f"{out} already holds checkpoints: pass --resume to go on, or choose another --out"
        )
    if found.fingerprint != data_id:
        raise ResumeMismatch(
            f"{found.path} was trained on other data or with another mode, batch size or seed; "
            "resuming it with these would not continue that run"
        )
    return found


def _save(
    config: TrainConfig,
    out: Path,
    bundle: ModelBundle,
    optimizer: torch.optim.Optimizer,
    step: int,
    data_id: str,
) -> Path:
    settings = {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()}
    info = {
        "step": step,
        "cursor": step * config.batch_size,
        "fingerprint": data_id,
        "settings": settings,
    }
    return checkpoints.save(out, bundle, optimizer, info, keep=config.keep_checkpoints)


def _checkpoint_due(config: TrainConfig, step: int) -> bool:
    every = config.checkpoint_every
    return step == config.steps or (every > 0 and step % every == 0)


def _device(config: TrainConfig) -> torch.device:
    if config.device != "auto":
        return torch.device(config.device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _dtype(config: TrainConfig, device: torch.device) -> torch.dtype:
    """bfloat16 on a GPU that has it (unless ``bf16`` says otherwise), else float32."""
    if device.type != "cuda":
        return torch.float32
    use = torch.cuda.is_bf16_supported() if config.bf16 is None else config.bf16
    return torch.bfloat16 if use else torch.float32


def _autocast(config: TrainConfig, device: torch.device) -> Any:
    """bfloat16 autocast where ``_dtype`` says (weights and optimizer stay float32)."""
    if _dtype(config, device) is not torch.bfloat16:
        return nullcontext()
    return torch.autocast("cuda", dtype=torch.bfloat16)


def _with_lora(model: Any, rank: int) -> Any:
    from peft import LoraConfig, get_peft_model

    lora = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules="all-linear")
    with peft_quiet():
        return get_peft_model(model, lora)


def _check_memory(model: torch.nn.Module, device: torch.device) -> None:
    """Refuse before the first step when weights, gradients and AdamW's two moments of the
    trainable parameters cannot fit in the GPU's free memory (activations come on top)."""
    if device.type != "cuda":
        return
    free, _ = torch.cuda.mem_get_info(device)
    trainable = sum(p.numel() * p.element_size() for p in model.parameters() if p.requires_grad)
    if 3 * trainable > free:  # weights are on the device already: + grads + 2 moments
        raise OutOfMemory(
            f"the trainable weights need {3 * trainable / 2**30:.1f} GiB more for gradients and "
            f"AdamW, the GPU has {free / 2**30:.1f} GiB free: use --lora or a smaller model"
        )


def _oom(config: TrainConfig) -> OutOfMemory:
    return OutOfMemory(
        f"out of memory at --batch-size {config.batch_size}, --max-tokens {config.max_tokens}: "
        "lower either, or use --lora" + ("" if config.lora else " (adapter training)")
    )


def _truncate_metrics(path: Path, step: int) -> None:
    """Keep the lines of steps up to ``step`` (a fresh run: none)."""
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        return
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(x for x in lines if _step_of(x) <= step), encoding="utf-8")


def _step_of(line: str) -> float:
    """The step of a metrics line; infinity for a line torn by a kill (so it is dropped)."""
    try:
        return int(json.loads(line)["step"])
    except (ValueError, KeyError, TypeError):
        return float("inf")


def _progress_bar(config: TrainConfig) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        disable=not config.progress,
        transient=True,
    )


def _result(
    out: Path, tokens: int, samples: int, seconds: float, newest: Path | None
) -> TrainResult:
    lines = [json.loads(x) for x in (out / METRICS).read_text(encoding="utf-8").splitlines()]
    return TrainResult(
        steps=lines[-1]["step"] if lines else 0,
        loss_first=lines[0]["loss"] if lines else None,
        loss_last=lines[-1]["loss"] if lines else None,
        tokens=tokens,
        samples=samples,
        seconds=seconds,
        checkpoint=str(newest) if newest is not None else None,
    )
