"""The MCP timeline tool, get_neighborhood's messages and the search tools' person and time
lines, over the SDK's own client (a real server subprocess, as tests/mcp/test_mcp.py)."""

from __future__ import annotations

import json
from datetime import date

import pytest

from engine.config import load_config
from engine.demo import generate_demo_root
from engine.indexer import reindex
from engine.library import Library, unit_of
from tests.mcp.conftest import CONTENT_KEYS, field, split_page, start

pytest.importorskip("mcp")
TODAY = date(2026, 11, 30)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-time") / "root"
    generate_demo_root(root, today=TODAY)
    reindex(config=load_config(root))
    client = start(root, root.parent, "mcp-time")
    yield root, client
    client.close()


def test_the_tools_list_timeline_messages_and_person(demo):
    _, client = demo
    tools = {t.name: t for t in client.tools()}
    timeline = tools["timeline"]
    assert timeline.input_schema["required"] == ["when"]
    assert set(timeline.input_schema["properties"]) == {"when", "source_types", "limit"}
    assert "day: line" in timeline.description and timeline.annotations.read_only_hint
    assert "messages" in tools["get_neighborhood"].input_schema["properties"]
    assert "person" in tools["hybrid_search"].input_schema["properties"]
    assert "time: 2026-03-09..2026-03-15" in tools["keyword_search"].description


def test_timeline_a_day_in_rows_of_the_search_format(demo):
    root, client = demo
    expected = Library(load_config(root)).timeline("2026-11-30")
    text = client.ok("timeline", {"when": "2026-11-30"})
    header, rows, _ = split_page(text)
    assert header[0] == 'time: 2026-11-30..2026-11-30 (from "2026-11-30")'
    assert expected.messages and expected.entries
    assert header[1] == (f"total: {expected.total} ({units(expected.messages, 'message')}, "
                         f"{units(expected.entries, 'entry')}) in 1 day")
    assert header[2] == "counts: " + ", ".join(f"{t} {units(n, unit_of(t))}"
                                               for t, n in expected.counts.items())
    assert header[4].startswith("day: 2026-11-30 (Mon) ")
    items = [it for d in expected.days for g in d.groups for it in g.items]
    assert len(rows) == expected.shown == len(items) and not expected.truncated
    for obj, server in rows:
        assert set(obj) == CONTENT_KEYS and obj["preview_kind"] in ("head", "messages")
        assert field(server, "date") == "2026-11-30" and field(server, "type")
    ids = {json.loads(field(s, "id")) for _, s in rows}
    assert ids == {it.id for it in items}
    # a conversation's day: its messages as the preview, and how many it holds
    chat = next((obj, server) for obj, server in rows if obj["preview_kind"] == "messages")
    item = next(it for it in items if it.id == json.loads(field(chat[1], "id")))
    assert chat[0]["preview"].split("\n")[0] == (
        f"{item.messages[0].time[11:16]} {item.messages[0].sender}: {item.messages[0].text}")
    assert field(chat[1], "messages").split(" ")[0] == str(item.message_count)


def units(n: int, unit: str) -> str:
    return f"{n} {unit if n == 1 else ('entries' if unit == 'entry' else unit + 's')}"


def test_timeline_a_year_folds_its_counts_and_keeps_the_limit(demo):
    root, client = demo
    expected = Library(load_config(root)).timeline("2026", limit=1)
    text = client.ok("timeline", {"when": "2026", "limit": 1})
    header, rows, _ = split_page(text)
    assert len(text) <= 12_000 and "dropped" not in text
    assert len(rows) == 1 and header[3].startswith("shown: 1 rows (the first 1")
    by = next(line for line in header if line.startswith("counts_by: "))
    unit = by.split()[1]
    assert unit in ("week", "month")
    assert next(line for line in header if line.startswith("busiest: "))
    folded = [line for line in header if line.startswith(f"{unit}: ")]
    # the folded lines add up to the header's total
    assert sum(int(line.split(": ")[1].split()[-1]) for line in folded) == expected.total


def test_timeline_phrases_limits_and_refusals(demo):
    _, client = demo
    text = client.ok("timeline", {"when": "2026-11", "source_types": ["garmin"], "limit": 3})
    header, rows, _ = split_page(text)
    assert header[2] == "counts: garmin 30 entries"
    assert header[3].startswith("shown: 3 rows (the first 3")
    assert len(rows) == 3
    on_day = client.ok("timeline", {"when": "on this day", "limit": 5})
    assert on_day.startswith("time: on this day ")
    assert "not a date, range or time phrase" in client.error("timeline", {"when": "march on"})
    assert "unknown source type" in client.error("timeline", {"when": "2026-11",
                                                              "source_types": ["nope"]})
    assert "when must be" in client.error("timeline", {})
    assert "unknown argument" in client.error("timeline", {"when": "2026-11", "x": 1})


def test_neighborhood_messages_around_a_chat_hit(demo):
    root, client = demo
    library = Library(load_config(root))
    window = next(it for d in library.timeline("2026-11-30").days for g in d.groups
                  for it in g.items if g.source_type == "slack" and it.message_count >= 3)
    text = client.ok("get_neighborhood", {"id": window.id, "messages": True, "before": 4,
                                          "after": 4})
    lines = text.split("\n")
    assert lines[0] == f"id: {json.dumps(window.id)}" and lines[1] == "type: slack"
    assert lines[2] == f"path: {json.dumps(window.source_file)}"
    messages = [json.loads(line) for line in lines if line.startswith("{")]
    assert set(messages[0]) == {"role", "position", "sender", "time", "text"}
    hits = [m for m in messages if m["role"] == "hit"]
    assert len(hits) == library.chunk(window.id).metadata["message_count"]
    assert sum(m["role"] == "context" for m in messages) <= 8
    note = next(it for d in library.timeline("2026-11").days for g in d.groups
                for it in g.items if g.source_type == "note")
    assert "not conversations" in client.error("get_neighborhood",
                                               {"id": note.id, "messages": True})
    assert "messages must be true or false" in client.error(
        "get_neighborhood", {"id": window.id, "messages": "yes"})
    # without messages the chunk limit stays 10
    assert "from 0 to 10" in client.error("get_neighborhood", {"id": window.id, "before": 20})


def test_search_person_and_time_lines(demo):
    _, client = demo
    header, rows, _ = split_page(client.ok("hybrid_search", {"query": "dinner",
                                                            "person": "Maya Chen"}))
    assert "person: Maya Chen" in header and rows
    header, _, _ = split_page(client.ok("keyword_search", {"query": "dinner last week"}))
    assert any(h.startswith("time: ") and h.endswith('(from "last week")') for h in header)
    header, _, _ = split_page(client.ok("keyword_search", {"query": "dinner last week",
                                                          "since": "2026-01-01"}))
    # since wins over the phrase, whose words are still no words to search
    assert 'time: "last week" not applied: the dates given win' in header
    for tool in ("hybrid_search", "keyword_search", "semantic_search"):
        header, rows, _ = split_page(client.ok(tool, {"query": "what happened yesterday",
                                                      "limit": 20}))
        assert 'time: 2026-11-29..2026-11-29 (from "yesterday")' in header, header
        # a chat window by its messages of that day, anything else by its date
        days = {(field(s, "messages_in_dates") or "").partition("(")[2][:10] or field(s, "date")
                for _, s in rows}
        assert rows and days == {"2026-11-29"}, days
    assert "person must be" in client.error("hybrid_search", {"query": "x", "person": 3})


def test_a_chat_row_under_dates_carries_the_time_of_its_messages_inside_them(demo):
    root, client = demo
    found = Library(load_config(root)).search("what did I do in March", limit=20)
    spill = next(r for r in found if r.in_range and r.content_date > "2026-03-31")
    _, rows, _ = split_page(client.ok("keyword_search", {"query": "what did I do in March",
                                                          "limit": 20}))
    (obj, server), = [(o, s) for o, s in rows if json.loads(field(s, "id")) == spill.id]
    inside = spill.in_range
    assert field(server, "date") == spill.content_date  # the window's own, into April
    assert field(server, "messages_in_dates") == f"{inside.messages} ({inside.label})"
    # the preview opens at the first of them
    first = spill.content[inside.start:].split("\n", 1)[0]
    assert obj["preview"].startswith(first[:60])
