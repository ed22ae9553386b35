"""Sources in place while they change under a running memlens: the hostile cases
(docs/reliability.md, "Sources in place").

A folder swapped for a link to the root or to ``secrets/`` while the MCP server and the watcher
run, ignore rules and removals reaching a running server, a ``.gitignore`` with a line no
pattern parser takes (or that is a link to a secret), an empty folder where a disk was mounted,
a folder deleted and made again under the watcher, a removal while another writer holds the
index, twenty-four ``source add`` at once, and an index kept inside a source. The swap and race
cases run as real processes: the CLI, ``memlens watch`` and ``memlens mcp`` in subprocesses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.config import ConfigError, load_config
from engine.index.sources import IgnoreRules, Source, folder_now
from tests.conftest import clock_env, make_root
from tests.mcp.conftest import start
from tests.sources.conftest import (
    KEY,
    REPO,
    SECRET_WORD,
    WatchProcess,
    memlens,
    ok,
    paths_found,
    write,
)

# -- a folder swapped for a link while memlens runs ---------------------------------------------

@pytest.mark.parametrize("target", ["secrets", "root"])
def test_a_source_swapped_for_a_link_into_the_root_serves_and_indexes_nothing(
        vault_root, tmp_path, target):
    root, vault = vault_root
    client = start(root, tmp_path, "swap")
    watch = WatchProcess(root)
    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        assert "quince" in client.ok("read_note", {"path": "@G/garden.md"})
        vault.rename(tmp_path / "G.real")
        os.symlink(root / "secrets" if target == "secrets" else root, vault)
        for path in ("@G/openai.json", "@G/notes.md", "@G/secrets/openai.json",
                     "@G/secrets/notes.md", "@G/memlens.toml", "@G/data/search/memlens.db",
                     "@G/data/search/memlens.db.vectors/manifest.json", "@G/garden.md"):
            error = client.error("read_note", {"path": path})
            assert KEY[:12] not in error and SECRET_WORD not in error, error
        assert "leads into the data root" in client.error("read_note", {"path": "@G/notes.md"})
        # the watcher sees the folder change, catches up, and indexes nothing from secrets/
        seen = watch.wait_for(lambda line: line.startswith("a source folder changed"),
                              "the folder change", after=seen)
        write(root / "notes/today.md", "# Today\n\nA new note.\n")  # "the next edit"
        seen = watch.wait_for(lambda line: "notes/today.md" in line, "the edit", after=seen)
        watch.wait_for(lambda line: line.startswith("reindexed"), "its run", after=seen)
        assert paths_found(root, SECRET_WORD) == []
        text = client.ok("keyword_search", {"query": SECRET_WORD})
        assert SECRET_WORD not in text
        assert paths_found(root, "quince") == ["@G/garden.md"]  # its chunks are kept
        run = memlens(root, "reindex")
        assert "source 'G': its folder now leads into the data root" in run.stderr
        assert "not read, its indexed files are kept" in run.stderr
        assert run.returncode == 1  # an error, not a state: someone swapped a link in
        assert paths_found(root, SECRET_WORD) == []
    finally:
        watch.stop()
        client.close()


def test_folder_now_refuses_what_a_source_may_not_lead_to(tmp_path):
    root = tmp_path / "root"
    (root / "data/search").mkdir(parents=True)
    db = root / "data/search/memlens.db"
    elsewhere = tmp_path / "index"
    elsewhere.mkdir()
    outside_db = elsewhere / "memlens.db"
    cases = {root: "leads into the data root", root / "data": "leads into the data root",
             tmp_path: "contains the data root"}
    for folder, why in cases.items():
        found = folder_now(Source("x", folder, "note"), root, [db])
        assert found.real is None and found.refused and why in found.why
    held = folder_now(Source("x", elsewhere, "note"), root, [outside_db])
    assert held.real is None and held.refused and "holds the index" in held.why
    (elsewhere / "a.md").write_text("x")
    assert folder_now(Source("x", elsewhere, "note"), root, [db]).real == elsewhere.resolve()


def test_an_index_inside_a_source_is_refused_and_its_sidecar_never_served(tmp_path):
    root = make_root(tmp_path / "root")
    vault = tmp_path / "V"
    write(vault / "a.md", "# A\n\nalpha note.\n")
    ok(root, "reindex")
    run = memlens(root, "source", "add", str(vault), "--type", "note", "--db",
                  str(vault / "index/memlens.db"))
    assert run.returncode == 2 and "holds the index" in run.stderr, run.stderr
    ok(root, "source", "add", str(vault), "--type", "note", "--name", "V")
    run = memlens(root, "reindex", "--db", str(vault / "index/memlens.db"))
    assert run.returncode != 0
    assert "[sources.V] holds the index" in run.stderr and "Traceback" not in run.stderr
    assert not (vault / "index").exists() or not any((vault / "index").rglob("manifest.json"))


# -- a running server follows memlens.toml --------------------------------------------------------

def test_ignore_rules_and_removal_reach_a_running_mcp_server(vault_root, tmp_path):
    root, vault = vault_root
    client = start(root, tmp_path, "follow")
    try:
        assert "privatediaryword" in client.ok("read_note", {"path": "@G/Private/diary.md"})
        toml = root / "memlens.toml"
        toml.write_text(toml.read_text().replace('type = "note"',
                                                 'type = "note"\nignore = ["Private/"]'))
        ok(root, "reindex")
        error = client.error("read_note", {"path": "@G/Private/diary.md"})
        assert "privatediaryword" not in error and "not part of the data layer" in error
        assert "quince" in client.ok("read_note", {"path": "@G/garden.md"})
        ok(root, "source", "remove", "G")
        error = client.error("read_note", {"path": "@G/garden.md"})
        assert "quince" not in error
        assert "quince" not in client.ok("keyword_search", {"query": "quince"})
        toml.write_text(toml.read_text() + "\n[sources.bad]\npath = 3\n")  # does not load
        error = client.error("read_note", {"path": "@G/garden.md"})
        assert "quince" not in error
    finally:
        client.close()


def test_a_broken_config_refuses_source_reads_until_it_loads(vault_root):
    from engine.library import Library

    root, vault = vault_root
    library = Library(load_config(root))
    assert "quince" in library.read_file("@G/garden.md").text
    toml = root / "memlens.toml"
    good = toml.read_text()
    toml.write_text(good + "\n[sources.bad]\npath = 3\n")
    from engine.library_types import ReadRefused

    with pytest.raises(ReadRefused, match="memlens.toml does not load now"):
        library.read_file("@G/garden.md")
    write(root / "notes/plain.md", "# Plain\n\nA root note.\n")
    assert "root note" in library.read_file("notes/plain.md").text  # the root's files still
    toml.write_text(good)
    assert "quince" in library.read_file("@G/garden.md").text


# -- .gitignore ----------------------------------------------------------------------------------

def test_an_invalid_gitignore_line_is_skipped_and_named_by_number_only(vault_root):
    root, vault = vault_root
    write(vault / ".gitignore", "Private/\nfoo\\\n!\n*.tmp.md\n")
    write(vault / "drafts.tmp.md", "# Draft\n\ndraftword here.\n")
    write(vault / "kept.md", "# Kept\n\nkeptword here.\n")
    run = memlens(root, "reindex")
    assert run.returncode == 0, run.stderr
    assert "warning: @G/.gitignore: line 2 is not a valid ignore pattern; skipped" in run.stderr
    assert "line 3 is not a valid ignore pattern" in run.stderr
    assert "foo\\" not in run.stderr and "GitWildMatch" not in run.stderr
    assert paths_found(root, "keptword") == ["@G/kept.md"]
    assert paths_found(root, "draftword") == [] and paths_found(root, "privatediaryword") == []


def test_a_gitignore_linked_out_of_the_source_is_not_read_nor_quoted(vault_root):
    root, vault = vault_root
    write(root / "secrets/token.txt", "sk-line-of-a-secret\\\n")
    os.symlink(root / "secrets/token.txt", vault / ".gitignore")
    run = memlens(root, "reindex")
    assert run.returncode == 0, run.stderr
    assert "@G/.gitignore: a link leading out of the source; not read" in run.stderr
    assert "sk-line" not in run.stderr + run.stdout
    rules = IgnoreRules(vault, ("ok/", "bad\\"))
    assert ("", "memlens.toml: ignore entry 2 is not a valid ignore pattern; skipped (the "
            "other lines apply)") in rules.problems
    assert rules("ok", True) and not rules("garden.md", False)


def test_source_add_refuses_an_invalid_ignore_glob(vault_root, tmp_path):
    root, _ = vault_root
    other = tmp_path / "Other"
    write(other / "a.md", "# A\n")
    run = memlens(root, "source", "add", str(other), "--type", "note", "--ignore", "foo\\")
    assert run.returncode == 2 and "--ignore 'foo\\\\' is not a valid gitignore pattern" in \
        run.stderr, run.stderr
    assert "Other" not in (root / "memlens.toml").read_text()


# -- an empty folder, a mount gone --------------------------------------------------------------

def test_an_empty_folder_counts_as_missing_and_keeps_the_chunks(vault_root, tmp_path):
    root, vault = vault_root
    vault.rename(tmp_path / "G.disk")
    vault.mkdir()  # the mount point without its disk
    (vault / ".DS_Store").write_text("")  # dot-entries do not make it a vault
    run = memlens(root, "reindex")
    assert run.returncode == 0, run.stderr
    assert "warning: @G/: source 'G': its folder is empty (a disk's mount point, not " \
           "mounted?); its indexed files are kept" in run.stderr
    assert "0 removed" in run.stdout
    assert paths_found(root, "quince") == ["@G/garden.md"]
    assert "not read now: its folder is empty" in ok(root, "source", "list")
    vault.rmdir() if not any(vault.iterdir()) else shutil.rmtree(vault)
    (tmp_path / "G.disk").rename(vault)  # mounted again: nothing re-embedded
    out = ok(root, "reindex")
    assert "indexed 0 files" in out and "0 embedded" in out


def test_a_mount_point_seen_on_its_parents_disk_counts_as_missing(vault_root, monkeypatch):
    import engine.indexer as indexer

    root, vault = vault_root
    monkeypatch.setattr(indexer, "is_mount_point", lambda folder: True)
    from engine import reindex

    reindex(config=load_config(root))  # recorded: G is read from a mounted disk
    monkeypatch.setattr(indexer, "is_mount_point", lambda folder: False)
    stats = reindex(config=load_config(root))  # G is now on its parent's file system
    assert stats.removed_files == 0
    assert any("no longer a mounted disk" in w.message for w in stats.warnings)
    assert paths_found(root, "quince") == ["@G/garden.md"]
    found = folder_now(Source("G", vault, "note"), root, (), was_mounted=True)
    assert found.real is None and not found.refused


# -- the watcher and a replaced folder ----------------------------------------------------------

def test_the_watcher_rearms_a_folder_deleted_and_made_again(vault_root):
    root, vault = vault_root
    watch = WatchProcess(root)

    def found_in_time(word: str, expected: list[str]) -> list[str]:
        deadline = time.monotonic() + 30
        while (got := paths_found(root, word)) != expected and time.monotonic() < deadline:
            time.sleep(0.3)
        return got

    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        shutil.rmtree(vault)
        vault.mkdir()  # a sync tool makes it again
        write(vault / "orchard.md", "# Orchard\n\nThe medlar fruit is ripe.\n")
        assert found_in_time("medlar", ["@G/orchard.md"]) == ["@G/orchard.md"]
        time.sleep(1)  # a pause: the watcher looks at its folders again
        write(vault / "later.md", "# Later\n\nA loquat in the new folder.\n")
        assert found_in_time("loquat", ["@G/later.md"]) == ["@G/later.md"]
        assert any(line.startswith("a source folder changed: catching up; sources watched: G")
                   for line in watch.lines[seen:]), watch.lines
    finally:
        watch.stop()


# -- removal while another writer holds the index; adds at once ---------------------------------

HOLD = """
import sys, time
from pathlib import Path
from engine.storage.lock import writer_lock
with writer_lock(Path(sys.argv[1]), sys.argv[2]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_removing_a_source_while_another_writer_holds_the_index_says_what_will_happen(
        vault_root):
    root, vault = vault_root
    config = load_config(root)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(config.db_path), "maintenance"],
                              cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        run = memlens(root, "source", "remove", "G")
        assert run.returncode == 0, run.stderr  # the configuration, its part, is done
        assert "warning: removed source G from memlens.toml; its 2 indexed files stay " \
               "searchable: a maintenance (pid" in run.stderr
        assert "the next `memlens reindex` deletes them" in run.stderr
        assert "deleted from the index" not in run.stdout + run.stderr
        assert paths_found(root, "quince") == ["@G/garden.md"]  # as said
        run = memlens(root, "source", "add", str(vault), "--type", "note", "--name", "G",
                      "--json")
        assert run.returncode == 0, run.stderr
        answer = json.loads(run.stdout)
        assert answer["action"] == "added" and answer["source"]["name"] == "G"
        assert answer["indexed"] is False and "a maintenance (pid" in answer["pending"]
    finally:
        holder.stdin.close()
        holder.wait(20)
    ok(root, "reindex")
    assert paths_found(root, "quince") == ["@G/garden.md"]


def test_a_source_removed_while_a_reindex_runs_is_dropped_when_that_run_ends(vault_root):
    from engine import reindex
    from engine.index import remove_source

    root, vault = vault_root
    for i in range(5):
        write(vault / f"more/n{i}.md", f"# N{i}\n\nmedlarword {i}.\n")
    config = load_config(root)
    removed = []

    def progress(p) -> None:  # `memlens source remove G` from elsewhere, mid-run
        if p.phase == "index" and not removed:
            removed.append(remove_source(load_config(root), "G"))

    stats = reindex(config=config, progress=progress)
    assert removed and stats.removed_files >= 2
    assert paths_found(root, "medlarword") == [] and paths_found(root, "quince") == []
    assert ok(root, "source", "list").startswith("no sources")
    from engine.library import Library

    assert not Library(load_config(root)).has_files_under("@G/")  # no chunk outlives it


def test_remove_says_removed_only_once_the_chunks_are_gone(vault_root):
    root, vault = vault_root
    out = ok(root, "source", "remove", "G", "--no-index")
    assert "removed source G from memlens.toml; its 2 indexed files stay searchable until " \
           "the next `memlens reindex`" in out
    assert paths_found(root, "quince") == ["@G/garden.md"]
    ok(root, "source", "add", str(vault), "--type", "note", "--name", "G")
    out = ok(root, "source", "remove", "G")
    assert out.rstrip().endswith("removed source G: its 2 indexed files deleted from the index "
                                 "(the folder itself is untouched)")
    assert paths_found(root, "quince") == []
    run = memlens(root, "source", "add", str(vault), "--type", "note", "--name", "G", "--json",
                  "--no-index")
    answer = json.loads(run.stdout)
    assert answer["source"]["prefix"] == "@G/" and answer["indexed"] is False
    answer = json.loads(ok(root, "source", "remove", "G", "--json"))
    assert answer["action"] == "removed" and answer["indexed"] is True
    assert answer["reindex"]["removed_files"] == 0  # nothing of it was indexed


def test_two_dozen_source_adds_at_once_all_land(tmp_path):
    root = make_root(tmp_path / "root")
    folders = []
    for i in range(24):
        folders.append(write(tmp_path / f"src{i:02}" / "a.md", f"# N{i}\n").parent)
    procs = [subprocess.Popen([sys.executable, "-m", "cli", "source", "add", str(f), "--type",
                               "note", "--no-index", "--root", str(root)], cwd=REPO,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=clock_env()) for f in folders]
    failures = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        if p.returncode:
            failures.append(err)
    assert failures == []
    assert sorted(s.name for s in load_config(root).sources) == [f.name for f in folders]


def test_a_source_table_holding_the_index_is_a_config_error(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    vault = tmp_path / "V"
    vault.mkdir()
    (root / "memlens.toml").write_text(f'[index]\ndb = "{vault}/idx/memlens.db"\n\n'
                                       f'[sources.V]\npath = "{vault}"\ntype = "note"\n')
    with pytest.raises(ConfigError, match=r"\[sources.V\] holds the index"):
        load_config(root)


def test_a_source_added_while_the_server_runs_is_scrubbed_from_its_answers(vault_root, tmp_path):
    from mcp_server.tools import MemlensTools

    root, vault = vault_root
    tools = MemlensTools(load_config(root))
    try:
        later = tmp_path / "Later"
        write(later / "a.md", "# A\n\nalpha.\n")
        ok(root, "source", "add", str(later), "--type", "note", "--name", "L", "--no-index")
        text, is_error = tools.call("read_note", {"path": "@L/nothing.md"})
        assert is_error and str(tmp_path) not in text
        assert str(later) not in tools._error(f"cannot read {later}/a.md")
        assert "@L/a.md" in tools._error(f"cannot read {later}/a.md")
    finally:
        tools.close()


def test_a_source_swapped_for_a_link_to_another_source_is_not_read_twice(vault_root, tmp_path):
    root, vault = vault_root
    other = tmp_path / "Notes2"
    write(other / "sub/n1.md", "# N1\n\ntangerineword one.\n")
    write(other / "sub/n3.md", "# N3\n\ntangerineword three, ignored here.\n")
    ok(root, "source", "add", str(other), "--type", "note", "--name", "N2", "--ignore",
       "sub/n3.md")
    vault.rename(tmp_path / "G.real")
    os.symlink(other, vault)  # G now leads to N2's folder
    run = memlens(root, "reindex")
    assert "source 'G': its folder now overlaps source 'N2' (a link swapped in?)" in run.stderr
    assert paths_found(root, "tangerineword") == ["@N2/sub/n1.md"]
    from engine.library import Library
    from engine.library_types import ReadRefused

    library = Library(load_config(root))
    with pytest.raises(ReadRefused, match="overlaps source 'N2'"):
        library.read_file("@G/sub/n3.md")
    assert "tangerineword one" in library.read_file("@N2/sub/n1.md").text


def test_source_add_says_what_the_folder_is(vault_root, tmp_path):
    root, vault = vault_root

    def refused(*argv: str) -> str:
        run = memlens(root, "source", "add", *argv)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        return run.stderr

    assert "is source 'G' already" in refused(str(vault), "--type", "note")
    assert "is the data root" in refused(str(root), "--type", "note")
    assert "secrets or index, which are never indexed" in refused(str(root / "secrets"),
                                                                  "--type", "note")
    os.symlink(root / "secrets", tmp_path / "innocent")
    assert "secrets or index" in refused(str(tmp_path / "innocent"), "--type", "note")
    assert "the folder's path is empty" in refused("", "--type", "note")
    odd = Path(os.fsdecode(os.fsencode(str(tmp_path)) + b"/odd\xffdir"))
    odd.mkdir()
    assert "not valid UTF-8 (rename it)" in refused(str(odd), "--type", "note")
    other = write(tmp_path / "Other/a.md", "# A\n").parent
    assert "a source name must be" in refused(str(other), "--type", "note", "--name", "")


def test_a_reindex_walks_the_sources_memlens_toml_holds_once_it_has_the_lock(vault_root,
                                                                            tmp_path):
    from engine import reindex

    root, vault = vault_root
    before = load_config(root)  # read, then a slow embedder start...
    other = write(tmp_path / "Other/orchard.md", "# O\n\nmedlarword in the other.\n").parent
    ok(root, "source", "remove", "G", "--no-index")  # ...while these change memlens.toml
    ok(root, "source", "add", str(other), "--type", "note", "--name", "O", "--no-index")
    reindex(config=before)
    assert paths_found(root, "quince") == []  # G's files went with it
    assert paths_found(root, "medlarword") == ["@O/orchard.md"]  # O's are indexed


def test_a_memlens_toml_gone_keeps_every_source_and_refuses_a_new_one(vault_root, tmp_path):
    root, vault = vault_root
    (root / "memlens.toml").rename(tmp_path / "away.toml")
    run = memlens(root, "reindex")
    assert run.returncode == 0, run.stderr
    assert "source 'G': memlens.toml is gone from the data root, so its 2 indexed files are " \
           "kept" in run.stderr
    assert paths_found(root, "quince") == ["@G/garden.md"]
    fresh = write(tmp_path / "Fresh/a.md", "# A\n").parent
    run = memlens(root, "source", "add", str(fresh), "--type", "note")
    assert run.returncode == 1 and "memlens.toml is gone from the data root, but the index " \
        "holds files of 1 source (G): restore it first" in run.stderr
    assert not (root / "memlens.toml").exists()
    (tmp_path / "away.toml").rename(root / "memlens.toml")
    assert "0 embedded" in ok(root, "reindex")


def test_the_watch_says_a_new_reason_when_a_swapped_link_changes_target(vault_root, tmp_path):
    root, vault = vault_root
    other = write(tmp_path / "N2/n.md", "# N\n\nanother note.\n").parent
    ok(root, "source", "add", str(other), "--type", "note", "--name", "N2")
    watch = WatchProcess(root)
    try:
        seen = watch.wait_for(lambda line: line.startswith("caught up"), "catch-up run")
        vault.rename(tmp_path / "G.real")
        os.symlink(other, vault)
        seen = watch.wait_for(lambda line: "overlaps source 'N2'" in line, "the overlap",
                              after=seen)
        vault.unlink()
        os.symlink(root / "secrets", vault)
        watch.wait_for(lambda line: "now leads into the data root" in line, "the new reason",
                       after=seen)
    finally:
        watch.stop()
