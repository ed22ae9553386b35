"""MCP answers to bad inputs and bad index files: one line, and never a path of the machine.

Most calls go through ``MemlensTools.call`` (what the server runs for every request); one test
drives the real server over stdio to check the wiring.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.schema import SCHEMA_VERSION
from engine.storage.db import connect
from engine.storage.lock import writer_lock
from mcp_server.tools import MemlensTools
from tests.conftest import make_root

LONG = "notes/" + "a" * 10_000 + ".md"


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    root = make_root(tmp_path / "root")
    reindex(config=load_config(root))
    return root


def bad_calls(root: Path) -> list[tuple[str, object]]:
    garden = str(root / "notes/home/garden.md")
    return [
        ("read_note", {"path": LONG}),
        ("read_note", {"path": "notes/" + "b" * 300 + ".md"}),
        ("read_note", {"path": "notes/" + "/".join(["c" * 200] * 20) + ".md"}),
        ("read_note", {"path": garden}),
        ("read_note", {"path": "notes/home/garden.md", "section": "#99"}),
        ("read_note", {"path": "data/search/memlens.db"}),
        ("read_note", {"path": 5}),
        ("get_neighborhood", {"id": garden}),
        ("get_neighborhood", {"id": "x" * 10_000}),
        ("hybrid_search", {"query": "harbor", "folder": str(root)}),
        ("keyword_search", {"query": "harbor", "folder": "nowhere/"}),
        ("semantic_search", {"query": "harbor", "since": garden}),
        ("hybrid_search", {"query": garden, "limit": "ten"}),
        ("keyword_search", {"query": "x" * 10_000, "colour": 1}),
        ("index_status", {"verbose": True}),
        ("no_such_tool", {}),
        ("hybrid_search", ["not", "a", "dict"]),
    ]


GOOD = [("hybrid_search", {"query": "harbor"}), ("keyword_search", {"query": "dahlias"}),
        ("semantic_search", {"query": "garden"}),
        ("read_note", {"path": "notes/home/garden.md"}),
        ("get_neighborhood", {"id": "notes/home/garden.md#s3"}), ("index_status", {})]


def machine_paths(root: Path) -> set[str]:
    return {str(root), str(root.resolve()), str(root.parent), str(Path.home())}


def answers(root: Path, calls) -> list[tuple[str, str, bool]]:
    tools = MemlensTools(load_config(root))
    try:
        return [(name, *tools.call(name, args)) for name, args in calls]
    finally:
        tools.close()


def check(root: Path, results, *, errors: bool | None = None) -> None:
    for name, text, is_error in results:
        for path in machine_paths(root):
            assert path not in text, (name, text[:300])
        assert "internal error" not in text, (name, text[:300])
        if errors is not None:
            assert is_error is errors, (name, text[:300])
        if is_error:
            assert "\n" not in text and text.strip() and len(text) <= 600, (name, text)


def test_bad_inputs_answer_one_line_without_machine_paths(root):
    results = answers(root, bad_calls(root))
    check(root, results, errors=True)
    # the facade's path rules (engine/index/data_files.py) refuse an overlong path or name by name
    too_long = [t for _, t, _ in results[:3]]
    assert too_long[0].startswith("path is too long (10,009 characters; at most 1,024)")
    assert too_long[1].startswith("path has a name longer than 255 characters")
    assert too_long[2].startswith("path is too long")
    check(root, answers(root, GOOD), errors=False)
    status = answers(root, [("index_status", {})])[0][1]
    assert "index: data/search/memlens.db (" in status


def _garbage(db: Path) -> None:
    db.write_bytes(b"garbage " * 1000)


def _v99(db: Path) -> None:
    conn = connect(db)
    conn.execute("PRAGMA user_version = 99")
    conn.close()


def _directory(db: Path) -> None:
    db.unlink()
    db.mkdir()


@pytest.mark.parametrize("spoil, message", [
    (Path.unlink, "no index yet at data/search/memlens.db: run `memlens reindex`"),
    (_garbage, "is not a memlens index"),
    (_v99, f"index schema v99 is newer than this memlens (v{SCHEMA_VERSION})"),
    (_directory, "is a directory"),
])
def test_bad_index_files_answer_one_line(root, spoil, message):
    spoil(root / "data/search/memlens.db")
    calls = [*bad_calls(root), *GOOD]
    results = answers(root, calls)
    check(root, results)
    by_call = {name: text for name, text, _ in results[len(calls) - len(GOOD):]}
    for tool in ("hybrid_search", "keyword_search", "semantic_search", "get_neighborhood"):
        assert message in by_call[tool], by_call[tool]
    if spoil is not Path.unlink:
        assert message in by_call["index_status"]
    # read_note needs no index
    assert by_call["read_note"].startswith('path: "notes/home/garden.md"')


def test_search_during_a_first_build(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    root = make_root(tmp_path / "root")
    db = load_config(root).db_path
    writer = connect(db)  # the file exists, its schema is not committed yet
    try:
        with writer_lock(db, "reindex"):
            results = answers(root, GOOD)
            check(root, results)
            for name, text, is_error in results:
                if name != "read_note":
                    assert is_error and "the index is being built" in text, (name, text)
                    assert "try again shortly" in text
        results = answers(root, [("keyword_search", {"query": "harbor"})])
        assert "the index is empty: run `memlens reindex`" in results[0][1]
    finally:
        writer.close()


def test_long_path_over_stdio(root, tmp_path):
    pytest.importorskip("mcp")
    from tests.mcp.conftest import start

    client = start(root, tmp_path, "long-path")
    try:
        text = client.error("read_note", {"path": LONG})
        assert text.startswith("path is too long (10,009 characters")
        assert str(root) not in text and "internal error" not in text
        text = client.error("keyword_search", {"query": "x", "folder": str(root)})
        assert str(root) not in text
    finally:
        client.close()


def test_paths_are_shown_relative_and_data_paths_untouched(tmp_path):
    from mcp_server import text as fmt

    root = tmp_path / "root"
    paths = fmt.machine_paths(root, root, tmp_path / "elsewhere/idx.db")
    text = (f"no index at {tmp_path}/elsewhere/idx.db; {root}/notes/root/x.md; "
            f"\"{root}/a.md\"; notes/root/y.md and {Path.home()}/z")
    assert fmt.scrub_paths(text, paths) == (
        "no index at <index folder>/idx.db; notes/root/x.md; \"a.md\"; notes/root/y.md and ~/z")
