"""``config.json`` as the typed ``RunConfigRecord``: files of every version load unchanged."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from webdojo.errors import ConfigError
from webdojo.rollout.run import RunConfig, config_record
from webdojo.store.run_config import CONFIG, PolicySettings, RunConfigRecord, read_config
from webdojo.store.run_store import RunStore

# as webdojo 0.1 wrote it (format 1: no server, archive, wiki or network yet)
OLD_CONFIG = """{
  "concurrency": 4,
  "extra": {},
  "format_version": 1,
  "limit": null,
  "out": "runs/first",
  "policy": "scripted",
  "repeats": 1,
  "seed": 0,
  "tasks": "builtin",
  "viewport": [
    1280,
    720
  ]
}"""

# as `webdojo run --policy openai --wiki ...` writes it today (format 2)
CURRENT_CONFIG = """{
  "archive": null,
  "browser_args": [],
  "concurrency": 2,
  "extra": {"model": "qwen", "template": "browseragent"},
  "format_version": 2,
  "limit": 5,
  "network": {"allow_hosts": [], "allow_origins": [], "block_private": true,
              "blocked_names": ["localhost"], "blocked_schemes": ["file"], "deny_hosts": [],
              "enabled": true},
  "out": "runs/wiki",
  "policy": "openai",
  "record": {"hosts": ["a.test"], "path": "arch"},
  "repeats": 3,
  "seed": 7,
  "server": "http://127.0.0.1:8100",
  "site_port": 0,
  "tasks": "qa.jsonl",
  "viewport": [1024, 768],
  "wiki": "wiki.zim",
  "wiki_backend": "auto"
}"""

# as the agent adapter (adapters.openai_agent) writes its settings
AGENT_EXTRA = {
    "template": "qwen",
    "template_options": {"max_images": 2},
    "model": "m",
    "max_steps": 12,
    "temperature": 1,
    "model_options": {"timeout_s": 30},
    "adapter": "openai_agent",
}


def write(root: Path, text: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / CONFIG).write_text(text, encoding="utf-8")
    return root


def test_an_old_config_json_loads_unchanged(tmp_path: Path) -> None:
    config = read_config(write(tmp_path, OLD_CONFIG))
    assert config is not None
    assert (config.format_version, config.tasks, config.policy) == (1, "builtin", "scripted")
    assert (config.limit, config.seed, config.viewport) == (None, 0, (1280, 720))
    assert config.extra == PolicySettings() and config.wiki is None and config.network is None
    assert config.as_written() == json.loads(OLD_CONFIG)


def test_a_current_config_json_loads_typed(tmp_path: Path) -> None:
    config = read_config(write(tmp_path, CURRENT_CONFIG))
    assert config is not None
    assert (config.extra.template, config.extra.model) == ("browseragent", "qwen")
    assert (config.wiki, config.server, config.repeats) == ("wiki.zim", "http://127.0.0.1:8100", 3)
    assert config.record == {"hosts": ["a.test"], "path": "arch"} and config.browser_args == []
    assert config.as_written() == json.loads(CURRENT_CONFIG)


def test_the_agent_adapters_settings_are_typed_and_shown_as_written(tmp_path: Path) -> None:
    text = json.dumps({"format_version": 2, "tasks": "t", "extra": AGENT_EXTRA, "later": [1]})
    config = read_config(write(tmp_path, text))
    assert config is not None and config.extra.template_options == {"max_images": 2}
    assert (config.extra.max_steps, config.extra.adapter) == (12, "openai_agent")
    assert config.as_written() == json.loads(text)  # the temperature stays 1, the key "later" too
    assert config.model_extra == {"later": [1]}


def test_every_field_webdojo_run_writes_is_a_field_of_the_record() -> None:
    """A field added to RunConfig must be added to RunConfigRecord (and read through it)."""
    run = RunConfig(extra={"template": "qwen", "model": "m"})
    written = {"format_version": 2, **config_record(run).as_written()}
    config = RunConfigRecord.model_validate(written)
    assert config.model_extra == {} and config.extra.model_extra == {}
    assert set(written) == set(RunConfigRecord.model_fields)
    assert {f.name for f in dataclasses.fields(RunConfig)} - {"token"} == set(written) - {
        "format_version"
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "no config.json"),
        ("{not json", "config.json cannot be read"),
        ("[1, 2]", "config.json is not a JSON object"),
        ('{"seed": "seven"}', "config.json is not a run configuration (seed: "),
    ],
)
def test_what_cannot_be_read_is_none_and_said(
    tmp_path: Path, text: str | None, problem: str
) -> None:
    if text is not None:
        write(tmp_path, text)
    problems: list[str] = []
    assert read_config(tmp_path, problems) is None and read_config(tmp_path) is None
    assert len(problems) == 1 and problems[0].startswith(problem), problems


def test_a_null_extra_reads_as_no_settings(tmp_path: Path) -> None:
    config = read_config(write(tmp_path, '{"tasks": "builtin", "extra": null}'))
    assert config is not None and config.extra.template is None


def test_resuming_over_an_unreadable_config_is_a_config_error(tmp_path: Path) -> None:
    write(tmp_path, "{torn")
    with RunStore(tmp_path) as store, pytest.raises(ConfigError, match="cannot be read"):
        store.write_config(
            RunConfigRecord.model_validate({"tasks": "builtin", "policy": "scripted", "seed": 0})
        )
