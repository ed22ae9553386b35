"""The work the app does off the UI thread: plain functions that compute and post messages.

Each function takes a ``post`` callable (a widget's thread-safe ``post_message``) and never
touches a widget. The screens start them with ``run_worker(..., thread=True)``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from engine.config import Config
from engine.library import parse_metadata

from .actions import JobKind
from .messages import (
    DiscoverLoaded,
    ImportProgress,
    ImportRequest,
    JobFailed,
    JobFinished,
    JobProgress,
    NeighbourLoaded,
    Overview,
    OverviewLoaded,
    RepeatLoaded,
    SearchDone,
    SearchFailed,
    SourcesLoaded,
    StatsLoaded,
)
from .session import SearchRequest

Post = Callable[[Any], Any]

PROGRESS_INTERVAL = 0.1  # seconds between progress messages (the last one always goes)


def search_job(library: Any, request: SearchRequest, seq: int, now: datetime | None,
               post: Post) -> None:
    """One search through the read facade (``engine.library.Library.search``); the answer
    carries ``seq`` so the UI can drop a stale one."""
    try:
        response = library.search(
            request.engine_query, limit=request.limit,
            source_types=list(request.source_types) if request.source_types else None,
            mode=request.mode, since=request.since, until=request.until,
            path_prefix=request.path_prefix, person=request.person, now=now)
    except Exception as exc:  # noqa: BLE001 - every failure becomes a message, never a crash
        post(SearchFailed(seq, exc))
        return
    post(SearchDone(seq, response))


def read_overview(config: Config) -> Overview:
    """Counts per source type, chunks, embedder and size (the facade's overview), people and
    the sources in place."""
    from engine.library import Library

    library = Library(config)
    people = library.people()
    ov = library.overview()
    return Overview(exists=ov.exists, db_path=ov.db_path, per_type=ov.per_type,
                    chunks=ov.chunks, embedder=ov.embedder, db_bytes=ov.db_bytes,
                    pending_embeddings=ov.pending_embeddings, people=list(people.people),
                    people_error=people.load_error, sources=library.sources())


def overview_job(config: Config, post: Post) -> None:
    try:
        overview = read_overview(config)
    except Exception as exc:  # noqa: BLE001 - shown in the header, never raised
        overview = Overview(exists=config.db_path.exists(), db_path=str(config.db_path),
                            error=str(exc) or type(exc).__name__)
    post(OverviewLoaded(overview))


def read_neighbour(config: Config, chunk_id: str,
                   direction: int) -> tuple[dict | None, tuple[int, int] | None]:
    """The chunk before (-1) or after (+1) ``chunk_id`` in its file (file order, see
    ``engine.library_types.file_order_key``), and its 1-based position among the file's
    chunks."""
    from engine.library import Library

    found = Library(config).neighbour(chunk_id, direction)
    if found is None:
        return None, None
    chunk, position, total = found
    return chunk.to_dict(), (position, total)


def neighbour_job(config: Config, chunk_id: str, direction: int, post: Post) -> None:
    try:
        chunk, position = read_neighbour(config, chunk_id, direction)
    except Exception:  # noqa: BLE001
        chunk, position = None, None
    post(NeighbourLoaded(direction, chunk, position))


def repeat_job(config: Config, chunk_id: str, post: Post) -> None:
    """A result's repeat (tui/widgets/results.py) read by its id, to be previewed."""
    from engine.library import Library

    try:
        found = Library(config).chunk(chunk_id)
        chunk = found.to_dict() if found is not None else None
    except Exception:  # noqa: BLE001 - the preview says it could not be read
        chunk = None
    post(RepeatLoaded(chunk_id, chunk))


def run_job(kind: JobKind, config: Config, embedder: Any, cancel: threading.Event,
            post: Post) -> None:
    """A reindex / full rebuild / re-embed / maintenance run, reported as messages."""
    started = time.monotonic()
    last: list[Any] = [0.0, None]

    def progress(p: Any) -> None:
        # every new file or phase goes out; updates within one file at most every 0.1 s
        now = time.monotonic()
        step = (p.phase, p.current_file, p.files_done)
        if step != last[1] or now - last[0] >= PROGRESS_INTERVAL:
            last[0], last[1] = now, step
            post(JobProgress(kind, p, now - started))

    try:
        if kind.maintenance:
            from engine import maintain_index

            result = maintain_index(config.db_path, vacuum=kind is JobKind.MAINTENANCE)
        else:
            from engine import reindex

            result = reindex(config=config, embedder=embedder, progress=progress,
                             cancel=cancel, full=kind is JobKind.FULL,
                             re_embed=kind is JobKind.RE_EMBED)
    except BaseException as exc:  # noqa: BLE001 - shown in a modal, never as a traceback
        post(JobFailed(kind, exc))
        return
    post(JobFinished(kind, result, time.monotonic() - started))


def import_job(request: ImportRequest, root: Path, post: Post) -> None:
    """``run_import`` of an export into the data root, reported as messages (it cannot be
    cancelled: the importer takes no cancel flag)."""
    started = time.monotonic()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        # the first and the last step always go; in between at most every 0.1 s
        now = time.monotonic()
        if done <= 0 or done >= total or now - last[0] >= PROGRESS_INTERVAL:
            last[0] = now
            post(JobProgress(JobKind.IMPORT, ImportProgress(done, total, str(request.source)),
                             now - started))

    try:
        from engine.importers import run_import

        report = run_import(request.kind, request.source, root, people=request.people,
                            dry_run=request.dry_run, progress=progress,
                            local_tz=request.local_tz, date_order=request.date_order)
    except BaseException as exc:  # noqa: BLE001 - shown in a modal, never as a traceback
        post(JobFailed(JobKind.IMPORT, exc))
        return
    post(JobFinished(JobKind.IMPORT, report, time.monotonic() - started))


def stats_job(config: Config, post: Post) -> None:
    from engine.library import IndexUnavailable, Library

    try:
        library = Library(config)
        try:
            stats = library.statistics()
        except IndexUnavailable:
            raise FileNotFoundError(
                f"no index at {config.db_path} yet: press ctrl+r to build it") from None
        sources = library.sources()
    except Exception as exc:  # noqa: BLE001
        post(StatsLoaded(error=exc))
        return
    post(StatsLoaded(stats, sources=sources))


def sources_job(config: Config, post: Post) -> None:
    """The sources in place, each with its folder's state and what the index holds of it."""
    from engine.library import Library

    try:
        sources = Library(config).sources()
    except Exception as exc:  # noqa: BLE001 - shown in the dialog, never raised
        post(SourcesLoaded(error=exc))
        return
    post(SourcesLoaded(sources))


def discover_job(config: Config, post: Post) -> None:
    from engine.library import Library

    try:
        library = Library(config)
        files = library.pending()
        routes = [(c.pattern, c.source_type, c.files)
                  for c in library.route_counts(files.routed)]
        # the files ``pending`` walked: each source folder is not walked again
        absent = {s.name for s in library.sources(files.routed) if not s.present}
    except Exception as exc:  # noqa: BLE001
        post(DiscoverLoaded(error=exc))
        return
    missing = [s.prefix for s in config.sources if s.name in absent]
    pending = [(f.source_type, f.rel) for f in files.to_index]
    pending += [("(removed)", rel) for rel in files.vanished]
    post(DiscoverLoaded(routes, pending, len(files.routed), missing=missing))


# -- the file viewer ---------------------------------------------------------------------------

MAX_VIEW_BYTES = 4 * 1024 * 1024
WINDOW_LINES = 4000


def _metadata(chunk: dict | Any) -> dict:
    return parse_metadata(_get(chunk, "metadata"))


def chunk_lines(chunk: dict | Any) -> tuple[int, int] | None:
    """The 1-based (first, last) file lines the extractor recorded for the chunk, if any."""
    meta = _metadata(chunk)
    span = meta.get("lines")
    if isinstance(span, list) and len(span) == 2 and all(isinstance(v, int) for v in span):
        return span[0], span[1]
    line = meta.get("line")
    if isinstance(line, int) and not isinstance(line, bool) and line > 0:
        return line, line
    return None


def locate_chunk(lines: list[str], chunk: dict | Any, first: int = 0) -> tuple[int, int] | None:
    """The 0-based (first, last) indexes into ``lines`` (which start at file line
    ``first + 1``) where the chunk comes from, if known."""
    meta = _metadata(chunk)
    recorded = chunk_lines(chunk)
    if recorded is not None:
        start, end = recorded[0] - 1 - first, recorded[1] - 1 - first
        if 0 <= start < len(lines):
            return start, min(max(end, start), len(lines) - 1)
    person = meta.get("person")
    needles = [f'"{person}"'] if person else []
    content = _get(chunk, "content") or ""
    needles += [ln.strip() for ln in content.splitlines() if len(ln.strip()) >= 12]
    for needle in needles[:40]:
        for i, text in enumerate(lines):
            if needle in text:
                end = i
                if not person:  # extend over the following lines of the chunk
                    body = set(ln.strip() for ln in content.splitlines() if ln.strip())
                    while end + 1 < len(lines) and (lines[end + 1].strip() in body
                                                    or not lines[end + 1].strip()):
                        end += 1
                    while end > i and not lines[end].strip():
                        end -= 1
                return i, end
    return None


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def source_path(config: Config, rel: str) -> Path:
    """The absolute path of a result's file for the viewer or the editor, by the read facade's
    rules (a data-layer file, still inside the root once links are resolved), or
    ``ReadRefused`` (one line)."""
    from engine.library import Library

    return Library(config).file_path(rel)


def read_source(path: Path, around: int | None = None) -> tuple[list[str], int, bool]:
    """The file's lines (a window of them around line ``around`` for huge files), the 0-based
    number of the first line returned, and whether the text was cut to a window."""
    size = path.stat().st_size
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        if size <= MAX_VIEW_BYTES:
            return fh.read().splitlines(), 0, False
        start = max(0, (around or 0) - WINDOW_LINES // 2)
        lines = []
        for i, line in enumerate(fh):
            if i < start:
                continue
            if i >= start + WINDOW_LINES:
                break
            lines.append(line.rstrip("\n"))
        return lines, start, True
