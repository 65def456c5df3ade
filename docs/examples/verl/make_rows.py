"""Write verl's RL rows for webdojo tasks: one row per task, run by the webdojo_agent loop.

    python make_rows.py [--tasks builtin] [--val-fraction 0.2]

A row needs ``prompt`` (verl's dataset reads it; the agent loop builds its own conversation
from the task), ``agent_name`` and ``extra_info.task_id``.
"""

import argparse
import random

import pyarrow as pa
import pyarrow.parquet as pq

from webdojo.tasks.loader import load_spec

parser = argparse.ArgumentParser()
parser.add_argument("--tasks", default="builtin")
parser.add_argument("--val-fraction", type=float, default=0.2)
args = parser.parse_args()

tasks = [t for t in load_spec(args.tasks).tasks if t.verifier is not None]
random.Random(0).shuffle(tasks)
rows = [
    {
        "data_source": "webdojo",
        "agent_name": "webdojo_agent",
        "prompt": [{"role": "user", "content": t.instruction}],
        "extra_info": {"task_id": t.id, "index": i},
    }
    for i, t in enumerate(tasks)
]
cut = int(len(rows) * (1 - args.val_fraction))
pq.write_table(pa.Table.from_pylist(rows[:cut]), "train.parquet")
pq.write_table(pa.Table.from_pylist(rows[cut:]), "val.parquet")
print(f"{cut} training rows, {len(rows) - cut} validation rows")
