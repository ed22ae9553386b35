"""``memlens import KIND PATH``: turn an export into data-layer files (engine.importers)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from .errors import CliError, UsageError

IMPORT_HELP = ("turn an export (slack, telegram, whatsapp, vtt, srt, whisper, garmin, dayone, "
               "obsidian, mbox) into the data layer")


def _progress_bar(args):
    """A rich progress bar and its update callback on a terminal, else (None, None)."""
    if args.json or not sys.stderr.isatty():
        return None, None
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    bar = Progress(TextColumn(f"importing {args.kind}"), BarColumn(), MofNCompleteColumn(),
                   transient=True)
    task = bar.add_task("import", total=None)
    return bar, lambda done, total: bar.update(task, completed=done, total=total or None)


def cmd_import(args) -> int:
    from engine.config import resolve_root
    from engine.display import json_dumps, one_line, plain
    from engine.importers import (
        DATE_ORDERS,
        IMPORTERS,
        DemoRootRefused,
        ImportFailed,
        demo_root_refused,
        resolve_zone,
        run_import,
    )

    root, is_demo = resolve_root(args.root)
    # bad input is exit 2, as for every command (README "Command line"); the demo root, the
    # default one too (before `memlens demo` made it), is never imported into
    if is_demo:
        raise UsageError(str(demo_root_refused(root)))
    if args.kind not in IMPORTERS:
        raise UsageError(f"unknown kind {one_line(args.kind)!r}: use one of "
                         f"{', '.join(sorted(IMPORTERS))}")
    if not args.path.strip():  # Path("") is the current folder: never imported by accident
        raise UsageError("the path to import is empty: name the export's file or folder")
    if not Path(args.path).expanduser().exists():
        raise UsageError(f"{one_line(args.path)}: no such file or folder")
    date_order = args.date_order.strip().lower() if args.date_order is not None else None
    if date_order is not None and date_order not in DATE_ORDERS:
        raise UsageError(f"--date-order {one_line(args.date_order)!r}: use dmy (day/month) "
                         "or mdy (month/day)")
    if date_order is not None and args.kind != "whatsapp":
        raise UsageError("--date-order applies to whatsapp imports only")
    if args.tz is not None:
        try:
            resolve_zone(args.tz)
        except ImportFailed as exc:
            raise UsageError(f"--tz: {exc}") from exc
    options = {"people": args.people, "dry_run": args.dry_run, "local_tz": args.tz,
               "date_order": date_order}
    bar, update = _progress_bar(args)
    try:
        if bar:
            with bar:
                report = run_import(args.kind, Path(args.path), root, progress=update,
                                    **options)
        else:
            report = run_import(args.kind, Path(args.path), root, **options)
    except DemoRootRefused as exc:  # bad input: exit 2, as for every command
        raise UsageError(str(exc)) from exc
    except ImportFailed as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print(json_dumps(report.to_dict()))
    else:
        print(plain(report.summary()))
        if report.ok and not args.dry_run and report.files_written:
            where = f" --root {shlex.quote(str(args.root))}" if args.root else ""
            print(f"run `memlens reindex{where}` to index what was imported", file=sys.stderr)
    return 0 if report.ok else 1


def add_parser(sub, common) -> None:
    p = sub.add_parser("import", parents=[common], help=IMPORT_HELP)
    p.add_argument("kind")
    p.add_argument("path", help="the export: a folder, a zip or a file")
    p.add_argument("--people", action="store_true",
                   help="merge the names found into profile/relationships.json aliases")
    p.add_argument("--dry-run", action="store_true", help="print what would be written")
    p.add_argument("--date-order", metavar="dmy|mdy",
                   help="whatsapp: read dates day/month (dmy) or month/day (mdy) instead of "
                        "detecting the order per file")
    p.add_argument("--tz", metavar="ZONE",
                   help="the zone of times the export gives without one: an IANA name "
                        "(America/New_York) or a UTC offset (+02:00); default: the system zone")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_import)
