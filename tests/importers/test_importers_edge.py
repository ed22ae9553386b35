"""Importers on hand-made exports: every style, broken input, appends, people, atomicity."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import pytest

from engine.extractors import Problems, get_extractor
from engine.importers import ImportFailed, get_importer, run_import
from engine.importers import atomic as importer_atomic
from engine.scanner import discover
from tests.importers.conftest import ACCOUNT, DAY1, DAY2, slack_export, write

TZ = "Europe/Berlin"


def imp(kind, source, root, **kw):
    return run_import(kind, source, root, local_tz=kw.pop("local_tz", TZ), **kw)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def extract(root: Path, rel: str):
    f = {s.rel: s for s in discover(root)}[rel]
    problems = Problems()
    chunks = list(get_extractor(f.source_type).extract(f.path, rel, problems))
    return chunks, problems




# --------------------------------------------------------------------------- slack





def test_slack_threads_bots_and_mrkdwn(tmp_path):
    src = slack_export(tmp_path / "export")
    write(src / "D1/2026-03-14.json", json.dumps([{"type": "message", "user": "U2",
                                                    "text": "psst", "ts": "1773480000.0"}]))
    report = imp("slack", src, tmp_path / "root")
    assert report.problems == [] and report.ok
    assert sorted(report.files_written) == ["data/slack/dm-Maya-Chen-Sam-Ortiz.jsonl",
                                            "data/slack/general.jsonl"]
    msgs = read_jsonl(tmp_path / "root/data/slack/general.jsonl")
    assert [m["user"] for m in msgs] == ["Maya Chen", "Maya Chen", "Sam Ortiz", "CI",
                                         "Sam Ortiz", "Maya Chen", "Guest Person"]
    join, parent, reply, bot, share, reply2, guest = msgs
    assert join["text"] == "Maya Chen has joined the channel"
    assert parent == {"ts": "2026-03-14T10:12:05+01:00", "user": "Maya Chen",
                      "text": "Did the route import finish? @here",
                      "thread_ts": "2026-03-14T10:12:05+01:00", "id": "1773479525.000200",
                      "user_id": "U1", "tz": TZ}
    assert reply["text"] == ("@Maya Chen yes, see #random and run 7 (https://example.com/run/7)"
                             " & sam@example.com")
    assert reply["thread_ts"] == reply2["thread_ts"] == parent["ts"]
    assert bot["text"] == "Build #12\npassed" and bot["bot_id"] == "B9"
    assert share["text"] == "shared elevation.csv"
    assert guest["thread_ts"] is None
    chunks, problems = extract(tmp_path / "root", "data/slack/general.jsonl")
    assert not problems and chunks[0].metadata["threads"] == [parent["ts"]]


def test_slack_broken_day_file_is_reported_and_the_rest_imported(tmp_path):
    src = slack_export(tmp_path / "export")
    write(src / "general/2026-03-15.json", '[\n  {"type": "message",\n  "text": "cut off')
    report = imp("slack", src, tmp_path / "root")
    assert report.ok and report.records_imported == len(DAY1)
    (file, line, message), = report.problems
    assert file == "general/2026-03-15.json" and line == 3 and "invalid JSON" in message


def test_slack_message_with_bad_ts_reports_its_line(tmp_path):
    src = slack_export(tmp_path / "export", {"general/2026-03-14.json": [
        DAY1[1], {"type": "message", "user": "U1", "text": "x", "ts": "yesterday"}]})
    report = imp("slack", src, tmp_path / "root")
    assert report.records_imported == 1
    text = (src / "general/2026-03-14.json").read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if '"ts": "yesterday"' in t)
    assert report.problems == [("general/2026-03-14.json", line,
                                "message without a valid 'ts' ('yesterday'); skipped")]


def zip_folder(folder: Path, target: Path, prefix: str = "") -> Path:
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        # metadata first, like Slack's own archives: a cut only loses the last day files
        for p in sorted(folder.rglob("*"), key=lambda p: (len(p.relative_to(folder).parts),
                                                          p.as_posix())):
            if p.is_file():
                zf.write(p, prefix + p.relative_to(folder).as_posix())
    return target


def test_slack_zip_and_truncated_zip(tmp_path):
    src = slack_export(tmp_path / "export")
    archive = zip_folder(src, tmp_path / "slack.zip", prefix="My Workspace Slack export/")
    whole = imp("slack", archive, tmp_path / "a")
    assert whole.records_imported == len(DAY1) + len(DAY2) and whole.problems == []
    # cut the archive inside the last day file: its central directory is gone
    data = archive.read_bytes()
    last = data.find(b"general/2026-03-15.json")  # its local header
    cut = write(tmp_path / "cut.zip", data[:last + 60])
    report = imp("slack", cut, tmp_path / "b")
    assert report.ok and report.records_imported == len(DAY1)
    messages = [p[2] for p in report.problems]
    assert any("damaged zip" in m for m in messages)
    assert any("2026-03-15.json: entry is truncated" in m for m in messages)
    assert read_jsonl(tmp_path / "b/data/slack/general.jsonl") == read_jsonl(
        tmp_path / "a/data/slack/general.jsonl")[:len(DAY1)]
    # a zip with nothing recoverable is unusable input
    write(tmp_path / "tiny.zip", data[:20])
    with pytest.raises(ImportFailed, match="zip"):
        imp("slack", tmp_path / "tiny.zip", tmp_path / "c")


def test_slack_newer_export_appends_only_new_messages(tmp_path):
    root = tmp_path / "root"
    old = slack_export(tmp_path / "old", {"general/2026-03-14.json": DAY1})
    imp("slack", old, root)
    log = root / "data/slack/general.jsonl"
    before = log.read_bytes()
    new = slack_export(tmp_path / "new")
    report = imp("slack", new, root)
    assert report.records_imported == len(DAY2)
    assert report.records_skipped_duplicate == len(DAY1)
    after = log.read_bytes()
    assert after.startswith(before)  # append-only: old bytes untouched
    assert [m["text"] for m in read_jsonl(log)[len(DAY1):]] == [
        "Thanks! Elevation still looks off.", "hello from a guest"]
    assert report.notes == []


def test_slack_new_message_older_than_the_log_is_appended_with_a_note(tmp_path):
    root = tmp_path / "root"
    imp("slack", slack_export(tmp_path / "new"), root)
    late = {"type": "message", "user": "U2", "text": "found an old one",
            "ts": "1773479000.000001"}
    days = {"general/2026-03-14.json": [late, *DAY1], "general/2026-03-15.json": DAY2}
    report = imp("slack", slack_export(tmp_path / "newer", days), root)
    assert report.records_imported == 1
    assert read_jsonl(root / "data/slack/general.jsonl")[-1]["text"] == "found an old one"
    assert report.notes == ["data/slack/general.jsonl: 1 new message(s) older than the file's "
                            "last message were appended at the end (the log is append-only)"]


def test_slack_log_without_final_newline_and_hand_written_lines(tmp_path):
    root = tmp_path / "root"
    log = write(root / "data/slack/general.jsonl",
                json.dumps({"ts": "2026-03-14T10:12:05+01:00", "user": "Maya Chen",
                            "text": "Did the route import finish? @here"}))
    report = imp("slack", slack_export(tmp_path / "export"), root)
    # the hand-written line is recognised by time, sender and text (it has no id)
    assert report.records_skipped_duplicate == 1
    rows = read_jsonl(log)
    assert len(rows) == len(DAY1) + len(DAY2)
    assert "id" not in rows[0] and rows[1]["id"] == "1773479400.000100"


def test_not_a_slack_export(tmp_path):
    write(tmp_path / "export/readme.txt", "hello")
    with pytest.raises(ImportFailed, match="not a Slack export"):
        imp("slack", tmp_path / "export", tmp_path / "root")


# --------------------------------------------------------------------------- telegram



def test_telegram_full_account_export(tmp_path):
    src = write(tmp_path / "DataExport/result.json", json.dumps(ACCOUNT, indent=1))
    report = imp("telegram", src.parent, tmp_path / "root", people=True)
    assert sorted(report.files_written) == ["data/telegram/Family.jsonl",
                                            "data/telegram/Maya-Chen.jsonl"]
    maya = read_jsonl(tmp_path / "root/data/telegram/Maya-Chen.jsonl")
    assert maya[0]["date"] == "2026-03-14T10:12:05+01:00"  # date_unixtime, shown locally
    assert maya[1]["text"] == "yes! route: Tunitas (https://maps.example/t) 8am"
    assert maya[1]["reply_to"] == 1 and len(maya) == 2
    family = read_jsonl(tmp_path / "root/data/telegram/Family.jsonl")
    assert [m["text"] for m in family] == ['created the group "Family"', "added Mom, Dad",
                                           "Dinner Sunday at 6?"]
    assert family[0]["service"] is True and family[0]["from"] == "Alex Kim"
    lines = src.read_text().splitlines()
    bad_date = next(i for i, t in enumerate(lines, 1) if '"date": "14.03.2026 18:02"' in t)
    assert [(p[0], p[2][:30]) for p in report.problems] == [
        ("result.json", "message 3: unrecognised date '"),
        ("result.json", "message 5: 'text' is neither a")]
    assert report.problems[0][1] == bad_date - 2  # the line of the message's "id"
    # the owner is not a person; a personal chat adds its contact; a group its members
    assert report.people_added == ["Maya Chen (new)", "Mom (new)"]


def test_telegram_newer_export_appends(tmp_path):
    chat = {"name": "Maya Chen", "type": "personal_chat", "id": 11,
            "messages": ACCOUNT["chats"]["list"][0]["messages"][:1]}
    root = tmp_path / "root"
    imp("telegram", write(tmp_path / "a/result.json", json.dumps(chat)), root)
    chat["messages"] = ACCOUNT["chats"]["list"][0]["messages"]
    report = imp("telegram", write(tmp_path / "b/result.json", json.dumps(chat)), root)
    assert (report.records_imported, report.records_skipped_duplicate) == (1, 1)
    assert [m["id"] for m in read_jsonl(root / "data/telegram/Maya-Chen.jsonl")] == [1, 2]


def test_telegram_rejects_other_json(tmp_path):
    with pytest.raises(ImportFailed, match="not a Telegram export"):
        imp("telegram", write(tmp_path / "result.json", '{"hello": 1}'), tmp_path / "root")
    with pytest.raises(ImportFailed, match="not JSON"):
        imp("telegram", write(tmp_path / "x/result.json", "{broken"), tmp_path / "root")


# --------------------------------------------------------------------------- whatsapp

WHATSAPP_STYLES = {
    "android-ddmmyy-24h": (
        "15/01/20, 14:00 - Maya created group \"Trip\"\n"
        "15/01/20, 14:05 - Maya: Hi all\nsecond line\n"
        "15/01/20, 14:06 - Sam: <Media omitted>\n"
        "16/01/20, 09:30 - Sam: Morning!\n"),
    "android-mmddyy-12h-narrow-nbsp": (
        "1/15/20, 2:00\u202fPM - Maya created group \"Trip\"\n"
        "1/15/20, 2:05\u202fPM - Maya: Hi all\nsecond line\n"
        "1/15/20, 2:06\u202fPM - Sam: <Media omitted>\n"
        "1/16/20, 9:30\u202fAM - Sam: Morning!\n"),
    "android-dd.mm.yyyy": (
        "15.01.2020, 14:00 - Maya created group \"Trip\"\n"
        "15.01.2020, 14:05 - Maya: Hi all\nsecond line\n"
        "15.01.2020, 14:06 - Sam: <Media omitted>\n"
        "16.01.2020, 09:30 - Sam: Morning!\n"),
    "android-spanish-a.-m.": (
        "15/1/2020, 2:00 p. m. - Maya created group \"Trip\"\n"
        "15/1/2020, 2:05 p. m. - Maya: Hi all\nsecond line\n"
        "15/1/2020, 2:06 p. m. - Sam: <Media omitted>\n"
        "16/1/2020, 9:30 a. m. - Sam: Morning!\n"),
    "android-yyyy-mm-dd": (
        "2020-01-15, 14:00 - Maya created group \"Trip\"\n"
        "2020-01-15, 14:05 - Maya: Hi all\nsecond line\n"
        "2020-01-15, 14:06 - Sam: <Media omitted>\n"
        "2020-01-16, 09:30 - Sam: Morning!\n"),
    "ios-brackets-lrm": (
        "[15/01/20, 14:00:00] Trip: \u200eMaya created group \u201cTrip\u201d\n"
        "[15/01/20, 14:05:00] Maya: Hi all\nsecond line\n"
        "\u200e[15/01/20, 14:06:00] Sam: \u200eimage omitted\n"
        "[16/01/20, 09:30:00] Sam: Morning!\n"),
    "ios-dashes-no-comma": (
        "[15-01-20 14:00:00] Trip: \u200eMaya created group \u201cTrip\u201d\n"
        "[15-01-20 14:05:00] Maya: Hi all\nsecond line\n"
        "[15-01-20 14:06:00] Sam: \u200e<attached: 00000012-PHOTO-2020-01-15.jpg>\n"
        "[16-01-20 09:30:00] Sam: Morning!\n"),
    "ios-mmddyy-12h": (
        "[1/15/20, 2:00:00 PM] Trip: \u200eMaya created group \u201cTrip\u201d\n"
        "[1/15/20, 2:05:00 PM] Maya: Hi all\nsecond line\n"
        "[1/15/20, 2:06:00 PM] Sam: \u200eimage omitted\n"
        "[1/16/20, 9:30:00 AM] Sam: Morning!\n"),
}


@pytest.mark.parametrize("style", sorted(WHATSAPP_STYLES))
def test_whatsapp_styles(tmp_path, style):
    src = write(tmp_path / "WhatsApp Chat with Trip.txt", WHATSAPP_STYLES[style])
    report = imp("whatsapp", src, tmp_path / "root")
    assert report.problems == [] and report.files_written == [
        "data/whatsapp/Trip.jsonl"]
    msgs = read_jsonl(tmp_path / "root/data/whatsapp/Trip.jsonl")
    assert [(m["date"][:16], m["from"], m["text"]) for m in msgs] == [
        ("2020-01-15T14:00", "system" if style.startswith("android") else "Trip",
         "Maya created group \"Trip\"" if style.startswith("android")
         else "Maya created group \u201cTrip\u201d"),
        ("2020-01-15T14:05", "Maya", "Hi all\nsecond line"),
        ("2020-01-16T09:30", "Sam", "Morning!"),
    ]
    assert msgs[0]["system"] is True and msgs[1]["date"].endswith("+01:00")
    assert report.records_skipped == {"media without text": 1}
    chunks, problems = extract(tmp_path / "root", "data/whatsapp/Trip.jsonl")
    assert not problems and "[2020-01-15 14:05] Maya: Hi all\nsecond line" in chunks[0].content


def test_whatsapp_ambiguous_dates_are_noted(tmp_path):
    src = write(tmp_path / "chat.txt", "01/02/20, 10:00 - Maya: one\n03/02/20, 11:00 - Sam: two\n")
    report = imp("whatsapp", src, tmp_path / "root")
    msgs = read_jsonl(tmp_path / "root/data/whatsapp/chat.jsonl")
    assert [m["date"][:10] for m in msgs] == ["2020-02-01", "2020-02-03"]  # day first
    assert report.notes == ["chat.txt: dates read day/month (01/02/20 \u2192 03/02/20: spans "
                            "2 days that way, 60 the other)"]  # the sequence decides


def test_whatsapp_unknown_date_format_and_invalid_dates(tmp_path):
    src = write(tmp_path / "chat.txt", (
        "15/01/20, 10:00 - Maya: fine\n"
        "Jan 16, 2020, 10:00 - Maya: unknown format\ncontinued\n"
        "31/02/20, 10:00 - Sam: no such day\n"
        "17/01/20, 10:00 - Sam: also fine\n"))
    report = imp("whatsapp", src, tmp_path / "root")
    assert report.ok and report.records_imported == 2
    assert [(p[0], p[1]) for p in report.problems] == [("chat.txt", 2), ("chat.txt", 4)]
    assert "unrecognised date/time format" in report.problems[0][2]
    msgs = read_jsonl(tmp_path / "root/data/whatsapp/chat.jsonl")
    assert [m["text"] for m in msgs] == ["fine", "also fine"]


def test_whatsapp_binary_file(tmp_path):
    blob = bytes(range(256)) * 8
    with pytest.raises(ImportFailed, match="binary"):
        imp("whatsapp", write(tmp_path / "chat.txt", blob), tmp_path / "root")
    folder = tmp_path / "chats"
    write(folder / "broken.txt", blob)
    write(folder / "good.txt", "15/01/20, 10:00 - Maya: fine\n")
    report = imp("whatsapp", folder, tmp_path / "root")
    assert report.ok and report.records_imported == 1
    assert report.problems == [("broken.txt", None, "binary file, not a chat export; skipped")]


def test_whatsapp_zip_newer_export_and_repeated_messages(tmp_path):
    root = tmp_path / "root"
    old = "15/01/20, 10:00 - Maya: ok\n15/01/20, 10:00 - Maya: ok\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("_chat.txt", old)
    write(tmp_path / "WhatsApp Chat - Maya Chen.zip", buf.getvalue())
    first = imp("whatsapp", tmp_path / "WhatsApp Chat - Maya Chen.zip", root)
    assert first.files_written == ["data/whatsapp/Maya Chen.jsonl"]
    assert first.records_imported == 2  # the same words twice are two messages
    newer = write(tmp_path / "WhatsApp Chat with Maya Chen.txt",
                  old + "15/01/20, 10:01 - Sam: ok\n15/01/20, 10:00 - Maya: ok\n")
    report = imp("whatsapp", newer, root)
    assert (report.records_imported, report.records_skipped_duplicate) == (2, 2)
    assert len(read_jsonl(root / "data/whatsapp/Maya Chen.jsonl")) == 4


# --------------------------------------------------------------------------- vtt / srt

TEAMS = """WEBVTT

0a1b2c3d-4e5f/12-0
00:00:01.000 --> 00:00:04.500
<v Maya Chen>Let's start with the importer timeline.</v>

0a1b2c3d-4e5f/13-0
00:00:04.500 --> 00:01:02.000
<v Sam Ortiz>I can have the GPX parser
done in two weeks.</v>

0a1b2c3d-4e5f/14-0
01:00:02.000 --> 01:00:05.000
<v Maya Chen>Great &amp; thanks.</v>
"""

ZOOM = """WEBVTT

1
00:00:00.530 --> 00:00:03.910
Maya Chen: Good morning everyone.

2
00:00:04.100 --> 00:00:08.000
Sam Ortiz: Morning! Quick update on elevation.

3
00:00:08.200 --> 00:00:09.000
Maya Chen: Go ahead.
"""


def test_vtt_teams_voice_spans(tmp_path):
    src = write(tmp_path / "2026-03-14 10.00 Q2 planning.vtt", TEAMS)
    report = imp("vtt", src, tmp_path / "root", people=True)
    assert report.files_written == ["data/meetings/processed/2026-03-14-q2-planning.json"]
    doc = json.loads((tmp_path / "root" / report.files_written[0]).read_text())
    assert doc["title"] == "Q2 planning" and doc["date"] == "2026-03-14T10:00:00+01:00"
    assert doc["attendees"] == ["Maya Chen", "Sam Ortiz"]
    assert doc["segments"] == [
        {"speaker": "Maya Chen", "start": 1.0, "end": 4.5,
         "text": "Let's start with the importer timeline."},
        {"speaker": "Sam Ortiz", "start": 4.5, "end": 62.0,
         "text": "I can have the GPX parser done in two weeks."},
        {"speaker": "Maya Chen", "start": 3602.0, "end": 3605.0, "text": "Great & thanks."}]
    assert report.people_added == ["Maya Chen (new)", "Sam Ortiz (new)"]
    chunks, problems = extract(tmp_path / "root", report.files_written[0])
    assert not problems
    assert chunks[0].content.splitlines()[1:] == [
        "[00:01] Maya Chen: Let's start with the importer timeline.",
        "[00:04] Sam Ortiz: I can have the GPX parser done in two weeks.",
        "[1:00:02] Maya Chen: Great & thanks."]


def test_vtt_zoom_folder_prefers_the_transcript_over_captions(tmp_path):
    folder = tmp_path / "zoom"
    write(folder / "GMT20240124-202901_Recording.transcript.vtt", ZOOM)
    write(folder / "GMT20240124-202901_Recording.cc.vtt",
          "WEBVTT\n\n1\n00:00:00.000 --> 00:00:04.000\nGood morning everyone.\n")
    report = imp("vtt", folder, tmp_path / "root")
    assert report.files_written == ["data/meetings/processed/2024-01-24-zoom-meeting.json"]
    assert report.records_skipped == {
        "Zoom caption files (the .transcript.vtt of the meeting was used)": 1}
    doc = json.loads((tmp_path / "root" / report.files_written[0]).read_text())
    assert doc["date"] == "2024-01-24T21:29:01+01:00"  # GMT in the name, shown locally
    assert [(s["speaker"], s["text"]) for s in doc["segments"]] == [
        ("Maya Chen", "Good morning everyone."),
        ("Sam Ortiz", "Morning! Quick update on elevation."), ("Maya Chen", "Go ahead.")]


def test_vtt_plain_captions_have_no_speakers(tmp_path):
    src = write(tmp_path / "2026-03-01 lecture.vtt",
                "WEBVTT\n\n00:01.000 --> 00:04.000\nNote: this is not a speaker\n\n"
                "00:04.000 --> 00:06.000\nand neither is this\n\n"
                "00:07.000 -> 00:09.000\nbroken timing\n\n"
                "00:09.000 --> 00:10.000\n<c.yellow>the end</c>\n")
    report = imp("vtt", src, tmp_path / "root")
    doc = json.loads((tmp_path / "root" / report.files_written[0]).read_text())
    assert doc["attendees"] == [] and all("speaker" not in s for s in doc["segments"])
    assert [s["text"] for s in doc["segments"]] == [
        "Note: this is not a speaker", "and neither is this", "the end"]
    assert report.problems == [("2026-03-01 lecture.vtt", 9, "unreadable cue timing "
                                "'00:07.000 -> 00:09.000'; cue skipped")]


def test_vtt_unreadable_timing_is_reported(tmp_path):
    src = write(tmp_path / "2026-03-01 lecture.vtt",
                "WEBVTT\n\n00:01.000 --> 00:04.000\nfirst\n\nbad\n00:0x.000 --> 00:09.000\n"
                "lost\n\n00:09.000 --> 00:10.000\nlast\n")
    report = imp("vtt", src, tmp_path / "root")
    assert report.problems == [("2026-03-01 lecture.vtt", 7,
                                "unreadable cue timing '00:0x.000 --> 00:09.000'; cue skipped")]
    doc = json.loads((tmp_path / "root" / report.files_written[0]).read_text())
    assert [s["text"] for s in doc["segments"]] == ["first", "last"]


def test_srt_with_speaker_names(tmp_path):
    src = write(tmp_path / "standup 2026-03-02.srt",
                "1\n00:00:01,000 --> 00:00:02,500\nMAYA: Morning.\n\n"
                "2\n00:00:03,000 --> 00:00:05,000\nSAM: Elevation fix\nis merged.\n")
    report = imp("srt", src, tmp_path / "root")
    assert report.files_written == ["data/meetings/processed/2026-03-02-standup.json"]
    doc = json.loads((tmp_path / "root" / report.files_written[0]).read_text())
    assert doc["segments"] == [
        {"speaker": "MAYA", "start": 1.0, "end": 2.5, "text": "Morning."},
        {"speaker": "SAM", "start": 3.0, "end": 5.0, "text": "Elevation fix is merged."}]


def test_transcript_rejects_non_transcripts(tmp_path):
    with pytest.raises(ImportFailed, match="no cue timings"):
        imp("srt", write(tmp_path / "x.srt", "just some text\n"), tmp_path / "root")
    with pytest.raises(ImportFailed, match="binary"):
        imp("vtt", write(tmp_path / "y.vtt", b"\x00\x01\x02" * 100), tmp_path / "root")


def test_meeting_reimport_keeps_a_summary_the_user_added(tmp_path):
    src = write(tmp_path / "2026-03-14 10.00 Q2 planning.vtt", TEAMS)
    root = tmp_path / "root"
    rel = imp("vtt", src, root).files_written[0]
    doc = json.loads((root / rel).read_text())
    doc["summary"] = "Ship in April."
    (root / rel).write_text(json.dumps(doc, indent=2))
    again = imp("vtt", src, root)
    assert again.files_written == [] and json.loads((root / rel).read_text())["summary"] == (
        "Ship in April.")


# --------------------------------------------------------------------------- whisper

def test_whisperx_and_whisper_cpp(tmp_path):
    folder = tmp_path / "memos"
    write(folder / "2026-03-15 07.42.10 Ride idea.json", json.dumps({
        "segments": [{"start": 0.0, "end": 6.5, "text": " Weekend loop via Tunitas Creek.",
                      "speaker": "SPEAKER_00", "words": [{"word": "Weekend"}]},
                     {"start": 6.5, "end": 12.0, "text": " Ask Maya if she wants to join.",
                      "speaker": "SPEAKER_01"},
                     {"start": 12.0, "end": 13.0, "text": "  "}],
        "word_segments": []}))
    write(folder / "20260316_0800.wav.json", json.dumps({"transcription": [
        {"timestamps": {"from": "00:00:00,000", "to": "00:00:02,000"},
         "offsets": {"from": 0, "to": 2000}, "text": " Buy chain lube."}]}))
    write(folder / "notes.json", json.dumps({"hello": "world"}))
    report = imp("whisper", folder, tmp_path / "root", people=True)
    assert sorted(report.files_written) == ["data/voice/2026-03-15-ride-idea.json",
                                            "data/voice/2026-03-16-voice-memo.json"]
    assert report.problems == [("notes.json", None, "not a Whisper transcript; skipped")]
    assert report.records_skipped == {"empty segments": 1}
    ride = json.loads((tmp_path / "root/data/voice/2026-03-15-ride-idea.json").read_text())
    assert ride["recorded_at"] == "2026-03-15T07:42:10+01:00" and ride["title"] == "Ride idea"
    assert ride["segments"][1] == {"start": 6.5, "end": 12.0,
                                   "text": "Ask Maya if she wants to join.",
                                   "speaker": "SPEAKER_01"}
    cpp = json.loads((tmp_path / "root/data/voice/2026-03-16-voice-memo.json").read_text())
    assert cpp["recorded_at"] == "2026-03-16T08:00:00+01:00"
    assert cpp["segments"] == [{"start": 0.0, "end": 2.0, "text": "Buy chain lube."}]
    assert report.people_added == []  # diarisation labels are not people
    chunks, problems = extract(tmp_path / "root", "data/voice/2026-03-15-ride-idea.json")
    assert not problems and "[00:06] SPEAKER_01: Ask Maya" in chunks[0].content


# --------------------------------------------------------------------------- garmin

def test_garmin_gdpr_export_zip(tmp_path):
    uds = [{"calendarDate": "2026-03-14", "totalSteps": 11204, "totalDistanceMeters": 8100,
            "activeKilocalories": 612.0, "restingHeartRate": 54, "maxHeartRate": 171,
            "bodyBattery": {"bodyBatteryStatList": [
                {"bodyBatteryStatType": "HIGHEST", "statsValue": 88},
                {"bodyBatteryStatType": "LOWEST", "statsValue": 22}]},
            "allDayStress": {"aggregatorList": [{"type": "TOTAL", "averageStressLevel": 31},
                                                {"type": "AWAKE", "averageStressLevel": 35}]}},
           {"calendarDate": "2026-03-15", "totalSteps": 500, "averageStressLevel": -1}]
    sleep = [{"calendarDate": "2026-03-14", "deepSleepSeconds": 4800,
              "lightSleepSeconds": 15600, "remSleepSeconds": 5700, "awakeSleepSeconds": 600,
              "sleepScores": {"overallScore": 82}}]
    acts = [{"summarizedActivitiesExport": [
        {"activityId": 1, "activityType": "running", "startTimeLocal": 1773478800000,
         "duration": 2520000.0, "distance": 800000.0, "avgHr": 151}]}]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("DI_CONNECT/DI-Connect-Aggregator/UDSFile_2026-01-01_2026-04-01.json",
                    json.dumps(uds))
        zf.writestr("DI_CONNECT/DI-Connect-Wellness/2026-01-01_2026-04-01_1_sleepData.json",
                    json.dumps(sleep))
        zf.writestr("DI_CONNECT/DI-Connect-Fitness/me_0_summarizedActivities.json",
                    json.dumps(acts))
        zf.writestr("DI_CONNECT/DI-Connect-User/user_profile.json", json.dumps({"a": 1}))
        zf.writestr("DI_CONNECT/DI-Connect-Wellness/broken.json", "{nope")
    src = write(tmp_path / "garmin.zip", buf.getvalue())
    root = tmp_path / "root"
    write(root / "data/health/garmin/2026-03-14.json",
          json.dumps({"date": "2026-03-14", "my_note": "felt great"}))
    report = imp("garmin", src, root)
    assert sorted(report.files_written) == ["data/health/garmin/2026-03-14.json",
                                            "data/health/garmin/2026-03-15.json"]
    assert report.problems == [("garmin.zip:DI_CONNECT/DI-Connect-Wellness/broken.json", 1,
                                "invalid JSON (Expecting property name enclosed in double "
                                "quotes: line 1 column 2 (char 1)); skipped")]
    day = json.loads((root / "data/health/garmin/2026-03-14.json").read_text())
    assert day["my_note"] == "felt great"  # the user's field survives
    assert (day["steps"], day["distance_km"], day["active_kcal"]) == (11204, 8.1, 612)
    assert day["stress_avg"] == 31 and day["body_battery"] == {"high": 88, "low": 22}
    assert day["sleep"] == {"duration_min": 435, "deep_min": 80, "rem_min": 95, "score": 82}
    assert day["activities"] == [{"type": "running", "duration_min": 42.0, "distance_km": 8.0,
                                  "avg_hr": 151}]
    assert "stress_avg" not in json.loads((root / "data/health/garmin/2026-03-15.json")
                                          .read_text())
    chunks, problems = extract(root, "data/health/garmin/2026-03-14.json")
    assert not problems and chunks[0].content.endswith(
        "Sleep 7h15m (deep 1h20m, REM 1h35m, score 82). Activities: running 42 min 8.0 km "
        "avg HR 151.")


def test_garmin_single_file_that_is_not_garmin(tmp_path):
    with pytest.raises(ImportFailed, match="not Garmin"):
        imp("garmin", write(tmp_path / "x.json", '{"a": 1}'), tmp_path / "root")


# --------------------------------------------------------------------------- day one

def dayone_entry(uuid: str, text: str, created: str, **extra) -> dict:
    return {"uuid": uuid, "creationDate": created, "timeZone": "America/Los_Angeles",
            "text": text, **extra}


def test_dayone_upserts_edited_entries_and_keeps_user_lines(tmp_path):
    root = tmp_path / "root"
    mine = json.dumps({"id": "j-2026-03-01", "date": "2026-03-01", "text": "my own line"})
    write(root / "data/journal/2026.jsonl", mine + "\n")
    entries = [
        dayone_entry("A1", "# Long ride\n\nRode 80 km along the coast\\. Legs are done\\.",
                     "2026-03-15T05:40:00Z", tags=["cycling"], starred=True,
                     location={"placeName": "Half Moon Bay", "localityName": "Half Moon Bay",
                               "administrativeArea": "CA", "country": "United States"},
                     weather={"conditionsDescription": "Sunny", "temperatureCelsius": 17.6}),
        dayone_entry("B2", "Quiet day.", "2026-03-16T06:00:00Z"),
    ]
    src = write(tmp_path / "Journal.json", json.dumps({"metadata": {"version": "1.0"},
                                                       "entries": entries}, indent=2))
    imp("dayone", src, root)
    rows = read_jsonl(root / "data/journal/2026.jsonl")
    assert rows[0] == json.loads(mine)
    assert rows[1] == {"id": "dayone-A1", "date": "2026-03-14T22:40:00-07:00",
                       "title": "Long ride", "text": "Rode 80 km along the coast. Legs are done.",
                       "tags": ["cycling"], "location": "Half Moon Bay, CA, United States",
                       "journal": "Journal", "tz": "America/Los_Angeles", "starred": True,
                       "weather": "Sunny, 18 °C"}
    entries[1]["text"] = "Quiet day. Fixed the chain."
    write(src, json.dumps({"entries": entries}))
    report = imp("dayone", src, root)
    assert (report.records_imported, report.records_skipped_duplicate) == (1, 1)
    rows = read_jsonl(root / "data/journal/2026.jsonl")
    assert len(rows) == 3 and rows[2]["text"] == "Quiet day. Fixed the chain."
    chunks, problems = extract(root, "data/journal/2026.jsonl")
    assert not problems and chunks[1].id == "data/journal/2026.jsonl#dayone-A1"


def test_dayone_bad_entry_is_reported_with_its_line(tmp_path):
    src = write(tmp_path / "Journal.json", json.dumps({"entries": [
        dayone_entry("A1", "ok", "2026-03-15T05:40:00Z"),
        dayone_entry("B2", "bad date", "someday")]}, indent=2))
    report = imp("dayone", src, tmp_path / "root")
    assert report.records_imported == 1
    line = src.read_text().splitlines().index('      "uuid": "B2",') + 1
    assert report.problems == [("Journal.json", line,
                                "entry B2: unrecognised creationDate 'someday'; skipped")]
    with pytest.raises(ImportFailed, match="not a Day One export"):
        imp("dayone", write(tmp_path / "other.json", "[]"), tmp_path / "root")


# --------------------------------------------------------------------------- obsidian

def test_obsidian_vault_conversion(tmp_path):
    vault = tmp_path / "My Vault"
    write(vault / ".obsidian/templates.json", json.dumps({"folder": "Meta/Templates"}))
    write(vault / ".obsidian/daily-notes.json", json.dumps({"folder": "Journal",
                                                            "format": "DD.MM.YYYY"}))
    write(vault / "Meta/Templates/Daily.md", "{{date}}")
    write(vault / ".trash/old.md", "deleted")
    write(vault / "attachments/photo.png", b"\x89PNG\r\n")
    write(vault / "Journal/14.03.2026.md", "Rode with [[Maya Chen|Maya]] #cycling\n")
    write(vault / "Journal/2026-03-15.md", "Rest day.\n")
    write(vault / "Projects/Route importer.md", (
        "---\ntags: [project/alpha]\npeople: [\"[[Sam Ortiz]]\"]\n---\n"
        "See [[Elevation#Smoothing]] and [[Notes/GPX parser]] or [[#Goals]].\n"
        "![[photo.png]] ![[Board.base#Table]] ![[Elevation]] [[Elevation#^a1b2c3]]\n"
        "Inline `[[not a link]]` stays.\n\n```\n[[code stays]]\n```\n\n## Goals\n"
        "- Import GPX #perf/elevation\n"))
    write(vault / "Broken.md", "---\ntitle: [unclosed\n---\nBody text.\n")
    report = imp("obsidian", vault, tmp_path / "root", people=True)
    base = tmp_path / "root/notes/My-Vault"
    assert sorted(report.files_written) == [
        "notes/My-Vault/Broken.md", "notes/My-Vault/Journal/14.03.2026.md",
        "notes/My-Vault/Journal/2026-03-15.md", "notes/My-Vault/Projects/Route importer.md"]
    assert report.records_skipped == {"attachments (non-Markdown files)": 1,
                                      "template notes": 1}
    assert (base / "Journal/14.03.2026.md").read_text() == (
        "---\ndate: 2026-03-14\n---\nRode with Maya (Maya Chen) #cycling\n")
    assert (base / "Journal/2026-03-15.md").read_text() == "Rest day.\n"
    assert (base / "Projects/Route importer.md").read_text() == (
        "---\ntags: [project/alpha]\npeople: [\"[[Sam Ortiz]]\"]\n---\n"
        "See Elevation > Smoothing and GPX parser or Goals.\n"
        "  Elevation Elevation\n"
        "Inline `[[not a link]]` stays.\n\n```\n[[code stays]]\n```\n\n## Goals\n"
        "- Import GPX #perf/elevation\n")
    assert report.problems == [("Broken.md", 2, "broken YAML frontmatter; copied as is (the "
                                "body is still indexed)")]
    assert report.people_added == ["Sam Ortiz (new)"]
    chunks, _ = extract(tmp_path / "root", "notes/My-Vault/Projects/Route importer.md")
    assert chunks[0].metadata["tags"] == ["project/alpha", "perf/elevation"]
    daily, _ = extract(tmp_path / "root", "notes/My-Vault/Journal/14.03.2026.md")
    assert daily[0].content_date == "2026-03-14"


# --------------------------------------------------------------------------- mbox

MBOX = """From alice@example.com Sat Mar 14 09:00:00 2026
From: Alice Doe <alice@example.com>
To: Bob <bob@example.com>, carol@example.com
Subject: Trip plan
Date: Sat, 14 Mar 2026 09:00:00 -0700
Message-ID: <m1@example.com>
X-Gmail-Labels: Inbox,"Trips, 2026",Important
X-GM-THRID: 1770000000000000001

Shall we go to Joshua Tree?
From the looks of it, April works.

--
Alice

From bob@example.com Sat Mar 14 10:00:00 2026
From: Bob <bob@example.com>
To: Alice Doe <alice@example.com>
Subject: Re: Trip plan
Date: Sat, 14 Mar 2026 10:00:00 -0000
Message-ID: <m2@example.com>
In-Reply-To: <m1@example.com>

On Sat, Alice wrote:
> Shall we go to Joshua Tree?
Yes! I can drive.

From carol@example.com Sun Mar 15 08:00:00 2026
From: carol@example.com
To: Bob <bob@example.com>
Subject: Re: Trip plan
Message-ID: <m3@example.com>
In-Reply-To: <m2@example.com>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="b1"

--b1
Content-Type: text/html; charset=utf-8

<p>Count me in &amp; I&#39;ll bring the rope.</p>
--b1--
"""


def test_mbox_threads_labels_and_dates(tmp_path):
    src = write(tmp_path / "Trips.mbox", MBOX)
    report = imp("mbox", src, tmp_path / "root", people=True)
    assert report.files_written == ["data/email/catalog/Trips.jsonl"] and not report.problems
    m1, m2, m3 = read_jsonl(tmp_path / "root/data/email/catalog/Trips.jsonl")
    assert m1["tags"] == ["Inbox", "Trips, 2026", "Important"]
    assert m1["thread"] == "gm-1770000000000000001"
    assert m1["summary"] == "Shall we go to Joshua Tree?\nFrom the looks of it, April works."
    assert m1["to"] == ["Bob", "carol@example.com"] and m1["date"] == (
        "2026-03-14T09:00:00-07:00")
    assert m2["date"] == "2026-03-14T10:00:00+01:00"  # -0000 means "zone unknown": local
    assert m2["summary"] == "Yes! I can drive."
    # replies join their root's thread through the In-Reply-To chain
    assert m3["thread"] == m2["thread"] == m1["thread"]
    assert m3["date"] == "2026-03-15T08:00:00+01:00"  # no Date header: envelope, local zone
    assert m3["summary"] == "Count me in & I'll bring the rope." and m3["from"] == (
        "carol@example.com")
    assert report.people_added == ["Alice Doe (new)", "Bob (new)"]
    with pytest.raises(ImportFailed, match="not an mbox"):
        imp("mbox", write(tmp_path / "x.mbox", "hello\n"), tmp_path / "root")


# --------------------------------------------------------------------------- people

def test_people_merge_is_additive_and_stable(tmp_path):
    root = tmp_path / "root"
    people = {"people": [{"name": "Maya Chen", "aliases": ["Maya"], "relationship": "sister",
                          "notes": "Climber — lives in Oakland."},
                         {"name": "Sam Ortiz", "interests": ["cycling"]}]}
    original = json.dumps(people, indent=4)  # the user's own formatting
    path = write(root / "profile/relationships.json", original)
    src = slack_export(tmp_path / "export")
    dry = imp("slack", src, root, people=True, dry_run=True)
    assert path.read_text() == original and dry.people_added
    report = imp("slack", src, root, people=True)
    # "maya" is already there as "Maya" (case-insensitive); Sam gains his handle
    assert report.people_added == ["Maya Chen: + alias maya.c", "Sam Ortiz: + alias sam",
                                   "Guest Person (new)"]
    merged = json.loads(path.read_text())
    assert merged["people"][0] == {"name": "Maya Chen", "aliases": ["Maya", "maya.c"],
                                   "relationship": "sister",
                                   "notes": "Climber — lives in Oakland."}
    assert merged["people"][1] == {"name": "Sam Ortiz", "interests": ["cycling"],
                                   "aliases": ["sam"]}
    assert merged["people"][2] == {"name": "Guest Person"}
    assert path.read_text() == json.dumps(merged, indent=2, ensure_ascii=False) + "\n"
    stamp = path.stat().st_mtime_ns
    assert imp("slack", src, root, people=True).people_added == []
    assert path.stat().st_mtime_ns == stamp  # nothing new: not rewritten


def test_people_file_that_is_broken_is_left_alone(tmp_path):
    root = tmp_path / "root"
    path = write(root / "profile/relationships.json", '{"people": [')
    report = imp("slack", slack_export(tmp_path / "export"), root, people=True)
    assert path.read_text() == '{"people": ['
    assert report.people_added == [] and report.problems[0][0] == "profile/relationships.json"


# --------------------------------------------------------------------------- contract

def test_import_failures(tmp_path):
    with pytest.raises(ImportFailed, match="unknown import kind 'fax'"):
        imp("fax", tmp_path, tmp_path / "root")
    with pytest.raises(ImportFailed, match="unknown import kind"):
        get_importer("fax")
    with pytest.raises(ImportFailed, match="no such file"):
        imp("slack", tmp_path / "missing", tmp_path / "root")
    with pytest.raises(ImportFailed, match="unknown time zone"):
        imp("whatsapp", write(tmp_path / "c.txt", "15/01/20, 10:00 - A: b\n"), tmp_path / "r",
            local_tz="Mars/Olympus")


def test_default_zone_is_the_system_zone_and_recorded(tmp_path):
    src = write(tmp_path / "c.txt", "15/01/20, 10:00 - Maya: hi\n")
    report = run_import("whatsapp", src, tmp_path / "root")
    msg, = read_jsonl(tmp_path / "root" / report.files_written[0])
    assert msg["tz"] and msg["date"].startswith("2020-01-15T10:00:00")
    assert msg["date"][19:] in ("Z", "") or msg["date"][19] in "+-"


def test_nothing_importable_is_not_ok(tmp_path):
    folder = tmp_path / "chats"
    write(folder / "a.txt", bytes(range(256)) * 4)
    report = imp("whatsapp", folder, tmp_path / "root")
    assert not report.ok and report.files_written == []
    assert "nothing could be imported" in report.summary()


def test_writes_are_atomic(tmp_path, monkeypatch):
    root = tmp_path / "root"
    src = write(tmp_path / "2026-03-14 10.00 Q2 planning.vtt", TEAMS)
    rel = imp("vtt", src, root).files_written[0]
    before = (root / rel).read_bytes()
    write(src, TEAMS.replace("Great", "Super"))

    def crash(*args, **kwargs):
        raise OSError("disk on fire")

    monkeypatch.setattr(importer_atomic.os, "replace", crash)
    report = imp("vtt", src, root)
    assert report.problems and "disk on fire" in report.problems[0][2]
    assert (root / rel).read_bytes() == before  # the old file is intact
    assert [p.name for p in (root / rel).parent.iterdir()] == [Path(rel).name]  # no temp left
    monkeypatch.undo()
    assert imp("vtt", src, root).files_written == [rel]
    assert "Super" in (root / rel).read_text()


def test_appends_fsync_one_write(tmp_path, monkeypatch):
    root = tmp_path / "root"
    imp("slack", slack_export(tmp_path / "old", {"general/2026-03-14.json": DAY1}), root)
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(importer_atomic.os, "fsync", lambda fd: (synced.append(fd),
                                                                real_fsync(fd)))
    imp("slack", slack_export(tmp_path / "new"), root)
    assert len(synced) == 1  # one append, one fsync


def test_upsert_rewrite_keeps_other_lines_byte_for_byte(tmp_path):
    root = tmp_path / "root"
    odd = b'{"id": "mine", "date": "2026-03-01", "text": "caf\xe9 latin-1"}\r'
    write(root / "data/journal/2026.jsonl", odd + b"\n")
    entry = dayone_entry("A1", "first", "2026-03-15T05:40:00Z")
    src = write(tmp_path / "Journal.json", json.dumps({"entries": [entry]}))
    imp("dayone", src, root)
    entry["text"] = "edited"
    write(src, json.dumps({"entries": [entry]}))
    imp("dayone", src, root)
    data = (root / "data/journal/2026.jsonl").read_bytes()
    assert data.startswith(odd + b"\n") and data.count(b"\n") == 2 and b"edited" in data


def test_obsidian_never_imports_a_data_root_inside_the_vault(tmp_path):
    vault = tmp_path / "Vault"
    write(vault / "a.md", "hello\n")
    root = vault / "memlens"
    assert imp("obsidian", vault, root).files_written == ["notes/Vault/a.md"]
    again = imp("obsidian", vault, root)
    assert again.files_written == [] and again.records_skipped_duplicate == 1


def test_report_to_dict_is_json(tmp_path):
    src = write(tmp_path / "c.txt", "15/01/20, 10:00 - Maya: hi\nJan 1, 2020, 10:00 - x: y\n")
    data = imp("whatsapp", src, tmp_path / "root").to_dict()
    assert json.loads(json.dumps(data))["ok"] is True
    assert data["problems"][0]["line"] == 2


@pytest.mark.parametrize("chat", ["CON", "nul", "Com1", "AUX.old", "Trip: part 2?"])
def test_an_imported_file_name_is_legal_on_every_system(tmp_path, chat):
    from engine.importers._util import file_stem, slugify

    src = write(tmp_path / f"WhatsApp Chat with {chat.replace(':', '').replace('?', '')}.txt",
                WHATSAPP_STYLES["android-ddmmyy-24h"])
    report = imp("whatsapp", src, tmp_path / "root")
    (written,) = report.files_written
    stem = Path(written).name.split(".")[0]
    assert stem.upper() not in {"CON", "PRN", "AUX", "NUL", "COM1", "LPT1"}, written
    for name in (file_stem(chat), slugify(chat)):  # what every importer names files by
        assert not set(name) & set('\\/:*?"<>|') and not name.endswith((".", " "))
        assert name.split(".")[0].strip().upper() not in {"CON", "AUX", "NUL", "COM1"}, name
