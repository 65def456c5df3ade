"""Question-answering tasks on the offline wiki (BrowserAgent's setting).

``load_qa_tasks`` reads a ``--tasks`` spec whose files are either our task files or any
format ``webdojo tasks import`` reads (FlashRAG JSONL, verl parquet, ...), converted in memory
the same way. A task with golden answers and no verifier of its own gets one: SQuAD exact
match against those answers (``AnswerCheck(match="em")``), so the episode's reward is EM and
the verifier's reason line carries the best token F1. ``on_wiki`` points every task at the
wiki's search page, where each episode starts.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from webdojo.errors import TaskFileError
from webdojo.tasks.loader import TaskSet, load_spec, load_task_file
from webdojo.tasks.schema import AnswerCheck, Task, Verifier
from webdojo.tasks.sources.base import RecordError
from webdojo.tasks.sources.detect import detect, first_record
from webdojo.tasks.sources.importer import to_task
from webdojo.tasks.sources.readers import kind_of, read_records


def load_qa_tasks(spec: str) -> TaskSet:
    """The tasks of ``spec`` (comma-separated sources), each with an answer verifier."""
    result = TaskSet()
    for source in filter(None, (s.strip() for s in spec.split(","))):
        result.merge(TaskSet(tasks=[with_answer_check(t) for t in _read_source(source)]))
    if not result.tasks:
        raise TaskFileError(f"the task spec {spec!r} selects no tasks")
    return result


def with_answer_check(task: Task) -> Task:
    """``task`` with an exact-match verifier on its golden answers, unless it has a verifier
    already or no golden answer."""
    golden = [ref.answer for ref in task.reference_answers if ref.type == "golden"]
    if task.verifier is not None or not golden:
        return task
    check = AnswerCheck(match="em", values=golden)
    return task.model_copy(update={"verifier": Verifier(checks=[check])})


def on_wiki(task_set: TaskSet, search_url: str) -> TaskSet:
    """Every task of the set starting at the wiki's search page."""
    tasks = [t.model_copy(update={"start_url": search_url}) for t in task_set.tasks]
    return TaskSet(tasks=tasks, sites=dict(task_set.sites))


def _read_source(source: str) -> list[Task]:
    path = Path(source).expanduser()
    if not path.is_file() or _is_task_file(path):
        return load_spec(source).tasks if not path.is_file() else load_task_file(path)
    return list(_imported(path))


def _is_task_file(path: Path) -> bool:
    """A file of our own tasks (its first record has an ``instruction``)."""
    kind = kind_of(path)
    if kind not in {"json", "jsonl"}:
        return False
    return "instruction" in first_record(path, kind)


def _imported(path: Path) -> Iterator[Task]:
    """The records of a file in an importable format, as tasks (strict: the first bad record
    is an error naming its place and field, as ``webdojo tasks import`` says it)."""
    found = detect(str(path))
    opened = found.format.open(path)
    for record in read_records(path, found.kind):
        try:
            yield to_task(record, found.format, opened)
        except RecordError as exc:
            raise TaskFileError(
                f"{record.where}: {exc.describe()} ({exc.kind})", where=str(record.where)
            ) from exc
