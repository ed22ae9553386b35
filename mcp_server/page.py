"""The search page the three search tools return: a header, then one line per result.

Each row is a JSON object of the note-controlled fields (title, path, tags, preview_kind,
preview; every value a JSON string) followed by server fields as ``name: value`` pairs
separated by `` | `` (mcp_server/descriptions.py says what each means). Pure functions over
the engine's SearchResponse: testable without the SDK.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from engine import SearchResponse
from engine.display import (
    ParsedQuery,
    Snippet,
    formula,
    json_dumps,
    marked,
    matched_terms,
    plural,
    repeats_text,
    type_label,
)

from .text import cap, flat, jobject, jstr, one_line

PREVIEW_CHARS = 300
FIELD_SEP = " | "
FOOTER_RESERVE = 220  # room kept for the "truncated: ..." line when rows are dropped
CONTENT_KEYS = ("title", "path", "tags", "preview_kind", "preview")
REPEAT_IDS = 10  # ids a row's repeats field lists; the rest are counted


def title_of(r) -> str:
    """A human title for any chunk: the note title, an email subject, a chat's channel..."""
    meta = r.metadata or {}
    if r.injected:
        return str(meta.get("person") or "profile")
    for key in ("title", "subject", "name"):
        value = meta.get(key)
        if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value):
            return str(value)
    if meta.get("podcast") or meta.get("episode"):
        return ": ".join(str(meta[k]) for k in ("podcast", "episode") if meta.get(k))
    if meta.get("channel"):
        return f"{type_label(r.source_type)} {meta['channel']}"
    if meta.get("session_id"):
        return f"interview {meta['session_id']}"
    return PurePosixPath(r.source_file).stem


def tags_of(r) -> str:
    tags = (r.metadata or {}).get("tags")
    if isinstance(tags, list):
        return ", ".join(str(t) for t in tags if t is not None and str(t))
    if isinstance(tags, str):
        return tags
    return ""


def highlight(r) -> str | None:
    """The keyword highlight of a row, the matched terms between « and », or None: the
    engine's snippet rendered from its highlight spans (engine/retrieval/snippets.py)."""
    if not getattr(r, "highlights", None):
        return None
    return marked(Snippet(r.snippet or "", list(r.highlights)))


def better_arm(r) -> str | None:
    """The arm that ranked this row better (keyword on a tie); None for injected rows."""
    k, s = r.keyword_rank, r.semantic_rank
    if k is None and s is None:
        return None
    if s is None or (k is not None and k <= s):
        return "keyword"
    return "semantic"


def preview_of(r, source_exists: bool) -> tuple[str, str]:
    """(preview_kind, preview) from the arm that ranked the row better.

    snippet: the keyword highlight (matched terms in «»); chunk: the chunk the semantic arm
    matched; head: the start of the text (profiles, or a keyword hit without a highlight);
    stale_notice: the file is gone since it was indexed; none: nothing to show.
    """
    if r.stale and not source_exists and not r.injected:
        return "stale_notice", (
            "this file was deleted or moved after it was indexed; the row is the indexed copy "
            "and read_note cannot open it (a reindex removes it)")
    if not (r.content or "").strip():
        return "none", ""
    # a chat window under a date filter: from its first message inside the dates
    text = r.content[r.in_range.start:] if getattr(r, "in_range", None) else r.content
    arm = better_arm(r)
    if arm == "semantic":
        return "chunk", cap(flat(text), PREVIEW_CHARS)
    marked = highlight(r) if arm == "keyword" else None
    if marked:
        return "snippet", cap(marked, PREVIEW_CHARS)
    return "head", cap(flat(text), PREVIEW_CHARS)


def content_fields(r, source_exists: bool = True, cuts: dict[str, int] | None = None) -> dict:
    """The five note-controlled fields; ``cuts`` caps some of them (a first row that has to
    be shortened to fit the response)."""
    kind, preview = preview_of(r, source_exists)
    fields = {"title": title_of(r), "path": r.source_file, "tags": tags_of(r),
              "preview_kind": kind, "preview": preview}
    for key, limit in (cuts or {}).items():
        if len(fields[key]) > limit:
            fields[key] = cap(fields[key], limit) if limit > 0 else ""
    return fields


def keyword_detail(r, parsed: ParsedQuery) -> str:
    """``match: all 2/2 [a, b]`` or ``match: partial 1/2 [a]``, and ``matched_in: title, body``
    (which parts of the chunk hold a query term: title, heading, tags, path, body)."""
    meta = r.metadata or {}
    section_path = r.section_path or []
    content = r.content or ""
    body = content
    if r.section is not None and "\n\n" in content:
        body = content.split("\n\n", 1)[1]  # markdown chunks start with their heading line
    fields = {
        "title": title_of(r) if meta.get("title") else "",
        "heading": " > ".join(str(p) for p in section_path),
        "tags": tags_of(r),
        "path": r.source_file,
        "body": body,
    }
    found: list[str] = []
    where: list[str] = []
    for name, text in fields.items():
        hits = matched_terms(text, parsed) if text else []
        if hits:
            where.append(name)
            found += [h for h in hits if h not in found]
    for h in r.matched_terms or []:
        if h not in found:
            found.append(h)
    order = parsed.terms + [" ".join(p) for p in parsed.phrases]
    found.sort(key=lambda t: order.index(t) if t in order else len(order))
    units = parsed.unit_count
    have = min(len(found), units)
    match = "all" if units and have >= units else "partial"
    terms = ", ".join(found) if found else "-"
    return f"match: {match} {have}/{units} [{terms}], matched_in: {', '.join(where) or '-'}"


def section_field(r) -> str | None:
    if r.section is None:
        return None
    if r.section == 0:
        return "§ (top of note)"
    path = " > ".join(str(p) for p in (r.section_path or []))
    return f"§ {jstr(path)} (#{r.section})"


def repeats_field(r) -> str | None:
    """``repeats: 3×: 2026-02-12, 07-17, 11-08; others: ["<id>", "<id>"]``: the row stands for
    chunks of the same text (engine/rank/repeats.py); the others' ids, for get_neighborhood,
    are a JSON array (a chunk id is data), at most REPEAT_IDS of them."""
    if not getattr(r, "repeats", None):
        return None
    ids = [x.id for x in r.repeats]
    more = f" and {len(ids) - REPEAT_IDS} more" if len(ids) > REPEAT_IDS else ""
    return f"repeats: {repeats_text(r)}; others: {json_dumps(ids[:REPEAT_IDS])}{more}"


def server_fields(r, response, parsed: ParsedQuery, cut_note: str | None = None) -> list[str]:
    # newest first when nothing ranks the page (arms: none): no score to give
    out = [f"score: {r.score:.5f}" if response.scored else "score: - (newest first)"]
    if r.placed:  # below a lower score: the diversity step, said where the score is
        out.append(f"placed: {one_line(r.placed).removeprefix('placed ')}")
    if r.semantic_rank is not None:
        sim = "-" if r.similarity is None else f"{r.similarity:.3f}"
        out.append(f"semantic_rank: {r.semantic_rank} (similarity {sim})")
    else:
        out.append("semantic_rank: -")
    if r.keyword_rank is not None:
        out.append(f"keyword_rank: {r.keyword_rank} ({keyword_detail(r, parsed)})")
    else:
        out.append("keyword_rank: -")
    out.append(f"explain: {formula(r, response.rrf_k)}" if response.scored
               else "explain: - (nothing ranks this page: the newest first)")
    out.append(f"stale: {'true' if r.stale else 'false'}")
    if r.unread_source:  # its source's folder is not read now (an unmounted disk)
        out.append(f"unread_source: {one_line(r.unread_source, 300)}; shown as indexed")
    out.append(f"embedding_truncated: {'true' if r.embedding_truncated else 'false'}")
    section = section_field(r)
    if section:
        out.append(section)
    out.append(f"id: {jstr(r.id)}")
    out.append(f"type: {r.source_type}")
    out.append(f"date: {r.content_date or '-'}")
    repeats = repeats_field(r)
    if repeats:
        out.append(repeats)
    inside = getattr(r, "in_range", None)
    if inside is not None:  # the window's messages inside since/until
        out.append(f"messages_in_dates: {inside.messages} ({inside.label})")
    if r.rerank_score is not None:
        out.append(f"rerank_score: {r.rerank_score:.4f}")
    if cut_note:
        out.append(cut_note)
    return out


def result_row(r, response, parsed: ParsedQuery, *, source_exists: bool = True,
               cuts: dict[str, int] | None = None, cut_note: str | None = None) -> str:
    return FIELD_SEP.join([jobject(content_fields(r, source_exists, cuts)),
                           *server_fields(r, response, parsed, cut_note)])


def header_lines(response, threshold: float | None = None) -> list[str]:
    lines = [f"arms: {response.arms}"]
    depth = []
    for arm, (found, asked) in response.arm_depth.items():
        unavailable = (arm == "semantic" and response.semantic_error is not None)
        depth.append(f"{arm} {found}/{asked}" + (" (unavailable)" if unavailable else ""))
    lines.append(f"arm_depth: {', '.join(depth)} chunks" if depth
                 else "arm_depth: - (no arm ran: nothing to rank by)")
    if response.semantic_error is not None and response.semantic_detail:
        lines.append(f"semantic_unavailable: {one_line(response.semantic_detail)}")
    if response.serving_embedder:  # another embedder configured, not re-embedded yet
        lines.append(f"vectors: {one_line(response.serving_embedder)} (searched with their own "
                     "embedder until a re-embed covers the index)")
    if response.re_embed:
        lines.append(one_line(response.re_embed))
    for applied in (getattr(response, "time", None), getattr(response, "person", None),
                    getattr(response, "phrases", None)):
        if applied:  # 'time: 2026-03-09..2026-03-15 (from "last week")', 'person: Maya Chen'
            lines.append(one_line(applied))
    lines.append(f"confidence: {response.confidence}")
    if response.confidence == "low":
        lines.append(f"suggestion: {_low_confidence_advice(response, threshold)}")
    lines.append(f"fusion: {response.fusion}")
    if response.sort == "date":
        lines.append("sort: date (the best results, newest first; score still ranks relevance)"
                     if response.scored else "sort: date (the newest first; no score)")
    if response.arms == "both" and not response.decay_applied:
        lines.append("decay: off (asked for)")
    if response.reranked:
        lines.append("reranked: true")
    else:
        lines.append(f"reranked: false ({response.rerank_reason or 'not_requested'})")
    if response.index_transition:
        lines.append(f"index_transition: {one_line(response.index_transition, 40)} (a writer "
                     "is updating the index; rows may change until it finishes)")
    return lines


def _low_confidence_advice(response: SearchResponse, threshold: float | None) -> str:
    """Why the page is weak, naming only the arms that ran, and which tool to try next."""
    best = response.best_similarity
    weak_semantic = (f"the closest semantic candidate ({'none' if best is None else f'{best:.3f}'})"
                     f" is under the similarity threshold"
                     f"{'' if threshold is None else f' ({threshold:g})'}")
    if response.arms.startswith("keyword"):  # also "keyword-only (semantic unavailable…)"
        return ("no chunk holds most of the keyword terms; try other or fewer words, or "
                "hybrid_search to search by meaning as well")
    if response.arms == "semantic":
        return (f"{weak_semantic}; try keyword_search with the exact words or identifier you "
                "expect, or get_neighborhood on the closest row's id to read around it")
    return (f"no chunk holds most of the keyword terms and {weak_semantic}; try keyword_search "
            "with the exact words or identifier you expect, or get_neighborhood on the "
            "closest row's id to read around it")


def fit_rows(header: list[str], rows: Sequence[str], max_chars: int,
             shrink_first=None) -> tuple[str, int]:
    """Join header and rows under ``max_chars``: whole rows are dropped from the end and
    counted in a last line; a first row that cannot fit is cut (via ``shrink_first(budget)``,
    which returns a shorter, labelled row) rather than dropped. Returns (text, dropped)."""
    text = "\n".join(header)
    full = "\n".join([*header, *rows])
    if len(full) <= max_chars or not rows:
        return full, 0
    budget = max_chars - FOOTER_RESERVE
    kept: list[str] = []
    used = len(text)
    for row in rows:
        if used + 1 + len(row) > budget:
            break
        kept.append(row)
        used += 1 + len(row)
    if not kept:
        room = max(0, (budget if len(rows) > 1 else max_chars) - used - 1)
        first = shrink_first(room) if shrink_first else None
        if first is None or len(first) > room:
            base = first or rows[0]
            label = " …[row cut: response limit]"
            first = base[: max(0, room - len(label))] + label
        kept.append(first)
    dropped = len(rows) - len(kept)
    lines = [*header, *kept]
    if dropped:
        lines.append(f"truncated: {plural(dropped, 'more row')} dropped to "
                     f"stay under {max_chars} characters; lower limit, narrow with folder, tags "
                     "or source_types, or read_note a path")
    return "\n".join(lines), dropped


def format_search(response, parsed: ParsedQuery, max_chars: int, *,
                  threshold: float | None = None, exists=lambda _p: True) -> str:
    """The search page: header, one line per result, whole-row truncation."""
    header = header_lines(response, threshold)
    results = list(response.results)
    existence = {r.source_file: (True if r.injected else exists(r.source_file))
                 for r in results}
    rows = [result_row(r, response, parsed, source_exists=existence[r.source_file])
            for r in results]
    if not rows:
        note = "no results"
        if response.semantic_error and response.mode == "semantic":
            note += " (the semantic arm is unavailable)"
        return "\n".join([*header, note])

    def shrink_first(room: int) -> str | None:
        """The first row with its preview (then title, then tags) shortened to ``room``."""
        r = results[0]
        exists_ = existence[r.source_file]
        note = "cut: true (row shortened to fit the response limit; read_note for all)"
        cuts = {k: len(v) for k, v in content_fields(r, exists_).items()
                if k in ("preview", "title", "tags")}
        for _ in range(12):
            row = result_row(r, response, parsed, source_exists=exists_, cuts=cuts,
                             cut_note=note)
            over = len(row) - room
            if over <= 0:
                return row
            key = max(cuts, key=cuts.get)  # the longest of preview, title, tags
            if cuts[key] == 0:
                return row
            cuts[key] = max(0, cuts[key] - over - 8)
        return None

    text, _ = fit_rows(header, rows, max_chars, shrink_first)
    return text


# --------------------------------------------------------------------------- other tools
