"""Watch mode against a real file-system watcher on a tmp root: appended messages become
searchable, bursts cost a bounded number of runs, unrouted paths never trigger one, a held writer
lock is waited for, and `memlens watch` stops cleanly on ctrl+c. Waits poll with generous
timeouts; nothing asserts a duration."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from engine.config import load_config
from engine.index.watch import Watcher
from engine.index.watch_events import Changed, Failed, Reindexed, Started, Stopped, Waiting
from engine.index.watch_filter import PathFilter
from engine.indexer import reindex
from engine.searcher import Searcher
from engine.storage.lock import writer_lock
from tests.conftest import make_root, slack_lines
from tests.sources.conftest import REPO, TIMEOUT, Recorder


def started_watcher(root: Path, **kwargs) -> tuple[Watcher, Recorder]:
    recorder = Recorder()
    watcher = Watcher(load_config(root), recorder, **kwargs).start()
    recorder.wait_for(lambda e: isinstance(e, Reindexed), "catch-up run")
    return watcher, recorder


def found(root: Path, query: str) -> list[str]:
    searcher = Searcher(load_config(root))
    try:
        return [r.content for r in searcher.search(query, mode="keyword").results]
    finally:
        searcher.close()


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as fh:
        fh.write(text)


# -- which paths matter -------------------------------------------------------------------------

def test_changed_line_counts_files_and_folders_apart():
    from engine.index.watch_events import Changed

    assert Changed(("notes/a.md",)).line() == "changed 1 file: notes/a.md"
    assert Changed(("notes/a.md", "notes/b.md", "notes/trip/")).line() == \
        "changed 2 files and 1 folder: notes/a.md, notes/b.md, notes/trip/"
    assert Changed(("notes/trip/",)).line() == "changed 1 folder: notes/trip/"


def test_only_routed_files_pass_the_filter(tmp_path):
    config = load_config(make_root(tmp_path / "root"))
    f = PathFilter(config.root, config.routes, config.db_path)
    root = str(config.root)
    for rel in ["data/slack/general.jsonl", "data/telegram/Family.jsonl", "notes/a/b/c.md",
                "notes/top.md", "data/health/checkins.jsonl", "memory/scratch/x.md"]:
        assert f.relative(f"{root}/{rel}") == rel
    for rel in ["data/search/memlens.db", "data/search/memlens.db-wal", "data/search/x.jsonl",
                "secrets/openai.json", "data/slack/.general.jsonl.swp", "data/slack/x.jsonl.tmp",
                "data/slack/x.jsonl~", "data/slack/notes.txt", "data/slack/sub/x.jsonl",
                "README.md", "memlens.toml"]:
        assert f.relative(f"{root}/{rel}") is None, rel
    assert f.relative(str(config.db_path) + "-shm") is None
    assert f.relative("/elsewhere/data/slack/general.jsonl") is None
    # a folder that can hold routed files counts when it is removed (or added) whole
    for rel in ["notes/home", "notes", "data/slack", "data", "notes/a/b"]:
        assert f.relative(f"{root}/{rel}", 3) == rel + "/", rel
        assert f.relative(f"{root}/{rel}", 2) is None, rel
    for rel in ["data/other", "secrets", "data/search", "misc"]:
        assert f.relative(f"{root}/{rel}", 3) is None, rel
    assert f.relative(f"{root}/notes/home", 1) == "notes/home/"  # exists: a folder
    assert f.relative(f"{root}/notes/nothing-here", 1) is None  # not a folder


def test_a_name_watchfiles_cannot_decode_is_read_back_as_the_walk_sees_it():
    from engine.index.watch import _undecodable_path

    message = 'Unable to decode path "/r/a \\"q\\" \\\\ \\u{200e}/k\\xFFey.md" to string'
    assert _undecodable_path(RuntimeError(message)) == '/r/a "q" \\ \u200e/k\udcffey.md'
    assert _undecodable_path(RuntimeError("error in underlying watcher: x")) is None
    assert _undecodable_path(RuntimeError('Unable to decode path "\\u{110000}" to string')) == ""


def test_a_change_of_a_sources_top_gitignore_is_named(tmp_path):
    from engine.index.sources import Source

    config = load_config(make_root(tmp_path / "root"))
    vault = tmp_path / "Vault"
    (vault / "sub").mkdir(parents=True)
    (vault / "a.md").write_text("# a\n")
    f = PathFilter(config.root, config.routes, config.db_path, (Source("V", vault, "note"),))
    assert f.ignores_changed({(2, f"{vault}/.gitignore")}) == "@V/.gitignore"
    assert f.ignores_changed({(3, f"{vault}/sub/.gitignore"), (2, f"{vault}/a.md")}) is None
    assert f.ignores_changed({(2, f"{config.root}/.gitignore")}) is None


# -- a real watcher on a tmp root ---------------------------------------------------------------

def test_appended_messages_become_searchable(tmp_path):
    root = make_root(tmp_path / "root")
    (root / "data/telegram").mkdir(parents=True)
    family = root / "data/telegram/Family.jsonl"
    family.write_text(json.dumps({"date": "2026-03-14T18:02:00+00:00", "from": "Mom",
                                  "text": "dinner on sunday"}) + "\n")
    watcher, events = started_watcher(root)
    try:
        assert events.of(Started) and found(root, "dinner")
        append(family, json.dumps({"date": "2026-03-14T18:05:00+00:00", "from": "Mom",
                                   "text": "bring the zucchini bread please"}) + "\n")
        append(root / "data/slack/general.jsonl", json.dumps(
            {"ts": "2026-03-20T10:00:00-08:00", "user": "Sam Rivera",
             "text": "the quokka photos are up"}) + "\n")
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.paths, "watched run")
        deadline = time.monotonic() + TIMEOUT
        while not (found(root, "zucchini") and found(root, "quokka")):
            assert time.monotonic() < deadline, events.events
            time.sleep(0.1)
        assert any("zucchini" in c for c in found(root, "zucchini"))
    finally:
        watcher.stop()
    assert not watcher.running and isinstance(events.events[-1], Stopped)
    assert not events.of(Failed)


def test_a_burst_of_200_writes_costs_a_bounded_number_of_runs(tmp_path):
    root = make_root(tmp_path / "root")
    log = root / "data/slack/burst.jsonl"
    watcher, events = started_watcher(root)
    try:
        for i in range(199):
            append(log, slack_lines(1, start=1000 + i))
        append(log, json.dumps({"ts": "2026-04-01T10:00:00-08:00", "user": "Sam Rivera",
                                "text": "last of the burst: capybara"}) + "\n")
        deadline = time.monotonic() + TIMEOUT
        while not found(root, "capybara"):  # until a run has seen the last line
            assert time.monotonic() < deadline, events.events
            time.sleep(0.1)
        time.sleep(1.5)  # a run still queued would show up meanwhile
    finally:
        watcher.stop()
    runs = [e for e in events.of(Reindexed) if e.paths]
    assert 1 <= len(runs) <= 5, [e.line() for e in runs]
    assert {p for e in runs for p in e.paths} == {"data/slack/burst.jsonl"}


def test_index_secrets_and_temp_files_never_trigger_a_run(tmp_path):
    root = make_root(tmp_path / "root")
    (root / "secrets").mkdir()
    watcher, events = started_watcher(root)
    try:
        (root / "secrets/openai.json").write_text('{"api_key": "sk-x"}')
        (root / "data/search/notes.jsonl").write_text(slack_lines(3))
        (root / "data/slack/general.jsonl.tmp").write_text(slack_lines(3))
        (root / "data/slack/.general.jsonl.swp").write_text("x")
        (root / "data/slack/readme.txt").write_text("x")
        (root / "memlens.toml").write_text("")
        time.sleep(2.0)  # long enough for any run they could trigger to start
        assert events.of(Changed) == []
        (root / "notes/home/sentinel.md").write_text("# sentinel\n\nflamingo\n")
        change = events.wait_for(lambda e: isinstance(e, Changed), "the sentinel's change")
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.paths, "the sentinel's run")
    finally:
        watcher.stop()
    assert change.paths == ("notes/home/sentinel.md",)
    assert len(events.of(Changed)) == 1
    assert len(events.of(Reindexed)) == 2  # the catch-up, the sentinel


def test_constant_writes_to_the_index_folder_do_not_postpone_a_run(tmp_path):
    """Ignored changes (the index's own, a searcher's) never count as activity."""
    root = make_root(tmp_path / "root")
    watcher, events = started_watcher(root)
    stop = threading.Event()

    def churn() -> None:
        noise = root / "data/search/noise.jsonl"
        while not stop.is_set():
            append(noise, "x\n")
            time.sleep(0.05)

    noise = threading.Thread(target=churn)
    noise.start()
    try:
        time.sleep(0.5)
        (root / "notes/home/busy.md").write_text("# busy\n\naxolotl\n")
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.paths, "a run despite noise")
    finally:
        stop.set()
        noise.join()
        watcher.stop()
    assert found(root, "axolotl")


def test_a_folder_moved_out_and_back_in_is_unindexed_then_indexed(tmp_path):
    root = make_root(tmp_path / "root")
    (root / "notes/trips").mkdir()
    (root / "notes/trips/lisbon.md").write_text("# Lisbon\n\npasteis de nata\n")
    watcher, events = started_watcher(root)
    try:
        assert found(root, "pasteis")
        (root / "notes/trips").rename(tmp_path / "trips")  # the folder event only
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.stats.removed_files,
                        "the run removing the folder's notes")
        assert not found(root, "pasteis")
        (tmp_path / "trips").rename(root / "notes/trips-again")
        events.wait_for(lambda e: isinstance(e, Reindexed) and "notes/trips-again/" in e.paths,
                        "the run adding it back")
    finally:
        watcher.stop()
    assert found(root, "pasteis")


def test_a_vanished_root_stops_the_watcher_without_recreating_it(tmp_path):
    import shutil

    root = make_root(tmp_path / "root")
    watcher, events = started_watcher(root)
    shutil.rmtree(root)
    events.wait_for(lambda e: isinstance(e, Stopped), "the watcher stopping")
    watcher.stop()
    assert watcher.error == f"the data root {root} is gone: stopped watching"
    assert events.of(Failed)[-1].message == watcher.error
    assert not root.exists()


def test_a_held_writer_lock_is_waited_for_then_the_change_indexed(tmp_path):
    root = make_root(tmp_path / "root")
    config = load_config(root)
    reindex(config=config)
    watcher, events = started_watcher(root, retry_s=0.2)
    release = threading.Event()
    held = threading.Event()

    def hold() -> None:
        with writer_lock(config.db_path, "maintenance"):
            held.set()
            release.wait(TIMEOUT)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(TIMEOUT)
        append(root / "data/slack/general.jsonl", json.dumps(
            {"ts": "2026-03-20T10:00:00-08:00", "user": "Sam Rivera",
             "text": "the pelican survey"}) + "\n")
        waiting = events.wait_for(lambda e: isinstance(e, Waiting), "waiting for the lock")
        assert waiting.holder == "maintenance"
        assert not [e for e in events.of(Reindexed) if e.paths]
        release.set()
        holder.join()
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.paths, "the run after it")
    finally:
        release.set()
        watcher.stop()
    assert found(root, "pelican") and not events.of(Failed)


def test_a_failed_run_is_one_line_and_the_watcher_goes_on(tmp_path):
    root = make_root(tmp_path / "root")
    calls: list[int] = []

    def flaky(**kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk on fire\nsecond line")
        return reindex(**kwargs)

    watcher, events = started_watcher(root, reindex_fn=flaky)
    try:
        (root / "notes/a.md").write_text("# a\n\nfirst\n")
        failed = events.wait_for(lambda e: isinstance(e, Failed), "the failure")
        assert failed.line() == "error: disk on fire second line"
        (root / "notes/b.md").write_text("# b\n\nsecond\n")
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.paths, "the next run")
    finally:
        watcher.stop()
    assert found(root, "first") and found(root, "second")


def test_a_runs_problems_are_told_once_while_they_last(tmp_path):
    from engine.index.run_report import FileError
    from engine.index.watch_events import Problem

    root = make_root(tmp_path / "root")
    gone = FileError("@V/", "source 'V': its folder is not there (not mounted?)")
    bad = FileError("notes/bad.md", "bad.md: not valid")
    reports = [([], [gone]), ([bad], [gone]), ([], [gone]), ([], []), ([bad], [gone])]
    calls: list[int] = []

    def canned(**kwargs):
        stats = reindex(**kwargs)
        errors, warnings = reports[min(len(calls), len(reports) - 1)]
        calls.append(1)
        stats.errors, stats.warnings = list(errors), list(warnings)
        return stats

    watcher, events = started_watcher(root, reindex_fn=canned, quiet_ms=200)
    try:
        for i in range(1, len(reports)):
            (root / f"notes/n{i}.md").write_text(f"# n{i}\n")
            events.wait_for(lambda e, i=i: isinstance(e, Reindexed) and
                            f"notes/n{i}.md" in e.paths, f"run {i}")
        time.sleep(0.3)
    finally:
        watcher.stop()
    told = [e.line() for e in events.of(Problem)]
    assert told == ["warning: @V/: source 'V': its folder is not there (not mounted?)",
                    "error: notes/bad.md: bad.md: not valid",
                    "error: notes/bad.md: bad.md: not valid",  # after a run without it
                    "warning: @V/: source 'V': its folder is not there (not mounted?)"], told


# -- memlens watch ------------------------------------------------------------------------------

@pytest.mark.parametrize("root_first", [False, True])
def test_memlens_watch_prints_a_line_per_run_and_stops_on_ctrl_c(tmp_path, root_first):
    root = make_root(tmp_path / "root")
    args = (["--root", str(root), "watch"] if root_first else ["watch", "--root", str(root)])
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    env.pop("MEMLENS_EMBEDDER", None)
    proc = subprocess.Popen([sys.executable, "-m", "cli", *args], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []

    def read() -> None:
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + TIMEOUT
        while not any(line.startswith("caught up") for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, lines
            time.sleep(0.05)
        (root / "notes/new.md").write_text("# new\n\nwombat\n")
        while not any(line.startswith("reindexed") for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, lines
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(TIMEOUT) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(5)
    assert lines[0].startswith("watching ")
    assert any(line.startswith("changed 1 file: notes/new.md") for line in lines), lines
    assert lines[-1].startswith("stopped after 2 reindex runs"), lines
    err = proc.stderr.read()
    assert "Traceback" not in err and "detected" not in err, err  # no library log lines
