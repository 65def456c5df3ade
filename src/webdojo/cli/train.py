"""``webdojo train sft|rl --data DIR --model tiny|tiny-vl|PATH --out OUT``: thin shells over
``webdojo.training.trainer.train``. The examples come from a selection directory (``webdojo
select``), their prompts rebuilt by ``webdojo.training.contexts.selection_examples``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.cli.train_loop import loop_command
from webdojo.errors import WebdojoError

if TYPE_CHECKING:
    from webdojo.training.objectives import Mode

train_app = typer.Typer(no_args_is_help=True, help="Train a policy on selected steps.")
console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)
train_app.command("loop")(loop_command)

Data = Annotated[Path, typer.Option(help="a selection directory written by `webdojo select`")]
Model = Annotated[str, typer.Option(help="tiny | tiny-vl | a model or checkpoint directory")]
Out = Annotated[Path, typer.Option(help="metrics.jsonl and checkpoints/ go here")]
Steps = Annotated[int, typer.Option(min=1, help="optimizer steps in all")]
BatchSize = Annotated[int, typer.Option(min=1, help="examples per step")]
Lr = Annotated[float, typer.Option(help="AdamW learning rate (1e-3 suits the tiny models)")]
LrSchedule = Annotated[
    str, typer.Option(help="constant | linear | cosine (linear and cosine fall to 0 at the end)")
]
WarmupSteps = Annotated[int, typer.Option(min=0, help="the rate rises from 0 over these steps")]
MaxTokens = Annotated[int, typer.Option(min=16, help="longer examples lose prompt on the left")]
PromptLoss = Annotated[
    float,
    typer.Option(
        min=0.0,
        help="add this times the prompts' mean token loss to the replies' (0: replies only; "
        "for models trained from scratch)",
    ),
]
CheckpointEvery = Annotated[int, typer.Option(min=0, help="steps between checkpoints (0: end)")]
Lora = Annotated[bool, typer.Option(help="train a LoRA adapter instead of every weight")]
Resume = Annotated[bool, typer.Option(help="go on from OUT's newest checkpoint")]
Seed = Annotated[int, typer.Option(help="data order and the tiny models' weights")]
Template = Annotated[str | None, typer.Option(help="prompt template (default: the run's)")]
GroupByLength = Annotated[
    bool, typer.Option(help="batches of similar length: less padding, the same examples per epoch")
]
AsJson = Annotated[bool, typer.Option("--json", help="print the result as JSON last")]


@train_app.command("sft")
def sft_command(
    data: Data,
    model: Model = "tiny",
    out: Out = Path("runs/train"),
    steps: Steps = 20,
    batch_size: BatchSize = 8,
    lr: Lr = 1e-3,
    lr_schedule: LrSchedule = "constant",
    warmup_steps: WarmupSteps = 0,
    max_tokens: MaxTokens = 4096,
    checkpoint_every: CheckpointEvery = 0,
    lora: Lora = False,
    resume: Resume = False,
    seed: Seed = 0,
    template: Template = None,
    prompt_loss_weight: PromptLoss = 0.0,
    group_by_length: GroupByLength = False,
    as_json: AsJson = False,
) -> None:
    """Supervised fine-tuning: cross-entropy on the selected replies' tokens (and, with
    --prompt-loss-weight, on the prompts' text)."""
    _train("sft", locals())


@train_app.command("rl")
def rl_command(
    data: Data,
    model: Model = "tiny",
    out: Out = Path("runs/train"),
    steps: Steps = 20,
    batch_size: BatchSize = 8,
    lr: Lr = 1e-3,
    lr_schedule: LrSchedule = "constant",
    warmup_steps: WarmupSteps = 0,
    max_tokens: MaxTokens = 4096,
    checkpoint_every: CheckpointEvery = 0,
    lora: Lora = False,
    resume: Resume = False,
    seed: Seed = 0,
    template: Template = None,
    group_by_length: GroupByLength = False,
    as_json: AsJson = False,
) -> None:
    """Policy gradient: REINFORCE on rewards (bc selections), Dr. GRPO on advantages (grpo)."""
    _train("rl", locals())


def _train(mode: Mode, options: dict[str, Any]) -> None:
    from transformers.utils import logging as hf_logging

    from webdojo.training.contexts import selection_examples
    from webdojo.training.trainer import TrainConfig, train

    hf_logging.disable_progress_bar()  # our own bar is the one to watch

    as_json = options.pop("as_json")
    data, template = options.pop("data"), options.pop("template")
    config = replace(TrainConfig(), mode=mode, progress=not as_json, **options)
    try:
        examples = selection_examples(data, template=template)
        result = train(config, examples)
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] {escape(str(exc))}")
        raise typer.Exit(code=2) from exc
    console.print(_table(mode, result.to_json(), len(examples)))
    if as_json:
        print(json.dumps(result.to_json()))


def _table(mode: str, result: dict[str, Any], n_examples: int) -> Table:
    table = Table(title=f"train {mode}: {n_examples} examples", title_justify="left")
    table.add_column("")
    table.add_column("value", justify="right")
    for key, value in result.items():
        table.add_row(key.replace("_", " "), escape(str(value)))
    return table
