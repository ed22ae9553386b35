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




def test_a_day_as_json_counts_every_chunk_by_source(root, capsys):
    code, out, err = run(capsys, "timeline", "2026-03-01", "--root", str(root), "--json")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert got["time"] == "2026-03-01..2026-03-01" and got["total"] == 12
    assert got["counts"] == {"slack": 12} and [d["date"] for d in got["days"]] == ["2026-03-01"]
    items = got["days"][0]["groups"][0]["items"]
    assert len(items) == 12 and all(i["source_file"].startswith("data/slack/") for i in items)


def test_a_range_in_text_lists_days_and_groups(root, capsys):
    code, out, _ = run(capsys, "timeline", "2026-03-01..2026-04-30", "--root", str(root))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("2026-03-01..2026-04-30 · 16 chunks · slack 12, note 4")
    assert "2026-03-01 Sun  12 chunks" in lines and "  slack (12)" in lines
    assert "2026-04-02 Thu  4 chunks" in lines and "  note (4)" in lines


def test_source_and_limit(root, capsys):
    code, out, _ = run(capsys, "timeline", "2026-03-01..2026-04-30", "--source", "note",
                       "--root", str(root), "--json")
    assert json.loads(out)["counts"] == {"note": 4}
    code, out, _ = run(capsys, "timeline", "2026-03-01", "--limit", "3", "--root", str(root),
                       "--json")
    got = json.loads(out)
    assert got["shown"] == 3 and got["truncated"] and got["total"] == 12
    code, out, _ = run(capsys, "timeline", "2026-03-01", "--limit", "3", "--root", str(root))
    assert "first 3 shown (--limit)" in out.splitlines()[0] and "… 9 more" in out


def test_a_phrase_is_named_in_the_header(root, capsys):
    code, out, _ = run(capsys, "timeline", "March", "2026", "--root", str(root))
    assert code == 0
    assert out.splitlines()[0].startswith('2026-03-01..2026-03-31 (from "March 2026") · 12')


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
