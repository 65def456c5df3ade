"""The reproducibility manifest: built from this checkout, written, read, compared."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from webdojo.errors import ConfigError
from webdojo.eval.manifest import (
    Manifest,
    build_manifest,
    chromium_info,
    git_state,
    manifest_differences,
    public_url,
    read_manifest,
    write_manifest,
)

REPO = Path(__file__).resolve().parents[2]


def settings(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "suite": "core",
        "suite_version": 1,
        "suite_hash": "sha256:abc",
        "policy": "model",
        "model": "qwen2.5-vl-3b",
        "model_base_url": "http://127.0.0.1:8000/v1",
        "template": "webgym",
        "sampling": {"temperature": 0.0, "top_p": 1.0, "max_tokens": 512},
        "seed": 0,
        "repeats": 3,
        "chromium_version": "Chromium 150.0",
        "chromium_flags": ["--no-first-run", "--disable-sync"],
    }
    return base | changes


@pytest.fixture(scope="module")
def manifest() -> Manifest:
    return build_manifest(**settings())


def test_the_manifest_records_this_checkout_and_environment(manifest: Manifest) -> None:
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert manifest.git_hash == head and isinstance(manifest.git_dirty, bool)
    assert manifest.webdojo_version == "0.1.0"
    assert manifest.packages["numpy"] and manifest.packages["pydantic"]
    assert list(manifest.packages) == sorted(manifest.packages, key=str.lower)
    assert manifest.python.count(".") == 2 and manifest.platform
    assert manifest.created_at.endswith("+00:00")
    assert (manifest.suite, manifest.repeats, manifest.sampling["max_tokens"]) == ("core", 3, 512)


def test_outside_a_checkout_there_is_no_git_hash(tmp_path: Path) -> None:
    assert git_state(tmp_path) == (None, None)


def test_the_model_url_keeps_no_credentials() -> None:
    built = build_manifest(**settings(model_base_url="http://user:pw@host:1/v1?key=x#frag"))
    assert built.model_base_url == "http://host:1/v1"
    direct = Manifest.model_validate(
        built.model_dump() | {"model_base_url": "https://k@api.example.com/v1/?api_key=s"}
    )
    assert direct.model_base_url == "https://api.example.com/v1/"
    assert public_url("http://[::1]:9/v1") == "http://[::1]:9/v1"
    assert public_url(None) is None and public_url("not a url") is None


def test_write_then_read_round_trips(tmp_path: Path, manifest: Manifest) -> None:
    assert read_manifest(tmp_path) is None
    path = write_manifest(manifest, tmp_path / "eval")
    assert path == tmp_path / "eval" / "manifest.json"
    assert read_manifest(tmp_path / "eval") == manifest
    assert [p.name for p in path.parent.iterdir()] == ["manifest.json"]  # no temporary left
    write_manifest(manifest.model_copy(update={"seed": 5}), tmp_path / "eval")
    again = read_manifest(tmp_path / "eval")
    assert again is not None and again.seed == 5


def test_a_broken_manifest_is_a_config_error(tmp_path: Path, manifest: Manifest) -> None:
    (tmp_path / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a valid eval manifest"):
        read_manifest(tmp_path)
    extra = manifest.model_dump_json()[:-1] + ', "surprise": 1}'
    (tmp_path / "manifest.json").write_text(extra, encoding="utf-8")
    with pytest.raises(ConfigError, match="surprise"):
        read_manifest(tmp_path)


def test_differences_name_what_matters(manifest: Manifest) -> None:
    later = manifest.model_copy(update={"created_at": "2030-01-01T00:00:00+00:00"})
    assert manifest_differences(manifest, later) == []
    other = manifest.model_copy(
        update={
            "model": "qwen2.5-vl-7b",
            "sampling": {**manifest.sampling, "temperature": 0.7},
            "chromium_flags": ["--no-first-run", "--disable-gpu"],
            "suite_hash": "sha256:def",
        }
    )
    assert manifest_differences(manifest, other) == [
        'suite_hash differs: "sha256:abc" (A) vs "sha256:def" (B)',
        'chromium_flags differ: only in A ["--disable-sync"], only in B ["--disable-gpu"]',
        'model differs: "qwen2.5-vl-3b" (A) vs "qwen2.5-vl-7b" (B)',
        "sampling.temperature differs: 0.0 (A) vs 0.7 (B)",
    ]


def test_package_differences_are_listed_up_to_ten() -> None:
    base = build_manifest(**settings())
    a = base.model_copy(update={"packages": {f"p{i:02d}": "1.0" for i in range(12)}})
    b = base.model_copy(
        update={"packages": {f"p{i:02d}": "2.0" for i in range(11)} | {"new": "0.1"}}
    )
    (warning,) = manifest_differences(a, b)
    assert warning.startswith("13 installed package(s) differ: new absent (A) vs 0.1 (B); ")
    assert "p00 1.0 (A) vs 2.0 (B)" in warning and "p09" not in warning
    assert warning.endswith("; and 3 more")


def test_chromium_info_reads_the_flags_webdojo_launches_with() -> None:
    from webdojo.browser.chromium import BrowserConfig

    version, flags = chromium_info()
    assert flags == BrowserConfig().launch_args()
    assert version is None or version.startswith(("Chromium", "Google Chrome"))
    missing = BrowserConfig(executable="/nonexistent/chromium", extra_args=("--x",))
    assert chromium_info(missing) == (None, [*missing.launch_args()])
