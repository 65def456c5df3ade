"""``webdojo bench compare-browsergym`` as a user runs it: both sides really step on the same
pages and Chromium, and the four ratios scripts read are there. BrowserGym runs from
``.venv-browsergym`` (``make test`` builds it); without it the measuring test is skipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e.cli_process import last_json, webdojo
from webdojo.bench import browsergym_bench
from webdojo.bench.browsergym_bench import browsergym_python
from webdojo.bench.browsergym_result import Block, CompareResult, median_ratio
from webdojo.errors import ConfigError, MissingDependency

RATIOS = ("inpage_cpu_ratio", "nav_cpu_ratio", "inpage_p50_ratio", "nav_p50_ratio")


def _venv_or_skip() -> None:
    try:
        browsergym_python()
    except MissingDependency as exc:
        pytest.skip(f"no BrowserGym virtualenv (`make browsergym-venv` builds it): {exc}")


@pytest.mark.browser
@pytest.mark.slow
def test_both_sides_step_and_the_ratios_are_reported() -> None:
    _venv_or_skip()
    args = ("bench", "compare-browsergym", "--steps", "2", "--rounds", "1", "--json")
    result = last_json(webdojo(*args, timeout=120))
    for key in RATIOS:
        assert isinstance(result[key], float) and result[key] > 0, key
        assert isinstance(result["floor_ratios"][key], float), key  # raw Playwright's step
        assert isinstance(result["webdojo_over_floor"][key], float), key
    for side in ("webdojo", "webdojo_rich", "floor", "browsergym"):
        for kind in ("inpage", "nav"):
            stats = result[side][kind]
            assert stats["steps"] == 2 and stats["p50_ms"] > 0 and stats["cpu_ms"] > 0, side
    assert result["browsergym_version"] == "0.14.3"
    assert result["browsergym_playwright"] != result["webdojo_playwright"]  # its own venv
    assert result["chromium"].startswith(result["browsergym_chromium"])  # the same binary
    assert result["executable"] in result["chromium"]
    assert result["browsergym_settings"]["slow_mo"] == 0
    assert result["browsergym_settings"]["pre_observation_delay"] == 0
    assert (result["steps"], result["rounds"]) == (2, 1)


def _round(ours_ms: float, ours_cpu: float, theirs_ms: float, theirs_cpu: float) -> dict:
    ours = {k: Block(ms=[ours_ms, ours_ms], cpu_ms=ours_cpu) for k in ("inpage", "nav")}
    theirs = {k: Block(ms=[theirs_ms, theirs_ms], cpu_ms=theirs_cpu) for k in ("inpage", "nav")}
    return {"webdojo": ours, "webdojo_rich": ours, "browsergym": theirs}


def test_ratios_are_ours_over_browsergyms_median_of_rounds() -> None:
    result = CompareResult(steps=2, rounds=3)
    result.by_round = [
        _round(50.0, 40.0, 200.0, 400.0),  # 0.25 wall, 0.1 CPU
        _round(60.0, 90.0, 100.0, 300.0),  # 0.6 (a busy round), 0.3
        _round(40.0, 40.0, 200.0, 200.0),  # 0.2, 0.2
    ]
    out = result.to_json()
    assert out["inpage_p50_ratio"] == out["nav_p50_ratio"] == 0.25
    assert out["inpage_cpu_ratio"] == out["nav_cpu_ratio"] == 0.2
    assert out["rich_ratios"]["nav_cpu_ratio"] == 0.2
    assert out["floor_ratios"]["nav_p50_ratio"] is None  # no floor side in these rounds
    assert out["floor"]["nav"]["steps"] == 0
    result.by_round[0]["floor"] = {  # one round with a floor
        k: Block(ms=[25.0, 25.0], cpu_ms=20.0) for k in ("inpage", "nav")
    }
    over = result.to_json()["webdojo_over_floor"]
    assert over["nav_p50_ratio"] == 2.0 and over["inpage_cpu_ratio"] == 2.0  # 50/25, 40/20
    assert "nav p50 2" in str(result.table().caption)
    assert out["webdojo"]["inpage"] == {"p50_ms": 50.0, "p90_ms": 60.0, "cpu_ms": 40.0, "steps": 6}
    assert out["browsergym"]["nav"]["cpu_ms"] == 300.0  # CPU per step: median of rounds
    assert median_ratio([1.0], [0.0]) is None  # a side that measured nothing gives no ratio


def test_without_the_venv_the_error_names_the_make_target(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(browsergym_bench.ENV_VAR, raising=False)
    monkeypatch.setattr(browsergym_bench, "VENV", ".venv-not-built")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MissingDependency, match="make browsergym-venv"):
        browsergym_python()


def test_the_command_fails_cleanly_without_the_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(browsergym_bench.ENV_VAR, "/nonexistent/python")
    proc = webdojo("bench", "compare-browsergym", "--steps", "1", "--rounds", "1", timeout=60)
    assert proc.returncode == 2 and "WEBDOJO_BROWSERGYM_PYTHON" in proc.stderr, proc.stderr


def test_zero_steps_is_refused_before_any_browser_starts() -> None:
    with pytest.raises(ConfigError, match="steps"):
        browsergym_bench.run_compare(steps=0)
