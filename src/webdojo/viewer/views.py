"""JSON views of a run for the viewer's pages and the report (pure: ``RunData`` in, dicts out).

An episode's ``status`` is one of ``success``, ``failure`` (verified, did not pass), ``fault``
(an env/infra fault ended it: unscored) and ``unfinished`` (steps, but no episode record).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from webdojo.store.eval_stats import succeeded
from webdojo.store.records import EpisodeRecord, StepRecord
from webdojo.store.run_reader import StoredRun
from webdojo.store.summary import Bucket, RunSummary, summarize
from webdojo.store.verdicts import Verdict
from webdojo.viewer import REPORT_NAME
from webdojo.viewer.overlay import describe_action, overlay_spec, overlay_svg
from webdojo.viewer.runs import RunData, TaskInfo

STATUSES = ("success", "failure", "fault", "unfinished")


def status_of(record: EpisodeRecord | None) -> str:
    if record is None:
        return "unfinished"
    if record.success is None:
        return "fault"
    return "success" if record.success else "failure"


# --- summary ------------------------------------------------------------------------------


def run_summary(run: RunData) -> RunSummary:
    """``store.summary.summarize`` of the records read (an empty summary when none were)."""
    return summarize(run.records or StoredRun(root=run.root))


def bucket_rows(buckets: dict[Any, Bucket]) -> list[dict[str, Any]]:
    return [
        {"name": str(name) if name != 0 else "unknown", **bucket.to_json()}
        for name, bucket in sorted(buckets.items())
    ]


def totals(run: RunData, summary: RunSummary, rows: list[dict[str, Any]]) -> dict[str, Any]:
    share = summary.repetition_share
    statuses = Counter(row["status"] for row in rows)
    return {
        **summary.overall.to_json(),
        "all_episodes": len(run.episodes),
        "unfinished": len(run.unfinished),
        "superseded": run.superseded,
        "statuses": {s: statuses.get(s, 0) for s in STATUSES},
        "repeated_steps": summary.repeated_steps,
        "total_steps": summary.total_steps,
        "repetition_share": None if share is None else round(share, 4),
        "wall_s": round(summary.wall_s, 2),
        "fault_codes": summary.fault_codes,
    }


def run_meta(run: RunData) -> dict[str, Any]:
    config = run.config
    return {
        "name": run.name,
        "path": str(run.root),
        "format_version": run.format_version,
        "policy": None if config is None else config.policy,
        "tasks": None if config is None else config.tasks,
        "config": {} if config is None else config.as_written(),
        "has_report": (run.root / REPORT_NAME).is_file(),  # written by `webdojo report`
        "problems": list(run.problems),
    }


def overview(run: RunData) -> dict[str, Any]:
    """The run overview page: meta, totals, success by site and difficulty, the episodes."""
    summary = run_summary(run)
    rows = episode_rows(run)
    return {
        "run": run_meta(run),
        "totals": totals(run, summary, rows),
        "by_site": bucket_rows(summary.by_site),
        "by_difficulty": bucket_rows(summary.by_difficulty),
        "episodes": rows,
        "judges": judge_summaries(run),
        "choices": {
            "site": sorted({str(r["site"]) for r in rows}),
            "difficulty": sorted({r["difficulty"] for r in rows if r["difficulty"] is not None}),
            "status": [s for s in STATUSES if any(r["status"] == s for r in rows)],
            "error_code": sorted({c for r in rows for c in r["error_codes"]}),
        },
    }


# --- episodes -----------------------------------------------------------------------------


def _task_fields(run: RunData, task_id: str) -> dict[str, Any]:
    info = run.tasks.get(task_id)
    guess = task_id.split(".", 1)[0] if "." in task_id else None
    return {
        "site": info.site if info else guess,
        "difficulty": info.difficulty if info else None,
        "level": info.level if info else None,
    }


def _error_codes(steps: list[StepRecord], record: EpisodeRecord | None) -> list[str]:
    codes = {s.error.code for s in steps if s.error is not None}
    if record is not None and record.error is not None:
        codes.add(record.error.code)
    return sorted(codes)


def episode_rows(run: RunData) -> list[dict[str, Any]]:
    """One row per episode key: finished ones first (in record order), then unfinished."""
    rows = [_finished_row(run, key, rec) for key, rec in run.episodes.items()]
    return rows + [_unfinished_row(run, key) for key in run.unfinished]


def _finished_row(run: RunData, key: str, rec: EpisodeRecord) -> dict[str, Any]:
    steps = run.steps_of(key)
    return {
        "key": key,
        "task_id": rec.task_id,
        "site": rec.site,
        "difficulty": rec.difficulty,
        "level": rec.level,
        "status": status_of(rec),
        "outcome": rec.outcome.value,
        "steps": rec.steps,
        "wall_s": rec.wall_s,
        "repeats": sum(s.repeated for s in steps),
        "error_codes": _error_codes(steps, rec),
        "answer": rec.answer,
        "verdicts": _row_verdicts(run, key, rec.episode),
    }


def _unfinished_row(run: RunData, key: str) -> dict[str, Any]:
    steps = run.steps_of(key)
    task_id = steps[0].task_id if steps else key.split("#")[0]
    spent = sum(s.policy_s + s.env_s for s in steps)
    return {
        "key": key,
        "task_id": task_id,
        **_task_fields(run, task_id),
        "status": "unfinished",
        "outcome": None,
        "steps": len(steps),
        "wall_s": round(spent, 3),
        "repeats": sum(s.repeated for s in steps),
        "error_codes": _error_codes(steps, None),
        "answer": None,
        "verdicts": {},
    }


def _task_view(run: RunData, task_id: str) -> dict[str, Any] | None:
    info: TaskInfo | None = run.tasks.get(task_id)
    if info is None:
        return None
    return {
        "instruction": info.instruction,
        "facts": info.facts,
        "max_steps": info.max_steps,
        "difficulty": info.difficulty,
        "level": info.level,
    }


# what a step view shows of its record as it is
_STEP_FIELDS = {
    "step",
    "url",
    "title",
    "text",
    "action",
    "target",
    "memory",
    "error",
    "dialogs",
    "policy_s",
    "env_s",
    "usage",
}


def step_view(run: RunData, step: StepRecord, file_url: str) -> dict[str, Any]:
    """One step for display: the record plus its overlay, repeat flag and file URLs."""
    viewport = step.viewport
    spec = overlay_spec(step.action, step.target, viewport)

    def url(rel: str | None) -> str | None:
        if rel is None or rel in run.missing_files:
            return None
        return file_url + rel

    data = step.model_dump(include=_STEP_FIELDS)
    return {
        **data,
        "viewport": list(viewport),
        "action_text": describe_action(step.action),
        "overlay": spec,
        "overlay_svg": overlay_svg(spec, viewport),
        "repeat": step.repeated,
        "screenshot": step.screenshot,
        "screenshot_url": url(step.screenshot),
        "next_screenshot_url": url(step.next_screenshot),
    }


def episode_detail(run: RunData, key: str, file_url: str = "") -> dict[str, Any] | None:
    """The episode page: record, task, every step. None if the key is unknown."""
    record = run.episodes.get(key)
    if record is None and key not in run.unfinished:
        return None
    steps = run.steps_of(key)
    task_id = record.task_id if record else (steps[0].task_id if steps else key)
    problems = []
    if record is None:
        problems.append("this episode never finished: no verdict, outcome or wall time")
    elif record.steps and not steps:
        problems.append("no step records were found for this episode")
    elif record.steps != len(steps):
        problems.append(f"the record says {record.steps} steps; {len(steps)} were found")
    if task_id not in run.tasks:
        problems.append("the task's instruction and rubric are not available")
    views = [step_view(run, s, file_url) for s in steps]
    fields = _task_fields(run, task_id)
    if record is not None:
        fields = {"site": record.site, "difficulty": record.difficulty, "level": record.level}
    return {
        "key": key,
        "task_id": task_id,
        "status": status_of(record),
        "record": None if record is None else record.model_dump(exclude={"final_state"}),
        "task": _task_view(run, task_id),
        **fields,
        "steps": views,
        "repeats": sum(v["repeat"] for v in views),
        "policy_s": round(sum(s.policy_s for s in steps), 3),
        "env_s": round(sum(s.env_s for s in steps), 3),
        "verdicts": episode_verdicts(run, key, None if record is None else record.episode),
        "problems": problems,
    }


# --- verdicts -----------------------------------------------------------------------------


def current_verdict(run: RunData, judge: str, key: str, attempt: str | None) -> Verdict | None:
    """The judge's verdict on the episode's shown attempt; None when it judged another attempt
    (the episode was run again after it judged) or none."""
    verdict = run.verdicts.get(judge, {}).get(key)
    return verdict if verdict is not None and verdict.episode == attempt else None


def _row_verdicts(run: RunData, key: str, attempt: str | None) -> dict[str, dict[str, Any]]:
    found = {}
    for judge in run.verdicts:
        verdict = current_verdict(run, judge, key, attempt)
        if verdict is not None:
            found[judge] = {"label": verdict.label, "reward": verdict.reward}
    return found


def episode_verdicts(run: RunData, key: str, attempt: str | None) -> list[dict[str, Any]]:
    """Every judge's verdict on the episode, with criteria, evidence steps, notes and usage."""
    shown = []
    for judge in sorted(run.verdicts):
        verdict = current_verdict(run, judge, key, attempt)
        if verdict is not None:
            shown.append(verdict.model_dump(exclude={"schema_version", "key", "episode"}))
    return shown


def judge_summaries(run: RunData) -> list[dict[str, Any]]:
    """Per judge: verdicts by label, mean reward, and agreement with the stored verifier."""
    out = []
    for judge in sorted(run.verdicts):
        verdicts = [
            (v, run.episodes[key])
            for key, v in run.verdicts[judge].items()
            if key in run.episodes and v.episode == run.episodes[key].episode
        ]
        labels = Counter(v.label for v, _ in verdicts)
        rewards = [v.reward for v, _ in verdicts if v.reward is not None]
        both = [(v.reward, r.reward) for v, r in verdicts]
        scored = [(a, b) for a, b in both if a is not None and b is not None]
        agree = sum(succeeded(a) == succeeded(b) for a, b in scored)
        out.append(
            {
                "judge": judge,
                "verdicts": len(verdicts),
                "labels": dict(labels),
                "reward_mean": round(sum(rewards) / len(rewards), 4) if rewards else None,
                "with_verifier": len(scored),
                "agree_with_verifier": agree,
            }
        )
    return out
