"""A synthetic task set in WebGym's Hugging Face format (``microsoft/webgym_tasks``) for the
task-set benchmark: ``task_id, task_name, domain, subdomain, website, difficulty,
evaluator_reference`` (the rubric's fact groups) and ``reference_answer``.

The shape follows WebGym §3.4: half of the tasks on 20 websites, the other half spread over a
long tail (about 0.4 websites per task, most with one task); about 80% easy tasks
(difficulty 1-3); subdomains drawn from the Mind2Web-2 taxonomy; hosts with and without
``www.`` and under several public suffixes; and a few percent of instructions that are
near-copies of another (what the sampler's near-duplicate check must catch).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from webdojo.tasks.taxonomy import DOMAINS

HEAD_SITES = 20
HEAD_SHARE = 0.5
TAIL_SITES_PER_TASK = 1.0  # tail draws land on ~40% of them: ~118k websites for 300k tasks
NEAR_COPY_SHARE = 0.03
# difficulty 1..10, about 80% at 1-3 as in WebGym's Figure 3 (right)
DIFFICULTY_WEIGHTS = [30, 28, 22, 7, 5, 3, 2, 1.5, 1, 0.5]
SUFFIXES = ["com", "com", "com", "org", "net", "co.uk", "de", "com.au", "io", "github.io"]
PREFIXES = ["www.", "www.", "", "shop.", "en.", "m."]
VERBS = ["Find", "Look up", "Compare", "List", "Check", "Search for", "Locate", "Identify"]
_ONSETS = ["ka", "lo", "mi", "ne", "su", "ta", "ve", "zo", "ri", "pa"]
_CODAS = [
    "ber",
    "dan",
    "fel",
    "gor",
    "hin",
    "lum",
    "mar",
    "nox",
    "pel",
    "quin",
    "ros",
    "sil",
    "tor",
    "vin",
    "wex",
]
WORDS = [f"{a}{b}" for a in _ONSETS for b in _CODAS]
SUBDOMAINS = [(d, s) for d, subs in DOMAINS.items() for s in subs]


def _website(rng: random.Random, rank: int) -> str:
    suffix = SUFFIXES[rank % len(SUFFIXES)]
    return f"https://{rng.choice(PREFIXES)}site{rank}.{suffix}/"


def _instruction(rng: random.Random, facts: int) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(4 + 2 * facts))
    return f"{rng.choice(VERBS)} the {words} and report {facts} details about it."


def _rubric(rng: random.Random, difficulty: int) -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = []
    left = difficulty
    while left:
        size = min(left, rng.randint(1, 3))
        facts = [
            f"the answer states the {rng.choice(WORDS)} {rng.choice(WORDS)}" for _ in range(size)
        ]
        groups.append(
            {"id": len(groups) + 1, "description": f"part {len(groups) + 1}", "facts": facts}
        )
        left -= size
    return groups


def webgym_rows(n: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    tail = max(1, int(n * TAIL_SITES_PER_TASK))
    head_weights = [1 / r for r in range(1, HEAD_SITES + 1)]
    recent: list[str] = []
    for i in range(n):
        if rng.random() < HEAD_SHARE:
            rank = rng.choices(range(1, HEAD_SITES + 1), head_weights)[0]
        else:
            rank = HEAD_SITES + 1 + rng.randrange(tail)
        difficulty = rng.choices(range(1, 11), DIFFICULTY_WEIGHTS)[0]
        if recent and rng.random() < NEAR_COPY_SHARE:
            instruction = rng.choice(recent) + " Please."  # a near-copy of an earlier one
        else:
            instruction = _instruction(rng, difficulty)
            recent = ([*recent, instruction])[-100:]
        domain, subdomain = rng.choice(SUBDOMAINS)
        yield {
            "task_id": f"wg{i:07d}",
            "task_name": instruction,
            "domain": domain,
            "subdomain": subdomain,
            "website": _website(random.Random(rank), rank),  # one host per site
            "difficulty": difficulty,
            "evaluator_reference": _rubric(rng, difficulty),
            "reference_answer": f"{rng.choice(WORDS)} {rng.randint(1, 999)}"
            if rng.random() < 0.3
            else None,
        }


def write_webgym_rows(path: Path, n: int, seed: int = 0) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for row in webgym_rows(n, seed):
            handle.write(json.dumps(row))
            handle.write("\n")
    return n
