"""Normalization rules: which request fields are volatile and must not decide a match.

A rule names a field (where it is, a name pattern, optionally a value pattern) under a domain
and a path prefix. A field a rule matches is *masked*: it still counts as present, but its
value no longer matters. Rules come from three sources, which decide the matching level at
which they apply:

- ``default``: generic cache-busters, tracking and JSONP parameters, and values that look like
  timestamps or nonces (level 1);
- ``user``: rule files people write and edit (level 1);
- ``learned``: rules ``webdojo cache learn`` found by diffing visits and replay misses (level 2).

Rule files are YAML, keyed by domain and then by path prefix::

    webdojo_rules: 1
    domains:
      api.example.com:
        /v1/:
          - {where: json, name: ts}
          - {where: header, name: x-request-id, source: learned, evidence: [...]}
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

from webdojo.cache.normalize import Endpoint, Field
from webdojo.errors import ConfigError

RULES_FORMAT = 1
MASK = "*"
Source = Literal["default", "user", "learned"]

# Names whose values identify what is asked for: a value that merely looks random (a hex id)
# must not be masked there, or two different items would match each other.
_ID_LIKE = re.compile(
    r"^((?i:ids?|key|slug|sku|q|query|search|page|p|offset|limit|sort|lang)|.*[_-](?i:id)|.*[a-z]Id)$"
)
_PARAMS = frozenset({"query", "form", "json", "multipart"})  # where a name can ask for a thing
_EPOCH = r"1[0-9]{9}(\.[0-9]{1,6})?|1[0-9]{12}"  # seconds or milliseconds, 2001-2033
_UUID = r"(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_HEX = r"[0-9a-fA-F]{16,}"
_BASE64 = r"(?=.*[0-9])(?=.*[a-z])(?=.*[A-Z])[A-Za-z0-9+/_-]{20,}={0,2}"
_COVERING_CACHE = 4096  # endpoints whose covering rules a RuleSet keeps


class Rule(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "*"  # a domain (matches its subdomains too) or "*"
    path: str = "/"  # a path prefix
    where: Literal["query", "form", "json", "multipart", "header", "cookie", "any"] = "any"
    name: str = "*"  # a glob on the field name (utm_*)
    value: str | None = None  # a regular expression the whole value must match, if set
    source: Source = "user"
    note: str = ""  # why the rule exists, for people
    evidence: tuple[str, ...] = ()  # what a learned rule was learned from

    def applies_to(self, endpoint: Endpoint, field: Field) -> bool:
        return self.covers(endpoint) and self.masks(field)

    def covers(self, endpoint: Endpoint) -> bool:
        """Whether the rule's host and path take in ``endpoint``."""
        return _host_matches(self.host, endpoint.host) and endpoint.path.startswith(self.path)

    def masks(self, field: Field) -> bool:
        """Whether the rule masks ``field`` of an endpoint it covers."""
        if self.where != "any" and self.where != field.where:
            return False
        if not fnmatch.fnmatchcase(field.name, self.name):
            return False
        return self.value is None or not (
            (field.where in _PARAMS and _ID_LIKE.match(field.name))
            or not re.fullmatch(self.value, field.value.strip('"'))
        )

    def key(self) -> tuple[str, str, str, str, str]:
        return (self.host, self.path, self.where, self.name, self.value or "")


def _host_matches(pattern: str, host: str) -> bool:
    host = host.split(":")[0]
    return pattern == "*" or host == pattern or host.endswith("." + pattern)


def _default(where: Any, name: str, note: str, value: str | None = None) -> Rule:
    return Rule(where=where, name=name, value=value, source="default", note=note)


DEFAULT_RULES: tuple[Rule, ...] = (
    *(_default("query", n, "cache-buster") for n in ("_", "cb", "ts", "nocache", "cachebust*")),
    *(_default("query", n, "tracking parameter") for n in ("utm_*", "gclid", "fbclid", "msclkid")),
    *(_default("query", n, "JSONP callback name") for n in ("callback", "jsonp", "jsoncallback")),
    _default("any", "*", "epoch-looking timestamp", _EPOCH),
    _default("any", "*", "UUID nonce", _UUID),
    _default("any", "*", "hex nonce", _HEX),
    _default("any", "*", "base64 nonce", _BASE64),
)


@dataclass(frozen=True)
class RuleSet:
    """The rules in force. ``mask(..., level)`` applies defaults and user rules at level 1 and
    adds the learned ones at level 2."""

    rules: tuple[Rule, ...] = DEFAULT_RULES
    # the rules that cover each (host, path, level) asked about: a replay asks for the same
    # few endpoints again and again, and most rules are another site's
    _covering: dict[tuple[str, str, int], tuple[Rule, ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def at_level(self, level: int) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if level >= 2 or r.source != "learned")

    def mask(self, endpoint: Endpoint, fields: Iterable[Field], level: int) -> tuple[Field, ...]:
        rules = self._covering_rules(endpoint, level)
        return tuple(
            Field(f.where, f.name, MASK) if any(r.masks(f) for r in rules) else f for f in fields
        )

    def _covering_rules(self, endpoint: Endpoint, level: int) -> tuple[Rule, ...]:
        key = (endpoint.host, endpoint.path, level)
        rules = self._covering.get(key)
        if rules is None:
            if len(self._covering) >= _COVERING_CACHE:
                self._covering.clear()  # ever new paths must not grow it forever
            rules = tuple(r for r in self.at_level(level) if r.covers(endpoint))
            self._covering[key] = rules
        return rules

    def rule_for(self, endpoint: Endpoint, field: Field, level: int = 2) -> Rule | None:
        return next((r for r in self.at_level(level) if r.applies_to(endpoint, field)), None)

    def with_rules(self, extra: Sequence[Rule]) -> RuleSet:
        seen = {r.key() for r in self.rules}
        return RuleSet(self.rules + tuple(r for r in extra if r.key() not in seen))

    def learned(self) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if r.source == "learned")


# --- files ------------------------------------------------------------------------------


def load_rules(path: Path) -> list[Rule]:
    """The rules of one YAML file; ``ConfigError`` naming the file and entry when it is bad."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: not a readable YAML rule file: {exc}") from exc
    if not isinstance(data, dict) or data.get("webdojo_rules") != RULES_FORMAT:
        raise ConfigError(f"{path}: expected `webdojo_rules: {RULES_FORMAT}` at the top")
    rules: list[Rule] = []
    for host, paths in (data.get("domains") or {}).items():
        for prefix, items in (paths or {}).items():
            for i, item in enumerate(items or []):
                try:
                    rules.append(Rule(host=str(host), path=str(prefix), **item))
                except (ValidationError, TypeError) as exc:
                    raise ConfigError(f"{path}: {host} {prefix} rule {i + 1}: {exc}") from exc
    return rules


def dump_rules(rules: Iterable[Rule], path: Path) -> None:
    """Write rules in the file format ``load_rules`` reads, grouped by domain and path."""
    domains: dict[str, dict[str, list[dict[str, object]]]] = {}
    for rule in rules:
        item = rule.model_dump(exclude={"host", "path"}, exclude_defaults=True)
        item.setdefault("where", rule.where)
        item.setdefault("name", rule.name)
        if "evidence" in item:
            item["evidence"] = list(rule.evidence)
        domains.setdefault(rule.host, {}).setdefault(rule.path, []).append(item)
    text = yaml.safe_dump(
        {"webdojo_rules": RULES_FORMAT, "domains": domains}, sort_keys=False, width=100
    )
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def rule_set(files: Sequence[Path] = (), extra: Sequence[Rule] = ()) -> RuleSet:
    """The defaults, plus the rules of each file, plus ``extra`` (an archive's learned rules)."""
    rules: list[Rule] = []
    for path in files:
        rules += load_rules(path)
    return RuleSet().with_rules([*rules, *extra])
