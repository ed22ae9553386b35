"""A deterministic demo data root: a year in the life of Sam Rivera, in every source format.

:func:`generate_demo_root` writes a data root (formats: ``docs/data-layer.md``) for a fictional
person: Sam Rivera, a staff-track software engineer at Fernhill Maps (a route-planning app) in
Oakland, CA, who climbs, cooks, rides, reads, is treasurer of a climbing co-op board and calls
his mother on Sundays. All 25 source types of ``engine.scanner.FILE_ROUTES`` are present, and
the thirteen people of ``profile/relationships.json`` recur across them: as senders in Slack,
Telegram and Signal, as meeting attendees and speakers, in journal entries, stories, photo
events, email catalogs and their own ``memory/entities/people/<slug>.md`` files.

Sizes. ``chunks=None`` writes the small default root (one year, ~2,500 chunks). ``chunks=N``
writes a benchmark root of about N chunks (the estimate is exact by construction: see
:func:`estimate`): ~70% slack, ~15% telegram, ~3% signal, ~12% spread over the other 22 types;
slack spreads over 8–400 channels with Zipf-like sizes (the largest, ``eng-atlas``, holds ~15%
of slack at 500k chunks). Roots above 120k chunks span two years, above 300k three. Files are
written streaming (bounded memory) and 500k chunks take well under two minutes.

Determinism. Same ``seed``, ``chunks`` and ``today`` give byte-identical files: every stream
has its own ``random.Random("<seed>/<stream>")``; nothing reads the clock. (File mtimes are
left alone, so a regenerated root is always seen as changed by the scanner.)

Idempotency. The root gets a marker ``.memlens-demo.json`` (a dot file: never indexed) with the
arguments and the summary. Calling again with the same arguments does nothing and returns the
recorded summary (``created=False``); different arguments raise :class:`DemoRootError` unless
``overwrite=True``, which deletes the demo's own folders (never ``data/search`` or
``memlens.toml``) and writes the new root. A folder that already holds data-layer files but no
marker is refused: it may be someone's real data.

Distinctive facts for search tests (:data:`DEMO_FACTS`; the summary's ``facts`` adds dates and
files):

- a rare proper noun, the restaurant "Osteria Quattro Venti", in exactly one chunk (a journal
  entry about Maya's birthday dinner, 100 days before ``today``) and nowhere else;
- a paraphrase pair: one journal entry about "feeling burned out and exhausted at work" (45 days
  before ``today``); the query "job fatigue" shares no word with it, and no file of the root
  contains "job", "jobs" or "fatigue", so only the semantic arm can find it;
- a two-word name with aliases: Robert Okafor, called "Bobby" almost everywhere (and "Rob");
  "Tomás Herrera" tests diacritics ("Tomas"); "Grace O'Neill" an apostrophe;
- ``notes/work/atlas/migration-plan.md``: YAML frontmatter (title, date, tags list, status,
  priority as int), inline ``#tags``, nested folders and several heading levels; the vault also
  has notes without frontmatter whose date is in the file name (with spaces);
- a Slack message in ``data/slack/ops-alerts.jsonl`` (12 days before ``today``) holding Rich
  markup ``[bold red]alarm[/]`` and an ANSI escape ``\\x1b[31m`` that an app must show literally.
"""

from __future__ import annotations

import json
import math
import re
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from random import Random
from typing import Any

from . import demo_text as T
from .demo_text import fill
from .scanner import SOURCE_TYPES

DEMO_MARKER = ".memlens-demo.json"
DEMO_FORMAT = 1

#: Shares of a ``chunks=N`` root (the rest: all other source types together).
MESSAGING_SHARES = {"slack": 0.70, "telegram": 0.15, "signal": 0.03}
OTHER_SHARE = 1.0 - sum(MESSAGING_SHARES.values())
WINDOW = 10  # messages per messaging chunk (engine/extractors/messaging.py)
SECTION_MAX_CHARS = 2000  # markdown sections longer than this are split (we never write one)
SEGMENT_CHUNK_CHARS = 1500  # meeting/voice segment packing (engine/extractors/documents.py)

# Default (chunks=None) messaging windows.
DEFAULT_WINDOWS = {"slack": 850, "telegram": 200, "signal": 50}

# Top-level paths the demo owns (deleted on overwrite). data/search and memlens.toml are not.
OWNED_PATHS = (
    "data/slack", "data/telegram", "data/signal", "data/meetings", "data/email", "data/photos",
    "data/health", "data/journal", "data/voice", "data/identity", "data/interviews",
    "data/podcasts", "data/board", "memory", "notes", "profile",
)

_RARE_NOUN = "Osteria Quattro Venti"
_PARAPHRASE_TARGET = (
    "Feeling burned out and exhausted at work. Another week of late nights on the cutover, and I "
    "dread opening my laptop in the morning. I'm running on empty, snapping at Maya over nothing, "
    "and I can't remember the last time the work felt meaningful. I need a real break before I "
    "start resenting everything I used to love about building things.")
_RARE_NOUN_TEXT = (
    f"Took Maya to {_RARE_NOUN} in North Beach for her birthday. Handmade pappardelle with wild "
    "boar ragù, a bottle of Nebbiolo, and the owner sang to her in Italian between courses. She "
    "laughed until she cried. Best romantic dinner we've had in years; I want to remember the "
    "candle wax dripping onto the tablecloth.")
_MARKUP_TEXT = ("copied from the pager: [bold red]alarm[/] tile cache p99 over budget; raw log "
                "line: \x1b[31mERROR\x1b[0m upstream timeout after 30s")

DEMO_FACTS: dict[str, Any] = {
    "person": T.PERSON,
    "rare_noun": _RARE_NOUN,
    "rare_noun_source_type": "journal",
    "rare_noun_text": _RARE_NOUN_TEXT,
    "rare_noun_days_before_today": 100,
    "paraphrase_query": "job fatigue",
    "paraphrase_target": _PARAPHRASE_TARGET,
    "paraphrase_title": "Running on empty",
    "paraphrase_source_type": "journal",
    "paraphrase_days_before_today": 45,
    "paraphrase_absent_terms": ["job", "jobs", "fatigue"],
    "alias_person": "Robert Okafor",
    "alias": "Bobby",
    "aliases": ["Bobby", "Rob"],
    "diacritics_person": "Tomás Herrera",
    "diacritics_query": "Tomas Herrera",
    "apostrophe_person": "Grace O'Neill",
    "markup_text": _MARKUP_TEXT,
    "markup": "[bold red]alarm[/]",
    "ansi": "\x1b[31m",
    "markup_source_type": "slack",
    "markup_file": "data/slack/ops-alerts.jsonl",
    "markup_sender": "Tomás Herrera",
    "markup_days_before_today": 12,
    "note_file": "notes/work/atlas/migration-plan.md",
    "note_title": "Atlas migration plan",
    "note_frontmatter": {"title": "Atlas migration plan", "tags": ["atlas", "infra", "planning"],
                         "status": "active", "priority": 1},
    "note_inline_tags": ["decision", "risk", "atlas/cutover"],
    "note_headings": ["Atlas migration plan", "Goals", "Cutover steps", "Rollback",
                      "Open questions"],
    "note_days_before_today": 150,
    "undated_note_glob": "notes/inbox/* quick note.md",
}


class DemoRootError(RuntimeError):
    """The demo root cannot be (re)generated as asked."""


@dataclass
class DemoSummary:
    """What :func:`generate_demo_root` wrote (or found, when ``created`` is False)."""

    root: Path
    person: str
    seed: int
    chunks_requested: int | None
    today: date
    history_days: int
    created: bool
    files_written: int
    bytes_written: int
    files_per_type: dict[str, int]
    estimated_chunks: dict[str, int]  # every source type, computed from what was written
    people: list[str]
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def estimated_total(self) -> int:
        return sum(self.estimated_chunks.values())

    @property
    def messaging_share(self) -> float:
        total = self.estimated_total or 1
        return sum(self.estimated_chunks.get(t, 0) for t in MESSAGING_SHARES) / total

    def to_json(self) -> dict[str, Any]:
        return {
            "person": self.person, "seed": self.seed, "chunks_requested": self.chunks_requested,
            "today": self.today.isoformat(), "history_days": self.history_days,
            "files_written": self.files_written, "bytes_written": self.bytes_written,
            "estimated_total": self.estimated_total, "files_per_type": self.files_per_type,
            "estimated_chunks": self.estimated_chunks, "people": self.people,
            "facts": self.facts,
        }

    @classmethod
    def from_json(cls, root: Path, data: dict[str, Any], created: bool) -> DemoSummary:
        return cls(root=root, person=data["person"], seed=data["seed"],
                   chunks_requested=data["chunks_requested"],
                   today=date.fromisoformat(data["today"]), history_days=data["history_days"],
                   created=created, files_written=data["files_written"],
                   bytes_written=data["bytes_written"], files_per_type=data["files_per_type"],
                   estimated_chunks=data["estimated_chunks"], people=data["people"],
                   facts=data["facts"])


# =============================================================================================
# Entry point
# =============================================================================================


def generate_demo_root(root: Path, chunks: int | None = None, seed: int = 7,
                       today: date = date(2026, 11, 30),
                       progress: Callable[[int, int], None] | None = None,
                       *, overwrite: bool = False) -> DemoSummary:
    """Write the demo data root at ``root`` (see the module docstring) and describe it.

    ``progress(done, total)`` is called as chunks are written (``total`` is refined once, when
    the small sources are done and the messaging plan is fixed). Raises :class:`DemoRootError`
    when ``root`` holds another demo (different arguments, without ``overwrite``) or data-layer
    files without a demo marker, and ``ValueError`` for bad arguments.
    """
    if chunks is not None and (isinstance(chunks, bool) or not isinstance(chunks, int)
                               or chunks < 1):
        raise ValueError(f"chunks must be a positive integer or None, not {chunks!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, not {seed!r}")
    if not isinstance(today, date):
        raise ValueError(f"today must be a datetime.date, not {today!r}")
    root = Path(root).expanduser()
    args = {"chunks": chunks, "seed": seed, "today": today.isoformat()}
    marker = root / DEMO_MARKER

    if marker.exists():
        try:
            info = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DemoRootError(f"{marker} is unreadable ({exc}); delete it to regenerate") \
                from None
        same = info.get("args") == args and info.get("format") == DEMO_FORMAT
        if same and info.get("complete"):
            return DemoSummary.from_json(root, info["summary"], created=False)
        if not same and not overwrite:
            raise DemoRootError(
                f"{root} already holds a memlens demo generated with {info.get('args')}; "
                f"asked for {args}. Pass overwrite=True (or choose another root) to replace it.")
        _clear_owned(root)  # same args but unfinished, or overwrite: start clean
    elif root.exists():
        if not root.is_dir():
            raise DemoRootError(f"{root} exists and is not a folder")
        present = [p for p in OWNED_PATHS if (root / p).exists()]
        if present:
            raise DemoRootError(
                f"{root} already holds data-layer files ({', '.join(present[:3])}...) but no "
                f"{DEMO_MARKER}: refusing to write a demo over what may be real data")

    root.mkdir(parents=True, exist_ok=True)
    _write_marker(marker, {"format": DEMO_FORMAT, "complete": False, "args": args})
    gen = _Generator(root, chunks, seed, today, progress)
    summary = gen.run()
    _write_marker(marker, {"format": DEMO_FORMAT, "complete": True, "args": args,
                           "summary": summary.to_json()})
    return summary


def estimate(root: Path) -> dict[str, int]:
    """The estimated chunks per source type recorded in a demo root's marker."""
    info = json.loads((Path(root) / DEMO_MARKER).read_text(encoding="utf-8"))
    return dict(info["summary"]["estimated_chunks"])


def _write_marker(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _clear_owned(root: Path) -> None:
    for rel in OWNED_PATHS:
        p = root / rel
        if p.is_dir():
            shutil.rmtree(p)
        elif p.exists():
            p.unlink()


# =============================================================================================
# Small helpers
# =============================================================================================


def _protocol_days(protocol: str) -> int | None:
    """The length an experiment's protocol states ("14 days", "8 weeks"), if any."""
    m = re.search(r"(\d+) (days|weeks)", protocol)
    if not m:
        return None
    return int(m[1]) * (7 if m[2] == "weeks" else 1)


def _fill_same(rng: Random, *templates: str) -> list[str]:
    """Fill templates from one restarted stream, so ``{crag}`` is the same place in each."""
    seed = rng.getrandbits(64)
    return [fill(t, Random(seed)) for t in templates]


def _esc(text: str) -> str:
    """JSON string body (no quotes), UTF-8 kept."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _q(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _slug(text: str) -> str:
    out = []
    for ch in text.lower():
        if ch.isalnum() and ch.isascii():
            out.append(ch)
        elif ch in "áàâä":
            out.append("a")
        elif ch in "éèêë":
            out.append("e")
        elif ch in "íìîï":
            out.append("i")
        elif ch in "óòôö":
            out.append("o")
        elif ch in "úùûü":
            out.append("u")
        elif ch == "ñ":
            out.append("n")
        elif ch == "'":
            continue
        else:
            out.append("-")
    return "-".join(p for p in "".join(out).split("-") if p)


def _apportion(total: int, weights: list[float], minimum: int = 1) -> list[int]:
    """Integers proportional to ``weights`` summing to ``total`` (each >= minimum)."""
    n = len(weights)
    rest = max(0, total - minimum * n)
    s = sum(weights)
    raw = [rest * w / s for w in weights]
    out = [int(x) for x in raw]
    left = rest - sum(out)
    for i in sorted(range(n), key=lambda i: (out[i] - raw[i], i))[:left]:
        out[i] += 1
    return [minimum + x for x in out]


def _dst_bounds(year: int) -> tuple[date, date]:
    """US Pacific daylight time: second Sunday of March to first Sunday of November."""
    mar = date(year, 3, 8)
    nov = date(year, 11, 1)
    return (mar + timedelta(days=(6 - mar.weekday()) % 7),
            nov + timedelta(days=(6 - nov.weekday()) % 7))


_EPOCH = date(1970, 1, 1)


@dataclass(frozen=True)
class _Day:
    d: date
    iso: str
    off: str  # "-08:00" / "-07:00"
    utc0: int  # epoch seconds of local midnight
    weekend: bool


def _days(start: date, n: int) -> list[_Day]:
    out = []
    bounds: dict[int, tuple[date, date]] = {}
    for i in range(n):
        d = start + timedelta(days=i)
        if d.year not in bounds:
            bounds[d.year] = _dst_bounds(d.year)
        lo, hi = bounds[d.year]
        hours = 7 if lo <= d < hi else 8
        out.append(_Day(d, d.isoformat(), f"-{hours:02d}:00",
                        (d - _EPOCH).days * 86400 + hours * 3600, d.weekday() >= 5))
    return out


_HMS = [f"{h:02d}:{m:02d}:{s:02d}" for h in range(24) for m in range(60) for s in range(60)]


class _Md:
    """A markdown document built section by section; counts the chunks it will make."""

    def __init__(self, frontmatter: dict[str, Any] | None = None, preamble: str = "") -> None:
        self.parts: list[str] = []
        self.chunks = 0
        if frontmatter:
            self.parts.append("---\n" + _yaml(frontmatter) + "---\n")
        if preamble.strip():
            self.parts.append(preamble.strip() + "\n")
            self.chunks += _section_parts(preamble)

    def section(self, level: int, heading: str, body: str) -> _Md:
        body = body.strip()
        self.parts.append(f"{'#' * level} {heading}\n" + (f"\n{body}\n" if body else ""))
        if body:
            self.chunks += _section_parts(body)
        return self

    def text(self) -> str:
        return "\n".join(self.parts)


def _section_parts(body: str) -> int:
    if len(body) <= SECTION_MAX_CHARS:
        return 1
    raise AssertionError("demo markdown sections are kept short")  # pragma: no cover


def _yaml(data: dict[str, Any]) -> str:
    lines = []
    for key, value in data.items():
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines.extend(f"  - {_yaml_scalar(v)}" for v in value)
        else:
            lines.append(f"{key}: {_yaml_scalar(value)}")
    return "\n".join(lines) + "\n"


def _yaml_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | date):
        return str(value)
    s = str(value)
    if s and all(c.isalnum() or c in " -_./" for c in s) and not s[0].isdigit() \
            and s.lower() not in ("yes", "no", "true", "false", "null", "on", "off"):
        return s
    return _q(s)


def _bullets(items: Iterable[str]) -> str:
    return "\n".join(f"- {i}" for i in items)


def _pack_count(header: str, lines: list[str], limit: int = SEGMENT_CHUNK_CHARS) -> int:
    """Chunks the meeting/voice extractor makes of these labelled segment lines."""
    groups = current = 0
    size = len(header)
    for line in lines:
        if len(line) > limit - len(header) - 1:  # never written: segments are short
            raise AssertionError("demo segments are kept short")  # pragma: no cover
        if current and size + 1 + len(line) > limit:
            groups += 1
            current, size = 0, len(header)
        current += 1
        size += 1 + len(line)
    return groups + (1 if current else 0)


def _clock(seconds: float) -> str:
    total = max(0, int(seconds))
    h, rem = divmod(total, 3600)
    m, s = divmod(rem, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


# =============================================================================================
# The plan: how many of each thing
# =============================================================================================

# Items per source at scale 1 (the default root), and chunks each item makes on average
# (used only to choose the scale; the summary counts what is actually written).
BASE_ITEMS: dict[str, tuple[int, float]] = {
    "meeting": (30, 3.0), "email_catalog": (80, 1.0), "event": (55, 1.0),
    "checkin": (140, 1.0), "experiment": (8, 1.0), "journal": (110, 1.0), "voice": (18, 1.0),
    "transcript": (5, 5.0), "quote": (30, 1.0), "observation": (20, 1.0), "story": (14, 1.0),
    "interview": (5, 5.0),  # sessions: ~4 answers + 1 meta each
    "podcast_digest": (36, 1.0), "board_summary": (12, 5.0), "entity_extra": (10, 4.0),
    "codebase_doc": (8, 5.0), "rwgps_memory": (10, 4.0), "scratch_daily": (24, 3.0),
    "scratch_weekly": (12, 3.0), "note": (28, 4.0), "cgm_sensors": (2, 14.0),
}


class _Plan:
    def __init__(self, chunks: int | None, today: date) -> None:
        if chunks is None or chunks <= 120_000:
            years = 1
        elif chunks <= 300_000:
            years = 2
        else:
            years = 3
        self.days = 365 * years
        self.start = today - timedelta(days=self.days - 1)
        self.weeks = self.days // 7
        if chunks is None:
            self.scale = 1.0
        else:
            target = OTHER_SHARE * chunks
            lo, hi = 0.0, 10_000.0
            for _ in range(60):
                mid = (lo + hi) / 2
                if self._expected(mid) < target:
                    lo = mid
                else:
                    hi = mid
            self.scale = max(0.01, lo)
        self.items = self._items(self.scale)

    def _items(self, s: float) -> dict[str, int]:
        def n(key: str, minimum: int = 1) -> int:
            return max(minimum, round(BASE_ITEMS[key][0] * s))

        items = {k: n(k) for k in BASE_ITEMS}
        items["checkin"] = min(self.days, items["checkin"])
        items["scratch_daily"] = min(self.days, items["scratch_daily"])
        items["scratch_weekly"] = min(self.weeks - 1, items["scratch_weekly"])
        items["cgm_sensors"] = min(self.days // 14, items["cgm_sensors"])
        items["garmin"] = self.days if s >= 1 else max(14, round(365 * s))
        return items

    def _expected(self, s: float) -> float:
        items = self._items(s)
        total = items["garmin"] + len(T.PEOPLE) * 4.5
        for key, (_, per) in BASE_ITEMS.items():
            total += items[key] * per
        return total


# =============================================================================================
# The generator
# =============================================================================================


class _Generator:
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
            root=self.root, person=T.PERSON, seed=self.seed, chunks_requested=self.requested,
            today=self.today, history_days=self.plan.days, created=True,
            files_written=sum(self.files.values()) + self.extra_files,
            bytes_written=self.bytes, files_per_type=dict(self.files),
            estimated_chunks=dict(self.chunks), people=[p["name"] for p in T.PEOPLE],
            facts=self.facts)

    # -- people -----------------------------------------------------------------------------

    def milestone_date(self, rng: Random, month_offset: int) -> date:
        d = self.year_start + timedelta(days=int(30.4 * month_offset) + rng.randint(0, 20))
        return min(d, self.today)

    def people(self) -> None:
        rng = self.rng("people")
        out = []
        self.milestones: dict[str, list[tuple[date, str]]] = {}
        for p in T.PEOPLE:
            ms = [(self.milestone_date(rng, off), text) for off, text in p["milestones"]]
            self.milestones[p["name"]] = ms
            out.append({
                "name": p["name"], "aliases": list(p["aliases"]),
                "relationship": p["relationship"], "context": p["context"], "notes": p["notes"],
                "interests": list(p["interests"]),
                "milestones": [{"date": d.isoformat(), "event": e} for d, e in ms],
            })
        self.write_json("profile/relationships.json", None, {"people": out}, 0)

    def entities(self) -> None:
        rng = self.rng("entities")
        for p in T.PEOPLE:
            ms = self.milestones[p["name"]]
            updated = max(d for d, _ in ms) if ms else self.today
            md = _Md({"type": "person", "name": p["name"], "aliases": p["aliases"],
                      "relationship": p["relationship"], "date": updated})
            md.section(1, p["name"], p["context"])
            md.section(2, "Notes", p["notes"])
            md.section(2, "Interests", _bullets(p["interests"]))
            md.section(2, "Timeline", _bullets(f"{d.isoformat()}: {e}" for d, e in ms))
            recent = [fill(t.replace("{name}", p["aliases"][0]), rng)
                      for t in rng.sample(_ENTITY_RECENT[p["circle"]], 2)]
            md.section(2, "Recent", _bullets(recent))
            self.write_md(f"memory/entities/people/{p['slug']}.md", "entity_file", md)
        n_extra = self.plan.items["entity_extra"]
        for i in range(n_extra):
            kind = "projects" if i % 2 == 0 else "topics"
            base = _ENTITY_PROJECTS if kind == "projects" else _ENTITY_TOPICS
            k = i // 2
            name, intro = base[k % len(base)]
            if k >= len(base):
                name = f"{name} {_CODENAMES[(k // len(base)) % len(_CODENAMES)]}"
                if k >= len(base) * (1 + len(_CODENAMES)):
                    name += f" {k}"
            d = self.dates(rng, 1)[0]
            md = _Md({"type": kind[:-1], "name": name, "date": d,
                      "tags": [_slug(name).split("-")[0], kind[:-1]]})
            md.section(1, name, intro)
            if kind == "projects":
                md.section(2, "Status", fill(rng.choice(_PROJECT_STATUS), rng))
                md.section(2, "People", _bullets(rng.sample(
                    ["Priya Natarajan (sponsor)", "Tomás Herrera (tech lead)",
                     "Kenji Watanabe", "Grace O'Neill (product)", "Sam Rivera (owner)"], 3)))
                md.section(2, "Risks", _bullets(fill(t, rng) for t in rng.sample(_RISKS, 2)))
            else:
                md.section(2, "Why it matters", fill(rng.choice(_TOPIC_WHY), rng))
                md.section(2, "Related", _bullets(fill(t, rng) for t in rng.sample(
                    _TOPIC_RELATED, 3)))
            self.write_md(f"memory/entities/{kind}/{_slug(name)}.md", "entity_file", md)

    # -- journal ------------------------------------------------------------------------------

    def journal(self) -> None:
        rng = self.rng("journal")
        topics = list(T.JOURNAL)
        weights = [_JOURNAL_WEIGHTS[t] for t in topics]
        rare_day = self.ago(DEMO_FACTS["rare_noun_days_before_today"])
        para_day = self.ago(DEMO_FACTS["paraphrase_days_before_today"])
        entries: list[tuple[date, int, dict[str, Any]]] = []
        for i, d in enumerate(self.dates(rng, self.plan.items["journal"])):
            topic = rng.choices(topics, weights)[0]
            entries.append((d, i, self._journal_entry(rng, d, topic)))
        entries.append((rare_day, -2, {
            "date": rare_day, "title": "Maya's birthday", "text": _RARE_NOUN_TEXT,
            "tags": ["partner", "birthday", "food"], "location": "San Francisco, CA"}))
        entries.append((para_day, -1, {
            "date": para_day, "title": DEMO_FACTS["paraphrase_title"],
            "text": _PARAPHRASE_TARGET, "tags": ["work", "health"], "location": "Oakland, CA"}))
        entries.sort(key=lambda e: (e[0], e[1]))
        by_year: dict[int, list[dict[str, Any]]] = {}
        seen: dict[str, int] = {}
        for d, _, e in entries:
            key = d.isoformat()
            seen[key] = seen.get(key, 0) + 1
            rid = f"j-{key}" + (f"-{seen[key]}" if seen[key] > 1 else "")
            rec = {"id": rid, "date": key, "title": e["title"], "text": e["text"],
                   "tags": e["tags"], "location": e["location"]}
            by_year.setdefault(d.year, []).append(rec)
            if e["text"] is _RARE_NOUN_TEXT:
                self.facts.update(rare_noun_file=f"data/journal/{d.year}.jsonl",
                                  rare_noun_date=key, rare_noun_id=rid)
            elif e["text"] is _PARAPHRASE_TARGET:
                self.facts.update(paraphrase_file=f"data/journal/{d.year}.jsonl",
                                  paraphrase_date=key, paraphrase_id=rid)
        for year in sorted(by_year):
            self.write_jsonl(f"data/journal/{year}.jsonl", "journal", by_year[year])

    def _journal_entry(self, rng: Random, d: date, topic: str) -> dict[str, Any]:
        bank = T.JOURNAL[topic]
        k = min(len(bank["lines"]), rng.randint(2, 4))
        lines = [fill(t, rng) for t in rng.sample(bank["lines"], k)]
        tags = [topic]
        if rng.random() < 0.35:
            other = rng.choice([t for t in T.JOURNAL if t != topic])
            lines.append(fill(rng.choice(T.JOURNAL[other]["lines"]), rng))
            tags.append(other)
        closer = fill(rng.choice(T.JOURNAL_CLOSERS), rng)
        if closer:
            lines.append(closer)
        loc = "Oakland, CA" if rng.random() < 0.7 else rng.choice(T.JOURNAL_LOCATIONS)
        return {"date": d, "title": rng.choice(bank["titles"]), "text": " ".join(lines),
                "tags": tags, "location": loc}

    # -- events and email ------------------------------------------------------------------------

    def events(self) -> None:
        rng = self.rng("events")
        recs = []
        for i, d in enumerate(self.dates(rng, self.plan.items["event"]), start=1):
            title, loc, people, desc = rng.choice(T.EVENTS)
            # one fill stream per event, restarted per field: title/location/text agree
            title, loc, desc = _fill_same(rng, title, loc, desc)
            recs.append({"id": f"ev-{i:05d}", "date": d.isoformat(), "title": title,
                         "location": loc, "people": ["Sam Rivera", *people],
                         "description": desc,
                         "photo_count": rng.randint(3, 140)})
        self.write_jsonl("data/photos/events.jsonl", "event", recs)

    def email(self) -> None:
        rng = self.rng("email")
        names = list(T.EMAIL_CATALOGS)
        weights = [0.45, 0.3, 0.1, 0.15]
        per = _apportion(self.plan.items["email_catalog"], weights)
        for name, k in zip(names, per, strict=True):
            to = ("Sam Rivera <sam@fernhillmaps.com>" if name == "work"
                  else "Sam Rivera <sam.rivera@example.com>")
            recs = []
            for i, d in enumerate(self.dates(rng, k, weekdays=name == "work"), start=1):
                sender, subject, summary, tags = rng.choice(T.EMAIL_CATALOGS[name])
                subject, summary = _fill_same(rng, subject, summary)
                recs.append({"id": f"em-{name}-{i:05d}", "date": d.isoformat(), "from": sender,
                             "to": to, "subject": subject, "summary": summary,
                             "tags": list(tags)})
            self.write_jsonl(f"data/email/catalog/{name}.jsonl", "email_catalog", recs)

    # -- health ---------------------------------------------------------------------------------

    def health(self) -> None:
        items = self.plan.items
        rng = self.rng("garmin")
        garmin_days = self.days[-items["garmin"]:]
        self.active_days: dict[date, str] = {}
        for day in garmin_days:
            rec = self._garmin(rng, day.d)
            self.write_json(f"data/health/garmin/{day.iso}.json", "garmin", rec, 1)

        rng = self.rng("cgm")
        slots = sorted(rng.sample(range(self.plan.days // 14), items["cgm_sensors"]))
        for slot in slots:
            for j in range(14):
                day = self.days[slot * 14 + j]
                self.write_json(f"data/health/cgm/{day.iso}.json", "cgm",
                                self._cgm(rng, day.d, first=j == 0, last=j == 13), 1)

        rng = self.rng("checkins")
        picks = sorted(rng.sample(range(self.plan.days), items["checkin"]))
        mood = 6.0
        recs = []
        for i in picks:
            mood = min(9.5, max(2.5, mood + rng.uniform(-1.2, 1.2) + (6.5 - mood) * 0.2))
            recs.append({"date": self.days[i].iso, "mood": round(mood),
                         "energy": max(1, min(10, round(mood + rng.uniform(-2, 1.5)))),
                         "sleep_quality": rng.randint(4, 9),
                         "notes": fill(rng.choice(T.CHECKIN_NOTES), rng)})
        self.write_jsonl("data/health/checkins.jsonl", "checkin", recs)

        rng = self.rng("experiments")
        recs = []
        starts = self.dates(rng, items["experiment"])
        for i, start in enumerate(starts, start=1):
            name, hyp, protocol, result, status = T.EXPERIMENTS[(i - 1) % len(T.EXPERIMENTS)]
            rnd = (i - 1) // len(T.EXPERIMENTS)
            if rnd:
                name = f"{name} (round {rnd + 1})"
            length = _protocol_days(protocol) or rng.choice([14, 21, 30])
            if status in ("active", "planned"):  # running now: started in the last weeks
                start = self.ago(rng.randint(3, 25))
            end = start + timedelta(days=length)
            if status in ("active", "planned") or end > self.today:
                status, result, end_s = "active", "", None
            else:
                end_s = end.isoformat()
            recs.append({"id": f"exp-{i:04d}", "name": name, "start": start.isoformat(),
                         "end": end_s, "hypothesis": hyp, "protocol": protocol,
                         "result": result, "status": status})
        recs.sort(key=lambda r: (r["start"], r["id"]))
        self.write_jsonl("data/health/experiments.jsonl", "experiment", recs)

    def _garmin(self, rng: Random, d: date) -> dict[str, Any]:
        wd = d.weekday()
        acts = []
        if wd in (1, 3) and rng.random() < 0.8:
            acts.append({"type": "indoor_climbing", "duration_min": rng.randint(70, 140),
                         "distance_km": 0.0, "avg_hr": rng.randint(105, 132)})
        if wd >= 5 and rng.random() < 0.55:
            km = round(rng.uniform(25, 95), 1)
            acts.append({"type": "cycling", "duration_min": int(km * rng.uniform(2.4, 3.2)),
                         "distance_km": km, "avg_hr": rng.randint(128, 152)})
        elif wd >= 5 and rng.random() < 0.25:
            acts.append({"type": "hiking", "duration_min": rng.randint(90, 240),
                         "distance_km": round(rng.uniform(6, 16), 1),
                         "avg_hr": rng.randint(100, 125)})
        if wd in (0, 4) and rng.random() < 0.35:
            km = round(rng.uniform(4, 11), 1)
            acts.append({"type": "running", "duration_min": int(km * rng.uniform(5.2, 6.4)),
                         "distance_km": km, "avg_hr": rng.randint(140, 160)})
        if rng.random() < 0.5:
            km = round(rng.uniform(1.5, 5), 1)
            acts.append({"type": "walking", "duration_min": int(km * 12), "distance_km": km,
                         "avg_hr": rng.randint(88, 105)})
        steps = rng.randint(4000, 9000) + sum(int(a["distance_km"] * 1300)
                                              for a in acts if a["type"] != "cycling")
        sleep = rng.randint(350, 500)
        return {
            "date": d.isoformat(), "steps": steps,
            "distance_km": round(steps * 0.00078, 2),
            "active_kcal": 250 + sum(a["duration_min"] * 7 for a in acts) + rng.randint(0, 200),
            "resting_hr": rng.randint(49, 58) + (3 if sleep < 380 else 0),
            "max_hr": max([rng.randint(110, 130)] + [a["avg_hr"] + rng.randint(15, 30)
                                                     for a in acts]),
            "stress_avg": rng.randint(18, 45) + (8 if wd < 5 else 0),
            "body_battery": {"high": rng.randint(55, 100), "low": rng.randint(5, 35)},
            "sleep": {"duration_min": sleep, "deep_min": rng.randint(40, 110),
                      "rem_min": rng.randint(60, 125), "score": rng.randint(55, 94)},
            "activities": acts,
        }

    def _cgm(self, rng: Random, d: date, first: bool, last: bool) -> dict[str, Any]:
        events = []
        for hhmm, kind in (("07:", "meal"), ("12:", "meal"), ("19:", "meal")):
            events.append({"time": f"{hhmm}{rng.randint(0, 59):02d}", "kind": kind,
                           "value": rng.randint(118, 178),
                           "note": fill("{meal}", rng)})
        if rng.random() < 0.6:
            events.append({"time": f"{rng.randint(17, 20)}:{rng.randint(0, 59):02d}",
                           "kind": "exercise", "value": rng.randint(85, 110),
                           "note": rng.choice(["climbing session", "walk after dinner",
                                               "ride home", "short run"])})
        events.sort(key=lambda e: e["time"].zfill(5))
        lo = rng.randint(62, 80)
        hi = max(e["value"] for e in events) + rng.randint(0, 12)
        return {"date": d.isoformat(), "unit": "mg/dL", "mean": rng.randint(92, 112),
                "min": lo, "max": hi, "time_in_range_pct": round(rng.uniform(86, 99.5), 1),
                "readings": rng.randint(150, 250) if (first or last) else 288,
                "events": events}

    # -- identity -----------------------------------------------------------------------------

    def identity(self) -> None:
        items = self.plan.items
        rng = self.rng("quotes")
        recs = []
        for i, d in enumerate(self.dates(rng, items["quote"]), start=1):
            text, ctx, source = T.QUOTES[(i - 1) % len(T.QUOTES)]
            if i > len(T.QUOTES):
                ctx = fill(rng.choice(_QUOTE_CONTEXTS), rng)
            recs.append({"id": f"q-{i:05d}", "date": d.isoformat(), "text": text,
                         "context": ctx, "source": source})
        self.write_jsonl("data/identity/quotes.jsonl", "quote", recs)

        rng = self.rng("observations")
        recs = []
        for i, d in enumerate(self.dates(rng, items["observation"]), start=1):
            obs, cat, ev = T.OBSERVATIONS[(i - 1) % len(T.OBSERVATIONS)]
            if i > len(T.OBSERVATIONS):
                ev = f"{ev} Seen again around {d.strftime('%B %Y')}."
            recs.append({"id": f"obs-{i:05d}", "date": d.isoformat(), "observation": obs,
                         "category": cat, "evidence": ev})
        self.write_jsonl("data/identity/observations.jsonl", "observation", recs)

        rng = self.rng("stories")
        recs = []
        for i, d in enumerate(self.dates(rng, items["story"]), start=1):
            title, people, story = T.STORIES[(i - 1) % len(T.STORIES)]
            title, story = _fill_same(rng, title, story)
            if i > len(T.STORIES):
                title = f"{title}, retold"
                story += " " + fill(rng.choice(_STORY_CODAS), rng)
            recs.append({"id": f"st-{i:05d}", "date": d.isoformat(), "title": title,
                         "story": story, "people": ["Sam Rivera", *people]})
        self.write_jsonl("data/identity/stories.jsonl", "story", recs)

    def interviews(self) -> None:
        rng = self.rng("interviews")
        used: set[str] = set()
        for i, d in enumerate(self.dates(rng, self.plan.items["interview"])):
            topic, desc, qas = T.INTERVIEW_TOPICS[i % len(T.INTERVIEW_TOPICS)]
            session = f"{d.isoformat()}-{topic}"
            while session in used:
                session += "-b"
            used.add(session)
            recs = [{"session_id": session, "date": d.isoformat(), "question": q, "answer": a}
                    for q, a in qas]
            self.write_jsonl(f"data/interviews/{session}.jsonl", "interview", recs)
            self.write_json(f"data/interviews/sessions/{session}.json", "interview_meta", {
                "session_id": session, "date": d.isoformat(), "topic": desc,
                "duration_min": rng.randint(25, 70), "question_count": len(qas),
                "summary": f"Session on {topic}: " + " ".join(a.split(".")[0] + "."
                                                              for _, a in qas[:2])}, 1)

    def podcasts(self) -> None:
        rng = self.rng("podcasts")
        recs = []
        for d in self.dates(rng, self.plan.items["podcast_digest"]):
            ep, gist, takeaways = rng.choice(T.PODCAST_EPISODES)
            pod = rng.choice(T.BANKS["podcast"])
            recs.append({"date": d.isoformat(), "podcast": pod, "episode": ep,
                         "digest": f"{gist} " + fill(rng.choice(_PODCAST_REACTIONS), rng),
                         "takeaways": list(takeaways)})
        self.write_jsonl("data/podcasts/digests.jsonl", "podcast_digest", recs)

    # -- meetings, voice, transcripts ---------------------------------------------------------

    def meetings(self) -> None:
        rng = self.rng("meetings")
        used: set[str] = set()
        for d in self.dates(rng, self.plan.items["meeting"], weekdays=True):
            title, people, summary = rng.choice(T.MEETING_KINDS)
            attendees = ["Sam Rivera", *people]
            summary = fill(summary, rng) + " " + fill(rng.choice(_MEETING_OUTCOMES), rng)
            rel = f"data/meetings/processed/{d.isoformat()}-{_slug(title)}.json"
            k = 2
            while rel in used:
                rel = f"data/meetings/processed/{d.isoformat()}-{_slug(title)}-{k}.json"
                k += 1
            used.add(rel)
            segments, t = [], 0.0
            speaker = "Sam Rivera"
            for _ in range(rng.randint(8, 26)):
                if rng.random() < 0.7:
                    speaker = rng.choice(attendees)
                others = [a.split()[0] for a in attendees if a != speaker]
                text = fill(rng.choice(T.MEETING_LINES).replace(
                    "{attendee}", rng.choice(others)), rng)
                if rng.random() < 0.4:
                    text += " " + fill(rng.choice(T.MEETING_LINES).replace(
                        "{attendee}", rng.choice(others)), rng)
                dur = round(len(text) / 14 + rng.uniform(1, 6), 1)
                segments.append({"speaker": speaker, "start": round(t, 1),
                                 "end": round(t + dur, 1), "text": text})
                t += dur + rng.uniform(0.5, 20)
            header = f"Meeting: {title} — {d.isoformat()} — Attendees: {', '.join(attendees)}"
            lines = [f"[{_clock(s['start'])}] {s['speaker']}: {s['text']}" for s in segments]
            chunks = 1 + _pack_count(header, lines)
            self.write_json(rel, "meeting", {"title": title, "date": d.isoformat(),
                                             "attendees": attendees, "summary": summary,
                                             "segments": segments}, chunks)

    def voice(self) -> None:
        rng = self.rng("voice")
        used: set[str] = set()
        for d in self.dates(rng, self.plan.items["voice"]):
            title, base_lines = rng.choice(T.VOICE_TOPICS)
            rel = f"data/voice/{d.isoformat()}-{_slug(title)}.json"
            k = 2
            while rel in used:
                rel = f"data/voice/{d.isoformat()}-{_slug(title)}-{k}.json"
                k += 1
            used.add(rel)
            day = self.days[(d - self.plan.start).days]
            sec = rng.randint(7 * 3600, 22 * 3600)
            recorded = f"{day.iso}T{_HMS[sec]}{day.off}"
            texts = list(base_lines)
            if rng.random() < 0.5:
                texts.append(fill(rng.choice(_VOICE_EXTRAS), rng))
            segments, t = [], 0.0
            for text in texts:
                dur = round(len(text) / 15 + rng.uniform(0.5, 3), 1)
                segments.append({"start": round(t, 1), "end": round(t + dur, 1), "text": text})
                t += dur + rng.uniform(0.3, 4)
            header = f"Voice memo: {title} — recorded {day.iso} {_HMS[sec][:5]}"
            lines = [f"[{_clock(s['start'])}] {s['text']}" for s in segments]
            self.write_json(rel, "voice", {"recorded_at": recorded, "title": title,
                                           "segments": segments}, _pack_count(header, lines))

    def transcripts(self) -> None:
        rng = self.rng("transcripts")
        for i, d in enumerate(self.dates(rng, self.plan.items["transcript"])):
            topic, desc, qas = T.INTERVIEW_TOPICS[i % len(T.INTERVIEW_TOPICS)]
            md = _Md(preamble=f"Identity interview transcript, recorded {d.isoformat()} at home "
                              f"in Oakland. Topic: {desc}. Interviewer: Ada (memlens "
                              "interview agent). Lightly edited for readability.")
            md.section(1, f"Identity interview: {topic}", fill(rng.choice(_TRANSCRIPT_INTROS),
                                                                rng))
            for q, a in qas:
                follow = fill(rng.choice(_TRANSCRIPT_FOLLOWUPS), rng)
                md.section(2, q, f"**Sam:** {a}\n\n**Ada:** {follow}\n\n**Sam:** "
                                 + fill(rng.choice(_TRANSCRIPT_REPLIES), rng))
            suffix = "" if i < len(T.INTERVIEW_TOPICS) else f"-{i}"
            self.write_md(f"data/identity/transcripts/{d.isoformat()}-{topic}{suffix}.md",
                          "transcript", md)

    # -- markdown memory ----------------------------------------------------------------------

    def board(self) -> None:
        rng = self.rng("board")
        used: set[str] = set()
        for d in self.dates(rng, self.plan.items["board_summary"]):
            rel = f"data/board/{d.isoformat()}-granite-coop-board.md"
            k = 2
            while rel in used:
                rel = f"data/board/{d.isoformat()}-granite-coop-board-{k}.md"
                k += 1
            used.add(rel)
            month = d.strftime("%B %Y")
            md = _Md()
            md.section(1, f"Granite Climbing Co-op: board meeting, {month}",
                       f"Monthly board meeting held at the gym on {d:%A} {d.day} {d:%B}. "
                       "Minutes by Sam Rivera (treasurer).")
            md.section(2, "Attendees", _bullets(["Jonah Fischer (chair)", "Sam Rivera (treasurer)",
                                                 "Hannah Weiss (member rep)",
                                                 rng.choice(["Rosa Castillo (secretary)",
                                                             "Ben Hale (setting lead)"])]))
            md.section(2, "Treasurer's report", fill(rng.choice(_BOARD_FINANCE), rng))
            md.section(2, "Discussion", " ".join(fill(t, rng) for t in rng.sample(
                _BOARD_DISCUSSION, 2)))
            md.section(2, "Decisions", _bullets(fill(t, rng) for t in rng.sample(
                _BOARD_DECISIONS, 2)))
            md.section(2, "Action items", _bullets(fill(t, rng) for t in rng.sample(
                _BOARD_ACTIONS, 3)))
            self.write_md(rel, "board_summary", md)

    def codebase(self) -> None:
        rng = self.rng("codebase")
        for i in range(self.plan.items["codebase_doc"]):
            name, purpose = _SERVICES[i % len(_SERVICES)]
            if i >= len(_SERVICES):
                name = f"{name}-{_CODENAMES[(i // len(_SERVICES) - 1) % len(_CODENAMES)].lower()}"
                if i >= len(_SERVICES) * (1 + len(_CODENAMES)):
                    name += f"-{i}"
            deps = rng.sample([s for s, _ in _SERVICES if s != name], 2)
            owner = rng.choice(["Tomás Herrera", "Sam Rivera", "Kenji Watanabe"])
            md = _Md({"kind": "service", "name": name, "owner": owner, "depends_on": deps,
                      "date": self.dates(rng, 1)[0]})
            md.section(1, name, purpose)
            md.section(2, "Key modules", _bullets(fill(t, rng) for t in rng.sample(
                _MODULES, 3)))
            md.section(2, "Dependencies",
                       f"Calls {deps[0]} and {deps[1]}. Owned by {owner}; pages go to "
                       "#oncall.")
            md.section(2, "Gotchas", fill(rng.choice(_GOTCHAS), rng))
            md.section(3, "Known issues", fill("The {bug} came back once in {env}; see the "
                                                "postmortem for {incident}.", rng))
            self.write_md(f"memory/codebase/{name}.md", "codebase_doc", md)

    def rwgps(self) -> None:
        rng = self.rng("rwgps")
        for i in range(self.plan.items["rwgps_memory"]):
            title, sections = _WORK_MEMORY[i % len(_WORK_MEMORY)]
            if i >= len(_WORK_MEMORY):
                title = f"{title} ({i // len(_WORK_MEMORY) + 1})"
            md = _Md({"title": title, "date": self.dates(rng, 1)[0], "scope": "work"})
            md.section(1, title, fill(rng.choice(_WORK_MEMORY_INTROS), rng))
            for heading, body in sections:
                md.section(2, heading, fill(body, rng))
            self.write_md(f"memory/rwgps/{_slug(title)}.md", "rwgps_memory", md)

    def scratch(self) -> None:
        rng = self.rng("scratch")
        items = self.plan.items
        picks = sorted(rng.sample(range(self.plan.days), items["scratch_daily"]))
        for i in picks:
            day = self.days[i]
            md = _Md()
            md.section(2, "Today", _bullets(fill(t, rng) for t in rng.sample(_SCRATCH_TODAY, 3)))
            md.section(2, "Notes", fill(rng.choice(_SCRATCH_NOTES), rng))
            md.section(2, "Tomorrow", _bullets(fill("{todo}", rng) for _ in range(2)))
            self.write_md(f"memory/scratch/{day.iso}.md", "scratch", md)
        weeks = sorted(rng.sample(range(1, self.plan.weeks), items["scratch_weekly"]))
        for w in weeks:
            d = self.days[w * 7].d
            iso = d.isocalendar()
            md = _Md()
            md.section(1, f"Week {iso.week}, {iso.year}",
                       fill("Theme of the week: {project}. Energy: {feeling}.", rng))
            md.section(2, "Wins", _bullets(fill(t, rng) for t in rng.sample(_WEEK_WINS, 2)))
            md.section(2, "Misses", _bullets(fill(t, rng) for t in rng.sample(_WEEK_MISSES, 2)))
            md.section(2, "Next week", _bullets(fill("{todo}", rng) for _ in range(3)))
            self.write_md(f"memory/scratch/{iso.year}-W{iso.week:02d}.md", "scratch", md)

    # -- notes vault ----------------------------------------------------------------------------

    def notes(self) -> None:
        rng = self.rng("notes")
        d = self.ago(DEMO_FACTS["note_days_before_today"])
        fm = {"title": DEMO_FACTS["note_title"], "date": d, **{
            k: v for k, v in DEMO_FACTS["note_frontmatter"].items() if k != "title"}}
        md = _Md(fm)
        md.section(1, "Atlas migration plan",
                   "Move tile serving and routing off the old monolith onto the Atlas platform "
                   "without a user-visible outage. Owner: Sam. Sponsor: Priya. #atlas/cutover")
        md.section(2, "Goals", _bullets([
            "Cut tile p99 latency below 120 ms", "Retire the legacy render farm by Q3",
            "Zero lost routes during the cutover"]))
        md.section(2, "Cutover steps",
                   "1. Dual-write routes to both stores for two weeks.\n2. Shadow-read and "
                   "compare.\n3. Flip reads region by region, eu-west first.\n\nWe picked "
                   "region-by-region over a big-bang flip. #decision")
        md.section(3, "Rollback",
                   "Reads can flip back per region within five minutes; writes stay dual "
                   "until the final sign-off with Tomás. #risk")
        md.section(2, "Open questions", _bullets([
            "Who owns the elevation service after the move?",
            "Do we need a freeze during the iOS release?",
            "Budget for the extra replica in eu-west"]))
        self.write_md(DEMO_FACTS["note_file"], "note", md)

        used = {DEMO_FACTS["note_file"]}
        kinds = list(_NOTE_KINDS)
        n = self.plan.items["note"] - 1
        for i, nd in enumerate(self.dates(rng, max(0, n))):
            kind = kinds[i % len(kinds)] if i < len(kinds) else rng.choice(kinds)
            rel, md = _NOTE_KINDS[kind](self, rng, nd)
            stem = rel[:-3]
            k = 2
            while rel in used:
                rel = f"{stem}-{k}.md"
                k += 1
            used.add(rel)
            self.write_md(rel, "note", md)

    # -- messaging ----------------------------------------------------------------------------

    def messaging(self) -> None:
        other = sum(v for k, v in self.chunks.items() if k not in MESSAGING_SHARES)
        if self.requested is None:
            windows = dict(DEFAULT_WINDOWS)
        else:
            m = max(3, self.requested - other)
            share = sum(MESSAGING_SHARES.values())
            slack = round(m * MESSAGING_SHARES["slack"] / share)
            tg = round(m * MESSAGING_SHARES["telegram"] / share)
            windows = {"slack": max(1, slack), "telegram": max(1, tg),
                       "signal": max(1, m - slack - tg)}
        self._total = self._done + sum(windows.values())
        total_msgs = sum(windows.values()) * WINDOW
        pool_size = max(1500, min(25_000, total_msgs // 200))
        pools = _Pools(f"{self.seed}/pool", pool_size)
        coworkers = _coworkers(self.rng("coworkers"))
        markup_day = (self.ago(DEMO_FACTS["markup_days_before_today"]) - self.plan.start).days
        self.facts["markup_date"] = self.days[markup_day].iso

        # slack
        rng = self.rng("slack")
        chans = _slack_channels(rng, windows["slack"], big=self.requested is not None)
        sizes = _apportion(windows["slack"], [1.0 / (i + 1) for i in range(len(chans))])
        for (name, domain, start_frac), w in zip(chans, sizes, strict=True):
            members = _slack_members(rng, name, domain, coworkers)
            specials = {}
            if name == "ops-alerts":
                specials[markup_day] = ("Tomás Herrera", _MARKUP_TEXT)
            start = 0 if specials else int(start_frac * self.plan.days)
            self._chat(f"data/slack/{name}.jsonl", "slack", w, members, pools, domain, rng,
                       start, specials)
        # telegram
        rng = self.rng("telegram")
        chats = list(T.TELEGRAM_CHATS)
        tweights = [1.0, 0.6, 0.5, 0.4, 0.4, 0.25, 0.2, 0.15]
        if self.requested is not None and windows["telegram"] > 2000:
            extra = min(40, (windows["telegram"] - 2000) // 3000 + 1)
            for j in range(extra):
                nm = coworkers[-1 - j]
                chats.append((_slug(nm), rng.choice(["friends", "climbing", "social"]), [nm]))
                tweights.append(0.12)
        sizes = _apportion(windows["telegram"], tweights[:len(chats)])
        for (name, domain, people), w in zip(chats, sizes, strict=True):
            members = [("Sam Rivera", 1.0)] + [(p, 1.0) for p in people]
            self._chat(f"data/telegram/{name}.jsonl", "telegram", w, members, pools, domain,
                       rng, 0, {})
        # signal
        rng = self.rng("signal")
        sizes = _apportion(windows["signal"], [0.65, 0.35][:len(T.SIGNAL_THREADS)])
        for (name, domain, people), w in zip(T.SIGNAL_THREADS, sizes, strict=True):
            members = [("Sam Rivera", 1.0)] + [(p, 1.2) for p in people]
            self._chat(f"data/signal/{name}.jsonl", "signal", w, members, pools, domain, rng,
                       0, {})

    def _chat(self, rel: str, stype: str, windows: int, members: list[tuple[str, float]],
              pools: _Pools, domain: str, rng: Random, start: int,
              specials: dict[int, tuple[str, str]]) -> None:
        """Write one messaging log of ``windows`` windows, streaming."""
        n = windows * WINDOW - rng.randint(0, WINDOW - 1)
        days = self.days[start:]
        if stype == "slack":
            lo, hi = (0, 86399) if domain == "ops" else (8 * 3600 + 1800, 19 * 3600)
            weekend_w = 0.5 if domain == "ops" else 0.1
        elif stype == "telegram":
            lo, hi, weekend_w = 7 * 3600, 23 * 3600 + 1800, 1.3
        else:
            lo, hi, weekend_w = 8 * 3600, 22 * 3600, 1.2
        span = hi - lo
        weights = []
        r = rng.random
        for d in days:
            x = (weekend_w if d.weekend else 1.0) * (0.4 + r())
            if r() < 0.04:
                x *= 3.0
            weights.append(x)
        sp = {k - start: v for k, v in specials.items()}
        for k in sp:
            weights[k] = max(weights[k], 2.0)
        counts = _apportion(n, weights, minimum=0)
        for k in sp:
            if counts[k] == 0:
                j = max(range(len(counts)), key=counts.__getitem__)
                counts[j] -= 1
                counts[k] += 1

        bag: list[str] = []
        for name, wt in members:
            bag.extend([_q(name)] * max(1, round(wt * 4)))
        nb = len(bag)
        pool = pools.get(domain)
        npool = len(pool)
        tails = pools.tails(domain)
        ntails = len(tails)
        tail_p = 0.25
        switch_p = 0.55 if len(members) <= 2 else 0.8
        thread_p = 0.12 if stype == "slack" else 0.0
        spk = bag[0]
        hms = _HMS
        utc_dates: dict[int, str] = {}
        p = self._path(rel)
        buf: list[str] = []
        written = ticked = 0
        with p.open("w", encoding="utf-8", newline="\n") as fh:
            for di, c in enumerate(counts):
                if not c:
                    continue
                d = days[di]
                secs = sorted([lo + int(r() * span) for _ in range(c)])
                special = sp.get(di)
                recent: list[str] = []
                for sec in secs:
                    if r() < switch_p:
                        spk = bag[int(r() * nb)]
                    text = pool[int(r() * npool)]
                    if r() < tail_p:
                        text = text + " " + tails[int(r() * ntails)]
                    who = spk
                    if special is not None:
                        who, text = _q(special[0]), _esc(special[1])
                        special = None
                    if stype == "slack":
                        ts = d.iso + "T" + hms[sec] + d.off
                        if recent and r() < thread_p:
                            thr = '"' + recent[-1 - int(r() * min(len(recent), 5))] + '"'
                        else:
                            thr = "null"
                            recent.append(ts)
                        buf.append('{"ts": "' + ts + '", "user": ' + who + ', "text": "' + text
                                   + '", "thread_ts": ' + thr + "}\n")
                    elif stype == "telegram":
                        u = d.utc0 + sec
                        ud = u // 86400
                        ds = utc_dates.get(ud)
                        if ds is None:
                            ds = utc_dates[ud] = (_EPOCH + timedelta(days=ud)).isoformat()
                        buf.append('{"date": "' + ds + "T" + hms[u % 86400]
                                   + '+00:00", "from": ' + who + ', "text": "' + text + '"}\n')
                    else:
                        ms = (d.utc0 + sec) * 1000 + int(r() * 1000)
                        buf.append('{"timestamp": ' + str(ms) + ', "sender": ' + who
                                   + ', "body": "' + text + '"}\n')
                if len(buf) >= 4096:
                    fh.write("".join(buf))
                    written += len(buf)
                    buf.clear()
                    self._tick(written // WINDOW - ticked)
                    ticked = written // WINDOW
            if buf:
                fh.write("".join(buf))
        self._account(stype, p, math.ceil(n / WINDOW), ticked)


# =============================================================================================
# Messaging helpers
# =============================================================================================


class _Pools:
    """Pre-filled, pre-escaped message texts per conversation domain (built lazily)."""

    def __init__(self, seed: str, size: int) -> None:
        self.seed = seed
        self.size = size
        self._pools: dict[str, list[str]] = {}
        self._tails: dict[str, list[str]] = {}

    def get(self, domain: str) -> list[str]:
        if domain not in self._pools:
            templates = T.CHAT[domain]
            rng = Random(f"{self.seed}/{domain}")
            self._pools[domain] = [_esc(fill(templates[int(rng.random() * len(templates))], rng))
                                   for _ in range(self.size)]
        return self._pools[domain]

    def tails(self, domain: str) -> list[str]:
        kind = T.DOMAIN_TAILS[domain]
        if kind not in self._tails:
            rng = Random(f"tails/{kind}")
            self._tails[kind] = [_esc(fill(t, rng)) for t in T.CHAT_TAILS[kind] for _ in range(3)]
        return self._tails[kind]


def _coworkers(rng: Random) -> list[str]:
    names = [f"{f} {last}" for f in T.FIRST_NAMES for last in T.LAST_NAMES]
    return rng.sample(names, 120)


def _slack_channels(rng: Random, windows: int, big: bool) -> list[tuple[str, str, float]]:
    """(name, domain, start fraction of the history) per channel, largest first."""
    chans = [(n, dom, 0.0) for n, dom in T.CORE_SLACK_CHANNELS]
    if not big:
        return chans
    count = max(len(chans), min(400, 8 + windows // 1000))
    combos = [(p, t) for p in T.SLACK_PREFIXES for t in T.SLACK_TOPICS]
    rng.shuffle(combos)
    taken = {n for n, _, _ in chans}
    for prefix, topic in combos:
        if len(chans) >= count:
            break
        name = f"{prefix}-{topic}"
        if name in taken:
            continue
        taken.add(name)
        dom = PREFIX_DOMAIN_OVERRIDES.get(topic) or T.PREFIX_DOMAIN[prefix]
        chans.append((name, dom, rng.choice([0.0, 0.0, 0.0, rng.uniform(0.05, 0.7)])))
    return chans


PREFIX_DOMAIN_OVERRIDES = {"bikes": "social", "runs": "social", "hikes": "climbing",
                           "books": "social", "food": "social", "music": "social",
                           "pets": "social", "parents": "social", "photos": "social",
                           "gardening": "social", "games": "social"}


def _slack_members(rng: Random, name: str, domain: str,
                   coworkers: list[str]) -> list[tuple[str, float]]:
    cast = {"eng": [("Sam Rivera", 3.0), ("Tomás Herrera", 3.0), ("Kenji Watanabe", 2.0),
                    ("Priya Natarajan", 1.0)],
            "ops": [("Fernhill Alerts", 3.0), ("Sam Rivera", 1.5), ("Tomás Herrera", 1.5),
                    ("Kenji Watanabe", 1.0)],
            "product": [("Grace O'Neill", 3.0), ("Sam Rivera", 1.5), ("Priya Natarajan", 1.0),
                        ("Tomás Herrera", 1.0)],
            "social": [("Sam Rivera", 1.0), ("Grace O'Neill", 1.0), ("Kenji Watanabe", 1.0),
                       ("Tomás Herrera", 1.0)],
            "climbing": [("Sam Rivera", 2.0), ("Kenji Watanabe", 2.0)]}[domain]
    core = name in {n for n, _ in T.CORE_SLACK_CHANNELS}
    if not core:
        cast = [m for m in cast if rng.random() < 0.5 or m[0] == "Sam Rivera"]
    others = rng.sample(coworkers, rng.randint(3, 9) if core else rng.randint(3, 7))
    return cast + [(o, rng.choice([0.5, 1.0, 1.5])) for o in others]


# =============================================================================================
# Content banks used only here (longer documents)
# =============================================================================================

_JOURNAL_WEIGHTS = {"work": 0.24, "family": 0.11, "partner": 0.12, "climbing": 0.14,
                    "cooking": 0.08, "health": 0.08, "books": 0.06, "travel": 0.05,
                    "decisions": 0.05, "friends": 0.07}

_ENTITY_RECENT = {
    "home": ["{name} and Sam cooked {food} together on a Sunday.",
             "{name} booked the {trip_thing} for {place}.",
             "Walk around the lake with {name}; talked about {place}."],
    "family": ["{name} called about {holiday}.", "Sent {name} photos from {place}.",
               "{name} shared news about {niece}, who is {kid_thing}."],
    "friends": ["Climbed at {crag} with {name}.", "{name} recommended {book}.",
                "Dinner with {name}: {food}."],
    "work": ["Worked with {name} on {project}.", "{name} reviewed the plan for {feature}.",
             "1:1 with {name} about {project}."],
    "health": ["Appointment with {name}; discussed sleep and the CGM trial.",
               "{name}'s office sent lab results."],
    "coop": ["Coffee with {name}; talked about {coop_event}.",
             "{name} chaired the board meeting; insurance renewal discussed."],
}

_ENTITY_PROJECTS = [
    ("Atlas migration", "Moving tile serving and routing onto the Atlas platform. Sam owns the "
                        "rollout plan; Tomás leads the tile cache cutover."),
    ("Routefinder v2", "Rewrite of the route planner around a partitioned road graph."),
    ("Offline maps", "Downloadable map regions for riders without signal; Grace is the PM."),
    ("Billing revamp", "Replacing the billing worker and fixing the double-charge edge case."),
    ("Co-op bouldering wall", "New bouldering wall at the Granite Co-op, approved by members."),
    ("Kitchen renovation ideas", "Sam and Maya's wish list for the kitchen, if they ever buy."),
]
_ENTITY_TOPICS = [
    ("Climbing", "Sam's main sport: bouldering at the co-op twice a week, trad trips with "
                 "Hannah and Bobby."),
    ("Cooking", "Sunday cooking, sourdough with Marcus, dinner parties for friends."),
    ("Sleep", "Experiments with caffeine timing, phone out of the bedroom, sleep scores."),
    ("Reading", "Book club with Olivia; mostly fiction, some systems thinking."),
    ("Cycling", "Weekend rides in the East Bay hills, training for the Diablo century."),
    ("Career", "Staff-engineer track, mentoring Kenji, protecting focus time."),
]
_CODENAMES = ["Heron", "Juniper", "Cormorant", "Manzanita", "Osprey", "Sequoia", "Tern",
              "Buckeye", "Kestrel", "Madrone", "Plover", "Yarrow"]
_PROJECT_STATUS = ["On track; {pct}% done. Next milestone in {month}.",
                   "At risk: blocked on {eng_thing}. Escalated to Priya.",
                   "Paused until {project} lands.", "Shipped in {month}; cleanup remaining."]
_RISKS = ["{eng_thing} may not scale past {rps} rps", "key people out in {month}",
          "the {bug} could come back", "scope creep from {feature}",
          "dependency on {eng_thing}"]
_TOPIC_WHY = ["It keeps Sam sane when work is loud. Mentioned in most good weeks.",
              "A thread through the year: shows up in the journal, chats and check-ins.",
              "Sam wants to get better at it deliberately, not just by accident."]
_TOPIC_RELATED = ["People: {friend}", "Book: {book}", "Place: {crag}", "Place: {place}",
                  "Habit: {todo}", "Podcast: {podcast}"]
_QUOTE_CONTEXTS = ["Repeated to {friend} over coffee", "Said again in a 1:1 with Kenji",
                   "Written on a sticky note above the desk", "Told Maya on a walk",
                   "Quoted back by {colleague}"]
_STORY_CODAS = ["{friend} still brings it up every time we see each other.",
                "I told the story again at dinner and Maya corrected half of it.",
                "Funny how different it looks a year later."]
_PODCAST_REACTIONS = ["Made me rethink how I run {project}.", "Sent it to {friend}.",
                      "Listened on the ride up {ride}.", "Good one for the Atlas team.",
                      "Want to try this with Kenji.", "Mostly agree, a bit too neat."]
_MEETING_OUTCOMES = ["Decision: {eng_action} first.", "Owner for follow-ups: Sam.",
                     "Next check-in {weekday}.", "Open question: what about {feature}?",
                     "Agreed to revisit in {month}."]
_VOICE_EXTRAS = ["Oh, and remind me to {todo}.", "Also: call Mom on {weekday}.",
                 "Note to self: ask {colleague} about {eng_thing}."]
_TRANSCRIPT_INTROS = ["We started with coffee and a few warm-up questions about the week.",
                      "Sam had just come back from {crag}, so we began with climbing.",
                      "A slower session; Sam was reflective after a long week on {project}."]
_TRANSCRIPT_FOLLOWUPS = ["Can you give an example from this year?",
                         "How did Maya react to that?", "Has that changed since last year?",
                         "What would Bobby say about that?", "Where does that come from?"]
_TRANSCRIPT_REPLIES = ["The clearest example is {project}. I learned it the hard way.",
                       "Honestly, it came from my mom. She modeled it without saying it.",
                       "It's changed a lot. A year ago I would have said the opposite.",
                       "Bobby would laugh and say I'm overthinking it. He'd be right.",
                       "Probably from climbing: you learn to commit to the next move."]
_BOARD_FINANCE = ["Dues income steady at {num3} members. Insurance renewal up {small_pct}%; reserve "
                  "covers four months of operations.",
                  "Revenue ahead of budget thanks to the {coop_event}. Hold budget request: "
                  "${num3}0.",
                  "Cash flow tight this month; proposed delaying the hold order to {month}."]
_BOARD_DISCUSSION = ["Members asked for more youth programs.",
                     "Setters want a second reset night per month.",
                     "The new bouldering wall quote came in higher than expected.",
                     "Discussed the {coop_event} schedule and volunteer gaps.",
                     "Jonah raised a succession plan for the chair role."]
_BOARD_DECISIONS = ["Approved the {coop_event} budget.", "Renew insurance with the current carrier.",
                    "Start fundraising for the new wall in {month}.",
                    "Raise day-pass prices by $2.", "Table the succession plan until {month}."]
_BOARD_ACTIONS = ["Sam: update the three-year budget.", "Jonah: call the insurance broker.",
                  "Hannah: recruit volunteers for the {coop_event}.",
                  "Sam: send dues reminders.", "Jonah: draft the grant application."]
_SERVICES = [
    ("tile-cache", "Serves vector map tiles from a two-tier cache in front of the renderer."),
    ("geocoder", "Turns place names into coordinates; backed by the search indexer."),
    ("route-planner", "Computes bike routes over the partitioned road graph."),
    ("elevation-service", "Elevation profiles and grade per route segment."),
    ("billing-worker", "Processes subscription renewals and refunds from the queue."),
    ("sync-api", "Syncs routes and rides between the apps and the backend."),
    ("search-indexer", "Keeps the place and route search index fresh."),
    ("auth-proxy", "Terminates sessions and issues internal tokens."),
]
_MODULES = ["cache/warmer: prefetches popular tiles every {minutes} minutes",
            "api/handlers: HTTP handlers, one file per endpoint",
            "graph/partition: splits the road graph by region",
            "queue/consumer: the Kafka consumer with retry and dead-letter",
            "store/postgres: all SQL lives here", "metrics: p50/p99 histograms per route",
            "flags: feature flag lookups with a local cache"]
_GOTCHAS = ["Restarting during the cache warm-up causes a thundering herd; wait {minutes} "
            "minutes.", "Timezone handling is in UTC everywhere except the legacy exports.",
            "The retry budget is shared with {eng_thing}; a storm there starves this service.",
            "Migrations must be backwards compatible for one release."]
_WORK_MEMORY = [
    ("Atlas context", [("Why Atlas", "The old monolith cannot scale tiles past {rps} rps."),
                       ("Who decides", "Priya signs off; Tomás owns the tile cache; Sam owns "
                                       "the rollout."),
                       ("History", "Two earlier attempts stalled on {eng_thing}.")]),
    ("Team norms", [("Meetings", "No meetings before 11 on Tuesdays and Thursdays."),
                    ("Reviews", "Small PRs, reviewed within a day. Kenji is the fastest."),
                    ("On-call", "Weekly rotation; handoff notes in #oncall.")]),
    ("Stakeholders", [("Product", "Grace O'Neill, route planning; cares about {feature}."),
                      ("Leadership", "Priya Natarajan; wants fewer surprises, early risks."),
                      ("Support", "Escalations about {feature} go to Sam's team.")]),
    ("On-call lessons", [("Top alerts", "{eng_thing} latency, disk on the replica, queue "
                                         "depth."),
                         ("What helps", "Runbooks that start with the rollback."),
                         ("What hurts", "Alerts without owners; the {bug}.")]),
    ("Quarterly priorities", [("Now", "{project}; then {feature}."),
                              ("Next", "Cost work on {eng_thing}."),
                              ("Not now", "Rewriting the Android build.")]),
    ("Hiring loop", [("Stages", "Recruiter screen, pairing exercise, system design, values."),
                     ("Sam's role", "System design interviewer; calibrates with Tomás.")]),
    ("Release process", [("Cadence", "Weekly mobile releases, daily backend deploys."),
                         ("Freezes", "No deploys Friday afternoon or during {holiday}.")]),
    ("Offline maps background", [("Users", "{user_need}."),
                                 ("Constraints", "Storage on phones; tile licensing.")]),
    ("Career notes", [("Staff scope", "Priya's bar: lead across teams, write the strategy."),
                      ("Feedback", "Speak up earlier when a project slips.")]),
    ("Routing team history", [("Origins", "Started as two people and a weekend prototype."),
                              ("Today", "Tomás leads; five engineers; owns {eng_thing}.")]),
]
_WORK_MEMORY_INTROS = ["Working context for Sam at Fernhill Maps, kept current by hand.",
                       "Notes to future Sam: what matters here and why.",
                       "Context that never fits in a ticket. Updated after {project} reviews."]
_SCRATCH_TODAY = ["Review Kenji's PR on {eng_thing}", "Draft the {project} update",
                  "1:1 with Priya at {clock}", "Fix the {bug}", "Reply to Jonah about the budget",
                  "Book the {trip_thing} for {place}", "Climb at {gym}", "Call Mom"]
_SCRATCH_NOTES = ["Idea: {eng_action} in {eng_thing}. Ask Tomás.",
                  "Meeting went long; need to say no to the reporting thing.",
                  "Feeling {feeling}. Walk at lunch helped.",
                  "Numbers for {feature}: {pct}% adoption so far."]
_WEEK_WINS = ["Shipped {feature} to {pct}%", "Kenji ran his first review",
              "Climbed {route} ({grade})", "Cooked {food} for friends",
              "Finished {book}", "Closed the {bug}"]
_WEEK_MISSES = ["Skipped two climbing sessions", "Too many meetings on {weekday}",
                "Didn't call Mom", "Let the {project} doc slip", "Slept badly after on-call"]


def _note_recipe(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    food = rng.choice(T.BANKS["food"])
    md = _Md({"title": food.capitalize(), "date": d, "tags": ["cooking", "recipe"],
              "status": rng.choice(["tested", "draft", "favorite"]),
              "priority": rng.randint(2, 5)})
    md.section(1, food.capitalize(), fill("Adapted from Marcus's version; serves four. Goes "
                                          "well with {food}.", rng))
    md.section(2, "Ingredients", _bullets(rng.sample(
        ["2 onions", "4 cloves garlic", "1 can tomatoes", "olive oil", "salt and pepper",
         "1 lemon", "a bunch of cilantro", "500 g chicken thighs", "300 g mushrooms",
         "1 cup rice", "fish sauce", "butter"], 6)))
    md.section(2, "Method", "1. Prep everything first.\n2. " + fill(
        "Cook low and slow with {ingredient}.", rng) + "\n3. Taste, adjust, rest five minutes.")
    md.section(2, "Notes", fill("Made it for {friend}; next time more {ingredient}. "
                                "#weeknight #cooking", rng))
    return f"notes/cooking/recipes/{_slug(food)}.md", md


def _note_climbing(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    route, grade, crag = (rng.choice(T.BANKS[k]) for k in ("route", "grade", "crag"))
    md = _Md({"title": f"{route} ({grade})", "date": d, "tags": ["climbing", "project"],
              "status": rng.choice(["projecting", "sent", "someday"]),
              "priority": rng.randint(1, 4)})
    md.section(1, f"{route}, {crag}", f"A {grade} at {crag}. Hannah's recommendation.")
    md.section(2, "Beta", fill("Start matched on the jug, high left foot, deadpoint to the "
                               "crimp. The crux is the {n}th move. #beta", rng))
    md.section(2, "Sessions", _bullets(
        f"{(d - timedelta(days=7 * k)).isoformat()}: " + rng.choice(
            ["fell at the crux", "linked the top half", "cold, no progress", "so close"])
        for k in range(3, 0, -1)))
    md.section(2, "Next time", "Warm up longer; bring the brush. #climbing")
    return f"notes/climbing/projects/{_slug(route)}.md", md


def _note_book(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    book = rng.choice(T.BANKS["book"])
    md = _Md({"title": book, "date": d, "tags": ["books", "reading"],
              "status": rng.choice(["reading", "finished", "abandoned"]),
              "priority": rng.randint(3, 5)})
    md.section(1, book, fill("Picked for book club by Olivia. Read it on the train and in "
                             "bed, about {n} weeks.", rng))
    md.section(2, "Summary", "What stayed with me: patience, attention, and how slowly big "
                             "things change. #books")
    md.section(2, "Thoughts", fill("Reminded me of {project} in a strange way. Maya liked "
                                   "it more than I did.", rng))
    return f"notes/books/{_slug(book)}.md", md


def _note_work(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    proj = rng.choice(T.BANKS["project_short"])
    topic = rng.choice(["decision log", "risks", "retro", "design notes", "metrics"])
    title = f"{proj.capitalize()} {topic}"
    md = _Md({"title": title, "date": d, "tags": ["work", _slug(proj)],
              "status": rng.choice(["active", "draft", "done", "archived"]),
              "priority": rng.randint(1, 3)})
    md.section(1, title, fill("Context: {project}. People: Tomás, Kenji, Grace.", rng))
    md.section(2, "Context", fill("We need to {eng_action} before {month}. #work", rng))
    md.section(2, "Options", "Two options on the table; see below.")
    md.section(3, "Option A", fill("{eng_action}. Cheaper, slower.", rng))
    md.section(3, "Option B", fill("{eng_action}. Faster, riskier.", rng))
    md.section(2, "Decision", fill("Going with option A; revisit in {month}. #decision", rng))
    return f"notes/work/{_slug(proj)}/{_slug(topic)}.md", md


def _note_oneonone(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    who = rng.choice(["Kenji", "Priya", "Tomás"])
    md = _Md({"title": f"1:1 with {who}, {d.isoformat()}", "date": d,
              "tags": ["work", "1on1"], "status": "done", "priority": 2})
    md.section(1, f"1:1 with {who}", f"Weekly 1:1 with {who}.")
    md.section(2, "Wins", fill("{feature} shipped; the {bug} is gone.", rng))
    md.section(2, "Concerns", fill("Workload around {project}; {month} looks crowded.", rng))
    md.section(2, "Action items", _bullets([fill("{eng_action}", rng), "Follow up next week"]))
    return f"notes/work/1on1s/{d.isoformat()}-{_slug(who)}.md", md


def _note_travel(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    place = rng.choice(["Lisbon", "Kyoto", "Mexico City", "Vancouver", "Big Sur", "Bishop"])
    md = _Md({"title": f"{place} trip", "date": d, "tags": ["travel", _slug(place)],
              "status": rng.choice(["planning", "done"]), "priority": rng.randint(2, 4)})
    md.section(1, f"{place} trip", "With Maya. Climbing for Sam, museums for Maya, food for "
                                   "both. #travel")
    md.section(2, "Itinerary", _bullets(f"Day {k}: " + fill(rng.choice(
        ["walk the old town", "day trip to {crag}", "markets and a long lunch",
         "rest day with {book}"]), rng) for k in range(1, 4)))
    md.section(2, "Food", fill("Must try: {food}. Ask Marcus for tips.", rng))
    md.section(2, "Packing", "Passport, chargers, climbing shoes, the good camera.")
    return f"notes/travel/{_slug(place)}/{_slug(place)}-trip.md", md


def _note_health(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    topic = rng.choice(["Sleep log", "CGM findings", "Shoulder rehab", "Lab results"])
    md = _Md({"title": topic, "date": d, "tags": ["health"], "status": "active",
              "priority": rng.randint(1, 3)})
    md.section(1, topic, "Notes for Dr. Mensah. #health")
    md.section(2, "Observations", fill("Resting HR around {hr}; sleep {hours} hours on "
                                       "average.", rng))
    md.section(2, "Plan", fill("Keep the walk after dinner; try {todo}.", rng))
    return f"notes/health/{_slug(topic)}.md", md


def _note_inbox(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    md = _Md(preamble=fill("Quick thought: {eng_action} in {eng_thing}? Also {todo}. #inbox",
                           rng))
    md.section(2, "Later", fill("Ask {colleague}. Maybe for {month}.", rng))
    return f"notes/inbox/{d.isoformat()} quick note.md", md


def _note_idea(g: _Generator, rng: Random, d: date) -> tuple[str, _Md]:
    idea = rng.choice(["Corridor tile bundles", "Co-op volunteer app", "Family recipe book",
                       "Ride-planning for clubs", "A better standup"])
    md = _Md({"title": idea, "date": d, "tags": ["ideas"], "status": "someday",
              "priority": rng.randint(3, 5)})
    md.section(1, idea, fill("Came to me on the ride up {ride}. #idea", rng))
    md.section(2, "Why", fill("Because {user_need} keep asking for it.", rng))
    md.section(2, "Next step", fill("Talk to {friend} or {colleague}.", rng))
    return f"notes/ideas/{_slug(idea)}.md", md


_NOTE_KINDS: dict[str, Callable[[_Generator, Random, date], tuple[str, _Md]]] = {
    "recipe": _note_recipe, "climbing": _note_climbing, "book": _note_book, "work": _note_work,
    "oneonone": _note_oneonone, "travel": _note_travel, "health": _note_health,
    "inbox": _note_inbox, "idea": _note_idea,
}
