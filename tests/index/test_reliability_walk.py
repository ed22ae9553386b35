"""The walk of the data root: links never lead out, odd names and unlistable folders lose
nothing (docs/reliability.md)."""

from __future__ import annotations

import os
import socket

from engine.indexer import reindex
from engine.storage.db import connect
from tests.conftest import CountingEmbedder, assert_consistent

SECRET = "sk-test-SECRET-0123456789"


def rows(config, sql, args=()):
    conn = connect(config.db_path)
    try:
        return conn.execute(sql, args).fetchall()
    finally:
        conn.close()


def indexed_files(config) -> set[str]:
    return {r[0] for r in rows(config, "SELECT DISTINCT source_file FROM chunks")}


def messages(stats) -> dict[str, str]:
    return {w.source_file: w.message for w in [*stats.warnings, *stats.errors]}


def test_links_out_of_the_root_or_to_protected_files_are_refused(config, embedder, tmp_path):
    root = config.root
    (root / "secrets").mkdir()
    (root / "secrets/openai.json").write_text(f'{{"api_key": "{SECRET}"}}')
    (root / "memlens.toml").write_text("# tuning: zebrafish\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.md").write_text("# Far\n\nquokka lives outside the root\n")
    reindex(config=config, embedder=embedder)  # the index (and its -wal) now exist
    links = {
        "notes/link.md": "../secrets/openai.json",
        "notes/environ.md": "/proc/self/environ",
        "notes/passwd.md": "/etc/passwd",
        "notes/far.md": str(outside / "far.md"),
        "notes/config.md": "../memlens.toml",
        "notes/index.md": "../data/search/memlens.db",
        "notes/wal.md": "../data/search/memlens.db-wal",
        "notes/loop.md": "loop.md",
    }
    for rel, target in links.items():
        os.symlink(target, root / rel)
    os.symlink(str(outside), root / "notes/outdir")  # a folder outside: never walked
    os.symlink("..", root / "notes/up")  # a folder loop: never walked

    stats = reindex(config=config, embedder=CountingEmbedder(), full=True)
    assert indexed_files(config) == {"data/slack/general.jsonl", "data/slack/random.jsonl",
                                     "notes/home/garden.md"}
    text = " ".join(r[0] for r in rows(config, "SELECT content FROM chunks"))
    for leaked in (SECRET, "root:x:0", "PATH=", "quokka", "zebrafish", "SQLite format"):
        assert leaked not in text
    said = messages(stats)
    for rel in [*links, "notes/outdir", "notes/up"]:
        assert rel in said, rel
    assert "outside the data root" in said["notes/passwd.md"]
    assert "protected" in said["notes/link.md"] and "protected" in said["notes/index.md"]
    assert all("\n" not in m for m in said.values())
    assert not stats.errors and stats.files == 3
    assert_consistent(config.db_path)


def test_a_link_to_a_routed_file_is_not_indexed_twice(config, embedder):
    root = config.root
    os.symlink("home/garden.md", root / "notes/alias.md")
    (root / "README.txt").write_text("not routed: kiwi\n")
    os.symlink("../README.txt", root / "notes/readme.md")
    stats = reindex(config=config, embedder=embedder)
    assert "notes/alias.md" not in indexed_files(config)
    assert rows(config, "SELECT count(*) FROM chunks WHERE content LIKE '%Dahlias%'")[0][0] == 1
    # a link to a file no route claims is refused, as read_note refuses it
    assert "notes/readme.md" in messages(stats) and "notes/alias.md" not in messages(stats)
    assert not any("kiwi" in r[0] for r in rows(config, "SELECT content FROM chunks"))


def test_a_route_never_claims_secrets_the_config_or_the_index(config, embedder):
    root = config.root
    (root / "secrets").mkdir()
    (root / "secrets/keys.md").write_text(f"# Keys\n\n{SECRET}\n")
    (root / "memlens.toml").write_text("# zebrafish\n")
    reindex(config=config, embedder=embedder)
    greedy = config.with_overrides(routes=(("**/*.md", "note"), ("*.toml", "scratch"),
                                           ("data/search/*", "scratch"),
                                           ("data/**/*.jsonl", "slack")))
    stats = reindex(config=greedy, embedder=CountingEmbedder())
    text = " ".join(r[0] for r in rows(config, "SELECT content FROM chunks"))
    assert SECRET not in text and "zebrafish" not in text
    assert not any(f.startswith(("secrets/", "data/search/")) or f == "memlens.toml"
                   for f in indexed_files(config))
    assert "memlens.toml" in messages(stats)
    assert "notes/home/garden.md" in indexed_files(config)


def test_a_file_name_that_is_not_utf8_is_reported_and_the_run_goes_on(config, embedder):
    notes = os.fsencode(str(config.root / "notes"))
    with open(notes + b"/caf\xe9.md", "wb") as fh:
        fh.write(b"# Cafe\n\nespresso\n")
    os.mkdir(notes + b"/d\xff")
    with open(notes + b"/d\xff/inner.md", "wb") as fh:
        fh.write(b"# Inner\n\nristretto\n")
    stats = reindex(config=config, embedder=embedder)
    assert rows(config, "SELECT count(*) FROM chunks")[0][0] == 16  # every other file
    assert indexed_files(config) == {"data/slack/general.jsonl", "data/slack/random.jsonl",
                                     "notes/home/garden.md"}
    said = messages(stats)
    assert "UTF-8" in said["notes/caf\\xe9.md"] and "notes/d\\xff" in said
    again = reindex(config=config, embedder=CountingEmbedder())
    assert again.skipped == 3 and not again.errors
    assert_consistent(config.db_path)


def test_an_unlistable_folder_is_not_treated_as_deleted(config, embedder, monkeypatch):
    reindex(config=config, embedder=embedder)
    before = rows(config, "SELECT count(*) FROM chunks WHERE source_file LIKE 'data/slack/%'")
    real_scandir = os.scandir
    slack = str(config.root / "data/slack")

    def scandir(path="."):
        if os.fspath(path).rstrip("/") == slack:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    stats = reindex(config=config, embedder=CountingEmbedder(), full=True)
    after = rows(config, "SELECT count(*) FROM chunks WHERE source_file LIKE 'data/slack/%'")
    assert after == before and stats.removed_files == 0 and stats.deleted_chunks == 0
    said = messages(stats)
    assert "Permission denied" in said["data/slack/"]
    assert any(e.source_file == "data/slack/" for e in stats.errors)
    assert stats.files == 1  # the note was still read
    assert stats.failed  # what the folder holds is unknown: every front door says so
    monkeypatch.undo()
    # a file really gone is still removed
    (config.root / "data/slack/random.jsonl").unlink()
    stats = reindex(config=config, embedder=CountingEmbedder())
    assert stats.removed_files == 1 and not stats.errors


def test_a_fifo_or_socket_is_never_read_and_keeps_old_chunks(config, embedder, monkeypatch):
    reindex(config=config, embedder=embedder)
    garden = config.root / "notes/home/garden.md"
    garden.unlink()
    os.mkfifo(garden)  # reading it would block forever
    os.mkfifo(config.root / "data/slack/new.jsonl")
    monkeypatch.chdir(config.root / "notes")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("sock.md")
        stats = reindex(config=config, embedder=CountingEmbedder(), full=True)
    finally:
        sock.close()
    assert rows(config, "SELECT count(*) FROM chunks WHERE source_file = ?",
                ("notes/home/garden.md",))[0][0] == 4
    said = messages(stats)
    for rel in ("notes/home/garden.md", "data/slack/new.jsonl", "notes/sock.md"):
        assert "not a regular file" in said[rel], rel
    assert stats.removed_files == 0
    # once a regular file is back it is indexed again
    garden.unlink()
    garden.write_text("# Garden\n\nonly lupins now\n")
    reindex(config=config, embedder=CountingEmbedder())
    assert rows(config, "SELECT count(*) FROM chunks WHERE source_file = ?",
                ("notes/home/garden.md",))[0][0] == 1


def test_a_file_no_route_claims_any_more_is_removed(config, embedder):
    reindex(config=config, embedder=embedder)
    narrowed = config.with_overrides(
        routes=tuple(r for r in config.routes if r[1] != "note"))
    stats = reindex(config=narrowed, embedder=CountingEmbedder())
    assert stats.removed_files == 1 and "notes/home/garden.md" not in indexed_files(config)
