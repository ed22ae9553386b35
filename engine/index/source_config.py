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

import fcntl
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
from engine.index.sources import PREFIX, Source, check_name, default_name, ignore_pattern
from engine.index.walk import display_path

EDIT_WAIT_S = 10.0  # how long an edit waits for another one to finish
EMPTY_CONFIG = "# memlens configuration: README \"Configuration\" lists what may go here\n"


class SourceRefused(ConfigError):
    """A source that cannot be added or removed, as one line."""


@dataclass(frozen=True)
class SourceState:
    """A declared source as `memlens source list` and the app's menu show it."""

    name: str
    source_type: str
    path: str  # as configured
    present: bool  # its folder is there now
    files: int  # indexed files
    chunks: int  # indexed chunks
    ignore: tuple[str, ...] = ()
    why: str = ""  # why its folder is not read now (engine/index/sources.py), else ""

    @property
    def state(self) -> str:
        """"" when its folder is read, else what every view shows beside it."""
        return "" if self.present else f"not read now: {self.why}"


def add_source(config: Config, path: str | Path, source_type: str, name: str | None = None,
               ignore: tuple[str, ...] = ()) -> Source:
    """Declare the folder ``path`` as a source of ``source_type``; returns it as loaded."""
    if is_demo_root(config.root):
        raise SourceRefused("the demo root owns its configuration: add sources to a root of "
                            "your own (--root PATH)")
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
            raise SourceRefused(f"{FILENAME} is gone from the data root, but the index holds "
                                f"files of {plural(len(held), 'source')} ({', '.join(held)}): "
                                "restore it first (a new one would drop them)")
        taken = {s.name for s in current.sources}
        name = default_name(folder, taken) if name is None else name
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


@contextmanager
def _editing(config: Config) -> Iterator[Config]:
    """The configuration as memlens.toml says now, read under the root's edit lock, held
    until the change is written: a ``flock`` on the root folder itself (no file of ours in
    it; the kernel drops it when the holder dies)."""
    try:
        fd = os.open(config.root, os.O_RDONLY)
    except OSError as exc:
        raise SourceRefused(f"{FILENAME}: cannot be edited ({exc.strerror or exc})") from None
    try:
        deadline = time.monotonic() + EDIT_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SourceRefused(f"another memlens is editing {FILENAME} (for over "
                                        f"{EDIT_WAIT_S:.0f}s); try again") from None
                time.sleep(0.02)
        try:
            yield load_config(config.root, config.db_path)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def source_states(config: Config, conn=None) -> list[SourceState]:
    """Each declared source with its folder's state and what the index holds of it."""
    counts: dict[str, tuple[int, int]] = {}
    if conn is not None:  # '@' < 'A': the source paths are one range of the index
        for name, files, chunks in conn.execute(
                "SELECT substr(source_file, 2, instr(source_file, '/') - 2) AS name, "
                "count(DISTINCT source_file), count(*) FROM chunks "
                "WHERE source_file >= ? AND source_file < ? GROUP BY name", (PREFIX, "A")):
            counts[name] = (files, chunks)
    states = []
    for s in config.sources:
        folder = source_folder(config, s)
        states.append(SourceState(s.name, s.source_type, str(s.path), folder.real is not None,
                                  *counts.get(s.name, (0, 0)), ignore=s.ignore,
                                  why=folder.why))
    return states


def _edit(config: Config, change) -> Config:
    """Apply ``change`` to the parsed memlens.toml, check the result loads, write it."""
    import tomlkit

    path = config.root / FILENAME
    try:
        before = path.read_text(encoding="utf-8") if path.exists() else ""
        doc = tomlkit.parse(before)
    except (OSError, ValueError) as exc:
        raise SourceRefused(f"{FILENAME}: cannot be read ({exc})") from None
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
        raise SourceRefused(f"{FILENAME}: cannot be written ({exc.strerror or exc})") from None
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
        raise SourceRefused(f"{FILENAME}: cannot be written ({exc.strerror or exc})") from None
    try:
        return load_config(config.root, config.db_path)
    except ConfigError:
        path.write_text(before, encoding="utf-8")  # never leave a file no command can read
        raise
