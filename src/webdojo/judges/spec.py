"""Judge specs: the names ``webdojo judge --judge SPEC`` accepts, and the judges they build.

    programmatic | exact | f1 | rubric | rubric-task | website-failure
    NAME@MODEL                    the same judge asking another model on the same endpoint
    consensus:J1,J2,J3            majority vote of k judges (BrowserAgent's 2-of-3 with k = 3)
    unanimous:J1,J2,J3            success only when every judge says so

``rubric-task`` is the rubric judge prompted with the task alone (no rubric): WebGym's Figure 5
compares the two. Members of a consensus are any of the single specs, e.g.
``consensus:rubric@judge-a,rubric@judge-b,website-failure``.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

from webdojo.errors import ConfigError
from webdojo.judges.base import Judge, JudgeOptions

VOTES = {"consensus": "majority", "unanimous": "unanimous"}

# name -> (class path, option changes). Every judge class takes one argument, the JudgeOptions;
# classes are imported when a spec names them (each pulls in what it needs: Pillow, a client).
JUDGES: dict[str, tuple[str, dict[str, Any]]] = {
    "programmatic": ("webdojo.judges.programmatic:ProgrammaticJudge", {}),
    "exact": ("webdojo.judges.answer_match:ExactJudge", {}),
    "f1": ("webdojo.judges.answer_match:F1Judge", {}),
    "rubric": ("webdojo.judges.rubric:RubricJudge", {}),
    "rubric-task": ("webdojo.judges.rubric:RubricJudge", {"prompt": "task"}),
    "website-failure": ("webdojo.judges.website_failure:WebsiteFailureJudge", {}),
}


def judge_names() -> list[str]:
    return sorted(JUDGES)


def build_judge(spec: str, options: JudgeOptions) -> Judge:
    """The judge ``spec`` names (see the module docstring); ConfigError for unknown names."""
    spec = spec.strip()
    kind, colon, members = spec.partition(":")
    if colon:
        if kind not in VOTES:
            raise ConfigError(f"unknown judge {spec!r}: use consensus:J1,J2,... or unanimous:...")
        from webdojo.judges.consensus import ConsensusJudge

        names = [m.strip() for m in members.split(",") if m.strip()]
        if len(names) < 2:
            raise ConfigError(f"{spec!r}: a consensus needs at least two judges")
        judges = [_single(name, options) for name in names]
        return ConsensusJudge(spec, judges, vote=VOTES[kind])
    return _single(spec, options)


def _single(spec: str, options: JudgeOptions) -> Judge:
    name, at, model = spec.partition("@")
    if name not in JUDGES:
        raise ConfigError(f"unknown judge {name!r}; known: {', '.join(judge_names())}")
    path, changes = JUDGES[name]
    if at:
        if not model or options.model is None:
            raise ConfigError(f"{spec!r}: NAME@MODEL needs a model name and a model endpoint")
        options = dataclasses.replace(
            options, model=dataclasses.replace(options.model, model=model)
        )
    module, _, cls = path.partition(":")
    judge: Judge = getattr(importlib.import_module(module), cls)(
        dataclasses.replace(options, **changes)
    )
    judge.name = spec
    return judge
