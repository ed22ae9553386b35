"""No front door serves a protected file, and read tools return safe text (docs/reliability.md,
"Links" and "Control characters").

- A hard link has no name to check: one to ``secrets/`` (or the config, or the index), or one
  whose other names lie outside the root, is refused when indexing and when reading, and
  named in `memlens reindex`, its ``--json`` warnings and `memlens stats`.
- A route over the index's folder serves nothing from it.
- MCP ``read_note`` shows terminal controls as visible stand-ins, like every other tool.

Each through a real front door: the CLI in a subprocess, the MCP server over stdio with the
SDK's client, the app's file viewer under Pilot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import TextArea

from engine.config import load_config
from engine.index.protected import Protected
from engine.indexer import reindex
from tests.app.conftest import aio, make_app, ready, wait_for
from tests.conftest import make_root
from tui.screens.stats import StatsScreen
from tui.screens.viewer import FileViewerScreen

REPO = Path(__file__).resolve().parents[1]
KEY = "sk-hardlinked-do-not-leak-4242"
OUTSIDE = "outsideword the diary kept outside the data root"
# OSC 52 (clipboard write), OSC 8 (hyperlink), clear screen, BEL, the one-byte CSI, RLO
CONTROLS = ("\x1b]52;c;cHduZWQ=\x07", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\",
            "\x1b[2J", "\x07", "\x9b31m", "\u202e")
RAW = set("\x1b\x07\x9b\u202e")


def cli(root: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", "--root", str(root), *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=180)


@pytest.fixture
def linked(tmp_path) -> Path:
    """A root whose notes/x/ holds: a hard link to the API key file, a hard link to a file
    outside the root, two names of one file both inside the root, and a note full of terminal
    controls. hardkey.md was indexed as an ordinary note before it became the link."""
    root = make_root(tmp_path / "root")
    (root / "secrets").mkdir()
    (root / "secrets/openai.json").write_text(json.dumps({"api_key": KEY}))
    notes = root / "notes/x"
    notes.mkdir(parents=True)
    (notes / "hardkey.md").write_text("# Placeholder\n\nbluejay placeholder text\n")
    reindex(config=load_config(root))
    (notes / "hardkey.md").unlink()
    os.link(root / "secrets/openai.json", notes / "hardkey.md")
    outside = tmp_path / "diary.md"
    outside.write_text(f"# Diary\n\n{OUTSIDE}\n")
    os.link(outside, notes / "outside.md")
    (notes / "twin-a.md").write_text("# Twin\n\ntwinword in one file with two names\n")
    os.link(notes / "twin-a.md", notes / "twin-b.md")
    (notes / "ctl.md").write_text("# Top\n\nintro " + CONTROLS[0] + "\n\n## Hostile\n\n"
                                  + " then ".join(CONTROLS) + " end\n")
    return root


HARDKEY_WHY = "notes/x/hardkey.md: a hard link to a protected file"
OUTSIDE_WHY = "notes/x/outside.md: a hard link with 2 names, 1 of them inside the data root"


def test_the_cli_refuses_hard_links_names_them_and_never_shows_them(linked):
    run = cli(linked, "reindex")
    assert run.returncode == 0, run.stderr
    assert f"warning: {HARDKEY_WHY}" in run.stderr and f"warning: {OUTSIDE_WHY}" in run.stderr
    assert "1 removed" in run.stdout  # hardkey.md's placeholder chunks went with it
    again = json.loads(cli(linked, "reindex", "--json").stdout)
    warned = {w["source_file"]: w["message"] for w in again["warnings"]}
    assert warned["notes/x/hardkey.md"].startswith("a hard link to a protected file")
    assert "outside the data root" not in warned["notes/x/outside.md"]  # it says "inside"
    assert "notes/x/twin-a.md" not in warned and "notes/x/twin-b.md" not in warned
    stats = cli(linked, "stats")
    assert f"not read: {HARDKEY_WHY}" in stats.stdout
    assert f"not read: {OUTSIDE_WHY}" in stats.stdout
    as_json = json.loads(cli(linked, "stats", "--json").stdout)
    assert {w["source_file"] for w in as_json["not_read"]} >= {"notes/x/hardkey.md",
                                                               "notes/x/outside.md"}
    for query in ("api_key", "hardlinked", "outsideword", "bluejay"):
        found = cli(linked, "search", "--mode", "keyword", "--json", query)
        assert found.returncode == 0, found.stderr
        assert KEY not in found.stdout and json.loads(found.stdout)["results"] == [], query
    twins = json.loads(cli(linked, "search", "--mode", "keyword", "--json", "twinword").stdout)
    # the same text under two names: one row, the other folded into it (engine/rank/repeats.py)
    assert {f for r in twins["results"] for f in (
        r["source_file"], *(x["source_file"] for x in r["repeats"]))} == {"notes/x/twin-a.md",
                                                                          "notes/x/twin-b.md"}


def test_mcp_refuses_hard_links_and_reads_controls_as_stand_ins(linked):
    from tests.mcp.conftest import start

    reindex(config=load_config(linked))
    client = start(linked, linked.parent, "links")
    try:
        for path in ("notes/x/hardkey.md", "notes/x/outside.md"):
            refused = client.error("read_note", {"path": path})
            assert "hard link" in refused and KEY not in refused and "outsideword" not in refused
        assert "twinword" in client.ok("read_note", {"path": "notes/x/twin-b.md"})
        for tool in ("keyword_search", "hybrid_search"):
            page = client.ok(tool, {"query": "api_key hardlinked outsideword"})
            assert KEY not in page and "outside the data root" not in page
        whole = client.ok("read_note", {"path": "notes/x/ctl.md"})
        section = client.ok("read_note", {"path": "notes/x/ctl.md", "section": "#2"})
        offset = client.ok("read_note", {"path": "notes/x/ctl.md", "offset": 20})
        for text in (whole, section, offset):
            assert not RAW & set(text), [c for c in text if c in RAW]
            assert "␛" in text  # shown, not dropped: an agent still sees something was there
        assert "␛[2J" in section and "end" in section
    finally:
        client.close()


@aio
async def test_the_app_viewer_refuses_a_hard_link_to_a_secret(linked):
    reindex(config=load_config(linked))
    chunk = {"id": "notes/x/hardkey.md#s1", "source_file": "notes/x/hardkey.md",
             "source_type": "note", "content": "bluejay placeholder text", "metadata": {}}
    app = make_app(linked)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        app.push_screen(FileViewerScreen(chunk, frozen=True))
        await wait_for(pilot, lambda: isinstance(app.screen, FileViewerScreen))
        await pilot.pause()
        title = app.screen.query_one("#viewer-title").render().plain
        assert "cannot open" in title and "hard link" in title
        assert KEY not in app.screen.query_one(TextArea).text
        await pilot.press("escape", "f3")  # the statistics screen names what was not read
        await wait_for(pilot, lambda: isinstance(app.screen, StatsScreen) and app.screen.loaded)
        listed = app.screen.query_one("#stats-errors").render().plain
        assert "Files not read at the last reindex (2)" in listed
        assert "notes/x/hardkey.md  a hard link to a protected file" in listed


def test_a_route_over_the_index_serves_nothing_from_it(tmp_path):
    from tests.mcp.conftest import start

    root = make_root(tmp_path / "root")
    (root / "memlens.toml").write_text('[routes]\nnote = ["data/search/**", "notes/**/*.md"]\n')
    reindex(config=load_config(root))
    sidecar = root / "data/search/memlens.db.vectors"
    names = sorted(p.name for p in sidecar.iterdir())
    assert "manifest.json" in names
    client = start(root, tmp_path, "index-route")
    try:
        for rel in ("data/search/memlens.db.vectors/manifest.json",
                    f"data/search/memlens.db.vectors/{names[0]}", "data/search/memlens.db"):
            assert "not part of the data layer" in client.error("read_note", {"path": rel})
        page = client.ok("keyword_search", {"query": "manifest segments basis"})
        assert "data/search/" not in page
    finally:
        client.close()


def test_an_index_kept_elsewhere_in_the_root_is_protected_with_its_sidecar(tmp_path):
    protected = Protected(tmp_path, tmp_path / "notes/idx.db")
    assert "notes/idx.db" in protected and "notes/idx.db-wal" in protected
    assert "notes/idx.db.vectors/manifest.json" in protected
    assert "notes/idx.md" not in protected and "secrets/any/depth.json" in protected
