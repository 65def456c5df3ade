"""The reproducibility manifest: what an eval's number depends on, written next to it.

``manifest.json`` records the code (webdojo's version, the git hash of the checkout it was
imported from and whether that checkout had uncommitted changes, every installed package's
version), the suite (name, version, content hash), the browser (Chromium's version and the
flags webdojo launches it with), the policy and model (name, endpoint, prompt template, sampling
settings), the seed and repeats, and the Python and platform. It is what Inspect AI's eval log
header and AgentLab's reproducibility journal hold; ``manifest_differences`` turns two
manifests into the warnings a paired comparison prints, so a difference in score is never
silently a difference in setup.

Outside data (a file read back) is validated by pydantic with ``extra="forbid"``; the model's
endpoint is stored as scheme, host, port and path only: credentials and query strings (API
keys) never reach the file.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from webdojo.errors import ConfigError
from webdojo.store.run_store import write_atomic

if TYPE_CHECKING:  # the browser package imports Playwright: only when asked for Chromium
    from webdojo.browser.chromium import BrowserConfig

FILENAME = "manifest.json"
GIT_TIMEOUT_S = 5.0
CHROMIUM_TIMEOUT_S = 10.0
LISTED_PACKAGES = 10  # differing packages named before "and N more"
NOT_COMPARED = {"created_at"}  # fields that differ between any two runs


def public_url(url: str | None) -> str | None:
    """``scheme://host[:port]/path`` of a URL: no user, password, query or fragment. None
    for None or a URL without a host."""
    if not url:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    try:
        host, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number
        host, port = parts.hostname, None
    if not parts.scheme or not host:
        return None
    host = f"[{host}]" if ":" in host else host  # IPv6
    return f"{parts.scheme}://{host}{'' if port is None else f':{port}'}{parts.path}"


class Manifest(BaseModel):
    """What an eval's score depends on (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True, protected_namespaces=())

    webdojo_version: str
    git_hash: str | None  # HEAD of the checkout webdojo is imported from; None: not a checkout
    git_dirty: bool | None  # uncommitted changes in that checkout; None: not a checkout
    suite: str  # the suite's name
    suite_version: int | str
    suite_hash: str  # hash of the suite's task list, as the suite computes it
    chromium_version: str | None  # ``<chromium> --version``; None: not found
    chromium_flags: list[str]  # the launch flags webdojo passes
    policy: str
    model: str | None
    model_base_url: str | None  # scheme, host, port and path only (``public_url``)
    template: str | None  # the prompt template / output format
    sampling: dict[str, Any]  # temperature, top_p, max_tokens... as given
    seed: int
    repeats: int
    judges: dict[str, str] = Field(default_factory=dict)  # part -> the judge that scores it
    python: str
    platform: str
    packages: dict[str, str]  # every installed distribution -> version, sorted by name
    created_at: str  # ISO 8601, UTC

    @field_validator("model_base_url", mode="before")
    @classmethod
    def _strip_credentials(cls, value: Any) -> Any:
        return public_url(value) if isinstance(value, str) else value


def _run(args: Sequence[str], timeout: float) -> str | None:
    """The stripped stdout of a command; None when it is missing, fails or times out."""
    try:
        done = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(directory: Path | None = None) -> tuple[str | None, bool | None]:
    """(HEAD hash, dirty) of the git checkout whose tracked files hold ``directory`` (by
    default the webdojo package); (None, None) when webdojo was not imported from a checkout
    (an installed wheel inside some other repository's ignored ``.venv`` does not count)."""
    if directory is None:
        directory = Path(__file__).resolve().parents[1]  # the webdojo package
    git = ["git", "-C", str(directory)]
    if _run([*git, "ls-files", "--error-unmatch", "__init__.py"], GIT_TIMEOUT_S) is None:
        return None, None
    head = _run([*git, "rev-parse", "HEAD"], GIT_TIMEOUT_S)
    top = _run([*git, "rev-parse", "--show-toplevel"], GIT_TIMEOUT_S)
    if head is None or top is None:
        return None, None
    status = _run(["git", "-C", top, "status", "--porcelain"], GIT_TIMEOUT_S)
    return head, None if status is None else bool(status)


def installed_packages() -> dict[str, str]:
    """Every installed distribution's name -> version, sorted by lowercased name."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and name not in found:
            found[name] = dist.version
    return dict(sorted(found.items(), key=lambda kv: kv[0].lower()))


def chromium_info(config: BrowserConfig | None = None) -> tuple[str | None, list[str]]:
    """(version, launch flags) of the Chromium webdojo launches with ``config`` (a
    ``webdojo.browser.BrowserConfig``; default: the default headless one): the same binary
    the browser host picks (``config.executable`` or ``find_chromium``) and the flags it
    passes (``config.launch_args()``). The version is None when no Chromium is found or
    ``--version`` fails."""
    from webdojo.browser.chromium import BrowserConfig, find_chromium
    from webdojo.errors import ChromiumNotFound

    config = config if config is not None else BrowserConfig()
    flags = list(config.launch_args())
    try:
        executable = config.executable or find_chromium(config.headless)
    except ChromiumNotFound:
        return None, flags
    return _run([executable, "--version"], CHROMIUM_TIMEOUT_S) or None, flags


def build_manifest(
    *,
    suite: str,
    suite_version: int | str,
    suite_hash: str,
    policy: str,
    model: str | None,
    model_base_url: str | None,
    template: str | None,
    sampling: Mapping[str, Any],
    seed: int,
    repeats: int,
    chromium_version: str | None,
    chromium_flags: Sequence[str],
    judges: Mapping[str, str] | None = None,
) -> Manifest:
    """A manifest of the given eval settings; versions, git state, Python, platform,
    packages and the creation time are filled in here."""
    git_hash, git_dirty = git_state()
    return Manifest(
        webdojo_version=metadata.version("webdojo"),
        git_hash=git_hash,
        git_dirty=git_dirty,
        suite=suite,
        suite_version=suite_version,
        suite_hash=suite_hash,
        chromium_version=chromium_version,
        chromium_flags=list(chromium_flags),
        policy=policy,
        model=model,
        model_base_url=model_base_url,
        template=template,
        sampling=dict(sampling),
        seed=seed,
        repeats=repeats,
        judges=dict(judges or {}),
        python=sys.version.split()[0],
        platform=platform.platform(),
        packages=installed_packages(),
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def write_manifest(manifest: Manifest, directory: Path) -> Path:
    """``directory/manifest.json``, written atomically (a temporary file, then a rename)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / FILENAME
    write_atomic(path, manifest.model_dump_json(indent=2) + "\n")
    return path


def read_manifest(directory: Path) -> Manifest | None:
    """The manifest in ``directory``; None when there is none. A file that cannot be read as
    a manifest raises ``ConfigError``."""
    path = Path(directory) / FILENAME
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the eval manifest {path}: {exc}", path=str(path)) from exc
    try:
        return Manifest.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise ConfigError(
            f"{path} is not a valid eval manifest ({exc.error_count()} error(s); "
            f"{where}: {first['msg']})",
            path=str(path),
        ) from exc


def _show(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _package_differences(a: Mapping[str, str], b: Mapping[str, str]) -> list[str]:
    names = sorted(a.keys() | b.keys(), key=str.lower)
    changed = [n for n in names if a.get(n) != b.get(n)]
    if not changed:
        return []
    shown = [
        f"{n} {a.get(n, 'absent')} (A) vs {b.get(n, 'absent')} (B)"
        for n in changed[:LISTED_PACKAGES]
    ]
    more = len(changed) - LISTED_PACKAGES
    listed = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
    return [f"{len(changed)} installed package(s) differ: {listed}"]


def _mapping_differences(field: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    return [
        f"{field}.{key} differs: {_show(a.get(key))} (A) vs {_show(b.get(key))} (B)"
        for key in sorted(a.keys() | b.keys())
        if a.get(key) != b.get(key)
    ]


def _flag_differences(a: Sequence[str], b: Sequence[str]) -> list[str]:
    if list(a) == list(b):
        return []
    only_a = [f for f in a if f not in b]
    only_b = [f for f in b if f not in a]
    if not only_a and not only_b:
        return ["chromium_flags differ in order"]
    return [f"chromium_flags differ: only in A {_show(only_a)}, only in B {_show(only_b)}"]


def manifest_differences(a: Manifest, b: Manifest) -> list[str]:
    """One warning per setting that differs between two evals' manifests and could explain
    a difference in their scores (every field but ``created_at``)."""
    out: list[str] = []
    for name in Manifest.model_fields:
        va, vb = getattr(a, name), getattr(b, name)
        if name in NOT_COMPARED or va == vb:
            continue
        if name == "packages":
            out += _package_differences(va, vb)
        elif name == "sampling":
            out += _mapping_differences(name, va, vb)
        elif name == "chromium_flags":
            out += _flag_differences(va, vb)
        else:
            out.append(f"{name} differs: {_show(va)} (A) vs {_show(vb)} (B)")
    return out
