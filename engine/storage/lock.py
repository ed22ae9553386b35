"""The single-writer lock: one reindex or maintenance run per index at a time.

An advisory lock on ``<db>.lock`` (engine/storage/file_lock.py: ``flock``, or ``msvcrt.locking``
on Windows): the operating system drops it when the holder dies (even by SIGKILL), so a crash
never leaves a stale lock behind. The file records who holds it, which
lets a refused writer (and the UI/MCP ``index_transition`` line) say what is running.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.dates import clock
from engine.storage import file_lock


class WriterBusy(RuntimeError):
    """Another process (or thread) is already writing to this index: ``holder`` says who
    (e.g. "a reindex (pid 7714, since 10:02:11)"), ``purpose`` what ("reindex")."""

    def __init__(self, message: str, holder: str = "another memlens writer",
                 purpose: str | None = None):
        super().__init__(message)
        self.holder = holder
        self.purpose = purpose


def lock_path(db_path: Path) -> Path:
    return Path(str(db_path) + ".lock")


def _holder(path: Path) -> dict:
    try:
        return json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return {}


def _describe(holder: dict) -> str:
    if not holder:
        return "another memlens writer"
    started = time.strftime("%H:%M:%S", time.localtime(holder.get("started", 0)))
    return f"a {holder.get('purpose', 'write')} (pid {holder.get('pid', '?')}, since {started})"


@contextmanager
def writer_lock(db_path: Path, purpose: str) -> Iterator[None]:
    """Hold the index's writer lock for ``purpose`` or raise :class:`WriterBusy` at once."""
    path = lock_path(db_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o644)
    try:
        if not file_lock.try_lock(fd):
            holder = _holder(path)
            raise WriterBusy(
                f"{_describe(holder)} is already writing to {db_path}; "
                f"wait for it to finish and try again", _describe(holder),
                holder.get("purpose")) from None
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)  # msvcrt's lock moved the file position past the end
        os.write(fd, json.dumps(
            {"purpose": purpose, "pid": os.getpid(), "started": clock.now().timestamp()}).encode())
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            file_lock.unlock(fd)
    finally:
        os.close(fd)


def active_writer(db_path: Path) -> str | None:
    """What is writing to the index right now (e.g. ``"reindex"``), or None."""
    path = lock_path(db_path)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # none, or not ours to read: searching takes no lock, it goes on
        return None
    try:
        if not file_lock.try_lock(fd, shared=True):
            return _holder(path).get("purpose", "write")
        file_lock.unlock(fd)
        return None
    finally:
        os.close(fd)
