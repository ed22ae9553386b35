"""Every writer killed with SIGKILL mid-work, then run again, leaves the index a clean rebuild
would make: the same chunks, vectors, message days and day counts, the same files recorded
(docs/reliability.md, "How each promise is checked"). The writers: reindex, a re-embed,
maintenance (the vector index rebuilt and VACUUM) and the watcher's reindex. Each is a real
process killed at a point the test waits for; a run that finished before it could be killed
fails the test rather than passing it untested."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import REPO, assert_consistent, make_root, slack_lines

pytestmark = pytest.mark.slow

WRITERS = {
    "reindex": "from engine import reindex\nreindex(config=load_config(root))",
    "re-embed": "from engine import reindex\nreindex(config=load_config(root), re_embed=True)",
    "maintenance": "from engine.maintenance import maintain_index\n"
                   "maintain_index(load_config(root).db_path)",
}


def build_root(root: Path) -> Path:
    """Notes, small logs, twelve logs of 200 windows, and a chat whose windows span days."""
    make_root(root)
    for i in range(12):
        (root / f"data/slack/channel{i:02}.jsonl").write_text(slack_lines(2000, start=i))
    (root / "data/telegram").mkdir(parents=True)
    (root / "data/telegram/ana.jsonl").write_text("".join(json.dumps(
        {"date": f"2026-03-{1 + 3 * (i // 4):02}T{8 + i % 4}:00:00+00:00",
         "from": ("Ana", "Ben")[i % 2], "text": f"pottery class note {i}"}) + "\n"
        for i in range(40)))
    return root


def fingerprint(db: Path) -> dict:
    """What the index holds, without the times it was written at."""
    conn = connect(db)
    try:
        def rows(sql: str) -> list[tuple]:
            return sorted(tuple(r) for r in conn.execute(sql))
        return {
            "chunks": rows("SELECT id, source_file, source_type, content_hash, content_date, "
                           "first_date, metadata, embedding, embedding_truncated FROM chunks"),
            "message_days": rows("SELECT c.id, m.day, m.messages, m.first_time, m.marks "
                                 "FROM message_days m JOIN chunks c ON c.rowid = m.chunk_rowid"),
            "day_counts": rows("SELECT source_type, day, entries, messages FROM day_counts"),
            "files": rows("SELECT source_file, error, notice FROM index_state"),
            "fts": conn.execute("SELECT count(*) FROM chunks_fts").fetchone()[0],
        }
    finally:
        conn.close()


def clean_rebuild(root: Path, tmp_path: Path) -> dict:
    fresh = tmp_path / "fresh"
    shutil.copytree(root, fresh, ignore=shutil.ignore_patterns("search"))
    reindex(config=load_config(fresh))
    return fingerprint(load_config(fresh).db_path)


def count(db: Path, sql: str) -> int:
    try:
        conn = connect(db)
    except Exception:  # noqa: BLE001 - not created yet
        return -1
    try:
        return conn.execute(sql).fetchone()[0]
    except Exception:  # noqa: BLE001 - no schema yet
        return -1
    finally:
        conn.close()


def kill_when(argv: list[str], ready: Callable[[], bool], what: str) -> None:
    """Start ``argv``, SIGKILL it once ``ready()`` holds; fail if it ends first."""
    child = subprocess.Popen(argv, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 180
        while not ready():
            if child.poll() is not None:
                pytest.fail(f"the {what} finished before it could be killed")
            if time.monotonic() > deadline:
                pytest.fail(f"the {what} never reached the point to kill it at")
            time.sleep(0.005)
        child.send_signal(signal.SIGKILL)
    finally:
        if child.poll() is None:  # a failed wait must not leave the child (or the run) hanging
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL


def run_writer(name: str, root: Path) -> list[str]:
    return [sys.executable, "-c", "import sys\nfrom engine.config import load_config\n"
            f"root = sys.argv[1]\n{WRITERS[name]}\n", str(root)]


def rerun_equals_a_clean_rebuild(root: Path, tmp_path: Path,
                                 rerun: Callable[[Path], object] | None = None) -> None:
    """After the kill: the index is consistent, and once ``rerun`` (a reindex unless given)
    has run, holds what a fresh rebuild of the same files holds."""
    db = load_config(root).db_path
    assert_consistent(db)
    (rerun or (lambda _db: reindex(config=load_config(root))))(db)
    assert_consistent(db)
    assert fingerprint(db) == clean_rebuild(root, tmp_path)


def indexed_root(tmp_path: Path) -> tuple[Path, Path]:
    root = build_root(tmp_path / "root")
    reindex(config=load_config(root))
    return root, load_config(root).db_path


@pytest.mark.parametrize("after_files", [1, 7])
def test_a_killed_reindex_then_a_reindex_equals_a_clean_rebuild(tmp_path, after_files):
    root = build_root(tmp_path / "root")
    db = load_config(root).db_path
    kill_when(run_writer("reindex", root),
              lambda: count(db, "SELECT count(*) FROM index_state") >= after_files, "reindex")
    rerun_equals_a_clean_rebuild(root, tmp_path)


def test_a_killed_re_embed_then_a_reindex_equals_a_clean_rebuild(tmp_path):
    root, db = indexed_root(tmp_path)
    total = count(db, "SELECT count(*) FROM chunks")
    kill_when(run_writer("re-embed", root), lambda: 0 < count(
        db, "SELECT count(*) FROM staged_vectors") < total // 2, "re-embed")
    # killed half-way: every chunk keeps the vector it had (searches stay hybrid); the
    # plain reindex after it goes on with the staged re-embed and swaps it in
    assert count(db, "SELECT count(*) FROM chunks WHERE embedding IS NOT NULL") == total
    rerun_equals_a_clean_rebuild(root, tmp_path)
    assert count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'staged_vectors'") == 0


def test_a_killed_maintenance_then_maintenance_equals_a_clean_rebuild(tmp_path):
    from engine.maintenance import maintain_index

    root, db = indexed_root(tmp_path)
    lock = Path(f"{db}.lock")
    kill_when(run_writer("maintenance", root),
              lambda: '"maintenance"' in (lock.read_text() if lock.exists() else ""),
              "maintenance")
    rerun_equals_a_clean_rebuild(root, tmp_path, maintain_index)


def test_a_killed_watcher_then_a_reindex_equals_a_clean_rebuild(tmp_path):
    root, db = indexed_root(tmp_path)
    done = count(db, "SELECT count(*) FROM chunks")
    for i in range(12):  # every log grows while the watcher runs
        with (root / f"data/slack/channel{i:02}.jsonl").open("a") as fh:
            fh.write(slack_lines(400, start=5000 + i))
    kill_when([sys.executable, "-m", "cli", "watch", "--root", str(root)],
              lambda: count(db, "SELECT count(*) FROM chunks") > done, "watcher")
    rerun_equals_a_clean_rebuild(root, tmp_path)


# where a reindex converting an older index (its vec0 copy dropped, the file compacted, the
# vector sidecar rewritten) kills itself with SIGKILL: code run in the writer before it starts
MIGRATION_KILL_POINTS = {
    "inside the migration's transaction": (
        "from engine import schema_migrations as m\n"
        "def drop(conn, progress):\n"
        "    m.drop_vec0(conn)\n"
        "    die()\n"
        "m.MIGRATIONS[11] = [drop]\n"),
    "half way through the VACUUM": (
        "from engine import maintenance\n"
        "def vacuum(conn):\n"
        "    calls = []\n"
        "    conn.set_progress_handler(lambda: calls.append(1) or (len(calls) > 20 and die()),"
        " 200)\n"
        "    conn.execute('VACUUM')\n"
        "maintenance._vacuum = vacuum\n"),
    "after the VACUUM, before the sidecar": (
        "from engine import maintenance\n"
        "maintenance.new_epoch = lambda conn: die()\n"),
    "while the sidecar is written": (
        "from engine.vectors import sidecar_build\n"
        "fill = sidecar_build._fill_segment\n"
        "def half(conn, buf, *args):\n"
        "    fill(conn, buf, *args)\n"
        "    die()\n"
        "sidecar_build._fill_segment = half\n"),
}


@pytest.mark.parametrize("point", list(MIGRATION_KILL_POINTS))
def test_a_conversion_killed_anywhere_resumes_and_loses_nothing(tmp_path, point):
    from tests.conftest import as_vec0_index

    root, db = indexed_root(tmp_path)
    as_vec0_index(db)
    script = ("import os, signal, sys\nfrom engine.config import load_config\n"
              "from engine import reindex\n"
              "def die():\n    os.kill(os.getpid(), signal.SIGKILL)\n"
              f"{MIGRATION_KILL_POINTS[point]}reindex(config=load_config(sys.argv[1]))\n")
    child = subprocess.run([sys.executable, "-c", script, str(root)], cwd=REPO,
                           env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True,
                           text=True, timeout=300)
    assert child.returncode == -signal.SIGKILL, f"not killed {point}: {child.stderr[-500:]}"
    version = count(db, "PRAGMA user_version")
    vec0 = count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'chunks_vec'")
    # the migration commits whole or not at all
    assert (version, vec0) == ((10, 1) if point.startswith("inside") else (11, 0))
    reindex(config=load_config(root))
    assert count(db, "SELECT count(*) FROM sqlite_master WHERE name LIKE 'chunks_vec%'") == 0
    assert count(db, "SELECT count(*) FROM meta WHERE key = 'compact_pending'") == 0
    assert_consistent(db)
    assert fingerprint(db) == clean_rebuild(root, tmp_path)
