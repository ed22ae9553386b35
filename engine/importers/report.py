"""What an import did: counts, files written or planned, problems and notes (``ImportReport``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.display import plural, shown_path


@dataclass
class ImportReport:
    kind: str
    source: str = ""
    root: str = ""
    dry_run: bool = False
    files_written: list[str] = field(default_factory=list)
    records_imported: int = 0
    records_skipped_duplicate: int = 0
    #: records deliberately left out, by reason (media without text, boilerplate, templates…)
    records_skipped: dict[str, int] = field(default_factory=dict)
    problems: list[tuple[str, int | None, str]] = field(default_factory=list)
    #: informational notes (assumptions made, out-of-order appends) – not errors
    notes: list[str] = field(default_factory=list)
    dry_run_plan: list[tuple[str, int]] = field(default_factory=list)
    people_added: list[str] = field(default_factory=list)
    #: per target file: records imported into it (also filled on a dry run)
    per_file: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """False only when nothing could be imported (no new and no already-present record)."""
        return self.records_imported + self.records_skipped_duplicate > 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (for ``--json`` output)."""
        return {"kind": self.kind, "source": self.source, "root": self.root,
                "dry_run": self.dry_run, "ok": self.ok, "files_written": self.files_written,
                "records_imported": self.records_imported,
                "records_skipped_duplicate": self.records_skipped_duplicate,
                "records_skipped": self.records_skipped,
                "problems": [{"file": f, "line": ln, "message": m} for f, ln, m in self.problems],
                "notes": self.notes,
                "dry_run_plan": [{"path": p, "records": n} for p, n in self.dry_run_plan],
                "people_added": self.people_added}

    def summary(self) -> str:
        """Human-readable lines for a CLI."""
        verb = "would import" if self.dry_run else "imported"
        lines = [f"{self.kind}: {verb} {plural(self.records_imported, 'record')}, "
                 f"{self.records_skipped_duplicate:,} already present"]
        if self.records_skipped:
            lines.append("skipped: " + ", ".join(f"{n:,} {why if n != 1 else _one(why)}"
                                                 for why, n in sorted(self.records_skipped.items())))
        if self.dry_run:
            lines += [f"  would write {shown_path(path)} (+{n})" for path, n in self.dry_run_plan]
        else:
            lines += [f"  wrote {shown_path(path)}" for path in self.files_written]
        lines += [f"  person: {p}" for p in self.people_added]
        lines += [f"  note: {n}" for n in self.notes]
        for file, line, message in self.problems:
            where = f"{file}:{line}" if line is not None else file
            lines.append(f"  problem: {where}: {message}")
        if not self.ok:
            lines.append("nothing could be imported")
        return "\n".join(lines)

    def add_note(self, message: str) -> None:
        """An informational note, once however often it is found."""
        if message not in self.notes:
            self.notes.append(message)


def _one(reason: str) -> str:
    """A skip reason (written for many: "entries without text", "JSON files that are not ...")
    for one record: its first plural noun made singular, "that are" made "that is"."""
    words = reason.split(" ")
    for i, word in enumerate(words):
        if len(word) > 3 and word.isalpha() and word.endswith("s"):
            words[i] = word[:-3] + "y" if word.endswith("ies") else word[:-1]
            break
    return " ".join(words).replace(" that are ", " that is ", 1)
