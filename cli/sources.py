"""``memlens source add|list|remove``: folders indexed where they live (engine/index/sources.py).

``add`` and ``remove`` edit memlens.toml (engine/index/source_config.py), then run the ordinary
reindex, so the new source is searchable, or the removed one's chunks are gone, when the command
returns (``--no-index`` leaves that to the next reindex, watch or the app).
"""

from __future__ import annotations

from .args import load_root_config

WATCHERS = "a running `memlens watch` or the app applies it by itself"


def _index_now(args, config, done: str, pending: str) -> int:
    """The change indexed now, then ``done`` said; with ``--no-index``, or while another writer
    holds the index (a reindex, a watch, the app), ``pending``: what stays as it was until
    when. The change itself is saved either way."""
    from engine import WriterBusy
    from engine.config import load_config

    from .errors import CliError
    from .index import _reindex, report_run

    if args.no_index:
        if not args.json:
            print(f"{pending} until the next `memlens reindex` ({WATCHERS})")
        return 0
    try:
        stats = _reindex(load_config(config.root, args.db), args.json)
    except WriterBusy as exc:
        holder = str(exc).split(" is already writing")[0]
        raise CliError(f"{pending}: {holder} is writing to the index now; the next "
                       f"`memlens reindex` applies the change ({WATCHERS})") from None
    code = report_run(stats, args.json)
    if not args.json:
        print(done)
    return code


def cmd_source(args) -> int:
    from engine.display import json_dumps, one_line, plural, type_label
    from engine.index import add_source, remove_source
    from engine.library import Library

    config = load_root_config(args)
    if args.action == "add":
        source = add_source(config, args.path, args.type, args.name, tuple(args.ignore or ()))
        what = (f"{type_label(source.source_type)} files of {one_line(str(source.path))} "
                f"(files known as {source.prefix}...)")
        return _index_now(args, config, f"added source {source.name}: {what}",
                          f"added source {source.name} to memlens.toml: {what}; not searchable "
                          "yet")
    if args.action == "remove":
        held = next((s for s in Library(config).sources() if s.name == args.name), None)
        source = remove_source(config, args.name)
        files = plural(held.files if held else 0, "indexed file")
        return _index_now(args, config,
                          f"removed source {source.name}: its {files} deleted from the index "
                          "(the folder itself is untouched)",
                          f"removed source {source.name} from memlens.toml; its {files} stay "
                          "searchable")
    states = Library(config).sources()
    if args.json:
        print(json_dumps([s.__dict__ for s in states]))
        return 0
    for s in states:
        where = one_line(s.path) + (f"  ({s.state})" if s.state else "")
        ignore = f"  ignore: {', '.join(s.ignore)}" if s.ignore else ""
        print(f"{s.name:16} {type_label(s.source_type):12} {s.files:6,} files "
              f"{s.chunks:8,} chunks  {where}{ignore}")
    print(plural(len(states), "source") if states else
          "no sources: `memlens source add PATH --type note` indexes a folder where it lives")
    return 0


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
