"""One "now" for a whole process tree (engine/dates/clock.py): MEMLENS_NOW pins it for this
process and every command-line, MCP or watcher process it starts, so a dated root answers
"last week" the same on any calendar day."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from engine.config import load_config
from engine.dates import ClockError, now, today
from engine.indexer import reindex
from tests.conftest import REPO, SUITE_NOW, make_root


def test_the_suite_runs_on_its_own_clock():
    assert now() == SUITE_NOW and today() == SUITE_NOW.date()


@pytest.mark.parametrize("pinned, expected", [
    ("2026-03-14", datetime(2026, 3, 14, 12, 0).astimezone()),  # a day: its noon, local
    ("2026-03-14T23:30:00", datetime(2026, 3, 14, 23, 30).astimezone()),
    ("2026-03-14T23:30:00-05:00", datetime(2026, 3, 14, 23, 30,
                                           tzinfo=timezone(timedelta(hours=-5)))),
    (" 2028-02-29T00:00:30+00:00 ", datetime(2028, 2, 29, 0, 0, 30, tzinfo=UTC)),
])
def test_memlens_now_pins_the_moment(monkeypatch, pinned, expected):
    monkeypatch.setenv("MEMLENS_NOW", pinned)
    moment = now()
    assert moment == expected and moment.tzinfo is not None
    # "today" is the date in the pinned moment's own zone, not UTC's
    assert today() == expected.date()


@pytest.mark.parametrize("pinned", ["yesterday", "2026-13-01", "2026-02-30", "30/11/2026"])
def test_a_bad_memlens_now_is_one_line(monkeypatch, pinned):
    monkeypatch.setenv("MEMLENS_NOW", pinned)
    with pytest.raises(ClockError, match=r"^MEMLENS_NOW=.* is not a date or time \(e\.g\."):
        now()


def test_unset_it_is_the_wall_clock_in_the_local_zone(monkeypatch):
    monkeypatch.delenv("MEMLENS_NOW")
    before = datetime.now(UTC)
    moment = now()
    assert moment.tzinfo is not None and moment.utcoffset() == datetime.now().astimezone().utcoffset()
    assert before <= moment <= datetime.now(UTC)


@pytest.fixture(scope="module")
def dated_root(tmp_path_factory):
    """Slack messages from 2026-03-01 and a note of 2026-04-02, indexed."""
    root = make_root(tmp_path_factory.mktemp("clock") / "root")
    reindex(config=load_config(root))
    return root


def cli(root: Path, *argv: str, now_env: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "MEMLENS_NOW"}
    if now_env is not None:
        env["MEMLENS_NOW"] = now_env
    return subprocess.run([sys.executable, "-m", "cli", *argv, "--root", str(root)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=120)


def test_a_command_line_process_asks_the_pinned_clock(dated_root):
    # the week before Sunday 2026-03-08 holds the first of March's messages
    out = cli(dated_root, "search", "harbor bridge last week", "--json", now_env="2026-03-08")
    assert out.returncode == 0, out.stderr
    response = json.loads(out.stdout)
    assert (response["since"], response["until"]) == ("2026-02-23", "2026-03-01")
    assert response["results"] and all(
        r["content_date"] == "2026-03-01" for r in response["results"]), response["results"]
    # a timeline without a date is the pinned day's
    out = cli(dated_root, "timeline", "--json", now_env="2026-04-02T08:00:00")
    assert out.returncode == 0, out.stderr
    assert '"2026-04-02"' in out.stdout and "garden" in out.stdout.lower()


def test_a_bad_memlens_now_stops_the_command_with_one_line(dated_root):
    out = cli(dated_root, "search", "harbor", now_env="next tuesday")
    assert out.returncode != 0 and out.stdout == ""
    assert out.stderr.startswith("memlens: MEMLENS_NOW='next tuesday' is not a date or time")
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
