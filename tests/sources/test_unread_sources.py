"""A source whose folder is not read now (an unmounted disk, its empty mount point, a link
swapped in) keeps its indexed chunks, and every front door says so truthfully: its rows show
their stored text with a note naming the source and why, never "deleted or moved" or "a
reindex removes it"; ``index_status`` lists each source with its state, as `memlens source
list` does, without a path of the machine (docs/reliability.md, "Sources in place")."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from engine.config import load_config
from engine.display import parse_query
from engine.library import Library
from mcp_server.page import format_search
from tests.conftest import make_root
from tests.sources.conftest import memlens, ok, paths_found, write

KIWI = "@Vault/Fruit/kiwi.md"
GONE = "@Shelf/gone.md"
EMPTY_WHY = "its folder is empty (a disk's mount point, not mounted?)"
MISSING_WHY = "its folder is not there (not mounted?)"
UNTRUE = ("deleted or moved", "reindex removes", "vanished")


def empty(folder: Path) -> None:
    """What an unmounted disk leaves: its mount point, with nothing in it."""
    for child in folder.iterdir():
        shutil.rmtree(child) if child.is_dir() else child.unlink()


@pytest.fixture
def indexed(tmp_path) -> tuple[Path, Path, Path]:
    """A root with two sources, both indexed: Vault (its disk about to be unmounted) and
    Shelf (read, one of its files about to be deleted)."""
    root = make_root(tmp_path / "root")
    vault = tmp_path / "Vault"
    write(vault / "Fruit/kiwi.md", "# Kiwifruit\n\nThe kiwifruit ripens on the vine in late "
          "autumn.\n")
    write(vault / "Fruit/fig.md", "# Fig\n\nThe fig tree by the wall.\n")
    shelf = tmp_path / "Shelf"
    write(shelf / "kept.md", "# Kept\n\nA quince stays on the shelf.\n")
    write(shelf / "gone.md", "# Gone\n\nThe loquat note is deleted after indexing.\n")
    ok(root, "reindex")
    for folder in (vault, shelf):
        ok(root, "source", "add", str(folder), "--type", "note")
    assert paths_found(root, "kiwifruit") == [KIWI]
    return root, vault, shelf


@pytest.fixture(params=["empty", "missing"])
def unread(request, indexed, tmp_path) -> tuple[Path, str]:
    """Vault not read now: its folder emptied (the mount point) or gone (renamed away); a
    file of Shelf deleted for real."""
    root, vault, shelf = indexed
    if request.param == "empty":
        empty(vault)
        why = EMPTY_WHY
    else:
        vault.rename(tmp_path / "unmounted")
        why = MISSING_WHY
    (shelf / "gone.md").unlink()
    return root, why


# -- the engine --------------------------------------------------------------------------------

def test_a_file_of_a_source_not_read_now_is_not_stale_but_unread(unread):
    root, why = unread
    library = Library(load_config(root))
    files = {KIWI, "@Vault/Fruit/fig.md", GONE, "@Shelf/kept.md", "notes/home/garden.md"}
    assert library.stale_files(files) == {GONE}  # truly gone: still stale
    note = f"source 'Vault' is not read now: {why}"
    assert [r.unread_source for r in library.search("kiwifruit", 5, mode="keyword")] == [note]
    # a reindex keeps them: what the note says is what happens
    assert "1 removed" in ok(root, "reindex")  # Shelf's deleted file only
    assert paths_found(root, "kiwifruit") == [KIWI]
    assert library.stale_files({KIWI}) == set()
    assert paths_found(root, "loquat") == []


def test_the_mcp_page_shows_the_stored_text_and_why(unread):
    root, why = unread
    library = Library(load_config(root))
    query = "kiwifruit"
    response = library.search(query, 5, mode="keyword")
    page = format_search(response, parse_query(query), 12000, exists=lambda _p: False)
    row = next(line for line in page.splitlines() if line.startswith("{"))
    fields = json.JSONDecoder().raw_decode(row)[0]
    assert fields["path"] == KIWI and fields["preview_kind"] != "stale_notice"
    assert "kiwifruit" in fields["preview"].lower()
    assert f"unread_source: source 'Vault' is not read now: {why}; shown as indexed" in row
    assert "stale: false" in row
    assert not any(word in row for word in UNTRUE)


# -- the command line --------------------------------------------------------------------------

def test_cli_search_marks_a_row_of_a_source_not_read_now(unread):
    root, why = unread
    text = ok(root, "search", "kiwifruit", "--mode", "keyword")
    assert "\n  ! row 1: source 'Vault' is not read now" in text
    text = " ".join(text.split())  # the note wraps at the terminal's width
    assert KIWI in text and "kiwifruit" in text.lower()
    assert f"row 1: source 'Vault' is not read now: {why}; shown as indexed" in text
    assert not any(word in text for word in UNTRUE)
    rows = json.loads(ok(root, "search", "kiwifruit", "--mode", "keyword",
                         "--json"))["results"]
    assert [r["source_file"] for r in rows] == [KIWI]
    assert rows[0]["unread_source"] == f"source 'Vault' is not read now: {why}"
    assert rows[0]["stale"] is False
    rows = json.loads(ok(root, "search", "quince", "--mode", "keyword", "--json"))["results"]
    assert rows[0]["unread_source"] is None and rows[0]["stale"] is False
    gone = json.loads(ok(root, "search", "loquat", "--mode", "keyword", "--json"))["results"]
    assert gone[0]["stale"] is True and gone[0]["unread_source"] is None


def test_cli_search_text_says_nothing_when_every_source_is_read(indexed):
    root, _, _ = indexed
    assert "not read now" not in ok(root, "search", "kiwifruit", "--mode", "keyword")


# -- the MCP server ----------------------------------------------------------------------------

def test_mcp_search_and_status_of_a_source_not_read_now(unread, tmp_path):
    from tests.mcp.conftest import field, split_page, start

    root, why = unread
    client = start(root, tmp_path, "unread")
    try:
        _, rows, _ = split_page(client.ok("keyword_search", {"query": "kiwifruit"}))
        (obj, server), = rows
        assert obj["path"] == KIWI and obj["preview_kind"] in ("snippet", "head")
        assert "kiwifruit" in obj["preview"].lower()
        assert field(server, "stale") == "false"
        assert field(server, "unread_source").startswith("source 'Vault' is not read now")
        assert "shown as indexed" in field(server, "unread_source")
        assert not any(word in obj["preview"] + server for word in UNTRUE)

        _, rows, _ = split_page(client.ok("keyword_search", {"query": "loquat"}))
        (obj, server), = rows  # deleted for real: still the stale notice
        assert obj["path"] == GONE and obj["preview_kind"] == "stale_notice"
        assert field(server, "stale") == "true" and field(server, "unread_source") is None

        _, rows, _ = split_page(client.ok("keyword_search", {"query": "quince"}))
        assert field(rows[0][1], "unread_source") is None

        status = client.ok("index_status")
        assert "stale_files: 1 (changed: 0, vanished: 1)" in status
        assert "sources: 2 (1 not read now)" in status
        assert (f"  source: Vault (note) at @Vault/: 2 files, 2 chunks; not read now: {why}"
                in status)
        # its files are those in its folder now (one was deleted since; its chunk is kept
        # until the next reindex, and counted as vanished above)
        assert "  source: Shelf (note) at @Shelf/: 1 file, 2 chunks; read" in status
        assert str(tmp_path) not in status and os.path.realpath(tmp_path) not in status
    finally:
        client.close()


def test_mcp_status_without_sources_says_so(tmp_path):
    from tests.mcp.conftest import start

    root = make_root(tmp_path / "root")
    ok(root, "reindex")
    client = start(root, tmp_path, "nosources")
    try:
        assert "\nsources: 0\n" in client.ok("index_status")
    finally:
        client.close()


def test_a_folder_swapped_for_a_link_into_the_root_is_not_read_and_said(indexed, tmp_path):
    root, vault, _ = indexed
    vault.rename(tmp_path / "real")
    os.symlink(root / "notes", vault)
    library = Library(load_config(root))
    assert library.stale_files({KIWI}) == set()
    note = library.search("kiwifruit", 5, mode="keyword").results[0].unread_source
    assert note.startswith("source 'Vault' is not read now: its folder now leads into the data "
                           "root")
    run = memlens(root, "search", "kiwifruit", "--mode", "keyword")
    assert run.returncode == 0 and note in " ".join(run.stdout.split())


def test_the_app_marks_a_row_of_a_source_not_read_now(unread):
    from tui.widgets.results import result_row

    root, why = unread
    result = Library(load_config(root)).search("kiwifruit", 5, mode="keyword").results[0]
    line = result_row(1, result, result.score).plain
    assert "not read now" in line and "stale" not in line
