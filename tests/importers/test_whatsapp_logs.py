"""A WhatsApp chat is a WhatsApp chat everywhere, in one log named after the chat.

Every view names the platform (results, facets' counts, the timeline, stats, MCP); one chat
exported twice, under any file name, lands in one ``data/whatsapp/<chat>.jsonl``, message by
message; a log where an earlier importer wrote it (``data/telegram/whatsapp-<chat>.jsonl``) is
read as WhatsApp and is moved into place by the next import of its chat.
"""

from __future__ import annotations

import json
import shlex
import zipfile
from pathlib import Path

import pytest

from engine.config import load_config
from engine.importers import run_import
from engine.storage.db import connect
from mcp_server.tools import MemlensTools
from tests.conftest import run_cli

TZ = "Europe/Berlin"
FIRST = ("12/1/26, 19:02 - Maya: the kiln is lit\n"
         "12/2/26, 08:15 - Sam: how did the glaze come out?\n"
         "12/3/26, 21:40 - Maya: crackled, on purpose this time\n")
LATER = FIRST + "12/5/26, 10:05 - Sam: bring the blue bowl Saturday\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def texts(path: Path) -> list[str]:
    return [json.loads(line)["text"] for line in path.read_text(encoding="utf-8").splitlines()]


def imp(src: Path, root: Path, **kw):
    return run_import("whatsapp", src, root, local_tz=TZ, date_order="mdy", **kw)


@pytest.mark.parametrize("first,second", [
    ("WhatsApp-Maya.txt", "WhatsApp Chat with Maya.txt"),  # the README's name, then the app's
    ("WhatsApp Chat with Maya.txt", "WhatsApp Chat with Maya (2).txt"),  # a second download
    ("WhatsApp Chat with Maya.txt", "kiln-backup.txt"),  # renamed: found by its messages
])
def test_one_chat_exported_twice_is_one_log_named_after_it(tmp_path, first, second):
    root = tmp_path / "root"
    imp(write(tmp_path / "a" / first, FIRST), root)
    report = imp(write(tmp_path / "b" / second, LATER), root)
    assert report.records_imported == 1 and report.records_skipped_duplicate == 3
    assert [p.relative_to(root).as_posix() for p in (root / "data").rglob("*.jsonl")] == [
        "data/whatsapp/Maya.jsonl"]
    assert texts(root / "data/whatsapp/Maya.jsonl")[-1] == "bring the blue bowl Saturday"


def test_two_exports_of_one_chat_in_one_folder_are_one_log(tmp_path):
    folder = tmp_path / "exports"
    write(folder / "WhatsApp Chat with Maya.txt", FIRST)
    write(folder / "kiln-backup.txt", LATER)
    report = imp(folder, tmp_path / "root")
    assert report.records_imported == 4
    assert [p.name for p in (tmp_path / "root/data/whatsapp").glob("*.jsonl")] == ["Maya.jsonl"]


def test_a_zip_is_named_after_the_chat_not_its_inner_file(tmp_path):
    archive = tmp_path / "WhatsApp Chat - Maya.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("_chat.txt", FIRST)
    imp(archive, tmp_path / "root")
    assert (tmp_path / "root/data/whatsapp/Maya.jsonl").exists()


def test_one_shared_greeting_does_not_make_two_chats_one(tmp_path):
    """The same sender's same words in the same minute in two groups: still two chats."""
    root = tmp_path / "root"
    greeting = "1/1/27, 00:00 - Maya: Happy new year!\n"
    imp(write(tmp_path / "WhatsApp Chat with Climbing crew.txt",
              greeting + "1/1/27, 00:05 - Hannah: same to you\n"
              "1/2/27, 09:00 - Maya: gym on Sunday?\n"), root)
    imp(write(tmp_path / "WhatsApp Chat with Family.txt",
              greeting + "1/1/27, 00:03 - Lucia: feliz año\n"
              "1/1/27, 11:00 - Elena: lunch at two\n"), root)
    assert sorted(p.name for p in (root / "data/whatsapp").glob("*.jsonl")) == [
        "Climbing crew.jsonl", "Family.jsonl"]


def legacy_log(root: Path, name: str, src: Path, tmp_path: Path) -> Path:
    """The log an earlier importer wrote: same records, at data/telegram/whatsapp-<name>."""
    scratch = tmp_path / "scratch"
    imp(src, scratch)
    (written,) = (scratch / "data/whatsapp").glob("*.jsonl")
    legacy = root / f"data/telegram/whatsapp-{name}.jsonl"
    legacy.parent.mkdir(parents=True, exist_ok=True)
    legacy.write_bytes(written.read_bytes())
    return legacy


def test_an_earlier_importers_log_is_moved_into_place_by_the_next_import(tmp_path):
    root = tmp_path / "root"
    legacy = legacy_log(root, "WhatsApp-Maya", write(tmp_path / "WhatsApp-Maya.txt", FIRST),
                        tmp_path)
    later = write(tmp_path / "new/WhatsApp Chat with Maya.txt", LATER)
    plan = imp(later, root, dry_run=True)
    assert legacy.exists() and not (root / "data/whatsapp").exists()
    assert (plan.records_imported, plan.records_skipped_duplicate) == (1, 3)
    assert any(n.startswith("would move data/telegram/whatsapp-WhatsApp-Maya.jsonl to "
                            "data/whatsapp/Maya.jsonl") for n in plan.notes)
    report = imp(later, root)
    assert (report.records_imported, report.records_skipped_duplicate) == (1, 3)
    assert not legacy.exists()
    assert len(texts(root / "data/whatsapp/Maya.jsonl")) == 4
    assert any(n.startswith("moved data/telegram/whatsapp-WhatsApp-Maya.jsonl")
               for n in report.notes)


def test_an_earlier_log_found_by_its_messages_keeps_its_chats_name(tmp_path):
    """``backup2.txt`` names a file, not a chat: the old log's chat names the new one."""
    root = tmp_path / "root"
    legacy = legacy_log(root, "Maya Chen", write(tmp_path / "WhatsApp Chat with Maya.txt", FIRST),
                        tmp_path)
    imp(write(tmp_path / "exports/backup2.txt", LATER), root)
    assert not legacy.exists()
    assert [p.name for p in (root / "data/whatsapp").glob("*.jsonl")] == ["Maya Chen.jsonl"]


def test_a_chat_read_again_with_another_zone_is_refused_not_doubled(tmp_path):
    root = tmp_path / "root"
    export = write(tmp_path / "WhatsApp Chat with Lee.txt", LATER)
    run_import("whatsapp", export, root, local_tz="America/New_York", date_order="mdy")
    log = root / "data/whatsapp/Lee.jsonl"
    before = log.read_bytes()
    report = run_import("whatsapp", export, root, local_tz="UTC", date_order="dmy")
    assert log.read_bytes() == before and report.records_imported == 0
    ((_, _, why),) = report.problems
    assert why.startswith("4 of its 4 messages are in data/whatsapp/Lee.jsonl already at "
                          "other times (written with --tz America/New_York; this import read "
                          "times as UTC)"), why
    # the same options again: nothing new, nothing refused
    again = run_import("whatsapp", export, root, local_tz="America/New_York", date_order="mdy")
    assert again.problems == [] and again.records_skipped_duplicate == 4


def test_a_dry_run_says_merge_when_the_log_is_there(tmp_path):
    root = tmp_path / "root"
    imp(write(tmp_path / "WhatsApp Chat with Maya.txt", FIRST), root)
    legacy_log(root, "Maya", write(tmp_path / "old/WhatsApp Chat with Maya.txt", LATER),
               tmp_path)
    later = write(tmp_path / "new/WhatsApp Chat with Maya.txt", LATER)
    plan = imp(later, root, dry_run=True)
    assert ("would merge data/telegram/whatsapp-Maya.jsonl into data/whatsapp/Maya.jsonl "
            "(WhatsApp chats have a folder of their own)") in plan.notes
    report = imp(later, root)
    assert ("merged data/telegram/whatsapp-Maya.jsonl into data/whatsapp/Maya.jsonl "
            "(WhatsApp chats have a folder of their own)") in report.notes
    assert (plan.records_imported, plan.records_skipped_duplicate) == (
        report.records_imported, report.records_skipped_duplicate)


def test_a_chat_keeps_its_spaces_in_the_log_and_the_timeline(tmp_path, capsys):
    root = tmp_path / "root"
    imp(write(tmp_path / "WhatsApp Chat with Book Club.txt", LATER), root)
    legacy_log(root, "WhatsApp-Sam", write(tmp_path / "WhatsApp Chat with Sam.txt",
                                           LATER.replace("Maya", "Ola")), tmp_path)
    assert (root / "data/whatsapp/Book Club.jsonl").exists()
    run_cli(capsys, "reindex", "--root", str(root))
    code, out, _ = run_cli(capsys, "timeline", "2026-12-01", "--root", str(root))
    assert "Book Club: 1 message" in out and "\n    Sam: 1 message" in out, out


def test_an_earlier_log_beside_the_new_one_is_merged_without_duplicates(tmp_path):
    """Half-migrated (the old log and the new one both there): one log, each message once."""
    root = tmp_path / "root"
    imp(write(tmp_path / "WhatsApp Chat with Maya.txt", FIRST), root)
    legacy = legacy_log(root, "Maya", write(tmp_path / "old/WhatsApp Chat with Maya.txt",
                                            LATER), tmp_path)
    imp(write(tmp_path / "new/WhatsApp Chat with Maya.txt", LATER), root)
    assert not legacy.exists()
    assert texts(root / "data/whatsapp/Maya.jsonl") == [
        "the kiln is lit", "how did the glaze come out?", "crackled, on purpose this time",
        "bring the blue bowl Saturday"]


def test_every_view_names_whatsapp(tmp_path, capsys):
    root = tmp_path / "root"
    imp(write(tmp_path / "WhatsApp Chat with Maya.txt", LATER), root)
    assert run_cli(capsys, "reindex", "--root", str(root))[0] == 0
    code, out, _ = run_cli(capsys, "search", "blue bowl", "--root", str(root), "--json")
    page = json.loads(out)
    assert page["results"][0]["source_type"] == "whatsapp"
    assert page["type_counts"] == {"whatsapp": 1}
    code, out, _ = run_cli(capsys, "search", "blue bowl", "--root", str(root))
    assert "WhatsApp" in out and "Telegram" not in out
    code, out, _ = run_cli(capsys, "stats", "--root", str(root))
    assert "WhatsApp" in out and "Telegram" not in out
    code, out, _ = run_cli(capsys, "timeline", "2026-12-01..2026-12-05", "--root", str(root))
    assert "WhatsApp 4 messages" in out and "Telegram" not in out
    tools = MemlensTools(load_config(root), max_chars=1_000_000)
    text, is_error = tools.call("hybrid_search", {"query": "blue bowl"})
    assert not is_error and "whatsapp" in text and "telegram" not in text.lower()


def test_the_hint_after_an_import_names_the_root_it_was_given(tmp_path, capsys):
    root = tmp_path / "my root"
    export = write(tmp_path / "WhatsApp Chat with Maya.txt", LATER)
    code, _, err = run_cli(capsys, "import", "whatsapp", str(export), "--root", str(root))
    assert code == 0 and f"run `memlens reindex --root {shlex.quote(str(root))}`" in err, err


def test_a_reindex_relabels_a_chat_indexed_as_telegram(tmp_path, capsys):
    """An index built when WhatsApp chats were read as Telegram: the next reindex reads the
    unchanged log again under its own type (a route's type is part of what is indexed)."""
    root = tmp_path / "root"
    legacy_log(root, "Maya", write(tmp_path / "WhatsApp Chat with Maya.txt", LATER), tmp_path)
    run_cli(capsys, "reindex", "--root", str(root))
    db = root / "data/search/memlens.db"
    conn = connect(db)
    with conn:
        conn.execute("UPDATE chunks SET source_type = 'telegram'")
        conn.execute("UPDATE index_state SET source_type = 'telegram'")
    conn.close()
    code, out, _ = run_cli(capsys, "reindex", "--root", str(root))
    assert code == 0 and "indexed 1 file" in out
    code, out, _ = run_cli(capsys, "search", "blue bowl", "--root", str(root), "--json")
    (row,) = json.loads(out)["results"]
    assert row["source_type"] == "whatsapp"
    assert row["source_file"] == "data/telegram/whatsapp-Maya.jsonl"
