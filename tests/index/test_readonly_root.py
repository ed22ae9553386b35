"""A read-only data root: search, stats and MCP work, reindex refuses in one line.

Root ignores permission bits, so as root the commands run as root without capabilities (an
empty bounding set, setpriv): permission bits then apply to it, and the checkout it imports
from may sit anywhere (a clone in a 0700 folder). The test is skipped, with the reason, only
when that is impossible.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import REPO, clock_env, make_root

MCP_SNIPPET = """
import json, sys
from engine.config import load_config
from engine.storage.db import connect
from mcp_server.tools import MemlensTools
tools = MemlensTools(load_config(sys.argv[1]))
print(json.dumps([tools.call(name, args) for name, args in (
    ("keyword_search", {"query": "harbor"}), ("hybrid_search", {"query": "dahlias"}),
    ("index_status", {}), ("read_note", {"path": "notes/home/garden.md"}))]))
tools.close()
"""


def unprivileged() -> list[str]:
    """The prefix that runs a command without the power to ignore permission bits."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    prefix = [setpriv, "--bounding-set=-all", "--"] if setpriv else []
    if prefix and _bits_apply(prefix):
        return prefix
    reason = ("running as root, which ignores permission bits, and "
              + ("setpriv is missing" if not setpriv else "setpriv cannot drop root's "
                 "capabilities here") + ": the read-only root cannot be tested")
    print(reason, file=sys.stderr)
    pytest.skip(reason)


def _bits_apply(prefix: list[str]) -> bool:
    """Whether a command run under ``prefix`` is refused a file its mode refuses."""
    with tempfile.NamedTemporaryFile() as probe:
        os.chmod(probe.name, 0)
        try:
            done = subprocess.run([*prefix, sys.executable, "-c",
                                   f"import os, sys; sys.exit(os.access({probe.name!r}, "
                                   "os.R_OK))"], capture_output=True, timeout=60)
        except OSError:
            return False
        return done.returncode == 0


def chmod_tree(top: Path, writable: bool) -> None:
    for dirpath, _dirs, filenames in os.walk(top):
        for name in filenames:
            p = Path(dirpath, name)
            p.chmod(0o644 if writable else 0o444)
        Path(dirpath).chmod(0o755 if writable else 0o555)


@pytest.fixture
def readonly_root(monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    prefix = unprivileged()
    top = Path(tempfile.mkdtemp(prefix="memlens-ro-"))  # not under pytest's 0700 tmp dirs
    top.chmod(0o755)
    try:
        root = make_root(top / "root")
        reindex(config=load_config(root))
        chmod_tree(root, writable=False)
        yield root, prefix
    finally:
        chmod_tree(top, writable=True)
        shutil.rmtree(top)


def as_user(prefix: list[str], *argv: str) -> subprocess.CompletedProcess:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(REPO),
           "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/nonexistent", **clock_env()}
    return subprocess.run([*prefix, sys.executable, *argv], cwd=REPO, capture_output=True,
                          text=True, timeout=300, env=env)


def test_read_only_root_searches_and_refuses_to_write(readonly_root):
    root, prefix = readonly_root
    db = root / "data/search/memlens.db"
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    probe = as_user(prefix, "-c", f"import os; print(os.access({str(db)!r}, os.W_OK))")
    assert probe.stdout.strip() == "False", "the test user can still write the index"

    search = as_user(prefix, "-m", "cli", "search", "harbor", "--root", str(root),
                     "--json")
    assert search.returncode == 0, search.stderr
    assert json.loads(search.stdout)["results"]
    stats = as_user(prefix, "-m", "cli", "stats", "--root", str(root), "--json")
    assert stats.returncode == 0, stats.stderr
    assert json.loads(stats.stdout)["chunks"] == 16

    mcp = as_user(prefix, "-c", MCP_SNIPPET, str(root))
    assert mcp.returncode == 0, mcp.stderr
    for text, is_error in json.loads(mcp.stdout):
        assert not is_error, text

    write = as_user(prefix, "-m", "cli", "reindex", "--root", str(root))
    assert write.returncode == 1 and "Traceback" not in write.stderr
    assert write.stderr.startswith("memlens: ") and write.stderr.count("\n") == 1
    assert "permission denied" in write.stderr

    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
    assert not any(stat.S_IWUSR & p.stat().st_mode for p in db.parent.iterdir())
    # the vector sidecar is the writer's (the fixture's reindex): readers never write it
    assert sorted(p.name for p in db.parent.iterdir()) == ["memlens.db", "memlens.db.lock",
                                                          "memlens.db.vectors"]


def test_unreadable_index_is_one_line(readonly_root):
    root, prefix = readonly_root
    db = root / "data/search/memlens.db"
    db.chmod(0)
    for argv in (["search", "harbor"], ["stats"], ["reindex"]):
        proc = as_user(prefix, "-m", "cli", *argv, "--root", str(root))
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
        assert proc.stderr.startswith("memlens: ") and proc.stderr.count("\n") == 1
        assert "permission denied" in proc.stderr, proc.stderr


def test_unmerged_wal_in_a_read_only_folder_is_one_line(readonly_root):
    """Committed pages still in -wal and no -shm: reading the main file alone would miss
    them, so the reader says what to do instead of answering from stale pages."""
    root, prefix = readonly_root
    folder = root / "data/search"
    folder.chmod(0o755)
    db = folder / "memlens.db"
    db.chmod(0o644)
    writer = connect(db)
    writer.execute("PRAGMA wal_autocheckpoint = 0")
    writer.execute("INSERT INTO meta(key, value) VALUES ('unmerged', '1')")
    shutil.copy(f"{db}-wal", folder / "kept-wal")
    writer.close()  # checkpoints and removes -wal/-shm; put the unmerged -wal back
    for name in ("memlens.db-wal", "memlens.db-shm"):
        (folder / name).unlink(missing_ok=True)
    (folder / "kept-wal").rename(f"{db}-wal")
    chmod_tree(folder, writable=False)
    proc = as_user(prefix, "-m", "cli", "search", "harbor", "--root", str(root))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "memlens.db-wal holds writes" in proc.stderr


def test_an_unreadable_lock_file_does_not_stop_a_search(readonly_root):
    """Searching takes no lock; it only looks whether a writer holds one."""
    root, prefix = readonly_root
    (root / "data/search/memlens.db.lock").chmod(0)
    for argv in (["search", "harbor", "--json"], ["stats", "--json"]):
        proc = as_user(prefix, "-m", "cli", *argv, "--root", str(root))
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert json.loads(as_user(prefix, "-m", "cli", "search", "harbor", "--json", "--root",
                              str(root)).stdout)["results"]
