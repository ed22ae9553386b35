"""The page a query answers with: ranked candidates become :class:`SearchResult` rows, each
with the words it matched, its stale flag (one query for the whole page) and a snippet with
highlight spans (engine/retrieval/snippets.py)."""

from __future__ import annotations

from engine import scanner
from engine.config import Config
from engine.dates.message_days import chat_types
from engine.extractors.bounds import CHUNK_MAX_CHARS
from engine.rank.candidates import Candidate
from engine.retrieval.filters import Filters
from engine.retrieval.fts_query import ParsedQuery, build_match, matched_terms
from engine.retrieval.in_range import messages_in_range
from engine.retrieval.snippets import build as build_snippet
from engine.retrieval.snippets import parse_marked
from engine.search_response import SearchResult
from engine.storage.db import Connection

# what one row's words and snippet may read: chunks are bounded when written
# (engine/extractors/bounds.py); this bounds the work on one written before the bounds
SCAN_MAX_CHARS = 2 * CHUNK_MAX_CHARS


def results_page(conn: Connection, config: Config, ranked: list[Candidate],
                 parsed: ParsedQuery, filters: Filters | None = None) -> list[SearchResult]:
    """The page as results, with stale flags (one query for the page) or why a file cannot be
    checked now, the messages of each chat window inside the date filter, and snippets
    (opening at those messages)."""
    files = {c.source_file for c in ranked if not c.injected}
    stale = scanner.stale_files(conn, config, files)
    unread = scanner.unread_files(conn, config, files)
    results = [_result(c, parsed, c.source_file in stale and not c.injected) for c in ranked]
    for r in results:
        r.unread_source = None if r.injected else unread.get(r.source_file)
    if filters is not None:
        inside = messages_in_range(conn, ((r.rowid, r.content) for r in results
                                          if r.source_type in chat_types()), filters)
        for r in results:
            r.in_range = inside.get(r.rowid)
    _add_snippets(conn, results, parsed)
    return results


def _result(c: Candidate, parsed: ParsedQuery, stale: bool) -> SearchResult:
    meta = c.metadata or {}
    return SearchResult(
        id=c.id, content=c.content, source_file=c.source_file, source_type=c.source_type,
        score=c.score, matched_terms=matched_terms(c.content[:SCAN_MAX_CHARS], parsed) or None,
        content_date=c.content_date,
        keyword_rank=None if c.keyword_rank is None else c.keyword_rank + 1,
        semantic_rank=None if c.semantic_rank is None else c.semantic_rank + 1,
        similarity=c.similarity, bm25=c.bm25, arm_scores=dict(c.arm_scores),
        fusion_terms=dict(c.fusion_terms), rescored=c.rescored, decay=c.decay,
        mmr_position=None if c.mmr_position is None else c.mmr_position + 1,
        found_by=c.found_by, injected=c.injected, stale=stale,
        embedding_truncated=c.embedding_truncated,
        section_path=meta.get("section_path"), section=meta.get("section"),
        snippet="", metadata=meta, rerank_score=c.rerank_score, rowid=c.rowid,
        repeats=list(c.repeats))


def _add_snippets(conn: Connection, results: list[SearchResult], parsed: ParsedQuery) -> None:
    """Each result's snippet (engine/retrieval/snippets.py): a window on its first match, with the
    matches FTS5 found as offsets; the chunk head for semantic-only hits.

    One lookup per keyword hit, pinned to its rowid: FTS5 seeks straight to that row, where
    a MATCH over the whole index would re-run the query (250 ms at 500k chunks). It asks for
    the words the row visibly holds (``matched_terms``), not the whole query: highlight()
    seeks every phrase's posting list to the row, ~0.6 ms a row for a 60-word query. The
    markers are control characters the stored (cleaned) text never holds.
    """
    for r in results:
        matches = None
        match = _own_match(parsed, r.matched_terms)
        if (match and not r.injected and r.rowid is not None
                and len(r.content) <= SCAN_MAX_CHARS):  # highlight() reads the whole row
            try:
                row = conn.execute(
                    "SELECT highlight(chunks_fts, 0, char(2), char(3)) FROM chunks_fts "
                    "WHERE chunks_fts MATCH ? AND rowid = ?", (match, r.rowid)).fetchone()
                if row and row[0]:
                    text, matches = parse_marked(row[0], "\x02", "\x03")
                    if text != r.content:
                        matches = None  # the text held a marker: no offsets to trust
            except Exception:  # noqa: BLE001 - a snippet is decoration; the head will do
                pass
        snippet = build_snippet(r.content, matches,
                                start=r.in_range.start if r.in_range is not None else 0)
        r.snippet, r.highlights, r.emphasis = snippet.text, snippet.highlights, snippet.emphasis


def _own_match(parsed: ParsedQuery, matched: list[str] | None) -> str | None:
    """The OR of the query's terms and phrases that ``matched`` names."""
    if not matched:
        return None
    named = set(matched)
    return build_match(ParsedQuery(
        terms=[t for t in parsed.terms if t in named],
        phrases=[p for p in parsed.phrases if " ".join(p) in named]), "or")
