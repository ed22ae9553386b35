"""Entity injection (pipeline stage 7, docs/design.md): a query naming a known person surfaces their profile.

People come from ``<root>/profile/relationships.json``. The file is user-edited, so reading is
lenient: a top-level list instead of ``{"people": [...]}``, missing optional fields, odd types
are all accepted; a file that cannot be read at all yields no people and a ``load_error``.
"""

from __future__ import annotations

import functools
import json
import statistics
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.rank.candidates import Candidate
from engine.retrieval.fts_query import FTS5_STOP_WORDS, fold, tokenize

PROFILE_RELATIVE_PATH = "profile/relationships.json"
PROFILE_SOURCE_TYPE = "profile"
# Typo tolerance: normalized Levenshtein similarity (1 - edits / longer length, x100), only
# for keys of FUZZY_MIN_KEY_CHARS+ and only against query n-grams of the key's word count.
# At 85 one edit is forgiven in keys of 7+ characters ("mya chen", "maya chenn", "maya chan")
# and two in 14+; short names and ordinary words ("may" vs "maya": 75, "same river" vs
# "sam rivera": 80) never match. fuzz.ratio was rejected: it scores "may"/"maya" 85.7 and
# charges a substitution as two edits.
FUZZY_MIN_KEY_CHARS = 4
FUZZY_THRESHOLD = 85.0
MIN_KEY_CHARS = 2  # a one-letter alias would match "I" or "a" anywhere


@dataclass
class Person:
    name: str
    aliases: list[str] = field(default_factory=list)
    relationship: str | None = None
    context: str | None = None
    notes: str | None = None
    interests: list[str] = field(default_factory=list)
    milestones: list[dict[str, str]] = field(default_factory=list)

    @property
    def slug(self) -> str:
        """A stable id fragment: folded, lowercase words joined by hyphens."""
        return "-".join(fold(t) for t in tokenize(self.name)) or "unnamed"

    @property
    def keys(self) -> list[str]:
        """The name and aliases, deduped case-insensitively, skipping too-short ones."""
        seen, out = set(), []
        for key in [self.name, *self.aliases]:
            norm = normalize_key(key)
            if len(norm) >= MIN_KEY_CHARS and norm not in seen:
                seen.add(norm)
                out.append(key)
        return out


@dataclass
class PeopleIndex:
    people: list[Person] = field(default_factory=list)
    load_error: str | None = None  # why the file yielded no people, when it is broken
    path: Path | None = None
    # name_keys(), made on first use: load_people caches the index, so once per file version
    match_keys: list[tuple[str, str, Person]] | None = field(default=None, repr=False,
                                                             compare=False)


# --- loading --------------------------------------------------------------------------------

def _text(value: Any) -> str | None:
    """A scalar as stripped text; None for missing, empty or non-scalar values."""
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return str(value).strip() or None
    return None


def _texts(value: Any) -> list[str]:
    """A list of strings from a list (non-text items dropped) or a single string."""
    items = value if isinstance(value, list) else [value]
    return [t for t in (_text(v) for v in items) if t]


def _milestones(value: Any) -> list[dict[str, str]]:
    """Milestones as {"date", "event"} dicts; a bare string is an undated event."""
    out = []
    for item in value if isinstance(value, list) else []:
        if isinstance(item, dict):
            event = _text(item.get("event")) or _text(item.get("description"))
            if event:
                out.append({"date": _text(item.get("date")) or "", "event": event})
        elif isinstance(item, str) and item.strip():
            out.append({"date": "", "event": item.strip()})
    return out


def person_from_dict(raw: Any) -> Person | None:
    """One person entry, or None when it is not an object with a name."""
    if not isinstance(raw, dict) or not _text(raw.get("name")):
        return None
    return Person(
        name=_text(raw["name"]),
        aliases=_texts(raw.get("aliases")),
        relationship=_text(raw.get("relationship")),
        context=_text(raw.get("context")),
        notes=_text(raw.get("notes")),
        interests=_texts(raw.get("interests")),
        milestones=_milestones(raw.get("milestones")),
    )


def parse_people(data: Any) -> list[Person]:
    """People from the parsed JSON: ``{"people": [...]}`` or a bare list."""
    entries = data.get("people") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ValueError('expected {"people": [...]} or a list of people')
    return [p for p in (person_from_dict(e) for e in entries) if p is not None]


def read_people(path: Path) -> PeopleIndex:
    """Read and parse the file, uncached. A missing file is not an error: no people."""
    if not path.exists():
        return PeopleIndex(path=path)
    try:
        people = parse_people(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as exc:
        return PeopleIndex(path=path, load_error=f"{path.name}: invalid JSON at line "
                                                 f"{exc.lineno} column {exc.colno}: {exc.msg}")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return PeopleIndex(path=path, load_error=f"{path.name}: {exc}")
    return PeopleIndex(people=people, path=path)


_CACHE: dict[Path, tuple[tuple[int, int] | None, PeopleIndex]] = {}


def _stamp(path: Path) -> tuple[int, int] | None:
    """(mtime_ns, size), or None when the file is absent: what makes a cached copy stale."""
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def load_people(path: str | Path) -> PeopleIndex:
    """The people in ``path``, parsed once and cached until the file's mtime or size changes.

    Searches run per keystroke in the app; re-reading the JSON each time would be waste.
    """
    path = Path(path).expanduser().resolve()
    stamp = _stamp(path)
    cached = _CACHE.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    index = read_people(path)
    _CACHE[path] = (stamp, index)
    return index


def clear_people_cache() -> None:
    """Forget every cached file (tests, or after a root switch)."""
    _CACHE.clear()


# --- content --------------------------------------------------------------------------------

def person_to_content(person: Person) -> str:
    """The profile as readable, searchable text: name first, then each known field."""
    head = person.name
    if person.aliases:
        head += f" (also: {', '.join(person.aliases)})"
    lines = [head]
    for label, value in (("Relationship", person.relationship), ("Context", person.context),
                         ("Notes", person.notes)):
        if value:
            lines.append(f"{label}: {value}")
    if person.interests:
        lines.append(f"Interests: {', '.join(person.interests)}")
    if person.milestones:
        lines.append("Milestones:")
        lines += [f"- {m['date']}: {m['event']}" if m["date"] else f"- {m['event']}"
                  for m in person.milestones]
    return "\n".join(lines)


# --- matching -------------------------------------------------------------------------------

def normalize_key(text: str) -> str:
    """Folded lowercase words joined by single spaces: the form names are compared in."""
    return " ".join(fold(t) for t in tokenize(text))


def name_keys(people: PeopleIndex | Iterable[Person]) -> list[tuple[str, str, Person]]:
    """(normalized key, original key, person) for every name and alias, longest first.

    Longest first so "Maya Chen" is tried before a bare "Maya" that another person may share.
    """
    if isinstance(people, PeopleIndex):
        if people.match_keys is None:
            people.match_keys = name_keys(people.people)
        return people.match_keys
    keys = [(normalize_key(k), k, p) for p in people for k in p.keys]
    return sorted(keys, key=lambda item: -len(item[0]))


def ngrams(tokens: list[str], n: int) -> list[str]:
    """Every run of ``n`` consecutive tokens, joined by spaces."""
    return [" ".join(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def exact_match(query_tokens: list[str], norm: str) -> bool:
    """Whether the key's words occur consecutively in the query (word boundaries)."""
    return norm in ngrams(query_tokens, len(norm.split()))


def fuzzy_score(query_tokens: list[str], norm: str) -> float:
    """The key's best similarity (0-100) to a same-length query n-gram, 0 when not eligible
    or when no n-gram could reach FUZZY_THRESHOLD.

    Short keys are not eligible, and n-grams made only of stop words are skipped, so ordinary
    words cannot summon a profile.
    """
    if len(norm.replace(" ", "")) < FUZZY_MIN_KEY_CHARS:
        return 0.0
    grams = [g for g in ngrams(query_tokens, len(norm.split()))
             if not all(w in FTS5_STOP_WORDS for w in g.split())]
    if "rapidfuzz" not in sys.modules:
        # spare its import (~7 ms of a command-line search) when no n-gram can be near a name;
        # once loaded, rapidfuzz scores a pair faster than the bound rules it out
        grams = [g for g in grams if _may_reach(norm, g)]
    if not grams:
        return 0.0
    from rapidfuzz.distance import Levenshtein

    return max(100.0 * Levenshtein.normalized_similarity(norm, g) for g in grams)


def _may_reach(key: str, gram: str) -> bool:
    """Whether ``gram`` could be within FUZZY_THRESHOLD of ``key``. Both lower bounds of the
    edit distance: the difference in length, and the number of distinct letters one has and
    the other lacks (each takes an edit). A gram failing either fails the threshold too."""
    longest = max(len(key), len(gram))
    if not longest:
        return True
    edits = (1 - FUZZY_THRESHOLD / 100.0) * longest  # the most a match may need
    if abs(len(key) - len(gram)) > edits:
        return False
    a, b = _letters(key), _letters(gram)
    return max(len(a - b), len(b - a)) <= edits


@functools.lru_cache(maxsize=4096)
def _letters(text: str) -> frozenset[str]:
    return frozenset(text)


def match_person(query: str,
                 people: PeopleIndex | Iterable[Person]) -> tuple[Person, str] | None:
    """The person the query names, and the name or alias that matched; None if nobody.

    Keys are tried longest first, and the longest key that matches wins, exactly or with a typo,
    so "Maya Chenn" finds Maya Chen rather than a cousin called Maya. Between equally long keys
    an exact match beats a typo match, then the closer typo wins. Case and diacritics are
    ignored throughout.
    """
    tokens = [fold(t) for t in tokenize(query or "")]
    if not tokens:
        return None
    best, best_rank = None, None
    for norm, original, person in name_keys(people):
        exact = exact_match(tokens, norm)
        score = 100.0 if exact else fuzzy_score(tokens, norm)
        rank = (len(norm), exact, score)
        if score >= FUZZY_THRESHOLD and (best_rank is None or rank > best_rank):
            best, best_rank = (person, original), rank
    return best


# --- injection ------------------------------------------------------------------------------

def profile_candidate(person: Person, matched: str, score: float) -> Candidate:
    """The synthetic, clearly marked profile row for a person."""
    return Candidate(
        id=f"profile:{person.slug}",
        content=person_to_content(person),
        source_file=PROFILE_RELATIVE_PATH,
        source_type=PROFILE_SOURCE_TYPE,
        metadata={"person": person.name, "matched": matched,
                  "relationship": person.relationship},
        score=score,
        injected=True,
    )


def median_score(cands: list[Candidate]) -> float:
    """The median of the candidates' scores (0 with none): high enough to surface the profile,
    low enough not to leapfrog the strong lexical and semantic matches."""
    return float(statistics.median(c.score for c in cands)) if cands else 0.0


def insertion_index(cands: list[Candidate], score: float) -> int:
    """Just after the last candidate scoring >= ``score``: no equal or higher row is passed."""
    return max((i + 1 for i, c in enumerate(cands) if c.score >= score), default=0)


def inject_entity(cands: list[Candidate], query: str,
                  people: PeopleIndex | Iterable[Person]) -> list[Candidate]:
    """Insert the named person's profile at the median score; at most one per query.

    Skipped when nobody is named, when that profile is already among the candidates, or when
    some profile was already injected.
    """
    out = list(cands)
    found = match_person(query, people)
    if found is None or any(c.injected for c in out):
        return out
    person, matched = found
    if any(c.id == f"profile:{person.slug}" for c in out):
        return out
    score = median_score(out)
    out.insert(insertion_index(out, score), profile_candidate(person, matched, score))
    return out
