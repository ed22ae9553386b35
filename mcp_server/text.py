"""The text rules every answer follows: JSON strings for data, one line for errors, no
machine path.

Text from the data layer (chunk text, titles, tags, file names, headings, people's names) is
only ever emitted inside a JSON string, so a chat message holding ``", "score": "9"`` or a
newline cannot forge a field; escaping is engine/display.py's. An absolute path of the
machine never reaches the agent: the data root shows as root-relative paths.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from engine.display import json_dumps
from engine.display import one_line as safe_line

DEFAULT_MAX_CHARS = 12_000
MIN_MAX_CHARS = 400


def jstr(value: Any) -> str:
    """A JSON string literal that always stays on one line and holds no raw control
    character, whatever the text holds."""
    return json_dumps("" if value is None else str(value))


def jobject(pairs: dict[str, str]) -> str:
    """A one-line JSON object whose every value is a string (see :func:`jstr`)."""
    return "{" + ", ".join(f"{jstr(k)}: {jstr(v)}" for k, v in pairs.items()) + "}"


def one_line(text: Any, limit: int = 300) -> str:
    """Server text (an error, a detail) squeezed onto one line and capped."""
    flat_ = safe_line(text)
    return flat_ if len(flat_) <= limit else flat_[: limit - 1] + "…"


def flat(text: str) -> str:
    return " ".join((text or "").split())


def cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def machine_paths(root: Path, resolved_root: Path, db_path: Path,
                  sources=()) -> list[tuple[re.Pattern, str]]:
    """What an answer shows instead of an absolute path of the machine: root-relative paths
    for the data root, ``@name/`` paths for a source's folder, ``<index folder>`` for an
    index kept outside it, ``~`` for home."""
    shown: dict[str, str] = {}
    for r in {str(root), str(resolved_root)}:
        shown[r + "/"], shown[r] = "", "."
    for source in sources:
        for folder in {str(source.path), os.path.realpath(source.path)}:
            shown[folder + "/"], shown[folder] = source.prefix, source.prefix.rstrip("/")
    for folder in {str(db_path.parent), str(db_path.parent.resolve())}:
        if not (folder + "/").startswith(tuple(r + "/" for r in (str(root), str(resolved_root)))):
            shown[folder] = "<index folder>"
    home = str(Path.home())
    if len(home) > 1:
        shown[home] = "~"
    # longest first; only where a path starts, so "notes/root/x.md" is never touched
    return [(re.compile(r"(?<![\w.~/-])" + re.escape(prefix)), text)
            for prefix, text in sorted(shown.items(), key=lambda kv: -len(kv[0]))]


def scrub_paths(text: str, paths: list[tuple[re.Pattern, str]]) -> str:
    for pattern, shown in paths:
        text = pattern.sub(lambda _m, s=shown: s, text)
    return text


def cut_text(text: str, offset: int, budget: int) -> tuple[str, int]:
    """``text[offset:]`` cut to ``budget`` chars, at a line end when one is near.

    Returns the slice and where it ends (== len(text) when nothing is left).
    """
    end = min(len(text), offset + max(0, budget))
    if end < len(text):
        nl = text.rfind("\n", offset, end)
        if nl > offset + budget // 2:
            end = nl + 1
    return text[offset:end], end
