"""What ``webdojo eval`` and ``webdojo eval compare`` do once their flags are read (the
commands are in ``eval.py``): wire suite, policy, manifest, progress, scores and outputs."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from webdojo.browser.netpolicy import NetworkPolicy, policy_from_flags
from webdojo.cli.progress import episode_progress
from webdojo.cli.run import check_policy_endpoint, choose_policy
from webdojo.eval.compare import compare, comparison_plot, comparison_table
from webdojo.eval.manifest import (
    Manifest,
    build_manifest,
    chromium_info,
    manifest_differences,
    read_manifest,
)
from webdojo.eval.results_csv import record_result, row_of
from webdojo.eval.runner import (
    EvalPlan,
    Hooks,
    eval_json,
    eval_records,
    part_dir,
    part_judges,
    run_eval,
    save_scores,
)
from webdojo.eval.stats import EvalScores, score_tables
from webdojo.eval.suites import LoadedSuite, load_suite
from webdojo.judges.base import JudgeOptions
from webdojo.models.config import ModelConfig
from webdojo.models.usage import Price
from webdojo.policies import make_policy
from webdojo.viewer import write_report


@dataclass(frozen=True)
class EvalArgs:
    """The flags of ``webdojo eval`` (see ``eval.py`` for their help)."""

    suite: str | None
    policy: str | None
    model_base_url: str | None
    model: str | None
    template: str | None
    repeats: int | None
    seed: int | None
    out: Path | None
    concurrency: int
    retries: int
    max_faults: float
    results: Path | None
    price: tuple[float | None, float | None]
    server: str | None = None
    token: str | None = None
    network: NetworkPolicy = field(default_factory=NetworkPolicy)

    @classmethod
    def from_flags(cls, flags: dict[str, Any]) -> EvalArgs:
        """From the command's parameters by name (``typer.Context.params``): the network
        flags become one policy, the two prices a pair; the listing flags are not the eval's."""
        given = {
            k: v for k, v in flags.items() if k not in ("as_json", "list_suites", "show_suite")
        }
        allow, deny = given.pop("allow_host") or (), given.pop("deny_host") or ()
        network = policy_from_flags(tuple(allow), tuple(deny), given.pop("network_policy"))
        price = (given.pop("price_in"), given.pop("price_out"))
        return cls(**given, price=price, network=network)


def run_eval_command(args: EvalArgs, console: Console) -> dict[str, Any]:
    """Run (or resume) the eval, print its tables, write its outputs; return its JSON."""
    from webdojo.cli.eval import default_out

    suite = load_suite(args.suite)
    overrides = {"base_url": args.model_base_url, "model": args.model}
    model_config = ModelConfig.from_env(**{k: v for k, v in overrides.items() if v})
    seed = suite.suite.seed if args.seed is None else args.seed
    template = args.template or "webgym_memory"
    first = choose_policy(args.policy, model_config, seed, template, console)
    check_policy_endpoint(first.name, model_config, console)
    out = args.out or default_out(args.suite)
    manifest = _manifest(suite, first.name, model_config, template, seed, args)
    plan = EvalPlan(
        suite=suite,
        out=out,
        make_policy=lambda: make_policy(
            first.name, model_config=model_config, seed=seed, template=template
        ),
        manifest=manifest,
        concurrency=args.concurrency,
        retries=args.retries,
        max_faults=args.max_faults,
        judge=JudgeOptions(model=model_config, price=Price(*args.price)),
        network=args.network,
        server=args.server,
        token=args.token,
    )
    asyncio.run(first.aclose())
    console.print(
        f"eval [bold]{suite.name}[/bold] v{suite.suite.version} ({suite.task_count} tasks x "
        f"{manifest.repeats}) · policy {first.name} · seed {seed} · {suite.hash[:19]}",
        soft_wrap=True,
    )
    started = time.perf_counter()
    scores = _run_with_progress(plan, console)
    result = eval_json(scores, manifest, out)
    result["elapsed_s"] = round(time.perf_counter() - started, 2)
    _write_outputs(plan, scores, result, args.results, console)
    return result


def _manifest(
    suite: LoadedSuite,
    policy: str,
    model: ModelConfig | None,
    template: str,
    seed: int,
    args: EvalArgs,
) -> Manifest:
    version, flags = chromium_info()
    used = model if policy == "openai" else None  # the model the policy asks, if any
    return build_manifest(
        suite=suite.name,
        suite_version=suite.suite.version,
        suite_hash=suite.hash,
        policy=policy,
        model=None if used is None else used.model or None,
        model_base_url=None if used is None else used.base_url,
        template=None if used is None else template,
        sampling={} if used is None else _sampling(used),
        seed=seed,
        repeats=suite.suite.repeats if args.repeats is None else args.repeats,
        chromium_version=version,
        chromium_flags=flags,
        judges=part_judges(suite),
    )


def _sampling(model: ModelConfig) -> dict[str, Any]:
    return {
        "temperature": model.temperature,
        "top_p": model.top_p,
        "max_tokens": model.max_tokens,
        **dict(model.extra_body),
    }


def _run_with_progress(plan: EvalPlan, console: Console) -> EvalScores:
    with episode_progress(console, str(plan.out), label="eval") as bar:

        def on_pass(part: str, todo: int, kept: int) -> None:
            bar.start(todo, kept, what=f" {part}" if len(plan.suite.parts) > 1 else "")

        return asyncio.run(run_eval(plan, Hooks(on_pass=on_pass, on_episode=bar.episode)))


def _write_outputs(
    plan: EvalPlan,
    scores: EvalScores,
    result: dict[str, Any],
    results: Path | None,
    console: Console,
) -> None:
    for table in score_tables(scores):
        console.print(table)
    scores_path = save_scores(plan.out, result)
    csv_path = results or plan.out.parent / "results.csv"
    record_result(csv_path, row_of(result, plan.manifest.model_dump()))
    reports = [write_report(root, root / "report.html") for root in _part_roots(plan)]
    shown = ", ".join(str(r) for r in reports)
    console.print(f"scores: {scores_path}   leaderboard: {csv_path}   report: {shown}")
    if result["invalid"]:
        reasons = "; ".join(result["invalid_reasons"])
        console.print(f"[bold red]INVALID[/bold red] {reasons}", soft_wrap=True)


def _part_roots(plan: EvalPlan) -> list[Path]:
    return [part_dir(plan.out, plan.suite, part) for part in plan.suite.parts]


def compare_evals(a: Path, b: Path, plot: Path | None, console: Console) -> dict[str, Any]:
    """The paired comparison of eval B against eval A, as printed and as JSON."""
    ma, mb = read_manifest(a), read_manifest(b)
    episodes_a, _ = eval_records(a, None if ma is None else ma.judges)
    episodes_b, _ = eval_records(b, None if mb is None else mb.judges)
    result = compare(episodes_a, episodes_b)
    data = result.to_json()
    data["warnings"] = data["warnings"] + _manifest_warnings(a, ma, b, mb)
    path = plot or b.parent / f"compare-{a.name}-{b.name}.png"
    comparison_plot(result, path, (a.name, b.name))
    data["plot"] = str(path)
    console.print(comparison_table(result, (a.name, b.name)))
    for warning in data["warnings"]:
        console.print(f"[yellow]warning[/yellow] {warning}", soft_wrap=True)
    console.print(f"plot: {path}")
    return data


def _manifest_warnings(a: Path, ma: Manifest | None, b: Path, mb: Manifest | None) -> list[str]:
    missing = [str(p) for p, m in ((a, ma), (b, mb)) if m is None]
    if missing:
        return [f"no manifest in {', '.join(missing)}: cannot tell whether the runs are comparable"]
    assert ma is not None and mb is not None
    return manifest_differences(ma, mb)
