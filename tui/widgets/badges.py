"""Small styled pieces shared by the result list, the preview and the charts."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from engine.display import type_label

from .text import cut_at_word

# a colour and a short name per source type, grouped by kind of source. The result list's type
# column is BADGE_WIDTH cells: a label that does not fit gets a designed name of its own, a
# whole word or a standard abbreviation ("test", "memo", "CGM"), never its first letters
_TYPES: dict[str, tuple[str, str]] = {
    "slack": ("slack", "#5fafff"),
    "telegram": ("telegram", "#5fd7ff"),
    "whatsapp": ("whatsapp", "#5fd7af"),
    "signal": ("signal", "#87afff"),
    "meeting": ("meeting", "#af87ff"),
    "voice": ("memo", "#d787ff"),  # voice note
    "transcript": ("dialogue", "#af5fd7"),  # a recorded conversation, as spoken
    "email_catalog": ("email", "#ff87af"),
    "event": ("event", "#ff5faf"),  # photo event
    "podcast_digest": ("podcast", "#d75f87"),
    "board_summary": ("minutes", "#d787af"),  # board meeting
    "garmin": ("garmin", "#87d75f"),
    "cgm": ("CGM", "#5fd787"),  # glucose (CGM)
    "checkin": ("check-in", "#87d787"),
    "experiment": ("test", "#afd75f"),
    "journal": ("journal", "#ffd75f"),
    "note": ("note", "#ffaf5f"),
    "quote": ("quote", "#ff875f"),
    "observation": ("finding", "#ffaf87"),  # an observation with its evidence
    "story": ("story", "#ff8787"),
    "interview": ("Q&A", "#d7af5f"),  # a question and its answer
    "interview_meta": ("session", "#d7af87"),  # interview info: the session's topic, length
    "entity_file": ("entity", "#5fd7d7"),
    "codebase_doc": ("code doc", "#5fafaf"),
    "rwgps_memory": ("memory", "#87d7af"),  # ride memory
    "scratch": ("scratch", "#a8a8a8"),
    "profile": ("PROFILE", "#ffd700"),
}
BADGE_WIDTH = 8


def type_colour(source_type: str) -> str:
    return _TYPES.get(source_type, (source_type, "#bcbcbc"))[1]


def short_name(source_type: str) -> str:
    """The type's name in the type column: its designed short name; a type this table does
    not know by its label, cut after a whole word when too long."""
    known = _TYPES.get(source_type)
    return known[0] if known else cut_at_word(type_label(source_type), BADGE_WIDTH)


def type_badge(source_type: str, width: int = BADGE_WIDTH, text: str | None = None
               ) -> Content:
    """A coloured, fixed-width label for a source type (black on the type's colour); ``text``
    in place of the short name (the preview shows the readable label)."""
    short = text or short_name(source_type)
    return Content.styled(f" {short.ljust(width)} ", f"bold #000000 on {type_colour(source_type)}",
                          strip_control_codes=False)


def decay_badge(decay: Any | None) -> Content:
    """``×0.93``: the factor recency multiplied the score by (the explain view's), coloured by
    the age behind it: green when fresh, yellow when ageing, dim red at the floor. The factor
    is bounded (age takes at most ``decay_weight`` of a score), so the colour says the age."""
    if decay is None:
        return Content.styled("  —  ", "dim")
    age = decay.age_weight
    style = ("$text-success" if age >= 0.75 else "$text-warning" if age >= 0.45
             else "$text-error")
    return Content.styled(f"×{decay.factor:.2f}", style + (" dim" if decay.floored else ""))


def arms_badge(found_by: list[str] | None, injected: bool = False) -> Content:
    """K (keyword), S (semantic), KS (both); ◆ for an injected profile."""
    if injected:
        return Content.styled("◆ ", "bold #ffd700")
    found = set(found_by or ())
    k = ("K", "bold $text-primary") if "keyword" in found else (" ", "")
    s = ("S", "bold $text-accent") if "semantic" in found else (" ", "")
    return Content.assemble(k, s)
