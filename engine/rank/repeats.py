"""Repeats: chunks of the same text shown as one row (docs/design.md, "The search pipeline").

The same quote saved on three days, or a daily bot message, would otherwise fill a page with
one text. Two chunks are repeats when their text is the same word for word once dates, times,
case, punctuation and whitespace are set aside: the same words in the same order, never a
similarity. The first (best-ranked) of them stays at its place and carries the others
(:class:`Repeat`); a row counts as that best member. Records whose first line says what they
are (a quote's words, an event's title: ``engine.extractors.HEADLINE_TYPES``) compare that
line only, since the lines under it annotate one occurrence. An injected profile never groups.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from functools import cache
from itertools import filterfalse

from engine.extractors.bounds import CHUNK_MAX_CHARS
from engine.rank.candidates import Candidate, Repeat

# chunks are bounded when written (engine/extractors/bounds.py); past this a chunk written
# before the bounds compares its raw rest exactly, so the work stays bounded and no two long
# texts group by their start alone
NORMALISED_CHARS = 2 * CHUNK_MAX_CHARS

# Every pattern opens with a digit or a literal letter, so the regex engine skips to where one
# may start (a leading look-behind made each pass ~5x slower); the word boundary before a
# match is checked in _drop instead.
_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
          r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
_WEEKDAY = (r"(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
            r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)")
_YEAR = r"(?:,?\s+\d{4}(?!\w))?"
_CLOCK_REST = (r":\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s*[ap]\.?m\b\.?)?"
               r"(?:\s*(?:z|utc|[+-]\d{2}:?\d{2}))?(?![\w:])")
# on casefolded text; a lone day/month like 7/10 stays: it is as often a score as a date
_DIGIT_FIRST = re.compile(r"\d(?:" + "|".join((
    r"\d{3}-\d{1,2}-\d{1,2}(?:t\d{1,2}" + _CLOCK_REST + r"|(?!\w))",  # 2026-03-12(t19:02z)
    r"\d{3}/\d{1,2}/\d{1,2}(?![\w/])",  # 2026/03/12
    r"\d?/\d{1,2}/(?:\d{4}|\d{2})(?![\w/])",  # 12/03/2026, 12/03/26
    r"\d?\.\d{1,2}\.\d{4}(?![\w.])",  # 12.03.2026 (not a version like 1.2.3)
    r"\d?(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r"\b\.?" + _YEAR,  # 12 march 2026
    r"\d?" + _CLOCK_REST,  # 19:02, 7:30 pm
    r"\d?\s*[ap]\.?m\b\.?",  # 7pm
)) + ")")
_MONTH_FIRST = re.compile(  # march 12, 2026; march 2026
    _MONTH + r"\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?(?!\w)" + _YEAR + r"|\d{4}(?!\w))")
_MARK = "\x00"  # where a date was: a weekday next to one goes too
_WEEKDAY_BEFORE = re.compile(_WEEKDAY + r"\b\.?[\s,()]*\x00")
_WEEKDAY_AFTER = re.compile(r"\x00[\s,()]*" + _WEEKDAY + r"\b\.?")
_NOT_WORD = re.compile(r"[\W_]+")
_ANY_DIGIT = re.compile(r"\d")


def _drop(m: re.Match) -> str:
    """A date or time becomes a mark, unless it starts inside a word (or inside a longer run
    of the separators it is written with: 1.12.03.2026 is no date)."""
    at, text = m.start(), m.string
    before = text[at - 1] if at else " "
    if before.isalnum() or before == "_" or (before in "/.:-" and before in m.group()):
        return m.group()
    return f" {_MARK} "


def _weekday_drop(m: re.Match) -> str:
    at = m.start()
    if m.group()[0] != _MARK and at and (m.string[at - 1].isalnum() or m.string[at - 1] == "_"):
        return m.group()
    return f" {_MARK} "


@cache
def _headline_types() -> frozenset[str]:
    from engine.extractors import HEADLINE_TYPES  # read once: the extractors are no schema

    return frozenset(HEADLINE_TYPES)


def normalise(text: str) -> str:
    """``text`` as repeats compare it: casefolded, without dates and times (ISO, 12/03/2026,
    "Tue 12 March", 19:02, 7pm) or the weekday beside one, punctuation and runs of
    whitespace as one space. The words and numbers left keep their order."""
    head, rest = text[:NORMALISED_CHARS], text[NORMALISED_CHARS:]
    s = head.casefold()
    if _ANY_DIGIT.search(s):  # every date and time holds one
        s = _MONTH_FIRST.sub(_drop, _DIGIT_FIRST.sub(_drop, s))
        if _MARK in s:
            s = _WEEKDAY_AFTER.sub(_weekday_drop, _WEEKDAY_BEFORE.sub(_weekday_drop, s))
    s = _NOT_WORD.sub(" ", s).strip()
    if rest and s:
        s += " " + hashlib.blake2b(rest.encode("utf-8", "surrogatepass"),
                                   digest_size=16).hexdigest()
    return s


# chunk id and hash(content) -> the digest of its normalised text: a page and the deeper
# rankings behind it, and the next keystroke's query, see the same chunks again; a digest,
# not the text, so the cache stays small (~200 bytes an entry)
_DIGESTS: dict[tuple[str, int], bytes] = {}
_DIGESTS_MAX = 8192


def _digest(chunk_id: str, text: str) -> bytes:
    key = (chunk_id, hash(text))
    found = _DIGESTS.get(key)
    if found is None:
        norm = normalise(text)
        found = hashlib.blake2b(norm.encode("utf-8", "surrogatepass"),
                                digest_size=16).digest() if norm else b""
        if len(_DIGESTS) >= _DIGESTS_MAX:
            _DIGESTS.clear()
        _DIGESTS[key] = found
    return found


def repeat_key(c: Candidate) -> tuple[str, bytes] | None:
    """What ``c`` is compared on, or None when it never groups (an injected profile, a text
    that is only dates)."""
    if c.injected:
        return None
    if c.source_type in _headline_types():
        digest = _digest(c.id + "\n", c.content.split("\n", 1)[0])
        return (c.source_type, digest) if digest else None
    digest = _digest(c.id, c.content)
    return ("", digest) if digest else None


# Words a date or time may hold ("12th of March", "Tue", "7 p.m.", "T19:02Z"): left out of the
# cheap key below, so two texts normalise() makes equal share it.
_DATE_WORDS = frozenset(w.encode() for w in (
    "jan january feb february mar march apr april may jun june jul july aug august sep sept "
    "september oct october nov november dec december mon monday tue tues tuesday wed "
    "wednesday thu thur thurs thursday fri friday sat saturday sun sunday st nd rd th of am "
    "pm a p m t z utc").split())
# over UTF-8 bytes: ASCII letters lowercased, every other ASCII byte a space (bytes.translate
# runs at C speed; the bytes of other characters pass as they are)
_ASCII_WORDS = bytes(c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or c >= 128 else 32
                     for c in range(256))


# the punctuation one copy of a text has where another has ASCII (an app's smart quotes and
# dashes, a no-break space): spaces too, as normalise() makes them
_TYPOGRAPHY = re.compile(b"|".join(re.escape(ch.encode()) for ch in
                                  "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00a0"
                                  "\u00ab\u00bb\u2022\u00b7"))


def _words_key(c: Candidate) -> int | None:
    """A cheap key repeats share: the text's words (split at ASCII non-letters, ASCII case
    aside) but those a date may hold, in order. Only rows whose cheap key meets another's are
    normalised in full: ~19 µs a 1,300-character chunk against ~83, and most candidates
    meet none. (Copies that differ only in rarer non-ASCII punctuation or in non-ASCII case
    get two keys and stay two rows.)"""
    if c.injected:
        return None
    headline = c.source_type in _headline_types()
    text = c.content.split("\n", 1)[0] if headline else c.content
    words = text[:NORMALISED_CHARS].encode("utf-8", "surrogatepass")
    if not words.isascii():
        words = _TYPOGRAPHY.sub(b" ", words)
    words = words.translate(_ASCII_WORDS)
    return hash((headline and c.source_type, text[NORMALISED_CHARS:],
                 *filterfalse(_DATE_WORDS.__contains__, words.split())))


def as_repeat(c: Candidate) -> Repeat:
    return Repeat(id=c.id, rowid=c.rowid, content_date=c.content_date,
                  source_file=c.source_file, source_type=c.source_type)


def collapse_repeats(cands: list[Candidate]) -> list[Candidate]:
    """The ranked list with each group of repeats as one row: its best-ranked member, at its
    place, carrying the others in ``repeats`` (best first). One pass, a hash per text; the
    input is never changed (a grouped row is a copy)."""
    out: list[Candidate] = []
    place: dict[tuple[str, bytes], int] = {}
    folded: dict[int, list[Repeat]] = {}
    cheap = [_words_key(c) for c in cands]
    shared = {k for k, n in Counter(cheap).items() if n > 1 and k is not None}
    for c, words in zip(cands, cheap, strict=True):
        key = repeat_key(c) if words in shared else None
        at = place.get(key) if key is not None else None
        if at is None:
            if key is not None:
                place[key] = len(out)
            out.append(c)
        else:  # a row already folded (a second pass) brings its own repeats along
            folded.setdefault(at, []).extend((as_repeat(c), *c.repeats))
    for at, more in folded.items():
        best = out[at]
        copy = object.__new__(type(best))  # as engine/rank/stages.py's _with: no __init__
        copy.__dict__ = {**best.__dict__, "repeats": (*best.repeats, *more)}
        out[at] = copy
    return out
