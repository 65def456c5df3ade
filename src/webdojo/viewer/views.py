"""JSON views of a run for the viewer's pages and the report (pure: ``RunData`` in, dicts out).

An episode's ``status`` is one of ``success``, ``failure`` (verified, did not pass), ``fault``
(an env/infra fault ended it: unscored) and ``unfinished`` (steps, but no episode record).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from webdojo.store.summary import Bucket, RunSummary, repetition, summarize
from webdojo.viewer.overlay import describe_action, overlay_spec, overlay_svg
from webdojo.viewer.runs import RunData, TaskInfo, step_viewport

STATUSES = ("success", "failure", "fault", "unfinished")
REPORT_NAME = "report.html"  # the report's default place, inside the run directory


def status_of(record: dict[str, Any] | None) -> str:
    if record is None:
        return "unfinished"
    success = record.get("success")
    if success is None:
        return "fault"
    return "success" if success else "failure"


def is_repeat(step: dict[str, Any]) -> bool:
    """WebGym's repetition: the action left the screenshot byte-identical (stops excluded),
    the same rule as ``webdojo.store.summary.repetition``."""
    shot = step.get("screenshot")
    if shot is None or (step.get("action") or {}).get("type") == "stop":
        return False
    return bool(shot == step.get("next_screenshot"))


# --- summary ------------------------------------------------------------------------------


def run_summary(run: RunData) -> RunSummary:
    """``store.summary.summarize``; records of an older format that it cannot read are
    summarized field by field instead (missing site or difficulty count as unknown)."""
    try:
        return summarize(run.root)
    except (KeyError, TypeError, ValueError, AttributeError):
        pass
    overall = Bucket()
    by_site: dict[str, Bucket] = defaultdict(Bucket)
    by_diff: dict[int, Bucket] = defaultdict(Bucket)
    by_level: dict[str, Bucket] = defaultdict(Bucket)
    faults: Counter[str] = Counter()
    for rec in run.episodes.values():
        difficulty = rec.get("difficulty")
        for bucket in (
            overall,
            by_site[str(rec.get("site") or "unknown")],
            by_diff[difficulty if isinstance(difficulty, int) else 0],
            by_level[str(rec.get("level") or "unknown")],
        ):
            bucket.add({**rec, "steps": rec.get("steps") or 0})
        if isinstance(rec.get("error"), dict):
            faults[str(rec["error"].get("code"))] += 1
    repeated, total = repetition(run.root, {r.get("episode") for r in run.episodes.values()})
    return RunSummary(
        out=str(run.root),
        overall=overall,
        by_site=dict(by_site),
        by_difficulty=dict(by_diff),
        by_level=dict(by_level),
        repeated_steps=repeated,
        total_steps=total,
        wall_s=sum(float(r.get("wall_s") or 0.0) for r in run.episodes.values()),
        fault_codes=dict(faults),
    )


def bucket_rows(buckets: dict[Any, Bucket]) -> list[dict[str, Any]]:
    return [{"name": str(name) if name != 0 else "unknown", **bucket.to_json()}
            for name, bucket in sorted(buckets.items())]  # fmt: skip


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
    config = run.config or {}
    return {
        "name": run.name,
        "path": str(run.root),
        "format_version": run.format_version,
        "policy": config.get("policy"),
        "tasks": config.get("tasks"),
        "config": config,
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


def episode_rows(run: RunData) -> list[dict[str, Any]]:
    """One row per episode key: finished ones first (in record order), then unfinished."""
    rows = []
    for key, rec in run.episodes.items():
        steps = run.steps_of(key)
        codes = {s["error"].get("code") for s in steps if isinstance(s.get("error"), dict)}
        if isinstance(rec.get("error"), dict):
            codes.add(rec["error"].get("code"))
        task_id = str(rec.get("task_id", key.split("#")[0]))
        fallback = _task_fields(run, task_id)
        rows.append({
            "key": key,
            "task_id": task_id,
            "site": rec.get("site", fallback["site"]),
            "difficulty": rec.get("difficulty", fallback["difficulty"]),
            "level": rec.get("level", fallback["level"]),
            "status": status_of(rec),
            "outcome": rec.get("outcome"),
            "steps": rec.get("steps", len(steps)),
            "wall_s": rec.get("wall_s"),
            "repeats": sum(is_repeat(s) for s in steps),
            "error_codes": sorted(str(c) for c in codes if c),
            "answer": rec.get("answer"),
        })  # fmt: skip
    for key, uid in run.unfinished.items():
        steps = run.steps.get(uid, [])
        task_id = str(steps[0].get("task_id", key.split("#")[0])) if steps else key
        spent = sum(float(s.get("policy_s") or 0) + float(s.get("env_s") or 0) for s in steps)
        codes = {s["error"].get("code") for s in steps if isinstance(s.get("error"), dict)}
        rows.append({
            "key": key, "task_id": task_id, **_task_fields(run, task_id),
            "status": "unfinished", "outcome": None, "steps": len(steps),
            "wall_s": round(spent, 3), "repeats": sum(is_repeat(s) for s in steps),
            "error_codes": sorted(str(c) for c in codes if c), "answer": None,
        })  # fmt: skip
    return rows


def _task_view(run: RunData, task_id: str) -> dict[str, Any] | None:
    info: TaskInfo | None = run.tasks.get(task_id)
    if info is None:
        return None
    return {"instruction": info.instruction, "facts": info.facts, "max_steps": info.max_steps,
            "difficulty": info.difficulty, "level": info.level}  # fmt: skip


def step_view(run: RunData, step: dict[str, Any], file_url: str) -> dict[str, Any]:
    """One step for display: the record plus its overlay, repeat flag and file URLs."""
    viewport = step_viewport(step, run)
    spec = overlay_spec(step.get("action"), step.get("target"), viewport)

    def url(rel: Any) -> str | None:
        if not isinstance(rel, str) or rel in run.missing_files:
            return None
        return file_url + rel

    return {
        **{k: step.get(k) for k in ("step", "url", "title", "text", "action", "target",
                                    "memory", "error", "dialogs", "policy_s", "env_s", "usage")},
        "viewport": list(viewport),
        "action_text": describe_action(step.get("action")),
        "overlay": spec,
        "overlay_svg": overlay_svg(spec, viewport),
        "repeat": is_repeat(step),
        "screenshot": step.get("screenshot"),
        "screenshot_url": url(step.get("screenshot")),
        "next_screenshot_url": url(step.get("next_screenshot")),
    }  # fmt: skip


def episode_detail(run: RunData, key: str, file_url: str = "") -> dict[str, Any] | None:
    """The episode page: record, task, every step. None if the key is unknown."""
    record = run.episodes.get(key)
    if record is None and key not in run.unfinished:
        return None
    steps = run.steps_of(key)
    task_id = str((record or {}).get("task_id") or (steps[0].get("task_id") if steps else key))
    problems = []
    if record is None:
        problems.append("this episode never finished: no verdict, outcome or wall time")
    elif record.get("steps") and not steps:
        problems.append("no step records were found for this episode")
    elif isinstance(record.get("steps"), int) and record["steps"] != len(steps):
        problems.append(f"the record says {record['steps']} steps; {len(steps)} were found")
    if task_id not in run.tasks:
        problems.append("the task's instruction and rubric are not available")
    views = [step_view(run, s, file_url) for s in steps]
    return {
        "key": key,
        "task_id": task_id,
        "status": status_of(record),
        "record": record,
        "task": _task_view(run, task_id),
        **_task_fields(run, task_id),
        **({k: record[k] for k in ("site", "difficulty", "level") if k in record} if record else {}),
        "steps": views,
        "repeats": sum(v["repeat"] for v in views),
        "policy_s": round(sum(float(s.get("policy_s") or 0) for s in steps), 3),
        "env_s": round(sum(float(s.get("env_s") or 0) for s in steps), 3),
        "problems": problems,
    }  # fmt: skip
