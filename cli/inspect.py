"""The commands that look at the index and the data root: ``stats`` and ``discover``.

Every read goes through engine.library; it opens the index read-only, so both work on a
read-only root.
"""

from __future__ import annotations

from .args import load_root_config

NOT_READ_SHOWN = 50  # files the last reindex did not read, listed by `memlens stats`


def cmd_stats(args) -> int:
    from engine.display import human_bytes, json_dumps, one_line, plural, shown_path, type_label
    from engine.library import Library

    st = Library(load_root_config(args)).statistics()
    if args.json:
        print(json_dumps(st.to_dict()))
        return 0
    print(f"index      {one_line(st.db_path)} ({human_bytes(st.db_bytes)})")
    messages = (f"; message vectors for {plural(st.message_vectors, 'chat window')}"
                if st.message_vectors else "")
    print(f"embedder   {one_line(st.embedder or '(none yet)')}{messages}")
    if st.re_embed:  # staged beside the vectors above, which serve until it covers the index
        print(f"re-embed   {one_line(st.re_embed)}  -> `memlens reindex` goes on")
    print(f"chunks     {st.chunks:,} in {plural(st.files, 'file')}; "
          f"{plural(st.pending_embeddings, 'pending embedding')}, {st.truncated_embeddings:,} "
          "truncated")
    if st.storage:
        print(f"vectors    {st.storage.vector_line}")
        print(f"search     {st.storage.search_line}")
        print(f"file       {st.storage.free_line}"
              + ("  -> run `memlens maintenance` to hand them back"
                 if st.storage.suggest_maintenance else ""))
    print(f"reindexed  {st.last_reindex_at or 'never'}")
    for i, line in enumerate(st.compiled_lines):
        print(f"{'compiled' if i == 0 else '':10} {line}")
    for source in st.sources:  # folders indexed where they live
        missing = f"  ({source.state})" if source.state else ""
        print(f"source     {source.name} ({type_label(source.source_type)}): "
              f"{source.counts}, {plural(source.chunks, 'chunk')}  "
              f"{one_line(source.path)}{missing}")
    width = max((len(type_label(t)) for t in st.per_type), default=0)
    top = max(st.per_type.values(), default=1)
    for source_type, count in st.per_type.items():
        print(f"  {type_label(source_type):{width}} {count:8}  "
              f"{'#' * max(1, round(30 * count / top))}")
    for e in st.files_with_errors:
        print(f"error: {shown_path(e['source_file'])}: {one_line(e['error'])}")
    for w in st.not_read[:NOT_READ_SHOWN]:
        print(f"not read: {shown_path(w['source_file'])}: {one_line(w['message'])}")
    if len(st.not_read) > NOT_READ_SHOWN:
        print(f"not read: {len(st.not_read) - NOT_READ_SHOWN:,} more (memlens stats --json)")
    for w in st.read_with_warnings[:NOT_READ_SHOWN]:
        print(f"read with a warning: {shown_path(w['source_file'])}: {one_line(w['message'])}")
    if len(st.read_with_warnings) > NOT_READ_SHOWN:
        print(f"read with a warning: {len(st.read_with_warnings) - NOT_READ_SHOWN:,} more "
              "(memlens stats --json)")
    for c in st.cut[:NOT_READ_SHOWN]:
        print(f"cut: {shown_path(c['source_file'])}: {one_line(c['notice'])}")
    if len(st.cut) > NOT_READ_SHOWN:
        print(f"cut: {len(st.cut) - NOT_READ_SHOWN:,} more (memlens stats --json)")
    for name in st.no_chunk[:NOT_READ_SHOWN]:
        print(f"no chunk: {shown_path(name)}: read, holds nothing its source type indexes")
    if len(st.no_chunk) > NOT_READ_SHOWN:
        print(f"no chunk: {len(st.no_chunk) - NOT_READ_SHOWN:,} more (memlens stats --json)")
    return 0


def cmd_discover(args) -> int:
    from engine.display import one_line, plural, shown_path, type_label
    from engine.library import Library

    config = load_root_config(args)
    library = Library(config)
    if args.files or not args.pending:
        routed = library.discover()
        if args.files:
            for f in routed:
                print(f"{type_label(f.source_type):15} {shown_path(f.rel)}")
        else:
            for route in library.route_counts(routed):
                print(f"{type_label(route.source_type):15} {route.files:6}  "
                      f"{one_line(route.pattern)}")
        print(f"{plural(len(routed), 'file')} routed")
        _source_counts(library, routed)
        return 0
    pending = library.pending()
    todo = pending.to_index
    for f in todo:
        print(f"{type_label(f.source_type):15} {shown_path(f.rel)}")
    for rel in pending.vanished:
        print(f"{'(removed)':15} {shown_path(rel)}")
    removed = (f"; {plural(len(pending.vanished), 'file')} removed since the last reindex"
               if pending.vanished else "")
    print(f"{len(todo):,} of {plural(len(pending.routed), 'file')} "
          f"{'needs' if len(todo) == 1 else 'need'} indexing{removed}")
    return 0


def _source_counts(library, routed) -> None:
    """Each source's files among ``routed``, counted as `memlens source list` counts them,
    and each one not indexed with why."""
    from engine.display import one_line
    from engine.library import IndexUnavailable

    from .sources import not_indexed_lines

    try:
        states = library.sources(routed)
    except IndexUnavailable:  # discover works without a readable index
        return
    for s in states:
        state = f"  ({s.state})" if s.state else ""
        print(f"source {s.name}: {s.counts}{one_line(state)}")
        for line in not_indexed_lines(s):
            print(f"  {line}")


def add_parsers(sub, common) -> None:
    p = sub.add_parser("discover", parents=[common], help="routes and routed files")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--pending", action="store_true", help="only files that need indexing")
    which.add_argument("--files", action="store_true", help="every routed file, by type")
    p.set_defaults(func=cmd_discover)

    p = sub.add_parser("stats", parents=[common], help="index statistics")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stats)
