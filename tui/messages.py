"""Messages that thread workers post to the UI thread.

Workers never touch widgets: they compute, then post one of these; the handlers (on the UI
thread) own every piece of UI state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.message import Message

from engine.library import IndexOverview

from .actions import JobKind


@dataclass
class SearchDone(Message):
    seq: int  # the request's sequence number: a stale answer is dropped by it
    response: Any


@dataclass
class SearchFailed(Message):
    seq: int
    error: BaseException


@dataclass
class Overview(IndexOverview):
    """What the header and the facets show: the index's overview and the known people."""

    people: list[Any] = field(default_factory=list)
    people_error: str | None = None
    error: str | None = None  # the index exists but could not be read
    sources: list[Any] = field(default_factory=list)  # engine.index.SourceState, each source

    @property
    def semantic_coverage(self) -> float | None:
        """The share of chunks with a vector (None without chunks)."""
        return 1 - self.pending_embeddings / self.chunks if self.chunks else None


@dataclass
class OverviewLoaded(Message):
    overview: Overview


@dataclass
class RepeatLoaded(Message):
    """A repeat of a result, read to be previewed (``chunk`` None: gone from the index)."""

    chunk_id: str
    chunk: dict | None


@dataclass
class NeighbourLoaded(Message):
    """A chunk of the same file before/after the one shown (``chunk`` None: none there)."""

    direction: int
    chunk: dict | None
    position: tuple[int, int] | None


@dataclass(frozen=True)
class ImportRequest:
    """What the import dialog asked for: ``run_import(kind, source, root, ...)``."""

    kind: str
    source: Path
    people: bool = False
    dry_run: bool = False
    date_order: str | None = None  # "dmy" / "mdy" (WhatsApp only); None: detected per file
    local_tz: str | None = None  # the zone of the export's naive times; None: the system zone


@dataclass(frozen=True)
class ImportProgress:
    """The importer's ``progress(done, total)``: files of the export read so far."""

    done: int
    total: int
    source: str = ""


@dataclass
class JobProgress(Message):
    kind: JobKind
    progress: Any
    elapsed: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JobProgress)  # only the latest counts


@dataclass
class JobFinished(Message):
    kind: JobKind
    result: Any
    elapsed: float


@dataclass
class JobFailed(Message):
    kind: JobKind
    error: BaseException


@dataclass
class StatsLoaded(Message):
    stats: Any = None
    error: BaseException | None = None
    sources: list[Any] = field(default_factory=list)  # engine.index.SourceState, each source


@dataclass
class SourcesLoaded(Message):
    """The sources in place (``engine.index.SourceState``) for the sources dialog."""

    sources: list[Any] = field(default_factory=list)
    error: BaseException | None = None


@dataclass
class DiscoverLoaded(Message):
    routes: list[tuple[str, str, int]] = field(default_factory=list)
    pending: list[tuple[str, str]] = field(default_factory=list)
    total: int = 0
    error: BaseException | None = None
    missing: list[str] = field(default_factory=list)  # the prefixes of missing sources


# -- from the app to the main screen (it never reaches into the screen's members) -------------

@dataclass
class JobStarted(Message):
    title: str
    cancellable: bool


@dataclass
class JobCancelling(Message):
    pass


@dataclass
class JobEnded(Message):
    """The job is over; ``refresh``: re-read the overview and search again."""

    refresh: bool


@dataclass
class EmbedderRepaired(Message):
    """A re-embed finished: the semantic arm is back (hybrid mode again)."""


@dataclass
class EmbedderMismatchFound(Message):
    """A job met another embedder's vectors: offer the re-embed (again)."""

    error: BaseException


@dataclass
class ExplainToggled(Message):
    pass


@dataclass
class SourcesChanged(Message):
    """A file may have changed under the results (the editor returned): search again."""


@dataclass
class HeaderChanged(Message):
    """What the header shows changed (watch mode): show it again."""


@dataclass
class StateRestored(Message):
    """The filters and the query history remembered from the last run (``tui/state_file.py``)."""

    filters: dict[str, Any]
    history: list[str]


@dataclass
class WatchReport(Message):
    """An event of the app's watcher (``engine.index.watch``), posted from the watcher's thread."""

    event: Any
