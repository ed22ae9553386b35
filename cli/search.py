"""``memlens search``: one page of results through engine.library, as a table or JSON.

Only what a search needs is imported, and only when it runs: `memlens search` is a process
per query, so every import is paid on each call (docs/benchmarks.md).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys

from engine.search_options import MODES, SORTS

from .args import (
    DATE_HELP,
    check_search_args,
    limit_count,
    load_root_config,
    since_date,
    until_date,
)
from .errors import UsageError


def _jsonable(obj):
    from dataclasses import asdict, is_dataclass

    if is_dataclass(obj):
        return {k: _jsonable(v) for k, v in asdict(obj).items()}
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    return obj


def response_json(response) -> dict:
    """The response as JSON; each result also carries ``rrf_terms``, the deprecated alias of
    ``arm_scores`` (whatever the fusion), so readers of older output keep working. A page
    browsed by date (nothing ranks it) gives each row a null score."""
    out = _jsonable(response)
    for row in out.get("results", ()):
        row["rrf_terms"] = row["arm_scores"]
        if not response.scored:
            row["score"] = None
    return out


def _output_width() -> int:
    # piped output keeps its lines whole (up to 160 columns) unless $COLUMNS names a width
    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        return shutil.get_terminal_size().columns
    return 160


def cmd_search(args) -> int:
    from engine import SearchError
    from engine.display import json_dumps
    from engine.library import Library

    config = load_root_config(args)
    check_search_args(args, config.routes)
    if args.no_rescore:  # the fusion's own order, to compare with the learned re-scoring
        config = dataclasses.replace(config, rescore=False)
    with Library(config) as library:
        try:
            response = library.search(
                args.query, args.limit, args.source or None, mode=args.mode,
                since=args.since, until=args.until, path_prefix=args.folder,
                tags=args.tag or None, sort=args.sort, decay=not args.no_decay,
                person=args.person or None)
        except SearchError as exc:
            raise UsageError(str(exc)) from exc
    if args.json:
        print(json_dumps(response_json(response)))
        return 0
    from .table import search_lines

    width = _output_width()
    print("\n".join(search_lines(response, width, args.explain) + unread_lines(response, width)))
    return 0


def unread_lines(response, width: int) -> list[str]:
    """Under the table, once per source not read now: which rows are its indexed copies and
    why they cannot be checked (``rows 1, 3: source 'Vault' is not read now: ...``)."""
    from engine.display import one_line

    from .table import wrap

    rows: dict[str, list[int]] = {}
    for i, r in enumerate(response, 1):
        if r.unread_source:
            rows.setdefault(r.unread_source, []).append(i)
    lines = []
    for note, numbers in rows.items():
        which = f"row{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
        lines += wrap(one_line(f"{which}: {note}; shown as indexed"), width, "  !", "    ")
    return lines


def add_parser(sub, common) -> None:
    p = sub.add_parser("search", parents=[common], help="hybrid search from the command line")
    p.add_argument("query", help="words, \"a quoted phrase\" (required as written), and a time "
                   "phrase (\"last week\", \"in March\", \"on this day\") that becomes the date "
                   "range")
    p.add_argument("--limit", type=limit_count, default=10, help="how many results, 1-200 (default 10)")
    p.add_argument("--source", action="append", metavar="TYPE", help="only this source type: "
                   "its id, label or a prefix, e.g. email (repeatable)")
    p.add_argument("--since", metavar="DATE", type=since_date,
                   help=f"content dated on or after ({DATE_HELP})")
    p.add_argument("--until", metavar="DATE", type=until_date,
                   help=f"content dated on or before ({DATE_HELP})")
    p.add_argument("--folder", metavar="PREFIX", help="only files under this path prefix "
                   "(notes/work/, @Vault/Work/) or folder inside one (Work/: the index's one "
                   "folder of that name)")
    p.add_argument("--tag", action="append", help="only notes with this tag (repeatable, ALL)")
    p.add_argument("--person", metavar="NAME",
                   help="only chunks with or about this person (typos forgiven)")
    p.add_argument("--mode", choices=MODES, default="hybrid",
                   help="both arms fused (default), BM25 only (score: over the best one's, "
                   "0-1) or vectors only (score: the similarity)")
    p.add_argument("--sort", choices=SORTS, default="relevance",
                   help="relevance (default) or date: the best results, newest first")
    p.add_argument("--no-decay", action="store_true",
                   help="rank without recency decay (old and new alike)")
    p.add_argument("--no-rescore", action="store_true",
                   help="the fusion's order, without the learned re-scoring of its first 50 "
                   "(as [search] rescore = false)")
    p.add_argument("--json", action="store_true", help="the whole response as JSON")
    p.add_argument("--explain", action="store_true",
                   help="how each score was made: arms, fusion, decay, MMR")
    p.set_defaults(func=cmd_search)
