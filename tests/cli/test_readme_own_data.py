"""README "Use it on your own data", run as written: every command of its shell block, in a
home folder holding a vault and two chat exports, through the installed `memlens` command (a
shim on PATH to this checkout). The block must stay under ten commands, and after it the vault
and the chats answer one search, and the watcher indexes an edit of the vault."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.conftest import REPO, clock_env

SECTION = "## Use it on your own data"
TIMEOUT = 120


def commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION):]
    block = re.search(r"```sh\n(.*?)```", section, re.S).group(1)
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]


def telegram_export() -> dict:
    texts = ["the sourdough starter smells like green apples today",
             "bring rye flour when you come over", "see you at the market"]
    return {"name": "Maya", "type": "personal_chat", "id": 4242, "messages": [
        {"id": i + 1, "type": "message", "date": f"2026-03-0{i + 1}T09:1{i}:00",
         "from": "Maya", "from_id": "user4242", "text": t} for i, t in enumerate(texts)]}


WHATSAPP = """\
14/03/2026, 18:02 - Maya: did the sourdough starter survive the weekend?
14/03/2026, 18:05 - Sam: it did, bubbling away
"""


@pytest.fixture
def home(tmp_path) -> dict[str, str]:
    home = tmp_path / "home"
    vault = home / "Vault"
    (vault / "Daily").mkdir(parents=True)
    (vault / "Daily/2026-03-14.md").write_text(
        "# Saturday\n\nFed the sourdough starter twice; it doubled by noon.\n")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian/app.json").write_text("{}")
    (home / "Downloads/Telegram").mkdir(parents=True)
    (home / "Downloads/Telegram/result.json").write_text(json.dumps(telegram_export()))
    (home / "Downloads/WhatsApp-Maya.txt").write_text(WHATSAPP)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "memlens"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m cli "$@"\n')
    shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLENS_")}
    env.update(HOME=str(home), PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=str(REPO), MEMLENS_STATE_DIR=str(tmp_path / "state"), **clock_env())
    return env


def reindexed_after(lines: list[str], change: str) -> bool:
    at = next((i for i, line in enumerate(lines) if line.startswith(change)), None)
    return at is not None and any(line.startswith("reindexed") for line in lines[at:])


def test_the_block_is_under_ten_commands_and_ends_watching():
    lines = commands()
    assert len(lines) < 10, lines
    assert lines[-1] == "memlens watch"


def test_every_command_works_as_written(home):
    *steps, watch = commands()
    env = dict(home)
    # one shell, so the `export` carries over as in a terminal
    script = "set -e\n" + "\n".join(f"{s}\necho '@@ step done'" for s in steps)
    run = subprocess.run(["bash", "-c", script], env=env, capture_output=True, text=True,
                         timeout=TIMEOUT * 3, cwd=home["HOME"])
    assert run.returncode == 0, run.stdout + run.stderr
    outputs = run.stdout.split("@@ step done\n")
    by_command = dict(zip(steps, outputs, strict=False))
    assert "added source Vault" in by_command[steps[1]]
    assert "imported" in by_command[steps[2]].lower() or "written" in by_command[steps[2]]
    found = next(out for cmd, out in by_command.items() if cmd.startswith("memlens search"))
    assert "@Vault/Daily/2026-03-14.md" in found
    assert "telegram" in found and "whatsapp" in found
    listing = next(out for cmd, out in by_command.items() if "source list" in cmd)
    assert "Vault" in listing and "1 file, 1 chunk" in listing

    root = Path(home["HOME"]) / "memory"
    env["MEMLENS_ROOT"] = str(root)
    proc = subprocess.Popen(["bash", "-c", watch], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: list[str] = []
    seen = threading.Event()

    def read() -> None:
        for line in proc.stdout:
            lines.append(line)
            if line.startswith(("caught up", "reindexed")):
                seen.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert seen.wait(TIMEOUT), lines
        seen.clear()
        note = Path(home["HOME"]) / "Vault/Daily/2026-03-15.md"
        note.write_text("# Sunday\n\nBaked the first loaf with a kumquat glaze.\n")
        while not reindexed_after(lines, "changed 1 file: @Vault/Daily/2026-03-15.md"):
            assert seen.wait(TIMEOUT), lines
            seen.clear()
        search = subprocess.run(["memlens", "search", "kumquat", "--json"], env=env,
                                capture_output=True, text=True, timeout=TIMEOUT)
        assert [r["source_file"] for r in json.loads(search.stdout)["results"]] == [
            "@Vault/Daily/2026-03-15.md"]
    finally:
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(TIMEOUT)
    assert proc.returncode == 0 and lines[-1].startswith("stopped after"), lines
