"""Text that is not UTF-8: read in a declared fallback (cp1252, else Latin-1), said once per
file, and found by its accented and unaccented words (engine/extractors/reading.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine import reindex
from engine.config import load_config
from engine.extractors import Problems, get_extractor
from engine.extractors.reading import decode_text, iter_lines
from engine.searcher import Searcher
from tests.conftest import CountingEmbedder, make_root

# long enough that its accents are under 10% of its bytes: read as UTF-8 before, it was indexed
# as "Cr\ufffdme br\ufffdl\ufffde" (a shorter one was skipped as binary data)
DESSERT = ("# Crème brûlée\n\nGrand-mère’s recipe – café crème on the side, 5 € a cup.\n\n"
           "Whisk the yolks with the sugar until pale, warm the cream with a vanilla pod, pour "
           "slowly, bake in a water bath until just set, chill overnight, then torch the sugar.\n")
SEPTEMBER = ('{"id": "j1", "date": "2026-09-12", '
             '"text": "Déjeuner à Genève, the façade of the Hôtel"}\n')
NOTE_REL = "notes/dessert.md"
JOURNAL_REL = "data/journal/2026.jsonl"


def extract(source_type: str, root: Path, rel: str):
    problems = Problems()
    return list(get_extractor(source_type).extract(root / rel, rel, problems)), problems


@pytest.fixture
def legacy_root(tmp_path) -> Path:
    root = make_root(tmp_path / "root")
    (root / NOTE_REL).write_bytes(DESSERT.encode("cp1252"))
    (root / "data/journal").mkdir(parents=True)
    (root / JOURNAL_REL).write_bytes(SEPTEMBER.encode("latin-1"))
    return root


@pytest.fixture
def indexed(legacy_root):
    config = load_config(legacy_root)
    stats = reindex(config=config, embedder=CountingEmbedder())
    searcher = Searcher(config)
    yield stats, searcher
    searcher.close()


# -- decoding ---------------------------------------------------------------------------------


@pytest.mark.parametrize("data, text, how", [
    ("Crème brûlée".encode(), "Crème brûlée", None),  # UTF-8: unchanged, nothing said
    ("\ufeffcafé".encode(), "café", None),  # its BOM dropped as before
    ("Crème “brûlée” €".encode("cp1252"), "Crème “brûlée” €", "not UTF-8; read as cp1252"),
    # 0x81 is undefined in cp1252: Latin-1, which decodes every byte
    (b"caf\xe9 \x81", "café \x81", "not UTF-8; read as Latin-1"),
    # UTF-8 with one stray byte stays UTF-8: its accents are kept, the byte replaced
    ("Crème brûlée".encode() + b" \xff", "Crème brûlée \ufffd",
     "invalid UTF-8; undecodable bytes were replaced with U+FFFD"),
    # a BOM declares UTF-8 whatever follows
    (b"\xef\xbb\xbfcaf\xe9", "caf\ufffd",
     "invalid UTF-8; undecodable bytes were replaced with U+FFFD"),
])
def test_decode_text_picks_one_encoding_for_the_whole_text(data, text, how):
    assert decode_text(data) == (text, how)


def test_dense_cp1252_text_is_not_taken_for_binary_data(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes/menu.md").write_bytes("Crème brûlée à été".encode("cp1252"))  # 28% accents
    (chunk,), problems = extract("note", tmp_path, "notes/menu.md")
    assert chunk.content.endswith("\n\nCrème brûlée à été")
    assert problems == ["not UTF-8; read as cp1252"]


# -- a note --------------------------------------------------------------------------------


def test_a_cp1252_note_keeps_its_accents_and_says_so_once(legacy_root):
    chunks, problems = extract("note", legacy_root, NOTE_REL)
    assert chunks and all("\ufffd" not in c.content for c in chunks)
    assert "Grand-mère’s recipe – café crème on the side, 5 € a cup." in chunks[-1].content
    assert chunks[0].metadata["section_path"] == ["Crème brûlée"]
    assert problems == ["not UTF-8; read as cp1252"]


def test_a_utf8_note_is_read_as_before(legacy_root):
    (legacy_root / NOTE_REL).write_text(DESSERT, encoding="utf-8")
    chunks, problems = extract("note", legacy_root, NOTE_REL)
    assert problems == [] and "Grand-mère’s recipe – café" in chunks[-1].content


# -- JSONL records, line by line -------------------------------------------------------------


def test_a_latin1_jsonl_record_is_read_line_by_line(legacy_root):
    path = legacy_root / JOURNAL_REL
    path.write_bytes(
        b'{"id": "j0", "date": "2026-09-11", "text": "plain ascii"}\n'
        + SEPTEMBER.encode("latin-1")
        + '{"id": "j2", "date": "2026-09-13", "text": "UTF-8 line: Zürich"}\n'.encode()
        + '{"id": "j3", "date": "2026-09-14", "text": "Lyon, gâteau"}\n'.encode("latin-1"))
    chunks, problems = extract("journal", legacy_root, JOURNAL_REL)
    assert [c.content.split("Déjeuner")[-1] for c in chunks if "Déjeuner" in c.content] == [
        " à Genève, the façade of the Hôtel"]
    assert any("UTF-8 line: Zürich" in c.content for c in chunks)
    assert any("Lyon, gâteau" in c.content for c in chunks)
    assert all("\ufffd" not in c.content for c in chunks)
    assert problems == ["line 2: not UTF-8; read as cp1252 (first at this line)"]


def test_a_resumed_line_is_decoded_the_same_way(tmp_path):
    path = tmp_path / "log.jsonl"
    first = b'{"a": 1}\n'
    path.write_bytes(first + "caf\xe9\n".encode("latin-1"))
    problems = Problems()
    assert list(iter_lines(path, problems, offset=len(first), first_line=2)) == [
        (2, len(first), "café")]
    assert problems == ["line 2: not UTF-8; read as cp1252 (first at this line)"]


# -- indexed and searched -------------------------------------------------------------------


def test_reindex_reports_the_fallback_once_per_file(indexed):
    stats, _ = indexed
    said = sorted((w.source_file, w.message) for w in stats.warnings)
    assert said == [(JOURNAL_REL, "line 1: not UTF-8; read as cp1252 (first at this line)"),
                    (NOTE_REL, "not UTF-8; read as cp1252")]


def test_stats_lists_a_decoded_file_as_read_with_a_warning_not_as_not_read(legacy_root,
                                                                            capsys):
    from tests.conftest import run_cli

    run_cli(capsys, "reindex", "--root", str(legacy_root))
    code, out, _ = run_cli(capsys, "stats", "--root", str(legacy_root))
    assert f"read with a warning: {NOTE_REL}: not UTF-8; read as cp1252" in out, out
    assert "not read:" not in out
    code, out, _ = run_cli(capsys, "stats", "--root", str(legacy_root), "--json")
    st = json.loads(out)
    assert st["not_read"] == [] and {w["source_file"] for w in st["read_with_warnings"]} == {
        NOTE_REL, JOURNAL_REL}


@pytest.mark.parametrize("query", ["café", "cafe", "creme", "crème", "brûlée", "brulee",
                                   "grand-mère"])
def test_the_note_is_found_by_accented_and_unaccented_words(indexed, query):
    _, searcher = indexed
    hits = searcher.search(query, mode="keyword")
    assert NOTE_REL in {r.source_file for r in hits}, query
    assert all("\ufffd" not in r.content for r in hits)


@pytest.mark.parametrize("query", ["genève", "geneve", "facade", "hôtel"])
def test_the_latin1_record_is_found_by_its_words(indexed, query):
    _, searcher = indexed
    assert JOURNAL_REL in {r.source_file for r in searcher.search(query, mode="keyword")}


@pytest.mark.parametrize("query", ["m", "re", "caf", "cr"])
def test_a_short_query_does_not_match_a_broken_word(indexed, query):
    # read as UTF-8 with U+FFFD, "Grand-m\ufffdre" was the words "grand", "m", "re"
    _, searcher = indexed
    for mode in ("keyword", "hybrid"):
        assert NOTE_REL not in {r.source_file for r in searcher.search(query, mode=mode)}


def test_an_imported_cp1252_vault_note_keeps_its_accents(tmp_path):
    from engine.importers import run_import

    vault = tmp_path / "Vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Desserts.md").write_bytes("# Desserts\n\nCrème brûlée at the café, 5 €.\n"
                                        .encode("cp1252"))
    root = tmp_path / "root"
    root.mkdir()
    report = run_import("obsidian", vault, root, local_tz="UTC")
    (written,) = [f for f in report.files_written if f.endswith("Desserts.md")]
    text = (root / written).read_text(encoding="utf-8")
    assert "Crème brûlée at the café, 5 €." in text and "\ufffd" not in text
    assert [m for _, _, m in report.problems] == ["not UTF-8; read as cp1252"]
