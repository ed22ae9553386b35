"""SQLite connections that can load sqlite-vec.

The stdlib ``sqlite3`` of many Pythons (this machine's, most macOS system Pythons) is built
without ``enable_load_extension``, so sqlite-vec cannot be loaded through it. ``sqlean.py`` is a
drop-in ``sqlite3`` with its own modern SQLite (FTS5 included) and extension loading on Linux,
macOS and Windows wheels; it is the driver used here.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlean as sqlite3

Connection = sqlite3.Connection
Error = sqlite3.Error
OperationalError = sqlite3.OperationalError
IntegrityError = sqlite3.IntegrityError
Row = sqlite3.Row


class ExtensionUnavailable(RuntimeError):
    """sqlite-vec could not be loaded into the SQLite connection."""


def load_vec(conn: Connection) -> None:
    """Load sqlite-vec, or raise one clear error that says why and what to do."""
    try:
        import sqlite_vec
    except ImportError as exc:  # pragma: no cover - a broken install
        raise ExtensionUnavailable(
            "sqlite-vec is not installed; reinstall memlens (pip install memlens)"
        ) from exc
    if not hasattr(conn, "enable_load_extension"):  # pragma: no cover - driver without it
        raise ExtensionUnavailable(
            "this SQLite driver cannot load extensions, so sqlite-vec cannot be used; "
            "install memlens with its own dependencies (sqlean.py) in a fresh virtualenv"
        )
    try:
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
    except (AttributeError, sqlite3.OperationalError) as exc:
        raise ExtensionUnavailable(
            f"sqlite-vec failed to load ({exc}); its wheel may not match this platform "
            f"({sqlite_vec.loadable_path()}). Reinstall sqlite-vec for this platform."
        ) from exc
    finally:
        try:
            conn.enable_load_extension(False)
        except Exception:  # noqa: BLE001 - best effort hardening
            pass


def connect(path: str | Path, *, readonly: bool = False, timeout: float = 10.0,
            mmap: bool = True) -> Connection:
    """Open the index with sqlite-vec loaded, WAL journaling and synchronous=NORMAL.

    Readers keep searching while a writer works because of WAL; ``busy_timeout`` covers the
    short moments a checkpoint needs the lock. ``mmap=False`` keeps a long writer's resident
    memory flat (mapped pages count as RSS and would grow with the file).
    """
    path = Path(path)
    if readonly:
        if not path.exists():
            raise FileNotFoundError(f"no index at {path}: run `memlens reindex` first")
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout,
                               check_same_thread=False)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.isolation_level = None  # explicit transactions only: see transaction()
    load_vec(conn)
    conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
    if not readonly:
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -65536")  # 64 MiB page cache
    conn.execute(f"PRAGMA mmap_size = {1 << 30 if mmap else 0}")
    return conn


@contextmanager
def transaction(conn: Connection, *, immediate: bool = True) -> Iterator[Connection]:
    """One atomic unit of work: committed whole or rolled back whole (also on SIGKILL)."""
    conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
    try:
        yield conn
    except BaseException:
        if conn.in_transaction:  # SQLite already rolled back on a full disk or I/O error
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
