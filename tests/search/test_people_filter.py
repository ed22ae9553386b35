"""The person filter over a real indexed root: the SQL fragment, the rowid set and the
in-memory predicate agree, and each kind of chunk about a person passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.rank.candidates import Candidate
from engine.retrieval.entities import clear_people_cache
from engine.retrieval.people_filter import chunk_dict, person_filter
from engine.storage.db import connect


def _jsonl(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def build_people_root(root: Path) -> Path:
    (root / "profile").mkdir(parents=True)
    (root / "profile/relationships.json").write_text(json.dumps({"people": [
        {"name": "Maya Chen", "aliases": ["Maya"], "relationship": "sister"},
        {"name": "Robert Okafor", "aliases": ["Bobby"], "relationship": "friend"}]}))
    _jsonl(root / "data/slack/general.jsonl", [  # Maya only as a sender
        {"ts": "2026-03-14T09:00:00", "user": "Maya Chen", "text": "route import done"},
        {"ts": "2026-03-14T09:05:00", "user": "Sam Ortiz", "text": "great"}])
    _jsonl(root / "data/slack/random.jsonl", [
        {"ts": "2026-03-14T10:00:00", "user": "Sam Ortiz", "text": "lunch?"}])
    _jsonl(root / "data/signal/maya.jsonl", [  # a thread named after her, her name unsaid
        {"timestamp": 1773479525000, "sender": "Me", "body": "Climbing Saturday?"}])
    _jsonl(root / "data/email/catalog/mail.jsonl", [
        {"id": "m1", "date": "2026-03-01", "from": "Me", "to": ["Robert Okafor"],
         "subject": "Dinner", "summary": "Thai place on Friday?"},
        {"id": "m2", "date": "2026-03-02", "from": "United Airlines", "to": ["Me"],
         "subject": "Your flight", "summary": "Boarding pass for SFO to LOS."}])
    people = root / "memory/entities/people"
    people.mkdir(parents=True)
    (people / "robert-okafor.md").write_text("Friend from college.\n\n## Recent\n\nNew job.\n")
    (root / "notes").mkdir()
    (root / "notes/trip.md").write_text("# Trip\n\nBobby's flight lands at 6.\n")
    (root / "notes/other.md").write_text("# Other\n\nNothing about anyone.\n")
    return root


@pytest.fixture(scope="module")
def people_db(tmp_path_factory):
    clear_people_cache()
    root = build_people_root(tmp_path_factory.mktemp("people") / "root")
    config = load_config(root)
    assert not reindex(config=config).errors
    conn = connect(config.db_path, readonly=True)
    yield root, conn
    conn.close()


def passing(conn, pf) -> set[str]:
    where, args = pf.sql("c")
    return {r[0] for r in conn.execute(f"SELECT c.id FROM chunks c WHERE {where}", args)}


def agree(conn, pf) -> set[str]:
    """The SQL set, after checking the rowid query and the predicate give the same one."""
    by_sql = passing(conn, pf)
    rowids_sql, args = pf.rowids_sql()
    by_rowid = {r[0] for r in conn.execute(
        f"SELECT id FROM chunks WHERE rowid IN ({rowids_sql})", args)}
    rows = conn.execute("SELECT id, content, source_file, source_type, metadata FROM chunks")
    by_predicate = {r["id"] for r in rows if pf.matches(chunk_dict(r))}
    assert by_sql == by_rowid == by_predicate
    return by_sql


def test_participant_and_named_chunks_pass_for_maya(people_db):
    root, conn = people_db
    pf = person_filter(conn, root, "Maya")
    assert (pf.name, pf.aliases, pf.known) == ("Maya Chen", ("Maya",), True)
    assert agree(conn, pf) == {"data/slack/general.jsonl#w0", "data/signal/maya.jsonl#w0"}


def test_a_typo_finds_robert_and_his_entity_file(people_db):
    root, conn = people_db
    pf = person_filter(conn, root, "Robert Okafr")
    assert pf.name == "Robert Okafor" and pf.label() == 'person: Robert Okafor (as "Robert Okafr")'
    assert pf.entity_files == ("memory/entities/people/robert-okafor.md",)
    got = agree(conn, pf)
    assert "data/email/catalog/mail.jsonl#m1" in got  # only in the email's "to"
    assert "notes/trip.md#s1" in got  # named by his alias
    assert {"memory/entities/people/robert-okafor.md#s0",
            "memory/entities/people/robert-okafor.md#s1"} <= got
    assert "data/email/catalog/mail.jsonl#m2" not in got  # the airline email never names him


def test_the_filter_pushes_down_into_a_keyword_query(people_db):
    root, conn = people_db
    pf = person_filter(conn, root, "Bobby")
    where, args = pf.sql("c")
    rows = conn.execute("SELECT c.id FROM chunks_fts JOIN chunks c ON c.rowid = chunks_fts.rowid "
                        f"WHERE chunks_fts MATCH ? AND {where}", ["flight", *args]).fetchall()
    assert [r[0] for r in rows] == ["notes/trip.md#s1"]


def test_the_injected_profile_passes_and_unknown_names_still_filter(people_db):
    root, conn = people_db
    pf = person_filter(conn, root, "maya chen")
    profile = {"source_type": "profile", "source_file": "profile/relationships.json",
               "content": "Maya Chen (also: Maya)", "metadata": {"person": "Maya Chen"}}
    assert pf.matches(profile)
    assert not person_filter(conn, root, "Bobby").matches(profile)
    injected = Candidate(id="profile:maya-chen", content=profile["content"],
                         source_file=profile["source_file"], source_type="profile",
                         metadata=profile["metadata"], injected=True)
    assert pf.matches(injected)  # a fusion candidate works as well as a dict
    sam = person_filter(conn, root, "Sam Ortiz")
    assert not sam.known and sam.name == "Sam Ortiz"
    assert agree(conn, sam) == {"data/slack/general.jsonl#w0", "data/slack/random.jsonl#w0"}
    assert person_filter(conn, root, "x") is None
    assert person_filter(conn, root, "  ") is None
