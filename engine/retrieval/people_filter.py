"""The person filter: restrict results to chunks with or about one person, in both arms.

A name (typos forgiven exactly as entity injection forgives them: :func:`engine.retrieval.entities.
match_person`) resolves to the person's canonical name and aliases from
``profile/relationships.json``. A chunk passes when

- it names the person: a name or alias occurs as a phrase in its text or its file path
  (one FTS5 MATCH of the quoted phrases). This also covers every *participant*: each
  extractor writes the people it records into the chunk text -- a message window's senders
  (``[time] Sender: text``), an email's from/to, a meeting's attendees and speakers, an event's
  or story's people (docs/data-layer.md) -- so the participant metadata needs no JSON scan of
  its own (measured: a ``json_each`` test over every chunk's metadata is a full-table scan);
  a chat file named after them (``data/signal/maya.jsonl``) passes through its path;
- or it is their entity file (``memory/entities/people/<name>.md``, by file name or title);
- or it is their injected profile (source type ``profile``).

:meth:`PersonFilter.sql` is the WHERE fragment for the keyword arm and the post-filter's SQL
twin; :meth:`PersonFilter.rowids_sql` the same set as a rowid query for the vector arm's mask
(index lookups only); :meth:`PersonFilter.matches` the in-memory predicate over a chunk dict.
A name that is nobody in the profile still filters, by that name alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.display import close_matches
from engine.library_types import parse_metadata
from engine.retrieval.entities import (
    MIN_KEY_CHARS,
    PROFILE_RELATIVE_PATH,
    PROFILE_SOURCE_TYPE,
    PeopleIndex,
    Person,
    load_people,
    match_person,
    normalize_key,
)
from engine.retrieval.fts_query import light_stem, quote, tokenize
from engine.storage.db import Connection

PEOPLE_DIR = "memory/entities/people/"


@dataclass(frozen=True)
class PersonFilter:
    name: str  # canonical (the profile's), or the name as given for someone unknown
    aliases: tuple[str, ...]
    matched: str  # the name or alias the given text matched
    known: bool  # in profile/relationships.json
    entity_files: tuple[str, ...]  # their entity file(s) among the indexed chunks

    @property
    def phrases(self) -> tuple[tuple[str, ...], ...]:
        """The name and aliases as word lists, each at least MIN_KEY_CHARS long."""
        out: list[tuple[str, ...]] = []
        for key in (self.name, *self.aliases):
            words = tuple(tokenize(key))
            if len("".join(words)) >= MIN_KEY_CHARS and words not in out:
                out.append(words)
        return tuple(out)

    def fts_match(self) -> str:
        """``"maya chen" OR "maya"``: to AND with a keyword query, or to select by."""
        return " OR ".join(quote(" ".join(words)) for words in self.phrases)

    def sql(self, alias: str = "c") -> tuple[str, list]:
        """A WHERE fragment over chunks ``alias``; one FTS5 lookup, materialised once."""
        clauses = [f"{alias}.rowid IN (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?)"]
        args: list[Any] = [self.fts_match()]
        if self.entity_files:
            clauses.append(f"{alias}.source_file IN ({','.join('?' * len(self.entity_files))})")
            args += list(self.entity_files)
        return "(" + " OR ".join(clauses) + ")", args

    def rowids_sql(self) -> tuple[str, list]:
        """``SELECT rowid ...`` of every passing chunk, for the vector arm's rowid mask."""
        query = "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?"
        args: list[Any] = [self.fts_match()]
        if self.entity_files:
            query += (" UNION SELECT rowid FROM chunks WHERE source_file IN "
                      f"({','.join('?' * len(self.entity_files))})")
            args += list(self.entity_files)
        return query, args

    def matches(self, chunk: Mapping[str, Any] | Any) -> bool:
        """The same test in memory, over a chunk dict or an object with the same attributes
        (a :class:`engine.rank.candidates.Candidate`): content, source_file, source_type, metadata.
        Words compare on :func:`engine.retrieval.fts_query.light_stem`, the closest the engine has to
        the index's porter stemmer."""
        def get(key: str) -> Any:
            return chunk.get(key) if isinstance(chunk, Mapping) else getattr(chunk, key, None)

        if get("source_type") == PROFILE_SOURCE_TYPE:
            meta = get("metadata") or {}
            return normalize_key(str(meta.get("person", ""))) == normalize_key(self.name)
        if get("source_file") in self.entity_files:
            return True
        needles = [[light_stem(w) for w in words] for words in self.phrases]
        for text in (get("content") or "", get("source_file") or ""):
            stems = [light_stem(t) for t in tokenize(text)]
            present = set(stems)  # most chunks hold no word of the name: one set test each
            for needle in needles:
                if not present.issuperset(needle):
                    continue
                n = len(needle)
                if any(stems[i:i + n] == needle for i, s in enumerate(stems) if s == needle[0]):
                    return True
        return False

    def label(self) -> str:
        """For a chip or a header: ``person: Maya Chen`` (``(as "Mya")`` when it was a typo)."""
        typed = normalize_key(self.matched) not in {normalize_key(k)
                                                   for k in (self.name, *self.aliases)}
        return f"person: {self.name}" + (f' (as "{self.matched}")' if typed else "")


def resolve_person(conn: Connection | None, name: str,
                   people: PeopleIndex | Iterable[Person]) -> PersonFilter | None:
    """The filter for ``name``; None when it has no word of MIN_KEY_CHARS+ characters."""
    text = " ".join(str(name or "").split())
    if len("".join(tokenize(text))) < MIN_KEY_CHARS:
        return None
    found = match_person(text, people)
    if found is not None:
        person, matched = found
        canonical, aliases, known = person.name, tuple(person.aliases), True
        matched = text if normalize_key(text) != normalize_key(matched) else matched
    else:
        canonical, aliases, matched, known = text, (), text, False
    files = _entity_files(conn, (canonical, *aliases)) if conn is not None else ()
    return PersonFilter(canonical, aliases, matched, known, files)


def person_filter(conn: Connection | None, root: str | Path, name: str) -> PersonFilter | None:
    """:func:`resolve_person` against the root's people file (cached by mtime)."""
    return resolve_person(conn, name, load_people(Path(root) / PROFILE_RELATIVE_PATH))


def nobody_named(conn: Connection, found: PersonFilter) -> bool:
    """Whether ``found`` is no one: not in the profile, no entity file, and no chunk names
    them in its text or path (a filter by that name could only ever keep nothing)."""
    if found.known or found.entity_files:
        return False
    query, args = found.rowids_sql()
    return bool(conn.execute(f"SELECT NOT EXISTS ({query})", args).fetchone()[0])


def close_people(text: str, root: str | Path, n: int = 3) -> list[str]:
    """The profile's people whose name, first name or an alias is spelled close to ``text``
    ("mya" → Maya Chen): the "did you mean" of a name that is no one."""
    spelled: dict[str, str] = {}
    for person in load_people(Path(root) / PROFILE_RELATIVE_PATH).people:
        for key in (person.name, person.name.split()[0], *person.aliases):
            spelled.setdefault(normalize_key(key), person.name)
    close = close_matches(normalize_key(text), spelled, n=n * 2)
    return list(dict.fromkeys(spelled[k] for k in close))[:n]


def _entity_files(conn: Connection, keys: Iterable[str]) -> tuple[str, ...]:
    """Entity files of people whose file stem or title is one of ``keys``."""
    wanted = {normalize_key(k) for k in keys}
    rows = conn.execute(
        "SELECT source_file, json_extract(metadata, '$.title') FROM chunks "
        "WHERE source_type = 'entity_file' AND source_file >= ? AND source_file < ? "
        "GROUP BY source_file", (PEOPLE_DIR, PEOPLE_DIR + "\uffff")).fetchall()
    out = []
    for source_file, title in rows:
        stem = Path(source_file).stem.replace("-", " ").replace("_", " ")
        if normalize_key(stem) in wanted or normalize_key(str(title or "")) in wanted:
            out.append(source_file)
    return tuple(sorted(out))


def chunk_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    """A chunks row (metadata as JSON text) as the dict :meth:`PersonFilter.matches` takes."""
    return {"content": row["content"], "source_file": row["source_file"],
            "source_type": row["source_type"], "metadata": parse_metadata(row["metadata"])}
