"""The commands that write the index: ``reindex``, ``maintenance`` and ``demo``.

Long work shows a progress bar on a terminal (rich, imported only then) and stays quiet with
``--json``; what is printed from data goes through engine/display.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .args import debug_flag, iso_day, load_root_config, positive_count


def progress_printer(quiet: bool):
    """A rich progress bar on a terminal; None when quiet or not a terminal."""
    if quiet or not sys.stderr.isatty():
        return None, None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from engine.display import one_line

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[detail]}", markup=False), TimeRemainingColumn(),
                   transient=True)
    task = bar.add_task("scanning", total=None, detail="")

    def update(p) -> None:
        if p.phase == "re-embed":
            bar.update(task, description="re-embedding (searches use the current vectors)",
                       total=p.pending_total or None, completed=p.pending_done,
                       detail=f"{p.chunks_embedded} embedded")
        elif p.phase in ("pending", "messages"):
            what = "embedding pending" if p.phase == "pending" else "embedding chat messages"
            bar.update(task, description=what, total=p.pending_total or None,
                       completed=p.pending_done, detail=f"{p.chunks_embedded} embedded")
        elif p.phase == "migrate":
            bar.update(task, description="upgrading the index (once)",
                       total=p.pending_total or None, completed=p.pending_done,
                       detail="chat windows" if p.pending_total else "")
        elif p.phase == "compact":
            bar.update(task, description="handing back the space the upgrade freed (once)",
                       total=None, detail="")
        elif p.phase == "scan":
            bar.update(task, description="scanning", total=None, completed=0, detail="")
        elif p.phase == "index":
            name = one_line(p.current_file or "")[-40:]
            bar.update(task, description="indexing", total=p.files_total or None,
                       completed=p.files_done, detail=f"{p.chunks_embedded} embedded  {name}")
    return bar, update


def _reindex(config, quiet: bool, **options):
    from engine import reindex

    bar, update = progress_printer(quiet)
    if not bar:
        return reindex(config=config, **options)
    with bar:
        return reindex(config=config, progress=update, **options)


def cmd_reindex(args) -> int:
    config = load_root_config(args)
    stats = _reindex(config, args.json, full=args.full, re_embed=args.re_embed)
    return report_run(stats, args.json)


def report_run(stats, as_json: bool) -> int:
    """A reindex's result as lines (or one JSON document); the exit code it means."""
    from engine.display import json_dumps, one_line, plural, shown_path

    if as_json:
        print(json_dumps(stats.to_dict()))
        return 1 if stats.failed else 0
    if stats.re_embed_error:  # it did not start: its reason is the whole report
        print(f"memlens: {one_line(stats.re_embed_error)}", file=sys.stderr)
        return 1
    files = (f"{plural(stats.files, 'file')} indexed ({stats.skipped:,} unchanged, "
             f"{stats.removed_files:,} removed)")
    if stats.re_embed_ran:  # the time went into embedding: say that first
        print(f"re-embed: {plural(stats.embedded, 'chunk')} embedded in "
              f"{stats.seconds:.1f}s; {files}")
    else:
        print(f"indexed {plural(stats.files, 'file')} in {stats.seconds:.1f}s "
              f"({stats.skipped:,} unchanged, {stats.removed_files:,} removed)")
    if stats.upgraded:
        print(f"upgraded the index: {one_line(stats.upgraded)}")
    print(f"chunks: {stats.chunks:,} written, {stats.unchanged_chunks:,} "
          f"unchanged, {stats.deleted_chunks:,} deleted; {stats.embedded:,} embedded, "
          f"{stats.pending_embeddings:,} pending")
    for e in stats.errors:
        print(f"error: {shown_path(e.source_file)}: {one_line(e.message)}", file=sys.stderr)
    for w in stats.warnings:  # those an earlier run said: one line (--json keeps them all)
        if getattr(w, "new", True):
            print(f"warning: {shown_path(w.source_file)}: {one_line(w.message)}", file=sys.stderr)
    if said := sum(not getattr(w, "new", True) for w in stats.warnings):
        print(f"warning: {plural(said, 'warning')} as before; `memlens stats` lists them",
              file=sys.stderr)
    for e in stats.embedding_errors:
        print(f"embedding: {one_line(e)}", file=sys.stderr)
    if stats.re_embedded:
        print("re-embedded: every chunk has the configured embedder's vector now")
    elif stats.re_embed:
        print(f"{one_line(stats.re_embed)}; searches use the current vectors until it covers "
              "every chunk: run `memlens reindex` to go on")
    if stats.cancelled:
        print("cancelled: run `memlens reindex` again to finish", file=sys.stderr)
    return 1 if stats.failed else 0


def cmd_maintenance(args) -> int:
    from engine import maintain_index
    from engine.display import human_bytes, json_dumps, plural

    config = load_root_config(args)
    if not args.json and sys.stderr.isatty():
        print("merging the text index, rewriting the vector search file"
              + ("" if args.no_vacuum else ", vacuuming") + "...", file=sys.stderr)
    stats = maintain_index(config.db_path, vacuum=not args.no_vacuum)
    if args.json:
        print(json_dumps(stats))
    else:
        print(f"index {human_bytes(stats['size_before'])} -> "
              f"{human_bytes(stats['size_after'])} (free pages "
              f"{human_bytes(stats['free_bytes_before'])} -> "
              f"{human_bytes(stats['free_bytes_after'])})")
        print(f"search file rewritten: {plural(stats['sidecar_rows'], 'vector')}")
    return 0


def cmd_demo(args) -> int:
    from engine.config import default_demo_root, load_config
    from engine.demo import generate_demo_root
    from engine.display import one_line, plural

    from .app import open_app

    root = Path(args.root).expanduser().resolve() if args.root else default_demo_root()
    generate_demo_root(root, chunks=args.chunks, today=args.today)  # a refusal: its one line
    print(f"demo root: {one_line(root)}", file=sys.stderr)
    config = load_config(root)
    stats = _reindex(config, False)
    print(f"indexed {plural(stats.chunks, 'new chunk')} "
          f"({stats.unchanged_chunks:,} unchanged) in {stats.seconds:.1f}s",
          file=sys.stderr)
    if args.no_app:
        return 0
    return open_app(root, None)


def add_parsers(sub, common) -> None:
    p = sub.add_parser("reindex", parents=[common], help="index new and changed files")
    p.add_argument("--json", action="store_true", help="print the IndexStats as JSON")
    p.add_argument("--full", action="store_true", help="re-read every file (ignore mtimes)")
    p.add_argument("--re-embed", action="store_true",
                   help="re-embed every chunk with the configured embedder")
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("maintenance", parents=[common],
                       help="merge the text index, rewrite the vector search file, VACUUM "
                            "(hands free pages back)")
    p.add_argument("--no-vacuum", action="store_true", help="skip the VACUUM")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_maintenance)

    p = sub.add_parser("demo", help="create and index the demo data root, then open the app")
    p.add_argument("--root", default=argparse.SUPPRESS,
                   help="where to create it (default: the user data dir)")
    p.add_argument("--chunks", type=positive_count, help="grow the demo to about N chunks")
    p.add_argument("--today", type=iso_day, metavar="YYYY-MM-DD",
                   help="the demo's last day (default: today; a demo made on another day is "
                        "made again for this one)")
    p.add_argument("--no-app", action="store_true", help="stop after indexing")
    debug_flag(p)
    p.set_defaults(func=cmd_demo)
