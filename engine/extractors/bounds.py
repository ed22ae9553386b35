"""What one file may cost the index: no chunk, field or metadata grows with a hostile input.

Every extractor's chunks pass through :func:`bounded` before they are written, so a bound
holds whatever the source type (docs/reliability.md):

- a chunk's text is at most :data:`CHUNK_MAX_CHARS`: a longer one (a 2 MB journal record) is
  split where notes are split, at paragraphs, then lines, then spaces; each later piece is
  ``<id>~<k>`` and starts with the first piece's first line, for context;
- a chunk's metadata is at most :data:`METADATA_MAX_CHARS` of JSON: the largest entries are
  shortened first (a long title, 200,000 frontmatter keys), and ``cut`` names them;
- a title or heading that every chunk of a file repeats is at most :data:`FIELD_MAX_CHARS`
  (:func:`short`), so a 100 KB title is not copied into each of 1,000 sections.

What was split or cut is said once per file (``Problems.cut``): in the reindex output, its
``--json`` warnings and ``memlens stats``. Chat windows are bounded by their extractor
(engine/extractors/messaging.py), which keeps each message's place in the text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from .base import Chunk, Problems
from .splitting import split_section

CHUNK_MAX_CHARS = 4000
FIELD_MAX_CHARS = 200
METADATA_MAX_CHARS = 4096
HEAD_MAX_CHARS = 120  # the first line a later piece repeats

_ELLIPSIS = "…"


def short(text: str, limit: int = FIELD_MAX_CHARS) -> str:
    """``text``, or its first ``limit`` characters cut at a word, ending in "…"."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    cut = cut if cut > limit // 2 else limit - 1
    return text[:cut].rstrip() + _ELLIPSIS


@dataclass
class Cuts:
    """What one file lost to the bounds: said once, in a line, however many chunks it hit."""

    split: int = 0  # chunks longer than CHUNK_MAX_CHARS
    pieces: int = 0  # the chunks they became
    metadata: dict[str, int] = field(default_factory=dict)  # entry -> chunks it was cut in

    def summary(self) -> str | None:
        said = []
        if self.split:
            said.append(f"{self.split:,} chunk(s) over {CHUNK_MAX_CHARS:,} characters split "
                        f"into {self.pieces:,}")
        if self.metadata:
            names = ", ".join(sorted(self.metadata))
            said.append(f"metadata over {METADATA_MAX_CHARS:,} characters cut ({names}) in "
                        f"{max(self.metadata.values()):,} chunk(s)")
        return "; ".join(said) or None


def bounded(chunks: Iterable[Chunk], problems: Problems) -> Iterator[Chunk]:
    """The chunks, each within the bounds; once they are all read, what was cut is one line
    of ``problems``."""
    cuts = Cuts()
    for chunk in chunks:
        meta = fit_metadata(chunk.metadata, cuts)
        if meta is not chunk.metadata:
            chunk = replace(chunk, metadata=meta, content_hash="")
        if len(chunk.content) <= CHUNK_MAX_CHARS or chunk.message_marks:
            yield chunk
            continue
        pieces = _pieces(chunk.content)
        cuts.split += 1
        cuts.pieces += len(pieces)
        for k, text in enumerate(pieces, start=1):
            yield replace(chunk, id=chunk.id if k == 1 else f"{chunk.id}~{k}", content=text,
                          metadata={**chunk.metadata, "piece": k, "pieces": len(pieces)},
                          content_hash="")
    said = cuts.summary()
    if said:
        problems.cut(said)


def _pieces(content: str) -> list[str]:
    """``content`` cut at paragraphs, lines or spaces (as long notes are); each later piece
    starts with the first line when it is short enough to be a heading."""
    head, _, _ = content.partition("\n")
    lead = f"{head}\n\n" if len(head) <= HEAD_MAX_CHARS else ""
    first, *rest = split_section(content, CHUNK_MAX_CHARS - len(lead))
    return [first, *(lead + piece for piece in rest)]


# --------------------------------------------------------------------------- metadata


def fit_metadata(meta: dict[str, Any], cuts: Cuts | None = None) -> dict[str, Any]:
    """``meta`` itself when its JSON is within METADATA_MAX_CHARS; else a copy whose largest
    entries were shortened (then dropped) until it fits, with ``cut`` naming them."""
    if _size(meta) <= METADATA_MAX_CHARS:
        return meta
    out = dict(meta)
    cut: list[str] = []
    budget = METADATA_MAX_CHARS // 4
    for key in sorted(out, key=lambda k: -_size(out[k])):
        if _size(out) <= METADATA_MAX_CHARS - 200:  # room for "cut"
            break
        out[key] = shrink(out[key], budget)
        cut.append(key)
    for key in cut:  # still too large: many medium entries; drop them
        if _size(out) <= METADATA_MAX_CHARS - 200:
            break
        out[key] = None
    out["cut"] = sorted(cut)
    if cuts is not None:
        for key in cut:
            cuts.metadata[key] = cuts.metadata.get(key, 0) + 1
    return out


def shrink(value: Any, budget: int) -> Any:
    """``value`` within about ``budget`` characters of JSON: strings shortened, lists and
    objects keep their leading items. Reads only what it keeps (200,000 keys cost nothing)."""
    if isinstance(value, str):
        return short(value, max(budget, 8))
    if isinstance(value, list | dict):
        items = value.items() if isinstance(value, dict) else enumerate(value)
        kept: list[tuple[Any, Any]] = []
        left = budget
        for key, item in items:
            item = shrink(item, left - 4)
            left -= _size(item) + (len(str(key)) + 4 if isinstance(value, dict) else 2)
            if left < 0:
                break
            kept.append((key, item))
        return dict(kept) if isinstance(value, dict) else [item for _, item in kept]
    return value


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))
