"""A warning is said when it is new, not at every run (engine/index/warnings_seen.py).

A source holding a link that leads out of it and a ``.gitignore`` line no pattern parser takes:
the walk finds both at every run. `memlens reindex` (and `memlens source add` of another
folder, which reindexes) says them once, then one line for those said before; `memlens stats`
lists every warning that holds, `--json` keeps them all, each marked new or not.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from engine.index.run_report import FileError, IndexStats
from engine.index.sources import ignore_pattern
from engine.index.warnings_seen import mark_new, remember
from engine.schema import ensure_schema
from engine.storage.db import connect, transaction
from tests.conftest import make_root
from tests.conftest import run_cli as run
from tests.sources.conftest import Recorder

LINK = "@V/link.md: symlink leads outside the source; not read"
BAD_LINE = "@V/.gitignore: line 2 is not a valid ignore pattern"
AS_BEFORE = "warnings as before; `memlens stats` lists them"


@pytest.fixture(autouse=True)
def no_root_in_the_environment(monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)


@pytest.fixture
def setup(tmp_path, capsys) -> tuple[Path, Path]:
    """A root and a source V beside it with a link leading out and a bad .gitignore line."""
    root = make_root(tmp_path / "root")
    vault = tmp_path / "V"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nThe quince by the wall.\n")
    (tmp_path / "outside.md").write_text("# Out\n\nnot for the index\n")
    os.symlink(tmp_path / "outside.md", vault / "link.md")
    (vault / ".gitignore").write_text("*.tmp\n[z-a]\n")
    code, _, err = run(capsys, "source", "add", str(vault), "--type", "note", "--root", str(root))
    assert code == 0, err
    assert LINK in err and BAD_LINE in err  # said the first time
    return root, vault


def warning_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("warning:")]


def test_a_second_reindex_says_the_old_warnings_in_one_line(setup, capsys):
    root, _ = setup
    for argv in (["reindex"], ["reindex"]):
        code, _, err = run(capsys, *argv, "--root", str(root))
        assert code == 0
        assert warning_lines(err) == [f"warning: 2 {AS_BEFORE}"]


def test_a_watch_started_later_does_not_say_them_again(setup, tmp_path):
    """The watch's first run (the catch-up) finds the same warnings: said before, not told."""
    from engine.config import load_config
    from engine.index.watch import Watcher
    from engine.index.watch_events import Problem
    root, vault = setup
    events = Recorder()
    watcher = Watcher(load_config(root), events, quiet_ms=200).start()
    try:
        events.wait_for(lambda e: type(e).__name__ == "Reindexed", "the catch-up run")
        (vault / "b.md").write_text("# B\n\nThe medlar by the gate.\n")
        events.wait_for(lambda e: type(e).__name__ == "Reindexed" and "@V/b.md" in e.paths,
                        "the run of the new note")
        os.symlink(tmp_path / "outside.md", vault / "link2.md")  # a new warning: told
        events.wait_for(lambda e: isinstance(e, Problem) and "link2.md" in e.line(),
                        "the new link's warning")
    finally:
        watcher.stop()
    told = [e.line() for e in events.of(Problem)]
    assert told == ["warning: @V/link2.md: symlink leads outside the source; not read"], told


def test_source_add_of_another_folder_does_not_repeat_them(setup, capsys, tmp_path):
    root, _ = setup
    other = tmp_path / "O"
    other.mkdir()
    (other / "o.md").write_text("# O\n\nother words\n")
    code, _, err = run(capsys, "source", "add", str(other), "--type", "note", "--root", str(root))
    assert code == 0
    assert LINK not in err and BAD_LINE not in err
    assert warning_lines(err) == [f"warning: 2 {AS_BEFORE}"]


def test_a_new_bad_link_is_said_and_only_it(setup, capsys, tmp_path):
    root, vault = setup
    os.symlink(tmp_path / "outside.md", vault / "link2.md")
    code, _, err = run(capsys, "reindex", "--root", str(root))
    assert code == 0
    assert warning_lines(err) == [
        "warning: @V/link2.md: symlink leads outside the source; not read",
        f"warning: 2 {AS_BEFORE}"]


def test_a_fixed_warning_leaves_stats(setup, capsys):
    root, vault = setup
    _, out, _ = run(capsys, "stats", "--root", str(root))
    assert f"not read: {LINK}" in out and f"not read: {BAD_LINE}" in out
    (vault / "link.md").unlink()
    code, _, err = run(capsys, "reindex", "--root", str(root))
    assert code == 0
    assert warning_lines(err) == ["warning: 1 warning as before; `memlens stats` lists them"]
    _, out, _ = run(capsys, "stats", "--root", str(root))
    assert "link.md" not in out and f"not read: {BAD_LINE}" in out
    _, out, _ = run(capsys, "stats", "--root", str(root), "--json")
    st = json.loads(out)
    assert [w["source_file"] for w in st["warnings"]] == ["@V/.gitignore"]
    assert [w["source_file"] for w in st["not_read"]] == ["@V/.gitignore"]


def test_json_keeps_every_warning_marked_new_or_not(setup, capsys, tmp_path):
    root, vault = setup
    os.symlink(tmp_path / "outside.md", vault / "link2.md")
    code, out, err = run(capsys, "reindex", "--root", str(root), "--json")
    assert code == 0 and err == ""
    warnings = {w["source_file"]: w["new"] for w in json.loads(out)["warnings"]}
    assert warnings == {"@V/.gitignore": False, "@V/link.md": False, "@V/link2.md": True}


def test_a_bad_character_range_is_an_invalid_line_not_a_crash():
    assert ignore_pattern("[z-a]") is None


def test_a_warning_said_while_reading_a_file_holds_until_it_is_read_again(tmp_path):
    """An unchanged file is not read again, so its warning is not said again, yet it holds:
    kept for stats until the file is read again (or leaves the index)."""
    conn = connect(tmp_path / "index.db")
    ensure_schema(conn)
    conn.execute("INSERT INTO index_state(source_file, mtime, indexed_at) VALUES "
                 "('notes/a.jsonl', 1.0, 'now')")

    def run_once(warnings: list[FileError], read_span: range, read: set[str]) -> IndexStats:
        stats = IndexStats(warnings=list(warnings))
        kept = mark_new(conn, stats, read_span, read)
        with transaction(conn):
            remember(conn, kept)
        return stats

    skipped = FileError("notes/a.jsonl", "1 record skipped")
    first = run_once([skipped], range(0, 1), {"notes/a.jsonl"})
    assert [w.new for w in first.warnings] == [True]
    run_once([], range(0), set())  # the file unchanged: not read, its warning holds
    again = run_once([skipped], range(0, 1), {"notes/a.jsonl"})  # changed, same problem
    assert [w.new for w in again.warnings] == [False]
    run_once([], range(0), {"notes/a.jsonl"})  # read again, fine now: forgotten
    assert [w.new for w in run_once([skipped], range(0, 1), {"notes/a.jsonl"}).warnings] == [True]
    index = FileError("(index)", "the vector sidecar was not updated: disk full")
    assert [w.new for w in run_once([index], range(0), set()).warnings] == [True]
    assert [w.new for w in run_once([index], range(0), set()).warnings] == [True]
