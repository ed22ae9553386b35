"""What the app's tests share: the demo root indexed once a session (and private copies of it),
the app built around it with a frozen clock and recorded notifications, embedders and a
searcher that stand in for slow or failing ones, and the Pilot steps every test takes (wait,
search, type into a field, read what a widget shows)."""

from __future__ import annotations

import asyncio
import functools
import html
import json
import re
import shutil
import threading
import time
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from engine.config import DEMO_MARKER, load_config
from engine.demo import generate_demo_root
from engine.embedder import EmbeddingError, LocalEmbedder
from engine.indexer import reindex
from engine.searcher import Searcher
from tui.app import MemlensApp
from tui.screens.timeline import TimelineScreen
from tui.widgets.jobpanel import JobPanel
from tui.widgets.query import QueryInput

SIZE = (120, 40)


@pytest.fixture
def home(demo_root, monkeypatch):
    monkeypatch.setenv("HOME", str(demo_root.parent))
    return demo_root


async def wait_until(pilot, condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await pilot.pause(0.02)


def searched(text: str, *then: str, highlight: int | None = None):
    """A run_before: wait for the overview, search ``text``, then press ``then``."""
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_until(pilot, lambda: app.main is not None and app.main.overview is not None)
        query = app.main.query_one(QueryInput)
        query.value = text
        query.cursor_position = len(text)
        await pilot.pause(0.05)
        await wait_until(pilot, lambda: app.main.idle)
        if highlight is not None:
            app.main.results.highlighted = highlight
        if then:
            await pilot.press(*then)
        await pilot.pause(0.1)
    return run_before


WORD = "quokkalumen"  # in the vault's notes only
SHARED_WORDS = "harbor bridge"  # in the root's slack channels and in the vault


def write_vault(folder: Path) -> Path:
    (folder / "Daily").mkdir(parents=True)
    (folder / "Daily/2026-03-01.md").write_text(
        f"# Morning\n\nSaw a {WORD} by the harbor bridge at dawn.\n")
    (folder / "Ideas").mkdir()
    (folder / "Ideas/lamps.md").write_text(
        f"# Lamps\n\nA {WORD} lamp for the reading corner.\n")
    (folder / ".obsidian").mkdir()
    (folder / ".obsidian/workspace.md").write_text(f"{WORD} in the app's own folder\n")
    return folder


def screen_lines(app) -> list[str]:
    """The screen as text, read from its SVG screenshot (a cell is 12.2 px wide)."""
    width, height = app.size
    grid = [[" "] * width for _ in range(height)]
    svg = app.export_screenshot()
    for x, line, text in re.findall(r'<text [^>]*x="([\d.]+)"[^>]*line-(\d+)\)">([^<]*)<',
                                    svg):
        col = round(float(x) / 12.2)
        for i, ch in enumerate(html.unescape(text).replace("\xa0", " ")):
            if 0 <= col + i < width:
                grid[int(line)][col + i] = ch
    return ["".join(row) for row in grid]


async def timeline_loaded(pilot) -> TimelineScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, TimelineScreen)
                   and pilot.app.screen.loaded, what="the timeline")
    await pilot.pause()
    return pilot.app.screen


NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


TODAY = date(2026, 11, 30)


MARKUP_QUERY = "pager alarm"  # finds the ops-alerts chunk holding markup and an ANSI escape


def aio(test):
    """Run an async test on its own event loop (no pytest plugin needed); fixtures pass
    through because the signature is kept."""
    @functools.wraps(test)
    def run(*args, **kwargs):
        return asyncio.run(test(*args, **kwargs))
    return run


async def job_panel_text(progress, elapsed: float = 1.0) -> str:
    """What the app's job panel says for one progress report of a running reindex."""
    from textual.app import App

    class Panel(App):
        def compose(self):
            yield JobPanel()

    app = Panel()
    async with app.run_test() as pilot:
        panel = app.query_one(JobPanel)
        panel.start("Reindex", cancellable=True)
        panel.progress(progress, elapsed)
        await pilot.pause()
        return panel.query_one("#job-text").render().plain


class SharedEmbedder(LocalEmbedder):
    """The real local embedder (its model is loaded once per process)."""


class GatedEmbedder(LocalEmbedder):
    """Blocks in embed() until released: an index job that is reliably still running."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts):
        self.entered.set()
        self.release.wait(20)
        return super().embed(texts)


class OtherEmbedder(LocalEmbedder):
    """Same vectors, another name: the index's embedder does not match it."""

    provider = "other"
    model = "other-model"


class DownEmbedder(LocalEmbedder):
    def embed(self, texts):
        raise EmbeddingError("provider_error", "provider unreachable (test)")


class SpySearcher:
    """A real Searcher that records every call, optionally slowing some queries down."""

    def __init__(self, searcher: Searcher, delays: dict[str, float] | None = None) -> None:
        self.inner = searcher
        self.delays = delays or {}
        self.calls: list[tuple[str, dict]] = []

    def search(self, query, limit=10, source_types=None, **kw):
        self.calls.append((query, {"source_types": source_types, "limit": limit, **kw}))
        time.sleep(self.delays.get(query, 0))
        return self.inner.search(query, limit, source_types, **kw)

    def read_transaction(self):
        return self.inner.read_transaction()

    def close(self) -> None:
        self.inner.close()


@pytest.fixture(scope="session")
def demo_root(request, tmp_path_factory) -> Path:
    """The demo data root, generated and indexed once for the whole session (kept on the
    pytest config, so the snapshot module, which imports this fixture, shares it)."""
    root = getattr(request.config, "_memlens_app_demo_root", None)
    if root is None:
        root = tmp_path_factory.mktemp("memlens-app") / "root"
        generate_demo_root(root, today=TODAY)
        reindex(config=load_config(root), embedder=SharedEmbedder())
        request.config._memlens_app_demo_root = root
    return root


@pytest.fixture
def writable_root(demo_root, tmp_path) -> Path:
    """A private copy of the indexed demo root, for tests that write to the index."""
    root = tmp_path / "root"
    shutil.copytree(demo_root, root, symlinks=True)
    return root


@pytest.fixture
def own_root(writable_root) -> Path:
    """A private copy that is a user's own root, not a demo root: imports go into it."""

    (writable_root / DEMO_MARKER).unlink()
    return writable_root


def make_app(root: Path, *, searcher=None, embedder=None, keys: dict | None = None,
             **kw) -> MemlensApp:
    config = load_config(root)
    if keys:
        config = config.with_overrides(keys=keys)
    searcher = searcher or Searcher(config, SharedEmbedder())
    app = MemlensApp(config, now=NOW, searcher=searcher, embedder=embedder or SharedEmbedder(),
                     frozen=True, **kw)
    app.notes = []  # every notification, for assertions

    def notify(message, *, title="", severity="information", timeout=None, markup=True):
        app.notes.append((str(title), str(message), severity))
    app.notify = notify
    return app


async def wait_for(pilot, condition, timeout: float = 15.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


async def ready(pilot) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: app.main is not None and app.main.overview is not None,
                   what="the overview")


async def enter_text(pilot, field, text: str) -> None:
    """``text`` into the focused input ``field``, then enter. Only its last key is typed: the
    pilot takes ~60 ms a key, a tmp path is ~100 keys, and no test here is about typing them
    (the key still goes through the keyboard, so the form hears it change)."""
    assert pilot.app.screen.focused is field
    field.value = text[:-1]
    field.cursor_position = len(field.value)
    await pilot.press(*text[-1:], "enter")


async def search(pilot, text: str, *, type_keys: bool = False) -> None:
    """Put a query in the query box (typed key by key when ``type_keys``) and wait for its
    answer."""
    app = pilot.app
    query = app.main.query_one(QueryInput)
    query.focus()
    if type_keys:
        query.value = ""
        await pilot.press(*text)
    else:
        query.value = text
        query.cursor_position = len(text)
    await pilot.pause(0.05)
    await wait_for(pilot, lambda: app.main.idle, what="the search")
    await pilot.pause()


def lines_of(widget) -> list[str]:
    """What a widget shows, as plain text lines."""
    return [widget.render_line(y).text for y in range(widget.size.height)]


def static_text(widget) -> str:
    return str(widget.render()) if hasattr(widget, "render") else ""


def row_texts(app) -> list[str]:
    return [o.prompt.plain for o in app.main.results.options]


def notes_text(app) -> str:
    return "\n".join(f"{t}: {m}" for t, m, _ in app.notes)


def add_chat(root: Path, name: str, n: int = 40) -> None:
    path = root / "data" / "telegram" / f"{name}.jsonl"
    with path.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"date": f"2026-11-2{i % 9}T10:{i % 60:02d}:00+00:00",
                                 "from": "Nadia Quist",
                                 "text": f"zephyrine kayak plan number {i}"}) + "\n")
