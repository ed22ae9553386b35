"""The text of read_note, get_neighborhood and index_status, from the facade's dataclasses.

Pure functions (no SDK, no index): the tools in :mod:`mcp_server.tools` fetch, these write.
"""

from __future__ import annotations

from engine.display import plain, plural
from engine.library import Chunk, FileText, IndexStatus, Neighbours

from .text import cap, cut_text, jobject, jstr

NEIGHBOR_CHARS = 4000  # one neighborhood chunk is cut to this many characters
STALE_LISTED = 20


# -- read_note ---------------------------------------------------------------------------------

def note_text(file: FileText, offset: int, max_chars: int) -> str:
    """A header (path, type, indexed and stale, section or outline, characters shown), then
    the text from ``offset`` (at most its length), cut near ``max_chars`` with the offset to
    continue from."""
    indexed = ("no (not indexed yet)" if not file.indexed else
               "yes, stale: true (changed since it was indexed)" if file.stale else
               "yes, stale: false")
    header = [f"path: {jstr(file.rel)}", f"type: {file.source_type}", f"indexed: {indexed}"]
    if file.section is not None:
        label = ("#0 (top of note)" if file.section == 0 else
                 f"#{file.section} {jstr(' > '.join(file.section_path or []))}")
        header.append(f"section: {label}")
    elif file.outline:
        header.append(f"sections: [{', '.join(jstr(s) for s in file.outline)}]")
    body = file.text
    budget = max_chars - sum(len(h) + 1 for h in header) - 200
    shown, end = cut_text(body, offset, max(200, budget))
    header.append(f"chars: {offset}-{end} of {len(body)}")
    # the file's own text, with every terminal control shown as a visible stand-in: the one
    # rule for text of the data layer (engine/display.py); offsets count the file's characters
    lines = [*header, "---", plain(shown.rstrip("\n"), tab="\t") or "(empty)"]
    if end < len(body):
        lines.append(f"--- truncated: call read_note(path, "
                     f"{'section, ' if file.section is not None else ''}offset={end}) for the "
                     "rest")
    return "\n".join(lines)


# -- get_neighborhood --------------------------------------------------------------------------

def person_line(person: str, matched: str, profile: str) -> str:
    return "profile: " + jobject({"person": person, "matched": matched, "profile": profile})


def _section_display(chunk: Chunk) -> str | None:
    n = chunk.metadata.get("section")
    if not isinstance(n, int) or isinstance(n, bool):
        return None
    path = chunk.metadata.get("section_path") or []
    return "#0 (top of note)" if n == 0 else f"#{n} " + " > ".join(map(str, path))


def neighbour_row(role: str, chunk: Chunk) -> str:
    fields = {"role": role, "id": chunk.id, "date": chunk.content_date or "",
              "content": cap(chunk.content or "", NEIGHBOR_CHARS)}
    section = _section_display(chunk)
    if section:
        fields["section"] = section
    return jobject(fields)


def neighbourhood_text(run: Neighbours, profile: str, max_chars: int) -> str:
    """The center's header, its neighbours one JSON line each in file order, the profile
    line; over ``max_chars`` the outermost chunks go first, never the center."""
    center = run.chunks[run.center]
    header = [f"id: {jstr(center.id)}", f"path: {jstr(run.source_file)}",
              f"type: {center.source_type}",
              f"position: {run.position(run.center)} of {run.total} chunks in this file (file "
              f"order); showing {run.center} before and {len(run.chunks) - run.center - 1} "
              "after"]
    entries = [(abs(i - run.center),
                neighbour_row("center" if i == run.center else
                              "before" if i < run.center else "after", chunk))
               for i, chunk in enumerate(run.chunks)]
    dropped = 0
    while (len("\n".join([*header, *(line for _, line in entries), profile])) > max_chars
           and len(entries) > 1):
        far = max(entries, key=lambda e: e[0])
        if far[0] == 0:
            break
        entries.remove(far)
        dropped += 1
    out = [*header, *(line for _, line in entries), profile]
    if dropped:
        out.append(f"truncated: {plural(dropped, 'outer chunk')} dropped "
                   f"to stay under {max_chars} characters; ask for fewer before/after")
    return "\n".join(out)


# -- index_status ------------------------------------------------------------------------------

def _embedder_line(status: IndexStatus) -> str:
    match = status.embedder
    conf = match.configured
    configured = f"{conf.provider}:{conf.model}" + (f" ({conf.dim}-d)" if conf.dim else "")
    if match.state == "none_yet":
        return f"none yet (configured: {configured})"
    stored = match.stored.describe()
    staged = status.statistics.re_embed if status.statistics else None
    staged = f"; {staged}" if staged else ""
    if match.state == "same":
        return f"{stored} (configured: same){staged}"
    if match.state == "same_model":
        return f"{stored} (configured: same model; dimension not checked){staged}"
    return (f"{stored} — configured: {configured}: MISMATCH, searches use the index's vectors "
            "with their own embedder (keyword-only where it cannot run) until `memlens "
            f"reindex --re-embed` covers the index{staged}")


def _last_reindex(st) -> str:
    last = st.last_reindex or {}
    text = st.last_reindex_at or "never"
    bits = [f"{k} {last[k]}" for k in ("files", "chunks", "embedded", "removed_files",
                                       "pending_embeddings") if k in last]
    if "seconds" in last:
        bits.append(f"{float(last['seconds']):.1f} s")
    return text + (f" ({', '.join(bits)})" if bits else "")


def _source_lines(sources) -> list[str]:
    """Each source in place as `memlens source list` shows it, its folder named by its
    ``@NAME/`` prefix (never a path of the machine): read, or not read now and why (its
    chunks are kept and searched as indexed; their rows say ``unread_source``)."""
    unread = sum(1 for s in sources if not s.present)
    lines = [f"sources: {len(sources)}" + (f" ({unread} not read now)" if unread else "")]
    for s in sources:
        state = "read" if s.present else (f"{s.state}; its chunks are kept and searched as "
                                          "indexed")
        lines.append(f"  source: {s.name} ({s.source_type}) at @{s.name}/: "
                     f"{s.counts}, {plural(s.chunks, 'chunk')}; {state}")
    return lines


def status_text(status: IndexStatus, max_chars: int) -> str:
    transition = f"index_transition: {status.transition or 'none'}"
    if not status.exists:
        return "\n".join([f"index: none at {status.db_path} (run `memlens reindex`)",
                          transition])
    st, pending = status.statistics, status.pending
    changed = sorted(f.rel for f in pending.changed)
    gone = sorted(pending.vanished)
    lines = [
        f"index: {st.db_path} ({st.db_bytes} bytes)",
        f"chunks: {st.chunks} in {st.files} files",
        f"per_type: {', '.join(f'{t} {n}' for t, n in st.per_type.items()) or '-'}",
        f"embedder: {_embedder_line(status)}",
        f"last_reindex: {_last_reindex(st)}",
        f"pending_embeddings: {st.pending_embeddings}",
        f"truncated_embeddings: {st.truncated_embeddings}",
        f"compiled: {'; '.join(st.compiled_lines)}",
        *([f"vectors: {st.storage.vector_line}; {st.storage.search_line}"] if st.storage else []),
        *([f"message_vectors: {st.message_vectors} chat windows"] if st.message_vectors else []),
        f"stale_files: {len(changed) + len(gone)} (changed: {len(changed)}, vanished: "
        f"{len(gone)})",
    ]
    for label, items in (("changed", changed), ("vanished", gone)):
        lines += [f"  {label}: {jstr(rel)}" for rel in items[:STALE_LISTED]]
        if len(items) > STALE_LISTED:
            lines.append(f"  {label}: … {len(items) - STALE_LISTED} more")
    lines.append(f"new_files: {len(pending.new)} (routed, not indexed yet)")
    lines += _source_lines(st.sources)
    lines.append(f"files_with_errors: {len(st.files_with_errors)}")
    lines += [f"  error: {jobject({'path': e['source_file'], 'error': e['error'] or ''})}"
              for e in st.files_with_errors[:STALE_LISTED]]
    if st.storage is not None and st.storage.suggest_maintenance:
        lines.append("maintenance: suggested (free pages: "
                     f"{st.storage.free_bytes // 2**20} MB the file could hand back)")
    lines.append(transition)
    text = "\n".join(lines)
    if len(text) > max_chars:
        text = text[: max_chars - 60].rsplit("\n", 1)[0] + \
            "\ntruncated: status cut at the response limit"
    return text
