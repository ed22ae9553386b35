"""A folder filter as a person writes it, resolved against the folders the index holds.

A path the index holds is used as written when it ends where a name ends (``notes/work/``,
``@Vault/Work/``, ``@Vault/Work`` for that folder, a file, ``data/slack/random`` for
``random.jsonl``): the filter compares it with ``source_file`` (engine/retrieval/filters.py).
Otherwise it names a folder (or a file) inside one, as a person sees it from where they keep it:
``Work/`` means ``@Vault/Work/`` when the index holds a ``Work/`` in that one place, and
``Vault/Work/`` means it too (a source's files are ``@<name>/...``, engine/index/sources.py). A
name matches whole path parts (``Work`` is the folder ``Work/``, never ``Workshop.md``), or a
file's name without its extension; the start of a name (``Hom``, ``notes/wor``) matches
nothing and gets the closest folders.

Found in several places (``@Vault/Work/`` and ``@Notes/Work/``), the search is refused with
the candidates, as an ambiguous ``--source`` is: a filter that quietly spanned folders would
show results from places the person did not name, and the one they meant is one word away. A
folder the index does not hold is refused with the closest ones it does.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import path_style
from engine.display import close_matches, did_you_mean, json_dumps
from engine.retrieval.filters import SearchError

# Every distinct source_file, one seek of the (source_file, ...) index per file rather than a
# read of every chunk: 19 ms for 12,490 files of 500k chunks, where SELECT DISTINCT reads all
# 500k index entries in 31-59 ms.
FILES_SQL = """
WITH RECURSIVE f(path) AS (
    SELECT min(source_file) FROM chunks
    UNION ALL
    SELECT (SELECT min(source_file) FROM chunks WHERE source_file > f.path)
    FROM f WHERE f.path IS NOT NULL)
SELECT path FROM f WHERE path IS NOT NULL
"""
SHOWN = 5  # candidates named in one error line
CLOSE = 3  # "did you mean" suggestions


def folder_prefix(conn: Any, typed: Any, sources: Iterable[Any] = ()) -> str | None:
    """The ``source_file`` prefix a typed folder filter means (None: no filter), or
    :class:`SearchError` naming the candidates or the closest folders. ``sources``: the
    declared sources (``.name``): a source's own ``@name/`` is its folder even before it holds
    an indexed file."""
    if typed is None or typed == "":
        return None
    if not isinstance(typed, str):
        raise SearchError("folder must be a path prefix, e.g. notes/work/")
    whole = as_written(conn, typed)
    if whole is not None:
        return whole
    text = path_style.slashed(typed.strip())  # '\\' separates names on Windows only
    while text.startswith("./"):
        text = text[2:]
    if not text:
        return None
    whole = as_written(conn, text) if text != typed else None
    if whole is not None:
        return whole
    if any(text in (f"@{s.name}/", f"@{s.name}") for s in sources):
        return text if text.endswith("/") else text + "/"
    files = indexed_files(conn)
    found = places(files, text)
    if len(found) == 1:
        return found[0]
    shown = _quote(text)
    if found:
        more = f" and {len(found) - SHOWN} more" if len(found) > SHOWN else ""
        raise SearchError(f"folder {shown} is in {len(found)} places: "
                          f"{', '.join(map(_quote, found[:SHOWN]))}{more}; write the one you mean")
    if not files:
        raise SearchError(f"no folder {shown} in the index: it holds no files yet")
    hint = did_you_mean(map(_quote, closest(folders(files), text)))
    if not hint:
        tops = sorted({f.split("/", 1)[0] + "/" for f in files if "/" in f})
        hint = f"its folders start with {', '.join(map(_quote, tops[:8]))}"
    raise SearchError(f"no folder {shown} in the index; {hint}")


def as_written(conn: Any, typed: str) -> str | None:
    """``typed`` as a path the index holds, ending where a name ends: a folder (``notes/work/``,
    or ``@Vault/Work`` for ``@Vault/Work/``, never also ``@Vault/Workshop.md``), a file, or a
    file's name without its extension (``data/slack/random``); None when it ends inside a
    name (``notes/wor``), which then gets a "did you mean"."""
    if typed.endswith("/"):
        return typed if files_under(conn, typed) else None
    if files_under(conn, typed + "/"):
        return typed + "/"
    if conn.execute("SELECT 1 FROM chunks WHERE source_file = ? LIMIT 1",
                    (typed,)).fetchone() is not None:
        return typed
    return typed + "." if files_under(conn, typed + ".") else None


def files_under(conn: Any, prefix: str) -> bool:
    """Whether any indexed chunk's source file starts with ``prefix`` (one index seek)."""
    return conn.execute(
        "SELECT 1 FROM chunks WHERE source_file >= ? AND source_file < ? LIMIT 1",
        (prefix, prefix + "\U0010ffff")).fetchone() is not None


def indexed_files(conn: Any) -> list[str]:
    """Every distinct ``source_file`` of the index, sorted."""
    return [row[0] for row in conn.execute(FILES_SQL)]


def places(files: Iterable[str], typed: str) -> list[str]:
    """The prefixes ``typed`` can mean inside ``files``: where it is a whole path part (after
    a '/', or after a source's '@'; a folder's with its '/'), else a file's name without its
    extension (``random`` for ``random.jsonl``). The start of a name is no place: ``Hom`` is
    not ``Home/``, it gets a "did you mean"."""
    whole, stems = set(), set()
    for path in files:
        i = path.find(typed, 1)
        while i != -1:
            if path[i - 1] == "/" or (i == 1 and path[0] == "@"):
                end = i + len(typed)
                if typed.endswith("/") or end == len(path):
                    whole.add(path[:end])
                elif path[end] == "/":
                    whole.add(path[:end + 1])
                elif path[end] == "." and "/" not in path[end:]:
                    stems.add(path[:end + 1])
            i = path.find(typed, i + 1)
    return sorted(whole or stems)


def folders(files: Iterable[str]) -> set[str]:
    """Every folder holding an indexed file, at any depth (``a/``, ``a/b/``), with its '/'."""
    out: set[str] = set()
    for path in files:
        end = path.rfind("/")
        while end > 0 and path[:end + 1] not in out:
            out.add(path[:end + 1])
            end = path.rfind("/", 0, end)
    return out


def closest(known: Iterable[str], typed: str) -> list[str]:
    """The folders spelled closest to ``typed``, any case, compared with each folder's tail
    from a part on (``Wrok/`` is close to ``@Vault/Work/`` by its ``Work/``)."""
    tails: dict[str, list[str]] = {}
    for folder in sorted(known):
        starts = [0, *(i + 1 for i, ch in enumerate(folder[:-1]) if ch == "/")]
        if folder.startswith("@"):
            starts.append(1)
        for start in starts:
            tails.setdefault(_key(folder[start:]), []).append(folder)
    # only the nearest few: "notes/hmoe/" is "notes/home/", not also "notes/"
    near = close_matches(_key(typed), tails, n=len(tails), within=0.1)
    return list(dict.fromkeys(f for key in near for f in tails[key]))[:CLOSE]


def _key(text: str) -> str:
    return text.lower().strip("/")


def _quote(text: str) -> str:
    return json_dumps(text[:120] + ("…" if len(text) > 120 else ""))
