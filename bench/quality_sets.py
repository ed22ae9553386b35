"""The retrieval collections bench_quality.py runs: how each becomes a data root, its queries,
and how a ranked page is judged.

- SciFact (BEIR test split): each abstract one `note` (`# title` + abstract); documents ranked
  by their best chunk; nDCG@10 and Recall@100.
- LoCoMo, development half: each conversation one telegram JSONL log (one line per turn,
  the method in ../shared/bench-data/locomo-dev/SOURCES.md); every question of categories 1-4
  searched inside its conversation's file; Recall@1/3/5/10 by the chunks' `lines` ranges.
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


@dataclass
class Collection:
    name: str
    metrics: tuple[str, ...]
    depth: int  # results asked per query

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
            for i, qa in enumerate(conv["qa"]):
                ev = qa.get("evidence") or []
                if qa.get("category") not in (1, 2, 3, 4) or not ev:
                    continue
                if not all(_DIA.match(e) and (sid, e) in self._lines for e in ev):
                    continue
                lines = sorted({self._lines[(sid, e)] for e in ev})
                out.append(Query(f"{sid}/{i}", qa["question"],
                                 {"path_prefix": f"data/telegram/{sid}.jsonl"}, lines))
        return out

    def score(self, rows, q):
        out = {}
        for k in (1, 3, 5, 10):
            covered = {ln for ln in q.judge for _, span in rows[:k]
                       if span and span[0] <= ln <= span[1]}
            out[f"R@{k}"] = len(covered) / len(q.judge)
        return out


def available() -> list[Collection]:
    """The collections whose data is present under ../shared/bench-data."""
    found: list[Collection] = []
    if (SciFact.home / "corpus.jsonl").exists():
        found.append(SciFact())
    if (LoCoMoDev.home / "locomo-dev.json").exists():
        found.append(LoCoMoDev())
    return found
