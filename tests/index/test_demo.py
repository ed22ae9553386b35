"""The demo data root generator: determinism, coverage of every route, people, search facts,
scaling, idempotency."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date, datetime
from pathlib import Path

import pytest
import yaml

from engine.demo import DEMO_FACTS, DEMO_MARKER, DemoRootError, generate_demo_root
from engine.index.routes import LEGACY_ROUTES
from engine.scanner import FILE_ROUTES, SOURCE_TYPES, discover

MESSAGING = ("slack", "telegram", "signal")


def tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(root.rglob("*")):
        if p.is_file():
            h.update(p.relative_to(root).as_posix().encode() + b"\0")
            h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("demo") / "root"
    return generate_demo_root(root)


@pytest.fixture(scope="module")
def texts(demo):
    """rel path -> (source type, text) for every routed file of the default root."""
    return {f.rel: (f.source_type, f.path.read_text(encoding="utf-8"))
            for f in discover(demo.root)}


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return generate_demo_root(tmp_path_factory.mktemp("big") / "root", chunks=20_000)


def jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --------------------------------------------------------------------------- determinism


def test_same_args_give_byte_identical_roots(demo, tmp_path):
    again = generate_demo_root(tmp_path / "again")
    assert tree_hash(again.root) == tree_hash(demo.root)
    assert again.estimated_chunks == demo.estimated_chunks


def test_seed_and_today_change_the_output(demo, tmp_path):
    other = generate_demo_root(tmp_path / "seed8", seed=8)
    assert tree_hash(other.root) != tree_hash(demo.root)
    moved = generate_demo_root(tmp_path / "moved", today=date(2025, 6, 30))
    journals = sorted(p.name for p in (moved.root / "data/journal").glob("*.jsonl"))
    assert journals == ["2024.jsonl", "2025.jsonl"]
    assert moved.facts["rare_noun_date"] == "2025-03-22"  # 100 days before today


# --------------------------------------------------------------------------- coverage


@pytest.mark.parametrize("pattern,source_type",
                         [r for r in FILE_ROUTES if r not in LEGACY_ROUTES])
def test_every_route_matches_a_file(demo, pattern, source_type):
    assert any(p.is_file() for p in demo.root.glob(pattern)), (pattern, source_type)


def test_summary_counts_every_source_type(demo):
    assert set(demo.estimated_chunks) == set(SOURCE_TYPES)
    assert all(n > 0 for n in demo.estimated_chunks.values()), demo.estimated_chunks
    assert 1_500 <= demo.estimated_total <= 3_000
    assert demo.files_written == sum(1 for p in demo.root.rglob("*") if p.is_file()) - 1
    assert demo.files_per_type["garmin"] == 365  # one year, one file per day
    assert demo.history_days == 365


def test_estimate_matches_the_extractors(demo):
    extractors = pytest.importorskip("engine.extractors")
    counts = dict.fromkeys(SOURCE_TYPES, 0)
    problems = []
    for f in discover(demo.root):
        found = extractors.Problems()
        counts[f.source_type] += sum(
            1 for _ in extractors.get_extractor(f.source_type).extract(f.path, f.rel, found))
        problems += [(f.rel, p) for p in found]
    assert problems == []
    assert counts == demo.estimated_chunks


def test_formats_follow_the_data_layer(demo):
    root = demo.root
    slack = jsonl(root / "data/slack/eng-atlas.jsonl")
    assert set(slack[0]) == {"ts", "user", "text", "thread_ts"}
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d", m["ts"])
               for m in slack)
    assert any(m["thread_ts"] for m in slack) and any(m["thread_ts"] is None for m in slack)
    stamps = [datetime.fromisoformat(m["ts"]) for m in slack]
    assert stamps == sorted(stamps)
    assert {m["ts"][-6:] for m in slack} == {"-08:00", "-07:00"}  # PST and PDT
    tg = jsonl(root / "data/telegram/maya-chen.jsonl")
    assert set(tg[0]) == {"date", "from", "text"} and tg[0]["date"].endswith("+00:00")
    sig = jsonl(root / "data/signal/elena-rivera.jsonl")
    assert set(sig[0]) == {"timestamp", "sender", "body"}
    assert all(isinstance(m["timestamp"], int) and m["timestamp"] > 10**12 for m in sig)
    meeting = json.loads(next((root / "data/meetings/processed").glob("*.json")).read_text())
    assert {"title", "date", "attendees", "summary", "segments"} <= set(meeting)
    assert {"speaker", "start", "end", "text"} == set(meeting["segments"][0])
    garmin = json.loads(next((root / "data/health/garmin").glob("*.json")).read_text())
    assert {"steps", "resting_hr", "body_battery", "sleep", "activities"} <= set(garmin)
    for rel, fields in {
        "data/email/catalog/work.jsonl": {"id", "date", "from", "to", "subject", "summary",
                                          "tags"},
        "data/photos/events.jsonl": {"id", "date", "title", "location", "people",
                                     "description", "photo_count"},
        "data/health/checkins.jsonl": {"date", "mood", "energy", "sleep_quality", "notes"},
        "data/identity/stories.jsonl": {"id", "date", "title", "story", "people"},
        "data/podcasts/digests.jsonl": {"date", "podcast", "episode", "digest", "takeaways"},
    }.items():
        assert set(jsonl(root / rel)[0]) == fields, rel
    # no record dated after today, none before the history starts
    first = date(2025, 12, 1)
    for rel in ("data/journal/2026.jsonl", "data/photos/events.jsonl",
                "data/email/catalog/personal.jsonl"):
        assert all(first <= date.fromisoformat(r["date"]) <= demo.today for r in jsonl(root / rel))


# --------------------------------------------------------------------------- people


def test_relationships_people_recur_across_sources(demo, texts):
    people = json.loads((demo.root / "profile/relationships.json").read_text())["people"]
    assert 10 <= len(people) <= 14
    assert [p["name"] for p in people] == demo.people
    for p in people:
        assert {"name", "aliases", "relationship", "context", "notes", "interests",
                "milestones"} <= set(p)
        assert p["milestones"] and all(date.fromisoformat(m["date"]) for m in p["milestones"])
        kinds = {t for t, text in texts.values() if p["name"] in text}
        assert len(kinds) >= 3, (p["name"], kinds)
        assert (demo.root / "memory/entities/people").glob("*.md")
    senders = set()
    for t in MESSAGING:
        for path in (demo.root / "data" / t).glob("*.jsonl"):
            key = {"slack": "user", "telegram": "from", "signal": "sender"}[t]
            senders |= {m[key] for m in jsonl(path)}
    named = {p["name"] for p in people}
    assert len(named & senders) >= 9
    attendees = set()
    for path in (demo.root / "data/meetings/processed").glob("*.json"):
        doc = json.loads(path.read_text())
        attendees |= set(doc["attendees"]) | {s["speaker"] for s in doc["segments"]}
    assert len(named & attendees) >= 5


# --------------------------------------------------------------------------- search facts


def test_rare_noun_is_in_exactly_one_record(demo, texts):
    noun = DEMO_FACTS["rare_noun"]
    hits = [(rel, text.count(noun)) for rel, (_, text) in texts.items() if noun in text]
    assert hits == [(demo.facts["rare_noun_file"], 1)]
    for word in noun.split():
        assert sum(text.count(word) for _, text in texts.values()) == 1, word
    entry = next(r for r in jsonl(demo.root / demo.facts["rare_noun_file"]) if noun in r["text"])
    assert entry["id"] == demo.facts["rare_noun_id"]
    assert entry["text"] == DEMO_FACTS["rare_noun_text"]


def test_paraphrase_target_shares_no_word_with_the_query(demo, texts):
    entry = next(r for r in jsonl(demo.root / demo.facts["paraphrase_file"])
                 if r["id"] == demo.facts["paraphrase_id"])
    assert entry["text"] == DEMO_FACTS["paraphrase_target"]
    assert "burned out and exhausted at work" in entry["text"]
    absent = re.compile(r"\b(" + "|".join(DEMO_FACTS["paraphrase_absent_terms"]) + r")\b", re.I)
    assert DEMO_FACTS["paraphrase_query"] == "job fatigue"
    leaks = [rel for rel, (_, text) in texts.items() if absent.search(text)]
    assert leaks == []
    assert not absent.search((demo.root / "profile/relationships.json").read_text())


def test_alias_person(demo, texts):
    people = json.loads((demo.root / "profile/relationships.json").read_text())["people"]
    bobby = next(p for p in people if p["name"] == DEMO_FACTS["alias_person"])
    assert DEMO_FACTS["alias"] in bobby["aliases"] and len(bobby["name"].split()) == 2
    alias_kinds = {t for t, text in texts.values() if re.search(r"\bBobby\b", text)}
    assert {"journal", "telegram"} <= alias_kinds
    assert any(p["name"] == DEMO_FACTS["diacritics_person"] for p in people)


def test_markup_and_escape_message_is_stored_verbatim(demo):
    path = demo.root / DEMO_FACTS["markup_file"]
    msgs = [m for m in jsonl(path) if DEMO_FACTS["markup"] in m["text"]]
    assert len(msgs) == 1
    msg = msgs[0]
    assert msg["text"] == DEMO_FACTS["markup_text"]
    assert DEMO_FACTS["ansi"] in msg["text"] and "\x1b[31m" in msg["text"]
    assert msg["user"] == DEMO_FACTS["markup_sender"]
    assert msg["ts"].startswith(demo.facts["markup_date"])


def test_note_vault_frontmatter_tags_and_headings(demo):
    text = (demo.root / DEMO_FACTS["note_file"]).read_text(encoding="utf-8")
    _, fm_text, body = text.split("---\n", 2)
    fm = yaml.safe_load(fm_text)
    assert fm["title"] == DEMO_FACTS["note_title"]
    assert isinstance(fm["date"], date)
    assert fm["tags"] == DEMO_FACTS["note_frontmatter"]["tags"]
    assert fm["priority"] == 1 and isinstance(fm["priority"], int)
    assert fm["status"] == "active"
    headings = re.findall(r"^#+ (.+)$", body, re.M)
    assert headings == DEMO_FACTS["note_headings"]
    assert re.search(r"^### ", body, re.M)  # a nested heading level
    for tag in DEMO_FACTS["note_inline_tags"]:
        assert f"#{tag}" in body
    notes = list((demo.root / "notes").rglob("*.md"))
    assert any(len(p.relative_to(demo.root / "notes").parts) >= 3 for p in notes)
    undated = list(demo.root.glob(DEMO_FACTS["undated_note_glob"]))
    assert undated and not undated[0].read_text().startswith("---")
    for p in notes:  # every frontmatter parses, with the vault's fields
        t = p.read_text(encoding="utf-8")
        if t.startswith("---\n"):
            meta = yaml.safe_load(t.split("---\n", 2)[1])
            assert {"title", "date", "tags", "status", "priority"} <= set(meta), p
            assert isinstance(meta["priority"], int) and isinstance(meta["tags"], list)


# --------------------------------------------------------------------------- scaling


def test_chunks_n_grows_messaging_and_lands_near_n(demo, big):
    est = big.estimated_chunks
    assert abs(big.estimated_total - 20_000) <= 2_000
    assert big.messaging_share > demo.messaging_share
    assert 0.65 <= est["slack"] / big.estimated_total <= 0.75
    assert 0.12 <= est["telegram"] / big.estimated_total <= 0.18
    assert 0.01 <= est["signal"] / big.estimated_total <= 0.05
    assert all(n > 0 for n in est.values())
    assert big.files_per_type["slack"] > demo.files_per_type["slack"]
    slack_sizes = sorted(p.stat().st_size for p in (big.root / "data/slack").glob("*.jsonl"))
    assert slack_sizes[-1] > 0.15 * sum(slack_sizes)  # the largest channel holds a real share
    lines = sum(len(p.read_bytes().splitlines())
                for p in (big.root / "data/slack").glob("*.jsonl"))
    assert est["slack"] * 10 - 9 * big.files_per_type["slack"] <= lines <= est["slack"] * 10
    for route in FILE_ROUTES:
        assert route in LEGACY_ROUTES or any(big.root.glob(route[0])), route


# --------------------------------------------------------------------------- idempotency


def test_same_args_do_nothing(tmp_path):
    root = tmp_path / "demo"
    first = generate_demo_root(root, chunks=3_000)
    assert first.created
    marker = json.loads((root / DEMO_MARKER).read_text())
    assert marker["complete"] and marker["args"] == {"chunks": 3000, "seed": 7,
                                                     "today": "2026-11-30"}
    probe = root / "data/slack/eng-atlas.jsonl"
    before = probe.stat().st_mtime_ns
    again = generate_demo_root(root, chunks=3_000)
    assert not again.created
    assert probe.stat().st_mtime_ns == before
    assert again.estimated_chunks == first.estimated_chunks
    assert again.facts == json.loads(json.dumps(first.facts))


def test_the_demo_is_dated_to_the_day_it_is_made(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLENS_NOW", "2027-02-10T09:00:00")
    root = tmp_path / "demo"
    made = generate_demo_root(root, chunks=3_000)
    assert made.created and made.today == date(2027, 2, 10)
    assert made.facts["rare_noun_date"] == "2026-11-02"  # 100 days before that day
    assert not generate_demo_root(root, chunks=3_000).created  # the same day: nothing to do
    monkeypatch.setenv("MEMLENS_NOW", "2027-02-17T09:00:00")  # a week later: made again
    later = generate_demo_root(root, chunks=3_000)
    assert later.created and later.today == date(2027, 2, 17)
    assert json.loads((root / DEMO_MARKER).read_text())["args"]["today"] == "2027-02-17"
    assert tree_hash(root / "data/slack") == tree_hash(
        generate_demo_root(tmp_path / "ref", chunks=3_000, today=date(2027, 2, 17)).root
        / "data/slack")


def test_different_args_refused_unless_overwrite(tmp_path):
    root = tmp_path / "demo"
    generate_demo_root(root, chunks=3_000)
    (root / "data/search").mkdir(parents=True)
    (root / "data/search/memlens.db").write_bytes(b"index")
    (root / "data/slack/stray.jsonl").write_text("{}\n")
    with pytest.raises(DemoRootError, match="overwrite"):
        generate_demo_root(root, chunks=3_000, seed=8)
    fresh = generate_demo_root(root, chunks=3_000, seed=8, overwrite=True)
    assert fresh.created and fresh.seed == 8
    assert not (root / "data/slack/stray.jsonl").exists()  # the demo's folders were replaced
    assert (root / "data/search/memlens.db").read_bytes() == b"index"  # the index was kept
    assert json.loads((root / DEMO_MARKER).read_text())["args"]["seed"] == 8
    assert tree_hash(root / "data/slack") == tree_hash(
        generate_demo_root(tmp_path / "ref", chunks=3_000, seed=8).root / "data/slack")


def test_unfinished_demo_is_regenerated(tmp_path):
    root = tmp_path / "demo"
    generate_demo_root(root, chunks=3_000)
    marker = json.loads((root / DEMO_MARKER).read_text())
    marker["complete"] = False
    (root / DEMO_MARKER).write_text(json.dumps(marker))
    assert generate_demo_root(root, chunks=3_000).created


def test_refuses_a_folder_with_real_data(tmp_path):
    root = tmp_path / "mine"
    (root / "notes").mkdir(parents=True)
    (root / "notes/diary.md").write_text("# mine\n")
    with pytest.raises(DemoRootError, match="real data"):
        generate_demo_root(root)
    with pytest.raises(DemoRootError):
        generate_demo_root(root, overwrite=True)
    assert (root / "notes/diary.md").read_text() == "# mine\n"
    ok = tmp_path / "empty-with-config"
    ok.mkdir()
    (ok / "memlens.toml").write_text("")
    assert generate_demo_root(ok, chunks=3_000).created


@pytest.mark.parametrize("kwargs", [{"chunks": 0}, {"chunks": -5}, {"chunks": 2.5},
                                    {"chunks": True}, {"seed": "7"}, {"today": "2026-11-30"}])
def test_bad_arguments(tmp_path, kwargs):
    with pytest.raises(ValueError):
        generate_demo_root(tmp_path / "x", **kwargs)
    assert not (tmp_path / "x").exists()


def test_progress_reports_up_to_the_total(tmp_path):
    calls: list[tuple[int, int]] = []
    summary = generate_demo_root(tmp_path / "p", chunks=5_000,
                                 progress=lambda done, total: calls.append((done, total)))
    assert len(calls) >= 10
    dones = [d for d, _ in calls]
    assert dones == sorted(dones)
    assert all(d <= t for d, t in calls)
    assert calls[-1] == (summary.estimated_total, summary.estimated_total)
