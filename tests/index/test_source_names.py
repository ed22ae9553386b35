"""A source keeps the name its person gave it: Unicode and spaces, in every view.

``@name/`` is a path prefix only inside memlens (no file is named after a source), so the
folder's own spelling serves everywhere; only what a name cannot hold becomes '-'. The
facet list cuts a long name after a whole word with an ellipsis, never into a name that
reads as another.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from engine.index.sources import check_name, default_name
from tests.conftest import make_root
from tests.conftest import run_cli as run
from tui.widgets.facets import fit


@pytest.fixture(autouse=True)
def local_embedder(monkeypatch):
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)


def folder(path: Path, **notes: str) -> Path:
    path.mkdir(parents=True)
    for name, text in notes.items():
        (path / f"{name}.md").write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name,expected", [
    ("Zettelkästen", "Zettelkästen"),
    ("Obsidian Vault", "Obsidian Vault"),
    ("日記", "日記"),
    ("My Notes (old)", "My Notes -old"),
    ("  spaced   out  ", "spaced out"),
    (".hidden", "hidden"),
    ("***", "source"),
    ("Zettelka\u0308sten", "Zettelkästen"),  # a macOS folder name is decomposed (NFD)
])
def test_a_default_name_is_the_folders_own_spelling(name, expected):
    assert default_name(Path("/x") / name, set()) == expected
    assert check_name(expected) is None


def test_a_taken_default_name_gets_a_number():
    assert default_name(Path("/x/Obsidian Vault"), {"Obsidian Vault"}) == "Obsidian Vault-2"


@pytest.mark.parametrize("bad", ["", " lead", "trail ", "a/b", "two  spaces", "a" * 41,
                                 "-dash", "tab\there", "Zettelka\u0308sten", 7])
def test_what_a_name_cannot_be(bad):
    assert check_name(bad) is not None


def test_unicode_and_spaced_names_in_add_list_search_and_remove(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    folder(tmp_path / "Zettelkästen", zettel="# Zettel\n\nDie Quitte am Gartenzaun.\n")
    folder(tmp_path / "Obsidian Vault", plans="# Plans\n\nThe medlar tree by the gate.\n")
    folder(tmp_path / "other", misc="# Misc\n\nA quince paste recipe.\n")
    code, out, err = run(capsys, "source", "add", str(tmp_path / "Zettelkästen"), "--type",
                         "note", "--root", str(root))
    assert code == 0 and "added source Zettelkästen:" in out, err
    code, out, err = run(capsys, "source", "add", str(tmp_path / "Obsidian Vault"), "--type",
                         "note", "--root", str(root), "--json")
    added = json.loads(out)
    assert code == 0 and added["source"]["prefix"] == "@Obsidian Vault/"
    # the counts `source add --json` gives are the ones `source list` gives
    assert added["state"]["files"] == 1 and added["state"]["indexed"] == 1
    code, out, err = run(capsys, "source", "add", str(tmp_path / "other"), "--type", "note",
                         "--name", "My Notes", "--root", str(root))
    assert code == 0 and "added source My Notes:" in out, err

    code, out, _ = run(capsys, "source", "list", "--root", str(root), "--json")
    listed = {s["name"]: s for s in json.loads(out)}
    assert set(listed) == {"Zettelkästen", "Obsidian Vault", "My Notes"}
    assert listed["Obsidian Vault"]["files"] == added["state"]["files"]
    code, out, _ = run(capsys, "source", "list", "--root", str(root))
    assert "Zettelkästen" in out and "Obsidian Vault" in out and "My Notes" in out

    code, out, _ = run(capsys, "search", "medlar", "--root", str(root), "--folder",
                       "@Obsidian Vault/", "--json")
    assert [r["source_file"] for r in json.loads(out)["results"]] == ["@Obsidian Vault/plans.md"]
    code, out, _ = run(capsys, "search", "Quitte", "--root", str(root))
    assert "@Zettelkästen/zettel.md" in out

    # typed decomposed, as a macOS terminal may send it
    code, out, err = run(capsys, "source", "remove", unicodedata.normalize("NFD", "Zettelkästen"),
                         "--root", str(root))
    assert code == 0 and "removed source Zettelkästen" in out, err
    code, out, err = run(capsys, "source", "remove", "My Notes", "--root", str(root))
    assert code == 0, err


def test_a_second_folder_of_the_same_name_is_numbered_and_says_why(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    first = folder(tmp_path / "a/Zettelkästen", a="# A\n\nalpha\n")
    second = folder(tmp_path / unicodedata.normalize("NFD", "b/Zettelkästen"), b="# B\n\nbeta\n")
    run(capsys, "source", "add", str(first), "--type", "note", "--root", str(root), "--no-index")
    code, out, _ = run(capsys, "source", "add", str(second), "--type", "note", "--root",
                       str(root), "--no-index")
    assert code == 0 and out.startswith("added source Zettelkästen-2 to memlens.toml")
    assert "a source named Zettelkästen exists, --name chooses another name" in out


def test_a_missing_spaced_source_names_the_command_to_remove_it_quoted(tmp_path, capsys):
    root = make_root(tmp_path / "root")
    vault = folder(tmp_path / "Obsidian Vault", a="# A\n\nalpha\n")
    run(capsys, "source", "add", str(vault), "--type", "note", "--root", str(root))
    vault.rename(tmp_path / "away")
    code, _, err = run(capsys, "reindex", "--root", str(root))
    assert "`memlens source remove 'Obsidian Vault'`" in err, err


@pytest.mark.parametrize("name,shown", [
    ("@Obsidian Vault", "@Obsidian…    "),  # after a whole word: not "@Obsidian-Vaul"
    ("@Zettelkästen", "@Zettelkästen "),
    ("@日本語のノート集です", "@日本語のノー…"),  # wide characters: each a word, by cells
    ("@Zettelkastenarchiv", "@Zettelkasten…"),  # one word longer than the place
    ("Slack", "Slack         "),
])
def test_the_facet_list_cuts_a_long_name_visibly(name, shown):
    assert fit(name, 14) == shown
