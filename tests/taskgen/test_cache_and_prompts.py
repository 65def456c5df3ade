"""The reply cache (append-only, survives a cut line) and the versioned prompts."""

from __future__ import annotations

import hashlib
from pathlib import Path

from taskgen_helpers import groups

from webdojo.models.reply_cache import ReplyCache, content_key
from webdojo.taskgen import prompts


def test_cache_round_trip_and_a_line_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "c" / "rubric.jsonl"
    with ReplyCache(path) as cache:
        cache.put("k1", {"a": 1})
        cache.put("k2", [1, 2])
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"key": "k3", "val')  # a kill in the middle of a write
    with ReplyCache(path) as cache:
        assert cache.unreadable == 1 and len(cache) == 2 and cache.get("k1") == {"a": 1}
        cache.put("k3", "again")
    with ReplyCache(path) as cache:
        assert cache.unreadable == 1 and cache.get("k3") == "again" and "k2" in cache


def test_content_keys_separate_their_parts() -> None:
    assert content_key("a", "bc") != content_key("ab", "c")
    assert content_key("x", "y") == content_key("x", "y")


# Editing a prompt's wording must come with a new version, so that old cached replies stop
# being used: update the version AND this fingerprint together.
FINGERPRINTS = {
    prompts.RUBRIC_PROMPT_VERSION: "8abc1fc2210caaab",
    prompts.DECOMPOSE_PROMPT_VERSION: "51be04ca8fff915b",
}


def fingerprint(*texts: str) -> str:
    return hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]


def test_prompt_text_is_pinned_to_its_version() -> None:
    got = {
        prompts.RUBRIC_PROMPT_VERSION: fingerprint(
            prompts.RUBRIC_GUIDELINES, prompts.RUBRIC_REPAIR
        ),
        prompts.DECOMPOSE_PROMPT_VERSION: fingerprint(
            prompts.DECOMPOSE_GUIDELINES, prompts.DECOMPOSE_REPAIR
        ),
    }
    assert got == FINGERPRINTS, "prompt wording changed: bump its version and the fingerprint"


def test_the_rubric_prompt_carries_webgyms_rules() -> None:
    text = prompts.RUBRIC_GUIDELINES
    for rule in (
        "OR",
        "calculation",
        "How to",
        "such as",
        "total number of facts",
        '"fact_groups"',
    ):
        assert rule in text, rule
    user = prompts.rubric_messages("Buy a lamp.")[-1]["content"]
    assert "Buy a lamp." in user


def test_the_decompose_prompt_lists_only_the_selected_groups() -> None:
    gs = groups(2, 3, 4)
    user = prompts.decompose_messages("Original.", [gs[1]])[-1]["content"]
    assert "Group 2 (group 2): fact 2.1, fact 2.2, fact 2.3" in user
    assert "Group 1" not in user and "Group 3" not in user and "Original." in user
