"""A quoted phrase is required as written, in every mode and front door (docs/design.md, "Quoted
phrases"): rows that do not hold it are not shown; when none holds it, the header says so and
the nearest rows are shown. Unquoted queries are unchanged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.config import load_config
from engine.indexer import reindex
from engine.library import Library
from engine.retrieval.filters import Filters, holds_phrases
from tests.conftest import REPO, make_root

NOTES = {
    "notes/pies/pecan.md": "# Pecan pie\n\nThe pecan pie for Thanksgiving: toasted pecans.\n",
    "notes/pies/maple.md": "# Maple pecan pie\n\nA maple pecan pie, less sweet.\n",
    "notes/pies/lemon.md": "# Lemon tart\n\nLemon curd tart; no pie here, only a pecan or two.\n",
    "notes/pies/crust.md": "# Crust\n\nPie crust: butter, flour. Pecan halves on top.\n",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = make_root(tmp_path_factory.mktemp("phrases") / "root")
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    reindex(config=load_config(root))
    return root


@pytest.fixture(scope="module")
def library(root) -> Library:
    with Library(load_config(root)) as library:
        yield library


def files(response) -> list[str]:
    return [r.source_file for r in response if not r.injected]


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "semantic"])
def test_a_quoted_phrase_is_required_as_written(library, mode):
    response = library.search('"pecan pie"', 10, mode=mode)
    assert set(files(response)) == {"notes/pies/pecan.md", "notes/pies/maple.md"}
    assert response.phrases == 'phrases: required as written: "pecan pie"'


@pytest.mark.parametrize("mode", ["hybrid", "keyword", "semantic"])
def test_when_no_row_holds_the_phrase_the_header_says_so_and_shows_the_nearest(library, mode):
    response = library.search('"pie pecan"', 10, mode=mode)
    assert response.phrases == ('phrases: no result holds "pie pecan" as written; shown: the '
                                'nearest without it')
    assert "notes/pies/pecan.md" in files(response)


def test_words_beside_a_phrase_rank_but_are_not_required(library):
    response = library.search('"pecan pie" maple', 10, mode="keyword")
    assert files(response)[0] == "notes/pies/maple.md"
    assert set(files(response)) == {"notes/pies/pecan.md", "notes/pies/maple.md"}


def test_an_unquoted_query_is_unchanged(library):
    response = library.search("pecan pie", 10, mode="keyword")
    assert {"notes/pies/lemon.md", "notes/pies/crust.md"} <= set(files(response))
    assert response.phrases is None


def test_the_sql_and_memory_forms_agree(library):
    filters = Filters.build(phrases=[["pecan", "pie"]])
    conn = library.searcher.connection()
    where, args = filters.sql()
    in_sql = {row[0] for row in conn.execute(
        f"SELECT c.source_file FROM chunks c WHERE {where}", args)}
    rows = conn.execute("SELECT source_file, content FROM chunks").fetchall()
    in_memory = {f for f, text in rows if holds_phrases(text, filters.phrases)}
    assert in_sql == in_memory == {"notes/pies/pecan.md", "notes/pies/maple.md"}


def test_the_cli_and_mcp_headers_say_it(root, tmp_path):
    run = subprocess.run([sys.executable, "-m", "cli", "search", '"pie pecan"', "--mode",
                          "keyword", "--root", str(root)], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert 'no result holds "pie pecan" as written' in " ".join(run.stdout.split())
    run = subprocess.run([sys.executable, "-m", "cli", "search", '"pecan pie"', "--json",
                          "--root", str(root)], cwd=REPO, capture_output=True, text=True,
                         timeout=120)
    answer = json.loads(run.stdout)
    assert answer["phrases"] == 'phrases: required as written: "pecan pie"'
    assert {r["source_file"] for r in answer["results"] if not r["injected"]} == {
        "notes/pies/pecan.md", "notes/pies/maple.md"}
    from tests.mcp.conftest import start

    client = start(root, tmp_path, "phrases")
    try:
        text = client.ok("keyword_search", {"query": '"pecan pie"'})
        assert 'phrases: required as written: "pecan pie"' in text
        assert "lemon.md" not in text and "crust.md" not in text
    finally:
        client.close()
