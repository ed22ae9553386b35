"""Passage-level keyword evidence for chat windows (the keyword arm's second look).

A chat chunk is a window of 10 messages (engine/extractors/messaging.py lays each one out as
``[YYYY-MM-DD HH:MM] Sender: text``). BM25 over the window rewards query words spread over
unrelated messages as much as words said together, and it cannot see a question asked in the
last messages of one window and answered in the first of the next. So every chat window the
arm found also gets the BM25 of its best passage: PASSAGE consecutive messages centred on one
of its own messages, reaching into the neighbouring windows (Callan, "Passage-level evidence
in document retrieval", SIGIR 1994). The window's keyword score is then

    (1 - PASSAGE_SHARE) * bm25 / best_bm25 + PASSAGE_SHARE * passage / best_passage

idf is the window-level one the arm already read; a message holds a word when the index's own
tokenizer (porter, engine/retrieval/stemmer.py) gives the same stem. Measured in
docs/benchmarks.md ("Passage evidence in chat windows").
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections.abc import Iterable, Sequence

from engine.rank.candidates import Candidate
from engine.retrieval import stemmer
from engine.retrieval.keyword_arm import BM25_K1, idf
from engine.storage.db import Connection

MESSAGE_START = re.compile(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d\] ", re.M)
WINDOW_ID = re.compile(r"^(.*)#w(\d+)$")
PASSAGE = 4  # messages per passage: one message and its neighbours (a question and its answer)
PASSAGE_SHARE = 0.5  # of a chat window's keyword score
# only the arm's first chat hits get a passage (the rest, with none, can only sink): a page's
# head comes from them, and the cost (~0.1 ms a window) stays bounded for deep pages
PASSAGE_DEPTH = 50
BM25_B = 0.75  # FTS5's bm25 length constant

try:  # the text scans compiled (engine/csrc/passages.c): the same answers, ~3 ms less a query
    from engine.retrieval import _passages
except ImportError:  # built without a compiler: the Python below serves
    _passages = None
BUILT = _passages is not None  # the install compiled them
COMPILED = BUILT and os.environ.get("MEMLENS_KERNELS", "1") != "0"  # and they are used


def message_starts(content: str) -> list[int]:
    """Offsets where the messages of a chat window begin (a message may span lines); [] when
    the text is not laid out as messages."""
    if COMPILED:
        return _passages.message_starts(content)
    return python_message_starts(content)


def python_message_starts(content: str) -> list[int]:
    starts = [m.start() for m in MESSAGE_START.finditer(content)]
    return starts if starts and starts[0] == 0 else []


def _head(stem: str) -> str:
    keep = max(3, len(stem) - 2)
    if stem.endswith("i"):  # porter turns a final y into i: "day" -> "dai", "cried" -> "cri"
        keep = max(1, min(keep, len(stem) - 1))  # never empty: "I" stems to "i"
    return stem[:keep]


def word_heads(stems: Iterable[str]) -> list[str]:
    """Prefixes of the words that could stem to a query stem: they start like it (porter
    rewrites only a stem's last letters). Only those words are stemmed. A head that starts
    with another head is dropped: the shorter one finds the same words."""
    heads = sorted({_head(w) for w in stems})
    return [h for i, h in enumerate(heads) if not any(h.startswith(k) for k in heads[:i])]


_WORD_REST = re.compile(r"\w*")


def word_hits(content: str, heads: list[str]) -> list[tuple[int, str]]:
    """(offset, lower-cased word) of every word of ``content`` that starts with a head.

    The words the regex ``\\b(?:heads)\\w*`` finds under IGNORECASE, found with ``str.find``
    on the lower-cased text: the regex cost ~25 µs a window, half the passage stage at 500k
    (docs/benchmarks.md). A text whose lower case changes its length takes the regex, so
    offsets always index ``content``.
    """
    lower = content.lower()
    if len(lower) != len(content):
        near = re.compile(r"\b(?:" + "|".join(map(re.escape, heads)) + r")\w*", re.IGNORECASE)
        return [(m.start(), m.group().lower()) for m in near.finditer(content)]
    found: dict[int, str] = {}
    for head in heads:
        at = lower.find(head)
        while at >= 0:
            before = lower[at - 1] if at else " "
            if not (before.isalnum() or before == "_"):
                found[at] = _WORD_REST.match(lower, at).group()
            at = lower.find(head, at + 1)
    return sorted(found.items())


def words_starting(text: str, heads: list[str]) -> list[str]:
    """The lower-cased words of ``text`` that start with a head, in order: the words of
    :func:`word_hits`, through the compiled scan when the install built it."""
    scanned = (_passages.message_words(text, [0], tuple(heads), -1, 0)
               if COMPILED and text else None)
    if scanned is None:
        return [w for _, w in word_hits(text, heads)]
    return [w for _, w in scanned[1]]


def python_message_tfs(lengths: list[int], hits: list[tuple[int, str]],
                       tokens: dict[str, tuple[str, ...]], weights: dict[str, float]
                       ) -> list[tuple[dict[str, int], int]]:
    """(query stem -> count, length) per message, from :func:`python_message_words`' answer and the
    tokens of its words."""
    out: list[tuple[dict[str, int], int]] = [({}, n) for n in lengths]
    for message, word in hits:
        for token in tokens[word]:  # "spot_pottery" is two tokens to FTS5
            if token in weights:
                tf = out[message][0]
                tf[token] = tf.get(token, 0) + 1
    return out


def python_message_words(content: str, starts: list[int], heads: list[str],
                         read: tuple[int, int] | None = None
                         ) -> tuple[list[int], list[tuple[int, str]]]:
    """Each message's length in words (spaces + 1) and (message index, lower-cased word) for
    the words that start with a head. ``read``: how many messages from its start and from its
    end to look into for words (a neighbouring window lends a passage only its edge messages);
    None reads them all. Lengths count every one."""
    ends = [*starts[1:], len(content)]
    lengths = [content.count(" ", a, b) + 1 for a, b in zip(starts, ends, strict=True)]
    n = len(starts)
    if read is None or read[0] + read[1] >= n:
        spans = [(0, len(content))]
    else:
        spans = [(0, ends[read[0] - 1])] if read[0] else []
        spans += [(starts[n - read[1]], len(content))] if read[1] else []
    hits = [(bisect.bisect_right(starts, a + at) - 1, word)
            for a, b in spans for at, word in word_hits(content[a:b], heads)]
    return lengths, hits


@functools.lru_cache(maxsize=8192)  # each hit's is asked 3-4 times a query (0.4 ms at 500k)
def neighbour_ids(chunk_id: str) -> tuple[str, ...]:
    """The ids of the windows before and after a chat window (none for other chunks)."""
    m = WINDOW_ID.match(chunk_id)
    if m is None:
        return ()
    n = int(m.group(2))
    return tuple(f"{m.group(1)}#w{k}" for k in (n - 1, n + 1) if k >= 0)


def passage_scores(weights: dict[str, float], ids: Sequence[str],
                   contents: dict[str, str]) -> dict[str, float]:
    """The best passage's BM25 for each chat window in ``ids``. ``weights``: query stem ->
    idf; ``contents``: the text of those windows and of any neighbours known."""
    if not weights:
        return {}
    half = PASSAGE // 2
    edges: dict[str, tuple[int, int]] = {}  # neighbour -> messages read from its start, end
    for i in ids:
        before, after = window_around(i)
        if before is not None:
            edges[before] = (edges.get(before, (0, 0))[0], half)
        edges[after] = (half, edges.get(after, (0, 0))[1])
    heads, own = word_heads(weights), set(ids)
    reads = {cid: None if cid in own else edges[cid] for cid in [*ids, *edges]}
    if COMPILED:  # two calls for every window, where a call per window cost ~1.3 ms at 500k
        scan, words = _passages.scan_windows([contents.get(cid, "") for cid in reads],
                                             [r or (-1, 0) for r in reads.values()],
                                             tuple(heads), python_message_words)
        at = {cid: k for k, cid in enumerate(reads)}
        jobs = [(-1 if before is None else at[before], at[i], at[after])
                for i in ids for before, after in [window_around(i)]]
        best = _passages.scan_passages(scan, stemmer.tokens(words), weights, jobs,
                                       BM25_K1, BM25_B, PASSAGE)
        return {i: b for i, b in zip(ids, best, strict=True) if b is not None}
    return python_passage_scores(weights, ids, contents, reads, heads)


def python_passage_scores(weights: dict[str, float], ids: Sequence[str],
                          contents: dict[str, str], reads: dict[str, tuple[int, int] | None],
                          heads: list[str]) -> dict[str, float]:
    """:func:`passage_scores` in Python; ``reads``: each window -> the messages read from its
    start and end (None: all of it)."""
    half = PASSAGE // 2
    scans = {}
    for cid, read in reads.items():
        starts = python_message_starts(contents.get(cid, ""))
        if starts:
            scans[cid] = python_message_words(contents[cid], starts, heads, read)
    # one lookup for every window's words: a word not seen before costs the stemmer a write
    tokens = stemmer.tokens({w for _, hits in scans.values() for _, w in hits})
    stats = {cid: python_message_tfs(lengths, hits, tokens, weights)
             for cid, (lengths, hits) in scans.items()}
    lengths = [n for msgs in stats.values() for _, n in msgs]
    mean = PASSAGE * sum(lengths) / max(1, len(lengths))
    found = {}
    for i in ids:
        if i not in stats:
            continue
        before, after = window_around(i)
        head = stats.get(before, [])[-half:] if before else []
        seq = [*head, *stats[i], *stats.get(after, [])[:half]]
        found[i] = python_best_passage(seq, len(head), len(stats[i]), weights, mean)
    return found


def python_best_passage(seq: list[tuple[dict[str, int], int]], first: int, count: int,
                        weights: dict[str, float], mean: float) -> float:
    """The best BM25 of the PASSAGE consecutive messages of ``seq`` centred on ``seq[first]``
    ... ``seq[first + count - 1]``; ``seq``: each message's (stem -> count, length)."""
    half, best = PASSAGE // 2, 0.0
    for c in range(first, first + count):
        part = seq[max(0, c - half):max(0, c - half) + PASSAGE]
        tf: dict[str, int] = {}
        for counts, _ in part:
            for w, n in counts.items():
                tf[w] = tf.get(w, 0) + n
        if not tf:
            continue
        length = sum(n for _, n in part)
        norm = BM25_K1 * (1 - BM25_B + BM25_B * length / (mean or 1.0))
        score = 0.0  # added in order, not sum(): Python 3.12's sum() compensates rounding
        for w, n in tf.items():
            score += weights[w] * n * (BM25_K1 + 1) / (n + norm)
        best = max(best, score)
    return best


def window_around(chunk_id: str) -> tuple[str | None, str]:
    """The ids of the windows before (None for the first) and after a chat window."""
    ids = neighbour_ids(chunk_id)
    return (None, ids[0]) if len(ids) == 1 else (ids[0], ids[1])


def term_weights(terms: list[str], term_df: dict[str, int],
                 n_rows: int) -> dict[str, float]:
    """Query stem -> the window-level idf FTS5's bm25 gives it."""
    stem = stemmer.stem({t.lower() for t in terms if t in term_df})
    out: dict[str, float] = {}
    for t in terms:
        if t in term_df and t.lower() in stem:
            s = stem[t.lower()]
            out[s] = max(out.get(s, 0.0), idf(n_rows, term_df[t]))
    return out


def fetch_contents(conn: Connection, ids: Sequence[str]) -> dict[str, str]:
    if not ids:
        return {}
    rows = conn.execute(f"SELECT id, content FROM chunks WHERE id IN ({','.join('?' * len(ids))})",
                        list(ids)).fetchall()
    return {r[0]: r[1] for r in rows}


def chat_windows(cands: list[Candidate]) -> list[Candidate]:
    """The hits that are chat windows (an id ending ``#w<n>``, text laid out as messages), in
    the arm's order: found once, read by passage evidence and by related words."""
    return [c for c in cands if neighbour_ids(c.id) and message_starts(c.content)]


def with_passage_evidence(conn: Connection, cands: list[Candidate], chat_hits: list[Candidate],
                          terms: list[str], term_df: dict[str, int],
                          n_rows: int) -> list[Candidate]:
    """The keyword arm's hits re-ordered by their keyword score (module docstring): a chat
    window's mixes its bm25 with its best passage's, any other chunk's is bm25 / best bm25.
    ``keyword_score`` and ``passage`` record the numbers (left None when no hit is a chat
    window: the arm is plain bm25 then); ``chat_hits``: :func:`chat_windows` of ``cands``;
    hits are updated in place."""
    weights = term_weights(terms, term_df, n_rows)
    chat = [c.id for c in chat_hits]
    chat_ids, chat = set(chat), chat[:PASSAGE_DEPTH]
    best_bm25 = max((c.bm25 or 0.0 for c in cands), default=0.0) or 1.0
    if not chat or not weights:
        return cands  # no chat window: bm25 order and bm25 arithmetic, unchanged
    contents = {c.id: c.content for c in cands}
    missing = sorted({n for i in chat for n in neighbour_ids(i)} - contents.keys())
    contents.update(fetch_contents(conn, missing))
    passages = passage_scores(weights, chat, contents)
    best_passage = max(passages.values(), default=0.0) or 1.0
    for c in cands:
        share = (c.bm25 or 0.0) / best_bm25
        if c.id in chat_ids:
            c.passage = passages.get(c.id)
            share = ((1 - PASSAGE_SHARE) * share
                     + PASSAGE_SHARE * (c.passage or 0.0) / best_passage)
        c.keyword_score = share
    out = sorted(cands, key=lambda c: (-c.keyword_score, c.keyword_rank or 0))
    for rank, c in enumerate(out):
        c.keyword_rank = rank
    return out
