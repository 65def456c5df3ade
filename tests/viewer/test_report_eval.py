"""The report's evaluation and judge sections, on a run whose figures are worked out by hand."""

from __future__ import annotations

from pathlib import Path

from judges.judge_runs import write_run
from webdojo.store.verdicts import Criterion, Verdict, VerdictWriter
from webdojo.viewer.report import render_report
from webdojo.viewer.runs import load_run


def verdict(key: str, label: str) -> Verdict:
    reward = {"success": 1.0, "failure": 0.0}.get(label)
    why = Criterion(name="G1", kind="fact", passed=label == "success", reason=f"{key} was {label}",
                    evidence=[1])  # fmt: skip
    return Verdict(judge="exact", key=key, episode=key + "-e", task_id=key.split("#")[0],
                   label=label, reward=reward, criteria=[why])  # type: ignore[arg-type]  # fmt: skip


def test_evaluation_and_judges_sections(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": True, "a#1": False, "b#0": False, "b#1": False})
    with VerdictWriter(run, "exact") as writer:
        for key, label in [("a#0", "success"), ("a#1", "success"), ("b#0", "website_failure"),
                           ("b#1", "failure")]:  # fmt: skip
            writer.write(verdict(key, label))
    html = render_report(load_run(run))
    # verifier: 1 of 4; pass@1 = (0.5 + 0) / 2, pass@2 = (1 + 0) / 2; repeats 0.5 and 0
    assert "<td>verifier</td><td>4</td><td>0</td><td>25.0% (1/4)</td>" in html
    assert "0.250 ± 0.354 (2 repeats)" in html and "pass@1 0.250, pass@2 0.500" in html
    # the judge: b#0 is a website failure, left out: 2 of 3 scored; b keeps one scored
    # episode, so no k > 1 fits every task, and repeat 1 has one of two
    assert "<td>judge exact</td><td>3</td><td>1</td><td>66.7% (2/3)</td><td>0.750 ± 0.354" in html
    assert 'data-testid="judges"' in html and "<td>exact</td><td>4</td>" in html
    assert "a#1 was success" in html or "b#1 was failure" in html  # an example's verdict
