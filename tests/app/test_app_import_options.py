"""Pilot tests of the import dialog's options: what ``memlens import`` takes as ``--date-order``
(WhatsApp only) and ``--tz``, chosen in the dialog and carried through the app's import job."""

from __future__ import annotations

import json
import re
from pathlib import Path

from textual.widgets import Input, Select

from engine.importers import IMPORTERS
from tests.app.conftest import aio, enter_text, make_app, notes_text, ready, wait_for
from tui.messages import ImportRequest
from tui.screens.import_dialog import ImportResultScreen, ImportScreen

# month first, every date ambiguous: 1, 2 and 3 December 2026
MONTH_FIRST_CHAT = ("12/1/26, 19:02 - Maya: hi\n"
                    "12/2/26, 08:15 - Sam: ok\n"
                    "12/3/26, 10:00 - Maya: bye\n")
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T")


def _export(folder: Path) -> Path:
    path = folder / "WhatsApp Chat with Maya.txt"
    path.write_text(MONTH_FIRST_CHAT, encoding="utf-8")
    return path


async def _dialog(pilot, root: Path, last: ImportRequest | None = None) -> list:
    """The import dialog pushed on its own; the list receives what it dismisses with."""
    app = pilot.app
    chosen: list = []
    kinds = {k: IMPORTERS[k].description for k in sorted(IMPORTERS)}
    app.push_screen(ImportScreen(kinds, root, last), chosen.append)
    await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen), what="the dialog")
    await pilot.pause()
    return chosen


async def _choose(pilot, root: Path, export: Path, *fills: dict) -> ImportRequest:
    """What the dialog dismisses with after each of ``fills`` (see :func:`_fill`) and the
    export's path entered."""
    chosen = await _dialog(pilot, root)
    for fill in fills:
        await _fill(pilot, **fill)
    await enter_text(pilot, pilot.app.screen.query_one("#import-path"), str(export))
    await wait_for(pilot, lambda: chosen, what="the dialog to close")
    return chosen[0]


async def _fill(pilot, *, kind: str, order: str | None = None, zone: str = "") -> None:
    """The kind, the Dates choice (when given) and the zone; the path still to enter."""
    dialog = pilot.app.screen
    dialog.query_one("#import-kind", Select).value = kind
    if order is not None:
        dialog.query_one("#import-date-order", Select).value = order
    dialog.query_one("#import-tz", Input).value = zone
    dialog.query_one("#import-path", Input).focus()
    await pilot.pause()


def _timestamps(path: Path) -> list[str]:
    """Each record's ISO timestamp, whatever its field is called."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [next(v for v in r.values() if isinstance(v, str) and TIMESTAMP.match(v))
            for r in records]


@aio
async def test_dates_choice_is_shown_for_whatsapp_only(own_root):
    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen), what="the dialog")
        await pilot.pause()
        dialog = app.screen
        dates = dialog.query_one("#import-date-order", Select)
        label = dialog.query_one("#import-date-order-label")
        assert dialog.query_one("#import-kind", Select).value == "whatsapp"
        assert dates.display and label.display and dates.value == "auto"
        assert dialog.query_one("#import-tz", Input).value == ""
        help_text = dialog.query_one("#import-kind-help").render().plain
        assert "WhatsApp chats are kept as data/whatsapp/<chat>.jsonl" in help_text
        dialog.query_one("#import-kind", Select).value = "slack"
        await pilot.pause()
        assert not dates.display and not label.display
        assert "WhatsApp chats" not in dialog.query_one("#import-kind-help").render().plain
        dialog.query_one("#import-kind", Select).value = "whatsapp"
        await pilot.pause()
        assert dates.display and label.display


@aio
async def test_the_choices_are_carried_and_remembered_and_only_whatsapp_takes_an_order(
        demo_root, tmp_path):
    export = _export(tmp_path)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        request = await _choose(pilot, demo_root, export,
                                dict(kind="whatsapp", order="mdy", zone=" Europe/Berlin "))
        assert request == ImportRequest("whatsapp", export.resolve(), date_order="mdy",
                                        local_tz="Europe/Berlin")
        # the next dialog starts from it
        await _dialog(pilot, demo_root, last=request)
        dialog = app.screen
        assert dialog.query_one("#import-date-order", Select).value == "mdy"
        assert dialog.query_one("#import-tz", Input).value == "Europe/Berlin"
        dialog.dismiss(None)
        await pilot.pause()
        request = await _choose(pilot, demo_root, export, dict(kind="whatsapp", order="dmy"),
                                dict(kind="slack", zone="  "))  # the dmy choice stays, hidden
        assert request.kind == "slack"
        assert request.date_order is None and request.local_tz is None


@aio
async def test_a_bad_zone_is_an_inline_error_and_the_dialog_stays(demo_root, tmp_path):
    export = _export(tmp_path)
    app = make_app(demo_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        chosen = await _dialog(pilot, demo_root)
        await _fill(pilot, kind="whatsapp", zone="Mars/Olympus")
        await enter_text(pilot, app.screen.query_one("#import-path"), str(export))
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ImportScreen) and not chosen
        error = dialog.query_one("#import-error")
        assert error.display
        text = error.render().plain
        assert text.startswith("Time zone: ") and "Mars/Olympus" in text
        assert dialog.focused is dialog.query_one("#import-tz", Input)
        await pilot.press("ctrl+u", *"+02:00")  # typing clears the error; a good zone passes
        assert not error.display
        dialog.query_one("#import-path", Input).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: chosen, what="the dialog to close")
        assert chosen[0].local_tz == "+02:00"


@aio
async def test_month_first_import_through_the_app_writes_december_dates(own_root, tmp_path):
    export = _export(tmp_path)
    before = {p: p.read_bytes() for p in own_root.glob("data/**/*.jsonl")}
    app = make_app(own_root)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, ImportScreen), what="the dialog")
        await _fill(pilot, kind="whatsapp", order="mdy", zone="+02:00")
        await enter_text(pilot, app.screen.query_one("#import-path"), str(export))
        await wait_for(pilot, lambda: isinstance(app.screen, ImportResultScreen),
                       what="the import")
        assert app.jobs.last_import.date_order == "mdy" and app.jobs.last_import.local_tz == "+02:00"
        summary = app.screen.query_one("#import-summary").render().plain
        assert "imported 3 records" in summary and "dates read month/day" in summary
        assert "mdy" in summary  # the order was the one asked for, not the one detected
        written = [p for p in own_root.glob("data/**/*.jsonl")
                   if before.get(p) != p.read_bytes()]
        assert len(written) == 1, written
        assert _timestamps(written[0]) == ["2026-12-01T19:02:00+02:00",
                                           "2026-12-02T08:15:00+02:00",
                                           "2026-12-03T10:00:00+02:00"]
        await pilot.press("enter")  # the reindex that follows an import, left to finish
        await wait_for(pilot, lambda: "Reindex finished" in notes_text(app) and app.job is None,
                       what="the automatic reindex")
