"""The app's background reads (tui/workers.py) on a real root, without starting the app."""

from __future__ import annotations

from engine.indexer import reindex
from tui.workers import discover_job, read_neighbour, read_overview, stats_job

GENERAL = "data/slack/general.jsonl"


def test_the_discover_screen_counts_notes_at_every_depth(config):
    for rel in ("notes/top.md", "notes/a/b/c/deep.md"):
        (config.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (config.root / rel).write_text("# x\n\ntext\n")
    posted = []
    discover_job(config, posted.append)
    loaded = posted[0]
    assert loaded.error is None and loaded.total == 5
    assert ("notes/**/*.md", "note", 3) in loaded.routes  # depth 0, 1 and 3
    assert len(loaded.pending) == 5  # nothing indexed yet
    reindex(config=config)
    (config.root / "data/slack/random.jsonl").unlink()
    posted.clear()
    discover_job(config, posted.append)
    assert posted[0].pending == [("(removed)", "data/slack/random.jsonl")]


def test_overview_neighbour_and_statistics_read_through_the_facade(config):
    posted = []
    stats_job(config, posted.append)
    assert "press ctrl+r to build it" in str(posted[0].error)
    assert not read_overview(config).exists
    reindex(config=config)
    overview = read_overview(config)
    assert overview.exists and overview.per_type == {"slack": 12, "note": 4}
    chunk, position = read_neighbour(config, f"{GENERAL}#w4", +1)
    assert chunk["id"] == f"{GENERAL}#w5" and chunk["metadata"]["window"] == 5
    assert position == (6, 10)
    assert read_neighbour(config, f"{GENERAL}#w0", -1) == (None, None)
    posted.clear()
    stats_job(config, posted.append)
    assert posted[0].error is None and posted[0].stats.chunks == 16
