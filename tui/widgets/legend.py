"""What the result rows' marks mean: a one-line key for the results' border and the lines
the help screen lists (one text for both)."""

from __future__ import annotations

from textual.content import Content

BORDER_KEY = "K keyword S meaning ×age █ score"  # fits the pane at 120 columns

LEGEND: tuple[tuple[str, str], ...] = (
    ("K", "found by the keyword search (the words themselves, BM25)"),
    ("S", "found by the meaning search (semantic: similar wording, embeddings)"),
    ("KS", "found by both searches"),
    ("◆", "a person's profile, shown because the query names them"),
    ("×0.59", "the age weight: newer results keep more of their score (1.00 = today)"),
    ("██▌", "the score bar: this result's score against the first result's"),
    ("↓", "held below lower scores for variety (the same file or type as rows above; the "
          "preview says which)"),
    ("—", "no age weight (one search only, or no date)"),
    ("▸3×", "this row stands for 3 chunks of the same text, dates aside (space unfolds them)"),
)


def legend_content(key_width: int = 18, width: int = 100) -> Content:
    """The legend as help-screen lines (a heading, then a mark and its meaning, wrapped to
    ``width`` cells inside the meaning's column)."""
    import textwrap

    text_width = max(width - key_width - 2, 16)
    lines = [Content.styled("Result marks", "bold underline")]
    rows = (*LEGEND, ("x", "the preview's explain: in words → exact numbers → off"))
    for mark, text in rows:
        for i, part in enumerate(textwrap.wrap(text, text_width) or [""]):
            lines.append(Content.assemble(
                (f"  {mark if i == 0 else '':<{key_width}}", "bold $text-primary"), part))
    return Content("\n").join(lines)
