"""The ``memlens`` command: the app by default, plus reindex/search/maintenance/... subcommands.

Errors are one clear line on stderr and a non-zero exit (tui/cli_errors.py); long work shows a
progress bar on a terminal and stays quiet with ``--json``. Everything printed from data (file
names, chunk text, messages quoting them) goes through engine/textsafe.py.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from engine.textsafe import json_dumps, one_line, plain

from .cli_args import check_search_args, limit_count, package_version, since_date, until_date
from .cli_errors import CliError, OneLineParser, UsageError, run
from .cli_table import plural, search_lines


def _existing(root: Path) -> Path:
    if not root.is_dir():
        what = "is not a folder" if root.exists() else "does not exist"
        raise UsageError(f"data root {root} {what}: check --root or $MEMLENS_ROOT")
    return root


def _config(args):
    from engine.config import load_config, resolve_root

    root, is_demo = resolve_root(args.root)
    if is_demo and not (root / ".memlens-demo.json").exists():
        raise UsageError(
            f"no data root given and no demo root at {root}: pass --root, set $MEMLENS_ROOT, "
            "or run `memlens demo` to create the demo root")
    config = load_config(_existing(root), args.db)
    args.db_path = config.db_path  # for the one-line description of index errors
    return config


def _human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def _progress_printer(quiet: bool):
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

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[detail]}", markup=False), TimeRemainingColumn(),
                   transient=True)
    task = bar.add_task("scanning", total=None, detail="")

    def update(p) -> None:
        if p.phase == "pending":
            bar.update(task, description="embedding pending", total=p.pending_total or None,
                       completed=p.pending_done, detail=f"{p.chunks_embedded} embedded")
        elif p.phase == "index":
            name = one_line(p.current_file or "")[-40:]
            bar.update(task, description="indexing", total=p.files_total or None,
                       completed=p.files_done, detail=f"{p.chunks_embedded} embedded  {name}")
    return bar, update


def _unchanged_chunks(config, stats) -> int:
    """Chunks the run left as they were. The indexer counts them only in the files it re-read
    (IndexStats.unchanged_chunks), not in files whose mtime had not moved: count the index."""
    from engine.schema import open_reader
    from engine.stats import chunk_count

    if not config.db_path.exists():
        return stats.unchanged_chunks
    conn = open_reader(config.db_path)
    try:
        return max(chunk_count(conn) - stats.chunks, 0)
    finally:
        conn.close()


def cmd_reindex(args) -> int:
    from engine.indexer import reindex

    config = _config(args)
    bar, update = _progress_printer(args.json)
    if bar:
        with bar:
            stats = reindex(config=config, progress=update, full=args.full,
                            re_embed=args.re_embed)
    else:
        stats = reindex(config=config, full=args.full, re_embed=args.re_embed)
    if args.json:
        print(json_dumps(stats.to_dict()))
    else:
        print(f"indexed {plural(stats.files, 'file')} in {stats.seconds:.1f}s "
              f"({stats.skipped:,} unchanged, {stats.removed_files:,} removed)")
        print(f"chunks: {stats.chunks:,} written, {_unchanged_chunks(config, stats):,} "
              f"unchanged, {stats.deleted_chunks:,} deleted; {stats.embedded:,} embedded, "
              f"{stats.pending_embeddings:,} pending")
        for e in stats.errors:
            print(f"error: {one_line(e.source_file)}: {one_line(e.message)}", file=sys.stderr)
        for w in stats.warnings:
            print(f"warning: {one_line(w.source_file)}: {one_line(w.message)}",
                  file=sys.stderr)
        for e in stats.embedding_errors:
            print(f"embedding: {one_line(e)}", file=sys.stderr)
        if stats.cancelled:
            print("cancelled: run `memlens reindex` again to finish", file=sys.stderr)
    return 1 if stats.errors and not stats.files else 0


def _jsonable(obj):
    from dataclasses import asdict, is_dataclass

    if is_dataclass(obj):
        return {k: _jsonable(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def _output_width() -> int:
    # piped output keeps its lines whole (up to 160 columns) unless $COLUMNS names a width
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return shutil.get_terminal_size().columns
    return 160


def cmd_search(args) -> int:
    from engine.searcher import Searcher, SearchError

    config = _config(args)
    check_search_args(args, config.routes)
    searcher = Searcher(config)
    try:
        response = searcher.search(
            args.query, limit=args.limit, source_types=args.source or None, mode=args.mode,
            since=args.since, until=args.until, path_prefix=args.folder, tags=args.tag or None,
            person=args.person)
    except SearchError as exc:
        raise UsageError(str(exc)) from exc
    finally:
        searcher.close()
    if args.json:
        print(json_dumps(_jsonable(response)))
        return 0
    print("\n".join(search_lines(response, _output_width(), args.explain)))
    return 0


def cmd_maintenance(args) -> int:
    from engine.maintenance import rebuild_vec_index

    config = _config(args)
    if not args.json and sys.stderr.isatty():
        print("rebuilding the vector index" + ("" if args.no_vacuum else " and vacuuming")
              + "...", file=sys.stderr)
    stats = rebuild_vec_index(config.db_path, vacuum=not args.no_vacuum)
    if args.json:
        print(json_dumps(stats))
    else:
        print(f"rebuilt {plural(stats['vectors'], 'vector')}: "
              f"{_human_bytes(stats['size_before'])} -> {_human_bytes(stats['size_after'])} "
              "(reclaimed "
              f"{_human_bytes(max(stats['reclaimed_bytes'], 0))}), dead slots "
              f"{stats['dead_slots_before']:,} -> {stats['dead_slots_after']:,}")
    return 0


def cmd_discover(args) -> int:
    from engine.scanner import discover, pending_files

    config = _config(args)
    files = list(discover(config.root, config.routes))
    if not args.pending:
        for pattern, source_type in config.routes:
            count = sum(1 for f in files if f.source_type == source_type
                        and Path(f.rel).match(pattern))
            print(f"{one_line(source_type):15} {count:6}  {one_line(pattern)}")
        print(f"{plural(len(files), 'file')} routed")
        return 0
    if config.db_path.exists():
        from engine.schema import open_reader

        open_reader(config.db_path).close()  # one clear line for an unusable index
    pending, gone = pending_files(files, config.db_path)
    for f in pending:
        print(f"{one_line(f.source_type):15} {one_line(f.rel)}")
    for rel in gone:
        print(f"{'(removed)':15} {one_line(rel)}")
    print(f"{len(pending):,} of {plural(len(files), 'file')} "
          f"{'needs' if len(pending) == 1 else 'need'} indexing")
    return 0


def cmd_stats(args) -> int:
    from engine.schema import open_reader
    from engine.stats import index_statistics

    config = _config(args)
    conn = open_reader(config.db_path)  # read-only: stats work on a read-only root
    try:
        st = index_statistics(conn, config.db_path)
    finally:
        conn.close()
    if args.json:
        print(json_dumps(st.to_dict()))
        return 0
    print(f"index      {one_line(st.db_path)} ({_human_bytes(st.db_bytes)})")
    print(f"embedder   {one_line(st.embedder or '(none yet)')}")
    print(f"chunks     {st.chunks:,} in {plural(st.files, 'file')}; "
          f"{plural(st.pending_embeddings, 'pending embedding')}, {st.truncated_embeddings:,} "
          "truncated")
    if st.bloat:
        b = st.bloat
        print(f"vec0       {plural(b.live_rows, 'vector')}, {plural(b.dead_slots, 'dead slot')} "
              f"({_human_bytes(b.dead_bytes)}), fill {b.slot_fill:.0%}"
              + ("  -> run `memlens maintenance`" if b.suggest_maintenance else ""))
    print(f"reindexed  {st.last_reindex_at or 'never'}")
    width = max((len(t) for t in st.per_type), default=0)
    top = max(st.per_type.values(), default=1)
    for source_type, count in st.per_type.items():
        print(f"  {one_line(source_type):{width}} {count:8}  "
              f"{'#' * max(1, round(30 * count / top))}")
    for e in st.files_with_errors:
        print(f"error: {one_line(e['source_file'])}: {one_line(e['error'])}")
    return 0


def cmd_demo(args) -> int:
    from engine.config import default_demo_root, load_config
    from engine.demo import generate_demo_root
    from engine.indexer import reindex

    root = Path(args.root).expanduser().resolve() if args.root else default_demo_root()
    print(f"demo root: {one_line(root)}", file=sys.stderr)
    generate_demo_root(root, chunks=args.chunks)
    config = load_config(root)
    bar, update = _progress_printer(False)
    if bar:
        with bar:
            stats = reindex(config=config, progress=update)
    else:
        stats = reindex(config=config)
    print(f"indexed {stats.chunks:,} new {'chunk' if stats.chunks == 1 else 'chunks'} "
          f"({_unchanged_chunks(config, stats):,} unchanged) in {stats.seconds:.1f}s",
          file=sys.stderr)
    if args.no_app:
        return 0
    return _open_app(root, None)


def _open_app(root, db) -> int:
    try:
        from tui.app import run_app
    except ImportError as exc:
        raise CliError(f"the app is not available in this build ({exc})") from exc
    return run_app(root, db)


def cmd_app(args) -> int:
    from engine.config import resolve_root

    root, is_demo = resolve_root(args.root)
    if is_demo and not (root / ".memlens-demo.json").exists():
        args.root, args.chunks, args.no_app = None, None, False
        return cmd_demo(args)
    return _open_app(_existing(root), args.db)


def cmd_import(args) -> int:
    from engine.config import resolve_root
    from engine.importers import IMPORTERS, ImportFailed, run_import

    root, is_demo = resolve_root(args.root)
    if is_demo and not args.root:
        raise CliError("say where to import into: --root DIR or $MEMLENS_ROOT "
                       "(the demo root is generated, not imported into)")
    if args.kind not in IMPORTERS:
        raise CliError(f"unknown kind {args.kind!r}: use one of {', '.join(sorted(IMPORTERS))}")
    bar = None
    if not args.json and sys.stderr.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        bar = Progress(TextColumn(f"importing {args.kind}"), BarColumn(), MofNCompleteColumn(),
                       transient=True)
        task = bar.add_task("import", total=None)
    try:
        if bar:
            with bar:
                report = run_import(args.kind, Path(args.path), root, people=args.people,
                                    dry_run=args.dry_run,
                                    progress=lambda done, total: bar.update(
                                        task, completed=done, total=total or None))
        else:
            report = run_import(args.kind, Path(args.path), root, people=args.people,
                                dry_run=args.dry_run)
    except ImportFailed as exc:
        raise CliError(str(exc)) from exc
    if args.json:
        print(json_dumps(report.to_dict()))
    else:
        print(plain(report.summary()))
        if report.ok and not args.dry_run and report.files_written:
            print("run `memlens reindex` to index what was imported", file=sys.stderr)
    return 0 if report.ok else 1


def cmd_mcp(args) -> int:
    from engine.config import resolve_root
    from mcp_server.server import serve

    _existing(resolve_root(args.root)[0])
    return serve(args.root, args.db)


def _common(parser: argparse.ArgumentParser, top: bool) -> argparse.ArgumentParser:
    # after the subcommand the defaults are SUPPRESS: a subcommand's default must not undo
    # `memlens --root DIR <command>` (argparse copies every subcommand default over the top's)
    default = None if top else argparse.SUPPRESS
    parser.add_argument("--root", default=default,
                        help="data root (default: $MEMLENS_ROOT, else the demo root)")
    parser.add_argument("--db", default=default,
                        help="index file (default: <root>/data/search/memlens.db)")
    _debug_flag(parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    common = _common(OneLineParser(add_help=False), top=False)

    parser = _common(OneLineParser(
        prog="memlens", description="A person's long-term memory, browsable from the terminal."),
        top=True)
    parser.add_argument("--version", action="version", version=f"memlens {package_version()}")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("search", parents=[common], help="hybrid search from the command line")
    p.add_argument("query")
    p.add_argument("--limit", type=limit_count, default=10, help="how many results (default 10)")
    p.add_argument("--source", action="append", metavar="TYPE", help="only this source type "
                   "(repeatable)")
    p.add_argument("--since", metavar="DATE", type=since_date,
                   help="content dated on or after (YYYY-MM-DD, YYYY-MM or YYYY)")
    p.add_argument("--until", metavar="DATE", type=until_date,
                   help="content dated on or before (YYYY-MM-DD, YYYY-MM or YYYY)")
    p.add_argument("--folder", metavar="PREFIX", help="only files under this path prefix")
    p.add_argument("--tag", action="append", help="only notes with this tag (repeatable, ALL)")
    p.add_argument("--person", metavar="NAME", help="only chunks with or about this person")
    p.add_argument("--mode", choices=["hybrid", "keyword", "semantic"], default="hybrid")
    p.add_argument("--json", action="store_true", help="the whole response as JSON")
    p.add_argument("--explain", action="store_true", help="ranks, RRF terms, decay, MMR")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("reindex", parents=[common], help="index new and changed files")
    p.add_argument("--json", action="store_true", help="print the IndexStats as JSON")
    p.add_argument("--full", action="store_true", help="re-read every file (ignore mtimes)")
    p.add_argument("--re-embed", action="store_true",
                   help="re-embed every chunk with the configured embedder")
    p.set_defaults(func=cmd_reindex)

    p = sub.add_parser("maintenance", parents=[common],
                       help="rebuild the vector index and VACUUM (reclaims dead slots)")
    p.add_argument("--no-vacuum", action="store_true", help="rebuild only")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_maintenance)

    p = sub.add_parser("discover", parents=[common], help="routes and routed files")
    p.add_argument("--pending", action="store_true", help="only files that need indexing")
    p.set_defaults(func=cmd_discover)

    p = sub.add_parser("stats", parents=[common], help="index statistics")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("import", parents=[common],
                       help="turn an export (slack, telegram, whatsapp, vtt, srt, whisper, "
                       "garmin, dayone, obsidian, mbox) into the data layer")
    p.add_argument("kind")
    p.add_argument("path", help="the export: a folder, a zip or a file")
    p.add_argument("--people", action="store_true",
                   help="merge the names found into profile/relationships.json aliases")
    p.add_argument("--dry-run", action="store_true", help="print what would be written")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_import)

    from .cli_timeline import add_timeline_parser
    from .cli_watch import add_watch_parser

    add_timeline_parser(sub, common)
    add_watch_parser(sub)

    p = sub.add_parser("mcp", parents=[common],
                       help="serve search to AI agents over MCP (stdio)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("demo", help="create and index the demo data root, then open the app")
    p.add_argument("--root", default=argparse.SUPPRESS,
                   help="where to create it (default: the user data dir)")
    p.add_argument("--chunks", type=int, help="grow the demo to about N chunks")
    p.add_argument("--no-app", action="store_true", help="stop after indexing")
    _debug_flag(p)
    p.set_defaults(func=cmd_demo)
    return parser


def _debug_flag(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS on both levels: a subcommand's default must not undo `memlens --debug <command>`
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show a traceback on failure (also MEMLENS_DEBUG=1)")


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exc:  # a usage error (exit 2, one line), --help or --version
        return exc.code if isinstance(exc.code, int) else 0
    return run(getattr(args, "func", cmd_app), args)


if __name__ == "__main__":
    sys.exit(main())
