"""Extractors: registry, shared helpers, messaging windows and one-chunk-per-record types."""

from __future__ import annotations

import json
import tracemalloc
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.extractors import (
    EXTRACTORS,
    BaseExtractor,
    Chunk,
    CodebaseDocExtractor,
    ExtractError,
    Problems,
    RwgpsMemoryExtractor,
    SlackExtractor,
    get_extractor,
)
from engine.extractors.common import (
    date_from_filename,
    iso_timestamp,
    json_safe,
    parse_datetime,
    to_date_str,
)
from engine.scanner import SOURCE_TYPES


def write_jsonl(path: Path, records: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(source_type: str, root: Path, rel: str) -> tuple[list[Chunk], Problems]:
    problems = Problems()
    chunks = list(get_extractor(source_type).extract(root / rel, rel, problems))
    for c in chunks:
        assert c.source_type == source_type
        assert c.source_file == rel
        json.dumps(c.metadata)  # JSON-serialisable
        assert "\x00" not in c.content
    assert len({c.id for c in chunks}) == len(chunks)
    return chunks, problems


# --------------------------------------------------------------------------- registry


def test_registry_covers_exactly_the_scanner_source_types():
    assert set(EXTRACTORS) == set(SOURCE_TYPES)
    assert len(EXTRACTORS) == 26
    for source_type, cls in EXTRACTORS.items():
        assert issubclass(cls, BaseExtractor)
        assert cls.source_type == source_type
        inst = get_extractor(source_type)
        assert isinstance(inst, cls)


def test_registry_seed_class_names():
    names = {cls.__name__ for cls in EXTRACTORS.values()}
    assert names == {
        "SlackExtractor", "TelegramExtractor", "WhatsAppExtractor", "SignalExtractor", "MeetingExtractor",
        "EmailCatalogExtractor", "EventExtractor", "GarminExtractor", "CGMExtractor",
        "VoiceExtractor", "MarkdownTranscriptExtractor", "QuoteExtractor",
        "ObservationExtractor", "StoryExtractor", "CheckinExtractor", "JournalExtractor",
        "ExperimentExtractor", "InterviewExtractor", "InterviewMetaExtractor",
        "PodcastDigestExtractor", "BoardSummaryExtractor", "EntityFileExtractor",
        "RwgpsMemoryExtractor", "CodebaseDocExtractor", "ScratchExtractor", "NoteExtractor"}
    assert EXTRACTORS["codebase_doc"] is CodebaseDocExtractor
    assert CodebaseDocExtractor.__bases__ == (RwgpsMemoryExtractor,)
    assert EXTRACTORS["rwgps_memory"] is RwgpsMemoryExtractor


def test_get_extractor_unknown_type_raises_clear_keyerror():
    with pytest.raises(KeyError) as info:
        get_extractor("myspace")
    msg = str(info.value)
    assert "no extractor for source type 'myspace'" in msg
    assert "slack" in msg and "note" in msg


# --------------------------------------------------------------------------- helpers


def test_parse_datetime_forms():
    assert parse_datetime("2026-03-14T09:12:05-08:00") == datetime(
        2026, 3, 14, 9, 12, 5, tzinfo=timezone(timedelta(hours=-8)))
    assert parse_datetime("2026-03-14T17:12:05Z") == datetime(2026, 3, 14, 17, 12, 5, tzinfo=UTC)
    assert parse_datetime("2026-03-14 09:12") == datetime(2026, 3, 14, 9, 12)
    assert parse_datetime("2026-03-14") == datetime(2026, 3, 14)
    assert parse_datetime("2026/03/14 09:12 UTC") == datetime(2026, 3, 14, 9, 12, tzinfo=UTC)
    assert parse_datetime(1773479525) == datetime(2026, 3, 14, 9, 12, 5, tzinfo=UTC)
    assert parse_datetime(1773479525000) == datetime(2026, 3, 14, 9, 12, 5, tzinfo=UTC)
    assert parse_datetime(1773479525000, epoch_unit="ms") == datetime(
        2026, 3, 14, 9, 12, 5, tzinfo=UTC)
    assert parse_datetime("1773479525.000200", epoch_unit="s").replace(microsecond=0) == \
        datetime(2026, 3, 14, 9, 12, 5, tzinfo=UTC)
    assert parse_datetime(date(2026, 3, 14)) == datetime(2026, 3, 14)
    assert parse_datetime("yesterday") is None
    assert parse_datetime("") is None
    assert parse_datetime(None) is None
    assert parse_datetime(True) is None
    assert parse_datetime({"d": 1}) is None


def test_to_date_str_keeps_the_timestamps_own_zone():
    # 23:30 in Los Angeles is the next day in UTC; the day as written is what counts
    assert to_date_str("2026-03-14T23:30:00-08:00") == "2026-03-14"
    assert to_date_str("20260314") == "2026-03-14"
    assert to_date_str("March 14") is None
    assert iso_timestamp("2026-03-14") is None
    assert iso_timestamp("2026-03-14T09:12:05Z") == "2026-03-14T09:12:05+00:00"


def test_date_from_filename():
    assert date_from_filename("2026-03-14-q2-planning.json") == "2026-03-14"
    assert date_from_filename("2026-02-30.md") is None
    assert date_from_filename("2026-W11.md") == "2026-03-09"  # Monday of ISO week 11
    assert date_from_filename("ideas.md") is None
    assert date_from_filename("v12026-03-14.md") is None


def test_json_safe():
    out = json_safe({"d": date(2026, 3, 14), 3: ("a\x00b", float("nan")),
                     "dt": datetime(2026, 3, 14, 9, 0)})
    assert out == {"d": "2026-03-14", "3": ["ab", "nan"], "dt": "2026-03-14T09:00:00"}
    json.dumps(out)


def test_lone_surrogates_and_nul_are_cleaned(tmp_path):
    rel = "data/slack/odd.jsonl"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_text('{"ts": "2026-03-14T09:00:00", "user": "A\\u0000", '
                    '"text": "half \\ud83d pair \\ud83d\\ude00 ok"}\n', encoding="utf-8")
    (chunk,), problems = run("slack", tmp_path, rel)
    assert problems == []
    assert chunk.content == "[2026-03-14 09:00] A: half \ufffd pair \U0001f600 ok"
    chunk.content.encode("utf-8")  # storable


# --------------------------------------------------------------------------- messaging


def _slack_messages(n: int, start: int = 0) -> list[dict]:
    base = datetime(2026, 3, 14, 9, 0, tzinfo=timezone(timedelta(hours=-8)))
    people = ["Maya Chen", "Sam Ortiz", "Priya Nair"]
    return [{"ts": (base + timedelta(minutes=7 * i)).isoformat(), "user": people[i % 3],
             "text": f"message number {i} about the route import", "thread_ts": None}
            for i in range(start, start + n)]


def test_slack_windows_of_ten(tmp_path):
    rel = "data/slack/general.jsonl"
    write_jsonl(tmp_path / rel, _slack_messages(23))
    chunks, problems = run("slack", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#w0", f"{rel}#w1", f"{rel}#w2"]
    assert [c.metadata["message_count"] for c in chunks] == [10, 10, 3]
    first = chunks[0]
    lines = first.content.split("\n")
    assert len(lines) == 10
    assert lines[0] == "[2026-03-14 09:00] Maya Chen: message number 0 about the route import"
    assert lines[9] == "[2026-03-14 10:03] Maya Chen: message number 9 about the route import"
    assert first.metadata == {
        "channel": "general", "window": 0,
        "participants": ["Maya Chen", "Priya Nair", "Sam Ortiz"],
        "message_count": 10,
        "first_ts": "2026-03-14T09:00:00-08:00",
        "last_ts": "2026-03-14T10:03:00-08:00",
        "timestamp": "2026-03-14T10:03:00-08:00",
        "lines": [1, 10],
    }
    assert first.content_date == "2026-03-14"
    # message 22 is at 09:00 + 154 min = 11:34
    assert chunks[2].content.split("\n")[-1].startswith("[2026-03-14 11:34] Sam Ortiz: ")
    assert chunks[2].metadata["lines"] == [21, 23]


def test_slack_content_date_is_last_message_date(tmp_path):
    rel = "data/slack/night.jsonl"
    write_jsonl(tmp_path / rel, [
        {"ts": "2026-03-14T23:50:00-08:00", "user": "Maya Chen", "text": "still up?"},
        {"ts": "2026-03-15T00:10:00-08:00", "user": "Sam Ortiz", "text": "yes",
         "thread_ts": "2026-03-14T23:50:00-08:00"},
    ])
    (chunk,), _ = run("slack", tmp_path, rel)
    assert chunk.content_date == "2026-03-15"
    assert chunk.metadata["first_ts"] == "2026-03-14T23:50:00-08:00"
    assert chunk.metadata["threads"] == ["2026-03-14T23:50:00-08:00"]
    assert chunk.content == ("[2026-03-14 23:50] Maya Chen: still up?\n"
                             "[2026-03-15 00:10] Sam Ortiz: yes")


def test_slack_epoch_ts_string_is_read_as_utc_seconds(tmp_path):
    rel = "data/slack/export.jsonl"
    write_jsonl(tmp_path / rel, [{"ts": "1773479525.000200", "user": "Maya Chen", "text": "hi"}])
    (chunk,), problems = run("slack", tmp_path, rel)
    assert problems == []
    assert chunk.content == "[2026-03-14 09:12] Maya Chen: hi"


def test_slack_append_only_changes_last_window_and_adds_new(tmp_path):
    rel = "data/slack/eng.jsonl"
    path = write_jsonl(tmp_path / rel, _slack_messages(95))
    before, _ = run("slack", tmp_path, rel)
    assert len(before) == 10
    with path.open("a", encoding="utf-8") as fh:
        for msg in _slack_messages(25, start=95):
            fh.write(json.dumps(msg) + "\n")
    after, problems = run("slack", tmp_path, rel)
    assert problems == []
    assert len(after) == 12
    old = {c.id: c.content_hash for c in before}
    new = {c.id: c.content_hash for c in after}
    assert [cid for cid in new if cid in old and new[cid] != old[cid]] == [f"{rel}#w9"]
    assert [cid for cid in new if cid not in old] == [f"{rel}#w10", f"{rel}#w11"]
    for i in range(9):
        cid = f"{rel}#w{i}"
        assert new[cid] == old[cid]
    assert after[9].metadata["message_count"] == 10
    assert after[11].metadata["message_count"] == 10
    # re-reading unchanged file: identical ids and hashes
    again, _ = run("slack", tmp_path, rel)
    assert [(c.id, c.content_hash) for c in again] == [(c.id, c.content_hash) for c in after]


def test_telegram_windows_and_entity_text(tmp_path):
    rel = "data/telegram/Family.jsonl"
    recs = [{"date": f"2026-03-1{d}T0{d}:00:00+00:00", "from": "Mom", "text": f"day {d}"}
            for d in range(1, 10)]
    recs.append({"date": "2026-03-19T20:45:00", "from": "Maya Chen",
                 "text": ["see ", {"type": "link", "text": "https://example.org"}, " ok"]})
    recs.append({"date": "2026-03-20T08:00:00", "from": "Dad", "text": "morning"})
    write_jsonl(tmp_path / rel, recs)
    chunks, problems = run("telegram", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#w0", f"{rel}#w1"]
    assert chunks[0].content.split("\n")[0] == "[2026-03-11 01:00] Mom: day 1"
    assert chunks[0].content.split("\n")[9] == "[2026-03-19 20:45] Maya Chen: see https://example.org ok"
    assert chunks[0].metadata["channel"] == "Family"
    assert chunks[0].metadata["participants"] == ["Maya Chen", "Mom"]
    assert chunks[0].content_date == "2026-03-19"
    assert chunks[1].content == "[2026-03-20 08:00] Dad: morning"
    assert chunks[1].metadata["first_ts"] == "2026-03-20T08:00:00"


def test_signal_epoch_ms(tmp_path):
    rel = "data/signal/maya.jsonl"
    write_jsonl(tmp_path / rel, [
        {"timestamp": 1773479525000, "sender": "Maya Chen", "body": "Climbing Saturday?"},
        {"timestamp": 1773483125000, "sender": "Me", "body": "Yes! 10am at the gym"},
    ])
    (chunk,), problems = run("signal", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#w0"
    assert chunk.content == ("[2026-03-14 09:12] Maya Chen: Climbing Saturday?\n"
                             "[2026-03-14 10:12] Me: Yes! 10am at the gym")
    assert chunk.metadata["first_ts"] == "2026-03-14T09:12:05+00:00"
    assert chunk.metadata["channel"] == "maya"
    assert chunk.metadata["participants"] == ["Maya Chen", "Me"]
    assert chunk.content_date == "2026-03-14"


def test_messaging_broken_lines_are_skipped_and_reported(tmp_path):
    rel = "data/slack/broken.jsonl"
    write_jsonl(tmp_path / rel, [
        {"ts": "2026-03-14T09:00:00", "user": "A", "text": "one"},
        '{"ts": "2026-03-14T09:01:00", "user": "B", "text": "unterminated',
        '["not", "an", "object"]',
        {"ts": "2026-03-14T09:02:00", "user": "B", "text": 7},
        {"ts": "2026-03-14T09:03:00", "user": "C", "text": {"rich": "text"}},
        {"ts": "not a time", "user": "C", "text": "bad ts"},
        {"user": "C", "text": "no ts"},
        {"ts": "2026-03-14T09:04:00", "user": ["x"], "text": "odd sender"},
        {"ts": "2026-03-14T09:05:00", "user": "D", "text": ""},
        "",
        {"ts": "2026-03-14T09:06:00", "user": "A", "text": "nul\x00 inside"},
    ])
    chunks, problems = run("slack", tmp_path, rel)
    assert len(chunks) == 1
    assert chunks[0].content.split("\n") == [
        "[2026-03-14 09:00] A: one",
        "[2026-03-14 09:02] B: 7",
        "[2026-03-14 09:04] unknown: odd sender",
        "[2026-03-14 09:06] A: nul inside",
    ]
    assert chunks[0].metadata["message_count"] == 4
    assert len(problems) == 5
    assert problems[0].startswith("line 2: invalid JSON")
    assert problems[1] == "line 3: expected a JSON object, got an array; line skipped"
    assert problems[2] == "line 5: 'text' should be text, got an object; message skipped"
    assert problems[3] == "line 6: unparseable 'ts' 'not a time'; message skipped"
    assert problems[4] == "line 7: message has no 'ts'; skipped"


def test_messaging_empty_file(tmp_path):
    for source_type, rel in [("slack", "data/slack/e.jsonl"), ("telegram", "data/telegram/e.jsonl"),
                             ("signal", "data/signal/e.jsonl")]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
        chunks, problems = run(source_type, tmp_path, rel)
        assert chunks == [] and problems == []
        (tmp_path / rel).write_bytes(b"\n\n  \n")
        chunks, problems = run(source_type, tmp_path, rel)
        assert chunks == [] and problems == []


def test_messaging_invalid_utf8_is_replaced_and_reported_once(tmp_path):
    rel = "data/signal/bytes.jsonl"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(
        b'{"timestamp": 1773479525000, "sender": "Maya", "body": "caf\xe9 later?"}\n'
        b'{"timestamp": 1773479585000, "sender": "Me", "body": "ok \xff\xfe"}\n')
    (chunk,), problems = run("signal", tmp_path, rel)
    assert chunk.content == ("[2026-03-14 09:12] Maya: café later?\n"
                             "[2026-03-14 09:13] Me: ok ÿþ")  # read as cp1252
    assert problems == ["line 1: not UTF-8; read as cp1252 (first at this line)"]


def test_messaging_wholly_unparseable_jsonl_raises(tmp_path):
    rel = "data/telegram/result.jsonl"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_text('[{"date": "2026-03-14", "from": "x",\n "text": "y"}]\n')
    with pytest.raises(ExtractError, match="none of its 2 non-blank lines is a JSON object"):
        run("telegram", tmp_path, rel)


def test_messaging_streams_without_reading_the_whole_file(tmp_path):
    rel = "data/slack/stream.jsonl"
    write_jsonl(tmp_path / rel, _slack_messages(30))
    gen = SlackExtractor().extract(tmp_path / rel, rel, Problems())
    first = next(gen)
    assert first.id == f"{rel}#w0"
    gen.close()


@pytest.mark.slow
def test_slack_50mb_file_extracts_fully(tmp_path):
    rel = "data/slack/huge.jsonl"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    base = datetime(2025, 1, 1, 8, 0, tzinfo=UTC)
    filler = "lorem ipsum dolor sit amet " * 8
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        while fh.tell() < 50 * 1024 * 1024:
            ts = (base + timedelta(seconds=37 * n)).isoformat()
            fh.write(json.dumps({"ts": ts, "user": f"user{n % 17}",
                                 "text": f"{n} {filler}", "thread_ts": None}) + "\n")
            n += 1
    problems = Problems()
    count = 0
    last = None
    tracemalloc.start()
    try:
        for chunk in SlackExtractor().extract(path, rel, problems):
            count += 1
            last = chunk
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 1024 * 1024  # streamed: memory does not grow with the file
    assert problems == []
    assert count == (n + 9) // 10
    assert last is not None
    assert last.id == f"{rel}#w{count - 1}"
    assert last.metadata["message_count"] == n - 10 * (count - 1)
    assert last.metadata["lines"][1] == n


# --------------------------------------------------------------------------- records


def test_email_catalog(tmp_path):
    rel = "data/email/catalog/2026-03.jsonl"
    write_jsonl(tmp_path / rel, [
        {"id": "msg-0412", "date": "2026-03-14T16:02:00-07:00", "from": "Maya Chen",
         "to": ["Me", "Sam Ortiz"], "subject": "Climbing trip logistics",
         "summary": "Maya proposes Joshua Tree for April 4-6 and asks who can drive.",
         "tags": ["family", "trip"]},
        {"id": "msg-0413", "date": "2026-03-15", "from": "billing@example.com", "to": "Me",
         "subject": "Your invoice", "summary": "Invoice #2291 for $14.00.", "tags": []},
    ])
    chunks, problems = run("email_catalog", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#msg-0412", f"{rel}#msg-0413"]
    assert chunks[0].content == (
        "Email from Maya Chen to Me, Sam Ortiz on 2026-03-14 — Subject: Climbing trip logistics\n"
        "Maya proposes Joshua Tree for April 4-6 and asks who can drive.\n"
        "Tags: family, trip")
    assert chunks[0].content_date == "2026-03-14"
    assert chunks[0].metadata == {
        "line": 1, "record_id": "msg-0412", "date": "2026-03-14",
        "timestamp": "2026-03-14T16:02:00-07:00", "from": "Maya Chen",
        "to": ["Me", "Sam Ortiz"], "subject": "Climbing trip logistics",
        "tags": ["family", "trip"]}
    assert chunks[1].content == ("Email from billing@example.com to Me on 2026-03-15 — "
                                 "Subject: Your invoice\nInvoice #2291 for $14.00.")
    assert "timestamp" not in chunks[1].metadata


def test_event(tmp_path):
    rel = "data/photos/events.jsonl"
    write_jsonl(tmp_path / rel, [
        {"id": "evt-2026-03-07-tahoe", "date": "2026-03-07", "title": "Tahoe ski weekend",
         "location": "Palisades Tahoe", "people": ["Maya Chen", "Sam Ortiz"],
         "description": "Fresh snow Saturday; Sam's first black run.", "photo_count": 86}])
    (chunk,), problems = run("event", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#evt-2026-03-07-tahoe"
    assert chunk.content == ("Photo event: Tahoe ski weekend — 2026-03-07 at Palisades Tahoe\n"
                             "People: Maya Chen, Sam Ortiz\n"
                             "Fresh snow Saturday; Sam's first black run.\n"
                             "Photos: 86")
    assert chunk.content_date == "2026-03-07"
    assert chunk.metadata["people"] == ["Maya Chen", "Sam Ortiz"]
    assert chunk.metadata["photo_count"] == 86


def test_checkin_without_id_uses_line_numbers(tmp_path):
    rel = "data/health/checkins.jsonl"
    write_jsonl(tmp_path / rel, [
        {"date": "2026-03-13", "mood": 7, "energy": 6, "sleep_quality": 8,
         "notes": "Good run, a bit tired after lunch."},
        "",
        {"date": "2026-03-14", "mood": "5", "energy": 4, "sleep_quality": "poor",
         "notes": "Stressful deadline."},
    ])
    chunks, problems = run("checkin", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#L1", f"{rel}#L3"]
    assert chunks[0].content == ("Daily check-in 2026-03-13: mood 7/10, energy 6/10, "
                                 "sleep quality 8/10\nGood run, a bit tired after lunch.")
    assert chunks[1].content == ("Daily check-in 2026-03-14: mood 5/10, energy 4/10, "
                                 "sleep quality poor\nStressful deadline.")
    assert chunks[1].metadata["mood"] == 5
    assert chunks[1].metadata["sleep_quality"] == "poor"
    assert [c.content_date for c in chunks] == ["2026-03-13", "2026-03-14"]


def test_experiment(tmp_path):
    rel = "data/health/experiments.jsonl"
    write_jsonl(tmp_path / rel, [
        {"id": "exp-07", "name": "No caffeine after noon", "start": "2026-02-01",
         "end": "2026-02-28", "hypothesis": "Deep sleep goes up.",
         "protocol": "Last coffee before 12:00; track Garmin sleep.",
         "result": "Deep sleep +14 min on average.", "status": "completed"},
        {"id": "exp-08", "name": "Cold showers", "end": "2026-04-01", "hypothesis": "Mood",
         "status": "active"},
    ])
    chunks, problems = run("experiment", tmp_path, rel)
    assert problems == []
    assert chunks[0].content == (
        "Experiment: No caffeine after noon (completed, 2026-02-01 → 2026-02-28)\n"
        "Hypothesis: Deep sleep goes up.\n"
        "Protocol: Last coffee before 12:00; track Garmin sleep.\n"
        "Result: Deep sleep +14 min on average.")
    assert chunks[0].content_date == "2026-02-01"
    assert chunks[1].content_date == "2026-04-01"  # no start: end
    assert chunks[1].content == "Experiment: Cold showers (active, ? → 2026-04-01)\nHypothesis: Mood"
    assert chunks[0].metadata["status"] == "completed"


def test_journal(tmp_path):
    rel = "data/journal/2026.jsonl"
    write_jsonl(tmp_path / rel, [
        {"id": "j-2026-03-14", "date": "2026-03-14T21:40:00", "title": "Long ride",
         "text": "Rode 80 km along the coast.\nLegs are done.", "tags": ["cycling"],
         "location": "Half Moon Bay"}])
    (chunk,), problems = run("journal", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#j-2026-03-14"
    assert chunk.content == ("Journal — 2026-03-14: Long ride\nRode 80 km along the coast.\n"
                             "Legs are done.\nTags: cycling\nLocation: Half Moon Bay")
    assert chunk.metadata["timestamp"] == "2026-03-14T21:40:00"
    assert chunk.metadata["tags"] == ["cycling"]


def test_quote_observation_story(tmp_path):
    write_jsonl(tmp_path / "data/identity/quotes.jsonl", [
        {"id": "q1", "date": "2025-11-02", "text": "Make it work, then make it fast.",
         "context": "On the rewrite debate", "source": "1:1 with Sam"}])
    write_jsonl(tmp_path / "data/identity/observations.jsonl", [
        {"id": "o1", "date": "2026-01-10", "observation": "I plan trips obsessively.",
         "category": "habits", "evidence": "Three spreadsheets for one weekend."}])
    write_jsonl(tmp_path / "data/identity/stories.jsonl", [
        {"id": 3, "date": "2019-07-04", "title": "Lost in Yosemite",
         "story": "We missed the trail junction and hiked 6 extra miles.",
         "people": ["Maya Chen"]}])
    (q,), p1 = run("quote", tmp_path, "data/identity/quotes.jsonl")
    (o,), p2 = run("observation", tmp_path, "data/identity/observations.jsonl")
    (s,), p3 = run("story", tmp_path, "data/identity/stories.jsonl")
    assert p1 == p2 == p3 == []
    assert q.content == ('Quote: "Make it work, then make it fast."\nSource: 1:1 with Sam\n'
                         "Context: On the rewrite debate")
    assert q.id == "data/identity/quotes.jsonl#q1"
    assert o.content == ("Observation (habits): I plan trips obsessively.\n"
                         "Evidence: Three spreadsheets for one weekend.")
    assert o.metadata["category"] == "habits"
    assert s.id == "data/identity/stories.jsonl#3"
    assert s.content == ("Story: Lost in Yosemite\nWe missed the trail junction and hiked 6 "
                         "extra miles.\nPeople: Maya Chen")
    assert (q.content_date, o.content_date, s.content_date) == (
        "2025-11-02", "2026-01-10", "2019-07-04")


def test_interview_and_podcast(tmp_path):
    rel = "data/interviews/2026-02-20-values.jsonl"
    write_jsonl(tmp_path / rel, [
        {"session_id": "2026-02-20-values", "date": "2026-02-20",
         "question": "What do you value most in a team?",
         "answer": "Candor. I'd rather hear bad news early."},
        {"session_id": "2026-02-20-values", "date": "2026-02-20",
         "question": "And least?", "answer": "Meetings without an agenda."}])
    chunks, problems = run("interview", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#L1", f"{rel}#L2"]
    assert chunks[0].content == ("Interview 2026-02-20-values (2026-02-20)\n"
                                 "Q: What do you value most in a team?\n"
                                 "A: Candor. I'd rather hear bad news early.")
    assert chunks[0].metadata["session_id"] == "2026-02-20-values"

    rel = "data/podcasts/digests.jsonl"
    write_jsonl(tmp_path / rel, [
        {"date": "2026-03-12", "podcast": "Huberman Lab", "episode": "Sleep toolkit",
         "digest": "Morning light and consistent wake times anchor the circadian clock.",
         "takeaways": ["Get light within an hour of waking", "Cool bedroom, 18 °C"]}])
    (chunk,), problems = run("podcast_digest", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#L1"
    assert chunk.content == (
        "Podcast digest — Huberman Lab: Sleep toolkit (2026-03-12)\n"
        "Morning light and consistent wake times anchor the circadian clock.\n"
        "Takeaways:\n- Get light within an hour of waking\n- Cool bedroom, 18 °C")
    assert chunk.content_date == "2026-03-12"


def test_records_wrong_types_and_duplicates(tmp_path):
    rel = "data/journal/2025.jsonl"
    write_jsonl(tmp_path / rel, [
        {"id": "a", "date": "2025-05-01", "title": "ok", "text": "first"},
        {"id": "a", "date": "2025-05-02", "title": "dup", "text": "second"},
        {"id": "b", "date": "2025-05-03", "text": {"nested": True}},
        {"id": "c", "date": "someday", "text": 12345, "tags": "hiking, sun",
         "location": {"lat": 1}},
        "{broken",
        '"just a string"',
        {"id": "d", "date": 20250505, "text": "a compact yyyymmdd int date"},
    ])
    chunks, problems = run("journal", tmp_path, rel)
    assert [c.id for c in chunks] == [f"{rel}#a", f"{rel}#L2", f"{rel}#c", f"{rel}#d"]
    assert chunks[1].content == "Journal — 2025-05-02: dup\nsecond"
    assert chunks[2].content == "Journal — (undated)\n12345\nTags: hiking, sun"
    assert chunks[2].content_date is None
    assert problems == [
        "line 2: duplicate id 'a'; chunk id uses the line number",
        "line 3: field 'text' should be text, got an object; ignored",
        "line 3: record has no text / title text; skipped",
        "line 4: field 'location' should be text, got an object; ignored",
        "line 4: field 'date': unparseable date 'someday'",
        "line 5: invalid JSON (Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)); line skipped",
        "line 6: expected a JSON object, got a string; line skipped",
    ]
    assert chunks[3].content_date == "2025-05-05"  # an 8-digit int is YYYYMMDD, not epoch


def test_record_ids_never_collide(tmp_path):
    rel = "data/identity/quotes.jsonl"
    write_jsonl(tmp_path / rel, [
        {"id": "L2", "text": "own id that looks like a line id"},
        {"text": "no id, line 2"},
        {"id": "L2", "text": "duplicate of the first"},
        {"id": 7, "text": "numeric id"},
    ])
    chunks, problems = run("quote", tmp_path, rel)
    assert [c.id for c in chunks] == [f"{rel}#L2", f"{rel}#L2.1", f"{rel}#L3", f"{rel}#7"]
    assert problems == ["line 3: duplicate id 'L2'; chunk id uses the line number"]


def test_records_empty_and_invalid_utf8_and_unparseable(tmp_path):
    rel = "data/identity/quotes.jsonl"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    assert run("quote", tmp_path, rel) == ([], [])
    path.write_bytes(b'{"id": "q1", "date": "2026-01-01", "text": "na\xefve"}\n')
    (chunk,), problems = run("quote", tmp_path, rel)
    assert chunk.content == 'Quote: "naïve"'
    assert problems == ["line 1: not UTF-8; read as cp1252 (first at this line)"]
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    with pytest.raises(ExtractError):
        run("quote", tmp_path, rel)
