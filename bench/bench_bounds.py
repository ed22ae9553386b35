"""What one hostile file costs: index time, index growth and search time against its size.

    python bench/bench_bounds.py                 # the small sizes (a minute)
    python bench/bench_bounds.py --full          # the sizes docs/reliability.md quotes
    python bench/bench_bounds.py --case one_line_note --sizes 5,10,20

Each case copies the demo root (built once under the bench cache), adds one file, reindexes
it through the CLI and searches a word it holds through the CLI, each in a child process (so
the peak RSS is that command's). Cases:

- ``journal_line``: one journal record whose text is SIZE MB, a word repeated throughout;
- ``long_title``: a note of 1,000 sections whose frontmatter title is SIZE KB (0.01: the
  same note with a title of 10 characters, what 1,000 short sections cost anyway);
- ``frontmatter_keys``: a note whose frontmatter has SIZE thousand top-level keys;
- ``one_line_note``: a note that is one line of SIZE MB (words, no line break);
- ``open_links``: a note that is one line of SIZE MB of ``[[a `` (wikilinks never closed)
  and a ``#tag``.

Printed per run: file bytes, index growth (bytes, and per file byte), the chunks and the
content and metadata bytes they hold, reindex and search wall seconds with peak RSS, the
bytes of a 10-hit ``search --json``, and the wall seconds of reading the file as MCP
``read_note`` does (a child process, imports included).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import BENCH_CACHE, REPO, machine

WORD = "zebrafinch"
SMALL = {"journal_line": [0.5, 1, 2], "long_title": [0.01, 25, 100],
         "frontmatter_keys": [25, 50, 100], "one_line_note": [1, 2, 4],
         "open_links": [0.05, 0.1, 0.2]}
FULL = {"journal_line": [1, 2, 4], "long_title": [0.01, 100], "frontmatter_keys": [200],
        "one_line_note": [5, 10, 20], "open_links": [0.05, 0.1, 0.2, 5]}


def _filler(n_bytes: int) -> str:
    """Prose-like words with WORD every ninth byte or so (222k times in 2 MB)."""
    unit = f"{WORD} ab "
    return (unit * (n_bytes // len(unit) + 1))[:n_bytes]


def write_case(root: Path, case: str, size: float) -> tuple[Path, str]:
    """The hostile file and the word a search for it uses."""
    if case == "journal_line":
        path = root / "data" / "journal" / "2031.jsonl"
        record = {"id": "big", "date": "2031-01-02", "title": "long day",
                  "text": _filler(int(size * 1e6))}
        path.write_text(json.dumps(record) + "\n")
        return path, WORD
    if case == "long_title":
        path = root / "notes" / "inbox" / "long-title.md"
        title = ("heron " * int(size * 1000 / 6 + 1))[:int(size * 1000)]
        sections = "".join(f"## part {i}\n{WORD} note {i}\n\n" for i in range(1000))
        path.write_text(f"---\ntitle: {title}\n---\n{sections}")
        return path, WORD
    if case == "frontmatter_keys":
        path = root / "notes" / "inbox" / "many-keys.md"
        keys = "".join(f"k{i}: v\n" for i in range(int(size * 1000)))
        path.write_text(f"---\n{keys}---\n# keys\n{WORD} body\n")
        return path, WORD
    if case == "open_links":
        path = root / "notes" / "inbox" / "open-links.md"
        path.write_text(f"#tag {WORD} " + "[[a " * int(size * 1e6 / 4))
        return path, WORD
    if case == "one_line_note":
        path = root / "notes" / "inbox" / "one-line.md"
        path.write_text(_filler(int(size * 1e6)))
        return path, WORD
    raise SystemExit(f"unknown case {case!r}")


def _run(cmd: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, peak RSS (MiB) and stdout of one child command."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if status != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed: {err.read().decode()[-400:]}")
    return wall, usage.ru_maxrss / 1024, out


# what MCP read_note and the app's viewer do with a file: Library.read_file, in a child
READ = ("import sys; from engine.config import load_config; from engine.library import Library; "
        "Library(load_config(sys.argv[1])).read_file(sys.argv[2])")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "cli", *args]


def _index_bytes(root: Path) -> int:
    """The bytes the index uses: its live pages (free pages are reused, not growth) and the
    vector sidecar."""
    db = root / "data" / "search" / "memlens.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages, free, page = (conn.execute(f"PRAGMA {p}").fetchone()[0]
                         for p in ("page_count", "freelist_count", "page_size"))
    conn.close()
    sidecar = Path(f"{db}.vectors")
    extra = sum(p.stat().st_size for p in sidecar.iterdir()) if sidecar.is_dir() else 0
    return (pages - free) * page + extra


def _file_chunks(root: Path, rel: str) -> dict[str, int]:
    conn = sqlite3.connect(root / "data" / "search" / "memlens.db")
    n, content, meta, longest = conn.execute(
        "SELECT count(*), coalesce(sum(length(content)), 0), "
        "coalesce(sum(length(metadata)), 0), coalesce(max(length(content)), 0) "
        "FROM chunks WHERE source_file = ?", (rel,)).fetchone()
    conn.close()
    return {"chunks": n, "content_chars": content, "metadata_chars": meta,
            "longest_chunk": longest}


def run_case(demo: Path, case: str, size: float) -> dict:
    with tempfile.TemporaryDirectory(prefix="memlens-bounds-") as tmp:
        root = Path(tmp) / "root"
        shutil.copytree(demo, root, symlinks=True)
        before = _index_bytes(root)
        path, word = write_case(root, case, size)
        rel = path.relative_to(root).as_posix()
        index_s, index_rss, out = _run(_cli("reindex", "--root", str(root), "--json"))
        warnings = [w["message"] for w in json.loads(out).get("warnings", [])
                    if w["source_file"] == rel]
        grown = _index_bytes(root) - before
        search_s, search_rss, out = _run(_cli("search", word, "--root", str(root), "--json",
                                              "--mode", "keyword"))
        hybrid_s, _, _ = _run(_cli("search", word, "--root", str(root), "--json"))
        read_s, _, _ = _run([sys.executable, "-c", READ, str(root), rel])
        size_bytes = path.stat().st_size
        return {"case": case, "size": size, "file_bytes": size_bytes,
                "index_growth_bytes": grown, "growth_per_byte": round(grown / size_bytes, 2),
                **_file_chunks(root, rel),
                "reindex_s": round(index_s, 2), "reindex_peak_mib": round(index_rss),
                "search_keyword_s": round(search_s, 2), "search_hybrid_s": round(hybrid_s, 2),
                "search_peak_mib": round(search_rss), "search_json_bytes": len(out),
                "read_note_s": round(read_s, 2),
                "warnings": warnings[:3]}


def demo_root(cache: Path) -> Path:
    root = cache / "bounds-demo"
    if not (root / "data" / "search" / "memlens.db").exists():
        shutil.rmtree(root, ignore_errors=True)
        subprocess.run(_cli("demo", "--root", str(root), "--no-app"), check=True,
                       stdout=subprocess.DEVNULL, cwd=REPO)
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--full", action="store_true", help="the sizes the docs quote")
    ap.add_argument("--case", choices=sorted(SMALL), action="append")
    ap.add_argument("--sizes", help="comma-separated sizes for the chosen cases")
    ap.add_argument("--cache", type=Path, default=BENCH_CACHE)
    args = ap.parse_args()
    os.chdir(REPO)  # `python -m cli` from the checkout
    plan = FULL if args.full else SMALL
    cases = args.case or sorted(plan)
    demo = demo_root(args.cache)
    print(f"# {machine()}; demo root {demo}", flush=True)
    for case in cases:
        sizes = [float(s) for s in args.sizes.split(",")] if args.sizes else plan[case]
        for size in sizes:
            print(json.dumps(run_case(demo, case, size)), flush=True)


if __name__ == "__main__":
    main()
