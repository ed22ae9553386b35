"""What a new user reads: the search header says how the query was read, nothing the user
asked for is cut at 80 columns, an empty query is refused, and counts read as English."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from cli.main import main
from engine.importers.report import ImportReport
from tests.conftest import make_root
from tests.conftest import run_cli as run


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = make_root(tmp_path_factory.mktemp("output") / "root")
    assert main(["reindex", "--root", str(root)]) == 0
    return root




def test_the_header_names_the_time_phrase_it_read(root, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run(capsys, "search", "harbor bridge in March 2026", "--root", str(root))
    assert code == 0, err
    assert 'time: 2026-03-01..2026-03-31 (from "in March 2026")' in out, out


def test_header_and_explain_wrap_instead_of_losing_their_end(root, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    code, out, err = run(capsys, "search", "harbor bridge", "--root", str(root), "--limit", "2",
                         "--explain")
    assert code == 0, err
    lines = out.splitlines()
    assert all(cell_len(line) <= 60 for line in lines), max(lines, key=cell_len)
    head = " ".join(lines[:3])
    assert "depth: keyword" in head and "semantic " in head.split("depth:")[1], lines[:3]
    # an explain line answers "why": it wraps (indented deeper) and its number is never cut
    at = next(i for i, line in enumerate(lines) if line.startswith("    fusion:"))
    block = [lines[at]] + [line for line in lines[at + 1:at + 4] if line.startswith("      ")]
    assert len(block) > 1 and not any(line.endswith("…") for line in block), block
    assert block[-1].rstrip()[-1].isdigit(), block


@pytest.mark.parametrize("query", ["", "   "])
def test_an_empty_query_is_refused(root, capsys, query):
    code, out, err = run(capsys, "search", query, "--root", str(root))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("memlens: ") and "empty" in err


def test_import_skips_read_as_english():
    report = ImportReport(kind="dayone")
    report.records_skipped = {"entries without text": 1, "attachments (non-Markdown files)": 1,
                              "template notes": 2, "JSON files that are not daily health data": 1,
                              "empty segments": 1200}
    line = report.summary().splitlines()[1]
    assert "1 entry without text" in line and "1 attachment (non-Markdown files)" in line
    assert "2 template notes" in line and "1,200 empty segments" in line
    assert "1 JSON file that is not daily health data" in line
    for wrong in ("1 entries", "1 attachments", "1 JSON files"):
        assert wrong not in line, line


def test_watch_lines_count_in_english():
    from engine.index.run_report import FileError, IndexStats
    from engine.index.watch_events import Reindexed

    one = IndexStats(files=1, chunks=1, embedded=1, pending_embeddings=1,
                     errors=[FileError("notes/a.md", "unreadable")])
    line = Reindexed(one, ("notes/a.md",)).line()
    assert line.startswith("reindexed: 1 file, 1 chunk written, 0 deleted, 1 embedded, "
                           "1 pending, 1 file error in "), line
    many = Reindexed(IndexStats(files=1200, chunks=2), ()).line()
    assert many.startswith("caught up: 1,200 files, 2 chunks written"), many


@pytest.mark.parametrize("argv, fragment", [
    (["import", "facebook", "."], "unknown kind 'facebook'"),
    (["import", "telegram", "no-such-export.json"], "no such file or folder"),
])
def test_bad_import_input_is_exit_2(root, capsys, argv, fragment):
    code, out, err = run(capsys, *argv, "--root", str(root))
    assert code == 2 and out == "" and err.count("\n") == 1, (code, err)
    assert fragment in err and not (root / "data/telegram").exists()


def test_import_without_a_root_is_exit_2(capsys, monkeypatch, tmp_path):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    export = tmp_path / "result.json"
    export.write_text('{"name": "x", "type": "personal_chat", "messages": []}')
    code, out, err = run(capsys, "import", "telegram", str(export))
    assert code == 2 and "--root" in err and "is the demo root" in err, (code, err)


def test_person_filters_the_search_and_the_header_says_who(root, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = run(capsys, "search", "harbor bridge", "--root", str(root),
                         "--person", "Ola", "--limit", "50")
    assert code == 0, err
    paths = {line.split()[-1] for line in out.splitlines() if line[:3].strip().endswith(".")}
    assert paths == {"data/slack/random.jsonl"}, out
    assert "person: Ola" in out.splitlines()[0]


def test_a_phrase_only_query_has_no_empty_depth(root, capsys):
    code, out, err = run(capsys, "search", "in March 2026", "--root", str(root))
    assert code == 0 and "arms: none" in out, err
    assert "depth:" not in out.split("\n 1.")[0], out


@pytest.mark.parametrize("value", ["-5", "0"])
def test_demo_chunks_must_be_positive(tmp_path, capsys, value):
    code, out, err = run(capsys, "demo", "--no-app", "--root", str(tmp_path / "d"),
                         "--chunks", value)
    assert code == 2 and "--chunks" in err and "unexpected" not in err, err
    assert not (tmp_path / "d").exists()


def test_discover_pending_counts_the_removed_files_it_lists(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    assert main(["reindex", "--root", str(root)]) == 0
    (root / "notes/home/garden.md").unlink()
    code, out, err = run(capsys, "discover", "--pending", "--root", str(root))
    assert code == 0, err
    assert "(removed)" in out and out.splitlines()[-1] == (
        "0 of 2 files need indexing; 1 file removed since the last reindex"), out
