"""The conversation view's engine: messages around a hit, paged through the whole file, read
through the facade (one read transaction each, the facade's path-safety rules)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.library import Cursor, Library, ReadRefused
from engine.read.conversation import ConversationError
from engine.storage import log_reader
from engine.storage.db import connect
from tests.conftest import NOTE, slack_lines

LOG = "data/slack/general.jsonl"
MEETING = "data/meetings/processed/2026-03-14-q2.json"
TRANSCRIPT = "data/identity/transcripts/2026-02-20-values.md"


def build_root(root: Path) -> Path:
    log = root / LOG
    log.parent.mkdir(parents=True)
    lines = slack_lines(95).splitlines()
    lines.insert(20, "")  # a blank line and a broken one: skipped, yet counted as lines
    lines.insert(21, "{not json")
    log.write_text("\n".join(lines) + "\n")
    meeting = root / MEETING
    meeting.parent.mkdir(parents=True)
    segments = [{"speaker": "Maya Chen" if i % 2 else "Sam Ortiz", "start": 30.0 * i,
                 "end": 30.0 * i + 29, "text": f"point {i} " + "about the importer " * 12}
                for i in range(12)]
    meeting.write_text(json.dumps({"title": "Q2 planning", "date": "2026-03-14T10:00:00",
                                   "attendees": ["Maya Chen", "Sam Ortiz"],
                                   "summary": "Ship in April.", "segments": segments}))
    transcript = root / TRANSCRIPT
    transcript.parent.mkdir(parents=True)
    transcript.write_text("---\ndate: 2026-02-20\n---\n# Values interview\n\nWarm-up.\n\n"
                          "## Teams\n\n**Q:** What do you value most in a team?\n\n"
                          "**Sam:** Candor. I'd rather hear bad news early.\n\n"
                          "## Rest\n\n**Q:** And at home?\n")
    (root / "notes").mkdir()
    (root / "notes/garden.md").write_text(NOTE)
    return root


@pytest.fixture
def indexed(tmp_path):
    root = build_root(tmp_path / "root")
    config = load_config(root)
    assert not reindex(config=config).errors
    conn = connect(config.db_path, readonly=True)
    with Library(config) as library:
        yield root, conn, library
    conn.close()


def content_lines(conn, chunk_id: str) -> list[str]:
    return conn.execute("SELECT content FROM chunks WHERE id = ?",
                        (chunk_id,)).fetchone()[0].split("\n")


def test_opens_a_window_with_messages_around_it(indexed):
    root, conn, library = indexed
    page = library.conversation(f"{LOG}#w3", before=5, after=5)
    assert [m.position for m in page.messages] == list(range(28, 48))
    hit = [m for m in page.messages if m.hit]
    assert [m.position for m in hit] == list(range(33, 43))  # window 3: lines 33..42
    assert [f"[{m.time}] {m.sender}: {m.text}" for m in hit] == content_lines(conn, f"{LOG}#w3")
    assert page.before == Cursor(28, page.messages[0].offset)
    assert page.after.position == 48 and page.title == "general"
    assert page.anchor == f"{LOG}#w3" and not page.stale


def test_pages_through_the_whole_log_both_ways(indexed):
    root, conn, library = indexed
    start = library.conversation(f"{LOG}#w5", before=0, after=0)
    seen, page = list(start.messages), start
    while page.before is not None:
        page = library.conversation_page(LOG, "slack", page.before, -1, count=7, hits=start.hits)
        seen = page.messages + seen
    page = start
    while page.after is not None:
        page = library.conversation_page(LOG, "slack", page.after, 1, count=7, hits=start.hits)
        seen += page.messages
    assert len(seen) == 95  # the blank and the broken line are no messages
    assert [m.text for m in seen] == [f"message {i} about the harbor bridge project"
                                      for i in range(95)]
    assert 21 not in {m.position for m in seen} and 22 not in {m.position for m in seen}
    assert sum(m.hit for m in seen) == 10


def test_other_hits_are_marked_and_stepped_through(indexed):
    root, conn, library = indexed
    hits = [f"{LOG}#w1", f"{LOG}#w4", "notes/elsewhere.md#s0"]
    page = library.conversation(f"{LOG}#w2", before=10, after=10, hit_ids=hits)
    marked = {m.position for m in page.messages if m.hit}
    assert set(range(11, 23)) - {21, 22} <= marked  # w1 (lines 11..22) and w2 are marked
    assert library.adjacent_hit(f"{LOG}#w2", hits, +1) == f"{LOG}#w4"
    assert library.adjacent_hit(f"{LOG}#w2", hits, -1) == f"{LOG}#w1"
    assert library.adjacent_hit(f"{LOG}#w1", hits, -1) is None
    assert library.adjacent_hit(f"{LOG}#w4", hits, +1) is None


def test_a_meeting_opens_at_its_segments(indexed):
    root, conn, library = indexed
    part1 = f"{MEETING}#c1"
    page = library.conversation(part1, before=1, after=1)
    hit = [m for m in page.messages if m.hit]
    assert hit and page.title == "Q2 planning"
    body = content_lines(conn, part1)[1:]
    assert [f"[{m.time}] {m.sender}: {m.text}" for m in hit] == body
    assert page.messages[0].position == hit[0].position - 1
    summary = library.conversation(f"{MEETING}#summary", before=0, after=3)
    assert [m.position for m in summary.messages] == [1, 2, 3, 4]
    assert summary.before is None and not any(m.hit for m in summary.messages)
    rest = library.conversation_page(MEETING, "meeting", summary.after, 1, count=100)
    assert rest.after is None and rest.messages[-1].position == 12


def test_a_transcript_reads_speakers_and_marks_the_section(indexed):
    root, conn, library = indexed
    teams = conn.execute("SELECT id FROM chunks WHERE source_file = ? AND content LIKE "
                         "'%Candor%'", (TRANSCRIPT,)).fetchone()[0]
    page = library.conversation(teams, before=10, after=10)
    rows = [(m.kind, m.sender, m.text, m.hit) for m in page.messages]
    assert ("message", "Sam", "Candor. I'd rather hear bad news early.", True) in rows
    assert ("heading", "", "Values interview > Teams", True) in rows
    assert ("message", "Q", "And at home?", False) in rows


def test_only_conversations_and_only_inside_the_root(indexed, tmp_path):
    root, conn, library = indexed
    with pytest.raises(ConversationError, match="not conversations"):
        library.conversation("notes/garden.md#s1")
    with pytest.raises(ConversationError, match="no chunk"):
        library.conversation("notes/garden.md#s99")
    outside = tmp_path / "outside.jsonl"
    outside.write_text((root / LOG).read_text())
    (root / LOG).unlink()
    (root / LOG).symlink_to(outside)
    with pytest.raises(ReadRefused, match="leaves the data root"):
        library.conversation(f"{LOG}#w0")
    with pytest.raises(ReadRefused, match="'..' is refused"):
        library.conversation_page("../outside.jsonl", "slack", Cursor(1), 1)
    with pytest.raises(ReadRefused, match="not part of the data layer"):
        library.conversation_page("secrets/log.jsonl", "slack", Cursor(1), 1)


def test_an_appended_log_is_flagged_stale_and_still_opens(indexed):
    root, conn, library = indexed
    with (root / LOG).open("a") as fh:
        fh.write(slack_lines(3, start=95))
    page = library.conversation(f"{LOG}#w9", before=0, after=50)
    assert page.stale and page.after is None
    assert page.messages[-1].text == "message 97 about the harbor bridge project"


def test_log_reader_matches_a_plain_read(tmp_path, monkeypatch):
    monkeypatch.setattr(log_reader, "BLOCK", 97)  # many blocks, lines across their edges
    monkeypatch.setattr(log_reader, "BACK_BLOCK", 53)
    lines = [("x" * ((i * 37) % 120)).encode() for i in range(400)]
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    starts = [0]
    for raw in lines:
        starts.append(starts[-1] + len(raw) + 1)
    for line in (1, 2, 150, 399, 400, 37, 3):
        assert log_reader.offset_of_line(path, line) == starts[line - 1]
        assert list(log_reader.lines_before(path, starts[line - 1], line)) == [
            (k, starts[k - 1], lines[k - 1]) for k in range(line - 1, 0, -1)]
        assert list(log_reader.lines_after(path, starts[line - 1], line))[:3] == [
            (k, starts[k - 1], lines[k - 1]) for k in range(line, min(line + 3, 401))]
    assert log_reader.offset_of_line(path, 402) is None


def test_a_chunk_of_packed_sections_spans_all_of_them():
    """A transcript of many short sections packs them in one chunk (engine/extractors/
    markdown.py): its conversation view marks every packed section, not the first alone."""
    from engine.read.conversation import _doc_span

    groups = {("section", 3): (5, 6), ("section", 4): (7, 7), ("section", 6): (9, 12)}
    assert _doc_span({"section": 3, "sections": [3, 6]}, groups) == (5, 12)
    assert _doc_span({"section": 3}, groups) == (5, 6)
    assert _doc_span({"section": 3, "sections": "3-6"}, groups) == (5, 6)  # not ours: ignored
