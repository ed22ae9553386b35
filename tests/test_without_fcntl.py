"""memlens where ``fcntl`` does not exist (Windows): every module imports, and the writer lock
runs on ``msvcrt.locking``, here a stand-in over this machine's ``flock`` with Windows's
semantics (a byte-range lock per open file, refused with OSError, no shared mode), in child
processes where ``import fcntl`` fails and paths are written the Windows way
(``MEMLENS_PATH_STYLE``). What cannot be checked here: the real msvcrt, Windows's file system
(docs/platforms.md says so)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from engine.config import load_config
from tests.conftest import REPO, make_root

pytestmark = pytest.mark.slow

# run first in each child: fcntl gone, msvcrt there (its lock checked to sit past the content)
WINDOWS_LIKE = '''
import os, sys, types
import asyncio, getpass, subprocess  # the stdlib takes msvcrt for Windows itself: first
import mcp.server.stdio  # the MCP SDK picks its branch by sys.platform (fcntl only on POSIX)
import fcntl as _flock
sys.modules["fcntl"] = None  # import fcntl raises ImportError from here on
msvcrt = types.ModuleType("msvcrt")
msvcrt.LK_UNLCK, msvcrt.LK_NBLCK = 0, 2
def locking(fd, mode, nbytes):
    assert nbytes == 1 and os.lseek(fd, 0, os.SEEK_CUR) >= 1 << 30, "lock past the content"
    if mode == msvcrt.LK_UNLCK:
        _flock.flock(fd, _flock.LOCK_UN)
        return
    try:
        _flock.flock(fd, _flock.LOCK_EX | _flock.LOCK_NB)
    except BlockingIOError:
        raise PermissionError(13, "Permission denied") from None
msvcrt.locking = locking
sys.modules["msvcrt"] = msvcrt
'''


def child(code: str, *args: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", WINDOWS_LIKE + code, *args], cwd=REPO,
                            env={**os.environ, "PYTHONPATH": str(REPO),
                                 "MEMLENS_PATH_STYLE": "windows"}, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


HOLD = '''
import sys, time
from pathlib import Path
from engine.storage.lock import writer_lock
with writer_lock(Path(sys.argv[1]), "reindex"):
    print("held", flush=True)
    time.sleep(60)
'''

TRY = '''
import sys
from pathlib import Path
from engine.storage import file_lock
from engine.storage.lock import WriterBusy, active_writer, writer_lock
print(file_lock.mechanism(), active_writer(Path(sys.argv[1])))
try:
    with writer_lock(Path(sys.argv[1]), "maintenance"):
        print("got it")
except WriterBusy as exc:
    print("refused:", exc)
'''


def test_one_writer_at_a_time_and_a_killed_ones_lock_is_free(tmp_path):
    db = tmp_path / "memlens.db"
    holder = child(HOLD, str(db))
    try:
        assert holder.stdout.readline().strip() == "held"
        out = child(TRY, str(db)).communicate(timeout=60)[0].splitlines()
        assert out[0] == "msvcrt reindex"
        assert out[1].startswith("refused: a reindex (pid ") and "is already writing" in out[1]
        record = json.loads((tmp_path / "memlens.db.lock").read_text())
        assert record["purpose"] == "reindex"  # readable: the lock sits past the content
        assert (tmp_path / "memlens.db.lock").stat().st_size < 200
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    out = child(TRY, str(db)).communicate(timeout=60)[0].splitlines()
    assert out == ["msvcrt None", "got it"]  # the system dropped the killed holder's lock


USE = '''
import asyncio, importlib, pkgutil, sys
for package in ("engine", "cli", "tui", "mcp_server"):
    module = importlib.import_module(package)
    for info in pkgutil.walk_packages(module.__path__, package + "."):
        if not info.name.endswith(("__main__", "_memlensrank")):  # not Python modules
            importlib.import_module(info.name)
from engine.config import load_config
from engine.indexer import reindex
from engine.searcher import Searcher
config = load_config(sys.argv[1])
print("indexed", reindex(config=config).chunks)
searcher = Searcher(config)
found = searcher.search("harbor bridge").results
print("found", len(found))
from engine.display import shown_path
print("shown", shown_path(found[0].source_file))
searcher.close()
from tui.app import MemlensApp
async def first_screen():
    app = MemlensApp(config)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if "chunks" in app.screen.query_one("#infobar").render().plain:
                break
        print("app", app.screen.query_one("#infobar").render().plain.split("│")[2].strip())
asyncio.run(first_screen())
'''


def test_every_module_imports_and_memlens_indexes_searches_and_opens(tmp_path):
    root = make_root(tmp_path / "root")
    started = time.monotonic()
    out, err = child(USE, str(root)).communicate(timeout=300)
    assert "Traceback" not in err, err[-2000:]
    lines = out.splitlines()
    chunks = int(lines[0].split()[1])
    assert chunks > 0 and int(lines[1].split()[1]) > 0, out
    assert "\\" in lines[2] and "/" not in lines[2], out  # paths shown the Windows way
    assert lines[3] == f"app {chunks} chunks", out
    assert load_config(root).db_path.exists() and time.monotonic() - started < 300
