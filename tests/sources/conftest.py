"""What the tests of sources in place and watch mode share: the default local embedder, the
command line run as a subprocess (``memlens``, ``ok``, ``paths_found``), a watcher's events
(:class:`Recorder`) and ``memlens watch``'s lines (:class:`WatchProcess`), and a root with a
source beside it (``vault_root``)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import clock_env, make_root

REPO = Path(__file__).resolve().parents[2]
KEY = "sk-proj-" + "Q7" * 20


TIMEOUT = 60.0  # seconds any wait may take on a loaded machine before the test fails


SECRET_WORD = "zanzibarsecretword"


@pytest.fixture(autouse=True)
def local_embedder(monkeypatch):
    """Every test here indexes with the default local embedder, whatever the environment."""
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)


class Recorder:
    def __init__(self):
        self.events: list = []
        self._lock = threading.Lock()

    def __call__(self, event) -> None:
        with self._lock:
            self.events.append(event)

    def of(self, kind) -> list:
        with self._lock:
            return [e for e in self.events if isinstance(e, kind)]

    def wait_for(self, predicate, what: str, timeout: float = TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = [e for e in self.events if predicate(e)]
            if found:
                return found[-1]
            time.sleep(0.05)
        raise AssertionError(f"no {what} within {timeout:.0f}s; events: {self.events}")


def memlens(root: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cli", *argv, "--root", str(root)], cwd=REPO,
                          capture_output=True, text=True, timeout=180)


def ok(root: Path, *argv: str) -> str:
    run = memlens(root, *argv)
    assert run.returncode == 0, run.stderr
    return run.stdout


def paths_found(root: Path, query: str) -> list[str]:
    rows = json.loads(ok(root, "search", query, "--mode", "keyword", "--json"))["results"]
    return [r["source_file"] for r in rows]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def vault_root(tmp_path) -> tuple[Path, Path]:
    """A root with a key and a secret note, and a source ``G`` beside it holding one note."""
    root = make_root(tmp_path / "root")
    write(root / "secrets/openai.json", json.dumps({"api_key": KEY}))
    write(root / "secrets/notes.md", f"# Secret\n\n{SECRET_WORD} lives here.\n")
    vault = tmp_path / "G"
    write(vault / "garden.md", "# Garden\n\nPlanted the quince tree by the wall.\n")
    write(vault / "Private/diary.md", "# Diary\n\nprivatediaryword kept to myself.\n")
    ok(root, "reindex")
    ok(root, "source", "add", str(vault), "--type", "note", "--name", "G")
    return root, vault


class WatchProcess:
    """``memlens watch`` in a subprocess, its lines collected as they come."""

    def __init__(self, root: Path):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cli", "watch", "--root", str(root)], cwd=REPO,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=clock_env())
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, predicate, what: str, after: int = 0, timeout: float = 60) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for i, line in enumerate(self.lines[after:], start=after):
                if predicate(line):
                    return i + 1
            if self.proc.poll() is not None and self._reader.is_alive() is False:
                break
            time.sleep(0.05)
        raise AssertionError(f"no {what} within {timeout:.0f}s; lines: {self.lines}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
