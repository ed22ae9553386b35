"""The search filters: one class owns both forms of every filter.

:meth:`Filters.sql` is the WHERE fragment pushed into the keyword arm; :meth:`Filters.rowid_queries`
the same set as rowid queries for the vector arm's mask; :meth:`Filters.matches` the same test
in memory, the post-fusion re-check (it judges the injected profile, which no SQL sees). The
forms agree on every chunk (tests/search/test_filters.py) because they compare the same values the
same way: dates as the strings the index holds (content_date is ``YYYY-MM-DD`` or NULL,
docs/data-layer.md), so ``since``/``until`` are inclusive on the date part in both.

A chunk is dated by a span: from ``first_date`` (set only when it spans days, e.g. a chat window
over two sessions) to ``content_date``. A chat window is matched by its messages: a range keeps
it when one of its messages was sent inside the range, "on this day" when one was sent on that
day (the window that starts on the day asked about holds messages of that day even though its
newest message is from a later one; a window of Friday and Monday holds none of the weekend).
Its first and last days are message days, so only a window that starts before the range and
ends after it (or a day in its middle) reads its days: ``message_days`` in SQL, its content in
memory (engine/dates/message_days.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from engine.dates.message_days import chat_types, window_days
from engine.dates.spans import ends_before
from engine.retrieval.people_filter import PersonFilter


class SearchError(ValueError):
    """The caller asked for something invalid (bad mode, limit, filter): one line."""


@dataclass(frozen=True)
class Filters:
    source_types: tuple[str, ...] | None = None
    since: str | None = None  # YYYY-MM-DD, inclusive
    until: str | None = None  # YYYY-MM-DD, inclusive
    month_day: str | None = None  # "MM-DD": "on this day" (that day in any year)
    path_prefix: str | None = None  # a source_file prefix (a typed folder: retrieval/folders.py)
    tags: tuple[str, ...] | None = None
    frontmatter: tuple[tuple[str, Any], ...] | None = None
    person: PersonFilter | None = None
    # the index's longest chunk span in days (engine/dates/spans.py): bounds the SQL of ``until``;
    # None (not known) takes the unbounded form, which selects the same chunks
    span_days: int | None = None
    # the first and last year the index holds a day of (engine/dates/spans.py): "on this day"
    # becomes those years' days; None (not known) compares every date, the same chunks
    years: tuple[int, int] | None = None
    # the query's quoted phrases, as word lists: a chunk's text holds each one as written
    # (FTS5's phrase over the content column; in memory the index's own tokenizer)
    phrases: tuple[tuple[str, ...], ...] | None = None

    @classmethod
    def build(cls, source_types: Sequence[str] | None = None, since: Any = None,
              until: Any = None, month_day: str | None = None, path_prefix: str | None = None,
              tags: Sequence[str] | None = None, frontmatter: Mapping[str, Any] | None = None,
              person: PersonFilter | None = None, span_days: int | None = None,
              years: tuple[int, int] | None = None,
              phrases: Sequence[Sequence[str]] | None = None) -> Filters:
        """Filters from a caller's arguments, each checked (:class:`SearchError`);
        ``span_days`` and ``years``: the index's longest span and years
        (engine/dates/spans.py), for the SQL form."""
        if source_types is not None and (isinstance(source_types, str | Mapping)
                                         or not all(isinstance(t, str) for t in source_types)):
            raise SearchError("source_types must be a list of source type names")
        if tags is not None and (isinstance(tags, str)
                                 or not all(isinstance(t, str) for t in tags)):
            raise SearchError("tags must be a list of strings")
        if frontmatter is not None and not isinstance(frontmatter, Mapping):
            raise SearchError("frontmatter must map keys to values")
        for key, value in (frontmatter or {}).items():
            if not isinstance(key, str) or not key or '"' in key:
                raise SearchError(f"frontmatter keys must be non-empty names without '\"': "
                                  f"{str(key)[:40]!r}")
            json_type(value)
        return cls(tuple(source_types) if source_types else None, _day(since, "since"),
                   _day(until, "until"), month_day, path_prefix or None,
                   tuple(tags) if tags else None,
                   tuple(sorted(frontmatter.items())) if frontmatter else None, person,
                   span_days, years,
                   phrases=tuple(tuple(p) for p in phrases) if phrases else None)

    @property
    def dated(self) -> bool:
        return bool(self.since or self.until or self.month_day)

    @property
    def closed_range(self) -> bool:
        """Both ends set, or "on this day": a period the caller named."""
        return bool((self.since and self.until) or self.month_day)

    @property
    def beyond_type(self) -> bool:
        return self.dated or any(v is not None for v in (
            self.path_prefix, self.tags, self.frontmatter, self.person, self.phrases))

    # -- the SQL form ------------------------------------------------------------------------
    def sql(self, alias: str = "c") -> tuple[str, list]:
        """A WHERE fragment over chunks ``alias`` (exact, so pushing it down never changes
        results)."""
        where, args = self._sql(alias)
        if self.person is not None:
            clause, more = self.person.sql(alias)
            where, args = (clause if where == "1=1" else f"{where} AND {clause}"), args + more
        return where, args

    def _sql(self, alias: str, with_range: bool = True) -> tuple[str, list]:
        """Every filter but the person (and but since/until's own clause without
        ``with_range``: the vector mask puts its branches in a UNION)."""
        clauses, args = [], []
        if self.source_types:
            clauses.append(f"{alias}.source_type IN ({','.join('?' * len(self.source_types))})")
            args += list(self.source_types)
        if with_range and (self.since or self.until):
            branches = self._range_branches(alias)
            clauses.append(branches[0][0] if len(branches) == 1
                           else "(" + " OR ".join(f"({b})" for b, _ in branches) + ")")
            args += [a for _, more in branches for a in more]
        if self.month_day:
            clause, more = self._on_this_day(alias)
            clauses.append(clause)
            args += more
        if self.path_prefix:
            clauses.append(f"substr({alias}.source_file, 1, ?) = ?")
            args += [len(self.path_prefix), self.path_prefix]
        for tag in self.tags or ():
            clauses.append(
                f"EXISTS (SELECT 1 FROM json_each({alias}.metadata, '$.tags') WHERE value = ?)")
            args.append(tag)
        for key, value in self.frontmatter or ():
            path = f'$.frontmatter."{key}"'
            kind, sql_value = json_type(value)
            clauses.append(f"json_type({alias}.metadata, ?) = ?" + (
                "" if sql_value is None else f" AND json_extract({alias}.metadata, ?) = ?"))
            args += [path, kind] + ([] if sql_value is None else [path, sql_value])
        if self.phrases:
            clauses.append(f"{alias}.rowid IN ({PHRASE_ROWIDS})")
            args.append(self.phrase_match())
        return (" AND ".join(clauses) or "1=1"), args

    def phrase_match(self) -> str:
        """The FTS5 MATCH of the chunks whose text holds every phrase (the content column:
        a file's path is not its text)."""
        from engine.retrieval.fts_query import quote

        return " AND ".join(f"content : {quote(' '.join(p))}" for p in self.phrases or ())

    def _range_branches(self, alias: str) -> list[tuple[str, list]]:
        """since/until over a chunk's span (module docstring), as disjoint branches: the chunks
        ending in the range, and (when some chunk spans days) those ending after ``until``
        whose first day is not. ``until`` compares with the next day: inclusive on the date
        part, and index-friendly. The second branch reads only the ``span_days`` days after
        ``until`` of the index chunks_span (engine/dates/spans.py)."""
        c = alias
        since = ([f"{c}.content_date >= ?"], [self.since]) if self.since else ([], [])
        if not self.until:
            return [(since[0][0], since[1])]
        end = _next_day(self.until)
        ending = (" AND ".join([*since[0], f"{c}.content_date < ?"]), [*since[1], end])
        if self.span_days == 0:  # no chunk spans days
            return [ending]
        lower = max(self.since or end, end)
        if self.span_days is None:
            spanning = (f"{c}.content_date >= ? AND {c}.first_date < ?", [lower, end])
        else:
            spanning = (f"{c}.content_date >= ? AND {c}.content_date < ? AND {c}.first_date < ?",
                        [lower, ends_before(self.until, self.span_days), end])
        if self.since:  # one that starts before the range holds a message in it, or not
            inside, more = self._message_on(c)
            spanning = (f"{spanning[0]} AND ({c}.first_date >= ? OR {inside})",
                        [*spanning[1], self.since, *more])
        return [ending, spanning]

    def _on_this_day(self, alias: str) -> tuple[str, list]:
        """"On this day" (inside the range): a chunk of one day dated on it, a chunk that spans
        days with a message sent on it. With the index's years known, the days themselves:
        seeks of two indexes instead of a read of every date (at 500k chunks, browsing "on this
        day" took 0.5 s so, 11 ms now; docs/benchmarks.md)."""
        c = alias
        days = self.month_days()
        if days is None:
            own, args = f"substr({c}.content_date, 6, 5) = ?", [self.month_day]
            sent, more = self._message_on(alias)
        else:
            own = " OR ".join(f"({c}.content_date >= ? AND {c}.content_date < ?)"
                              for _ in days) or "0"
            args = [v for d in days for v in (d, _next_day(d))]
            chat = chat_types()
            sent = (f"{c}.rowid IN (SELECT m.chunk_rowid FROM message_days m WHERE "
                    f"m.source_type IN ({','.join('?' * len(chat))}) AND "
                    f"m.day IN ({','.join('?' * len(days))}))")
            more = [*chat, *days]
        return (f"(({c}.first_date IS NULL AND ({own})) OR "
                f"({c}.first_date IS NOT NULL AND {sent}))"), [*args, *more]

    def month_days(self) -> list[str] | None:
        """The days "on this day" means inside the range and the index's years (None when the
        years are not known)."""
        if self.years is None or not self.month_day:
            return None
        out = []
        for year in range(self.years[0], self.years[1] + 1):
            try:
                day = date.fromisoformat(f"{year:04}-{self.month_day}").isoformat()
            except ValueError:  # 29 February of a common year
                continue
            if self.day_ok(day):
                out.append(day)
        return out

    def _message_on(self, alias: str) -> tuple[str, list]:
        """A window has a message sent on a day :meth:`day_ok` keeps: a seek of message_days'
        primary key (chunk_rowid, day)."""
        where, args = self.message_day_sql("m")
        return (f"EXISTS (SELECT 1 FROM message_days m WHERE m.chunk_rowid = {alias}.rowid AND "
                f"{where})"), args

    def message_day_sql(self, alias: str = "m") -> tuple[str, list]:
        """:meth:`day_ok` over ``message_days`` rows ``alias``."""
        tests = [*([f"substr({alias}.day, 6, 5) = ?"] if self.month_day else []),
                 *([f"{alias}.day >= ?"] if self.since else []),
                 *([f"{alias}.day < ?"] if self.until else [])]
        args = [*([self.month_day] if self.month_day else []),
                *([self.since] if self.since else []),
                *([_next_day(self.until)] if self.until else [])]
        return " AND ".join(tests) or "1=1", args

    def rowid_queries(self) -> list[tuple[str, list]]:
        """Queries of rowids whose intersection is the chunks passing every filter but the
        source type (the vector index masks types itself): the vector arm's mask."""
        out = []
        if self.dated or any(v is not None for v in (self.path_prefix, self.tags,
                                                     self.frontmatter, self.phrases)):
            rest = replace(self, source_types=None, person=None)
            branches = rest._range_branches("c") if rest.since or rest.until else []
            if len(branches) < 2:
                where, args = rest.sql()
                out.append((f"SELECT c.rowid FROM chunks c WHERE {where}", args))
            else:  # disjoint: UNION ALL keeps each branch on its covering index, unsorted
                where, args = rest._sql("c", with_range=False)
                out.append((" UNION ALL ".join(
                    f"SELECT c.rowid FROM chunks c WHERE {where} AND {b}" for b, _ in branches),
                    [a for _, more in branches for a in [*args, *more]]))
        if self.person is not None:
            out.append(self.person.rowids_sql())  # index lookups, not a scan of chunks
        return out

    # -- the in-memory form ------------------------------------------------------------------
    def matches(self, c: Any) -> bool:
        """The same test over a :class:`engine.rank.candidates.Candidate`.

        An injected profile passes the type filter when it allows "profile", the folder filter
        when its file (profile/relationships.json) is under it, and the person filter when it
        is that person's; a quoted phrase applies to it as to any row. Tags and frontmatter,
        which it has none of, keep it out; a date range does not: it has no date of its own,
        and the user named the person whose events the dates hold.
        """
        if self.source_types and c.source_type not in self.source_types:
            return False
        if getattr(c, "injected", False) and (
                self.tags or self.frontmatter
                or (self.path_prefix and not c.source_file.startswith(self.path_prefix))):
            return False
        if not getattr(c, "injected", False):
            meta = c.metadata if isinstance(c.metadata, Mapping) else {}
            if not (self._date_ok(c.content_date, getattr(c, "first_date", None),
                                  lambda: window_days(c.content, meta))
                    and (not self.path_prefix or c.source_file.startswith(self.path_prefix))
                    and all(tag in _tag_values(meta) for tag in self.tags or ())
                    and all(_frontmatter_ok(meta, k, v) for k, v in self.frontmatter or ())):
                return False
        if not holds_phrases(c.content, self.phrases):  # a quoted phrase: any row, as written
            return False
        # last: it reads the whole text (~0.15 ms a chunk)
        return self.person is None or self.person.matches(c)

    def day_ok(self, day: str) -> bool:
        """A day (``YYYY-MM-DD``) inside the range and, for "on this day", that month-day."""
        return ((not self.since or day >= self.since)
                and (not self.until or day < _next_day(self.until))
                and (not self.month_day or day[5:10] == self.month_day))

    def _date_ok(self, content_date: Any, first_date: Any = None,
                 days: Callable[[], frozenset[str] | None] = lambda: None) -> bool:
        """``days``: the days a chat window's messages were sent on (None: not known), read
        only for a window its ends do not decide (module docstring)."""
        if not self.dated:
            return True
        if not isinstance(content_date, str):
            return False  # undated: it cannot be shown to be in range (SQL: NULL fails)
        ends = [content_date, *([first_date] if isinstance(first_date, str) else [])]
        end = _next_day(self.until) if self.until else None
        if self.since and content_date < self.since or end and min(ends) >= end:
            return False
        if self.month_day:  # one day: its date; a span: the days of its messages
            if len(ends) == 1:
                return self.day_ok(content_date[:10])
            return any(self.day_ok(d) for d in days() or ())
        if not end or content_date < end or not self.since or ends[1] >= self.since:
            return True  # its last day, or (no since) its first day, is in the range
        return any(self.day_ok(d) for d in days() or ())


PHRASE_ROWIDS = "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?"


def holds_phrases(text: str, phrases: Iterable[Sequence[str]] | None) -> bool:
    """Whether ``text`` holds each phrase as consecutive tokens of the index's own tokenizer
    (porter over unicode61: engine/retrieval/stemmer.py), as FTS5's phrase query finds it."""
    if not phrases:
        return True
    from engine.retrieval.fts_query import WORD
    from engine.retrieval.stemmer import tokens

    words = WORD.findall(text)
    wanted = [list(p) for p in phrases]
    made = tokens({*words, *(w for p in wanted for w in p)})
    seq = [t for w in words for t in made[w]]
    for phrase in wanted:
        run = [t for w in phrase for t in made[w]]
        if not run or not any(seq[i:i + len(run)] == run for i in range(len(seq) - len(run) + 1)):
            return False
    return True


def _day(value: Any, what: str) -> str | None:
    """A bound as ``YYYY-MM-DD`` (a date, a datetime, or ISO text whose time is dropped)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    try:
        return date.fromisoformat(str(value).strip()[:10]).isoformat()
    except ValueError:
        raise SearchError(f"{what} must be a date (YYYY-MM-DD), not {str(value)[:40]!r}") from None


def _next_day(day: str) -> str:
    try:
        return (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    except OverflowError:  # 9999-12-31: above every date
        return "9999-12-32"


def _tag_values(meta: Mapping[str, Any]) -> Iterable[Any]:
    """What ``json_each(metadata, '$.tags')`` yields: a list's items, a string itself."""
    tags = meta.get("tags")
    if tags is None:
        return ()
    if isinstance(tags, Mapping):
        return tags.values()
    return tags if isinstance(tags, list) else (tags,)


def _frontmatter_ok(meta: Mapping[str, Any], key: str, value: Any) -> bool:
    fm = meta.get("frontmatter")
    return isinstance(fm, Mapping) and key in fm and strict_equal(fm[key], value)


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that also requires equal types, all the way down: "0" != 0, True != 1, 1 != 1.0.

    Frontmatter filters compare YAML values, where a quoted "1" and a bare 1 mean different
    things; Python's ``==`` would conflate True with 1 (also inside lists).
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[key], b[key]) for key in a)
    return a == b


def json_type(value: Any) -> tuple[str, Any]:
    """SQLite's json_type name for a Python value: strict typing ("0" never equals 0)."""
    if value is True:
        return "true", None
    if value is False:
        return "false", None
    if value is None:
        return "null", None
    if isinstance(value, int):
        return "integer", value
    if isinstance(value, float):
        return "real", value
    if isinstance(value, str):
        return "text", value
    raise SearchError(f"frontmatter values must be strings, numbers, booleans or null, "
                      f"not {type(value).__name__}")
