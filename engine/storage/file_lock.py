"""Advisory locks the operating system drops when their holder dies (even by SIGKILL), so a
crash never leaves a stale lock behind; the mechanism is chosen at run time, never imported
where it does not exist: ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows.

Both lock per open file (a second ``open`` of the same file in the same process is refused
too), which is what keeps a reindex job and the watcher of one app from writing at once.
``msvcrt.locking`` locks a byte range and has no shared mode: it locks one byte far past the
end of the file (Windows allows that), so the holder's record in the file stays readable, and
a probe takes the same lock for a moment.
"""

from __future__ import annotations

import importlib
import os

_FAR = 1 << 30  # the byte msvcrt locks: past any content, so reading the file is never refused


def _module(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


class NoLocking(RuntimeError):
    """This platform offers neither mechanism: a writer could not keep another out."""


def mechanism() -> str:
    """"flock" or "msvcrt"; raises :class:`NoLocking` (one line) when neither exists."""
    if _module("fcntl") is not None:
        return "flock"
    if _module("msvcrt") is not None:
        return "msvcrt"
    raise NoLocking("this Python has neither fcntl nor msvcrt: memlens cannot keep two "
                    "writers from one index")


def try_lock(fd: int, shared: bool = False) -> bool:
    """Lock the open file ``fd`` without waiting; False when another holder has it."""
    if (fcntl := _module("fcntl")) is not None:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    if (msvcrt := _module("msvcrt")) is not None:
        os.lseek(fd, _FAR, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    raise NoLocking(mechanism())  # pragma: no cover - mechanism() raised already


def unlock(fd: int) -> None:
    if (fcntl := _module("fcntl")) is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
    elif (msvcrt := _module("msvcrt")) is not None:
        os.lseek(fd, _FAR, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
