"""Turn a natural-language query into a safe FTS5 MATCH expression (pipeline stage 1, docs/design.md).

Raw user text breaks FTS5: ``col:term``, ``NEAR(``, a stray ``"`` or ``*`` are all syntax. So the
query is reduced to plain word tokens, every token is double-quoted (a quoted string is always a
literal in FTS5), and the quoted terms are OR-ed. Stemming and diacritic folding are left to the
index's tokenizer (``porter unicode61 remove_diacritics 2``), so the query side never stems.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

# Articles, pronouns, prepositions, conjunctions, auxiliaries/modals and interrogatives: words
# that carry no topic, and that would make an OR query match nearly every chunk.
FTS5_STOP_WORDS: frozenset[str] = frozenset("""
    a an the
    i me my mine myself we us our ours ourselves you your yours yourself yourselves
    he him his himself she her hers herself it its itself they them their theirs themselves
    this that these those there here
    what when where who whom whose how why which
    am is are was were be been being do does did doing done have has had having
    can could may might must shall should will would
    about above across after against along among around at before behind below beneath
    beside between beyond by during except for from in inside into like of off on onto out
    outside over since through throughout till to toward towards under until up upon with
    within without via per
    and or not nor but so yet if then than because as while also too very just only
    any some all each every both either neither no none
    s t d ll m re ve
""".split())

# How people ask what filled a stretch of time, besides the stop words: "what happened",
# "what went on", "what was I up to", "anything new", "show me everything", "tell me about",
# "recap of", "what did I get up to". Verbs of happening and going, of getting up to and
# doing; requests to show, tell, list, give, find or remind; placeholders for whatever filled
# the time. Beside a date (or a person), a query of only these and stop words asks for the
# period itself: it browses the range newest first, as "what did I do in March" does
# (docs/design.md, "Time phrases"). Anything else in the query is a topic and is searched.
PERIOD_QUESTION_WORDS: frozenset[str] = frozenset("""
    happen happened happening happens occur occurred occurring go goes going went gone
    get got getting up doing been
    show tell list give find remind recap summary summarize summarise overview
    everything anything something stuff things thing new else lately
""".split())

# The characters FTS5 gives meaning to (plus ordinary punctuation). Tokenizing on word
# characters already discards them; the constant documents what is being neutralized.

MAX_QUERY_CHARS = 20_000  # bound the work on absurd input; 10k-char queries still parse whole
MAX_TERMS = 64  # terms + phrases kept; beyond this a query is a document, not a question
FALLBACK_TOKENS = 3
# A request with this many distinct content words is a description, not a question: it is
# ranked on every word it says, as plain full-text search ranks it (docs/benchmarks.md, "The
# keyword arm"); a shorter question drops its stop words so "what did I do" matches on topic.
LONG_REQUEST_TERMS = 8
MAX_TERM_COUNT = 8  # a word's weight in the query stops growing here (bounds the MATCH's size)

# Word tokens: letters and digits of any script. Underscore is excluded because FTS5's
# unicode61 tokenizer treats it as a separator, so the query splits where the index splits.
WORD = re.compile(r"[^\W_]+")  # a word as FTS5's unicode61 splits them
_QUOTED = re.compile(r'"([^"]*)"')


@dataclass
class ParsedQuery:
    terms: list[str] = field(default_factory=list)  # single words, deduped, query order
    phrases: list[list[str]] = field(default_factory=list)  # quoted phrases, as word lists
    raw_tokens: list[str] = field(default_factory=list)  # every token, before stop words
    # how often each term occurs in the query (1 when absent): a long request repeats what it
    # is about ("... ASSOCIATIVE STORES, ASSOCIATIVE MEMORY"), and BM25 weighs a query word by
    # that count (docs/benchmarks.md, "The keyword arm": +0.04-0.05 nDCG@10 on long requests)
    counts: dict[str, int] = field(default_factory=dict)
    # a long request's stop words: scored like any word (BM25's idf keeps their weight small),
    # never shown or counted as matched
    function_words: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.phrases

    @property
    def unit_count(self) -> int:
        """How many entries :func:`matched_terms` names for a chunk holding the whole query:
        each phrase once, standing for its own words."""
        said = {w for p in self.phrases for w in p}
        return sum(t not in said for t in self.terms) + len(self.phrases)


def clean_text(text: str) -> str:
    """NFC-normalise and blank out control/format characters (NUL, ESC, zero-width...).

    NFC first so a decomposed "naïve" stays one word; control characters become spaces so
    ``x\\x00y`` is two words rather than a token FTS5 might choke on.
    """
    text = unicodedata.normalize("NFC", text[:MAX_QUERY_CHARS])
    # each distinct character looked up once (a chunk has ~100 in ~1,000), then one regex
    # pass: a per-character loop took 0.15 ms a chunk, a problem for the person filter's check
    blank = "".join(sorted(ch for ch in set(text) if unicodedata.category(ch) in ("Cc", "Cf")))
    return _blanker(blank).sub(" ", text) if blank else text


@functools.lru_cache(maxsize=256)
def _blanker(chars: str) -> re.Pattern:
    return re.compile("[" + re.escape(chars) + "]")


def tokenize(query: str) -> list[str]:
    """Lowercase word tokens (letters and digits, any script); everything else separates."""
    return [t.lower() for t in WORD.findall(clean_text(query))]


def _dedupe(items: list) -> list:
    """Keep the first occurrence of each item, in order."""
    seen, out = set(), []
    for item in items:
        key = tuple(item) if isinstance(item, list) else item
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def split_phrases(query: str) -> tuple[list[list[str]], str]:
    """Pull balanced ``"..."`` pairs out as phrases; return them and the remaining text.

    An unbalanced quote is left in the remainder, where tokenizing discards it.
    """
    phrases = [tokenize(m) for m in _QUOTED.findall(query)]
    rest = _QUOTED.sub(" ", query)
    return [p for p in phrases if p], rest


def parse_query(query: str | None) -> ParsedQuery:
    """Sanitize a natural-language query into terms and phrases; never raises.

    Boolean keywords (AND/OR/NOT/NEAR) are just lowercased words here: they are stop words or
    get quoted, so they can never act as operators. A one-word phrase is an ordinary term; a
    longer one also gives its words as terms, so quoting a title ranks the chunks holding it
    first without losing those that word it differently. If every word is a stop word
    (``"who am I"``), fall back to the first three distinct raw tokens so the keyword arm
    still searches something. A long request keeps its stop words for scoring
    (``function_words``, see LONG_REQUEST_TERMS).
    """
    text = clean_text(query or "")
    phrases, rest = split_phrases(text)
    words = tokenize(rest)
    raw_tokens = tokenize(text.replace('"', " "))
    terms = [w for w in words if w not in FTS5_STOP_WORDS]
    terms += [w for p in phrases for w in p if len(p) == 1 or w not in FTS5_STOP_WORDS]
    phrases = _dedupe([p for p in phrases if len(p) > 1])
    terms = _dedupe(terms)
    if not terms and not phrases:
        terms = _dedupe(raw_tokens)[:FALLBACK_TOKENS]
    phrases = phrases[:MAX_TERMS]
    terms = terms[: max(0, MAX_TERMS - len(phrases))]
    function_words = []
    if len(terms) >= LONG_REQUEST_TERMS:
        function_words = _dedupe([w for w in raw_tokens if w in FTS5_STOP_WORDS])
    said = Counter(raw_tokens)
    counts = {t: min(said[t], MAX_TERM_COUNT) for t in terms + function_words if said[t] > 1}
    return ParsedQuery(terms=terms, phrases=phrases, raw_tokens=raw_tokens, counts=counts,
                       function_words=function_words)


def quote(text: str) -> str:
    """An FTS5 string literal: wrap in double quotes, double any embedded quote."""
    return '"' + text.replace('"', '""') + '"'


def build_match(parsed: ParsedQuery, mode: str = "or") -> str | None:
    """The MATCH expression: quoted terms and phrases joined by OR (default) or AND.

    OR lets chunks matching more terms rank higher under bm25 instead of requiring all of them;
    AND is for asking "did any chunk match everything". None means nothing to search.
    """
    if mode not in ("or", "and"):
        raise ValueError(f"mode must be 'or' or 'and', not {mode!r}")
    units = [quote(t) for t in parsed.terms] + [quote(" ".join(p)) for p in parsed.phrases]
    if not units:
        return None
    return f" {mode.upper()} ".join(units)


def fold(word: str) -> str:
    """Lowercase and strip diacritics, like ``remove_diacritics 2`` does in the index."""
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


@functools.lru_cache(maxsize=65536)
def light_stem(word: str) -> str:
    """A deliberately small suffix strip (s, es, ed, ing), repeated until stable.

    Not porter: it only has to decide which query words a result visibly contains. It strips
    ``ies``→``y``, ``es`` after s/x/z/ch/sh, ``s``, ``ed``, ``ing`` (keeping a stem of at least
    three letters) and undoubles a final consonant (running→run, planned→plan). Applied to both
    sides, so runs/running/run agree; irregular forms (ran, mice) do not, and that is accepted.
    """
    word = fold(word)
    for _ in range(3):
        stemmed = _strip_suffix(word)
        if stemmed == word:
            break
        word = stemmed
    return word


def _strip_suffix(word: str) -> str:
    """One round of :func:`light_stem`."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("es") and word[:-2].endswith(("s", "x", "z", "ch", "sh")) and len(word) > 4:
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    for suffix in ("ing", "ed"):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(stem) >= 3:
            if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiouslz":
                stem = stem[:-1]
            return stem
    return word


def matched_terms(content: str, parsed: ParsedQuery) -> list[str]:
    """Which query terms and phrases (joined by a space) visibly occur in ``content``.

    Comparison is token-wise on :func:`light_stem`, so it explains a result honestly without
    claiming the exact porter behaviour of the index. Phrases must occur as consecutive words.
    """
    tokens = WORD.findall(content.lower())  # content is stored clean: no need for clean_text
    present = {light_stem(t) for t in set(tokens)}
    found = [t for t in parsed.terms if light_stem(t) in present]
    if parsed.phrases:
        stems = [light_stem(t) for t in tokens]
        phrases = [p for p in parsed.phrases if _contains_run(stems, [light_stem(w) for w in p])]
        said = {w for p in phrases for w in p}  # a phrase found stands for its own words
        found = [t for t in found if t not in said] + [" ".join(p) for p in phrases]
    return found


def _contains_run(haystack: list[str], needle: list[str]) -> bool:
    """True when ``needle`` occurs as a consecutive run inside ``haystack``."""
    n = len(needle)
    return n > 0 and any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def asks_for_the_period(parsed: ParsedQuery) -> bool:
    """Nothing to rank by: no quoted phrase, and every word a stop word or a word of asking
    what filled a period ("what did I do", "what happened", "anything new")."""
    return not parsed.phrases and all(t in FTS5_STOP_WORDS or t in PERIOD_QUESTION_WORDS
                                      for t in parsed.raw_tokens)
