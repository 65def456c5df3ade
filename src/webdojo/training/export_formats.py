"""The four export formats, each a writer of ``Example``s into a directory (see ``exports``).

=============  ====================================================================================
``openai``     ``train.jsonl``: ``{"messages": [...], <metadata>}`` per sample, the prompt as the
               policy sent it and the reply as the last (assistant) message; image parts point to
               ``images/<sha256>.<png|jpg>`` (relative to the directory) instead of data URLs
``sharegpt``   LLaMA-Factory's multimodal sharegpt: ``train.json`` (a list of
               ``{"messages": [{"role", "content"}], "images": [paths], <metadata>}``, one
               ``<image>`` in the content per image, in order) and ``dataset_info.json``
               declaring it as dataset ``webdojo``; images as in ``openai``
``hf``         a ``datasets.Dataset`` (``save_to_disk``): ``messages`` with content parts
               ``{"type": "text", "text"}`` / ``{"type": "image"}`` (TRL's vision format),
               ``images`` (a list of ``datasets.Image``), and the metadata columns
``verl``       ``train.parquet`` in the layout of verl's RLHFDataset: ``data_source``,
               ``agent_name`` (``webdojo_agent``: verl's agent loop runs the row's task, see
               ``adapters.verl``), ``prompt`` (the messages without the reply, ``<image>``
               placeholders), ``images`` (``{"bytes", "path"}``), ``ability``, ``reward_model``
               (``style: rule``, the reply as ``ground_truth``) and ``extra_info`` (index,
               response, credit, provenance, ``task_id``)
=============  ====================================================================================

Metadata (every format): task_id, key, episode, step, reward, advantage, weight, rule. A text
and an image part of one message become one string in ``sharegpt`` and ``verl``: the parts are
joined with nothing in between and each image becomes ``<image>``, which is how Qwen2-VL's chat
template lays out a list of parts, so the tokens match what the served model read. The
``images`` column of ``hf`` and ``verl`` is left out when no sample has an image (text-only
templates such as ``browseragent``), so trainers treat the data as text.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from webdojo.errors import ConfigError
from webdojo.models.content import decode_image_part
from webdojo.training.contexts import describe
from webdojo.training.examples import Example, Message

IMAGE = "<image>"  # LLaMA-Factory's and verl's image placeholder
DATASET = "webdojo"  # the dataset's name in LLaMA-Factory's dataset_info.json
DATA_SOURCE = "webdojo"  # verl's data_source (its reward function dispatches on it)
ABILITY = "web_browsing"
# verl's agent_name column: the agent loop `webdojo.adapters.verl` registers, which runs the
# row's task (extra_info.task_id) as one episode per rollout
VERL_AGENT = "webdojo_agent"


@dataclass
class Written:
    """What a writer put in the directory."""

    samples: int = 0
    image_refs: int = 0  # image parts over all samples
    digests: set[str] = field(default_factory=set)  # distinct images

    def count(self, example: Example, images: list[bytes]) -> None:
        self.samples += 1
        self.image_refs += len(images)
        self.digests.update(hashlib.sha256(data).hexdigest() for data in images)


Writer = Callable[[Iterable[Example], Path, bool], Written]


def metadata(example: Example) -> dict[str, Any]:
    s = example.sample
    return {
        "task_id": s.task_id,
        "key": s.key,
        "episode": s.episode,
        "step": s.step,
        "reward": s.reward,
        "advantage": s.advantage,
        "weight": s.weight,
        "rule": s.rule,
    }


# --- images as files (openai, sharegpt) ---------------------------------------------------------


class ImageFiles:
    """``images/<sha256>.<ext>`` under a directory, each written once."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.names: set[str] = set()

    def add(self, part: dict[str, Any]) -> tuple[str, bytes]:
        """The image part's relative path, and its bytes."""
        image = decode_image_part(part)
        ext = "jpg" if image.format == "jpeg" else image.format
        name = f"images/{hashlib.sha256(image.data).hexdigest()}.{ext}"
        if name not in self.names:
            (self.root / "images").mkdir(exist_ok=True)
            (self.root / name).write_bytes(image.data)
            self.names.add(name)
        return name, image.data


def write_openai(examples: Iterable[Example], out: Path, has_images: bool) -> Written:
    written, files = Written(), ImageFiles(out)
    with open(out / "train.jsonl", "w", encoding="utf-8") as handle:
        for example in examples:
            row, images = openai_row(example, files)
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            written.count(example, images)
    return written


def openai_row(example: Example, files: ImageFiles) -> tuple[dict[str, Any], list[bytes]]:
    images: list[bytes] = []

    def to_file(part: dict[str, Any]) -> dict[str, Any]:
        name, data = files.add(part)
        images.append(data)
        return {"type": "image_url", "image_url": {"url": name}}

    messages = [_map_images(m, to_file) for m in example.messages]
    return {"messages": messages, **metadata(example)}, images


def _map_images(message: Message, fn: Callable[[dict[str, Any]], dict[str, Any]]) -> Message:
    content = message["content"]
    if isinstance(content, str):
        return dict(message)
    parts = [fn(p) if p.get("type") == "image_url" else p for p in content]
    return {**message, "content": parts}


def write_sharegpt(examples: Iterable[Example], out: Path, has_images: bool) -> Written:
    written, files = Written(), ImageFiles(out)
    with open(out / "train.json", "w", encoding="utf-8") as handle:
        handle.write("[")
        for example in examples:
            row, images = sharegpt_row(example, files)
            handle.write(",\n" if written.samples else "\n")
            handle.write(json.dumps(row, ensure_ascii=False))
            written.count(example, images)
        handle.write("\n]\n")
    info = {
        DATASET: {
            "file_name": "train.json",
            "formatting": "sharegpt",
            "columns": {"messages": "messages", "images": "images"},
            "tags": {
                "role_tag": "role",
                "content_tag": "content",
                "user_tag": "user",
                "assistant_tag": "assistant",
                "system_tag": "system",
            },
        }
    }
    (out / "dataset_info.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return written


def sharegpt_row(example: Example, files: ImageFiles) -> tuple[dict[str, Any], list[bytes]]:
    paths: list[str] = []
    images: list[bytes] = []

    def to_file(part: dict[str, Any]) -> None:
        name, data = files.add(part)
        paths.append(name)
        images.append(data)

    messages = [
        {"role": m["role"], "content": flat_text(example, m, to_file)} for m in example.messages
    ]
    _require_turns(example, [m["role"] for m in messages])
    return {"messages": messages, "images": paths, **metadata(example)}, images


def _require_turns(example: Example, roles: list[str]) -> None:
    """LLaMA-Factory drops (with a log line) a conversation whose turns do not alternate user,
    assistant after an optional system prompt: refuse it here instead."""
    turns = roles[1:] if roles[:1] == ["system"] else roles
    expected = ["user", "assistant"] * (len(turns) // 2)
    if turns != expected:
        raise ConfigError(
            f"{describe(example.sample)}: its turns ({', '.join(roles)}) do not alternate user "
            "and assistant, which LLaMA-Factory's sharegpt format needs; export it as openai or hf"
        )


def flat_text(example: Example, message: Message, on_image: Callable[[dict[str, Any]], Any]) -> str:
    """A message's content as one string, ``<image>`` where each image was (see the module
    docstring). ``on_image`` is called with each image part, in order."""
    content = message["content"]
    texts = [content] if isinstance(content, str) else [p.get("text", "") for p in content]
    if any(IMAGE in text for text in texts):
        raise ConfigError(
            f"{describe(example.sample)}: its prompt contains the text {IMAGE}, which this "
            "format reads as an image placeholder; export it as openai or hf instead"
        )
    if isinstance(content, str):
        return content
    out = []
    for part in content:
        if part.get("type") == "image_url":
            on_image(part)
            out.append(IMAGE)
        else:
            out.append(part.get("text", ""))
    return "".join(out)


# --- images embedded (hf, verl) ------------------------------------------------------------------


def image_bytes(part: dict[str, Any]) -> bytes:
    return decode_image_part(part).data


def write_hf(examples: Iterable[Example], out: Path, has_images: bool) -> Written:
    """``save_to_disk`` of a dataset streamed through a cache inside the staging directory."""
    try:
        import datasets
    except ImportError as exc:
        raise ConfigError(
            "the hf format needs the datasets package: pip install 'webdojo[train]'"
        ) from exc
    written = Written()

    def rows() -> Any:
        for example in examples:
            images: list[bytes] = []
            messages = [_parts(m, images) for m in example.messages]
            row = {"messages": messages, **metadata(example)}
            if has_images:
                row["images"] = [{"bytes": data, "path": None} for data in images]
            written.count(example, images)
            yield row

    text = datasets.Value("string")
    features = datasets.Features(
        {
            "messages": [{"role": text, "content": [{"type": text, "text": text}]}],
            **({"images": [datasets.Image()]} if has_images else {}),
            "task_id": text,
            "key": text,
            "episode": text,
            "step": datasets.Value("int64"),
            "reward": datasets.Value("float64"),
            "advantage": datasets.Value("float64"),
            "weight": datasets.Value("float64"),
            "rule": text,
        }
    )
    cache = out.parent / (out.name + ".cache")
    bars = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()  # webdojo draws its own
    try:
        dataset = datasets.Dataset.from_generator(
            rows,
            features=features,
            cache_dir=str(cache),
            fingerprint=uuid.uuid4().hex,
            writer_batch_size=64,  # rows held in memory at once: screenshots are the bulk
        )
        dataset.save_to_disk(str(out), max_shard_size="64MB")  # bounds memory while saving
    finally:
        if bars:
            datasets.enable_progress_bars()
    return written


def _parts(message: Message, images: list[bytes]) -> dict[str, Any]:
    content = message["content"]
    if isinstance(content, str):
        return {"role": message["role"], "content": [{"type": "text", "text": content}]}
    parts = []
    for part in content:
        if part.get("type") == "image_url":
            images.append(image_bytes(part))
            parts.append({"type": "image", "text": None})
        else:
            parts.append({"type": "text", "text": part.get("text", "")})
    return {"role": message["role"], "content": parts}


def verl_schema(has_images: bool) -> pa.Schema:
    message = pa.struct([("role", pa.string()), ("content", pa.string())])
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    extra = pa.struct(
        [
            ("index", pa.int64()),
            ("response", pa.string()),
            ("reward", pa.float64()),
            ("advantage", pa.float64()),
            ("weight", pa.float64()),
            ("rule", pa.string()),
            ("task_id", pa.string()),
            ("key", pa.string()),
            ("episode", pa.string()),
            ("step", pa.int64()),
            ("split", pa.string()),
        ]
    )
    fields = [
        ("data_source", pa.string()),
        ("agent_name", pa.string()),
        ("prompt", pa.list_(message)),
        *([("images", pa.list_(image))] if has_images else []),
        ("ability", pa.string()),
        ("reward_model", pa.struct([("style", pa.string()), ("ground_truth", pa.string())])),
        ("extra_info", extra),
    ]
    return pa.schema(fields)


def write_verl(examples: Iterable[Example], out: Path, has_images: bool) -> Written:
    written, schema, batch = Written(), verl_schema(has_images), []
    with pq.ParquetWriter(out / "train.parquet", schema) as writer:
        for index, example in enumerate(examples):
            row, images = verl_row(example, index, has_images)
            batch.append(row)
            written.count(example, images)
            if len(batch) >= 64:  # bounded memory: screenshots are the bulk
                writer.write_table(pa.Table.from_pylist(batch, schema))
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema))
    return written


def verl_row(example: Example, index: int, has_images: bool) -> tuple[dict[str, Any], list[bytes]]:
    images: list[bytes] = []
    prompt = [
        {
            "role": m["role"],
            "content": flat_text(example, m, lambda p: images.append(image_bytes(p))),
        }
        for m in example.prompt
    ]
    extra = {"index": index, "response": example.reply, "split": "train", **metadata(example)}
    row: dict[str, Any] = {
        "data_source": DATA_SOURCE,
        "agent_name": VERL_AGENT,
        "prompt": prompt,
        "ability": ABILITY,
        "reward_model": {"style": "rule", "ground_truth": example.reply},
        "extra_info": extra,
    }
    if has_images:
        row["images"] = [{"bytes": data, "path": None} for data in images]
    return row, images


WRITERS: dict[str, Writer] = {
    "openai": write_openai,
    "sharegpt": write_sharegpt,
    "hf": write_hf,
    "verl": write_verl,
}
