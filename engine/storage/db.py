"""SQLite connections: WAL, one clear line for every file that is not a usable index.

The stdlib ``sqlite3`` of many Pythons (this machine's, most macOS system Pythons) is built
without ``enable_load_extension``, so no extension can be loaded through it. ``sqlean.py`` is a
drop-in ``sqlite3`` with its own modern SQLite (FTS5 included) and extension loading on Linux,
macOS and Windows wheels; it is the driver used here. Search and writes need no extension
beyond memlens's own optional bm25 (engine/storage/rank_extension.py).
"""

from __future__ import annotations

import errno
import functools
import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import sqlean as sqlite3

from engine.storage import rank_extension


class Connection(sqlite3.Connection):
    """A connection that knows which of memlens's own SQL functions it has."""

    rank_extension = False  # memlens_bm25 is loaded (engine/storage/rank_extension.py)


Error = sqlite3.Error
OperationalError = sqlite3.OperationalError
IntegrityError = sqlite3.IntegrityError
Row = sqlite3.Row


class ExtensionUnavailable(RuntimeError):
    """sqlite-vec could not be loaded into the SQLite connection."""


@functools.cache
def _vec0_path() -> str | None:
    """The sqlite-vec wheel's loadable extension, found without importing its package (whose
    import pulls in numpy)."""
    spec = importlib.util.find_spec("sqlite_vec")
    if spec is None or not spec.submodule_search_locations:
        return None
    return os.path.join(next(iter(spec.submodule_search_locations)), "vec0")


@contextmanager
def _extension_loading(conn: Connection) -> Iterator[None]:
    conn.enable_load_extension(True)
    try:
        yield
    finally:
        try:
            conn.enable_load_extension(False)
        except Exception:  # noqa: BLE001 - best effort hardening
            pass


def load_extensions(conn: Connection) -> None:
    """memlens's bm25 with known counts, when it was built (engine/storage/rank_extension.py);
    nothing else: a connection never needs sqlite-vec to search or write."""
    if not isinstance(conn, Connection) or not hasattr(conn, "enable_load_extension"):
        return  # pragma: no cover - a driver without extension loading: FTS5's bm25 serves
    with _extension_loading(conn):
        conn.rank_extension = rank_extension.load(conn)


def load_sqlite_vec(conn: Connection) -> None:
    """Load sqlite-vec, or raise one clear error saying why and what to do. Needed only to
    remove the vec0 table an index written by an older memlens holds (engine/schema_migrations.py)
    and by tests that compare with its exact search."""
    vec0 = _vec0_path()
    if vec0 is None:
        raise ExtensionUnavailable("sqlite-vec is not installed: pip install sqlite-vec")
    if not hasattr(conn, "enable_load_extension"):  # pragma: no cover - driver without it
        raise ExtensionUnavailable("this SQLite driver cannot load extensions (sqlite-vec)")
    try:
        with _extension_loading(conn):
            conn.load_extension(vec0)
    except (AttributeError, sqlite3.OperationalError) as exc:
        raise ExtensionUnavailable(
            f"sqlite-vec failed to load ({exc}); its wheel may not match this platform "
            f"({vec0}): reinstall sqlite-vec for this platform") from exc


class IndexUnavailable(RuntimeError):
    """The index file cannot be used: the message is one line saying why and what to do."""


class IndexMissing(IndexUnavailable, FileNotFoundError):
    """There is no index file yet."""


def connect(path: str | Path, *, readonly: bool = False, timeout: float = 10.0,
            mmap: bool = True) -> Connection:
    """Open the index with WAL journaling and synchronous=NORMAL.

    Readers keep searching while a writer works because of WAL; ``busy_timeout`` covers the
    short moments a checkpoint needs the lock. ``mmap=False`` keeps a long writer's resident
    memory flat (mapped pages count as RSS and would grow with the file). ``readonly`` opens
    with ``mode=ro``: nothing is ever written, so a read-only root or index can be searched.
    A file that is not a usable index raises :class:`IndexUnavailable` (docs/reliability.md).
    """
    path = Path(path)
    if path.is_dir():
        raise IndexUnavailable(f"{path} is a directory, not an index file: move it away or "
                               "point --db at a file")
    if readonly:
        conn = _open_readonly(path, timeout)
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IndexUnavailable(
                f"cannot create the index folder: {describe_os_error(exc)}") from exc
        try:
            conn = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False,
                                   factory=Connection)
        except sqlite3.Error as exc:
            raise IndexUnavailable(describe_db_error(exc, path)) from exc
    try:
        conn.row_factory = sqlite3.Row
        conn.isolation_level = None  # explicit transactions only: see transaction()
        load_extensions(conn)
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        if not readonly:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA cache_size = -65536")  # 64 MiB page cache
        conn.execute(f"PRAGMA mmap_size = {1 << 30 if mmap else 0}")
    except sqlite3.Error as exc:
        conn.close()
        raise IndexUnavailable(describe_db_error(exc, path)) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def _uri(path: Path, **params: object) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"file:{quote(os.fsencode(path.absolute()))}?{query}"


def _probe(conn: Connection) -> None:
    """Read the header and the schema: a garbage file fails here, not in the first search."""
    conn.execute("PRAGMA user_version").fetchone()
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()


def _probed(open_) -> Connection:
    conn = open_()
    try:
        _probe(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def _open_readonly(path: Path, timeout: float) -> Connection:
    if not path.exists():
        raise IndexMissing(f"no index at {path}: run `memlens reindex` first")

    def open_(**extra: object) -> Connection:
        return sqlite3.connect(_uri(path, mode="ro", **extra), uri=True, timeout=timeout,
                               check_same_thread=False, factory=Connection)

    try:
        return _probed(open_)
    except sqlite3.Error as exc:
        # how SQLite says it cannot create the -shm file next to a WAL index
        no_shm = "unable to open" in str(exc) or "readonly database" in str(exc)
        if not no_shm or not os.access(path, os.R_OK):
            raise IndexUnavailable(describe_db_error(exc, path)) from exc
        if _wal_bytes(path):
            raise IndexUnavailable(
                f"cannot read {path}: its folder is read-only and {path.name}-wal holds "
                "writes not yet merged into it; open it once with write access to that "
                "folder (any memlens search does)") from exc
    # A WAL index in a folder this process cannot write: the -shm file cannot be created.
    # With no -wal file every committed page is in the main file, so it is read as immutable
    # (a writer running as another user meanwhile is seen at the next open only).
    try:
        return _probed(lambda: open_(immutable=1))
    except sqlite3.Error as exc:
        raise IndexUnavailable(describe_db_error(exc, path)) from exc


def _wal_bytes(path: Path) -> int:
    try:
        return os.stat(f"{path}-wal").st_size
    except OSError:
        return 0


def describe_db_error(exc: BaseException, path: Path) -> str:
    """One line for an SQLite failure on the index at ``path``: what happened, what to do."""
    text = str(exc)
    low = text.lower()
    if "not a database" in low:
        return (f"{path} is not a memlens index (not an SQLite database, or its header is "
                "damaged): move it away and run `memlens reindex` to build a new one")
    if "malformed" in low or "corrupt" in low:
        return (f"{path} is damaged ({text}): move it away and run `memlens reindex` to "
                "rebuild it")
    if "disk is full" in low:
        return (f"the disk holding {path} is full: free some space and run again (what was "
                "committed before is kept)")
    if "readonly database" in low or "read-only" in low:
        return (f"{path} is read-only: search works, but reindex needs write access to the "
                "index file and its folder")
    if "unable to open" in low:
        if path.exists() and not os.access(path, os.R_OK):
            return f"cannot read {path}: permission denied"
        return f"cannot open {path}: its folder is missing or not writable"
    if "locked" in low or "busy" in low:
        return f"{path} is locked by another process ({text}): try again"
    return f"{path}: {text}"


def describe_os_error(exc: OSError) -> str:
    """One line for a file-system failure: the reason first, then the file."""
    where = f": {exc.filename}" if exc.filename else ""
    reasons = {
        errno.ENOSPC: "no space left on device (free some space and run again)",
        errno.EDQUOT: "disk quota exceeded (free some space and run again)",
        errno.EROFS: "read-only file system",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted",
        errno.ENAMETOOLONG: "file name too long",
    }
    return reasons.get(exc.errno, exc.strerror or str(exc)) + where


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


# -- FTS5 records ------------------------------------------------------------------------------

# The few FTS5 records memlens reads directly: each is a run of SQLite varints.
#
# The averages record (``<table>_data`` id 1) holds the row count, then each column's token
# total; a ``<table>_docsize`` row holds one row's token count per column. FTS5's bm25 reads
# its N and average length from the first (engine/retrieval/keyword_arm.py, engine/retrieval/word_bm25.py,
# engine/retrieval/cjk.py).

def varints(blob: bytes, count: int | None = None) -> list[int]:
    """The first ``count`` (default: every) big-endian varints of ``blob``."""
    out, i = [], 0
    while (count is None or len(out) < count) and i < len(blob):
        value = 0
        for k in range(9):
            byte = blob[i]
            i += 1
            if k == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if not byte & 0x80:
                break
        out.append(value)
    return out


def averages(conn: Connection, table: str = "chunks_fts") -> list[int]:
    """[rows, tokens of column 0, tokens of column 1, ...]; [] for an empty index."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return varints(row[0]) if row and row[0] else []
