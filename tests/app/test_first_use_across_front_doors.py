"""What a new user hit in the app and the CLI: each found by hand, each pinned here (the app
through Pilot, the CLI as a subprocess, the MCP server through the SDK's client)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.app.conftest import aio, make_app, notes_text, ready, wait_for

REPO = Path(__file__).resolve().parents[1]


def memlens(*argv: str, root: Path | None = None) -> subprocess.CompletedProcess:
    """``memlens ARGV`` as a user runs it: a process of its own."""
    extra = ["--root", str(root)] if root is not None else []
    return subprocess.run([sys.executable, "-m", "cli", *argv, *extra], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


# -- a no-op reindex says one count of unchanged chunks --------------------------------------

def test_a_noop_reindex_says_the_same_unchanged_count_as_text_and_json(writable_root):
    plain = memlens("reindex", root=writable_root)
    as_json = memlens("reindex", "--json", root=writable_root)
    assert plain.returncode == 0 and as_json.returncode == 0, plain.stderr + as_json.stderr
    said = int(re.search(r"([\d,]+) unchanged, 0 deleted", plain.stdout)[1].replace(",", ""))
    stats = json.loads(as_json.stdout)
    stored = json.loads(memlens("stats", "--json", root=writable_root).stdout)["chunks"]
    assert said == stats["unchanged_chunks"] == stored > 0 and stats["chunks"] == 0


@aio
async def test_a_noop_reindex_in_the_app_says_every_chunk_unchanged(writable_root):
    stored = json.loads(memlens("stats", "--json", root=writable_root).stdout)["chunks"]
    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: "Reindex finished" in notes_text(app), what="the run")
        assert f"{stored:,} unchanged" in notes_text(app)


# -- one name per source type: its label, its id or a prefix; shown by its label -------------

def test_a_source_type_is_its_id_its_label_or_a_prefix_and_nothing_else(demo_root):
    bogus = memlens("timeline", "2026", "--source", "bogus", root=demo_root)
    assert bogus.returncode == 2 and bogus.stdout == "", bogus.stdout
    assert bogus.stderr.count("\n") == 1 and "unknown source type 'bogus'" in bogus.stderr
    typo = memlens("search", "dinner", "--source", "emial", root=demo_root)
    assert typo.returncode == 2 and "did you mean email (email_catalog)?" in typo.stderr
    vague = memlens("search", "dinner", "--source", "s", root=demo_root)
    assert vague.returncode == 2 and "could be" in vague.stderr and "Slack (slack)" in vague.stderr
    for typed, meant in (("email", "email_catalog"), ("board", "board_summary"),
                         ("Entity", "entity_file"), ("email_catalog", "email_catalog")):
        got = memlens("timeline", "2026", "--source", typed, "--json", root=demo_root)
        assert got.returncode == 0 and list(json.loads(got.stdout)["counts"]) == [meant], typed
    found = memlens("search", "climbing co-op", "--source", "board", "--json", root=demo_root)
    assert {r["source_type"] for r in json.loads(found.stdout)["results"]} == {"board_summary"}
    head = memlens("timeline", "2026", "--source", "entity", root=demo_root).stdout
    assert " · entity " in head.splitlines()[0] and "entity_file" not in head


@aio
async def test_the_timelines_source_key_names_the_type_by_its_label(demo_root):
    from engine.display import type_label
    from tests.app.conftest import timeline_loaded
    from tui.widgets.calendar import ActivityCalendar

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("escape", "f5")
        tl = await timeline_loaded(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: tl.loaded and tl.types, what="one source")
        (shown,) = tl.types
        assert type_label(shown) != shown  # a type whose label is not its id
        assert tl.query_one(ActivityCalendar).title == type_label(shown)
        title = str(tl.query_one("#tl-title").render())
        assert f"{type_label(shown)} " in title and f"{shown} " not in title


# -- one rule for importing into the demo root (the app: tests/app/test_app_fit.py) -----------------

CHAT = "12/03/2026, 18:02 - Maya Chen: Dinner Sunday at 6?\n"


def test_the_cli_never_imports_into_the_demo_root(writable_root, tmp_path):
    export = tmp_path / "WhatsApp Chat with Maya Chen.txt"
    export.write_text(CHAT)
    before = sorted(p.relative_to(writable_root) for p in writable_root.rglob("*"))
    refused = memlens("import", "whatsapp", str(export), root=writable_root)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "is the demo root, generated and not imported into" in refused.stderr
    assert sorted(p.relative_to(writable_root) for p in writable_root.rglob("*")) == before


# -- the preview follows the results ---------------------------------------------------------

@aio
async def test_unchecking_every_source_type_empties_the_preview_too(demo_root):
    from tests.app.conftest import search
    from tui.widgets.facets import FacetList

    app = make_app(demo_root)
    async with app.run_test(size=(160, 45)) as pilot:
        await ready(pilot)
        await search(pilot, "climbing")
        await wait_for(pilot, lambda: app.main.preview.chunk is not None, what="a preview")
        assert app.main.preview.border_subtitle.startswith("result 1 of")
        app.main.query_one(FacetList).focus()
        await pilot.press("n")  # none checked
        await wait_for(pilot, lambda: app.main.idle and not app.main.results.option_count,
                       what="no results")
        await pilot.pause()
        assert app.main.preview.chunk is None and app.main.preview.border_subtitle == ""
        assert "No source type is checked" in str(app.main.query_one("#empty").render())


# -- enter typed with the query is not lost ----------------------------------------------------

async def query_box(pilot):
    """The app ready, its query box focused."""
    from tui.widgets.query import QueryInput

    await ready(pilot)
    query = pilot.app.main.query_one(QueryInput)
    query.focus()
    await pilot.pause()
    return query


@aio
async def test_keys_typed_after_enter_wait_for_the_answer(demo_root):
    from engine.config import load_config
    from engine.searcher import Searcher
    from tests.app.conftest import SharedEmbedder, SpySearcher
    from tui.screens.conversation import ConversationScreen

    slow = SpySearcher(Searcher(load_config(demo_root), SharedEmbedder()),
                       {"sourdough porch": 0.8})  # the answer comes after the keys
    app = make_app(demo_root, searcher=slow)
    async with app.run_test(size=(120, 40)) as pilot:
        query = await query_box(pilot)
        # a macro: the query, enter and c in one go, faster than the search answers
        await pilot.press(*"sourdough porch", "enter", "c")
        assert query.value == "sourdough porch"  # the c did not go into the box
        await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen),
                       what="the conversation")
        assert query.value == "sourdough porch"
        assert app.screen.chunk_id == app.main.results.results[0].id


@aio
async def test_a_pasted_line_break_is_enter_and_what_follows_it_keys(demo_root):
    from textual import events

    from tui.screens.conversation import ConversationScreen

    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        query = await query_box(pilot)
        query.post_message(events.Paste("sourdough porch\nc"))
        await wait_for(pilot, lambda: isinstance(app.screen, ConversationScreen),
                       what="the conversation")
        assert query.value == "sourdough porch"


# -- a person who is no one is said so -----------------------------------------------------------

def test_the_cli_says_a_person_is_no_one_and_suggests_who(demo_root):
    nobody = memlens("search", "dinner", "--person", "Nobody Atall", root=demo_root)
    assert nobody.returncode == 2 and nobody.stdout == "" and nobody.stderr.count("\n") == 1
    assert "no one is named 'Nobody Atall'" in nobody.stderr
    typo = memlens("search", "dinner", "--person", "mya", root=demo_root)
    assert typo.returncode == 2 and "did you mean Maya Chen?" in typo.stderr
    known = memlens("search", "dinner", "--person", "maya", root=demo_root)
    assert known.returncode == 0 and "person: Maya Chen" in known.stdout.splitlines()[0]
    # someone outside the profile whom the chunks name still filters, by that name
    named = memlens("search", "offsite", "--person", "Noor Vasquez", "--json", root=demo_root)
    assert named.returncode == 0 and json.loads(named.stdout)["results"]


def test_the_mcp_server_says_a_person_is_no_one(demo_root, tmp_path):
    import pytest

    pytest.importorskip("mcp")
    from tests.mcp.conftest import start

    client = start(demo_root, tmp_path, "nobody")
    try:
        text = client.error("hybrid_search", {"query": "dinner", "person": "Nobody Atall"})
        assert "no one is named 'Nobody Atall'" in text and "confidence" not in text
        assert "did you mean Maya Chen?" in client.error(
            "keyword_search", {"query": "dinner", "person": "mya"})
    finally:
        client.close()


# -- [keys] remaps are checked like the rest of memlens.toml ----------------------------------

def test_every_command_stops_on_a_bad_key_remap_with_one_line(demo_root, tmp_path):
    import shutil

    root = tmp_path / "root"
    shutil.copytree(demo_root, root, symlinks=True)
    cases = {'menu = "notakey+zz"': "[keys] menu = 'notakey+zz' is not a key",
             'menu = "f1"': "[keys] menu = 'f1': f1 already runs help",
             'menuu = "f10"': "[keys] menuu is no binding id (did you mean menu?)"}
    for line, said in cases.items():
        (root / "memlens.toml").write_text(f"[keys]\n{line}\n")
        for argv in (("search", "dinner"), ("stats",), ("timeline", "2026-11")):
            got = memlens(*argv, root=root)
            assert got.returncode == 1 and got.stdout == "", (line, argv, got.stdout)
            assert got.stderr == f"memlens: memlens.toml: {got.stderr.split(': ', 2)[2]}"
            assert said in got.stderr and got.stderr.count("\n") == 1, got.stderr
    # a conflict is fine once the other binding moves away; several keys keep an alias
    (root / "memlens.toml").write_text('[keys]\nmenu = "f1,m"\nhelp = "f12,question_mark"\n')
    assert memlens("stats", root=root).returncode == 0


@aio
async def test_the_app_applies_only_the_remaps_that_are_right_and_says_the_rest(demo_root):
    from tui.screens.help import HelpScreen
    from tui.screens.menu import MenuScreen

    app = make_app(demo_root, keys={"menu": "f1", "theme": "notakey+zz",
                                    "timeline": "f10"})
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        said = notes_text(app)
        assert "[keys] menu = 'f1': f1 already runs help" in said
        assert "[keys] theme = 'notakey+zz' is not a key" in said
        assert app.key_overrides == {"timeline": "f10"}
        await pilot.press("f1")  # still help, and F2 still the menu
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="help")
        await pilot.press("escape", "f2")
        await wait_for(pilot, lambda: isinstance(app.screen, MenuScreen), what="the menu")
