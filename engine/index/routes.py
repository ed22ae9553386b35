"""FILE_ROUTES (path pattern -> source type) and the one matcher of a route against a path.

FILE_ROUTES is the canonical answer to "what is indexed". To add a source, add a route here and
register an extractor in ``engine/extractors``. Patterns are globs relative to the data root;
the first route that claims a file wins. This module imports nothing of the engine, so the
configuration and the scanner can both depend on it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

FILE_ROUTES: list[tuple[str, str]] = [
    ("data/slack/*.jsonl", "slack"),
    # WhatsApp chats where earlier importers wrote them (docs/importers.md, "WhatsApp")
    ("data/telegram/whatsapp-*.jsonl", "whatsapp"),
    ("data/telegram/*.jsonl", "telegram"),
    ("data/whatsapp/*.jsonl", "whatsapp"),
    ("data/signal/*.jsonl", "signal"),
    ("data/meetings/processed/*.json", "meeting"),
    ("data/email/catalog/*.jsonl", "email_catalog"),
    ("data/photos/events.jsonl", "event"),
    ("data/health/garmin/*.json", "garmin"),
    ("data/health/cgm/*.json", "cgm"),
    ("data/health/checkins.jsonl", "checkin"),
    ("data/health/experiments.jsonl", "experiment"),
    ("data/journal/*.jsonl", "journal"),
    ("data/voice/*.json", "voice"),
    ("data/identity/transcripts/*.md", "transcript"),
    ("data/identity/quotes.jsonl", "quote"),
    ("data/identity/observations.jsonl", "observation"),
    ("data/identity/stories.jsonl", "story"),
    ("data/interviews/sessions/*.json", "interview_meta"),
    ("data/interviews/*.jsonl", "interview"),
    ("data/podcasts/digests.jsonl", "podcast_digest"),
    ("data/board/*.md", "board_summary"),
    ("memory/entities/people/*.md", "entity_file"),
    ("memory/entities/projects/*.md", "entity_file"),
    ("memory/entities/topics/*.md", "entity_file"),
    ("memory/codebase/*.md", "codebase_doc"),
    ("memory/rwgps/*.md", "rwgps_memory"),
    ("memory/scratch/*.md", "scratch"),
    ("notes/**/*.md", "note"),
]

# routes kept only so files an earlier version wrote are still read (a demo root holds none)
LEGACY_ROUTES: frozenset[tuple[str, str]] = frozenset({("data/telegram/whatsapp-*.jsonl",
                                                        "whatsapp")})

SOURCE_TYPES: tuple[str, ...] = tuple(dict.fromkeys(t for _, t in FILE_ROUTES))


@lru_cache(maxsize=256)
def glob_regex(pattern: str) -> re.Pattern:
    """A route glob as a regex over root-relative POSIX paths, with ``Path.glob``'s meaning:
    ``*`` and ``?`` stay inside one folder, ``**/`` spans zero or more folders.

    ``PurePath.match`` is not that: on Python 3.11 ``Path("notes/a.md").match("notes/**/*.md")``
    is false (``**`` is a plain ``*`` there), which undercounted notes at the top of the vault.
    """
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\")
                       + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def route_matches(pattern: str, rel: str) -> bool:
    """Whether the route ``pattern`` claims the root-relative POSIX path ``rel``."""
    return glob_regex(pattern).match(rel) is not None


def route_of(rel: str, routes: Iterable[tuple[str, str]] = FILE_ROUTES) -> str | None:
    """The source type of the first route that claims ``rel``; a hidden file (a name
    starting with '.') is never routed, as the walk skips it (hidden folders are walked)."""
    if rel.rsplit("/", 1)[-1].startswith("."):
        return None
    for pattern, source_type in routes:
        if route_matches(pattern, rel):
            return source_type
    return None
