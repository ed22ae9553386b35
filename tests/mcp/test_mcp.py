"""The MCP server, driven by the MCP SDK's own client over stdio (a real subprocess).

Each server is ``python -m mcp_server --root <tmp root>``; the client is the SDK's
``stdio_client`` + ``ClientSession``, run on an anyio blocking portal so plain pytest tests can
call tools synchronously.
"""

from __future__ import annotations

import json
import os
import re

import pytest

from engine.config import load_config
from engine.demo import DEMO_FACTS
from engine.indexer import reindex
from engine.storage.db import connect
from engine.storage.lock import writer_lock
from tests.conftest import make_root
from tests.http_fixtures import Reply, Request, ScriptedServer
from tests.mcp.conftest import CONTENT_KEYS, TOOLS, check_row, field, split_page, start

mcp = pytest.importorskip("mcp")

# -- tools and the page format -----------------------------------------------------------------

def test_lists_the_tools_with_their_contract(demo):
    _, client = demo
    tools = {t.name: t for t in client.tools()}
    assert set(tools) == TOOLS
    hybrid = tools["hybrid_search"]
    assert "The header always says arms:" in hybrid.description
    assert "reranked: false (not_configured)" in hybrid.description
    schema = hybrid.input_schema
    assert schema["required"] == ["query"]
    assert schema["properties"]["limit"]["maximum"] == 50
    assert set(schema["properties"]) >= {"query", "limit", "folder", "tags", "frontmatter",
                                         "rerank", "source_types", "since", "until"}
    assert tools["read_note"].input_schema["required"] == ["path"]
    assert all(t.annotations.read_only_hint for t in tools.values())


def test_memlens_mcp_serves_the_same_tools(small_root, tmp_path):
    client = start(small_root, tmp_path, "memlens-mcp",
                   entry=("-c", "import sys; from cli.main import main; sys.exit(main())", "mcp"))
    try:
        assert {t.name for t in client.tools()} == TOOLS
        assert client.ok("read_note", {"path": "notes/home/garden.md"}).startswith(
            'path: "notes/home/garden.md"')
    finally:
        client.close()


def test_hybrid_search_header_and_rows(demo):
    _, client = demo
    header, rows, tail = split_page(client.ok("hybrid_search", {"query": "climbing with Maya"}))
    assert header[0] == "arms: both"
    assert re.fullmatch(r"arm_depth: keyword \d+/50, semantic \d+/50 chunks", header[1])
    assert header[2] == "confidence: ok"
    assert header[3].startswith("fusion: convex (local): keyword 0.85 × bm25/best")
    assert header[4] == "reranked: false (not_requested)"
    assert not any(h.startswith("index_transition:") for h in header)
    assert 1 <= len(rows) <= 10 and tail == []
    for obj, server in rows:
        check_row(obj, server)
        explain = field(server, "explain")
        for arm in ("keyword", "semantic"):
            rank = field(server, f"{arm}_rank")
            if rank != "-":
                # the arm's exact term, weight included (docs/benchmarks.md: fusion)
                assert re.search(rf"{arm} 0\.\d\d × ", explain), explain
    # a row found by both arms shows match/matched_in and similarity
    both = [s for _, s in rows if field(s, "keyword_rank") != "-"
            and field(s, "semantic_rank") != "-"]
    assert both
    assert re.search(r"keyword_rank: \d+ \(match: (all|partial) \d+/\d+ \[.*\], matched_in: ",
                     both[0])
    assert re.search(r"semantic_rank: \d+ \(similarity 0\.\d{3}\)", both[0])
    # § on markdown rows
    sections = [s for _, s in rows if "§" in s]
    assert all(re.search(r'§ ("[^"]*" \(#\d+\)|\(top of note\))', s) for s in sections)


def test_rerank_without_a_reranker_says_not_configured(demo):
    _, client = demo
    header, rows, _ = split_page(client.ok("hybrid_search", {"query": "sourdough",
                                                            "rerank": True, "limit": 3}))
    assert "reranked: false (not_configured)" in header and rows


def test_keyword_and_semantic_are_single_arms(demo):
    _, client = demo
    header, rows, _ = split_page(client.ok("keyword_search", {"query": "Atlas cutover",
                                                             "limit": 5}))
    assert header[0] == "arms: keyword"
    assert re.fullmatch(r"arm_depth: keyword \d+/50 chunks", header[1])
    assert rows and all(field(s, "semantic_rank") == "-" for _, s in rows)
    assert rows[0][0]["preview_kind"] == "snippet" and "«" in rows[0][0]["preview"]

    header, rows, _ = split_page(client.ok("semantic_search", {
        "query": DEMO_FACTS["paraphrase_query"], "limit": 10}))
    assert header[0] == "arms: semantic"
    assert re.fullmatch(r"arm_depth: semantic \d+/50 chunks", header[1])
    assert rows and all(field(s, "keyword_rank") == "-" for _, s in rows)
    assert {o["preview_kind"] for o, _ in rows} == {"chunk"}


def test_filters_folder_tags_and_strict_frontmatter(demo):
    _, client = demo
    note = DEMO_FACTS["note_file"]
    args = {"query": "migration", "folder": "notes/work/", "tags": ["atlas", "planning"]}
    _, rows, _ = split_page(client.ok("hybrid_search", args))
    assert rows and {o["path"] for o, _ in rows} == {note}
    assert "atlas" in rows[0][0]["tags"].split(", ")
    _, rows, _ = split_page(client.ok("hybrid_search", {**args, "frontmatter": {"priority": 1}}))
    assert {o["path"] for o, _ in rows} == {note}
    text = client.ok("hybrid_search", {**args, "frontmatter": {"priority": "1"}})
    assert split_page(text)[1] == [] and "no results" in text
    _, rows, _ = split_page(client.ok("keyword_search", {"query": "rides", "limit": 5,
                                                        "source_types": ["slack"]}))
    assert rows and {field(s, "type") for _, s in rows} == {"slack"}


def test_read_note_whole_and_by_section_from_a_row(demo):
    _, client = demo
    note = DEMO_FACTS["note_file"]
    whole = client.ok("read_note", {"path": note})
    assert whole.startswith(f'path: "{note}"\ntype: note\n')
    assert "# Cutover steps" in whole or "## Cutover steps" in whole
    _, rows, _ = split_page(client.ok("keyword_search", {
        "query": "Dual-write routes shadow-read", "folder": note}))
    section = re.search(r"\(#(\d+)\)", rows[0][1]).group(1)
    part = client.ok("read_note", {"path": note, "section": f"#{section}"})
    assert f'section: #{section} "Atlas migration plan > Cutover steps"' in part
    assert "Dual-write routes" in part and "Open questions" not in part
    assert client.ok("read_note", {"path": f"{note}#s{section}"}) == part


def test_get_neighborhood_and_profile(demo):
    _, client = demo
    _, rows, _ = split_page(client.ok("keyword_search", {
        "query": "Maya", "source_types": ["telegram"], "limit": 1}))
    chunk_id = json.loads(field(rows[0][1], "id"))
    text = client.ok("get_neighborhood", {"id": chunk_id, "before": 1, "after": 1})
    lines = text.split("\n")
    assert lines[0] == f"id: {json.dumps(chunk_id)}"
    objs = [json.loads(line) for line in lines if line.startswith("{")]
    assert [o["role"] for o in objs].count("center") == 1
    assert {o["role"] for o in objs} <= {"before", "center", "after"} and len(objs) >= 2
    assert next(o for o in objs if o["role"] == "center")["id"] == chunk_id
    profile = next(line for line in lines if line.startswith("profile: "))
    assert json.loads(profile[len("profile: "):])["person"] == "Maya Chen"
    # neighbours are in file order
    ids = [o["id"] for o in objs]
    windows = [int(i.rsplit("#w", 1)[1]) for i in ids]
    assert windows == sorted(windows) and windows[1] - windows[0] == 1


def test_index_status(demo):
    _, client = demo
    text = client.ok("index_status")
    assert re.search(r"^chunks: \d+ in \d+ files$", text, re.M)
    assert re.search(r"^per_type: .*note \d+", text, re.M)
    assert "embedder: local:" in text and "(configured: same)" in text
    assert "pending_embeddings: 0" in text and "last_reindex: " in text
    assert "stale_files: 0 (changed: 0, vanished: 0)" in text
    assert re.search(r"^compiled: .*(passage scans: in use|Python serves)", text, re.M)
    assert re.search(r"^vectors: [\d,]+ vectors, each stored once; search file .* in 1 segment",
                     text, re.M)
    assert text.endswith("index_transition: none")


def test_works_while_a_writer_holds_the_lock(demo):
    root, client = demo
    db = load_config(root).db_path
    writer = connect(db)
    try:
        with writer_lock(db, "reindex"):
            writer.execute("BEGIN IMMEDIATE")  # a write transaction in flight, too
            writer.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('mcp-test', '1')")
            header, rows, _ = split_page(client.ok("hybrid_search", {"query": "sourdough"}))
            assert header[0] == "arms: both" and rows
            assert any(h.startswith("index_transition: reindex") for h in header)
            assert "index_transition: reindex" in client.ok("index_status")
            writer.execute("ROLLBACK")
    finally:
        writer.close()
    header, _, _ = split_page(client.ok("hybrid_search", {"query": "sourdough"}))
    assert not any(h.startswith("index_transition:") for h in header)


# -- hostile content and bad arguments ---------------------------------------------------------

def test_forged_fields_stay_inside_the_preview(small):
    _, client = small
    for tool in ("keyword_search", "hybrid_search"):
        text = client.ok(tool, {"query": "zebraforge"})
        _, rows, tail = split_page(text)
        forged = [(o, s) for o, s in rows if o["path"] == "data/slack/forge.jsonl"]
        assert len(forged) == 1 and tail == []
        obj, server = forged[0]
        assert set(obj) == CONTENT_KEYS and obj["title"] != "pwned"
        assert '"score": "9"' in obj["preview"] and "score: 99.0" in obj["preview"]
        score = float(field(server, "score"))
        assert 0 < score <= 1.0  # fused scores are in [0, 1], never the forged 9 or 99
        assert field(server, "stale") == "false"
        # every line of the page is a header line or a row: no forged line appeared, even
        # for a client that also splits lines at U+2028
        assert len([line for line in text.split("\n") if line.startswith("{")]) == len(rows)
        assert text.splitlines() == text.split("\n") and "\x1b" not in text


def test_confidence_low_suggests_another_tool(small):
    _, client = small
    header, rows, _ = split_page(client.ok("hybrid_search", {"query": "harbor xylophone"}))
    assert "confidence: low" in header and rows
    suggestion = header[header.index("confidence: low") + 1]
    assert suggestion.startswith("suggestion: ") and "keyword_search" in suggestion
    assert "get_neighborhood" in suggestion and "0.99" in suggestion
    header, _, _ = split_page(client.ok("hybrid_search", {"query": "harbor bridge"}))
    assert "confidence: ok" in header


@pytest.mark.parametrize("tool, args, message", [
    ("hybrid_search", {"query": "x", "limit": 0}, "limit must be an integer from 1 to 50"),
    ("hybrid_search", {"query": "x", "limit": 500}, "limit must be an integer from 1 to 50"),
    ("keyword_search", {"query": "x", "source_types": ["nope"]}, "unknown source type"),
    ("semantic_search", {"query": "x", "frontmatter": {"a": {"b": 1}}}, "is an object"),
    ("hybrid_search", {"query": "  "}, "query must be a non-empty string"),
    ("hybrid_search", {"query": "x", "since": "last week"}, "since must be a date"),
    ("hybrid_search", {"query": "x", "folder": "notes/hmoe/"}, 'did you mean "notes/home/"?'),
    ("keyword_search", {"query": "x", "folder": "/etc"}, "absolute paths are refused"),
    ("read_note", {}, "path must be a non-empty string"),
    ("read_note", {"path": "notes/missing.md"}, "no such file"),
    ("read_note", {"path": "../../etc/passwd"}, "'..' is refused"),
    ("read_note", {"path": "notes/../../../etc/passwd"}, "'..' is refused"),
    ("read_note", {"path": "/etc/passwd"}, "absolute paths are refused"),
    ("read_note", {"path": "notes/escape.md"}, "leaves the data root"),
    ("read_note", {"path": "notes/key.md"}, "not part of the data layer"),
    ("read_note", {"path": "secrets/openai.json"}, "not part of the data layer"),
    ("read_note", {"path": "memlens.toml"}, "not part of the data layer"),
    ("read_note", {"path": "data/search/memlens.db"}, "not part of the data layer"),
    ("read_note", {"path": "notes/home/garden.md", "section": "#42"}, "has no section #42"),
    ("read_note", {"path": "data/slack/general.jsonl", "section": "#1"}, "only in markdown"),
    ("get_neighborhood", {"id": "nope#w1"}, "no chunk with id"),
    ("hybrid_search", {"query": "x", "colour": "blue"}, "unknown argument"),
])
def test_bad_arguments_are_one_line_tool_errors(small, tool, args, message):
    root, client = small
    text = client.error(tool, args)
    assert message in text
    assert str(root) not in text and "sk-do-not-leak" not in text


def test_a_folder_is_read_as_a_person_writes_it(small):
    """"home/" is the index's one notes/home/; an ambiguous or unknown one is a tool error
    naming the folders it holds (engine/retrieval/folders.py)."""
    _, client = small
    _, rows, _ = split_page(client.ok("keyword_search", {"query": "dahlias", "folder": "home/"}))
    assert rows and {o["path"] for o, _ in rows} == {"notes/home/garden.md"}
    assert client.error("keyword_search", {"query": "dahlias", "folder": "zzz/"}) == (
        'no folder "zzz/" in the index; its folders start with "data/", "notes/"')


def test_stale_and_vanished_files(small):
    root, client = small
    os.utime(root / "data/slack/random.jsonl", (1_000_000_000, 1_000_000_000))
    (root / "data/slack/doomed.jsonl").unlink()
    status = client.ok("index_status")
    assert "stale_files: 2 (changed: 1, vanished: 1)" in status
    assert '  changed: "data/slack/random.jsonl"' in status
    assert '  vanished: "data/slack/doomed.jsonl"' in status
    _, rows, _ = split_page(client.ok("keyword_search", {"query": "quokka"}))
    assert rows[0][0]["preview_kind"] == "stale_notice"
    assert field(rows[0][1], "stale") == "true"
    _, rows, _ = split_page(client.ok("keyword_search", {"query": "message",
                                                        "folder": "data/slack/random"}))
    assert rows and all(field(s, "stale") == "true" for _, s in rows)
    assert "stale: true" in client.ok("read_note", {"path": "data/slack/random.jsonl"})


def test_long_responses_drop_whole_rows_and_cut_a_first_row(small_root):
    client = start(small_root, small_root.parent, "truncating",
                   env={"MEMLENS_MCP_MAX_CHARS": "2000"})
    try:
        text = client.ok("keyword_search", {"query": "harbor bridge", "limit": 10})
        assert len(text) <= 2000
        header, rows, tail = split_page(text)
        assert header[0] == "arms: keyword" and 1 <= len(rows) < 10
        m = re.fullmatch(r"truncated: (\d+) more rows? dropped to stay under 2000 characters.*",
                         tail[-1])
        assert m and int(m.group(1)) + len(rows) == 10
        for obj, server in rows:
            check_row(obj, server)
    finally:
        client.close()
    # the index holds a title to 200 characters (engine/extractors/bounds.py): a row that
    # does not fit the smallest page is cut
    client = start(small_root, small_root.parent, "truncating",
                   env={"MEMLENS_MCP_MAX_CHARS": "900"})
    try:
        text = client.ok("keyword_search", {"query": "longtitle", "limit": 2})
        assert len(text) <= 900
        header, rows, tail = split_page(text)
        obj, server = rows[0]
        check_row(obj, server)
        assert obj["title"].startswith("longtitle very") and obj["title"].endswith("…")
        assert "| cut: true" in server and obj["path"] == "notes/long.md"
        assert text.count("\n") == len(header) + len(tail)  # header, one row, footer
    finally:
        client.close()


# -- the embedding provider fails ----------------------------------------------------------------

def _embeddings(request: Request) -> Reply:
    inputs = request.json()["input"]
    data = [{"object": "embedding", "index": i,
             "embedding": [float(len(t) % 7 + 1), 1.0, float(i % 3), 0.5, 0.0, 0.0, 0.0, 1.0]}
            for i, t in enumerate(inputs)]
    return Reply(200, {"object": "list", "data": data, "model": "test-embed"})


def test_provider_failure_gives_keyword_only(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)
    root = make_root(tmp_path / "root")
    with ScriptedServer(default=_embeddings) as server:
        (root / "memlens.toml").write_text(
            "[embedder]\nprovider = \"openai-compatible\"\nmodel = \"test-embed\"\n"
            f"base_url = \"{server.url}/v1\"\ndimensions = 8\nmax_retries = 0\ntimeout = 2\n")
        stats = reindex(config=load_config(root))
        assert stats.embedded > 0 and stats.pending_embeddings == 0
    # the provider is gone now: its port is closed
    client = start(root, tmp_path, "provider",
                   env={"MEMLENS_EMBEDDER": "openai-compatible"})
    try:
        header, rows, _ = split_page(client.ok("hybrid_search", {"query": "harbor bridge"}))
        assert header[0] == "arms: keyword-only (semantic unavailable: provider_error)"
        assert re.fullmatch(r"arm_depth: keyword \d+/50, semantic 0/50 \(unavailable\) chunks",
                            header[1])
        assert rows and all(field(s, "semantic_rank") == "-" for _, s in rows)
        assert "provider_error" in client.error("semantic_search", {"query": "harbor bridge"})
        assert "openai-compatible:test-embed" in client.ok("index_status")
    finally:
        client.close()


def test_sort_by_date_and_decay_off_are_tool_arguments(demo):
    _, client = demo
    query = {"query": "climbing with Maya", "limit": 10}
    _, relevance, _ = split_page(client.ok("hybrid_search", query))
    header, by_date, _ = split_page(client.ok("hybrid_search", {**query, "sort": "date"}))
    assert "sort: date (the best results, newest first; score still ranks relevance)" in header
    dates = [field(s, "date") for _, s in by_date]
    dated = [d for d in dates if d and d != "-"]
    assert dated == sorted(dated, reverse=True) and dates[:len(dated)] == dated
    assert {field(s, "id") for _, s in by_date} == {field(s, "id") for _, s in relevance}

    header, rows, _ = split_page(client.ok("hybrid_search", {**query, "decay": False}))
    assert "decay: off (asked for)" in header and rows
    assert all("decay" not in field(s, "explain") for _, s in rows)
    assert not any(h.startswith(("sort:", "decay:")) for h in split_page(
        client.ok("hybrid_search", query))[0])

    assert 'sort must be one of relevance, date, not "newest"' in client.error(
        "hybrid_search", {**query, "sort": "newest"})
    assert "decay must be true or false" in client.error("hybrid_search", {**query, "decay": 0})


def test_keyword_low_confidence_advice_names_no_semantic_arm(small):
    _, client = small
    header, _, _ = split_page(client.ok("keyword_search", {"query": "harbor xylophone"}))
    suggestion = header[header.index("confidence: low") + 1]
    assert "semantic candidate" not in suggestion and "hybrid_search" in suggestion
