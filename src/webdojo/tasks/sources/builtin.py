"""webdojo's own built-in tasks (the synthetic sites in ``webdojo/sites/builtin``), exported
as a task file: ``webdojo tasks import builtin --out builtin.jsonl``.

They are already ``Task``s, so their ids stay as they are (``shop.cart-lamp``, no prefix): runs,
verdicts and ``--tasks builtin`` name them that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from webdojo.tasks.loader import BUILTIN, load_spec
from webdojo.tasks.sources.base import Converted, Format, Opened, RawRecord, Where


def read_builtin() -> Iterator[RawRecord]:
    where = "builtin"
    for index, task in enumerate(load_spec(BUILTIN).tasks):
        data = task.model_dump()
        yield RawRecord(Where(where, row=index), index, data=data)


def convert(record: RawRecord) -> Converted:
    data = dict(record.data or {})
    return Converted(str(data.pop("id")), data)


def _open(path: Path) -> Opened:
    return Opened(convert)


FORMAT = Format(
    name=BUILTIN,
    description="webdojo's built-in sites (SOURCE 'builtin', no file)",
    keys=frozenset(),
    kinds=(),
    open=_open,
    prefix_ids=False,
)
