"""``memlens watch`` against what a user's folders do to it while it runs: a file or folder whose
name is not valid UTF-8 (under the root, a source, ``secrets/``), a ``memlens.toml`` moved away
or emptied by a sync tool, a source's ``.gitignore`` edited, and a log that must say why a run
had errors or warnings, each once. The process cases run ``memlens watch`` in a subprocess
(tests/sources/conftest.py's ``WatchProcess``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from engine.config import load_config
from engine.index.watch import Watcher
from engine.index.watch_events import (
    Failed,
    Problem,
    Reconfigured,
    Reindexed,
    Rewatched,
    Started,
)
from tests.conftest import clock_env
from tests.sources.conftest import REPO, Recorder, WatchProcess, ok, paths_found, write

NOT_UTF8 = "not valid UTF-8"


def bad_name(folder: Path, name: bytes) -> bytes:
    """``folder/name`` as bytes: a name that is not valid UTF-8 cannot be a str path."""
    return os.fsencode(folder) + b"/" + name


def found_in_time(root: Path, word: str, expected: list[str], timeout: float = 60) -> list[str]:
    deadline = time.monotonic() + timeout
    while (got := paths_found(root, word)) != expected and time.monotonic() < deadline:
        time.sleep(0.3)
    return got


def runs(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith(("caught up", "reindexed"))]


# -- lines ----------------------------------------------------------------------------------------

def test_the_new_lines_read_as_memlens_reindex_prints_them():
    assert Problem("error", "data/slack/bad.jsonl", "bad.jsonl: not valid\nJSON").line() == \
        "error: data/slack/bad.jsonl: bad.jsonl: not valid JSON"
    assert Problem("warning", "", "a changed file's name is not valid UTF-8").line() == \
        "warning: a changed file's name is not valid UTF-8"
    assert Started(Path("/r"), (), ("Vault",)).line() == \
        "watching /r (ctrl+c stops); not read now, not watched: Vault"
    assert Reconfigured(("G",), again=True).line() == \
        "memlens.toml loads again: reindexing; sources watched: G"
    assert Reconfigured(("G",), again=True, changed=False).line() == \
        "memlens.toml loads again; sources watched: G"
    assert Rewatched(("G",), why="@G/.gitignore changed").line() == \
        "@G/.gitignore changed: catching up; sources watched: G"


# -- a name that is not valid UTF-8 -------------------------------------------------------------

def test_a_name_that_is_not_utf8_is_one_warning_and_the_watch_goes_on(vault_root):
    root, vault = vault_root
    watch = WatchProcess(root)
    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        # under secrets/ and the index folder: the watch goes on and says nothing of it
        for folder in (root / "secrets", root / "data/search"):
            with open(bad_name(folder, b"k\xffey.json"), "w") as fh:
                fh.write("k")
        write(root / "notes/first.md", "# First\n\nThe ocelot note.\n")
        assert found_in_time(root, "ocelot", ["notes/first.md"]) == ["notes/first.md"]
        time.sleep(1)  # a line it would print meanwhile
        assert watch.proc.poll() is None, watch.lines
        assert not [line for line in watch.lines[seen:] if "error" in line
                    or "warning" in line or NOT_UTF8 in line], watch.lines
        # a note and a source's note so named: one warning, naming no path; still watching
        with open(bad_name(root / "notes", b"d\xffiary.md"), "w") as fh:
            fh.write("# Diary\n")
        with open(bad_name(vault, b"b\xffad.md"), "w") as fh:
            fh.write("# Bad\n")
        write(root / "notes/second.md", "# Second\n\nThe tapir note.\n")
        assert found_in_time(root, "tapir", ["notes/second.md"]) == ["notes/second.md"]
        watch.wait_for(lambda line: line.startswith("warning:") and NOT_UTF8 in line,
                       "the warning", after=seen)
        write(vault / "later.md", "# Later\n\nThe quokka note.\n")
        assert found_in_time(root, "quokka", ["@G/later.md"]) == ["@G/later.md"]
    finally:
        watch.stop()
    assert watch.proc.returncode == 0, watch.lines
    said = [line for line in watch.lines if "still watching" in line]
    assert len(said) == 1 and said[0].startswith("warning: "), watch.lines
    # the walk's own report of such a file names it by its indexed path, as `memlens reindex`
    assert any(line.startswith("warning: notes/d\\xffiary.md: file name is not valid UTF-8")
               for line in watch.lines), watch.lines
    assert not [line for line in watch.lines[1:] if str(root.parent) in line
                or "k\\xFFey" in line or "k\\xffey" in line], watch.lines
    assert watch.lines[-1].startswith("stopped after"), watch.lines


def test_a_folder_whose_name_is_not_utf8_does_not_stop_the_watch_nor_spin(vault_root):
    """watchfiles cannot even start on a tree holding such a folder: the watch polls then."""
    root, vault = vault_root
    os.mkdir(bad_name(root / "secrets", b"f\xffolder"))  # there before the watch starts
    watch = WatchProcess(root)
    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        write(root / "notes/first.md", "# First\n\nThe okapi note.\n")
        assert found_in_time(root, "okapi", ["notes/first.md"]) == ["notes/first.md"]
        assert not [line for line in watch.lines if NOT_UTF8 in line], watch.lines
        os.mkdir(bad_name(root / "notes", b"n\xffotes"))
        with open(bad_name(root / "notes", b"n\xffotes/inside.md"), "w") as fh:
            fh.write("# Inside\n")
        write(vault / "quagga.md", "# Q\n\nThe quagga note.\n")
        assert found_in_time(root, "quagga", ["@G/quagga.md"]) == ["@G/quagga.md"]
        watch.wait_for(lambda line: NOT_UTF8 in line, "the warning", after=seen)
        time.sleep(1)
        before = len(runs(watch.lines))
        time.sleep(3)  # nothing changes: no run
        assert len(runs(watch.lines)) == before, watch.lines
        write(root / "notes/last.md", "# Last\n\nThe gerenuk note.\n")
        assert found_in_time(root, "gerenuk", ["notes/last.md"]) == ["notes/last.md"]
        assert watch.proc.poll() is None, watch.lines
    finally:
        watch.stop()
    assert watch.proc.returncode == 0, watch.lines
    assert len([line for line in watch.lines if "still watching" in line]) == 1, watch.lines


# -- memlens.toml gone or emptied ---------------------------------------------------------------

def test_a_memlens_toml_moved_away_or_emptied_keeps_the_sources(vault_root, tmp_path):
    root, vault = vault_root
    toml = root / "memlens.toml"
    good = toml.read_text()
    watch = WatchProcess(root)
    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        toml.rename(tmp_path / "memlens.toml.away")
        seen = watch.wait_for(lambda line: line.startswith("error: memlens.toml is gone")
                              and "(still watching with the previous one)" in line,
                              "the error", after=seen)
        write(root / "notes/a.md", "# A\n\nThe wombat note.\n")
        seen = watch.wait_for(lambda line: line.startswith("reindexed"), "a run", after=seen)
        assert " 0 deleted" in watch.lines[seen - 1], watch.lines
        assert paths_found(root, "quince") == ["@G/garden.md"]
        (tmp_path / "memlens.toml.away").rename(toml)
        seen = watch.wait_for(lambda line: line.startswith("memlens.toml loads again"),
                              "the toml back", after=seen)
        toml.write_text("")  # a sync tool writing it
        seen = watch.wait_for(lambda line: line.startswith("error: memlens.toml is empty"),
                              "the error", after=seen)
        write(root / "notes/b.md", "# B\n\nThe numbat note.\n")
        seen = watch.wait_for(lambda line: line.startswith("reindexed"), "a run", after=seen)
        assert " 0 deleted" in watch.lines[seen - 1], watch.lines
        toml.write_text(good)
        seen = watch.wait_for(lambda line: line.startswith("memlens.toml loads again"),
                              "the toml back", after=seen)
        write(vault / "orchard.md", "# Orchard\n\nThe medlar is ripe.\n")
        assert found_in_time(root, "medlar", ["@G/orchard.md"]) == ["@G/orchard.md"]
    finally:
        watch.stop()
    assert paths_found(root, "quince") == ["@G/garden.md"]
    assert not [line for line in watch.lines if "sources watched: none" in line], watch.lines
    assert len([line for line in watch.lines if line.startswith("error:")]) == 2, watch.lines


# -- a source's .gitignore ----------------------------------------------------------------------

def test_an_edit_of_a_sources_gitignore_is_followed_at_once(vault_root):
    root, vault = vault_root
    write(vault / "Templates/daily.md", "# Daily\n\nThe templateword note.\n")
    ok(root, "reindex")
    events = Recorder()
    watcher = Watcher(load_config(root), events, quiet_ms=200, max_latency_ms=800).start()
    try:
        events.wait_for(lambda e: isinstance(e, Reindexed), "catch-up run")
        assert paths_found(root, "templateword") == ["@G/Templates/daily.md"]
        write(vault / ".gitignore", "Templates/\n")
        assert found_in_time(root, "templateword", []) == []
        assert watcher.filter.relative(str(vault / "Templates/other.md")) is None
        events.wait_for(lambda e: isinstance(e, Rewatched)
                        and e.why == "@G/.gitignore changed", "the re-arm")
        write(vault / ".gitignore", "# nothing ignored now\n")
        assert found_in_time(root, "templateword", ["@G/Templates/daily.md"]) == \
            ["@G/Templates/daily.md"]
        assert watcher.filter.relative(str(vault / "Templates/other.md")) == \
            "@G/Templates/other.md"
    finally:
        watcher.stop()
    assert watcher.error is None and not events.of(Failed)


# -- the log says why ---------------------------------------------------------------------------

class SplitWatchProcess(WatchProcess):
    """``memlens watch`` with its stdout and stderr apart."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "watch", "--root", str(root)], cwd=REPO,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clock_env())
        self.lines: list[str] = []
        self.errors: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        threading.Thread(target=self._read_errors, daemon=True).start()

    def _read_errors(self) -> None:
        for line in self.proc.stderr:
            self.errors.append(line.rstrip("\n"))
            self.lines.append(line.rstrip("\n"))


def test_the_log_says_each_error_and_warning_once_on_stderr(vault_root, tmp_path):
    root, vault = vault_root
    write(vault / ".gitignore", "Private/\nfoo\\\n")  # line 2: a warning at every walk
    write(root / "data/slack/bad.jsonl", "not json\n")
    watch = SplitWatchProcess(root)
    gitignore = ("warning: @G/.gitignore: line 2 is not a valid ignore pattern; skipped "
                 "(the other lines apply)")
    gone = "warning: @G/: source 'G': its folder is not there (not mounted?)"
    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        watch.wait_for(lambda line: line == gitignore, "the .gitignore warning")
        watch.wait_for(lambda line: line.startswith("error: data/slack/bad.jsonl: "),
                       "the file's error")
        for name in ("a", "b"):
            write(root / f"notes/{name}.md", f"# {name}\n\nnote {name}.\n")
            seen = watch.wait_for(lambda line: line.startswith("reindexed"), "a run",
                                  after=seen)
        vault.rename(tmp_path / "G.away")  # unmounted
        seen = watch.wait_for(lambda line: line.startswith("a source folder changed"),
                              "the folder change", after=seen)
        for name in ("c", "d"):
            write(root / f"notes/{name}.md", f"# {name}\n\nnote {name}.\n")
            change = f"changed 1 file: notes/{name}.md"
            seen = watch.wait_for(lambda line, change=change: line == change, "the change",
                                  after=seen)
            seen = watch.wait_for(lambda line: line.startswith("reindexed"), "its run",
                                  after=seen)
        time.sleep(0.5)  # the lines of the last run
    finally:
        watch.stop()
    assert watch.errors.count(gitignore) == 1, watch.lines
    assert len([line for line in watch.errors if line.startswith(gone)]) == 1, watch.lines
    assert len([line for line in watch.errors if "bad.jsonl" in line]) == 1, watch.lines
    assert all(line.startswith(("error: ", "warning: ")) for line in watch.errors), watch.errors


def test_started_says_a_refused_source_is_not_read_now(vault_root, tmp_path):
    root, vault = vault_root
    vault.rename(tmp_path / "G.real")
    os.symlink(root, vault)  # leads into the data root: refused, not missing
    events = Recorder()
    watcher = Watcher(load_config(root), events, quiet_ms=200).start()
    try:
        events.wait_for(lambda e: isinstance(e, Reindexed), "catch-up run")
        refused = events.wait_for(lambda e: isinstance(e, Problem) and e.path == "@G/",
                                  "the reason")
    finally:
        watcher.stop()
    assert events.of(Started)[0].line().endswith("; not read now, not watched: G")
    assert refused.level == "error" and "its folder now leads into the data root" in \
        refused.message
    assert [e for e in events.events if isinstance(e, Problem)].count(refused) == 1
    assert json.dumps(paths_found(root, "quince")) == '["@G/garden.md"]'
