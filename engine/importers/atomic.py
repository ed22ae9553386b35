"""Writing data-layer files so that a crash or a full disk never leaves half a file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def atomic_write(path: Path, data: bytes) -> None:
    """Write via a temp file in the same folder + fsync + os.replace (never half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=_temp_prefix(path), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(path.parent)
    _drop_stale_temps(path)


STALE_TEMP_S = 60  # a temp file this much older than the write it was for: its writer died
TEMP_NAME_CHARS = 100  # of the file's name in its temp file's: a name of 255 bytes stays legal


def _temp_prefix(path: Path) -> str:
    return f".{path.name[:TEMP_NAME_CHARS]}."


# a folder -> the temp files it held when this process first wrote into it: a killed write's
# (one listing a folder, not one a write: an import writes thousands of files into one)
_LEFT_BEHIND: dict[Path, set[str]] = {}


def _drop_stale_temps(path: Path) -> None:
    """Temp files an earlier write of ``path`` left when it was killed (a write that is still
    going has a temp file about as new as ``path``, so it is left alone)."""
    folder = path.parent
    if folder not in _LEFT_BEHIND:
        try:
            with os.scandir(folder) as entries:
                _LEFT_BEHIND[folder] = {e.name for e in entries
                                        if e.name.startswith(".") and e.name.endswith(".tmp")}
        except OSError:
            _LEFT_BEHIND[folder] = set()
    left = _LEFT_BEHIND[folder]
    prefix = _temp_prefix(path)
    for name in [n for n in left if n.startswith(prefix)]:
        left.discard(name)
        try:
            if (folder / name).stat().st_mtime < path.stat().st_mtime - STALE_TEMP_S:
                (folder / name).unlink()
        except OSError:
            pass  # tidying only: the write itself is done


def append_bytes(path: Path, data: bytes) -> None:
    """One write of all new lines, then fsync; a failed append (disk full) is cut off again,
    so the log never ends in half a line."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        size = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        except BaseException:
            os.ftruncate(fd, size)
            raise
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
