"""The report's evaluation and judge sections, on a run whose figures are worked out by hand."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judges.judge_runs import write_run
from webdojo.errors import ErrorInfo
from webdojo.store.records import parse_episode, to_line
from webdojo.store.run_store import EPISODES as EPISODES_FILE
from webdojo.store.verdicts import Criterion, JudgeUsage, Verdict, VerdictWriter
from webdojo.tasks.schema import difficulty_level
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
    # its 95% CI: tasks a (2 of 2) and b (0 of 1) drawn with replacement give 0, 0.5 or 1
    judged = (
        '<td>judge exact</td><td>3</td><td>1</td><td>66.7% (2/3)</td><td><span data-testid="ci">'
    )
    assert judged + "0.0–100.0%</span>" in html and "0.750 ± 0.354" in html
    assert html.count('<svg class="ci"') == 2  # the interval drawn for each source
    assert 'data-testid="judges"' in html and "<td>exact</td><td>4</td>" in html
    assert "a#1 was success" in html or "b#1 was failure" in html  # an example's verdict


# --- a run with sites, levels, domains and repeats, every figure worked out by hand ----------

# key -> (verifier outcome: True / False / "fault", site, difficulty); tasks a, b, c
EPISODES: dict[str, tuple[bool | str, str, int]] = {
    "a#0": (True, "films", 2), "a#1": (False, "films", 2), "a#2": ("fault", "films", 2),
    "b#0": (False, "films", 5), "b#1": (False, "films", 5),
    "c#0": (True, "news", 8), "c#1": (True, "news", 8),
}  # fmt: skip
DOMAINS = {"a": "Entertainment", "b": "Misc.", "c": "Misc."}
JUDGED = {"a#0": "success", "a#1": "success", "a#2": "infra_error", "b#0": "failure",
          "b#1": "website_failure", "c#0": "success", "c#1": "failure"}  # fmt: skip


def write_breakdown_run(root: Path) -> Path:
    tasks = root.parent / "tasks.json"
    tasks.write_text(json.dumps([
        {"id": t, "instruction": f"task {t}", "website": "https://example.com/",
         "domain": DOMAINS[t], "difficulty": EPISODES[f"{t}#0"][2]} for t in DOMAINS
    ]), encoding="utf-8")  # fmt: skip
    write_run(root, {key: outcome for key, (outcome, _, _) in EPISODES.items()}, str(tasks))
    records = [parse_episode(line) for line in (root / EPISODES_FILE).read_text().splitlines()]
    with open(root / EPISODES_FILE, "w", encoding="utf-8") as out:  # each key's site and level
        for record in records:
            _, site, difficulty = EPISODES[record.key]
            level = difficulty_level(difficulty)
            changed = record.model_copy(update={"site": site, "difficulty": difficulty,
                                                "level": level})  # fmt: skip
            out.write(to_line(changed) + "\n")
    with VerdictWriter(root, "exact") as writer:
        for key, label in JUDGED.items():
            writer.write(verdict(key, label))
    return root


def rows_of(html: str, testid: str) -> list[list[str]]:
    """The body rows of the table with ``data-testid`` as lists of cell texts."""
    table = html.split(f"data-testid='{testid}'", 1)[1].split("</table>", 1)[0]
    body = table.split("<tbody>", 1)[1]
    return [re.findall(r"<td>(.*?)</td>", row) for row in body.split("</tr>") if "<td>" in row]


def test_breakdowns_by_difficulty_level_domain_and_site(tmp_path: Path) -> None:
    html = render_report(load_run(write_breakdown_run(tmp_path / "run")))
    assert html.count('data-testid="ci"') == 2  # each source's 95% CI; its figures: above
    html = re.sub(r'<td><span data-testid="ci">.*?</svg></td>', "", html)
    # verifier: 3 of 6 scored (a#2 is a fault); pass@1 = (1/2 + 0 + 1) / 3, pass@2 = (1 + 0 + 1)
    # / 3; repeat 0 has 2 of 3, repeat 1 has 1 of 3 -> 0.5 ± 0.2357
    assert ("<td>verifier</td><td>6</td><td>1</td><td>50.0% (3/6)</td>"
            "<td>0.500 ± 0.236 (2 repeats)</td><td>pass@1 0.500, pass@2 0.667</td>") in html  # fmt: skip
    # the judge: a#2 (infra error) and b#1 (website failure) unscored; 3 of 5; b keeps one
    # scored episode, so no pass@k; repeat 0: 2 of 3, repeat 1: 1 of 2 -> 0.583 ± 0.118
    assert ("<td>judge exact</td><td>5</td><td>2</td><td>60.0% (3/5)</td>"
            "<td>0.583 ± 0.118 (2 repeats)</td><td>–</td>") in html  # fmt: skip
    assert "<thead><tr><th>level</th><th>verifier</th><th>judge exact</th>" in html
    assert rows_of(html, "success-by-level") == [  # easiest first, not alphabetical
        ["easy", "50.0% (1/2)", "100.0% (2/2)"],
        ["medium", "0.0% (0/2)", "0.0% (0/1)"],
        ["hard", "100.0% (2/2)", "50.0% (1/2)"],
    ]
    assert rows_of(html, "success-by-difficulty") == [
        ["2", "50.0% (1/2)", "100.0% (2/2)"],
        ["5", "0.0% (0/2)", "0.0% (0/1)"],
        ["8", "100.0% (2/2)", "50.0% (1/2)"],
    ]
    assert rows_of(html, "success-by-domain") == [  # from the task set, not the records
        ["Entertainment", "50.0% (1/2)", "100.0% (2/2)"],
        ["Misc.", "50.0% (2/4)", "33.3% (1/3)"],
    ]
    assert rows_of(html, "success-by-site") == [
        ["films", "25.0% (1/4)", "66.7% (2/3)"],
        ["news", "100.0% (2/2)", "50.0% (1/2)"],
    ]
    # agreement where both scored: a#0, b#0, c#0 agree; a#1 and c#1 do not
    assert "<td>exact</td><td>7</td><td>3</td><td>2</td><td>1</td><td>0</td><td>1</td>" in html
    assert "<td>0.600</td><td>3/5</td>" in html


def test_example_verdicts_show_reasons_evidence_usage_and_errors(tmp_path: Path) -> None:
    run = write_run(tmp_path / "run", {"a#0": False, "b#0": "fault"})
    criteria = [
        Criterion(name="G1.1", kind="fact", passed=True, reason="the page was opened",
                  evidence=[0]),
        Criterion(name="G1.2", kind="fact", passed=False, reason="the price <b>is</b> wrong",
                  evidence=[1, 2]),
        Criterion(name="G1.3", kind="fact", passed=None, reason="an earlier fact failed"),
    ]  # fmt: skip
    usage = JudgeUsage(calls=3, cached=1, prompt_tokens=1200, completion_tokens=80, cost=0.0123)
    failed = Verdict(judge="rubric", key="a#0", episode="a#0-e", task_id="a", label="failure",
                     reward=0.0, criteria=criteria, usage=usage, model="judge-model",
                     notes=["downscaled 4 images to 512 px to fit the context"])  # fmt: skip
    missing = ErrorInfo(code="trajectory_incomplete", fault="infra",
                          message="no final answer was stored")  # fmt: skip
    broken = Verdict(judge="rubric", key="b#0", episode="b#0-e", task_id="b", label="infra_error",
                     reward=None, criteria=[], error=missing)  # fmt: skip
    with VerdictWriter(run, "rubric") as writer:
        writer.write(failed)
        writer.write(broken)
    html = render_report(load_run(run), examples=2)
    block = html.split("<div class='judge-verdict' data-judge='rubric'>")
    assert len(block) == 3  # both examples carry the judge's verdict
    shown = next(b for b in block[1:] if "G1.2" in b).split("</div>", 1)[0]
    assert (
        "reward 0 " in shown and "judge-model: 3 calls, 1 cached, 1280 tokens, cost 0.0123" in shown
    )
    # the failed and the unchecked criteria, not the passed one; two steps: step 2 is the
    # page after the last step
    assert "<li class='fail'>G1.2: the price &lt;b&gt;is&lt;/b&gt; wrong" in shown
    assert "(evidence: step 1, final page)" in shown
    assert "<li class='unchecked'>G1.3: not checked · an earlier fact failed</li>" in shown
    assert "G1.1" not in shown and "downscaled 4 images" in shown
    error = next(b for b in block[1:] if "infra error" in b).split("</div>", 1)[0]
    assert "reward none <code>trajectory_incomplete</code> no final answer was stored" in error
