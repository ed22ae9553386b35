"""Paths stored with '/' on every system and shown the system's way; names one system holds
and another cannot (engine/path_style.py). Windows is checked here through pathlib's Windows
flavour and ``MEMLENS_PATH_STYLE=windows``; its real file system is not (docs/platforms.md)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path, PureWindowsPath

import pytest

from engine import path_style
from engine.config import load_config
from engine.importers import run_import
from engine.index.data_files import relative_path
from engine.index.watch_filter import ADDED, PathFilter
from engine.indexer import reindex
from engine.library import Library
from engine.path_style import portable_name, shown, slashed, windows_name_problem
from engine.scanner import discover_files
from engine.searcher import Searcher
from tests.conftest import run_cli

STORED = ["notes/work/plan.md", "@Vault/Daily/2026-03-14.md", "data/slack/general.jsonl",
          "memory/entities/people/maya-chen.md", "notes/"]
HOSTILE = ["CON", "con.md", "Aux.old.md", "nul", "COM1.txt", "lpt9", "COM¹.md", "10:30 standup.md",
           "What?.md", 'say "hi".md', "a<b>c|d*.md", "trailing.", "trailing ", "tab\there.md",
           "back\\slash.md", "...", "  ", ":"]


@pytest.mark.parametrize("stored", STORED)
def test_a_stored_path_reads_the_windows_way_there_and_comes_back_the_same(stored):
    on_windows = shown(stored, on_windows=True)
    assert "/" not in on_windows
    assert PureWindowsPath(on_windows).as_posix() == stored.rstrip("/")
    assert slashed(on_windows, on_windows=True) == stored
    assert slashed(str(PureWindowsPath(stored)), on_windows=True) == stored.rstrip("/")
    assert shown(stored, on_windows=False) == stored == slashed(stored, on_windows=False)


def test_elsewhere_a_backslash_is_part_of_a_name():
    assert slashed("notes\\a.md", on_windows=False) == "notes\\a.md"
    assert relative_path("notes/back\\slash.md") == "notes/back\\slash.md"


def test_the_style_follows_the_system_or_the_override(monkeypatch):
    monkeypatch.setenv(path_style.ENV, "windows")
    assert path_style.windows() and shown("a/b") == "a\\b" and slashed("a\\b") == "a/b"
    assert relative_path("notes\\work\\plan.md") == "notes/work/plan.md"
    monkeypatch.setenv(path_style.ENV, "posix")
    assert not path_style.windows() and shown("a/b") == "a/b"
    monkeypatch.setenv(path_style.ENV, "nonsense")  # not a style: the system decides
    assert path_style.windows() == (path_style.os.name == "nt")


@pytest.mark.parametrize("name", HOSTILE)
def test_every_name_windows_refuses_is_said_and_made_portable(name):
    why = windows_name_problem(name)
    refused = (any(c in name for c in '<>:"|?*\\\t') or name.endswith((".", " "))
               or name.split(".")[0].upper() in {"CON", "AUX", "NUL", "COM1", "LPT9", "COM¹"})
    assert (why is not None) == refused, (name, why)
    portable = portable_name(name)
    assert portable and windows_name_problem(portable) is None, (name, portable)
    assert "\t" not in (why or "")  # a control character is shown as \x09
    if why is None:
        assert portable == name


@pytest.mark.parametrize("name", ["notes.md", "2026-03-14.md", "Café ☕.md", "a.b.c",
                                  "CONSOLE.md", "com10.md", ".hidden"])
def test_names_every_system_holds_are_left_alone(name):
    assert windows_name_problem(name) is None and portable_name(name) == name


def test_people_read_paths_the_windows_way_there_and_programs_keep_slashes(
        tmp_path, capsys, monkeypatch):
    root = tmp_path / "root"
    (root / "notes/work").mkdir(parents=True)
    (root / "notes/work/plan.md").write_text("# Plan\n\nThe harbor bridge opens in May.\n")
    reindex(config=load_config(root))
    monkeypatch.setenv(path_style.ENV, "windows")
    code, out, _ = run_cli(capsys, "search", "--root", str(root), "harbor bridge")
    assert code == 0 and "notes\\work\\plan.md" in out and "notes/work" not in out
    code, out, _ = run_cli(capsys, "search", "--root", str(root), "--json", "harbor bridge")
    assert code == 0 and json.loads(out)["results"][0]["source_file"] == "notes/work/plan.md"
    code, out, _ = run_cli(capsys, "search", "--root", str(root), "--folder", "notes\\work\\",
                           "harbor")
    assert code == 0 and "notes\\work\\plan.md" in out
    text = Library(load_config(root)).read_file("notes\\work\\plan.md")
    assert text.rel == "notes/work/plan.md" and "harbor bridge" in text.text


def test_a_name_with_a_backslash_is_indexed_and_read_by_its_name_off_windows(tmp_path, capsys):
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    (root / "notes/back\\slash.md").write_text("# Odd\n\nA name with a backslash in it.\n")
    config = load_config(root)
    assert reindex(config=config).errors == []
    searcher = Searcher(config)
    assert [r.source_file for r in searcher.search("backslash").results] == [
        "notes/back\\slash.md"]
    searcher.close()
    assert "backslash" in Library(config).read_file("notes/back\\slash.md").text
    for folder in ("notes/back\\slash.md", "back\\slash.md", "back\\slash"):
        code, out, err = run_cli(capsys, "search", "--root", str(root), "--folder", folder,
                                 "backslash")
        assert code == 0 and "notes/back\\slash.md" in out, (folder, out, err)


WINDOWS_REFUSES = ["notes/CON.md", "notes/10:30 standup.md", "notes/What?.md",
                   "notes/Daily./monday.md"]


def test_on_windows_a_name_it_cannot_open_is_said_and_skipped(tmp_path, monkeypatch):
    """WSL or another system's sync can leave such names where Windows lists but cannot open
    them; elsewhere they are ordinary names and indexed."""
    root = tmp_path / "root"
    for rel in [*WINDOWS_REFUSES, "notes/fine.md"]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n\nmeeting notes\n")
    config = load_config(root)
    assert sorted(f.rel for f in discover_files(config)) == sorted(
        [*WINDOWS_REFUSES, "notes/fine.md"])
    assert reindex(config=config).files == 5  # elsewhere: ordinary names
    monkeypatch.setenv(path_style.ENV, "windows")
    problems: list = []
    assert [f.rel for f in discover_files(config, problems)] == ["notes/fine.md"]
    said = {p.path: p.message for p in problems}
    assert said == {
        "notes/CON.md": "file name is CON, a device name on Windows; not indexed (rename it)",
        "notes/10:30 standup.md": "file name holds :, which Windows does not allow in a name; "
                                  "not indexed (rename it)",
        "notes/What?.md": "file name holds ?, which Windows does not allow in a name; not "
                          "indexed (rename it)",
        "notes/Daily.": "folder name ends in a dot, which Windows drops; not indexed "
                        "(rename it)"}
    stats = reindex(config=config)  # what cannot be read here is not served from before
    assert stats.errors == [] and stats.deleted_chunks > 0
    assert {w.source_file for w in stats.warnings} >= set(said)
    library = Library(config)
    assert library.overview().chunks == library.statistics().chunks > 0
    assert library.pending().vanished == [] and library.pending().to_index == []
    searcher = Searcher(config)
    assert {r.source_file for r in searcher.search("meeting notes", limit=20).results} == {
        "notes/fine.md"}
    searcher.close()
    monkeypatch.setenv(path_style.ENV, "posix")  # back: every file again, once
    assert reindex(config=config).files == 4
    assert Library(config).pending().vanished == []


def test_the_watcher_knows_a_change_windows_writes_with_backslashes(tmp_path, monkeypatch):
    root = tmp_path / "root"
    (root / "notes").mkdir(parents=True)
    config = load_config(root)
    change = str(PureWindowsPath(root / "notes" / "plan.md"))  # as watchfiles says it there
    monkeypatch.setenv(path_style.ENV, "windows")
    assert PathFilter(root, config.routes, config.db_path).relative(
        slashed(change), ADDED) == "notes/plan.md"
    monkeypatch.setenv(path_style.ENV, "posix")  # here it is one odd name, not a path
    assert PathFilter(root, config.routes, config.db_path).relative(
        slashed(change), ADDED) is None


def vault_zip(path: Path, notes: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in notes.items():
            zf.writestr(f"Vault/{name}", text)
    return path


def test_an_imported_note_gets_a_name_every_system_holds_and_keeps_its_own_as_title(tmp_path):
    src = vault_zip(tmp_path / "vault.zip", {
        "10:30 standup.md": "Standup about the harbor bridge.\n",
        "CON.md": "---\ntags: [x]\n---\nA note called CON.\n",
        "Ideas.md": "# Ideas\n\nFirst list.\n",
        "ideas.md": "# ideas\n\nSecond list.\n",
        "Daily./2026-03-14.md": "A day.\n",
        "plain.md": "Nothing odd.\n"})
    root = tmp_path / "root"
    report = run_import("obsidian", src, root)
    written = sorted(report.files_written)
    assert written == ["notes/Vault/10-30 standup.md", "notes/Vault/CON-.md",
                       "notes/Vault/Daily/2026-03-14.md", "notes/Vault/Ideas.md",
                       "notes/Vault/ideas 2.md", "notes/Vault/plain.md"]
    assert all(windows_name_problem(part) is None for rel in written for part in rel.split("/"))
    notes = "\n".join(report.notes)
    assert ("Vault/10:30 standup.md: saved as '10-30 standup.md': the name holds :, which "
            "Windows does not allow in a name") in notes
    assert ("saved as 'ideas 2.md': a note whose name differs only in letter case is there "
            "(Windows and macOS do not tell them apart)") in notes
    standup = (root / "notes/Vault/10-30 standup.md").read_text()
    assert standup.startswith('---\ntitle: "10:30 standup"\n---\n')
    assert (root / "notes/Vault/CON-.md").read_text().startswith('---\ntitle: "CON"\ntags: [x]')
    assert (root / "notes/Vault/plain.md").read_text() == "Nothing odd.\n"
    again = run_import("obsidian", src, root)  # the same vault: the same files, updated
    assert sorted(again.files_written) == [] or sorted(again.files_written) == written
    assert sorted(p.relative_to(root).as_posix() for p in (root / "notes").rglob("*.md")) \
        == written
    config = load_config(root)
    reindex(config=config)
    searcher = Searcher(config)
    hit = searcher.search("standup harbor").results[0]
    searcher.close()
    assert hit.source_file == "notes/Vault/10-30 standup.md" and "10:30 standup" in hit.content


def test_a_note_reimported_after_its_case_twin_left_the_vault_keeps_its_file(tmp_path):
    vault = tmp_path / "Vault"
    vault.mkdir()
    (vault / "Note.md").write_text("First falcon.\n")
    (vault / "note.md").write_text("Second falcon.\n")
    root = tmp_path / "root"
    assert sorted(run_import("obsidian", vault, root).files_written) == [
        "notes/Vault/Note.md", "notes/Vault/note 2.md"]
    (vault / "Note.md").unlink()
    (vault / "note.md").write_text("Second falcon, changed.\n")
    again = run_import("obsidian", vault, root)
    assert again.files_written == ["notes/Vault/note 2.md"]
    held = sorted(p.name for p in (root / "notes/Vault").iterdir())
    assert held == ["Note.md", "note 2.md"]  # the vault's deletions are not mirrored
    assert "changed" in (root / "notes/Vault/note 2.md").read_text()


def test_upper_case_extensions_broken_frontmatter_and_names_that_are_not_utf8(tmp_path):
    vault = tmp_path / "Vault"
    (vault / "dir\udcff").mkdir(parents=True)  # bytes b"dir\xff"
    (vault / "Plain.MD").write_text("Upper-case extension.\n")
    (vault / "B|roken.md").write_text("---\ntags: [unclosed\n---\nBody text.\n")
    (vault / "caf\udce9 latin1.md").write_text("A capybara note.\n")
    (vault / "dir\udcff" / "in.md").write_text("Inside.\n")
    root = tmp_path / "root"
    report = run_import("obsidian", vault, root)
    assert sorted(report.files_written) == [
        "notes/Vault/B-roken.md", "notes/Vault/Plain.md", "notes/Vault/café latin1.md",
        "notes/Vault/dirÿ/in.md"]
    notes = "\n".join(report.notes)
    assert "Plain.MD: saved as 'Plain.md': notes are saved ending in .md, which the routes " \
        "index" in notes  # else imported and never indexed
    assert "saved as 'café latin1.md': the name is not valid UTF-8" in notes
    broken = (root / "notes/Vault/B-roken.md").read_text()
    assert broken == "---\ntags: [unclosed\n---\nBody text.\n"  # copied as is, said so
    assert any("broken YAML frontmatter" in m for _, _, m in report.problems)
    config = load_config(root)
    assert [w.source_file for w in reindex(config=config).warnings] == [
        "notes/Vault/B-roken.md"]  # its broken frontmatter, as the import said
    searcher = Searcher(config)
    assert [r.source_file for r in searcher.search("capybara").results] == [
        "notes/Vault/café latin1.md"]
    searcher.close()


def test_what_import_and_watch_say_reads_the_windows_way_there(tmp_path, monkeypatch):
    from engine.index.watch_events import Changed, Problem

    monkeypatch.setenv(path_style.ENV, "windows")
    src = vault_zip(tmp_path / "vault.zip", {"Daily/2026-03-14.md": "A day.\n"})
    summary = run_import("obsidian", src, tmp_path / "root").summary()
    assert "wrote notes\\Vault\\Daily\\2026-03-14.md" in summary
    assert Changed(("@src/sub/", "@src/sub/x.md")).line() == (
        "changed 1 file and 1 folder: @src\\sub\\, @src\\sub\\x.md")
    assert Problem("warning", "@src/CON.md", "why").line() == "warning: @src\\CON.md: why"



def test_the_source_list_says_which_names_windows_left_out(tmp_path, capsys, monkeypatch):
    root = tmp_path / "root"
    root.mkdir()
    folder = tmp_path / "Vault"
    (folder / "Daily.").mkdir(parents=True)
    for rel in ("ok.md", "CON.md", "Daily./monday.md"):
        (folder / rel).write_text("# x\n\nmeeting notes\n")
    monkeypatch.setenv(path_style.ENV, "windows")
    code, out, err = run_cli(capsys, "source", "add", str(folder), "--type", "note",
                             "--root", str(root))
    assert code == 0, err
    code, out, _ = run_cli(capsys, "source", "list", "--root", str(root))
    assert "1 file; 2 names not read" in out
    assert ("not read: @Vault\\CON.md: file name is CON, a device name on Windows; not indexed "
            "(rename it)") in out
    assert "not read: @Vault\\Daily.: folder name ends in a dot" in out
    code, out, _ = run_cli(capsys, "source", "list", "--root", str(root), "--json")
    [state] = json.loads(out)
    assert state["files"] == state["indexed"] == 1
    assert [n["source_file"] for n in state["not_read"]] == ["@Vault/CON.md", "@Vault/Daily."]


def test_no_two_folders_or_notes_differ_only_in_case_and_a_taken_name_is_said_so(tmp_path):
    src = vault_zip(tmp_path / "vault.zip", {
        "Sub/s.md": "Upper folder.\n", "sub/s.md": "Lower folder.\n", "sub/t.md": "Other.\n",
        "CON.md": "Device.\n", "CON-.md": "Already that name.\n", "x:.md": "Colon.\n",
        "x-.md": "Dash.\n"})
    root = tmp_path / "root"
    report = run_import("obsidian", src, root)
    assert sorted(report.files_written) == sorted(
        f"notes/Vault/{n}" for n in ("Sub/s.md", "Sub/s 2.md", "Sub/t.md", "CON-.md",
                                     "CON- 2.md", "x-.md", "x- 2.md"))
    notes = "\n".join(report.notes)
    assert ("Vault/sub/s.md: saved as 'Sub/s 2.md': its folder is there already, spelled "
            "'Sub' (letter case aside); another note of the vault is saved under that name"
            ) in notes
    assert ("saved as 'CON- 2.md': the name is CON, a device name on Windows; another note "
            "of the vault is saved under that name") in notes
    assert "letter case is there" not in notes
    again = run_import("obsidian", src, root)  # the same places again, nothing new
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md")) == sorted(
        report.files_written)
    assert again.records_imported == 0
