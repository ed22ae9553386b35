"""Small words every front door says the same way (counts with their noun)."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2,594 files``, ``3 matches`` (``many`` for an irregular plural)."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"
