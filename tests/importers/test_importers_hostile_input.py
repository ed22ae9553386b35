"""Importers on hostile input: zip bombs, zip-slip names, links out of the source, huge mail
headers, JSON nested 10,000 deep, a disk that fills during an append (docs/importers.md,
"Hostile input")."""

from __future__ import annotations

import json
import os
import signal
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from engine.importers import ImportFailed, _safezip, run_import
from engine.importers import atomic as importer_atomic
from tests.importers.conftest import ACCOUNT, DAY1, slack_export, write

TZ = "Europe/Berlin"
MB = 1 << 20


def imp(kind, source, root):
    return run_import(kind, source, root, local_tz=TZ)


def outcome(kind, source, root) -> str:
    """Every problem line of the import, or its one-line failure."""
    try:
        report = imp(kind, source, root)
    except ImportFailed as exc:
        return str(exc)
    return "\n".join(f"{f}:{ln}: {m}" for f, ln, m in report.problems)


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


def zeros_zip(path: Path, name: str, size: int, extra: dict[str, str] | None = None) -> Path:
    """A zip whose entry ``name`` inflates to ``size`` zero bytes (written in 1 MB steps)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for other, text in (extra or {}).items():
            zf.writestr(other, text)
        with zf.open(name, "w", force_zip64=True) as fh:
            for _ in range(size // MB):
                fh.write(bytes(MB))
    return path


def peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# --------------------------------------------------------------------------- zip bombs

BOMB_ENTRY = {"slack": "general/2026-03-14.json", "telegram": "result.json",
              "whatsapp": "WhatsApp Chat with Maya.txt", "vtt": "meeting.vtt",
              "srt": "meeting.srt", "whisper": "talk.json", "garmin": "UDSFile_1.json",
              "dayone": "Journal.json", "obsidian": "vault/note.md", "mbox": "inbox.mbox"}


@pytest.mark.parametrize("kind", sorted(BOMB_ENTRY))
def test_zip_bomb_is_refused_from_its_declared_sizes_without_inflating(tmp_path, kind):
    entry = BOMB_ENTRY[kind]
    bomb = zeros_zip(tmp_path / "export.zip", entry, 24 * MB)  # ~24 KB on disk, 1000:1
    assert bomb.stat().st_size < MB
    root = tmp_path / "root"
    said: list[str] = []
    peak = peak_bytes(lambda: said.append(outcome(kind, bomb, root)))
    assert peak < 4 * MB  # the 24 MB entry was never held in memory
    line = next(ln for ln in said[0].splitlines() if "200:1" in ln)
    assert f"export.zip:{entry}" in line and "not read" in line
    assert files_under(root) == []


def test_total_cap_stops_inflating_mid_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(_safezip, "MAX_TOTAL_BYTES", 10 * MB)
    text = "plain words of a long note\n" * (4 * MB // 27)
    src = tmp_path / "vault.zip"
    with zipfile.ZipFile(src, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in ("vault/a.md", "vault/b.md", "vault/c.md"):
            zf.writestr(name, text)
    inflated = []
    real_read = zipfile.ZipExtFile.read

    def counting_read(self, n=-1):
        data = real_read(self, n)
        inflated.append(len(data))
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting_read)
    report = imp("obsidian", src, tmp_path / "root")
    assert sorted(report.files_written) == ["notes/vault/a.md", "notes/vault/b.md"]
    assert [(f, m) for f, _, m in report.problems] == [
        ("vault.zip:vault/c.md", "the archive inflates to more than 10.0 MB in total (the "
         "per-archive cap); not read")]
    assert sum(inflated) <= 10 * MB + _safezip.CHUNK  # stopped at the cap, not at 12 MB


def test_bomb_in_a_zip_without_central_directory_is_refused_while_inflating(tmp_path,
                                                                            monkeypatch):
    monkeypatch.setattr(_safezip, "RATIO_MIN_BYTES", MB)
    whole = zeros_zip(tmp_path / "whole.zip", "vault/bomb.md", 32 * MB,
                      extra={"vault/ok.md": "# fine\n"})
    data = whole.read_bytes()
    cut = write(tmp_path / "vault.zip", data[:data.rfind(b"PK\x01\x02")].rsplit(
        b"PK\x01\x02", 1)[0])  # the central directory is gone: no declared sizes to trust
    root = tmp_path / "root"
    reports = []
    peak = peak_bytes(lambda: reports.append(imp("obsidian", cut, root)))
    assert peak < 8 * MB  # refused after ~1 MB, not after 32
    report = reports[0]
    assert report.files_written == ["notes/vault/ok.md"]
    assert any(f == "vault.zip" and m.startswith("vault/bomb.md: inflates more than 200:1")
               for f, _, m in report.problems)


# --------------------------------------------------------------------------- zip slip

def test_zip_slip_entries_are_reported_with_escaped_names(tmp_path):
    src = tmp_path / "in" / "vault.zip"
    src.parent.mkdir()
    hostile = ["../evil.md", "/abs/x.md", "C:/win.md", "vault/../../up.md", "..\\back.md",
               "../\x1b]0;PWNED\x07\x1b[2Jx.md"]
    with zipfile.ZipFile(src, "w") as zf:
        zf.writestr("vault/ok.md", "# fine\n")
        for name in hostile:
            zf.writestr(zipfile.ZipInfo(name), "# escaped\n")
    root = tmp_path / "in" / "root"
    report = imp("obsidian", src, root)
    assert report.files_written == ["notes/vault/ok.md"]
    said = [m for f, _, m in report.problems if f == "vault.zip"]
    assert said == [f"entry {name!r} would land outside the export (a '..', absolute or "
                    "drive path); skipped" for name in hostile]
    assert not any("\x1b" in m or "\x07" in m for m in said)
    assert [p.name for p in files_under(tmp_path)] == ["ok.md", "vault.zip"]


def test_a_symbolic_link_stored_in_a_zip_is_skipped_and_said(tmp_path):
    src = tmp_path / "in" / "vault.zip"
    src.parent.mkdir()
    link = zipfile.ZipInfo("vault/passwd.md")
    link.create_system = 3  # Unix: the mode is in the high bits of the external attributes
    link.external_attr = (0o120777 << 16)  # a symbolic link; its bytes are its target
    with zipfile.ZipFile(src, "w") as zf:
        zf.writestr("vault/ok.md", "# fine\n")
        zf.writestr(link, "/etc/passwd")
    root = tmp_path / "in" / "root"
    report = imp("obsidian", src, root)
    assert report.files_written == ["notes/vault/ok.md"]
    assert [m for f, _, m in report.problems if f == "vault.zip"] == [
        "entry 'vault/passwd.md' is a symbolic link, not a file of the export; skipped"]
    assert b"/etc/passwd" not in b"".join(p.read_bytes() for p in files_under(root))


# --------------------------------------------------------------------------- links

def test_obsidian_never_follows_links_out_of_the_vault(tmp_path):
    secrets = write(tmp_path / "secrets/openai.json", '{"api_key": "sk-SECRET-123"}')
    write(tmp_path / "elsewhere/private.md", "# private diary PRIVATE-WORDS\n")
    write(tmp_path / "elsewhere/templates.json", '{"folder": "Daily"}')
    vault = tmp_path / "vault"
    write(vault / "note.md", "# note\n")
    write(vault / "Daily/2026-03-14.md", "# a daily note\n")
    (vault / "leak.md").symlink_to(secrets)
    (vault / "passwd.md").symlink_to("/etc/passwd")
    (vault / "elsewhere").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/templates.json").symlink_to(tmp_path / "elsewhere/templates.json")
    (vault / "alias.md").symlink_to(vault / "note.md")  # inside to inside: fine
    root = tmp_path / "root"
    report = imp("obsidian", vault, root)
    assert sorted(report.files_written) == ["notes/vault/Daily/2026-03-14.md",
                                            "notes/vault/alias.md", "notes/vault/note.md"]
    written = b"".join(p.read_bytes() for p in files_under(root))
    assert b"sk-SECRET" not in written and b"PRIVATE-WORDS" not in written
    assert b"root:" not in written
    refused = {f: m for f, _, m in report.problems}
    assert set(refused) == {"leak.md", "passwd.md", "elsewhere", ".obsidian/templates.json"}
    assert refused["elsewhere"] == "link to a folder outside the export; not followed"
    assert "outside the export" in refused["leak.md"] and "not read" in refused["leak.md"]


def test_the_data_roots_secrets_are_never_read_from_an_export_folder(tmp_path):
    export = tmp_path / "export"
    talk = {"text": "hello there", "segments": [{"start": 0, "end": 1, "text": "hello there"}]}
    write(export / "2026-03-14 talk.json", json.dumps(talk))
    root = export / "root"  # the data root kept inside the folder being imported
    leaked = {"text": "sk-SECRET-456", "segments": [{"start": 0, "end": 1,
                                                     "text": "sk-SECRET-456"}]}
    write(root / "secrets/openai.json", json.dumps(leaked))
    write(root / "memlens.toml", json.dumps(leaked))
    (export / "key.json").symlink_to(root / "secrets/openai.json")
    report = imp("whisper", export, root)
    assert len(report.files_written) == 1
    assert not any(b"sk-SECRET" in p.read_bytes() for p in files_under(root / "data"))
    assert report.problems == [("key.json", None, "the data root's secrets, config or index; "
                                "never read")]
    again = imp("whisper", export, root)  # its own output inside the folder is not re-read
    assert again.records_skipped_duplicate == 1 and again.problems == report.problems


def test_the_data_roots_private_files_and_special_files_are_refused_as_sources(tmp_path):
    root = tmp_path / "root"
    secret = write(root / "secrets/openai.json", '{"api_key": "sk-SECRET"}')
    for source in (secret, root / "secrets"):
        with pytest.raises(ImportFailed, match="secrets, config and index are never imported"):
            imp("whisper", source, root)
    fifo = tmp_path / "chat.txt"
    os.mkfifo(fifo)  # opening it to read blocks until a writer comes: an alarm ends that

    def blocked(signum, frame):
        raise TimeoutError("the importer opened the FIFO")

    previous = signal.signal(signal.SIGALRM, blocked)
    signal.alarm(10)
    try:
        with pytest.raises(ImportFailed, match="not a regular file or folder"):
            imp("whatsapp", fifo, root)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert files_under(root) == [secret]


# --------------------------------------------------------------------------- deep JSON

DEEP = '{"messages": [\n' + "[" * 10_000 + "]" * 10_000 + "]}\n"


@pytest.mark.parametrize("kind,rel", [
    ("telegram", "result.json"), ("telegram", "folder/result.json"), ("whisper", "talk.json"),
    ("garmin", "UDSFile_1.json"), ("dayone", "Journal.json"),
    ("slack", "folder/general/2026-03-14.json"),
])
def test_json_nested_10000_deep_is_one_line_and_writes_nothing(tmp_path, kind, rel):
    if kind == "slack":
        slack_export(tmp_path / "folder", {})
    src = write(tmp_path / rel, DEEP)
    source = tmp_path / "folder" if rel.startswith("folder/") else src
    root = tmp_path / "root"
    said = outcome(kind, source, root)  # no RecursionError
    assert "JSON nested too deeply" in said and (":2:" in said or "line 2" in said)
    assert files_under(root) == []


def test_a_deep_line_already_in_a_log_is_kept_and_the_import_goes_on(tmp_path):
    src = write(tmp_path / "result.json", json.dumps(ACCOUNT))
    root = tmp_path / "root"
    logs = [root / rel for rel in imp("telegram", src, root).files_written]
    deep = ("[" * 10_000 + "]" * 10_000 + "\n").encode()
    for log in logs:
        log.write_bytes(log.read_bytes() + deep)
    account = json.loads(json.dumps(ACCOUNT))
    for chat in account["chats"]["list"]:
        chat["messages"].append({**chat["messages"][-1], "id": 99, "text": "one more"})
    report = imp("telegram", write(src, json.dumps(account)), root)
    assert report.records_imported == len(logs)
    for log in logs:
        data = log.read_bytes()
        assert deep in data and b"one more" in data


# --------------------------------------------------------------------------- mbox headers

def test_huge_mail_header_is_cut_before_parsing_and_the_message_kept(tmp_path):
    subject = "xy " * 100_000  # 300 KB of words: seconds in the stdlib parser uncut
    box = ("From alice@example.com Sat Mar 14 09:00:00 2026\n"
           f"From: Alice <alice@example.com>\nSubject: {subject}\nMessage-ID: <a@x>\n\n"
           "The body survives.\n\n"
           "From bob@example.com Sat Mar 14 10:00:00 2026\n"
           "From: Bob <bob@example.com>\nSubject: Normal\nMessage-ID: <b@x>\n\nHi.\n")
    src = write(tmp_path / "Inbox.mbox", box)
    report = imp("mbox", src, tmp_path / "root")
    assert report.records_imported == 2
    assert report.problems == [("Inbox.mbox", 1, "header 'Subject' is 300,010 bytes; cut to "
                                "16,384 (the message is kept)")]
    lines = (tmp_path / "root/data/email/catalog/Inbox.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    assert first["summary"] == "The body survives." and first["id"] == "a@x"
    assert first["subject"].startswith("xy xy") and len(first["subject"]) < 16_384


def test_header_block_over_its_cap_drops_the_later_headers(tmp_path):
    many = "".join(f"X-Filler-{i}: {'z' * 10_000}\n" for i in range(40))  # 400 KB
    box = ("From alice@example.com Sat Mar 14 09:00:00 2026\n"
           f"From: Alice <alice@example.com>\nSubject: Kept\n{many}\nBody.\n")
    report = imp("mbox", write(tmp_path / "Inbox.mbox", box), tmp_path / "root")
    assert report.records_imported == 1
    assert [m for _, _, m in report.problems] == [
        "headers over 262,144 bytes; the last 14 dropped (the message is kept)"]


def test_huge_header_of_a_mime_part_is_cut_too(tmp_path):
    name = "xy " * 100_000
    box = ("From alice@example.com Sat Mar 14 09:00:00 2026\n"
           "From: Alice <alice@example.com>\nSubject: Files\nMessage-ID: <a@x>\n"
           'MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="BB"\n\n'
           "--BB\nContent-Type: text/plain\n\nSee attached.\n"
           "--BB\nContent-Type: application/pdf\n"
           f'Content-Disposition: attachment; filename="{name}"\n\nabc\n--BB--\n')
    report = imp("mbox", write(tmp_path / "Inbox.mbox", box), tmp_path / "root")
    assert report.records_imported == 1
    assert report.problems == [("Inbox.mbox", 1, "MIME part 2: header 'Content-Disposition' "
                                "is 300,023 characters; cut to 16,384 (the message is kept)")]
    record = json.loads((tmp_path / "root/data/email/catalog/Inbox.jsonl").read_text())
    assert record["summary"] == "See attached."


# --------------------------------------------------------------------------- disk full

def test_a_failed_append_leaves_the_log_as_it_was(tmp_path, monkeypatch):
    root = tmp_path / "root"
    imp("slack", slack_export(tmp_path / "old", {"general/2026-03-14.json": DAY1}), root)
    log = root / "data/slack/general.jsonl"
    before = log.read_bytes()

    def full(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(importer_atomic.os, "fsync", full)
    report = imp("slack", slack_export(tmp_path / "new"), root)
    assert ("data/slack/general.jsonl", None,
            "cannot write: [Errno 28] No space left on device") in report.problems
    assert report.records_imported == 0 and report.files_written == []  # none counted
    assert log.read_bytes() == before
    monkeypatch.undo()
    assert imp("slack", slack_export(tmp_path / "new"), root).files_written
    assert log.read_bytes().startswith(before) and log.read_bytes().endswith(b"\n")


def test_a_file_named_zip_that_is_not_one_is_said_so(tmp_path):
    fake = tmp_path / "vault.zip"
    fake.write_text("just text")
    with pytest.raises(ImportFailed, match="vault.zip: not a zip archive"):
        imp("obsidian", fake, tmp_path / "root")


def test_a_temp_file_a_killed_import_left_goes_with_the_next_write(tmp_path):
    target = tmp_path / "notes" / "a.md"
    target.parent.mkdir()
    stale = target.parent / ".a.md.x1y2z3.tmp"
    stale.write_bytes(b"half")
    os.utime(stale, (1_000_000, 1_000_000))
    fresh = target.parent / ".a.md.q9w8e7.tmp"  # another write still going
    fresh.write_bytes(b"half")
    other = target.parent / ".b.md.x1y2z3.tmp"
    other.write_bytes(b"half")
    os.utime(other, (1_000_000, 1_000_000))
    importer_atomic.atomic_write(target, b"whole")
    assert target.read_bytes() == b"whole"
    assert sorted(p.name for p in target.parent.iterdir()) == [
        ".a.md.q9w8e7.tmp", ".b.md.x1y2z3.tmp", "a.md"]


def test_a_note_with_the_longest_name_linux_allows_is_written(tmp_path):
    name = "Ł" * 125 + ".md"  # 253 bytes: legal; a temp name built on all of it would not be
    target = tmp_path / "notes" / name
    importer_atomic.atomic_write(target, b"whole")
    assert target.read_bytes() == b"whole" and len(list(target.parent.iterdir())) == 1
