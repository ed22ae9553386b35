"""The ``memlens`` command: the app by default, plus reindex/search/maintenance/... subcommands.

Errors are one clear line on stderr and a non-zero exit (tui/cli_errors.py); long work shows a
progress bar on a terminal and stays quiet with ``--json``. Everything printed from data (file
names, chunk text, messages quoting them) goes through engine/textsafe.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.textsafe import json_dumps, one_line, plain

from .cli_errors import CliError, run


def _config(args):
    from engine.config import load_config, resolve_root

    root, is_demo = resolve_root(getattr(args, "root", None))
    if is_demo and not (root / ".memlens-demo.json").exists():
        raise CliError(
            f"no data root given and no demo root at {root}: pass --root, set $MEMLENS_ROOT, "
            "or run `memlens demo` to create the demo root")
    if not root.is_dir():
        raise CliError(f"data root {root} does not exist")
    config = load_config(root, getattr(args, "db", None))
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
        print(f"indexed {stats.files} files ({stats.skipped} unchanged, "
              f"{stats.removed_files} removed): {stats.chunks} chunks written, "
              f"{stats.unchanged_chunks} unchanged, {stats.deleted_chunks} deleted, "
              f"{stats.embedded} embedded, {stats.pending_embeddings} pending "
              f"in {stats.seconds:.1f}s")
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


def _explain_lines(r, rrf_k: int) -> list[str]:
    terms = " + ".join(f"{arm} 1/({rrf_k}+{rank}) = {value:.5f}" for arm, value, rank in (
        (arm, value, r.keyword_rank if arm == "keyword" else r.semantic_rank)
        for arm, value in r.rrf_terms.items()))
    lines = [f"    rrf: {terms or '-'}"]
    if r.keyword_rank:
        lines.append(f"    keyword: rank {r.keyword_rank}, bm25 {r.bm25:.3f}, matched "
                     f"{one_line(', '.join(r.matched_terms or [])) or '-'}")
    if r.semantic_rank:
        lines.append(f"    semantic: rank {r.semantic_rank}, similarity {r.similarity:.3f}")
    if r.decay:
        age = "unknown age" if r.decay.age_days is None else f"age {r.decay.age_days:.0f} d"
        lines.append(f"    decay: x{r.decay.factor:.3f} ({age}, half-life "
                     f"{r.decay.half_life:.0f} d{', floored' if r.decay.floored else ''})")
    flags = [f for f, on in (("stale", r.stale), ("embedding truncated",
                                                  r.embedding_truncated)) if on]
    lines.append(f"    mmr position: {r.mmr_position or '-'}"
                 + (f"; {', '.join(flags)}" if flags else ""))
    return lines


def cmd_search(args) -> int:
    from engine.searcher import Searcher, SearchError

    config = _config(args)
    searcher = Searcher(config)
    try:
        response = searcher.search(
            args.query, limit=args.limit, source_types=args.source or None, mode=args.mode,
            since=args.since, until=args.until, path_prefix=args.folder, tags=args.tag or None)
    except SearchError as exc:
        raise CliError(str(exc)) from exc
    finally:
        searcher.close()
    if args.json:
        print(json_dumps(_jsonable(response)))
        return 0
    depth = ", ".join(f"{arm} {n}/{d}" for arm, (n, d) in response.arm_depth.items())
    print(f"arms: {one_line(response.arms)} | depth: {depth} | confidence: {response.confidence} | "
          f"{len(response)} results in {response.timings_ms.get('total', 0):.0f} ms")
    for i, r in enumerate(response, 1):
        mark = " [profile]" if r.injected else ""
        print(f"{i:2}. {r.score:.4f} {one_line(r.source_type):13} "
              f"{one_line(r.content_date or ''):10} {one_line(r.source_file)}{mark}")
        print(f"    {one_line(r.snippet)[:160]}")
        if args.explain:
            print("\n".join(_explain_lines(r, response.rrf_k)))
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
        print(f"rebuilt {stats['vectors']} vectors: {_human_bytes(stats['size_before'])} -> "
              f"{_human_bytes(stats['size_after'])} (reclaimed "
              f"{_human_bytes(max(stats['reclaimed_bytes'], 0))}), dead slots "
              f"{stats['dead_slots_before']} -> {stats['dead_slots_after']}")
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
        print(f"{len(files)} files routed")
        return 0
    if config.db_path.exists():
        from engine.schema import open_reader

        open_reader(config.db_path).close()  # one clear line for an unusable index
    pending, gone = pending_files(files, config.db_path)
    for f in pending:
        print(f"{one_line(f.source_type):15} {one_line(f.rel)}")
    for rel in gone:
        print(f"{'(removed)':15} {one_line(rel)}")
    print(f"{len(pending)} of {len(files)} files need indexing")
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
    print(f"chunks     {st.chunks} in {st.files} files; {st.pending_embeddings} pending "
          f"embeddings, {st.truncated_embeddings} truncated")
    if st.bloat:
        b = st.bloat
        print(f"vec0       {b.live_rows} vectors, {b.dead_slots} dead slots "
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
    print(f"indexed {stats.chunks} new chunks ({stats.unchanged_chunks} unchanged) "
          f"in {stats.seconds:.1f}s", file=sys.stderr)
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
    return _open_app(root, args.db)


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
    from tui.mcp_server import serve

    return serve(args.root, args.db)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", help="data root (default: $MEMLENS_ROOT, else the demo root)")
    common.add_argument("--db", help="index file (default: <root>/data/search/memlens.db)")
    _debug_flag(common)

    parser = argparse.ArgumentParser(
        prog="memlens", parents=[common],
        description="A person's long-term memory, browsable from the terminal.")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("search", parents=[common], help="hybrid search from the command line")
    p.add_argument("query")
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--source", action="append", metavar="TYPE", help="only this source type "
                   "(repeatable)")
    p.add_argument("--since", metavar="DATE", help="content dated on or after (YYYY-MM-DD)")
    p.add_argument("--until", metavar="DATE", help="content dated on or before (YYYY-MM-DD)")
    p.add_argument("--folder", metavar="PREFIX", help="only files under this path prefix")
    p.add_argument("--tag", action="append", help="only notes with this tag (repeatable, ALL)")
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

    from .cli_watch import add_watch_parser

    add_watch_parser(sub)

    p = sub.add_parser("mcp", parents=[common],
                       help="serve search to AI agents over MCP (stdio)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("demo", help="create and index the demo data root, then open the app")
    p.add_argument("--root", help="where to create it (default: the user data dir)")
    p.add_argument("--chunks", type=int, help="grow the demo to about N chunks")
    p.add_argument("--no-app", action="store_true", help="stop after indexing")
    _debug_flag(p)
    p.set_defaults(func=cmd_demo)
    return parser


def _debug_flag(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS: a subcommand's default must not undo `memlens --debug <command>`
    parser.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="show a traceback on failure (also MEMLENS_DEBUG=1)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(getattr(args, "func", cmd_app), args)


if __name__ == "__main__":
    sys.exit(main())
