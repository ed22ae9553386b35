"""Importers on the real export samples in ../shared/bench-data/formats.

Every sample is imported into a fresh data root, read back with the data layer's own
extractors (proving the output is indexable), imported again (nothing may change), dry-run
(nothing may be written), and one is taken end to end through reindex and search.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

from engine.config import load_config
from engine.extractors import Problems, get_extractor
from engine.importers import IMPORTERS, run_import
from engine.indexer import reindex
from engine.scanner import discover
from engine.searcher import Searcher

FORMATS = Path(__file__).resolve().parents[3] / "shared" / "bench-data" / "formats"

SAMPLES = [
    ("slack", "slack/hfaran-testarchive"),
    ("telegram", "telegram/tg2md/result.json"),
    ("whatsapp", "whatsapp/whatstk/pokemon.txt"),
    ("whatsapp", "whatsapp/whatstk/lorem.txt"),
    ("vtt", "transcripts-vtt-srt/webvtt-py"),
    ("srt", "transcripts-vtt-srt/webvtt-py"),
    ("whisper", "whisper-json/whisper-timestamped"),
    ("garmin", "garmin-connect/python-garminconnect-cassettes"),
    ("dayone", "dayone-json/dayone2-textbundle/demo.json"),
    ("obsidian", "obsidian-markdown/kepano-obsidian"),
    ("mbox", "mbox/perl5-Mail-Box/mbox.src"),
]


def sample(rel: str) -> Path:
    if not FORMATS.is_dir():
        pytest.skip("../shared/bench-data/formats is absent: the real export samples "
                    "(Slack, Telegram, WhatsApp, VTT/SRT, Whisper, Garmin, Day One, Obsidian, "
                    "mbox) are not checked out next to this repository")
    path = FORMATS / rel
    if not path.exists():
        pytest.skip(f"../shared/bench-data/formats/{rel} is absent from this checkout")
    return path


def do_import(kind: str, rel: str, root: Path, **kw):
    return run_import(kind, sample(rel), root, local_tz=kw.pop("local_tz", "Europe/Berlin"),
                      **kw)


def lines(root: Path, rel: str) -> list[dict]:
    return [json.loads(line) for line in (root / rel).read_text(encoding="utf-8").splitlines()]


def extract_all(root: Path, rels: list[str]) -> tuple[dict[str, list], list[str]]:
    """Chunks per written file, read by the data layer's extractors; and their problems."""
    routed = {f.rel: f for f in discover(root)}
    chunks, problems = {}, []
    for rel in rels:
        assert rel in routed, f"{rel} is not routed to any source type"
        f = routed[rel]
        p = Problems()
        chunks[rel] = list(get_extractor(f.source_type).extract(f.path, rel, p))
        problems += [f"{rel}: {m}" for m in p]
    return chunks, problems


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file()}


def test_every_export_kind_is_registered():
    assert set(IMPORTERS) == {"slack", "telegram", "whatsapp", "vtt", "srt", "whisper",
                              "garmin", "dayone", "obsidian", "mbox"}


# --------------------------------------------------------------------------- per sample


def test_slack_workspace_export(tmp_path):
    src = sample("slack/hfaran-testarchive")
    report = do_import("slack", "slack/hfaran-testarchive", tmp_path, local_tz="UTC")
    assert report.ok and report.problems == []
    assert sorted(report.files_written) == ["data/slack/enrique.jsonl",
                                            "data/slack/traveling-sailor.jsonl"]
    expected = {ch: sum(len(json.loads(p.read_text())) for p in (src / ch).glob("*.json"))
                for ch in ("enrique", "traveling-sailor")}
    assert report.records_imported == sum(expected.values()) == 158
    enrique = lines(tmp_path, "data/slack/enrique.jsonl")
    assert len(enrique) == expected["enrique"]
    first = enrique[0]
    assert first["ts"] == "2016-01-15T05:55:18+00:00" and first["id"] == "1452837318.000002"
    assert first["user"] == "Hamza Faran" and first["text"] == "Hamza Faran has joined the channel"
    # <@U…> mentions resolved to names, <url|label> unwrapped, bots named
    assert any(m["text"].startswith("@Harry Potter: Created an issue") for m in enrique)
    assert not any("<@U" in m["text"] or "<http" in m["text"] for m in enrique)
    bots = [m for m in enrique if m.get("subtype") == "bot_message"]
    assert bots and {m["user"] for m in bots} == {"github"}
    assert any("new commit" in m["text"] for m in bots)
    sailor = lines(tmp_path, "data/slack/traveling-sailor.jsonl")
    assert any(m["text"] == "added an integration to this channel: github "
               "(https://mesos-magellan.slack.com/services/B0JL6UFSL)" for m in sailor)
    assert [m["ts"] for m in sailor] == sorted(m["ts"] for m in sailor)
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == []
    assert len(chunks["data/slack/enrique.jsonl"]) == math.ceil(expected["enrique"] / 10)
    assert chunks["data/slack/enrique.jsonl"][0].content.startswith(
        "[2016-01-15 05:55] Hamza Faran: Hamza Faran has joined the channel")


def test_telegram_desktop_result_json(tmp_path):
    report = do_import("telegram", "telegram/tg2md/result.json", tmp_path)
    assert report.ok and report.problems == []
    assert report.files_written == ["data/telegram/test.jsonl"]
    msgs = lines(tmp_path, "data/telegram/test.jsonl")
    # 19 messages: 5 are media without a caption
    assert len(msgs) == report.records_imported == 14
    assert report.records_skipped == {"messages without text (media, stickers)": 5}
    assert msgs[0] == {"date": "2020-11-12T12:53:52+01:00", "from": "test",
                       "text": 'created the channel "test"', "id": 1, "service": True,
                       "tz": "Europe/Berlin"}
    by_id = {m["id"]: m for m in msgs}
    assert by_id[2]["date"] == "2020-11-12T12:54:07+01:00"  # no zone: local zone applied
    assert by_id[21]["date"] == "2021-07-12T13:17:15+02:00"  # summer time
    assert by_id[14]["text"] == ("text link (http://example.com/)\n\nexample.com\n\n"
                                 "example@example.com")
    assert by_id[4]["media"] == "photo"
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == [] and len(chunks["data/telegram/test.jsonl"]) == 2


def test_whatsapp_android_group_chat(tmp_path):
    report = do_import("whatsapp", "whatsapp/whatstk/pokemon.txt", tmp_path, people=True)
    assert report.files_written == ["data/whatsapp/pokemon.jsonl"]
    msgs = lines(tmp_path, "data/whatsapp/pokemon.jsonl")
    assert len(msgs) == 18 and report.records_skipped == {"encryption notices": 2}
    # DD.MM.YYYY detected from the data (31.10.2016 has a first field above 12)
    assert msgs[0]["date"] == "2016-08-06T13:23:00+02:00"
    assert msgs[-1]["date"] == "2016-10-31T12:23:00+01:00"
    assert (msgs[0]["from"], msgs[0]["text"]) == ("Ash Ketchum", "Hey guys!")
    assert {m["from"] for m in msgs} == {"Ash Ketchum", "Brock", "Misty", "Prof. Oak",
                                         "Jessie & James", "Raichu", "Meowth", "Wobbuffet"}
    assert len({m["id"] for m in msgs}) == 18
    people = json.loads((tmp_path / "profile/relationships.json").read_text())["people"]
    assert {"name": "Misty"} in people
    _, problems = extract_all(tmp_path, report.files_written)
    assert problems == []


def test_whatsapp_ios_export_with_phone_number_senders(tmp_path):
    report = do_import("whatsapp", "whatsapp/whatstk/lorem.txt", tmp_path, people=True)
    msgs = lines(tmp_path, "data/whatsapp/lorem.jsonl")
    assert len(msgs) == report.records_imported == 500 and report.problems == []
    assert msgs[0]["date"] == "2020-01-15T02:22:56+01:00" and msgs[0]["from"] == "Mary"
    assert {m["from"] for m in msgs} == {"Mary", "John", "Giuseppe", "+1 123 456 789"}
    # a phone number is not a person's name
    assert report.people_added == ["Mary (new)", "Giuseppe (new)", "John (new)"]
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == [] and len(chunks["data/whatsapp/lorem.jsonl"]) == 50


def test_webvtt_samples(tmp_path):
    report = do_import("vtt", "transcripts-vtt-srt/webvtt-py", tmp_path)
    assert report.records_imported == 8 and report.problems == []
    docs = {json.loads((tmp_path / r).read_text())["source"]: json.loads((tmp_path / r)
                                                                         .read_text())
            for r in report.files_written}
    film = docs["comments.vtt"]  # NOTE blocks skipped, header text is the title
    assert film["title"] == "Translation of that film I like"
    assert [s["start"] for s in film["segments"]] == [135.0, 140.0, 145.0]
    assert film["segments"][0]["text"] == "- Ta en kopp varmt te. - Det är inte varmt."
    assert [s["text"] for s in docs["cue_tags.vtt"]["segments"]] == [
        "When the moon hits your eye", "Like a big-a pizza pie", "That's amore"]
    assert docs["styles.vtt"]["segments"] == [{"start": 0.0, "end": 10.0,
                                               "text": "- Hello world."}]
    # the rolling YouTube captions keep each line once
    assert [s["text"] for s in docs["youtube_dl.vtt"]["segments"]] == [
        "yeah", "what", "this will happen is I'm telling"]
    assert docs["metadata_headers.vtt"]["language"] == "en"
    assert len(docs["sample.vtt"]["segments"]) == 16
    assert all(d["date"].endswith(("+01:00", "+02:00")) for d in docs.values())
    assert any("no date in the file name" in n for n in report.notes)
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == []
    film_chunk = chunks[[r for r in report.files_written if "translation" in r][0]][0]
    assert "[02:15] - Ta en kopp varmt te." in film_chunk.content


def test_srt_and_sbv_samples(tmp_path):
    report = do_import("srt", "transcripts-vtt-srt/webvtt-py", tmp_path)
    assert report.records_imported == 2
    # sample.sbv's last cue ends before it starts: reported with its line
    assert report.problems == [("sample.sbv", 14, "cue ends before it starts "
                                "(0:00:17.484,0:00:16.543); end set to its start")]
    docs = {d["source"]: d for d in (json.loads((tmp_path / r).read_text())
                                     for r in report.files_written)}
    assert [s["text"] for s in docs["sample.srt"]["segments"]] == [
        f"Caption text #{i}" for i in range(1, 6)]
    assert docs["sample.srt"]["segments"][1] == {"start": 7.0, "end": 11.89,
                                                 "text": "Caption text #2"}
    assert docs["sample.sbv"]["segments"][2]["text"] == ("Caption text #3 (line 1) "
                                                         "Caption text #3 (line 2)")
    # two sources that map to one name do not overwrite each other
    assert len(set(report.files_written)) == 2
    _, problems = extract_all(tmp_path, report.files_written)
    assert problems == []


def test_whisper_timestamped_samples(tmp_path):
    report = do_import("whisper", "whisper-json/whisper-timestamped", tmp_path)
    assert report.records_imported == 2 and report.problems == []
    docs = {d["source"]: d for d in (json.loads((tmp_path / r).read_text())
                                     for r in report.files_written)}
    apollo = docs["naive_accurate_apollo11.mp3.words.json"]
    assert apollo["title"] == "naive accurate apollo11" and apollo["language"] == "en"
    assert len(apollo["segments"]) == 49
    assert apollo["segments"][0] == {"start": 0.54, "end": 6.66, "text": (
        "Apollo 11, Houston, we got a recommendation for you on your Soyuz-EA GLEM-E-G-E-A.")}
    assert all(set(s) == {"start", "end", "text"} for s in apollo["segments"])  # no word lists
    assert docs["medium_auto_bonjour_vous_allez_bien.mp3.words.json"]["language"] == "fr"
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == []
    rel = [r for r in report.files_written if "apollo" in r][0]
    assert rel.startswith("data/voice/") and "[00:00] Apollo 11, Houston" in chunks[rel][0].content


def test_garmin_connect_daily_json(tmp_path):
    report = do_import("garmin", "garmin-connect/python-garminconnect-cassettes", tmp_path)
    assert report.files_written == ["data/health/garmin/2023-07-01.json"]
    day = json.loads((tmp_path / "data/health/garmin/2023-07-01.json").read_text())
    assert day["date"] == "2023-07-01"
    assert (day["steps"], day["distance_km"], day["active_kcal"]) == (1119, 0.94, 26)
    assert (day["resting_hr"], day["max_hr"], day["stress_avg"]) == (52, 102, 28)
    assert day["body_battery"] == {"charged": 23, "drained": 23, "high": 66, "low": 47}
    assert day["hrv"] == {"last_night_avg": 40, "weekly_avg": 42, "status": "balanced"}
    assert "sleep" not in day  # sleepingSeconds is 0 in the sample: no sleep data
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == []
    assert chunks["data/health/garmin/2023-07-01.json"][0].content.startswith(
        "Garmin daily summary for Saturday 2023-07-01: 1,119 steps, 0.9 km, 26 active kcal, "
        "resting HR 52, max HR 102, avg stress 28, body battery high 66 / low 47.")


def test_day_one_json_export(tmp_path):
    report = do_import("dayone", "dayone-json/dayone2-textbundle/demo.json", tmp_path)
    assert report.records_imported == 3 and report.records_skipped == {
        "entries without text": 1}
    assert sorted(report.files_written) == ["data/journal/2010.jsonl", "data/journal/2019.jsonl"]
    first = lines(tmp_path, "data/journal/2019.jsonl")[0]
    assert first["id"] == "dayone-F4CF0509F3EA47D1B56F95D37F165F5E"
    assert first["date"] == "2019-03-18T14:04:56+01:00"  # UTC creationDate in its timeZone
    assert (first["title"], first["text"], first["photos"]) == ("Initial entry", "some text", 1)
    assert first["tz"] == "Europe/Berlin" and first["tags"] == []
    third = lines(tmp_path, "data/journal/2010.jsonl")[1]
    assert third["text"] == "double escape a/b dot. single escape slash/"
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == []
    assert chunks["data/journal/2019.jsonl"][0].content == (
        "Journal — 2019-03-18: Initial entry\nsome text")


def test_obsidian_vault(tmp_path):
    report = do_import("obsidian", "obsidian-markdown/kepano-obsidian", tmp_path, people=True)
    md = [p for p in sample("obsidian-markdown/kepano-obsidian").rglob("*.md")]
    templates = [p for p in md if "Templates" in p.parts]
    assert report.records_imported == len(md) - len(templates) == 51
    assert report.records_skipped["template notes"] == len(templates) == 52
    assert "notes/kepano-obsidian/Daily/2023-09-12.md" in report.files_written
    note = (tmp_path / "notes/kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md").read_text()
    assert note.endswith("- Discussed the book Out of Control on the topic of Emergence")
    assert 'people:\n  - "[[Steph Ango]]"' in note  # frontmatter copied verbatim
    assert "Steph Ango (new)" in report.people_added
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == []
    meeting = chunks["notes/kepano-obsidian/Notes/2023-09-12 Meeting with Steph.md"][0]
    assert meeting.content_date == "2023-09-12" and meeting.metadata["folder"] == (
        "kepano-obsidian/Notes")


def test_mbox_mailing_list(tmp_path):
    report = do_import("mbox", "mbox/perl5-Mail-Box/mbox.src", tmp_path)
    assert report.files_written == ["data/email/catalog/mbox.jsonl"] and report.problems == []
    recs = lines(tmp_path, "data/email/catalog/mbox.jsonl")
    assert len(recs) == report.records_imported == 45
    first = recs[0]
    assert first["id"] == "20000209154405.C265@better.net"
    assert first["date"] == "2000-02-09T15:44:05-05:00"  # the Date header's own offset
    assert (first["from"], first["to"]) == ("William Park", ["Mark Sappol"])
    assert first["summary"].startswith("You can convert .html to .ps using Netscape.")
    assert "> I am new to this list" not in first["summary"]  # quoted text removed
    # 21 messages answer another; they thread by References / In-Reply-To
    assert sum(1 for r in recs if "in_reply_to" in r) == 21
    threads = {}
    for r in recs:
        threads.setdefault(r["thread"], []).append(r["id"])
    assert len(threads["38A11D0E.A2064062@ipicorp.com"]) == 3
    assert len(threads) == 28 and max(len(v) for v in threads.values()) == 5
    # a reply whose parent is in the box joins the parent's thread (chain followed to the top)
    resize = threads["10F4E7B8292FD311B34400A0C978B70532A61B@a254.117.208.207.ded23."
                     "interaccess.com"]
    assert "20000403082555.B11537@atcmpg.ATComputing.nl" in resize
    attachment_only = [r for r in recs if r.get("attachments") == ["test.pl"]]
    assert attachment_only and attachment_only[0]["summary"] == "Attachments: test.pl"
    chunks, problems = extract_all(tmp_path, report.files_written)
    assert problems == [] and len(chunks["data/email/catalog/mbox.jsonl"]) == 45


# --------------------------------------------------------------------------- every sample


@pytest.mark.parametrize("kind,rel", SAMPLES, ids=[f"{k}:{r.split('/')[-1]}" for k, r in SAMPLES])
def test_second_import_changes_nothing(tmp_path, kind, rel):
    first = do_import(kind, rel, tmp_path)
    assert first.ok and first.files_written
    before = snapshot(tmp_path)
    again = do_import(kind, rel, tmp_path)
    assert again.files_written == [] and again.records_imported == 0
    assert again.records_skipped_duplicate == first.records_imported
    assert snapshot(tmp_path) == before  # byte-identical, mtimes untouched


@pytest.mark.parametrize("kind,rel", SAMPLES, ids=[f"{k}:{r.split('/')[-1]}" for k, r in SAMPLES])
def test_dry_run_writes_nothing_and_plans_the_real_run(tmp_path, kind, rel):
    dry_root, real_root = tmp_path / "dry", tmp_path / "real"
    plan = do_import(kind, rel, dry_root, dry_run=True, people=True)
    assert not dry_root.exists() or not any(dry_root.rglob("*"))
    assert plan.files_written == [] and plan.dry_run_plan
    real = do_import(kind, rel, real_root)
    assert [path for path, _ in plan.dry_run_plan] == sorted(real.files_written)
    assert dict(plan.dry_run_plan) == real.per_file
    assert plan.records_imported == real.records_imported


def test_progress_is_reported(tmp_path):
    calls = []
    do_import("slack", "slack/hfaran-testarchive", tmp_path,
              progress=lambda done, total: calls.append((done, total)))
    assert calls and calls[-1] == (17, 17)  # 17 day files
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


# --------------------------------------------------------------------------- end to end


def test_import_then_reindex_then_search_finds_imported_messages(tmp_path):
    do_import("slack", "slack/hfaran-testarchive", tmp_path)
    do_import("whatsapp", "whatsapp/whatstk/pokemon.txt", tmp_path)
    do_import("mbox", "mbox/perl5-Mail-Box/mbox.src", tmp_path)
    config = load_config(tmp_path)
    stats = reindex(config=config)
    assert stats.errors == [] and stats.files == 4
    searcher = Searcher(config)
    try:
        hits = searcher.search("annealing", mode="keyword").results
        assert hits and hits[0].source_file == "data/slack/enrique.jsonl"
        assert "annealing" in hits[0].content.lower()
        hits = searcher.search("Pokeball", mode="keyword").results
        assert hits and hits[0].source_file == "data/whatsapp/pokemon.jsonl"
        hits = searcher.search("Netscape", mode="keyword", source_types=["email_catalog"]).results
        assert hits and all(h.source_file == "data/email/catalog/mbox.jsonl" for h in hits)
    finally:
        searcher.close()
    # a second import adds nothing, so the next reindex has nothing to do
    do_import("slack", "slack/hfaran-testarchive", tmp_path)
    again = reindex(config=config)
    assert (again.files, again.embedded) == (0, 0)
    assert os.path.exists(config.db_path)
