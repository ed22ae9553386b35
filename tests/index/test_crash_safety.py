"""A reindex killed with SIGKILL at any point leaves a DB the next run completes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import REPO, CountingEmbedder, assert_consistent, slack_lines

CHILD = """
import sys
from engine import reindex
from engine.config import load_config
reindex(config=load_config(sys.argv[1]))
"""


def _rows(db, sql):
    conn = connect(db)
    try:
        return conn.execute(sql).fetchone()[0]
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("kill_after_files", [1, 4, 9])
def test_sigkill_mid_reindex_then_next_run_completes(tmp_path, kill_after_files):
    root = tmp_path / "root"
    (root / "data/slack").mkdir(parents=True)
    for i in range(12):
        (root / f"data/slack/channel{i:02}.jsonl").write_text(slack_lines(2000))
    db = root / "data/search/memlens.db"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(root)], cwd=REPO,
                             env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if db.exists():
                try:
                    if _rows(db, "SELECT count(*) FROM index_state") >= kill_after_files:
                        break
                except Exception:  # noqa: BLE001 - schema may not exist yet
                    pass
            if child.poll() is not None:
                pytest.fail("the reindex finished before it could be killed")
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert_consistent(db)
    done_before = _rows(db, "SELECT count(*) FROM index_state")
    assert done_before < 12

    from engine.config import load_config
    stats = reindex(config=load_config(root), embedder=CountingEmbedder())
    assert stats.files == 12 - done_before and not stats.errors
    assert _rows(db, "SELECT count(*) FROM chunks") == 12 * 200
    assert _rows(db, "SELECT count(*) FROM chunks WHERE embedding IS NULL") == 0
    assert_consistent(db)
