"""Document extractors: meeting, voice, interview_meta, garmin, cgm (one JSON object a file)."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path

import pytest

from engine.extractors import Chunk, ExtractError, Problems, get_extractor
from engine.extractors.segments import SEGMENT_CHUNK_CHARS


def write_json(root: Path, rel: str, doc) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False),
                    encoding="utf-8")
    return path


def run(source_type: str, root: Path, rel: str) -> tuple[list[Chunk], Problems]:
    problems = Problems()
    chunks = list(get_extractor(source_type).extract(root / rel, rel, problems))
    for c in chunks:
        assert c.source_type == source_type and c.source_file == rel
        json.dumps(c.metadata)
    assert len({c.id for c in chunks}) == len(chunks)
    return chunks, problems


MEETING = {
    "title": "Q2 planning",
    "date": "2026-03-14T10:00:00-07:00",
    "attendees": ["Maya Chen", "Sam Ortiz", "Me"],
    "summary": "Agreed to ship the route importer in April; Sam owns the GPX parser.",
    "segments": [
        {"speaker": "Maya Chen", "start": 0, "end": 14.2,
         "text": "Let's start with the importer timeline."},
        {"speaker": "Sam Ortiz", "start": 14.2, "end": 61.0,
         "text": "I can have the GPX parser done in two weeks."},
        {"speaker": "Me", "start": 3725.5, "end": 3740,
         "text": "Great, let's lock April."},
    ],
}


def test_meeting_summary_and_segment_chunks(tmp_path):
    rel = "data/meetings/processed/2026-03-14-q2-planning.json"
    write_json(tmp_path, rel, MEETING)
    chunks, problems = run("meeting", tmp_path, rel)
    assert problems == []
    assert [c.id for c in chunks] == [f"{rel}#summary", f"{rel}#c0"]
    header = ("Meeting: Q2 planning — 2026-03-14 10:00 — "
              "Attendees: Maya Chen, Sam Ortiz, Me")
    assert chunks[0].content == (header + "\nSummary: Agreed to ship the route importer in "
                                 "April; Sam owns the GPX parser.")
    assert chunks[1].content == "\n".join([
        header,
        "[00:00] Maya Chen: Let's start with the importer timeline.",
        "[00:14] Sam Ortiz: I can have the GPX parser done in two weeks.",
        "[1:02:05] Me: Great, let's lock April.",
    ])
    assert chunks[1].metadata == {
        "title": "Q2 planning", "date": "2026-03-14", "attendees": ["Maya Chen", "Sam Ortiz", "Me"],
        "timestamp": "2026-03-14T10:00:00-07:00", "kind": "transcript", "part": 0,
        "speakers": ["Maya Chen", "Me", "Sam Ortiz"], "start": 0.0, "end": 3740.0}
    assert chunks[0].metadata["kind"] == "summary"
    assert {c.content_date for c in chunks} == {"2026-03-14"}


def test_meeting_long_transcript_is_packed_under_the_limit(tmp_path):
    rel = "data/meetings/processed/2026-03-20-design-review.json"
    sentence = "We walked through the elevation profile rendering and its edge cases. "
    segments = [{"speaker": ["Maya Chen", "Sam Ortiz"][i % 2], "start": 30 * i,
                 "end": 30 * i + 29, "text": sentence * 3} for i in range(40)]
    segments.append({"speaker": "Me", "start": 1500, "end": 1800, "text": sentence * 60})
    write_json(tmp_path, rel, {"title": "Design review", "date": "2026-03-20",
                               "attendees": ["Maya Chen", "Sam Ortiz", "Me"],
                               "segments": segments})
    chunks, problems = run("meeting", tmp_path, rel)
    assert problems == []
    assert chunks[0].id == f"{rel}#c0"  # no summary chunk without a summary
    header = "Meeting: Design review — 2026-03-20 — Attendees: Maya Chen, Sam Ortiz, Me"
    body_lines = []
    for i, c in enumerate(chunks):
        assert c.id == f"{rel}#c{i}"
        assert c.metadata["part"] == i
        assert len(c.content) <= SEGMENT_CHUNK_CHARS
        lines = c.content.split("\n")
        assert lines[0] == header
        body_lines += lines[1:]
    # every segment is present, in order, with its label; the long one is split in pieces
    assert sum(1 for ln in body_lines if ln.startswith("[25:00] Me: ")) == 3
    assert body_lines[0] == "[00:00] Maya Chen: " + (sentence * 3).strip()
    rebuilt = " ".join(ln.split(": ", 1)[1] for ln in body_lines if ln.startswith("[25:00] Me: "))
    assert rebuilt == (sentence * 60).strip()
    assert len(chunks) == 10  # 40 short segments 6 per chunk (7 chunks) + 3 pieces


def test_voice(tmp_path):
    rel = "data/voice/2026-03-15-ride-idea.json"
    write_json(tmp_path, rel, {
        "recorded_at": "2026-03-15T07:42:10-07:00", "title": "Ride idea",
        "segments": [
            {"start": 0.0, "end": 6.5, "text": "Idea for the weekend: loop via Tunitas Creek."},
            {"start": 6.5, "end": 12.0, "text": "Ask Maya if she wants to join."}]})
    (chunk,), problems = run("voice", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#c0"
    assert chunk.content == ("Voice memo: Ride idea — recorded 2026-03-15 07:42\n"
                             "[00:00] Idea for the weekend: loop via Tunitas Creek.\n"
                             "[00:06] Ask Maya if she wants to join.")
    assert chunk.content_date == "2026-03-15"
    assert chunk.metadata["timestamp"] == "2026-03-15T07:42:10-07:00"
    assert chunk.metadata["start"] == 0.0 and chunk.metadata["end"] == 12.0


def test_voice_plain_text_and_filename_date(tmp_path):
    rel = "data/voice/2026-03-16-groceries.json"
    write_json(tmp_path, rel, {"title": "Groceries", "text": "Eggs, oats.\n\nAlso coffee."})
    (chunk,), problems = run("voice", tmp_path, rel)
    assert problems == []
    assert chunk.content == "Voice memo: Groceries — recorded 2026-03-16\nEggs, oats.\nAlso coffee."
    assert chunk.content_date == "2026-03-16"


def test_interview_meta(tmp_path):
    rel = "data/interviews/sessions/2026-02-20-values.json"
    write_json(tmp_path, rel, {"session_id": "2026-02-20-values", "date": "2026-02-20",
                               "topic": "Values at work", "duration_min": 42,
                               "question_count": 12,
                               "summary": "Candor, ownership and calm urgency came up."})
    (chunk,), problems = run("interview_meta", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#session"
    assert chunk.content == ("Interview session 2026-02-20-values — 2026-02-20: Values at work\n"
                             "Duration: 42 min, 12 questions\n"
                             "Candor, ownership and calm urgency came up.")
    assert chunk.metadata == {"session_id": "2026-02-20-values", "date": "2026-02-20",
                              "topic": "Values at work", "duration_min": 42,
                              "question_count": 12}


GARMIN = {
    "date": "2026-03-14", "steps": 11204, "distance_km": 8.1, "active_kcal": 612,
    "resting_hr": 54, "max_hr": 171, "stress_avg": 31,
    "body_battery": {"high": 88, "low": 22},
    "sleep": {"duration_min": 432, "deep_min": 80, "rem_min": 95, "score": 82},
    "activities": [{"type": "run", "duration_min": 42, "distance_km": 8.0, "avg_hr": 151},
                   {"type": "yoga", "duration_min": 30}],
}


def test_garmin_daily_summary(tmp_path):
    rel = "data/health/garmin/2026-03-14.json"
    write_json(tmp_path, rel, GARMIN)
    (chunk,), problems = run("garmin", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#day"
    assert chunk.content == (
        "Garmin daily summary for Saturday 2026-03-14: 11,204 steps, 8.1 km, 612 active kcal, "
        "resting HR 54, max HR 171, avg stress 31, body battery high 88 / low 22. "
        "Sleep 7h12m (deep 1h20m, REM 1h35m, score 82). "
        "Activities: run 42 min 8.0 km avg HR 151; yoga 30 min.")
    assert chunk.content_date == "2026-03-14"
    assert chunk.metadata == {"date": "2026-03-14", "steps": 11204, "distance_km": 8.1,
                              "active_kcal": 612, "resting_hr": 54, "max_hr": 171,
                              "stress_avg": 31, "sleep_min": 432, "sleep_score": 82,
                              "activities": ["run", "yoga"]}


def test_garmin_wrong_types_are_reported_not_raised(tmp_path):
    rel = "data/health/garmin/2026-03-15.json"
    write_json(tmp_path, rel, {"steps": "9,876", "distance_km": "far", "sleep": [1, 2],
                               "activities": {"type": "run"}, "resting_hr": True})
    (chunk,), problems = run("garmin", tmp_path, rel)
    assert chunk.content == "Garmin daily summary for Sunday 2026-03-15: 9,876 steps."
    assert chunk.content_date == "2026-03-15"  # from the file name
    assert problems == [
        "field 'distance_km' should be a number, got 'far'; ignored",
        "field 'resting_hr' should be a number, got a boolean; ignored",
        "'sleep' should be an object, got list; ignored",
        "'activities' should be a list, got dict; ignored",
    ]


def test_cgm_daily_summary(tmp_path):
    rel = "data/health/cgm/2026-03-14.json"
    write_json(tmp_path, rel, {
        "date": "2026-03-14", "unit": "mg/dL", "mean": 104.4, "min": 68, "max": 172,
        "time_in_range_pct": 91, "readings": 288,
        "events": [{"time": "07:40", "kind": "meal", "value": 152, "note": "oatmeal, berries"},
                   {"time": "2026-03-14T18:05:00-07:00", "kind": "exercise", "value": 88}]})
    (chunk,), problems = run("cgm", tmp_path, rel)
    assert problems == []
    assert chunk.id == f"{rel}#day"
    assert chunk.content == (
        "CGM glucose summary for Saturday 2026-03-14: mean 104 mg/dL, range 68–172 mg/dL, "
        "91% time in range, 288 readings. "
        "Events: 07:40 meal (152 mg/dL): oatmeal, berries; 18:05 exercise (88 mg/dL).")
    assert chunk.metadata == {"date": "2026-03-14", "unit": "mg/dL", "mean": 104.4, "min": 68,
                              "max": 172, "time_in_range_pct": 91, "readings": 288,
                              "event_count": 2}


def test_cgm_readings_list_fills_stats(tmp_path):
    rel = "data/health/cgm/2026-03-15.json"
    write_json(tmp_path, rel, {"date": "2026-03-15", "unit": "mmol/L",
                               "readings": [{"time": "00:00", "value": 5.0}, 6.0,
                                            {"time": "00:10", "value": 7.0}, "x"]})
    (chunk,), problems = run("cgm", tmp_path, rel)
    assert chunk.content == ("CGM glucose summary for Sunday 2026-03-15: mean 6 mmol/L, "
                             "range 5–7 mmol/L, 3 readings.")
    assert problems == ["'readings': 1 entries without a numeric value ignored"]


@pytest.mark.parametrize("source_type,rel", [
    ("meeting", "data/meetings/processed/2026-03-14-x.json"),
    ("voice", "data/voice/2026-03-14-x.json"),
    ("interview_meta", "data/interviews/sessions/s1.json"),
    ("garmin", "data/health/garmin/2026-03-14.json"),
    ("cgm", "data/health/cgm/2026-03-14.json"),
])
def test_documents_empty_unparseable_and_non_object(tmp_path, source_type, rel):
    write_json(tmp_path, rel, "")
    assert run(source_type, tmp_path, rel) == ([], [])
    write_json(tmp_path, rel, "  \n")
    assert run(source_type, tmp_path, rel) == ([], [])
    write_json(tmp_path, rel, '{"title": "cut off", "segments": [')
    with pytest.raises(ExtractError, match=r"not valid JSON"):
        run(source_type, tmp_path, rel)
    write_json(tmp_path, rel, '[{"date": "2026-03-14"}]')
    with pytest.raises(ExtractError, match=r"top level must be a JSON object, got an array"):
        run(source_type, tmp_path, rel)


def test_meeting_wrong_types(tmp_path):
    rel = "data/meetings/processed/2026-03-14-standup.json"
    write_json(tmp_path, rel, {"title": 17, "date": "2026-03-14", "attendees": "Maya, Sam",
                               "segments": [
                                   "just a string",
                                   {"speaker": "Maya", "start": "01:30", "text": "Shipped it"},
                                   {"speaker": {"id": 3}, "start": None, "text": 404},
                                   {"speaker": "Sam", "start": 5, "text": {"t": "x"}},
                               ]})
    (chunk,), problems = run("meeting", tmp_path, rel)
    assert chunk.content == ("Meeting: 17 — 2026-03-14 — Attendees: Maya, Sam\n"
                             "[01:30] Maya: Shipped it\n404")
    assert problems == [
        "segment 0: should be an object, got str; skipped",
        "segment 2: field 'speaker' should be text, got an object; ignored",
        "segment 3: field 'text' should be text, got an object; ignored",
    ]
    write_json(tmp_path, rel, {"title": "Standup", "summary": "Short one.", "segments": "none"})
    (chunk,), problems = run("meeting", tmp_path, rel)
    assert chunk.id == f"{rel}#summary"
    assert chunk.content == "Meeting: Standup — 2026-03-14\nSummary: Short one."
    assert problems == ["'segments' should be a list, got str; ignored"]


def test_documents_invalid_utf8_and_nul(tmp_path):
    rel = "data/voice/memo.json"
    path = tmp_path / rel
    path.parent.mkdir(parents=True)
    path.write_bytes(b'{"title": "Caf\xe9", "recorded_at": "2026-03-14T08:00:00",'
                     b' "segments": [{"start": 1, "text": "a\\u0000b"}]}')
    (chunk,), problems = run("voice", tmp_path, rel)
    assert chunk.content == "Voice memo: Café — recorded 2026-03-14 08:00\n[00:01] ab"
    assert problems == ["not UTF-8; read as cp1252"]


def test_document_without_any_date_falls_back_to_mtime(tmp_path):
    rel = "data/interviews/sessions/intro.json"
    path = write_json(tmp_path, rel, {"session_id": "intro", "summary": "First session."})
    stamp = datetime(2025, 12, 24, 12, 0).timestamp()
    os.utime(path, (stamp, stamp))
    (chunk,), _ = run("interview_meta", tmp_path, rel)
    assert chunk.content_date == "2025-12-24"
    assert chunk.content == "Interview session intro\nFirst session."
    assert chunk.metadata == {"session_id": "intro"}
    # the mtime only drives content_date: touching the file keeps the hash
    stamp2 = datetime(2026, 1, 5, 12, 0).timestamp()
    os.utime(path, (stamp2, stamp2))
    (again,), _ = run("interview_meta", tmp_path, rel)
    assert again.content_date == "2026-01-05"
    assert again.content_hash == chunk.content_hash


def test_unreadable_path_raises_extract_error(tmp_path):
    (tmp_path / "data/health/garmin/2026-03-14.json").mkdir(parents=True)
    with pytest.raises(ExtractError, match="cannot read 2026-03-14.json"):
        run("garmin", tmp_path, "data/health/garmin/2026-03-14.json")
