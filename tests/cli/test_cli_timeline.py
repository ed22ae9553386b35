"""`memlens timeline` and `memlens search --person` on a real root (cli/timeline.py)."""

from __future__ import annotations

import json

import pytest

from cli.main import main
from tests.conftest import make_root
from tests.conftest import run_cli as run


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("cli-timeline") / "root")
    assert main(["reindex", "--root", str(root)]) == 0
    return root




def test_a_day_as_json_counts_every_message_by_source(root, capsys):
    code, out, err = run(capsys, "timeline", "2026-03-01", "--root", str(root), "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert got["time"] == "2026-03-01..2026-03-01" and got["total"] == 107
    assert (got["messages"], got["entries"]) == (107, 0)
    assert got["counts"] == {"slack": 107} and got["units"] == {"slack": "message"}
    assert [d["date"] for d in got["days"]] == ["2026-03-01"]
    (group,) = got["days"][0]["groups"]
    assert group["unit"] == "message" and group["count"] == 107
    # a conversation's day per log, its first messages listed with time, sender and text
    assert sum(i["message_count"] for i in group["items"]) == 107
    general = next(i for i in group["items"] if i["source_file"] == "data/slack/general.jsonl")
    assert general["messages"][0] == {
        "time": "2026-03-01 09:00", "sender": "Maya Chen",
        "text": "message 0 about the harbor bridge project",
        "chunk_id": "data/slack/general.jsonl#w0"}
    assert len(general["messages"]) == 8 and general["message_count"] == 95


def test_a_range_in_text_lists_days_and_groups(root, capsys):
    code, out, _ = run(capsys, "timeline", "2026-03-01..2026-04-30", "--root", str(root))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("2026-03-01..2026-04-30 · 107 messages · 4 entries · "
                               "Slack 107 messages, note 4 entries")
    assert "2026-03-01 Sun  107 messages" in lines and "  Slack (107 messages)" in lines
    assert "      09:07 Sam Rivera: message 1 about the harbor bridge project" in lines
    assert "      … 87 more messages" in lines  # 95 that day in general.jsonl, 8 listed
    assert "2026-04-02 Thu  4 entries" in lines and "  note (4 entries)" in lines


def test_source_and_limit(root, capsys):
    code, out, _ = run(capsys, "timeline", "2026-03-01..2026-04-30", "--source", "note",
                       "--root", str(root), "--json")
    assert json.loads(out)["counts"] == {"note": 4}
    code, out, _ = run(capsys, "timeline", "2026-03-01", "--limit", "1", "--root", str(root),
                       "--json")
    got = json.loads(out)
    assert got["shown"] == 1 and got["truncated"] and got["total"] == 107
    code, out, _ = run(capsys, "timeline", "2026-03-01", "--limit", "1", "--root", str(root))
    assert "first 1 item listed (--limit)" in out.splitlines()[0]
    assert "    … 12 messages more (--limit)" in out.splitlines()  # the log not listed


def test_a_phrase_is_named_in_the_header(root, capsys):
    code, out, _ = run(capsys, "timeline", "March", "2026", "--root", str(root))
    assert code == 0
    assert out.splitlines()[0].startswith(
        '2026-03-01..2026-03-31 (from "March 2026") · 107 messages')


def test_no_date_is_one_line_and_exit_2(root, capsys):
    code, out, err = run(capsys, "timeline", "march", "on", "--root", str(root))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "not a date, range or time phrase: 'march on'" in err
    code, _, err = run(capsys, "timeline", "2026-03-01", "--limit", "0", "--root", str(root))
    assert code == 2 and "--limit" in err


def test_nothing_in_range(root, capsys):
    code, out, _ = run(capsys, "timeline", "2020-01-01", "--root", str(root))
    assert code == 0 and out.splitlines()[1] == "nothing dated in that range"


def test_search_person_keeps_that_persons_messages(root, capsys):
    code, out, _ = run(capsys, "search", "harbor bridge", "--person", "Ola", "--root",
                       str(root), "--json", "--limit", "20")
    assert code == 0
    got = json.loads(out)
    assert got["results"] and {r["source_file"] for r in got["results"]} == \
        {"data/slack/random.jsonl"}
    assert "Ola" in got["person"]
