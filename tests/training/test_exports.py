"""Each export format, written from real runs, loads back with its trainer's reader: the right
rows, the prompts the policy saw, images that are the run's screenshots."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import datasets
import pyarrow.parquet as pq
import pytest
from export_runs import ModelRun, select_bc

from webdojo.errors import ConfigError
from webdojo.training.contexts import ContextBuilder, selection_examples
from webdojo.training.examples import Example, image_refs
from webdojo.training.export_formats import ImageFiles, openai_row, sharegpt_row, verl_row
from webdojo.training.exports import export
from webdojo.training.samples import Sample

pytestmark = pytest.mark.browser
OPTIONS = {"max_images": 2}  # what the webgym run was made with
METADATA = ("task_id", "key", "episode", "step", "reward", "advantage", "weight", "rule")


@pytest.fixture(scope="module")
def webgym(
    webgym_run: ModelRun, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[Example]]:
    """The webgym run's bc selection and its examples (screenshots, memory, text history)."""
    selection = select_bc(webgym_run.root, tmp_path_factory.mktemp("webgym") / "sel")
    return selection, selection_examples(selection, template_options=OPTIONS)


def screenshots(run: Path) -> dict[str, bytes]:
    """The run's screenshots by sha256 (the store names them by it too)."""
    return {p.stem: p.read_bytes() for p in (run / "screenshots").rglob("*.*")}


def flat(content: str | list[dict[str, Any]]) -> str:
    """Qwen2-VL's layout of a list of parts, with LLaMA-Factory's and verl's placeholder."""
    if isinstance(content, str):
        return content
    return "".join("<image>" if p["type"] == "image_url" else p["text"] for p in content)


def test_openai_jsonl_points_at_image_files(
    webgym: tuple[Path, list[Example]], webgym_run: ModelRun, tmp_path: Path
) -> None:
    selection, examples = webgym
    summary = export(selection, tmp_path / "out", "openai", template_options=OPTIONS)
    rows = [json.loads(line) for line in (tmp_path / "out/train.jsonl").read_text().splitlines()]
    assert summary.samples == len(rows) == len(examples)
    shots = screenshots(webgym_run.root)
    for row, example in zip(rows, examples, strict=True):
        assert [row[k] for k in METADATA] == [getattr(example.sample, k) for k in METADATA]
        for message in row["messages"]:
            for part in message["content"] if isinstance(message["content"], list) else []:
                if part["type"] == "image_url":  # back to a data URL: the prompt as it was sent
                    path = tmp_path / "out" / part["image_url"]["url"]
                    data = path.read_bytes()
                    assert (
                        shots[path.stem] == data and hashlib.sha256(data).hexdigest() == path.stem
                    )
                    b64 = base64.b64encode(data).decode()
                    part["image_url"]["url"] = f"data:image/jpeg;base64,{b64}"
        assert row["messages"] == example.messages
        assert row["messages"][-1] == {"role": "assistant", "content": example.reply}
    files = list((tmp_path / "out/images").iterdir())
    assert summary.images == len(files) and summary.image_refs == sum(
        len(image_refs(e.prompt)) for e in examples
    )


def test_sharegpt_is_llama_factorys_multimodal_format(
    webgym: tuple[Path, list[Example]], tmp_path: Path
) -> None:
    selection, examples = webgym
    export(selection, tmp_path / "out", "sharegpt", template_options=OPTIONS)
    rows = json.loads((tmp_path / "out/train.json").read_text())
    info = json.loads((tmp_path / "out/dataset_info.json").read_text())
    assert (
        info["webdojo"]["formatting"] == "sharegpt" and info["webdojo"]["file_name"] == "train.json"
    )
    assert info["webdojo"]["columns"] == {"messages": "messages", "images": "images"}
    assert info["webdojo"]["tags"]["system_tag"] == "system"
    assert len(rows) == len(examples)
    for row, example in zip(rows, examples, strict=True):
        roles = [m["role"] for m in row["messages"]]
        assert roles[0] == "system" and roles[1::2] == ["user"] * (len(roles) // 2)
        assert roles[2::2] == ["assistant"] * ((len(roles) - 1) // 2) and roles[-1] == "assistant"
        placeholders = sum(m["content"].count("<image>") for m in row["messages"])
        assert placeholders == len(row["images"]) == len(image_refs(example.prompt)) > 0
        assert [m["content"] for m in row["messages"]] == [
            flat(m["content"]) for m in example.messages
        ]
        for path, ref in zip(row["images"], image_refs(example.prompt), strict=True):
            assert (tmp_path / "out" / path).read_bytes() == ref.data  # in placeholder order


def test_hf_dataset_loads_from_disk(webgym: tuple[Path, list[Example]], tmp_path: Path) -> None:
    selection, examples = webgym
    export(selection, tmp_path / "out", "hf", template_options=OPTIONS)
    dataset = datasets.load_from_disk(str(tmp_path / "out"))
    assert dataset.num_rows == len(examples)
    assert {"messages", "images", *METADATA} == set(dataset.column_names)
    raw = dataset.cast_column("images", [datasets.Image(decode=False)])
    for row, example in zip(raw, examples, strict=True):
        assert [img["bytes"] for img in row["images"]] == [
            r.data for r in image_refs(example.prompt)
        ]
        parts = [p for m in row["messages"] for p in m["content"]]
        assert sum(p["type"] == "image" for p in parts) == len(row["images"])
        assert row["messages"][-1]["content"] == [{"type": "text", "text": example.reply}]
        assert row["step"] == example.sample.step and row["rule"] == "bc"
    first = dataset[0]["images"][0]
    assert first.size == (1280, 720)  # a PIL image of the viewport


def test_verl_parquet_has_the_rlhf_dataset_columns(
    webgym: tuple[Path, list[Example]], tmp_path: Path
) -> None:
    selection, examples = webgym
    export(selection, tmp_path / "out", "verl", template_options=OPTIONS)
    table = pq.read_table(tmp_path / "out/train.parquet")
    assert table.column_names == [
        "data_source", "agent_name", "prompt", "images", "ability", "reward_model", "extra_info"
    ]  # fmt: skip
    rows = table.to_pylist()
    assert len(rows) == len(examples)
    for index, (row, example) in enumerate(zip(rows, examples, strict=True)):
        assert row["prompt"] == [
            {"role": m["role"], "content": flat(m["content"])} for m in example.prompt
        ]
        assert sum(m["content"].count("<image>") for m in row["prompt"]) == len(row["images"])
        assert [i["bytes"] for i in row["images"]] == [r.data for r in image_refs(example.prompt)]
        assert row["reward_model"] == {"style": "rule", "ground_truth": example.reply}
        assert row["agent_name"] == "webdojo_agent"  # adapters.verl's loop runs extra_info.task_id
        extra = row["extra_info"]
        assert (extra["index"], extra["response"], extra["reward"]) == (index, example.reply, 1.0)
        assert extra["task_id"] == example.sample.task_id and extra["step"] == example.sample.step


def test_text_only_exports_have_no_images_column(
    browseragent_run: ModelRun, tmp_path: Path
) -> None:
    selection = select_bc(browseragent_run.root, tmp_path / "sel")
    verl = export(selection, tmp_path / "verl", "verl")
    assert "images" not in pq.read_table(tmp_path / "verl/train.parquet").column_names
    hf = export(selection, tmp_path / "hf", "hf")
    assert "images" not in datasets.load_from_disk(str(tmp_path / "hf")).column_names
    assert verl.images == hf.images == 0 and verl.samples == hf.samples > 0


def test_a_failed_export_leaves_nothing_behind(
    webgym: tuple[Path, list[Example]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    selection, _ = webgym
    out = tmp_path / "out"
    export(selection, out, "openai", template_options=OPTIONS)
    before = (out / "train.jsonl").read_bytes()
    calls = []
    real = ContextBuilder.example

    def flaky(self: ContextBuilder, sample: Any) -> Example:
        calls.append(sample)
        if len(calls) == 3:
            raise ConfigError("the disk went away")
        return real(self, sample)

    monkeypatch.setattr(ContextBuilder, "example", flaky)
    for fmt in ("openai", "verl"):
        calls.clear()
        with pytest.raises(ConfigError, match="disk went away"):
            export(selection, out, fmt, template_options=OPTIONS, force=True)
        assert (out / "train.jsonl").read_bytes() == before  # the old export is untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no staging left


def test_a_non_empty_out_needs_force(webgym: tuple[Path, list[Example]], tmp_path: Path) -> None:
    selection, examples = webgym
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("keep me")
    with pytest.raises(ConfigError, match=r"not empty.*--force"):
        export(selection, out, "verl", template_options=OPTIONS)
    assert (out / "old.txt").read_text() == "keep me"
    summary = export(selection, out, "verl", template_options=OPTIONS, force=True)
    assert sorted(p.name for p in out.iterdir()) == ["train.parquet"]
    assert (
        summary.samples == len(examples) and summary.bytes == (out / "train.parquet").stat().st_size
    )
    (tmp_path / "empty").mkdir()
    assert export(selection, tmp_path / "empty", "openai", template_options=OPTIONS).samples


def an_example(prompt: list[dict[str, Any]]) -> Example:
    sample = Sample(rule="bc", run="r", iteration=0, key="t#0", episode="e", task_id="t",
                    step=0, reward=1.0)  # fmt: skip
    return Example(sample, prompt, reply="done")


def test_what_sharegpt_and_verl_cannot_carry_is_refused(tmp_path: Path) -> None:
    files = ImageFiles(tmp_path)
    twice = an_example([{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    with pytest.raises(ConfigError, match="do not alternate user and assistant"):
        sharegpt_row(twice, files)
    literal = an_example(
        [{"role": "user", "content": [{"type": "text", "text": "an <image> tag"}]}]
    )
    with pytest.raises(ConfigError, match=r"t#0 step 0 .* contains the text <image>"):
        sharegpt_row(literal, files)
    with pytest.raises(ConfigError, match="contains the text <image>"):
        verl_row(literal, 0, has_images=False)
    assert openai_row(literal, files)[0]["messages"][0] == literal.prompt[0]  # openai keeps it
