"""Bad index files and failing disks: one clear line and exit 1, never a traceback; readers
never write (docs/reliability.md)."""

from __future__ import annotations

import errno
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.schema import SCHEMA_VERSION
from engine.storage.db import connect
from tests.conftest import REPO, make_root
from tests.conftest import run_cli as run


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    monkeypatch.delenv("MEMLENS_DEBUG", raising=False)
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    return root


def db_of(root: Path) -> Path:
    return root / "data/search/memlens.db"




def one_line(code: int, err: str, *fragments: str) -> None:
    assert code == 1, err
    assert err.startswith("memlens: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def set_version(db: Path, version: int) -> None:
    conn = connect(db)
    conn.execute(f"PRAGMA user_version = {version}")
    conn.close()


def digest(path: Path) -> tuple[str, float]:
    return hashlib.sha256(path.read_bytes()).hexdigest(), path.stat().st_mtime


def _garbage(db: Path) -> None:
    db.write_bytes(b"not an index at all\n" * 500)


def _truncated(db: Path) -> None:
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])


def _directory(db: Path) -> None:
    db.unlink()
    db.mkdir()


BAD = {
    "garbage": (_garbage, "is not a memlens index"),
    "truncated": (_truncated, "is damaged (database disk image is malformed)"),
    "directory": (_directory, "is a directory, not an index file"),
    "schema-v99": (lambda db: set_version(db, 99),
                   f"index schema v99 is newer than this memlens (v{SCHEMA_VERSION}): "
                   "upgrade memlens"),
}


@pytest.mark.parametrize("kind", BAD)
def test_a_bad_index_file_is_one_line_for_every_command(root, capsys, kind):
    spoil, message = BAD[kind]
    spoil(db_of(root))
    for argv in (["search", "harbor"], ["search", "harbor", "--json"], ["stats"],
                 ["stats", "--json"], ["discover", "--pending"], ["reindex"], ["maintenance"]):
        code, out, err = run(capsys, *argv, "--root", str(root))
        one_line(code, err, message)


def test_an_empty_index_file_says_run_reindex(root, capsys):
    db_of(root).write_bytes(b"")
    code, _, err = run(capsys, "search", "harbor", "--root", str(root))
    one_line(code, err, "the index is empty: run `memlens reindex`")
    code, out, err = run(capsys, "reindex", "--root", str(root), "--json")
    assert code == 0 and '"chunks": 16' in out


def test_readers_never_migrate_or_write(root, capsys):
    db = db_of(root)
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{db}{suffix}").exists()
    before = digest(db)
    code, out, _ = run(capsys, "search", "harbor", "--root", str(root))
    assert code == 0 and "harbor" in out
    assert run(capsys, "stats", "--root", str(root))[0] == 0
    assert digest(db) == before

    set_version(db, 1)  # an index from an older memlens: only reindex may migrate it
    before = digest(db)
    for argv in (["search", "harbor"], ["stats"]):
        code, _, err = run(capsys, *argv, "--root", str(root))
        one_line(code, err, f"index schema v1 is older than this memlens (v{SCHEMA_VERSION}): run "
                 "`memlens reindex`")
    assert digest(db) == before
    conn = connect(db, readonly=True)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
    conn.close()


def test_disk_full_is_one_line(tmp_path, capsys, monkeypatch):
    """SQLITE_FULL for real: the writer's connection may not grow the file past one page."""
    import engine.indexer

    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    root = make_root(tmp_path / "root")

    def tiny_disk(path, **kwargs):
        conn = connect(path, **kwargs)
        conn.execute("PRAGMA max_page_count = 1")
        return conn

    monkeypatch.setattr(engine.indexer, "connect", tiny_disk)
    code, _, err = run(capsys, "reindex", "--root", str(root))
    one_line(code, err, "is full: free some space and run again")


def test_os_errors_are_one_line(root, capsys, monkeypatch):
    import engine  # the CLI reindexes through the engine's public surface

    def no_space(**_):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(db_of(root)))

    monkeypatch.setattr(engine, "reindex", no_space)
    code, _, err = run(capsys, "reindex", "--root", str(root))
    one_line(code, err, "no space left on device", str(db_of(root)))

    def bug(**_):
        raise ValueError("something odd")

    monkeypatch.setattr(engine, "reindex", bug)
    code, _, err = run(capsys, "reindex", "--root", str(root))
    one_line(code, err, "unexpected error: ValueError: something odd",
             "run again with --debug")


def test_traceback_only_with_debug(root):
    _garbage(db_of(root))

    def cli(*extra, env=None):
        return subprocess.run([sys.executable, "-m", "cli", *extra], cwd=REPO,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})})

    plain = cli("search", "x", "--root", str(root))
    assert plain.returncode == 1 and "Traceback" not in plain.stderr
    assert plain.stderr.count("\n") == 1 and "is not a memlens index" in plain.stderr
    for proc in (cli("search", "x", "--root", str(root), "--debug"),
                 cli("--debug", "stats", "--root", str(root)),
                 cli("stats", "--root", str(root), env={"MEMLENS_DEBUG": "1"})):
        assert proc.returncode == 1 and "Traceback" in proc.stderr
        assert proc.stderr.rstrip("\n").rsplit("\n", 1)[-1].startswith("memlens: ")
    usage = cli("search")
    assert usage.returncode == 2 and "Traceback" not in usage.stderr
