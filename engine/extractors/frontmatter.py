"""YAML frontmatter (``---`` … ``---`` at the very top of a markdown file).

Bad frontmatter never costs the body (docs/data-layer.md): broken or too-deep YAML is dropped
with a problem, an impossible date (``2026-02-30``, ``25:61``) is kept as text, and values
nested too deep or expanded without end through aliases are cut off.
"""

from __future__ import annotations

import functools
from typing import Any

from .base import Problems

FRONTMATTER_MAX_DEPTH = 32
FRONTMATTER_MAX_NODES = 10_000
# past this a block is read as text, not YAML: YAML costs ~6 µs a character (2.3 MB of keys
# took 14.5 s), and no real frontmatter comes near it
FRONTMATTER_MAX_CHARS = 32_768


def split_frontmatter(text: str, problems: Problems) -> tuple[dict[str, Any], str]:
    """(frontmatter, body). Broken YAML is reported; the body is still returned."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}, text
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            break
    else:
        return {}, text  # a leading '---' with no closing line is a rule, not frontmatter
    raw = "\n".join(lines[1:i])
    if len(raw) > FRONTMATTER_MAX_CHARS:
        problems.cut(f"frontmatter is {len(raw):,} characters (over {FRONTMATTER_MAX_CHARS:,}): "
                     "indexed as text, not read as fields")
        return {}, text
    body = "\n".join(lines[i + 1:])
    import yaml  # only for a file with frontmatter: a search that reads none never loads it

    try:
        data = _load_yaml(raw, problems) if raw.strip() else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at frontmatter line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).split("\n")[0]
        problems.add(f"broken YAML frontmatter{where} ({problem}); frontmatter ignored, "
                     "body indexed")
        return {}, body
    except RecursionError:
        problems.add("YAML frontmatter nested too deeply; frontmatter ignored, body indexed")
        return {}, body
    except (ValueError, OverflowError, TypeError) as exc:
        problems.add(f"YAML frontmatter unreadable ({exc}); frontmatter ignored, body indexed")
        return {}, body
    if data is None:
        return {}, body
    if not isinstance(data, dict):
        problems.add(f"frontmatter is not a mapping (got {type(data).__name__}); ignored")
        return {}, body
    return _bounded(data, problems), body


@functools.cache
def _text_dates_loader() -> type:
    """A SafeLoader that leaves dates and timestamps as text."""
    import yaml

    class TextDatesLoader(yaml.SafeLoader):
        pass

    TextDatesLoader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    return TextDatesLoader


def _load_yaml(raw: str, problems: Problems) -> Any:
    import yaml

    try:
        return yaml.safe_load(raw)
    except (ValueError, OverflowError) as exc:  # date: 2026-02-30, or a 25:61 time of day
        problems.add(f"frontmatter holds an impossible date or time ({exc}); dates kept as text")
        return yaml.load(raw, Loader=_text_dates_loader())  # a SafeLoader: still safe


def _bounded(data: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """The frontmatter with values nested deeper than FRONTMATTER_MAX_DEPTH, or beyond
    FRONTMATTER_MAX_NODES in all (YAML aliases can make a tiny file expand without end),
    dropped and reported; the rest is kept."""
    dropped = 0
    budget = FRONTMATTER_MAX_NODES

    def keep(value: Any, depth: int) -> Any:
        nonlocal dropped, budget
        if not isinstance(value, dict | list):
            return value
        budget -= len(value)
        if depth >= FRONTMATTER_MAX_DEPTH or budget < 0:
            dropped += 1
            return None
        if isinstance(value, dict):
            return {k: keep(v, depth + 1) for k, v in value.items()}
        return [keep(v, depth + 1) for v in value]

    out = {k: keep(v, 1) for k, v in data.items()}
    if dropped:
        problems.add(f"frontmatter: {dropped} value(s) nested deeper than "
                     f"{FRONTMATTER_MAX_DEPTH} levels or past {FRONTMATTER_MAX_NODES} items "
                     "dropped")
    return out
