"""Which reward each stored episode gets for training: a judge's verdict, else the verifier's.

Rewards come from a judge when the run has verdicts (``webdojo judge``), else from the stored
verifier result; the selection says which it used. A run judged by several judges needs
``judge=`` to name one. Episodes without a score are never trained on as 0: each gets the reason
it was left out (``fault``, ``website_failure``, ``blocked``, ``infra_error``, ``unjudged``,
``unverified``), which the selection counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from webdojo.errors import ConfigError
from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import read_run
from webdojo.store.verdicts import Verdict, judges_of


@dataclass(frozen=True)
class Scored:
    """One finished episode attempt with its reward, or why it has none."""

    run: Path
    iteration: int  # the run's place in the list given (0: the oldest)
    record: EpisodeRecord
    steps: list[StepRecord]
    reward: float | None  # None: not usable for training (``why``)
    why: str | None  # the reason it is left out, when reward is None

    @property
    def task_id(self) -> str:
        return self.record.task_id


def reward_source(run: Path, judge: str | None, judged: dict[str, dict[str, Verdict]]) -> str:
    """``judge <spec>`` or ``verifier``: what scores the run's episodes (``judged``: its
    verdicts by judge, from ``judges_of``)."""
    if judge is not None:
        if judge not in judged:
            known = ", ".join(sorted(judged)) or "none"
            raise ConfigError(f"{run} has no verdicts of judge {judge!r} (judged by: {known})")
        return f"judge {judge}"
    if len(judged) > 1:
        raise ConfigError(
            f"{run} was judged by several judges ({', '.join(sorted(judged))}): "
            "name the one whose rewards to train on with --judge"
        )
    return f"judge {next(iter(judged))}" if judged else "verifier"


def scored_episodes(runs: list[Path], judge: str | None = None) -> tuple[str, list[Scored]]:
    """Every finished episode of ``runs`` (oldest run first, then by key) with its reward; the
    source name. All runs must be scored by the same source. A run stores its episodes in the
    order they finished, which concurrency varies: the seeded rules draw from this order, so
    it must not be that one (two runs of one seed trained on different batches)."""
    judged = {run: judges_of(run) for run in runs}  # every verdict file read once
    sources = {run: reward_source(run, judge, judged[run]) for run in runs}
    if len(set(sources.values())) > 1:
        shown = "; ".join(f"{run}: {source}" for run, source in sources.items())
        raise ConfigError(f"the runs are scored by different sources ({shown}): pass --judge")
    source = next(iter(sources.values()))
    scored: list[Scored] = []
    for iteration, run in enumerate(runs):
        stored = read_run(run)
        verdicts = judged[run].get(source.removeprefix("judge "), {})
        for key, record in sorted(stored.episodes.items()):
            reward, why = _reward(record, verdicts.get(key), source)
            scored.append(Scored(run, iteration, record, stored.steps_of(key), reward, why))
    return source, scored


def _reward(
    record: EpisodeRecord, verdict: Verdict | None, source: str
) -> tuple[float | None, str | None]:
    if record.fault is not None:
        return None, "fault"
    if source == "verifier":
        return (record.reward, None) if record.reward is not None else (None, "unverified")
    if verdict is None or verdict.episode != record.episode:
        return None, "unjudged"  # never judged, or judged before a resume re-ran it
    if verdict.reward is None:
        return None, verdict.label  # website_failure, blocked, infra_error
    return verdict.reward, None
