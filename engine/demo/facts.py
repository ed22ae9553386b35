"""The demo's constants, the facts search tests rely on, and its summary."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from engine.config import DEMO_MARKER as DEMO_MARKER  # one definition, re-exported

from .cast import PERSON

DEMO_FORMAT = 1

#: Shares of a ``chunks=N`` root (the rest: all other source types together).
MESSAGING_SHARES = {"slack": 0.70, "telegram": 0.12, "whatsapp": 0.03, "signal": 0.03}
OTHER_SHARE = 1.0 - sum(MESSAGING_SHARES.values())
WINDOW = 10  # messages per messaging chunk (engine/extractors/messaging.py)
SECTION_MAX_CHARS = 2000  # markdown sections longer than this are split (we never write one)
SEGMENT_CHUNK_CHARS = 1500  # meeting/voice segment packing (engine/extractors/documents.py)

# Default (chunks=None) messaging windows.
DEFAULT_WINDOWS = {"slack": 850, "telegram": 200, "whatsapp": 40, "signal": 50}

# Top-level paths the demo owns (deleted on overwrite). data/search and memlens.toml are not.
OWNED_PATHS = (
    "data/slack", "data/telegram", "data/whatsapp", "data/signal", "data/meetings", "data/email", "data/photos",
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
    "person": PERSON,
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
