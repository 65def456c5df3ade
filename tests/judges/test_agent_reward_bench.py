"""AgentRewardBench's expert annotations: the file the package ships, and bad files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from webdojo.errors import LabelFileError
from webdojo.judges.agent_reward_bench import (
    expert_labels,
    key_of_file,
    packaged_annotations,
    pairs_for,
    read_annotations,
)
from webdojo.judges.calibration import calibrate

HEADER = (
    "annotator_name,benchmark,task_id,model_name,exp_name,trajectory_success,"
    "trajectory_side_effect,trajectory_optimality,trajectory_looping"
)


@pytest.fixture(scope="module")
def shipped() -> Path:
    path = packaged_annotations()
    if path is None:
        pytest.skip(
            "agent-reward-bench is not installed (pip install --no-deps agent-reward-bench): "
            "its annotations.csv is what this test reads"
        )
    return path


def test_the_shipped_annotations_are_the_1302_expert_labelled_trajectories(shipped: Path) -> None:
    rows = read_annotations(shipped)
    labels = expert_labels(rows)
    assert len(rows) == 1408 and len(labels.annotations) == 1302  # the paper's 1,302
    assert sum(not r.primary for r in rows) == 106  # trajectories with a second expert
    assert labels.unsure == 1 and len(labels.labels) == 1301
    assert set(Counter(labels.labels.values())) == {"success", "failure"}
    assert set(labels.by_benchmark()) == {
        "webarena",
        "visualwebarena",
        "workarena",
        "assistantbench",
    }
    assert labels.agreement is not None and 0.8 < labels.agreement < 0.95
    first = rows[0]
    assert first.key == "webarena/GenericAgent-Qwen_Qwen2.5-VL-72B-Instruct/webarena.177"
    assert first.label == "failure" and first.primary
    path = first.trajectory_file(Path("/data/arb"))
    assert path.parts[-5:-1] == ("cleaned", "webarena", first.model_name, first.exp_name)
    assert key_of_file(path) == first.key
    assert all(r.annotator == r.annotator.strip() for r in rows)  # " H" in the file


def test_a_judge_that_always_says_success_on_the_expert_labels(shipped: Path) -> None:
    labels = expert_labels(read_annotations(shipped))
    judged = {key: "success" for key in labels.annotations}
    pairs, unlabelled = pairs_for(labels, judged)  # type: ignore[arg-type]
    cal = calibrate(pairs)
    assert unlabelled == 1 and cal.n == 1301 and cal.recall == 1.0
    assert cal.false_positives == sum(v == "failure" for v in labels.labels.values())
    assert cal.precision is not None and cal.precision < 0.3
    assert {p.source for p in pairs} == {
        f"agent-reward-bench:{b}"
        for b in ("webarena", "visualwebarena", "workarena", "assistantbench")
    }


def write(tmp_path: Path, *rows: str, header: str = HEADER) -> Path:
    path = tmp_path / "annotations.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_primary_is_the_first_row_of_a_trajectory(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "A,webarena,webarena.1,m,m_on_webarena,Successful,No,4. Completely Optimal,No",
        "B,webarena,webarena.1,m,m_on_webarena,Unsuccessful,No,2. Suboptimal,Yes",
        "B,webarena,webarena.2,m,m_on_webarena,Unsure,Unsure,Unsure,No",
    )
    labels = expert_labels(read_annotations(path))
    assert labels.labels == {"webarena/m/webarena.1": "success"}
    assert labels.unsure == 1 and (labels.pairs_compared, labels.pairs_agreeing) == (1, 0)
    assert labels.agreement == 0.0


def test_bad_files_name_file_line_and_column(tmp_path: Path) -> None:
    bad = write(tmp_path, "A,webarena,webarena.1,m,e,Maybe,No,x,No")
    with pytest.raises(LabelFileError, match=r"annotations\.csv:2: trajectory_success: 'Maybe'"):
        read_annotations(bad)
    empty_id = write(tmp_path, "A,webarena,,m,e,Successful,No,x,No")
    with pytest.raises(LabelFileError, match=r"annotations\.csv:2: task_id: empty"):
        read_annotations(empty_id)
    no_column = write(tmp_path, "A,webarena,w.1", header="annotator_name,benchmark,task_id")
    with pytest.raises(LabelFileError, match=r":1: missing columns: model_name, exp_name"):
        read_annotations(no_column)
    with pytest.raises(LabelFileError, match="cannot read"):
        read_annotations(tmp_path / "none.csv")
    with pytest.raises(LabelFileError, match="not a trajectory file"):
        key_of_file(Path("notes.txt"))
