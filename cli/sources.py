"""``memlens source add|list|remove``: folders indexed where they live (engine/index/sources.py).

``add`` and ``remove`` edit memlens.toml (engine/index/source_config.py), then run the ordinary
reindex, so the new source is searchable, or the removed one's chunks are gone, when the command
returns (``--no-index`` leaves that to the next reindex, watch or the app).
"""

from __future__ import annotations

import sys

from .args import load_root_config

WATCHERS = "a running `memlens watch` or the app does it by itself"


def _apply(args, config, report: dict, done, pending: str, busy, indexed=None) -> int:
    """The change (saved in memlens.toml by now) indexed at once, then ``done`` said (a
    string, or a function giving it once indexed). With
    ``--no-index``, or while another writer holds the index (a reindex, a watch, the app),
    ``pending`` and when it ends (``busy``, given the writer's purpose): exit 0 all the same,
    since what this command owns, the configuration, is done. ``--json``: one document,
    ``report`` with ``indexed`` and the run (``reindex``) or what is ``pending``, and what
    ``indexed()`` adds once indexed."""
    from engine import WriterBusy
    from engine.config import load_config
    from engine.display import json_dumps

    from .index import _reindex, report_run

    def said(note: str) -> int:
        if args.json:
            print(json_dumps({**report, "indexed": False, "pending": note}))
        else:
            print(f"warning: {note}" if not args.no_index else note,
                  file=sys.stderr if not args.no_index else sys.stdout)
        return 0

    if args.no_index:
        return said(f"{pending} until the next `memlens reindex` ({WATCHERS})")
    try:
        stats = _reindex(load_config(config.root, args.db), args.json)
    except WriterBusy as exc:
        return said(f"{pending}: {exc.holder} is writing to the index now; {busy(exc.purpose)}")
    if args.json:
        print(json_dumps({**report, "indexed": True, "reindex": stats.to_dict(),
                          **(indexed() if indexed else {})}))
        return 1 if stats.failed else 0
    code = report_run(stats, args.json)
    print(done() if callable(done) else done)
    return code


def _files(count: int) -> tuple[str, str]:
    """("its 3 indexed files", "stay") with the verb agreeing."""
    from engine.display import plural

    return f"its {plural(count, 'indexed file')}", "stays" if count == 1 else "stay"


NOT_INDEXED_SHOWN = 50  # a source's files not indexed, each listed with why


def not_indexed_lines(state) -> list[str]:
    """``not indexed: @vault/bin.md: <why>`` for each of a source's files not indexed, then
    ``not read: …`` for each name its walk left out (the first NOT_INDEXED_SHOWN of each,
    then how many more)."""
    from engine.display import one_line, shown_path

    lines = [f"not indexed: {shown_path(n.rel)}: {one_line(n.why)}"
             for n in state.not_indexed[:NOT_INDEXED_SHOWN]]
    more = len(state.not_indexed) - NOT_INDEXED_SHOWN
    if more > 0:
        lines.append(f"not indexed: {more:,} more (memlens source list --json)")
    lines += [f"not read: {shown_path(n.rel)}: {one_line(n.why)}"
              for n in state.not_read[:NOT_INDEXED_SHOWN]]
    if len(state.not_read) > NOT_INDEXED_SHOWN:
        lines.append(f"not read: {len(state.not_read) - NOT_INDEXED_SHOWN:,} more "
                     "(memlens source list --json)")
    return lines


def _source_state(config, name: str):
    """The source as `memlens source list` shows it (None once it is gone)."""
    from engine.library import Library

    return next((s for s in Library(config).sources() if s.name == name), None)


def _source_summary(config, name: str) -> str:
    """The source's files now, as `memlens source list` counts them, and each one not indexed
    with why (after `source add` has indexed it)."""
    from engine.display import plural

    state = _source_state(config, name)
    if state is None:
        return ""
    return "\n".join([f"source {name}: {state.counts}, {plural(state.chunks, 'chunk')}",
                       *(f"  {line}" for line in not_indexed_lines(state))])


def cmd_source(args) -> int:
    from engine.display import json_dumps, one_line, plural, shown_path, type_label
    from engine.index import add_source, default_name, remove_source
    from engine.library import Library

    config = load_root_config(args)
    if args.action in ("add", "remove"):
        if args.action == "add":
            source = add_source(config, args.path, args.type, args.name,
                                tuple(args.ignore or ()))
        else:
            held = next((s for s in Library(config).sources() if s.name == args.name), None)
            source = remove_source(config, args.name)
        report = {"action": "added" if args.action == "add" else "removed",
                  "source": {"name": source.name, "type": source.source_type,
                             "path": str(source.path), "prefix": source.prefix,
                             "ignore": list(source.ignore)}}
    if args.action == "add":
        what = (f"{type_label(source.source_type)} files of {one_line(str(source.path))} "
                f"(files known as {shown_path(source.prefix)}...)")
        if args.name is None and source.name != (base := default_name(source.path, set())):
            what += f"; a source named {base} exists, --name chooses another name"
        def done() -> str:
            from engine.config import load_config

            counts = _source_summary(load_config(config.root, args.db), source.name)
            return f"added source {source.name}: {what}" + (f"\n{counts}" if counts else "")

        def state() -> dict:
            """Its files as `source list --json` counts them: one count everywhere."""
            from engine.config import load_config

            now = _source_state(load_config(config.root, args.db), source.name)
            return {"state": now.to_dict()} if now is not None else {}

        return _apply(args, config, report, done,
                      f"added source {source.name} to memlens.toml: {what}; not searchable yet",
                      lambda purpose: f"run `memlens reindex` when it ends ({WATCHERS})", state)
    if args.action == "remove":
        files, verb = _files(held.indexed if held else 0)

        def busy(purpose: str | None) -> str:
            if purpose in ("reindex", "re-embed"):  # it drops what was removed meanwhile
                return "that run deletes them when it ends"
            return f"the next `memlens reindex` deletes them ({WATCHERS})"

        return _apply(args, config, report,
                      f"removed source {source.name}: {files} deleted from the index (the "
                      "folder itself is untouched)",
                      f"removed source {source.name} from memlens.toml; {files} {verb} "
                      "searchable", busy)
    states = Library(config).sources()
    if args.json:
        print(json_dumps([s.to_dict() for s in states]))
        return 0
    for s in states:
        where = one_line(s.path) + (f"  ({s.state})" if s.state else "")
        ignore = f"  ignore: {', '.join(s.ignore)}" if s.ignore else ""
        print(f"{s.name:16} {type_label(s.source_type):12} {s.counts}, "
              f"{plural(s.chunks, 'chunk')}  {where}{ignore}")
        for line in not_indexed_lines(s):
            print(f"  {line}")
    print(plural(len(states), "source") if states else no_sources(config))
    return 0


def no_sources(config) -> str:
    """What `source list` says of a root without sources: how to add one, except on the demo
    root, which refuses them (engine/index/source_config.py): there, how to use a root of
    one's own."""
    from engine.config import is_demo_root

    if is_demo_root(config.root):
        return ("no sources: the demo root takes none; to index folders where they live, use "
                "a root of your own (--root DIR or $MEMLENS_ROOT)")
    return "no sources: `memlens source add PATH --type note` indexes a folder where it lives"


def add_parser(sub, common) -> None:
    p = sub.add_parser("source", parents=[common],
                       help="folders indexed where they live (add, list, remove)")
    actions = p.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", parents=[common], help="index a folder in place")
    add.add_argument("path", help="the folder (never written)")
    add.add_argument("--type", required=True, metavar="TYPE",
                     help="what its files are, as `memlens discover` names them: note (a "
                     "markdown vault), journal, telegram, meeting, ...")
    add.add_argument("--name", help="how its files are known (@NAME/...); default: the "
                     "folder's name")
    add.add_argument("--ignore", action="append", metavar="GLOB",
                     help="skip these paths (gitignore syntax; repeatable)")
    lst = actions.add_parser("list", parents=[common], help="the sources and what is indexed")
    rm = actions.add_parser("remove", parents=[common],
                            help="stop indexing a source and delete its chunks")
    rm.add_argument("name")
    for q in (add, rm):
        q.add_argument("--no-index", action="store_true",
                       help="only edit memlens.toml; the next reindex applies it")
    for q in (add, lst, rm):
        q.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_source)
