"""Adding, listing and removing sources in place (engine/index/sources.py): the one
implementation behind ``memlens source`` and the app's menu.

A change edits ``<root>/memlens.toml`` with ``tomlkit`` (the user's comments and layout kept),
is checked by reading the whole file back as every command will, and is written atomically
(a temporary file renamed over it): a refused change leaves the file as it was. Changes are
serialized: each holds a lock on the root folder while it reads the file again, checks the
change against what it says now (two `memlens source add` at once both land) and writes it.
Indexing the change is the caller's next step, an ordinary reindex (a removed source's chunks
are deleted by it, engine/scanner.py).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from engine.config import Config, ConfigError, is_demo_root, load_config, overlap_problem
from engine.config_check import FILENAME
from engine.display import UnknownSourceType, plural, resolve_source_type
from engine.index.protected import Protected, source_folder
from engine.index.routes import SOURCE_TYPES
from engine.index.sources import (
    PREFIX,
    Source,
    as_name,
    check_name,
    default_name,
    ignore_pattern,
)
from engine.index.walk import display_path
from engine.index.warnings_seen import known_warnings
from engine.storage import file_lock

EDIT_WAIT_S = 10.0  # how long an edit waits for another one to finish
EMPTY_CONFIG = "# memlens configuration: README \"Configuration\" lists what may go here\n"


class SourceRefused(ConfigError):
    """A source that cannot be added or removed as asked (its folder, type, name or ignore
    globs; the demo root; no such source), as one line: bad input, exit 2 in the CLI."""


class SourceEditFailed(SourceRefused):
    """A change that was fine as asked but could not be made: memlens.toml cannot be read or
    written, another edit holds it, or it is gone while the index holds sources (exit 1)."""


@dataclass(frozen=True)
class NotIndexed:
    """One of a source's files that the index holds no chunk of, and why, in words."""

    rel: str  # @name/path
    why: str


EMPTY = "empty"
NOTHING_TO_INDEX = "read, holds nothing its source type indexes"
NOT_YET = "not indexed yet (run `memlens reindex`)"
CHANGED = "changed since the last reindex (run `memlens reindex`)"


@dataclass(frozen=True)
class SourceState:
    """A declared source as `memlens source list`, `stats`, `discover` and the app's menu show
    it: the one count of its files (:func:`source_states`) every view prints."""

    name: str
    source_type: str
    path: str  # as configured
    present: bool  # its folder is there now
    # the files of the source: what its routes take in its folder now (the walk of `memlens
    # discover`: its ignore rules, dot-files and refused links left out); while its folder is
    # not read, the files the index holds of it
    files: int
    chunks: int  # indexed chunks
    ignore: tuple[str, ...] = ()
    why: str = ""  # why its folder is not read now (engine/index/sources.py), else ""
    # its files the index holds no chunk of (empty, binary, not indexed yet...), each with why
    not_indexed: tuple[NotIndexed, ...] = ()
    # what the last reindex's walk of it left out, each with why: a name this system cannot
    # open, a link leading out, a FIFO... (not among ``files``)
    not_read: tuple[NotIndexed, ...] = ()

    @property
    def indexed(self) -> int:
        """Its files with chunks in the index."""
        return self.files - len(self.not_indexed)

    @property
    def state(self) -> str:
        """"" when its folder is read, else what every view shows beside it."""
        return "" if self.present else f"not read now: {self.why}"

    @property
    def counts(self) -> str:
        """``7 files, 2 not indexed``; ``1 file`` when every one is indexed; ``; 3 names not
        read`` after, when its walk left some out."""
        text = plural(self.files, "file")
        text = f"{text}, {len(self.not_indexed):,} not indexed" if self.not_indexed else text
        return f"{text}; {plural(len(self.not_read), 'name')} not read" if self.not_read else text

    def to_dict(self) -> dict:
        return {"name": self.name, "source_type": self.source_type, "path": self.path,
                "present": self.present, "files": self.files, "indexed": self.indexed,
                "chunks": self.chunks, "ignore": list(self.ignore), "why": self.why,
                "not_indexed": [{"source_file": n.rel, "why": n.why}
                                for n in self.not_indexed],
                "not_read": [{"source_file": n.rel, "why": n.why} for n in self.not_read]}


def demo_root_takes_no_source() -> SourceRefused:
    """Why no source is added to the demo root: the one line every front door says."""
    return SourceRefused("the demo root owns its configuration: add sources to a root of your "
                         "own (--root PATH)")


def add_source(config: Config, path: str | Path, source_type: str, name: str | None = None,
               ignore: tuple[str, ...] = ()) -> Source:
    """Declare the folder ``path`` as a source of ``source_type``; returns it as loaded."""
    if is_demo_root(config.root):
        raise demo_root_takes_no_source()
    if not str(path).strip():
        raise SourceRefused("the folder's path is empty: give the folder to index")
    folder = Path(os.path.abspath(Path(path).expanduser()))
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        raise SourceRefused(f"the folder's path is not valid UTF-8 (rename it): "
                            f"{display_path(str(folder))}") from None
    if not folder.is_dir():
        raise SourceRefused(f"not a folder: {folder}" if folder.exists() else
                            f"no such folder: {folder}")
    try:
        source_type = resolve_source_type(source_type, SOURCE_TYPES)
    except UnknownSourceType as exc:
        raise SourceRefused(str(exc)) from None
    for glob in ignore:
        if ignore_pattern(glob) is None:
            raise SourceRefused(f"--ignore {glob!r} is not a valid gitignore pattern")
    with _editing(config) as current:
        if not (current.root / FILENAME).exists() and (held := _indexed_sources(current)):
            raise SourceEditFailed(f"{FILENAME} is gone from the data root, but the index holds "
                                f"files of {plural(len(held), 'source')} ({', '.join(held)}): "
                                "restore it first (a new one would drop them)")
        taken = {s.name for s in current.sources}
        name = default_name(folder, taken) if name is None else as_name(name)
        if (why := check_name(name)) is not None:
            raise SourceRefused(why)
        if name in taken:
            raise SourceRefused(f"a source named {name!r} exists; choose another --name")
        source = Source(name, folder, source_type, tuple(ignore))
        if Protected(current.root, current.db_path).holds(folder):
            raise SourceRefused(f"{folder} leads to the data root's secrets or index, which "
                                "are never indexed")
        if (why := overlap_problem(source, current.root, current.sources,
                                   current.db_path)) is not None:
            raise SourceRefused(f"{folder} {why}")

        def change(doc) -> None:
            import tomlkit

            table = tomlkit.table()
            table["path"] = str(folder)
            table["type"] = source_type
            if ignore:
                table["ignore"] = list(ignore)
            if "sources" not in doc:
                doc["sources"] = tomlkit.table(is_super_table=True)
            doc["sources"][name] = table

        loaded = _edit(current, change)
    return next(s for s in loaded.sources if s.name == name)


def remove_source(config: Config, name: str) -> Source:
    """Forget the source ``name``; its chunks go at the next reindex."""
    name = as_name(name)
    with _editing(config) as current:
        source = next((s for s in current.sources if s.name == name), None)
        if source is None:
            known = ", ".join(s.name for s in current.sources) or "none"
            raise SourceRefused(f"no source named {name!r} (sources: {known})")

        def change(doc) -> None:
            del doc["sources"][name]
            if not doc["sources"]:
                del doc["sources"]

        _edit(current, change)
    return source


def _indexed_sources(config: Config) -> list[str]:
    """The names of the sources the index holds files of (none without an index)."""
    from engine.storage.db import connect

    if not config.db_path.exists():
        return []
    try:
        conn = connect(config.db_path, readonly=True)
    except Exception:  # noqa: BLE001 - no readable index: nothing it holds can be lost
        return []
    try:
        return [row[0] for row in conn.execute(
            "SELECT DISTINCT substr(source_file, 2, instr(source_file, '/') - 2) FROM chunks "
            "WHERE source_file >= ? AND source_file < ? ORDER BY 1", (PREFIX, "A"))]
    except Exception:  # noqa: BLE001 - an index without tables yet
        return []
    finally:
        conn.close()


def _edit_lock_target(config: Config) -> int:
    try:
        return os.open(config.root, os.O_RDONLY)
    except PermissionError:  # Windows opens no folder this way
        if os.name != "nt":
            raise
    path = Path(f"{config.db_path}.edit-lock")
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)


@contextmanager
def _editing(config: Config) -> Iterator[Config]:
    """The configuration as memlens.toml says now, read under the root's edit lock, held
    until the change is written: a lock on the root folder itself (no file of ours in it; the
    system drops it when the holder dies), or where a folder cannot be opened (Windows) on
    the index's lock file's sibling ``<db>.edit-lock``."""
    try:
        fd = _edit_lock_target(config)
    except OSError as exc:
        raise SourceEditFailed(f"{FILENAME}: cannot be edited ({exc.strerror or exc})") from None
    try:
        deadline = time.monotonic() + EDIT_WAIT_S
        while not file_lock.try_lock(fd):
            if time.monotonic() > deadline:
                raise SourceEditFailed(f"another memlens is editing {FILENAME} (for over "
                                       f"{EDIT_WAIT_S:.0f}s); try again") from None
            time.sleep(0.02)
        try:
            yield load_config(config.root, config.db_path)
        finally:
            file_lock.unlock(fd)
    finally:
        os.close(fd)


def source_states(config: Config, conn=None, files=None) -> list[SourceState]:
    """Each declared source with its folder's state, its files now and what the index holds
    of them: THE count of a source's files. ``files``: the SourceFiles of
    ``engine.scanner.discover_files`` when the caller has walked already (else each source
    folder is walked here). A file is indexed when the index holds a chunk of it; of the
    others the index's record says why (its error, e.g. binary; read but nothing to index),
    else its size 0 (empty) or that no reindex has read it yet. No file is opened."""
    from engine.scanner import source_files_now

    walked: dict[str, list] = {}
    if files is not None:
        for f in files:
            if f.rel.startswith(PREFIX):
                walked.setdefault(f.rel[1:].partition("/")[0], []).append(f)
    states = []
    said = (known_warnings(conn) or []) if conn is not None else []
    for s in config.sources:
        folder = source_folder(config, s)
        chunks, records = _held(conn, s.prefix)
        not_read = tuple(NotIndexed(w["source_file"], w["message"]) for w in said
                         if w["source_file"].startswith(s.prefix) and not w.get("read")
                         and w["source_file"] != s.prefix)
        if folder.real is None:  # not read now: its indexed files are kept, counted as such
            now, missing = [rel for rel, n in chunks.items() if n], ()
        else:
            now = (walked.get(s.name, []) if files is not None
                   else list(source_files_now(config, s, folder.real)))
            missing = tuple(NotIndexed(f.rel, why) for f in now
                            if (why := _not_indexed(f, chunks.get(f.rel, 0),
                                                    records.get(f.rel))) is not None)
        states.append(SourceState(s.name, s.source_type, str(s.path), folder.real is not None,
                                  len(now), sum(chunks.values()), ignore=s.ignore,
                                  why=folder.why, not_indexed=missing, not_read=not_read))
    return states


def _held(conn, prefix: str) -> tuple[dict[str, int], dict[str, tuple]]:
    """What the index holds under ``prefix`` (``@name/``): chunks per file, and each file's
    record (mtime, error)."""
    if conn is None:
        return {}, {}
    span = (prefix, prefix[:-1] + "0")  # '0' follows '/': every path under the prefix
    chunks = dict(conn.execute("SELECT source_file, count(*) FROM chunks WHERE source_file "
                               ">= ? AND source_file < ? GROUP BY source_file", span).fetchall())
    records = {r[0]: (r[1], r[2]) for r in conn.execute(
        "SELECT source_file, mtime, error FROM index_state WHERE source_file >= ? AND "
        "source_file < ?", span)}
    return chunks, records


def _not_indexed(f, chunks: int, record: tuple | None) -> str | None:
    """Why the index holds no chunk of the file ``f`` (a SourceFile), or None when it does."""
    if chunks:
        return None
    if f.size == 0:
        return EMPTY
    if record is None:
        return NOT_YET
    mtime, error = record
    if mtime != f.mtime:
        return CHANGED
    if error:  # the reindex's own words ("... looks like binary data ...; not indexed")
        return error.removesuffix("; not indexed")
    return NOTHING_TO_INDEX


def _edit(config: Config, change) -> Config:
    """Apply ``change`` to the parsed memlens.toml, check the result loads, write it."""
    import tomlkit

    path = config.root / FILENAME
    try:
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        doc = tomlkit.parse(before)
    except (OSError, ValueError) as exc:
        raise SourceEditFailed(f"{FILENAME}: cannot be read ({exc})") from None
    change(doc)
    # never blank: an empty memlens.toml is what a sync tool leaves while writing it, which a
    # watch and a reindex read as "nothing known" (engine/config.py, config_missing), not as
    # "no sources" (the last one removed)
    after = tomlkit.dumps(doc)
    if not after.strip():
        after = EMPTY_CONFIG
    try:
        fd, tmp = tempfile.mkstemp(prefix=".memlens-", suffix=".toml", dir=config.root)
    except OSError as exc:
        raise SourceEditFailed(f"{FILENAME}: cannot be written ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(after)
            out.flush()
            os.fsync(out.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise SourceEditFailed(f"{FILENAME}: cannot be written ({exc.strerror or exc})") from None
    try:
        return load_config(config.root, config.db_path)
    except ConfigError:
        path.write_text(before, encoding="utf-8")  # never leave a file no command can read
        raise
