"""Which of a family instance's values a run typed or chose: the harness behind the per-value
tables of docs/learning.md (runs FE and FF).

    python scripts/family_values.py RUN_DIR SPEC
        RUN_DIR: a run's directory, e.g. a loop's round-0/eval/heldout
        SPEC: the task spec the run ran, e.g. family:admin-settings+login-preferences:30@1000

For each family and each field its reference solution types into or chooses in (by the
field's html id), it prints in how many instances the run's actions held that exact value,
out of the instances whose solution sets that field, and how many distinct values the run wrote
in that family. Since 2026-11-30 a solution sets every field its objective names; before, it
left out a select that already showed the asked value (runs FE-FG), so a run from then is
counted against today's solutions: over all its instances.
An episode that wrote the value into another field still counts; the episode's success is
the verifier's, in the run's episodes.jsonl.
"""

from __future__ import annotations

import sys
from collections import Counter, defaultdict
from pathlib import Path

from webdojo.actions import Select, Type
from webdojo.store.run_reader import read_run
from webdojo.tasks.loader import load_spec


def written(run: Path) -> dict[str, list[str]]:
    """The texts typed and options chosen in the run's finished episodes, by task id, in step
    order."""
    found: dict[str, list[str]] = defaultdict(list)
    for step in read_run(run).finished_steps():
        if isinstance(step.action, Type):
            found[step.task_id].append(step.action.text)
        elif isinstance(step.action, Select):
            found[step.task_id].append(step.action.option)
    return found


def main(run: Path, spec: str) -> None:
    made = written(run)
    right: dict[str, Counter[str]] = defaultdict(Counter)
    asked: dict[str, Counter[str]] = defaultdict(Counter)
    distinct: dict[str, set[str]] = defaultdict(set)
    for task in load_spec(spec).tasks:
        family = task.meta["family"]
        distinct[family].update(made.get(task.id, []))
        for step in (s.model_dump() for s in task.solution):
            if step["type"] not in ("type", "select"):
                continue
            field = (step.get("target") or {}).get("html_id") or "?"
            value = step.get("text") or step.get("option")
            asked[family][field] += 1
            right[family][field] += value in made.get(task.id, [])
    for family in sorted(asked):
        fields = ", ".join(f"{f} {right[family][f]}/{n}" for f, n in asked[family].items())
        print(f"{family}: {fields}; {len(distinct[family])} distinct values written")


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
