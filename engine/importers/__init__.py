"""Importers: a person's real exports -> the data layer's documented formats.

``run_import(kind, source, root)`` parses an export and writes (or, with ``dry_run``, plans)
the data-layer files the normal reindex picks up. ``IMPORTERS`` maps each kind to its class;
``get_importer(kind)`` returns an instance. Formats written: ``docs/data-layer.md``; what each
importer reads and maps: ``docs/importers.md``.
"""

from __future__ import annotations

from pathlib import Path

from engine.config import is_demo_root

from ._util import DemoRootRefused, ImportFailed
from .base import Importer
from .context import DATE_ORDERS, ImportContext, ProgressFn, make_context, resolve_zone
from .dayone import DayOneImporter
from .garmin import GarminImporter
from .mbox import MboxImporter
from .obsidian import ObsidianImporter
from .people import PEOPLE_FILE, merge_people
from .report import ImportReport
from .slack import SlackImporter
from .telegram import TelegramImporter
from .transcripts import SrtImporter, VttImporter
from .whatsapp import WhatsAppImporter
from .whisper import WhisperImporter

_CLASSES: tuple[type[Importer], ...] = (
    SlackImporter,
    TelegramImporter,
    WhatsAppImporter,
    VttImporter,
    SrtImporter,
    WhisperImporter,
    GarminImporter,
    DayOneImporter,
    ObsidianImporter,
    MboxImporter,
)

IMPORTERS: dict[str, type[Importer]] = {cls.kind: cls for cls in _CLASSES}


def get_importer(kind: str) -> Importer:
    """A fresh importer for ``kind``; :class:`ImportFailed` names the known kinds."""
    cls = IMPORTERS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ImportFailed(f"unknown import kind {kind!r}; known kinds: "
                           f"{', '.join(sorted(IMPORTERS))}")
    return cls()


def demo_root_refused(root: Path) -> DemoRootRefused:
    """Why nothing is imported into the demo root: the one line every front door says."""
    return DemoRootRefused(f"{root} is the demo root, generated and not imported into: import "
                           "into a root of your own (memlens import KIND PATH --root DIR, or "
                           "open the app with --root DIR)")


def run_import(kind: str, source: Path, root: Path, *, people: bool = False,
               dry_run: bool = False, progress: ProgressFn | None = None,
               local_tz: str | None = None, date_order: str | None = None) -> ImportReport:
    """Import the export at ``source`` into the data root ``root``.

    Idempotent: importing the same export again changes no file (not even its mtime); a newer
    export of the same chat appends only the new messages. ``people`` merges the names found
    into ``profile/relationships.json`` (additive only). ``dry_run`` writes nothing and fills
    ``report.dry_run_plan``. ``progress(done, total)`` is called while the export is read.
    Naive timestamps are placed in ``local_tz`` (an IANA name or a UTC offset such as
    ``+02:00``; default: the system zone). ``date_order`` ("dmy" or "mdy") forces the
    day/month order of WhatsApp dates instead of detecting it per file.

    Raises :class:`ImportFailed` for an unknown kind, a missing source, or a source that is
    not that kind of export. Everything else (a broken day file, an unparseable date, a
    binary file inside the export) is reported in ``report.problems`` and the rest imported.
    """
    importer = get_importer(kind)
    source = Path(source).expanduser()
    root = Path(root).expanduser()
    if not source.exists():
        raise ImportFailed(f"{source}: no such file or folder")
    if root.exists() and not root.is_dir():
        raise ImportFailed(f"{root}: the data root is not a folder")
    if is_demo_root(root):  # `memlens demo` owns its files and may write them again
        raise demo_root_refused(root)
    ctx, report = make_context(importer.kind, source, root, progress=progress,
                               local_tz=local_tz, dry_run=dry_run, date_order=date_order)
    try:
        importer.parse(ctx)
    except RecursionError:  # a structure too deep for the parser's own walk; nothing written
        raise ImportFailed(f"{source.name}: nested too deeply to import") from None
    except ImportFailed as exc:
        if not report.problems:
            raise
        # the reason is often a problem already found (a refused zip entry): name it
        file, line, message = report.problems[0]
        where = f"{file}:{line}" if line is not None else file
        more = f" (+{len(report.problems) - 1} more)" if len(report.problems) > 1 else ""
        raise ImportFailed(f"{exc}; first problem: {where}: {message}{more}") from None
    ctx.apply(dry_run)
    if people:
        report.people_added = merge_people(root, ctx.people, dry_run=dry_run,
                                           problem=ctx.problem)
    return report


__all__ = [
    "DATE_ORDERS",
    "IMPORTERS",
    "DemoRootRefused",
    "demo_root_refused",
    "PEOPLE_FILE",
    "ImportContext",
    "ImportFailed",
    "ImportReport",
    "Importer",
    "get_importer",
    "resolve_zone",
    "run_import",
]
