"""The retrieval collections bench_quality.py runs: how each becomes a data root, its queries,
and how a ranked page is judged.

- SciFact (BEIR test split): each abstract one `note` (`# title` + abstract); documents ranked
  by their best chunk; nDCG@10 and Recall@100.
- MED, CACM, NPL, LISA (the classic SMART / Glasgow collections: medicine, computer science,
  aeronautics-like short physics queries, long library-science requests): each document one
  `note` (its title as `# title` when it has one), parsed as each folder's SOURCES.md says;
  binary nDCG@10 and Recall@100 over the judged queries.
- LoCoMo, development half: each conversation one telegram JSONL log (one line per turn,
  the method in ../shared/bench-data/locomo-dev/SOURCES.md); every question of categories 1-4
  searched inside its conversation's file; Recall@1/3/5/10 by the chunks' `lines` ranges.
  Its queries also carry the conversation's last turn as a clock (``Query.now``), so the bench
  can measure them as a person would meet them: with the newest message fresh and decay active.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from common import SHARED

BENCH_DATA = SHARED / "bench-data"


@dataclass
class Query:
    id: str
    text: str
    filters: dict[str, Any]  # search() keyword arguments (path_prefix)
    judge: Any  # what the collection's metrics need (qrels, evidence lines)
    now: datetime | None = None  # the collection's own "fresh" clock, where it has one


@dataclass
class Collection:
    name: str
    metrics: tuple[str, ...]
    depth: int  # results asked per query

    @property
    def headline(self) -> str:
        """The metric the summary table shows: R@5 for chat memory (a first screen of
        results), else the first (nDCG@10)."""
        return "R@5" if "R@5" in self.metrics else self.metrics[0]

    def build(self, work: Path) -> Path:
        raise NotImplementedError

    def queries(self) -> list[Query]:
        raise NotImplementedError

    def score(self, rows: list[tuple[str, list[int] | None]], q: Query) -> dict[str, float]:
        """Metrics of one ranked page; a row is (source_file, lines)."""
        raise NotImplementedError


def ndcg_at_10(ranked: list[str], rel: dict[str, int]) -> float:
    dcg = sum(rel.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    return dcg / sum(r / math.log2(i + 2) for i, r in enumerate(ideal))


class SciFact(Collection):
    home = BENCH_DATA / "scifact"

    def __init__(self):
        super().__init__("SciFact", ("nDCG@10", "R@100"), 100)

    def build(self, work: Path) -> Path:
        notes = work / "notes"
        if not notes.exists():
            notes.mkdir(parents=True)
            with (self.home / "corpus.jsonl").open() as f:
                for line in f:
                    doc = json.loads(line)
                    title = " ".join(doc["title"].split())
                    (notes / f"{doc['_id']}.md").write_text(f"# {title}\n\n{doc['text']}\n")
        return work

    def queries(self) -> list[Query]:
        texts = {}
        with (self.home / "queries.jsonl").open() as f:
            for line in f:
                q = json.loads(line)
                texts[q["_id"]] = q["text"]
        qrels: dict[str, dict[str, int]] = {}
        with (self.home / "qrels" / "test.tsv").open() as f:
            for row in list(csv.reader(f, delimiter="\t"))[1:]:
                qrels.setdefault(row[0], {})[row[1]] = int(row[2])
        return [Query(qid, texts[qid], {}, rel) for qid, rel in qrels.items()]

    def score(self, rows, q):
        ranked = list(dict.fromkeys(Path(f).stem for f, _ in rows if f.startswith("notes/")))
        rel = q.judge
        return {"nDCG@10": ndcg_at_10(ranked, rel),
                "R@100": len(set(ranked[:100]) & set(rel)) / len(rel)}


_DIA = re.compile(r"^D(\d+):(\d+)$")


class LoCoMoDev(Collection):
    home = BENCH_DATA / "locomo-dev"

    def __init__(self):
        super().__init__("LoCoMo-dev", ("R@1", "R@3", "R@5", "R@10"), 10)
        self._lines: dict[tuple[str, str], int] = {}

    def _conversations(self) -> list[dict]:
        return json.loads((self.home / "locomo-dev.json").read_text())

    def _log(self, conv: dict) -> list[tuple[str, dict]]:
        """(dia_id, telegram message) per turn, in order, one minute apart per session."""
        c = conv["conversation"]
        out = []
        sessions = sorted(int(k.split("_")[1]) for k in c
                           if re.fullmatch(r"session_\d+", k))
        for n in sessions:
            start = datetime.strptime(c[f"session_{n}_date_time"], "%I:%M %p on %d %B, %Y")
            for i, turn in enumerate(c[f"session_{n}"]):
                text = turn["text"]
                if turn.get("blip_caption"):
                    text += f" [image: {turn['blip_caption']}]"
                when = (start + timedelta(minutes=i)).isoformat() + "+00:00"
                out.append((turn["dia_id"], {"date": when, "from": turn["speaker"],
                                             "text": text}))
        return out

    def build(self, work: Path) -> Path:
        logs = work / "data" / "telegram"
        if not logs.exists():
            logs.mkdir(parents=True)
            for conv in self._conversations():
                lines = [json.dumps(msg) for _, msg in self._log(conv)]
                (logs / f"{conv['sample_id']}.jsonl").write_text("\n".join(lines) + "\n")
        return work

    def queries(self) -> list[Query]:
        if not self._lines:  # (conversation, dia_id) -> 1-based line of its log
            for conv in self._conversations():
                for n, (dia, _) in enumerate(self._log(conv), start=1):
                    self._lines[(conv["sample_id"], dia)] = n
        out = []
        for conv in self._conversations():
            sid = conv["sample_id"]
            last_turn = datetime.fromisoformat(self._log(conv)[-1][1]["date"])
            for i, qa in enumerate(conv["qa"]):
                ev = qa.get("evidence") or []
                if qa.get("category") not in (1, 2, 3, 4) or not ev:
                    continue
                if not all(_DIA.match(e) and (sid, e) in self._lines for e in ev):
                    continue
                lines = sorted({self._lines[(sid, e)] for e in ev})
                out.append(Query(f"{sid}/{i}", qa["question"],
                                 {"path_prefix": f"data/telegram/{sid}.jsonl"}, lines,
                                 now=last_turn))
        return out

    def score(self, rows, q):
        out = {}
        for k in (1, 3, 5, 10):
            covered = {ln for ln in q.judge for _, span in rows[:k]
                       if span and span[0] <= ln <= span[1]}
            out[f"R@{k}"] = len(covered) / len(q.judge)
        return out


def _latin1(path: Path) -> str:
    return path.read_bytes().decode("latin-1").replace("\r\n", "\n")


def _smart(path: Path, keep: tuple[str, ...]) -> dict[str, dict[str, str]]:
    """SMART-format records (``.I id`` then ``.X`` field lines): id -> {field: text}."""
    out = {}
    for rec in re.split(r"^\.I\s+", _latin1(path), flags=re.M)[1:]:
        head, _, body = rec.partition("\n")
        parts = re.split(r"^\.([A-Z])\s*$", body, flags=re.M)
        fields = {parts[i]: parts[i + 1].strip() for i in range(1, len(parts) - 1, 2)}
        out[str(int(head.strip()))] = {k: fields.get(k, "") for k in keep}
    return out


def _slash(path: Path) -> dict[str, str]:
    """Glasgow slash-separated records (id line, text, a line holding ``/``): id -> text."""
    out = {}
    for rec in re.split(r"^\s*/\s*$", _latin1(path), flags=re.M):
        lines = rec.strip("\n").split("\n")
        if lines and lines[0].strip():
            out[lines[0].strip()] = "\n".join(lines[1:]).strip()
    return out


def _qrels(path: Path, pair: Any) -> dict[str, set[str]]:
    """Relevance judgements, one a line: ``pair(fields)`` gives (query id, document id), or
    None for a line that judges a document not relevant."""
    out: dict[str, set[str]] = {}
    for line in _latin1(path).splitlines():
        found = pair(line.split()) if line.strip() else None
        if found is not None:
            out.setdefault(found[0], set()).add(found[1])
    return out


class Classic(Collection):
    """A classic test collection: (title, body) documents, text queries, binary qrels."""

    folder = ""  # under ../shared/bench-data; the collection's name is it in capitals

    def __init__(self):
        super().__init__(self.folder.upper(), ("nDCG@10", "R@100"), 100)
        self.home = BENCH_DATA / self.folder

    def documents(self) -> dict[str, tuple[str, str]]:
        raise NotImplementedError

    def topics(self) -> tuple[dict[str, str], dict[str, set[str]]]:
        """(query id -> text, query id -> relevant doc ids)."""
        raise NotImplementedError

    def build(self, work: Path) -> Path:
        notes = work / "notes"
        if not notes.exists():
            notes.mkdir(parents=True)
            for doc_id, (title, body) in self.documents().items():
                title = " ".join(title.split())
                # a title alone stays body text: a note that is only a heading has no section
                text = f"# {title}\n\n{body}\n" if title and body else f"{title or body}\n"
                (notes / f"{doc_id}.md").write_text(text)
        return work

    def queries(self) -> list[Query]:
        texts, qrels = self.topics()
        return [Query(qid, " ".join(texts[qid].split()), {}, rel)
                for qid, rel in qrels.items() if rel and qid in texts]

    def score(self, rows, q):
        ranked = list(dict.fromkeys(Path(f).stem for f, _ in rows if f.startswith("notes/")))
        rel = q.judge
        ideal = sum(1 / math.log2(i + 2) for i in range(min(len(rel), 10)))
        dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:10]) if d in rel)
        return {"nDCG@10": dcg / ideal, "R@100": len(set(ranked[:100]) & rel) / len(rel)}


class Med(Classic):
    folder = "med"

    def documents(self):
        return {i: ("", f["W"]) for i, f in _smart(self.home / "MED.ALL", ("W",)).items()}

    def topics(self):
        texts = {i: f["W"] for i, f in _smart(self.home / "MED.QRY", ("W",)).items()}
        # "qid 0 docid relevance"
        return texts, _qrels(self.home / "MED.REL", lambda f: (f[0], f[2]) if int(f[3]) else None)


class Cacm(Classic):
    folder = "cacm"

    def documents(self):
        return {i: (f["T"], f["W"]) for i, f in _smart(self.home / "cacm.all", ("T", "W")).items()}

    def topics(self):
        texts = {i: f["W"] for i, f in _smart(self.home / "query.text", ("W",)).items()}
        # "qid docid 0 0", ids zero-padded
        return texts, _qrels(self.home / "qrels.text", lambda f: (str(int(f[0])), str(int(f[1]))))


class Npl(Classic):
    folder = "npl"

    def documents(self):
        return {i: ("", text) for i, text in _slash(self.home / "doc-text").items()}

    def topics(self):
        texts = {i: t.lower() for i, t in _slash(self.home / "query-text").items()}
        qrels = {q: set(v.split()) for q, v in _slash(self.home / "rlv-ass").items()}
        return texts, qrels


class Lisa(Classic):
    folder = "lisa"

    def documents(self):
        docs = {}
        for path in sorted(self.home.glob("LISA[0-9].[0-9][0-9][0-9]")):
            for m in re.finditer(r"^Document\s+(\d+)[ \t]*\n(.*?)^\*{44}[ \t]*$",
                                 _latin1(path), re.S | re.M):
                title, _, abstract = m.group(2).strip().partition("\n\n")
                docs[m.group(1)] = (title, abstract.strip())
        return docs

    def topics(self):
        texts = {m.group(1): m.group(2).strip() for m in re.finditer(
            r"^(\d+)[ \t]*\n(.*?)#", _latin1(self.home / "LISA.QUE"), re.S | re.M)}
        nums, qrels, i = _latin1(self.home / "LISARJ.NUM").split(), {}, 0
        while i < len(nums):
            q, n = nums[i], int(nums[i + 1])
            qrels[q] = set(nums[i + 2:i + 2 + n])
            i += 2 + n
        return texts, qrels


def available() -> list[Collection]:
    """The collections whose data is present under ../shared/bench-data."""
    found: list[Collection] = []
    if (SciFact.home / "corpus.jsonl").exists():
        found.append(SciFact())
    if (LoCoMoDev.home / "locomo-dev.json").exists():
        found.append(LoCoMoDev())
    for kind, marker in ((Med, "MED.ALL"), (Cacm, "cacm.all"), (Npl, "doc-text"),
                         (Lisa, "LISA.QUE")):
        if (BENCH_DATA / kind.folder / marker).exists():
            found.append(kind())
    return found
