"""Readable names for source types: the one table every front door shows types with.

Filters and machine fields keep the raw name (``--source rwgps_memory``, MCP's ``type:``); a
person reads "ride memory". A type a config adds without a label here shows with its
underscores as spaces.
"""

from __future__ import annotations

from .textsafe import one_line

LABELS: dict[str, str] = {
    "slack": "Slack",
    "telegram": "Telegram",
    "signal": "Signal",
    "meeting": "meeting",
    "email_catalog": "email",
    "event": "photo event",
    "garmin": "Garmin",
    "cgm": "glucose (CGM)",
    "checkin": "check-in",
    "experiment": "experiment",
    "journal": "journal",
    "voice": "voice note",
    "transcript": "transcript",
    "quote": "quote",
    "observation": "observation",
    "story": "story",
    "interview_meta": "interview info",
    "interview": "interview",
    "podcast_digest": "podcast",
    "board_summary": "board meeting",
    "entity_file": "entity",
    "codebase_doc": "code doc",
    "rwgps_memory": "ride memory",
    "scratch": "scratch",
    "note": "note",
    "profile": "profile",
}


def type_label(source_type: str) -> str:
    """``rwgps_memory`` → ``ride memory``."""
    return LABELS.get(source_type) or one_line(str(source_type).replace("_", " "))
