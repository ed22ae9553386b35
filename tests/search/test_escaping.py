"""Everything the CLI and MCP print from data goes through one escaping rule (engine/textsafe).

A file name like ``notes/\\x1b]0;PWNED\\x07\\x1b[2Jx.md`` would retitle and clear the terminal
if printed raw; C1 controls (U+009B is a one-byte CSI) must not pass through JSON either.
"""

from __future__ import annotations

import json
import re

import pytest

from engine.config import load_config
from engine.display import json_dumps, one_line, plain
from mcp_server import text as fmt
from mcp_server.page import format_search
from tests.conftest import make_root
from tests.conftest import run_cli as run

EVIL = "\x1b]0;PWNED\x07\x1b[2Jx"
C1 = "\x9b31m"
# raw C0 (but newline), DEL and C1: none may reach a terminal
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")


@pytest.fixture
def evil_root(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_ROOT", raising=False)
    root = make_root(tmp_path / "root")
    # invalid UTF-8 so reindex prints a warning naming the file
    (root / f"notes/{EVIL}.md").write_bytes(
        f"# Zanzibar {C1}heading\n\nzanzibar body {C1} text \xff\n".encode("utf-8", "replace")
        + b"\xff\xfe")
    (root / f"notes/{EVIL}2.md").write_text(f"# Zanzibar two\n\nzanzibar again {C1}\n")
    return root




def assert_clean(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text).group())


def test_the_rule():
    assert plain("a\x1b[31mb\x07\r\nc\u202e\x9b") == "a␛[31mb␇\nc\ufffd\ufffd"
    assert one_line(f"notes/{EVIL}.md") == "notes/␛]0;PWNED␇␛[2Jx.md"
    text = json_dumps({"p": f"{EVIL}{C1}\x7f\u2028é"})
    assert_clean(text)
    assert "é" in text and "\\u009b" in text and json.loads(text)["p"] == f"{EVIL}{C1}\x7f\u2028é"
    assert fmt.jstr(f"{EVIL}{C1}") == json_dumps(f"{EVIL}{C1}")
    assert "\x9b" not in fmt.one_line(f"boom {C1}")


def test_cli_output_from_data_is_escaped(evil_root, capsys):
    root = str(evil_root)
    code, out, err = run(capsys, "discover", "--root", root, "--pending")
    assert code == 0 and "␛]0;PWNED␇␛[2Jx.md" in out
    assert_clean(out + err)

    code, out, err = run(capsys, "reindex", "--root", root)
    assert code == 0 and "␛]0;PWNED␇" in err  # the UTF-8 warning names the file
    assert_clean(out + err)

    code, out, err = run(capsys, "search", "zanzibar", "--root", root, "--mode", "keyword")
    assert code == 0 and "notes/␛]0;PWNED␇␛[2Jx" in out
    assert_clean(out + err)

    code, out, err = run(capsys, "search", "zanzibar", "--root", root, "--json")
    assert code == 0
    assert_clean(out + err)
    files = {r["source_file"] for r in json.loads(out)["results"]}
    assert f"notes/{EVIL}.md" in files  # JSON escapes keep the exact name

    for argv in (["stats"], ["stats", "--json"], ["reindex", "--json", "--full"]):
        code, out, err = run(capsys, *argv, "--root", root)
        assert code == 0
        assert_clean(out + err)


def test_import_report_is_escaped(evil_root, tmp_path, capsys):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / ".obsidian").mkdir()
    (vault / f"{EVIL}.md").write_text(f"# Vault note\n\nbody {C1}\n")
    for extra in ([], ["--json"]):
        code, out, err = run(capsys, "import", "obsidian", str(vault), "--root",
                             str(evil_root), "--dry-run", *extra)
        assert code == 0 and "PWNED" in out
        assert_clean(out + err)


def test_mcp_page_escapes_c1_in_rows(evil_root):
    from engine.indexer import reindex
    from engine.retrieval.fts_query import parse_query
    from engine.searcher import Searcher

    config = load_config(evil_root)
    reindex(config=config)
    searcher = Searcher(config)
    try:
        response = searcher.search("zanzibar", mode="keyword")
    finally:
        searcher.close()
    page = format_search(response, parse_query("zanzibar"), 12_000)
    assert "PWNED" in page
    assert_clean(page)


def test_a_name_that_is_not_utf8_prints_its_bytes_and_survives_json():
    from engine.display import json_dumps, plain

    name = b"notes/caf\xe9.md".decode("utf-8", "surrogateescape")
    assert plain(name) == "notes/caf\\xe9.md"
    plain(name).encode("utf-8")  # printable: no lone surrogate left
    dumped = json_dumps({"path": name})
    dumped.encode("utf-8")
    assert json.loads(dumped)["path"] == name
