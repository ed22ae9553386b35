"""Numbers as words, the same in every front door: sizes and plurals."""

from __future__ import annotations


def human_bytes(n: float | None) -> str:
    """``512 B``, ``1.5 KB``, ``2.3 GB`` (powers of 1024); ``?`` when unknown."""
    if n is None:
        return "?"
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 file``, ``2,594 files``; ``many`` for an irregular plural."""
    return f"{count:,} {word if count == 1 else many or word + 's'}"
