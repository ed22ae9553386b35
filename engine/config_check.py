"""Reading memlens.toml strictly: every value is checked for its type and range, every unknown key
is refused by name (with a "did you mean" when one is close), each problem is one line:

    memlens.toml: [search] rrf_k must be a positive integer (got 0)
"""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import Path, PurePosixPath, PureWindowsPath

from engine.display import OneLineError, close_matches, did_you_mean

FILENAME = "memlens.toml"


class ConfigError(OneLineError, ValueError):
    """memlens.toml is malformed or names something unknown."""


def fail(message: str) -> ConfigError:
    return ConfigError(f"{FILENAME}: {message}")


def show(value: object) -> str:
    """A value as the user wrote it in TOML, cut short."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, dict):
        text = "a table"
    else:
        text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def parse(path: Path) -> dict:
    """The TOML document at ``path`` ({} if there is none); one line naming the line if broken."""
    if not path.exists():
        return {}
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise fail(f"cannot be read ({type(exc).__name__})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise fail(f"line {line}: not UTF-8 text") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        where = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if where:
            message = message[: where.start()]
            raise fail(f"line {where.group(1)}, column {where.group(2)}: invalid TOML "
                       f"({message})") from None
        raise fail(f"invalid TOML ({message})") from None


class Table:
    """One ``[name]`` table: typed getters that refuse what they cannot use, by key."""

    def __init__(self, data: dict, name: str, known: tuple[str, ...]):
        value = data.get(name, {})
        self.label = f"[{name}]"
        if not isinstance(value, dict):
            raise fail(f"{self.label} must be a table (got {show(value)})")
        for key in value:
            if key not in known:
                raise fail(f"{self.label} has unknown key {key!r}"
                           f"{did_you_mean(close_matches(key, known), aside=True)}")
        self.values = value

    def _bad(self, key: str, what: str) -> ConfigError:
        return fail(f"{self.label} {key} must be {what} (got {show(self.values[key])})")

    def integer(self, key: str, default: int | None, minimum: int = 1) -> int | None:
        if key not in self.values:
            return default
        value = self.values[key]
        what = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self._bad(key, what)
        return value

    def number(self, key: str, default: float | None, *, low: float | None = None,
               high: float | None = None, positive: bool = False) -> float | None:
        if key not in self.values:
            return default
        return checked_number(self.values[key], lambda what: self._bad(key, what),
                              low=low, high=high, positive=positive)

    def string(self, key: str, default: str | None = None, *, url: bool = False) -> str | None:
        if key not in self.values:
            return default
        value = self.values[key]
        if not isinstance(value, str) or not value.strip():
            raise self._bad(key, "a non-empty string")
        if url and not re.match(r"https?://[^/\s]", value):
            raise self._bad(key, "an http:// or https:// URL")
        return value

    def boolean(self, key: str, default: bool) -> bool:
        if key not in self.values:
            return default
        if not isinstance(self.values[key], bool):
            raise self._bad(key, "true or false")
        return self.values[key]

    def choice(self, key: str, default: str, choices: tuple[str, ...]) -> str:
        value = self.string(key, default)
        if value not in choices:
            raise self._bad(key, "one of " + ", ".join(choices))
        return value


def checked_number(value: object, bad, *, low: float | None = None, high: float | None = None,
                   positive: bool = False) -> float:
    """``value`` as a float within the bounds, else ``bad(what it must be)``."""
    if positive:
        what = "a positive number"
    elif low is not None and high is not None:
        what = f"a number from {low:g} to {high:g}"
    else:
        what = "a number"
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value):
        raise bad(what)
    if (positive and value <= 0) or (low is not None and value < low) \
            or (high is not None and value > high):
        raise bad(what)
    return float(value)


def route_pattern(source_type: str, pattern: object) -> str:
    """A glob relative to the data root; absolute, drive or ``..`` patterns are refused."""
    label = f"[routes] {source_type}"
    if not isinstance(pattern, str) or not pattern.strip():
        raise fail(f"{label} must be a glob or a list of globs (got {show(pattern)})")
    parts = PurePosixPath(pattern.replace("\\", "/")).parts
    if pattern.startswith(("/", "\\")) or PureWindowsPath(pattern).drive or ".." in parts:
        raise fail(f"{label} pattern {show(pattern)} must stay inside the data root "
                   "(a relative glob without ..)")
    return pattern
