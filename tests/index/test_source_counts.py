"""One count of a source's files (engine/index/source_config.py, ``source_states``): `memlens
source add`, `source list`, `discover`, `stats`, the MCP status and the app's sources dialog
say the same number for one source, with plurals right, and list each file not indexed with
why (empty, binary, not indexed yet). What the walk leaves out (another file type, dot-files,
what .gitignore ignores) is not a file of the source at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import load_config
from engine.library import Library
from tests.conftest import make_root, run_cli

NOTES = ("n1.md", "n2.md", "n3.md", "n4.md", "sub/deep.md")
COUNTS = "7 files, 2 not indexed, 5 chunks"  # 5 notes + the empty one + the binary one


@pytest.fixture(autouse=True)
def local_embedder(monkeypatch):
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)


def write_vault(folder: Path) -> Path:
    for i, name in enumerate(NOTES):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# Note {i}\n\nAbout the greenhouse number {i}.\n")
    (folder / "empty.md").write_bytes(b"")
    (folder / "bin.md").write_bytes(bytes(range(256)) * 8)  # binary under a note's name
    (folder / "readme.txt").write_text("another file type: not a file of a note source\n")
    (folder / ".hidden.md").write_text("# a dot-file\n")
    (folder / ".gitignore").write_text("drafts/\n")
    (folder / "drafts").mkdir()
    (folder / "drafts/d.md").write_text("# ignored by .gitignore\n")
    return folder


@pytest.fixture
def added(tmp_path, capsys) -> tuple[Path, str]:
    """A root with a vault of odd files added as a source (indexed): (root, add's output)."""
    root = make_root(tmp_path / "root")
    vault = write_vault(tmp_path / "vault")
    code, out, err = run_cli(capsys, "source", "add", str(vault), "--type", "note",
                             "--root", str(root))
    assert code == 1 or code == 0, err  # 1: the binary file is a reindex error
    return root, out


def test_add_list_discover_stats_and_app_count_the_same_files(added, capsys):
    root, add_out = added
    assert f"source vault: {COUNTS}" in add_out

    code, out, _ = run_cli(capsys, "source", "list", "--root", str(root))
    assert code == 0 and COUNTS in out and "1 source" in out

    code, out, _ = run_cli(capsys, "discover", "--root", str(root))
    assert code == 0 and "source vault: 7 files, 2 not indexed" in out
    assert "     7  @vault/**/*.md" in out

    code, out, _ = run_cli(capsys, "discover", "--files", "--root", str(root))
    assert sum(1 for line in out.splitlines() if line.startswith("note ")
               and "@vault/" in line) == 7
    assert "source vault: 7 files, 2 not indexed" in out

    code, out, _ = run_cli(capsys, "stats", "--root", str(root))
    assert code == 0 and f"vault (note): {COUNTS}" in out
    code, out, _ = run_cli(capsys, "stats", "--json", "--root", str(root))
    source, = json.loads(out)["sources"]
    assert (source["files"], source["indexed"], source["chunks"]) == (7, 5, 5)

    code, out, _ = run_cli(capsys, "source", "list", "--json", "--root", str(root))
    source, = json.loads(out)
    assert (source["files"], source["indexed"], source["chunks"]) == (7, 5, 5)
    assert {n["source_file"] for n in source["not_indexed"]} == {"@vault/bin.md",
                                                                 "@vault/empty.md"}

    from tui.screens.sources import source_lines

    state, = Library(load_config(root)).sources()
    shown = source_lines(state).plain
    assert "7 files, 2 not indexed · 5 chunks" in shown
    assert "not indexed: @vault/empty.md: empty" in shown


def test_the_files_not_indexed_are_listed_with_why(added, capsys):
    root, add_out = added
    code, out, _ = run_cli(capsys, "source", "list", "--root", str(root))
    lines = out.splitlines()
    assert "  not indexed: @vault/empty.md: empty" in lines
    binary = next(line for line in lines if line.startswith("  not indexed: @vault/bin.md: "))
    assert "binary" in binary and not binary.endswith("; not indexed")
    assert "not indexed: @vault/bin.md" in add_out
    # not files of the source: another type, a dot-file, what .gitignore ignores
    for name in ("readme.txt", ".hidden.md", "drafts/d.md", "n1.md"):
        assert f"@vault/{name}" not in out


def test_one_file_is_singular(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    vault = tmp_path / "one"
    vault.mkdir()
    (vault / "only.md").write_text("# Only\n\nOne note about quinces.\n")
    code, out, err = run_cli(capsys, "source", "add", str(vault), "--type", "note",
                             "--root", str(root))
    assert code == 0, err
    assert "source one: 1 file, 1 chunk" in out
    for argv in (("source", "list"), ("stats",), ("discover",)):
        code, out, _ = run_cli(capsys, *argv, "--root", str(root))
        assert code == 0 and "1 file" in out and "1 files" not in out, argv
    assert "1 file, 1 chunk" in run_cli(capsys, "source", "list", "--root", str(root))[1]


def test_a_source_not_indexed_yet_says_so_for_each_file(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    vault = write_vault(tmp_path / "vault")
    code, _, err = run_cli(capsys, "source", "add", str(vault), "--type", "note", "--no-index",
                           "--root", str(root))
    assert code == 0, err
    code, out, _ = run_cli(capsys, "source", "list", "--root", str(root))
    assert "vault            note         7 files, 7 not indexed, 0 chunks" in out
    assert "  not indexed: @vault/n1.md: not indexed yet (run `memlens reindex`)" in out
    assert "  not indexed: @vault/empty.md: empty" in out
