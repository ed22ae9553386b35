"""What a new user hit in the app and the CLI: each found by hand, each pinned here (the app
through Pilot, the CLI as a subprocess, the MCP server through the SDK's client)."""
# ruff: noqa: F811 - the fixtures imported from tests.test_app are arguments here

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.test_app import (  # noqa: F401 - demo_root, writable_root are fixtures
    aio,
    demo_root,
    make_app,
    notes_text,
    ready,
    wait_for,
    writable_root,
)

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
    from tests.test_app_timeline import timeline_loaded
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


# -- one rule for importing into the demo root, from the CLI and from the app ------------------

CHAT = "12/03/2026, 18:02 - Maya Chen: Dinner Sunday at 6?\n"


def test_the_cli_never_imports_into_the_demo_root(writable_root, tmp_path):
    export = tmp_path / "WhatsApp Chat with Maya Chen.txt"
    export.write_text(CHAT)
    before = sorted(p.relative_to(writable_root) for p in writable_root.rglob("*"))
    refused = memlens("import", "whatsapp", str(export), root=writable_root)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "is the demo root, generated and not imported into" in refused.stderr
    assert sorted(p.relative_to(writable_root) for p in writable_root.rglob("*")) == before


@aio
async def test_the_app_never_imports_into_the_demo_root(writable_root, tmp_path):
    from tests.test_app import _open_import
    from tui.screens.modals import ErrorScreen

    export = tmp_path / "WhatsApp Chat with Maya Chen.txt"
    export.write_text(CHAT)
    app = make_app(writable_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await _open_import(pilot, export)
        await wait_for(pilot, lambda: isinstance(app.screen, ErrorScreen), what="the refusal")
        message = app.screen.query_one("#error-message").render().plain
        assert "is the demo root, generated and not imported into" in message
    assert not (writable_root / "data/telegram/whatsapp-Maya-Chen.jsonl").exists()
