"""Every chat message's day in the index (engine/dates/message_days.py): the timeline, its counts
and the activity calendar checked day by day against the files themselves, after a first build,
an append, the migration of an older index and a window whose text cannot be read back."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from engine.config import load_config
from engine.dates.timeline import activity, timeline
from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import CountingEmbedder, migrate_from

START = datetime(2026, 3, 9, 8, 0)
RANGE = "2026-03-01..2026-04-30"


def _write(path: Path, rows: list[dict], mode: str = "w") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open(mode) as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)


def telegram_rows(n: int, since: datetime, step_hours: int) -> list[dict]:
    """Messages hours apart: windows of ten span two or three days, with days between."""
    rows = []
    for i in range(n):
        when = since + timedelta(hours=step_hours * i + (i % 3))
        text = f"ana message {i}"
        if i == 4:  # a message over two lines
            text = "first line\nsecond line"
        if i == 7:  # a text that itself holds a line shaped like a message of this window
            text = "pasted from the other chat:\n[2026-03-10 10:00] Ben: hi there"
        rows.append({"date": when.isoformat(), "from": ("Ana", "Ben")[i % 2], "text": text})
    return rows


@pytest.fixture
def root(tmp_path: Path) -> Path:
    _write(tmp_path / "data/telegram/ana.jsonl", telegram_rows(23, START, 11))
    # slack with an offset: 23:30 at -08:00 is that day, wherever the machine is
    _write(tmp_path / "data/slack/general.jsonl", [
        {"ts": f"2026-03-{10 + i // 4:02d}T{20 + i % 4}:30:00-08:00", "user": "Maya",
         "text": f"general {i}"} for i in range(14)])
    # signal in epoch milliseconds: read in UTC
    base = int(datetime(2026, 3, 12, 22, 0, tzinfo=UTC).timestamp() * 1000)
    _write(tmp_path / "data/signal/elena.jsonl", [
        {"timestamp": base + i * 5 * 3600 * 1000, "sender": "Elena", "body": f"signal {i}"}
        for i in range(12)])
    _write(tmp_path / "data/journal/2026.jsonl", [
        {"id": f"j{i}", "date": f"2026-03-{10 + i}", "title": f"Day {i}", "text": "notes"}
        for i in range(4)])
    return tmp_path


def messages_in_files(root: Path) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """day -> chat log -> [(sender, text)] in file order, read from the files alone."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    fields = {"telegram": ("date", "from", "text"), "slack": ("ts", "user", "text"),
              "signal": ("timestamp", "sender", "body")}
    for source_type, (ts, who, body) in fields.items():
        for path in sorted((root / "data" / source_type).glob("*.jsonl")):
            for line in path.read_text().splitlines():
                record = json.loads(line)
                stamp = record[ts]
                day = (datetime.fromtimestamp(stamp / 1000, UTC).date().isoformat()
                       if isinstance(stamp, int) else stamp[:10])
                rel = path.relative_to(root).as_posix()
                out.setdefault(day, {}).setdefault(rel, []).append((record[who], record[body]))
    return out


def counts_in_files(root: Path) -> dict[str, Counter]:
    """day -> source type -> messages (chat) or entries (the journal)."""
    out: dict[str, Counter] = {}
    for day, logs in messages_in_files(root).items():
        for rel, messages in logs.items():
            out.setdefault(day, Counter())[rel.split("/")[1]] += len(messages)
    for line in (root / "data/journal/2026.jsonl").read_text().splitlines():
        out.setdefault(json.loads(line)["date"], Counter())["journal"] += 1
    return out


def check_against_files(root: Path) -> None:
    """Every day of the range, every count, every listed message: as the files say."""
    want = counts_in_files(root)
    files = messages_in_files(root)
    conn = connect(load_config(root).db_path, readonly=True)
    try:
        whole = timeline(conn, RANGE, limit=10_000, fold=1000)
        calendar = activity(conn, 2026)
        day = date(2026, 3, 1)
        while day <= date(2026, 4, 30):
            iso = day.isoformat()
            one = timeline(conn, iso, limit=10_000, fold=1000)
            assert one.counts == dict(want.get(iso, {})) or (
                not one.days and iso not in want), iso
            listed = {i.source_file: [(m.sender, m.text) for m in i.messages]
                      for d in one.days for g in d.groups for i in g.items if i.message_count}
            assert listed == files.get(iso, {}), iso
            assert all(i.message_count == len(i.messages) for d in one.days
                       for g in d.groups for i in g.items if i.message_count)
            day += timedelta(days=1)
    finally:
        conn.close()
    per_day = {d: sum(c.values()) for d, c in want.items()}
    assert {d.date: d.count for d in whole.days} == per_day == calendar.days
    assert whole.total == sum(per_day.values()) == calendar.total
    assert whole.messages == calendar.messages == sum(
        len(m) for logs in files.values() for m in logs.values())
    assert whole.entries == calendar.entries == 4
    totals: Counter = Counter()
    for counts in want.values():
        totals.update(counts)
    assert whole.counts == dict(totals) and not whole.truncated


def message_rows(db_path: Path) -> list[tuple]:
    conn = connect(db_path, readonly=True)
    try:
        return sorted(tuple(r) for r in conn.execute(
            "SELECT c.id, m.day, m.messages, m.marks FROM message_days m JOIN chunks c "
            "ON c.rowid = m.chunk_rowid")) + sorted(tuple(r) for r in conn.execute(
                "SELECT * FROM day_counts"))
    finally:
        conn.close()


def test_every_day_and_count_agrees_with_the_files(root):
    reindex(config=load_config(root), embedder=CountingEmbedder())
    check_against_files(root)
    # a window over three days is listed on each of them, never on a day between
    conn = connect(load_config(root).db_path, readonly=True)
    try:
        days = [d.date for d in timeline(conn, RANGE, types=["telegram"], limit=1000).days]
    finally:
        conn.close()
    assert days == sorted(messages_day for messages_day, logs in messages_in_files(root).items()
                          if "data/telegram/ana.jsonl" in logs)


def test_an_append_moves_only_the_counts_it_adds(root):
    config = load_config(root)
    reindex(config=config, embedder=CountingEmbedder())
    # the last window grows and new ones follow, on the last day and on days after it
    _write(root / "data/telegram/ana.jsonl",
           telegram_rows(40, START + timedelta(hours=11 * 23), 5)[:17], mode="a")
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.chunks == 2  # read from the resume point: the last window and a new one
    check_against_files(root)


def test_an_older_index_is_migrated_to_the_rows_a_fresh_build_writes(root, tmp_path_factory):
    config = load_config(root)
    reindex(config=config, embedder=CountingEmbedder())
    fresh = message_rows(config.db_path)
    migrate_from(config.db_path, 6, ())
    conn = connect(config.db_path, readonly=True)
    try:  # the window holding a message-shaped line cannot be read back: its file is re-read
        marked = conn.execute("SELECT source_file FROM index_state WHERE mtime = -1").fetchall()
    finally:
        conn.close()
    assert [r[0] for r in marked] == ["data/telegram/ana.jsonl"]
    assert message_rows(config.db_path) != fresh
    seen = []
    reindex(config=config, embedder=CountingEmbedder(), progress=seen.append)
    assert message_rows(config.db_path) == fresh
    check_against_files(root)


def test_a_migrating_run_reports_its_progress(root):
    config = load_config(root)
    reindex(config=config, embedder=CountingEmbedder())
    migrate_from(config.db_path, 6, ())
    conn = connect(config.db_path)
    conn.execute("PRAGMA user_version = 6")  # once more, to watch a run do it
    conn.execute("DELETE FROM message_days")
    conn.commit()
    conn.close()
    seen = []
    reindex(config=config, embedder=CountingEmbedder(), progress=seen.append)
    steps = [(p.pending_done, p.pending_total) for p in seen if p.phase == "migrate"]
    assert steps[0] == (0, 0) and steps[-1][0] == steps[-1][1] > 0
    check_against_files(root)


def test_a_failed_write_leaves_no_message_rows_behind(root, monkeypatch):
    config = load_config(root)
    reindex(config=config, embedder=CountingEmbedder())
    before = message_rows(config.db_path)
    _write(root / "data/telegram/ana.jsonl", telegram_rows(3, START + timedelta(days=20), 1),
           mode="a")
    import engine.index.index_file as index_file

    def broken(*args, **kwargs):
        raise RuntimeError("disk gone")
    monkeypatch.setattr(index_file, "record_state", broken)
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.failed
    assert message_rows(config.db_path) == before  # the file's transaction rolled back whole
    monkeypatch.undo()
    reindex(config=config, embedder=CountingEmbedder())
    check_against_files(root)


def test_the_cli_its_json_and_mcp_say_the_same_counts(root, capsys):
    from engine.library import Library
    from mcp_server.time_tools import timeline_text
    from tests.conftest import run_cli

    config = load_config(root)
    reindex(config=config, embedder=CountingEmbedder())
    expected = Library(config).timeline(RANGE, limit=1000)
    code, out, _ = run_cli(capsys, "timeline", RANGE, "--root", str(root), "--json")
    got = json.loads(out)
    assert code == 0 and got["total"] == expected.total == sum(got["counts"].values())
    assert (got["messages"], got["entries"]) == (expected.messages, expected.entries) == (49, 4)
    assert {d["date"]: d["count"] for d in got["days"]} == {d.date: d.count
                                                          for d in expected.days}
    code, out, _ = run_cli(capsys, "timeline", RANGE, "--root", str(root))
    assert out.splitlines()[0].startswith(
        f"{RANGE} · 49 messages · 4 entries · journal 4 entries, Slack 14 messages, "
        "Telegram 23 messages, Signal 12 messages")
    page = timeline_text(Library(config), {"when": RANGE}, 12_000, ["slack"]).splitlines()
    assert page[1] == f"total: 53 (49 messages, 4 entries) in {len(expected.days)} days"
    assert page[2] == ("counts: journal 4 entries, slack 14 messages, telegram 23 messages, "
                       "signal 12 messages")
    days = [line for line in page if line.startswith("day: ")]
    assert [int(line.split(") ")[1].split(":")[0]) for line in days] == [
        d.count for d in expected.days]
