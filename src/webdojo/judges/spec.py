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
from collections.abc import Callable
from typing import Any

from webdojo.errors import ConfigError
from webdojo.judges.answer_match import ExactJudge, F1Judge
from webdojo.judges.base import Judge, JudgeOptions
from webdojo.judges.consensus import ConsensusJudge
from webdojo.judges.programmatic import ProgrammaticJudge
from webdojo.judges.rubric import RubricJudge
from webdojo.judges.website_failure import WebsiteFailureJudge

VOTES = {"consensus": "majority", "unanimous": "unanimous"}

# What builds a judge from the JudgeOptions: a judge class (every one takes that one argument).
JudgeClass = Callable[[JudgeOptions], Judge]

# name -> (judge class, option changes). The classes are imported above, not named by strings,
# so mypy and the layering test see every judge a spec can build.
JUDGES: dict[str, tuple[JudgeClass, dict[str, Any]]] = {
    "programmatic": (ProgrammaticJudge, {}),
    "exact": (ExactJudge, {}),
    "f1": (F1Judge, {}),
    "rubric": (RubricJudge, {}),
    "rubric-task": (RubricJudge, {"prompt": "task"}),
    "website-failure": (WebsiteFailureJudge, {}),
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
    judge_class, changes = JUDGES[name]
    if at:
        if not model or options.model is None:
            raise ConfigError(f"{spec!r}: NAME@MODEL needs a model name and a model endpoint")
        options = dataclasses.replace(
            options, model=dataclasses.replace(options.model, model=model)
        )
    judge = judge_class(dataclasses.replace(options, **changes))
    judge.name = spec
    return judge
