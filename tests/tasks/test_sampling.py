"""Difficulty-ratio sampling, step caps, the blocklist, near-duplicates, the effective size."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from shape_tasks import last_json, task, write
from typer.testing import CliRunner

from webdojo.cli import app
from webdojo.errors import ConfigError
from webdojo.tasks.blocklist import Blocklist, BlocklistError, block_website, parse_duration
from webdojo.tasks.near_dup import NearDupFilter, signatures, similarity
from webdojo.tasks.sampling import parse_caps, parse_ratio, quotas, sample_file
from webdojo.tasks.schema import Task
from webdojo.tasks.task_file import iter_tasks

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
]


def _instruction(i: int) -> str:
    """Distinct instructions: word 3-grams differ between any two."""
    words = [WORDS[(i * 7 + k * (i % 5 + 1)) % len(WORDS)] + str(i) for k in range(8)]
    return "Find " + " ".join(words)


def pool() -> list[Task]:
    """60 easy, 30 medium, 10 hard tasks on 10 websites, and 5 of unknown level."""
    tasks = []
    for i in range(100):
        d = 2 if i < 60 else 5 if i < 90 else 8
        tasks.append(task(f"t{i:03d}", f"https://www.site{i % 10}.com/", d,
                          instruction=_instruction(i)))  # fmt: skip
    for i in range(5):
        tasks.append(task(f"u{i}", "https://unknown.org/", None, instruction=_instruction(200 + i)))
    return tasks


def test_parsing_ratios_caps_and_durations() -> None:
    assert parse_ratio("2:5:3") == (2, 5, 3)
    assert parse_ratio("uniform") is None
    assert parse_ratio("only-medium") == (0, 1, 0)
    for bad in ("2:5", "a:b:c", "0:0:0", "-1:2:3", "easy"):
        with pytest.raises(ConfigError, match="easy:medium:hard"):
            parse_ratio(bad)
    assert parse_caps("15,30,45") == {"easy": 15, "medium": 30, "hard": 45}
    with pytest.raises(ConfigError):
        parse_caps("10,20")
    assert quotas(10, (2, 5, 3)) == {"easy": 2, "medium": 5, "hard": 3}
    assert quotas(7, (1, 1, 1)) == {"easy": 3, "medium": 2, "hard": 2}
    assert parse_duration("7d") == timedelta(days=7)
    assert parse_duration("90m") == timedelta(minutes=90)
    with pytest.raises(ConfigError, match="unit"):
        parse_duration("soon")


def test_ratio_sampling_with_caps(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    out = tmp_path / "sample.jsonl"
    result = sample_file(source, out, 20, (2, 5, 3), seed=1,
                         caps={"easy": 10, "medium": 20, "hard": 30})  # fmt: skip
    tasks = list(iter_tasks(out))
    assert Counter(t.level for t in tasks) == {"easy": 4, "medium": 10, "hard": 6}
    assert result.levels == {"easy": 4, "medium": 10, "hard": 6} and result.short == {}
    assert all(t.step_cap == {"easy": 10, "medium": 20, "hard": 30}[t.level or ""] for t in tasks)
    assert result.unknown_level == 5  # left out of ratio sampling
    assert len({t.id for t in tasks}) == 20


def test_a_level_that_runs_out_is_reported_short(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    result = sample_file(source, tmp_path / "s.jsonl", 50, (0, 0, 1))
    assert result.levels["hard"] == 10 and result.short == {"hard": 40}


def test_uniform_and_only_easy(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    uniform = sample_file(source, tmp_path / "u.jsonl", 105, None, caps=parse_caps("1,2,3"))
    ids = {t.id: t for t in iter_tasks(tmp_path / "u.jsonl")}
    assert uniform.sampled == 105 and "u0" in ids  # unknown levels are drawn too
    assert ids["u0"].step_cap == 2  # ... with the medium cap
    easy = sample_file(source, tmp_path / "e.jsonl", 30, parse_ratio("only-easy"))
    assert {t.level for t in iter_tasks(tmp_path / "e.jsonl")} == {"easy"}
    assert easy.sampled == 30


def test_sampling_is_deterministic_by_seed(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    outs = []
    for name, seed in (("a", 7), ("b", 7), ("c", 8)):
        sample_file(source, tmp_path / name, 15, (1, 1, 1), seed=seed)
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1] != outs[2]


def test_near_duplicates_are_rejected(tmp_path: Path) -> None:
    base = "Find the cheapest flight from Paris to Rome next Monday and report its price"
    copies = [
        task(
            f"dup{i}",
            "https://flights.example.com/",
            2,
            instruction=base + " please" * (i % 2) + ("!" * i),
        )
        for i in range(10)
    ]
    others = [task(f"o{i}", "https://other.example.com/", 2, instruction=_instruction(i))
              for i in range(10)]  # fmt: skip
    source = write(tmp_path / "pool.jsonl", copies + others)
    result = sample_file(source, tmp_path / "s.jsonl", 20, None, seed=0)
    sampled = [t.id for t in iter_tasks(tmp_path / "s.jsonl")]
    assert sum(1 for s in sampled if s.startswith("dup")) == 1
    assert result.near_dup_rejected == 9 and result.sampled == 11
    assert result.short == {"all": 9}
    loose = sample_file(source, tmp_path / "s2.jsonl", 20, None, dup_threshold=1.0)
    assert loose.near_dup_rejected < 9  # only exact shingle-set copies at threshold 1


def test_minhash_estimates_similarity() -> None:
    texts = [
        "search for a red wool scarf under twenty dollars with free shipping to Boston",
        "search for a red wool scarf under twenty dollars with free shipping to Denver",
        "open the weather page and report tomorrow's forecast for Oslo",
    ]
    sigs, bands = signatures(texts)
    assert similarity(sigs[0], sigs[0]) == 1.0
    assert 0.6 < similarity(sigs[0], sigs[1]) < 1.0  # 11 of 13 three-grams shared: 0.85
    assert similarity(sigs[0], sigs[2]) < 0.2
    again, _ = signatures(texts[:1])
    assert (again[0] == sigs[0]).all()  # the same in every call (and process)
    dups = NearDupFilter(0.7)
    assert dups.offer(sigs[0], bands[0]) is None
    assert dups.offer(sigs[1], bands[1]) == 0
    assert dups.offer(sigs[2], bands[2]) is None and len(dups) == 2


def test_blocklist_add_expire_and_reload(tmp_path: Path) -> None:
    path = tmp_path / "blocklist.json"
    now = datetime(2026, 1, 1, tzinfo=UTC)
    site, entry = block_website(path, "https://www.site1.com/x", timedelta(days=7), "captcha",
                                now=now)  # fmt: skip
    assert site == "site1.com" and entry.count == 1
    _, again = block_website(path, "shop.site1.com", timedelta(days=1), now=now)
    assert again.count == 2 and again.until == now + timedelta(days=7) and again.reason == "captcha"
    block_website(path, "site2.com", timedelta(hours=1), "rate limit", now=now)
    blocklist = Blocklist.load(path)
    assert blocklist.active(now) == {"site1.com", "site2.com"}
    assert blocklist.active(now + timedelta(hours=2)) == {"site1.com"}  # site2 expired
    assert json.loads(path.read_text())["site1.com"]["count"] == 2
    path.write_text('{"x.com": {"reason": "no until"}}')
    with pytest.raises(BlocklistError, match=r"x\.com"):
        Blocklist.load(path)


def test_blocked_websites_are_left_out(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    result = sample_file(source, tmp_path / "s.jsonl", 105, None,
                         blocked_sites={"site1.com", "site2.com"})  # fmt: skip
    assert result.blocked == 20 and result.sampled == 85
    assert not any(t.website and "site1" in t.website for t in iter_tasks(tmp_path / "s.jsonl"))


def test_effective_size_over_rounds(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    state = tmp_path / "state.json"
    sizes = []
    seen: set[str] = set()
    for seed in range(4):
        result = sample_file(source, tmp_path / "s.jsonl", 30, None, seed=seed, state_path=state)
        ids = {t.id for t in iter_tasks(tmp_path / "s.jsonl")}
        assert result.new == len(ids - seen)
        seen |= ids
        sizes.append(result.effective_size)
        assert result.round == seed + 1
    assert sizes == sorted(sizes) and sizes[-1] == len(seen) and sizes[0] == 30 < sizes[-1]
    state.write_text('{"version": 9}')
    with pytest.raises(ConfigError, match="state file"):
        sample_file(source, tmp_path / "s.jsonl", 3, None, state_path=state)


def test_sample_and_block_commands(tmp_path: Path) -> None:
    source = write(tmp_path / "pool.jsonl", pool())
    blocklist = tmp_path / "bl.json"
    runner = CliRunner()
    blocked = runner.invoke(app, ["tasks", "block", "https://www.site3.com/", "--for", "7d",
                                  "--reason", "captcha", "--blocklist", str(blocklist), "--json"])  # fmt: skip
    assert blocked.exit_code == 0, blocked.output
    assert last_json(blocked.output)["website"] == "site3.com"
    args = ["tasks", "sample", str(source), "--n", "20", "--ratio", "2:5:3", "--caps", "10,20,30",
            "--blocklist", str(blocklist), "--state", str(tmp_path / "st.json"), "--out",
            str(tmp_path / "s.jsonl"), "--seed", "4", "--json"]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = last_json(result.output)
    assert data["levels"] == {"easy": 4, "medium": 10, "hard": 6}
    assert data["blocked"] == 10 and data["effective_size"] == 20 and data["round"] == 1
    assert data["near_dup_rejected"] == 0 and data["unknown_level"] == 5
    assert "effective task set size: 20" in result.output
    bad = runner.invoke(app, [a if a != "2:5:3" else "2:5" for a in args])
    assert bad.exit_code == 2 and "easy:medium:hard" in bad.output
    bad_for = runner.invoke(app, ["tasks", "block", "x.com", "--for", "soon", "--blocklist",
                                  str(blocklist)])  # fmt: skip
    assert bad_for.exit_code == 2
