"""What a finished job says: one notification's text per index job and per import."""

from __future__ import annotations

from typing import Any

from engine.display import plural

from .widgets.text import human_bytes, one_line, plain, shown_path


def cancelled(result: Any) -> bool:
    return bool(getattr(result, "cancelled", False))


def has_errors(result: Any) -> bool:
    return bool(getattr(result, "errors", None) or getattr(result, "re_embed_error", None))


def job_summary(kind: str, result: Any, elapsed: float) -> str:
    """One notification for a finished job, from its IndexStats (or maintenance dict)."""
    if isinstance(result, dict):
        return (f"index {human_bytes(result.get('size_before'))} → "
                f"{human_bytes(result.get('size_after'))} (free pages "
                f"{human_bytes(result.get('free_bytes_before', 0))} → "
                f"{human_bytes(result.get('free_bytes_after', 0))}) · search file rewritten: "
                f"{result.get('sidecar_rows', 0):,} vectors · {elapsed:.1f} s")
    s = result
    text = (f"{plural(s.files, 'file')} indexed ({s.skipped:,} unchanged, "
            f"{s.removed_files:,} removed) · {plural(s.chunks, 'chunk')} written, "
            f"{s.unchanged_chunks:,} unchanged, {s.deleted_chunks:,} deleted · "
            f"{s.embedded:,} embedded · {s.pending_embeddings:,} pending · {s.seconds:.1f} s")
    if s.re_embed_ran:  # the time went into embedding: say that first
        text = f"re-embed: {plural(s.embedded, 'chunk')} embedded in {s.seconds:.1f} s · " + text
    if s.upgraded:
        text += f"\nupgraded the index: {one_line(s.upgraded)}"
    if s.re_embed_error:
        text += f"\n{one_line(s.re_embed_error)[:200]}"
    if s.errors:
        first = s.errors[0]
        text += (f"\n{plural(len(s.errors), 'file')} failed, e.g. {shown_path(first.source_file)}: "
                 f"{one_line(first.message)[:120]} (F3 lists them)")
    if s.embedding_errors:
        text += f"\nembedding: {one_line(s.embedding_errors[0])[:160]}"
    if new := [w for w in getattr(s, "warnings", ()) if getattr(w, "new", True)]:  # once
        text += (f"\n{plural(len(new), 'new warning')}, e.g. {shown_path(new[0].source_file)}: "
                 f"{one_line(new[0].message)[:120]} (F3 lists them)")
    if s.cancelled:
        text += "\nCancelled: run it again to finish."
    return text


MAX_SUMMARY_LINES = 12


def import_summary(report: Any, elapsed: float, reindexing: bool) -> str:
    """The notification of a finished import: ``report.summary()`` without its problem lines
    (they go to a dialog), capped, plus what happens next."""
    lines = [line for line in report.summary().splitlines()
             if not line.startswith("  problem: ")]
    if len(lines) > MAX_SUMMARY_LINES:
        lines = lines[:MAX_SUMMARY_LINES - 1] + [
            f"  … {len(lines) - MAX_SUMMARY_LINES + 1} more lines"]
    lines[0] += f" · {elapsed:.1f} s"
    if report.problems:
        n = len(report.problems)
        lines.append(f"{plural(n, 'problem')} (listed in the dialog)")
    if report.dry_run:
        lines.append("Dry run: nothing was written.")
    elif reindexing:
        lines.append("Reindexing now, so the imported records become searchable.")
    elif report.ok:
        lines.append("Nothing new: no reindex needed.")
    return plain("\n".join(lines))
