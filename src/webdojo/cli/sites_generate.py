"""``webdojo sites generate``: a thin shell over ``webdojo.sitegen`` (model endpoint, progress
bar, summary table, ``--json``)."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from webdojo.cli.exits import model_command_exits
from webdojo.models import ModelClient, ModelConfig
from webdojo.models.usage import Price

if TYPE_CHECKING:  # the pipeline loads Playwright and the rollout engine: only when run
    from webdojo.sitegen.pipeline import SitegenConfig, SitegenReport

console = Console(soft_wrap=True)
errors = Console(stderr=True, soft_wrap=True)


def register(sites_app: typer.Typer) -> None:
    sites_app.command("generate")(generate)


def generate(
    n: Annotated[int, typer.Option("--n", min=1, help="sites to have in OUT")],
    out: Annotated[Path, typer.Option(help="sites root to write; an existing one is resumed")],
    model_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint (else $WEBDOJO_MODEL_BASE_URL)")
    ] = None,
    model: Annotated[str | None, typer.Option(help="model name (else $WEBDOJO_MODEL)")] = None,
    max_repairs: Annotated[int, typer.Option(min=0, help="repair requests per site")] = 3,
    seed: Annotated[int, typer.Option(help="seed of the catalog sampling")] = 0,
    concurrency: Annotated[int, typer.Option(min=1, help="sites in progress at once")] = 2,
    max_tokens: Annotated[int, typer.Option(min=256, help="cap on one reply")] = 32_000,
    price_in: Annotated[float | None, typer.Option(help="price per 1M prompt tokens")] = None,
    price_out: Annotated[float | None, typer.Option(help="price per 1M completion tokens")] = None,
    image_model: Annotated[
        str | None, typer.Option(help="image model for raster pictures (else images are SVG)")
    ] = None,
    image_base_url: Annotated[
        str | None, typer.Option(help="the image model's endpoint (else the chat endpoint's)")
    ] = None,
    image_size: Annotated[str, typer.Option(help="size of a drawn picture")] = "512x512",
    image_cap: Annotated[int, typer.Option(min=1, help="distinct pictures per site")] = 8,
    price_image: Annotated[float, typer.Option(min=0, help="price of one drawn picture")] = 0.0,
    page_timeout: Annotated[
        float, typer.Option(min=0.5, help="seconds a page may take to load before it is hung")
    ] = 10.0,
    as_json: Annotated[bool, typer.Option("--json", help="last stdout line: JSON summary")] = False,
) -> None:
    """Generate N synthetic sites with the model: each samples a capability, a category and a
    style, is validated in Chromium (pages, external requests, layout, every task's solutions)
    and repaired from the problems found, up to --max-repairs. Pictures are SVG unless
    --image-model names an image model (OpenAI Images API). Accepted sites land in OUT,
    rejected ones in OUT/_rejected with their reasons. Exit 3 when the endpoint fails (run
    again to resume)."""
    from webdojo.sitegen.images import ImageSettings
    from webdojo.sitegen.pipeline import SitegenConfig
    from webdojo.sitegen.validate import ValidationSettings

    config = SitegenConfig(
        n=n,
        seed=seed,
        max_repairs=max_repairs,
        max_tokens=max_tokens,
        concurrency=concurrency,
        price=Price(price_in, price_out, price_image),
        validation=ValidationSettings(navigation_timeout_s=page_timeout),
        images=ImageSettings(cap=image_cap, size=image_size),
    )
    model_config = _chat_config(model_base_url, model, concurrency)
    image_config = _image_config(model_config, image_model, image_base_url)
    with model_command_exits(errors):
        report = asyncio.run(_run(out, model_config, config, image_config))
    _summary(report)
    if as_json:
        print(json.dumps(report.to_json()))


def _chat_config(base_url: str | None, model: str | None, concurrency: int) -> ModelConfig:
    """The chat endpoint from the options, else the environment; exit 2 when there is none."""
    overrides: dict[str, Any] = {"base_url": base_url, "model": model}
    config = ModelConfig.from_env(max_concurrency=concurrency, **overrides)
    if config is None:
        errors.print(
            "[red]error[/red] no model endpoint: pass --model-base-url or set "
            "WEBDOJO_MODEL_BASE_URL"
        )
        raise typer.Exit(code=2)
    return config


def _image_config(chat: ModelConfig, model: str | None, base_url: str | None) -> ModelConfig | None:
    """The image model's endpoint: the chat endpoint's URL and key unless told otherwise."""
    if model is None:
        return None
    return replace(chat, model=model, extra_body={}, base_url=base_url or chat.base_url)


async def _run(
    out: Path, model_config: ModelConfig, config: SitegenConfig, image_config: ModelConfig | None
) -> SitegenReport:
    from webdojo.models.images import ImageClient
    from webdojo.sitegen.pipeline import SiteRecord, generate_sites

    progress = Progress(
        TextColumn("[bold]sites[/bold]"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("accepted {task.fields[accepted]}  rejected {task.fields[rejected]}"),
        TimeElapsedColumn(),
        console=console,
    )
    bar = progress.add_task("sites", total=config.n, accepted=0, rejected=0)
    counts = {"accepted": 0, "rejected": 0}

    def on_site(record: SiteRecord, resumed: bool) -> None:
        counts[record.status] += 1
        progress.update(bar, advance=1, accepted=counts["accepted"], rejected=counts["rejected"])

    with progress:
        async with AsyncExitStack() as stack:
            client = await stack.enter_async_context(ModelClient(model_config))
            images = None
            if image_config is not None:
                images = await stack.enter_async_context(ImageClient(image_config))
            return await generate_sites(out, client, config, on_site=on_site, images=images)


def _summary(report: SitegenReport) -> None:
    table = Table(
        "site",
        "capability / category / style",
        "status",
        "replies",
        "tokens",
        "why",
        title=f"sites generate -> {report.out}",
    )
    for r in report.records:
        triple = " / ".join(r.triple.values())
        status = "[green]accepted[/green]" if r.status == "accepted" else "[red]rejected[/red]"
        why = escape("; ".join(r.reasons)[:200])
        tokens = str(r.prompt_tokens + r.completion_tokens)
        table.add_row(r.name, escape(triple), status, str(r.replies), tokens, why)
    console.print(table)
    d, u = report.diversity, report.usage
    console.print(
        f"accepted {report.count('accepted')}, rejected {report.count('rejected')} "
        f"({report.resumed} from earlier runs); this run: {u.calls} calls, "
        f"{u.prompt_tokens} prompt + {u.completion_tokens} completion tokens, {u.images} images, "
        f"cost {report.cost:g}"
    )
    if d.pairs:
        console.print(
            f"visual diversity (dHash of home pages): min distance {d.min_distance}, "
            f"mean {d.mean_distance} bits over {d.pairs} pairs"
        )
    for a, b, bits in d.near_duplicates[:10]:
        console.print(f"[yellow]near-duplicate[/yellow] {a} ~ {b} ({bits} bits apart)")
