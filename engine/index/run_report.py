"""What a reindex reports: counts, per-file errors and warnings, progress events."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class FileError:
    source_file: str  # root-relative, plain text (engine.index.walk.display_path); the CLI escapes it
    message: str  # one line


@dataclass
class IndexStats:
    files: int = 0  # files (re)indexed in this run
    chunks: int = 0  # chunks written (new or changed); see pending_embeddings for unembedded
    skipped: int = 0  # files whose mtime had not moved
    unchanged_chunks: int = 0  # chunks in the index this run did not write
    deleted_chunks: int = 0
    removed_files: int = 0  # files gone from disk whose chunks were removed
    embedded: int = 0  # vectors computed in this run (new chunks + pending pass)
    pending_embeddings: int = 0  # chunks still without a vector after the run
    errors: list[FileError] = field(default_factory=list)  # files/folders that could not be read
    warnings: list[FileError] = field(default_factory=list)  # skipped records, refused links
    embedding_errors: list[str] = field(default_factory=list)
    retry_files: int = 0  # files that failed for a reason other than their content: next run
    unlisted_dirs: int = 0  # folders the walk could not list (their files were kept)
    cancelled: bool = False
    re_embedded: bool = False  # a staged re-embed covered the index and took its place
    # a re-embed still staged after the run (engine/index/re_embed.py): how far it got
    re_embed: str | None = None
    # why a re-embed asked for could not start (its embedder gave no vector): nothing staged
    re_embed_error: str | None = None
    re_embed_ran: bool = False  # this run was a re-embed (its time went into embedding)
    # an index of an older schema this run converted: what changed ("schema v10 -> v11; the
    # file 37.1 MB -> 10.3 MB")
    upgraded: str | None = None
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        """The run did not do its job: errors and nothing indexed, a folder that could not
        be listed (what it holds is unknown), or a re-embed that could not start. Every front
        door exits or reports on this."""
        return (bool(self.errors and not self.files) or self.unlisted_dirs > 0
                or self.re_embed_error is not None)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Progress:
    # "migrate" (an older index upgraded, once) | "compact" (the space a migration freed handed
    # back, once: engine/maintenance.py) | "scan" | "remove" | "index" | "pending" |
    # "messages" (engine/vectors/message_vectors.py) | "re-embed" (engine/index/re_embed.py:
    # pending_done of pending_total chunks staged) | "done"
    phase: str
    files_total: int = 0
    files_done: int = 0
    chunks_embedded: int = 0
    current_file: str | None = None
    pending_total: int = 0
    pending_done: int = 0
