"""The demo generator: one instance writes one root, source by source."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import date, timedelta
from pathlib import Path
from random import Random
from typing import Any

from engine.index.routes import SOURCE_TYPES

from .cast import PEOPLE, PERSON
from .documents import _Documents
from .facts import DEFAULT_WINDOWS, DEMO_FACTS, DemoSummary
from .helpers import _days, _Md, _Plan
from .messaging import _Messaging
from .records import _Records


class _Generator(_Records, _Documents, _Messaging):
    def __init__(self, root: Path, chunks: int | None, seed: int, today: date,
                 progress: Callable[[int, int], None] | None) -> None:
        self.root = root
        self.requested = chunks
        self.seed = seed
        self.today = today
        self.progress = progress
        self.plan = _Plan(chunks, today)
        self.days = _days(self.plan.start, self.plan.days)
        self.year_start = today - timedelta(days=364)
        self.files: dict[str, int] = dict.fromkeys(SOURCE_TYPES, 0)
        self.chunks: dict[str, int] = dict.fromkeys(SOURCE_TYPES, 0)
        self.bytes = 0
        self.extra_files = 0
        self._dirs: set[Path] = set()
        self._done = 0
        self._reported = 0
        expected = self.plan._expected(self.plan.scale)
        self._total = chunks if chunks is not None else int(expected + sum(
            DEFAULT_WINDOWS.values()))
        self.facts: dict[str, Any] = dict(DEMO_FACTS)

    # -- infrastructure ---------------------------------------------------------------------

    def rng(self, stream: str) -> Random:
        return Random(f"{self.seed}/{stream}")

    def _path(self, rel: str) -> Path:
        p = self.root / rel
        if p.parent not in self._dirs:
            p.parent.mkdir(parents=True, exist_ok=True)
            self._dirs.add(p.parent)
        return p

    def _account(self, stype: str | None, path: Path, chunks: int, ticked: int = 0) -> None:
        self.bytes += path.stat().st_size
        if stype is None:
            self.extra_files += 1
            return
        self.files[stype] += 1
        self.chunks[stype] += chunks
        self._tick(chunks - ticked)

    def _tick(self, chunks: int) -> None:
        self._done += chunks
        if self.progress and self._done - self._reported >= max(50, self._total // 200):
            self._reported = self._done
            self.progress(min(self._done, self._total), self._total)

    def write_text(self, rel: str, stype: str | None, text: str, chunks: int) -> None:
        p = self._path(rel)
        with p.open("w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        self._account(stype, p, chunks)

    def write_md(self, rel: str, stype: str, md: _Md) -> None:
        self.write_text(rel, stype, md.text(), md.chunks)

    def write_json(self, rel: str, stype: str | None, obj: Any, chunks: int) -> None:
        self.write_text(rel, stype, json.dumps(obj, ensure_ascii=False, indent=2) + "\n", chunks)

    def write_jsonl(self, rel: str, stype: str, records: Iterable[dict[str, Any]]) -> None:
        p = self._path(rel)
        n = 0
        with p.open("w", encoding="utf-8", newline="\n") as fh:
            for rec in records:
                fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
                n += 1
        self._account(stype, p, n)

    def dates(self, rng: Random, k: int, *, weekdays: bool = False,
              last_days: int | None = None) -> list[date]:
        """k sorted random dates in the history (optionally weekdays, or the last N days)."""
        span = min(last_days or self.plan.days, self.plan.days)
        first = self.plan.days - span
        out = []
        for _ in range(k):
            d = self.days[first + rng.randrange(span)].d
            if weekdays and d.weekday() >= 5:
                d -= timedelta(days=d.weekday() - 4)
                if d < self.plan.start:
                    d += timedelta(days=3)
            out.append(d)
        return sorted(out)

    def ago(self, days: int) -> date:
        return max(self.plan.start, self.today - timedelta(days=days))

    # -- run ----------------------------------------------------------------------------------

    def run(self) -> DemoSummary:
        self.people()
        self.entities()
        self.journal()
        self.events()
        self.email()
        self.health()
        self.identity()
        self.interviews()
        self.podcasts()
        self.meetings()
        self.voice()
        self.transcripts()
        self.board()
        self.codebase()
        self.rwgps()
        self.scratch()
        self.notes()
        self.messaging()
        if self.progress:
            self.progress(self._done, self._done)
        return DemoSummary(
            root=self.root, person=PERSON, seed=self.seed, chunks_requested=self.requested,
            today=self.today, history_days=self.plan.days, created=True,
            files_written=sum(self.files.values()) + self.extra_files,
            bytes_written=self.bytes, files_per_type=dict(self.files),
            estimated_chunks=dict(self.chunks), people=[p["name"] for p in PEOPLE],
            facts=self.facts)
