"""Sources in place through the front doors: a vault outside the root is declared with
`memlens source add`, walked where it lives (dot-folders, .gitignore and ignore globs skipped),
searched as @name/..., kept while its folder is missing, removed on purpose, read by the MCP
`read_note` under the same safety rules, and followed by the watcher."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.config import ConfigError, load_config
from engine.index.watch import Watcher
from engine.index.watch_events import Reconfigured, Reindexed
from engine.library import Library
from tests.conftest import make_root
from tests.sources.conftest import KEY, Recorder, memlens, ok, paths_found, write


@pytest.fixture
def layout(tmp_path) -> tuple[Path, Path]:
    """A root with an API key, and a vault beside it (never inside) holding one note to find
    and a note in each place the walk must skip, plus links that lead out."""
    root = make_root(tmp_path / "root")
    write(root / "secrets/openai.json", json.dumps({"api_key": KEY}))
    vault = tmp_path / "Vault"
    write(vault / "Daily/bread.md", "# Sourdough\n\nFed the starter with rye flour.\n")
    write(vault / "Projects/kiln.md", "# Kiln\n\nThe kiln fires at cone six.\n")
    write(vault / ".obsidian/workspace.md", "# obsidianword\n")
    write(vault / ".trash/old.md", "# trashword\n")
    write(vault / ".gitignore", "Templates/\n*.tmp.md\n")
    write(vault / "Templates/daily.md", "# templateword\n")
    write(vault / "Daily/draft.tmp.md", "# gitignoredword\n")
    write(vault / "Private/diary.md", "# diaryword\n")
    write(tmp_path / "elsewhere.md", "# elsewhereword\n")
    os.symlink(tmp_path / "elsewhere.md", vault / "outside.md")
    os.symlink(root / "secrets/openai.json", vault / "leak.md")
    os.link(root / "secrets/openai.json", vault / "hardleak.md")
    return root, vault


@pytest.fixture
def added(layout) -> tuple[Path, Path]:
    root, vault = layout
    ok(root, "reindex")
    out = ok(root, "source", "add", str(vault), "--type", "note", "--ignore", "Private/")
    assert "added source Vault" in out and "indexed 2 files" in out
    return root, vault


def test_a_source_is_indexed_where_it_lives_and_its_skips_hold(added):
    root, vault = added
    assert paths_found(root, "rye") == ["@Vault/Daily/bread.md"]
    for word in ("obsidianword", "trashword", "templateword", "gitignoredword", "diaryword",
                 "elsewhereword"):
        assert paths_found(root, word) == [], word
    assert KEY[:12] not in json.dumps(
        json.loads(ok(root, "search", "api_key", "--json"))["results"])
    config = (root / "memlens.toml").read_text()
    assert '[sources.Vault]' in config and f'path = "{vault}"' in config
    files = ok(root, "discover", "--files")
    assert "@Vault/Daily/bread.md" in files and "@Vault/Projects/kiln.md" in files
    assert "2 files routed" not in files  # the root's own files are listed too
    routes = ok(root, "discover")
    assert "@Vault/**/*.md" in routes
    listing = ok(root, "source", "list")
    assert "Vault" in listing and "2 files" in listing and "ignore: Private/" in listing
    stats = ok(root, "stats")
    assert "source     Vault (note): 2 files" in stats


def test_links_and_hard_links_out_of_a_source_are_refused_and_said(layout):
    root, vault = layout
    run = memlens(root, "source", "add", str(vault), "--type", "note")
    assert run.returncode == 0, run.stderr
    assert "@Vault/outside.md: symlink leads outside the source" in run.stderr
    assert "@Vault/leak.md: symlink leads outside the source" in run.stderr
    assert "@Vault/hardleak.md: a hard link to a protected file" in run.stderr


def test_removing_a_source_deletes_its_chunks_and_leaves_its_folder(added):
    root, vault = added
    before = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*"))
    out = ok(root, "source", "remove", "Vault")
    assert "removed source Vault" in out and "2 removed" in out
    assert paths_found(root, "rye") == [] and paths_found(root, "kiln") == []
    assert "sources" not in (root / "memlens.toml").read_text()
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*")) == before
    assert "no sources" in ok(root, "source", "list")


def test_a_missing_folder_keeps_its_chunks_until_the_source_is_removed(added, tmp_path):
    root, vault = added
    vault.rename(tmp_path / "unmounted")
    run = memlens(root, "reindex")
    assert run.returncode == 0, run.stderr  # a state, not a failure
    assert "warning: @Vault/: source 'Vault': its folder is not there (not mounted?)" in run.stderr
    assert "0 removed" in run.stdout
    assert paths_found(root, "rye") == ["@Vault/Daily/bread.md"]
    assert "(not read now: its folder is not there (not mounted?))" in ok(root, "source", "list")
    (tmp_path / "unmounted").rename(vault)  # mounted again: nothing to redo
    assert "indexed 0 files" in ok(root, "reindex")
    vault.rename(tmp_path / "unmounted")
    ok(root, "source", "remove", "Vault")  # removed on purpose: now they go
    assert paths_found(root, "rye") == []


def test_a_file_newly_ignored_leaves_the_index(added):
    root, vault = added
    write(vault / ".gitignore", "Templates/\nProjects/\n")
    assert "1 removed" in ok(root, "reindex")
    assert paths_found(root, "kiln") == [] and paths_found(root, "rye") != []


@pytest.mark.parametrize("where, why", [
    ("root/notes/inbox", "lies inside the data root"),
    ("", "contains the data root"),
    ("Vault/Daily", "overlaps source 'Vault'"),
    ("nowhere", "no such folder"),
])
def test_a_source_that_overlaps_or_is_missing_is_refused_and_changes_nothing(added, tmp_path,
                                                                              where, why):
    root, _ = added
    (root / "notes/inbox").mkdir(parents=True, exist_ok=True)
    before = (root / "memlens.toml").read_bytes()
    run = memlens(root, "source", "add", str(tmp_path / where), "--type", "note",
                  "--name", "other")
    assert run.returncode == 2 and why in run.stderr and run.stderr.count("\n") == 1
    assert (root / "memlens.toml").read_bytes() == before


def test_bad_names_and_types_are_one_line_each(added, tmp_path):
    root, vault = added
    other = tmp_path / "other"
    other.mkdir()
    for argv, why in ((["--type", "jornal"], "did you mean journal"),
                      (["--type", "note", "--name", "a/b"], "a source name must be"),
                      (["--type", "note", "--name", "Vault"], "a source named 'Vault' exists")):
        run = memlens(root, "source", "add", str(other), *argv)
        assert run.returncode == 2 and why in run.stderr, run.stderr
    assert "Vault" in ok(root, "source", "list") and "other" not in ok(root, "source", "list")
    run = memlens(root, "source", "remove", "nosuch")
    assert run.returncode == 2 and "no source named 'nosuch' (sources: Vault)" in run.stderr


@pytest.mark.parametrize("table, why", [
    ('[sources.v]\npath = "rel/dir"\ntype = "note"', "path must be absolute or start with ~"),
    ('[sources.v]\npath = "/tmp"\ntype = "notes"', "unknown source type 'notes'"),
    ('[sources.v]\npath = "/tmp"\ntype = "note"\nignor = []', "unknown key 'ignor'"),
    ('[sources."a/b"]\npath = "/tmp"\ntype = "note"', "a source name must be"),
    ('[sources.v]\npath = "/"\ntype = "note"', "contains the data root"),
])
def test_a_hand_written_source_table_is_checked(tmp_path, table, why):
    (tmp_path / "memlens.toml").write_text(table + "\n")
    with pytest.raises(ConfigError, match=why):
        load_config(tmp_path)


def test_a_root_folder_named_like_a_source_path_is_never_indexed(added):
    root, _ = added
    write(root / "memlens.toml", (root / "memlens.toml").read_text()
          + '\n[routes]\nnote = ["**/*.md"]\n')
    write(root / "@Vault/forged.md", "# forgedword\n")
    run = memlens(root, "reindex")
    assert "@Vault: a top-level name starting with '@'" in run.stderr
    assert paths_found(root, "forgedword") == []


# -- reads: the MCP read_note, the viewer's and editor's path ----------------------------------

def test_read_note_opens_a_source_file_and_refuses_everything_else(added, tmp_path):
    from tests.mcp.conftest import start

    root, vault = added
    client = start(root, tmp_path, "sources")
    try:
        text = client.ok("read_note", {"path": "@Vault/Daily/bread.md"})
        assert "rye flour" in text
        for path in ("@Vault/.obsidian/workspace.md", "@Vault/Templates/daily.md",
                     "@Vault/Private/diary.md", "@Vault/outside.md", "@Vault/leak.md",
                     "@Vault/hardleak.md", "@Vault/../root/secrets/openai.json",
                     "@Nope/Daily/bread.md", "@Vault/Daily/../../root/memlens.toml"):
            error = client.error("read_note", {"path": path})
            assert KEY[:12] not in error and str(tmp_path) not in error, error
    finally:
        client.close()


def test_the_viewer_and_editor_path_is_inside_the_source(added):
    root, vault = added
    library = Library(load_config(root))
    assert library.file_path("@Vault/Projects/kiln.md") == (vault / "Projects/kiln.md").resolve()
    assert library.read_file("@Vault/Projects/kiln.md").text.startswith("# Kiln")


# -- watch ---------------------------------------------------------------------------------------

def test_watch_follows_a_source_added_while_it_runs_and_its_edits(layout):
    root, vault = layout
    ok(root, "reindex")
    events = Recorder()
    watcher = Watcher(load_config(root), events, quiet_ms=200, max_latency_ms=800).start()
    try:
        events.wait_for(lambda e: isinstance(e, Reindexed), "catch-up run")
        ok(root, "source", "add", str(vault), "--type", "note", "--no-index")
        events.wait_for(lambda e: isinstance(e, Reconfigured) and e.sources == ("Vault",),
                        "reconfiguration")
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.stats.files >= 2,
                        "the new source indexed")
        assert paths_found(root, "rye") == ["@Vault/Daily/bread.md"]
        write(vault / "Daily/pottery.md", "# Pottery\n\nGlazed with celadon today.\n")
        events.wait_for(lambda e: isinstance(e, Reindexed) and any(
            "pottery" in p for p in e.paths), "the edit indexed")
        assert paths_found(root, "celadon") == ["@Vault/Daily/pottery.md"]
        shutil.rmtree(vault / "Projects")
        events.wait_for(lambda e: isinstance(e, Reindexed) and e.stats.removed_files,
                        "the deleted folder unindexed")
        assert paths_found(root, "kiln") == []
    finally:
        watcher.stop()
    assert watcher.error is None


def test_a_broken_config_while_watching_is_one_error_and_the_last_good_one_stays(added):
    from engine.index.watch_events import Failed

    root, vault = added
    events = Recorder()
    watcher = Watcher(load_config(root), events, quiet_ms=200, max_latency_ms=800).start()
    try:
        events.wait_for(lambda e: isinstance(e, Reindexed), "catch-up run")
        good = (root / "memlens.toml").read_text()
        (root / "memlens.toml").write_text(good + "\n[sources.bad]\npath = 3\n")
        events.wait_for(lambda e: isinstance(e, Failed) and "[sources.bad] path must be"
                        in e.message and "previous one" in e.message, "the config error")
        write(vault / "Daily/glaze.md", "# Glaze\n\nTenmoku on the big bowl.\n")
        events.wait_for(lambda e: isinstance(e, Reindexed) and any(
            "glaze" in p for p in e.paths), "the edit indexed with the last good config")
        (root / "memlens.toml").write_text(good)  # every command refuses the broken one
        assert paths_found(root, "tenmoku") == ["@Vault/Daily/glaze.md"]
    finally:
        watcher.stop()
    assert watcher.error is None


def test_discover_pending_never_lists_a_missing_sources_files_as_removed(added, tmp_path):
    root, vault = added
    vault.rename(tmp_path / "unmounted")
    pending = ok(root, "discover", "--pending")
    assert "(removed)" not in pending and "0 of" in pending
    ok(root, "source", "remove", "Vault", "--no-index")
    removed = ok(root, "discover", "--pending")  # removed on purpose: now they go
    assert "(removed)       @Vault/Daily/bread.md" in removed
