"""``webdojo train loop``: a thin shell over ``webdojo.loop``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from webdojo.errors import WebdojoError
from webdojo.loop.config import RULES, LoopConfig
from webdojo.loop.report import LoopReport, kind_rows, pct, with_ci
from webdojo.loop.splits import load_splits
from webdojo.training.selection import BcSettings

console = Console(soft_wrap=True)  # with --json, the JSON object is still the last stdout line
errors = Console(stderr=True, soft_wrap=True)

Spec = Annotated[
    str | None, typer.Option(help="held-out instances, e.g. miniwob:click-test:50@1000")
]
OodSpec = Annotated[
    str | None, typer.Option(help="held-out tasks of other kinds (out of distribution)")
]
DemoSpec = Annotated[
    str | None,
    typer.Option(
        help="instances the teacher demonstrates in round 0 [default: --tasks]; on-policy "
        "rounds roll out on --tasks, so tasks with no demonstration learn from rewards alone"
    ),
]
RolloutTasks = Annotated[
    int, typer.Option(min=1, help="training instances rolled out per on-policy round")
]
TrainEval = Annotated[int, typer.Option(min=1, help="training instances scored after each round")]
TrainTasks = Annotated[int, typer.Option(min=1, help="without --heldout: tasks trained on")]
HeldOut = Annotated[int, typer.Option(min=0, help="without --heldout: tasks only evaluated")]
PromptLoss = Annotated[
    float | None,
    typer.Option(
        min=0.0,
        help="sft updates: add this times the prompts' mean token loss [default: the model's]",
    ),
]
Rounds = Annotated[
    int | None,
    typer.Option(min=0, help="on-policy rounds after round 0 (BC) [default: the model's]"),
]
TrainSteps = Annotated[
    int | None,
    typer.Option(min=1, help="updates in round 0 (and later ones) [default: the model's]"),
]
OnPolicySteps = Annotated[
    int | None,
    typer.Option(
        min=1,
        help="updates per on-policy round [default: --train-steps if given, else the model's]",
    ),
]
BatchSize = Annotated[int | None, typer.Option(min=1, help="[default: the model's]")]
Lr = Annotated[float | None, typer.Option(help="learning rate [default: the model's]")]
LrSchedule = Annotated[
    str, typer.Option(help="each round's updates: constant | linear | cosine (to 0 at the end)")
]
WarmupSteps = Annotated[
    int, typer.Option(min=0, help="each round's first updates raise the rate from 0")
]

RandomBaseline = Annotated[
    bool, typer.Option(help="score the random policy on the held-out instances too")
]


def loop_command(
    model: Annotated[str, typer.Option(help="tiny | small | tiny-vl | a model directory")] = "tiny",
    out: Annotated[Path, typer.Option(help="where every stage writes")] = Path("runs/loop"),
    template: Annotated[
        str,
        typer.Option(help="prompt template, NAME[:FIELD=VALUE,...], e.g. compact:objective=last"),
    ] = "compact",
    tasks: Annotated[str, typer.Option(help="training tasks or instances")] = "builtin",
    demos: DemoSpec = None,
    heldout: Spec = None,
    heldout_ood: OodSpec = None,
    rounds: Rounds = None,
    rule: Annotated[str, typer.Option(help=f"on-policy selection: {', '.join(RULES)}")] = "rft",
    group_size: Annotated[int, typer.Option(min=1, help="rollouts per instance per round")] = 4,
    rollout_tasks: RolloutTasks = 32,
    train_eval: TrainEval = 60,
    train_tasks: TrainTasks = 12,
    held_out: HeldOut = 6,
    max_steps: Annotated[int, typer.Option(min=2, help="step cap per episode")] = 6,
    train_steps: TrainSteps = None,
    on_policy_steps: OnPolicySteps = None,
    batch_size: BatchSize = None,
    lr: Lr = None,
    lr_schedule: LrSchedule = "constant",
    warmup_steps: WarmupSteps = 0,
    prompt_loss_weight: PromptLoss = None,
    power: Annotated[float, typer.Option(help="bc: recency bias power")] = 1.0,
    last_k: Annotated[int, typer.Option(min=1, help="bc: rounds in the buffer")] = 4,
    serve: Annotated[str, typer.Option(help="auto | vllm | transformers (in-process)")] = "auto",
    seed: Annotated[int, typer.Option()] = 0,
    random_baseline: RandomBaseline = True,
    resume: Annotated[bool, typer.Option(help="go on after OUT's last finished round")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="print the report as JSON last")] = False,
) -> None:
    """A learning run: the teacher's demonstrations (round 0, behaviour cloning), then on-policy
    rounds (roll out, judge, select, update); every round scored on held-out instances with
    95% intervals, against the random policy on the same instances.

    Rounds, updates, batch size, learning rate and prompt loss default to the model's recipe:
    --model small: 2,400 updates of 8, then 2 rounds of 1,200, lr 1e-3, prompt loss 1.0; the
    others: 2 rounds, 120 updates of 4 each, lr 3e-3, prompt loss 0.3 (docs/learning.md)."""
    options: dict[str, Any] = dict(locals())
    as_json = options.pop("as_json")
    bc = BcSettings(power=options.pop("power"), last_k=options.pop("last_k"), seed=seed)
    config = LoopConfig.for_model(**options, bc=bc)
    try:
        config.check()  # before torch's import: a wrong flag or split answers at once
        splits = load_splits(config)
        from webdojo.loop.run import run_loop  # torch: only when training

        report = run_loop(config, say=lambda line: console.print(escape(line)), splits=splits)
    except WebdojoError as exc:
        errors.print(f"[red]error[/red] [{exc.code}] {escape(exc.message)}")
        raise typer.Exit(2) from exc
    console.print(_table(report))
    if kinds := kind_rows(report.to_json()):
        console.print(_kinds_table(kinds, report.rounds[-1]["round"]))
    console.print(f"everything is under {out}; loop.json holds this report, loop.html shows it")
    if as_json:
        print(json.dumps(report.to_json()))


def _kinds_table(rows: list[tuple[str, int, str, str]], last: int) -> Table:
    table = Table(title=f"held-out success by kind after round {last} (95% intervals)")
    for column in ("kind", "instances", "model", "random policy"):
        table.add_column(column, justify="left" if column == "kind" else "right")
    for kind, n, model, random in rows:
        table.add_row(kind, str(n), model, random)
    return table


def _table(report: LoopReport) -> Table:
    data = report.to_json()
    table = Table(title="greedy success per round (95% intervals)")
    for column in ("round", "rule", "training", "held-out", "held-out, other kinds", "kept"):
        table.add_column(column, justify="left" if column in ("round", "rule") else "right")
    for r in data["rounds"]:
        table.add_row(
            str(r["round"]),
            r["rule"],
            pct(r.get("train")),
            with_ci(r.get("heldout"), r.get("heldout_ci95")),
            with_ci(r.get("heldout_ood"), r.get("heldout_ood_ci95")),
            str(r["kept"]),
        )
    random = with_ci(data.get("random_heldout"), data.get("random_heldout_ci95"))
    table.caption = f"random policy on the held-out instances: {random}"
    return table
