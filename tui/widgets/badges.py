"""Small styled pieces shared by the result list, the preview and the charts."""

from __future__ import annotations

from typing import Any

from textual.content import Content

# short names (at most 8 cells) and a colour per source type, grouped by kind of source
_TYPES: dict[str, tuple[str, str]] = {
    "slack": ("slack", "#5fafff"),
    "telegram": ("telegram", "#5fd7ff"),
    "whatsapp": ("whatsapp", "#5fd7af"),
    "signal": ("signal", "#87afff"),
    "meeting": ("meeting", "#af87ff"),
    "voice": ("voice", "#d787ff"),
    "transcript": ("transcr", "#af5fd7"),
    "email_catalog": ("email", "#ff87af"),
    "event": ("event", "#ff5faf"),
    "podcast_digest": ("podcast", "#d75f87"),
    "board_summary": ("board", "#d787af"),
    "garmin": ("garmin", "#87d75f"),
    "cgm": ("cgm", "#5fd787"),
    "checkin": ("checkin", "#87d787"),
    "experiment": ("experim", "#afd75f"),
    "journal": ("journal", "#ffd75f"),
    "note": ("note", "#ffaf5f"),
    "quote": ("quote", "#ff875f"),
    "observation": ("observ", "#ffaf87"),
    "story": ("story", "#ff8787"),
    "interview": ("intervw", "#d7af5f"),
    "interview_meta": ("int-meta", "#d7af87"),
    "entity_file": ("entity", "#5fd7d7"),
    "codebase_doc": ("codebase", "#5fafaf"),
    "rwgps_memory": ("rwgps", "#87d7af"),
    "scratch": ("scratch", "#a8a8a8"),
    "profile": ("PROFILE", "#ffd700"),
}
BADGE_WIDTH = 8


def type_colour(source_type: str) -> str:
    return _TYPES.get(source_type, (source_type, "#bcbcbc"))[1]


def type_badge(source_type: str, width: int = BADGE_WIDTH, text: str | None = None
               ) -> Content:
    """A coloured, fixed-width label for a source type (black on the type's colour); ``text``
    in place of the short name (the preview shows the readable label)."""
    short = (text or _TYPES.get(source_type, (source_type, ""))[0])[:width]
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
