"""The learned re-scoring stage (engine/rank/rescore.py): its signals, its order, and the
switch that turns it off."""

from __future__ import annotations

import dataclasses
import json
import math
from contextlib import closing
from datetime import UTC, datetime

import pytest

from cli.main import main as cli_main
from engine.config import ConfigError, load_config
from engine.indexer import reindex
from engine.rank import rescore as rescore_mod
from engine.rank.candidates import Candidate
from engine.rank.rescore import FEATURES, RESCORE_DEPTH, Model, query_signals, rescore, signals
from engine.retrieval.explain import formula
from engine.searcher import Searcher
from tests.conftest import make_root

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


def cand(cid: str, content: str, score: float, **kw) -> Candidate:
    return Candidate(id=cid, content=content, source_file=f"notes/{cid}.md",
                     source_type="note", score=score, **kw)


def model(**weights: float) -> Model:
    return Model(tuple(weights.get(name, 0.0) for name in FEATURES))


def test_signals_read_words_held_and_said_together():
    query = query_signals(["garden", "tomatoes", "fence"], weight=0.15)
    together = cand("a", "The garden fence keeps tomatoes safe.", 1.0,
                    arm_scores={"keyword": 0.85})
    apart = cand("b", "garden " + "x " * 200 + "tomatoes", 0.5, arm_scores={"keyword": 0.425})
    none = cand("c", "nothing of the sort", 0.25, arm_scores={"semantic": 0.0375})
    rows = {name: [row[i] for row in signals([together, apart, none], query)]
            for i, name in enumerate(FEATURES)}
    assert rows["words matched"] == pytest.approx([1.0, 2 / 3, 0.0])
    assert rows["words close"] == pytest.approx([1.0, 1 / 3, 0.0])
    assert rows["fused"] == pytest.approx([1.0, 0.5, 0.25])
    assert rows["keyword"] == pytest.approx([1.0, 0.5, 0.0])
    assert rows["semantic"] == pytest.approx([0.0, 0.0, 0.25])


def test_the_model_orders_the_head_and_the_tail_stays_below():
    query = query_signals(["garden"], weight=0.15)
    # fused order: long first; the model prefers the candidate holding the word
    head = [cand("long", "word " * 300, 1.0), cand("holds", "my garden", 0.9)]
    tail = [cand(f"t{i}", "tail", 0.5 - i / 1000) for i in range(RESCORE_DEPTH)]
    out = rescore(head + tail, query, model(**{"words matched": 2.0}))
    assert [c.id for c in out[:2]] == ["holds", "long"]
    assert out[0].score == 1.0 and out[1].score == pytest.approx(math.exp(-2.0))
    assert out[0].rescored.contributions == {"words matched": 2.0}
    assert out[0].rescored.fused == 0.9
    scores = [c.score for c in out]
    assert scores == sorted(scores, reverse=True) and min(scores) > 0
    # the first RESCORE_DEPTH fused candidates are re-scored; t48, t49 keep their order below
    assert [c.id for c in out[RESCORE_DEPTH:]] == ["t48", "t49"]
    assert all(c.rescored is None for c in out[RESCORE_DEPTH:])


@pytest.fixture
def soil_root(tmp_path):
    root = make_root(tmp_path / "root")
    (root / "notes/long.md").write_text("# Soil\n\n" + "compost soil " * 120 + "\n")
    (root / "notes/short.md").write_text("# Soil\n\ncompost\n")
    reindex(config=load_config(root))
    return root


@pytest.fixture
def searcher(soil_root):
    with closing(Searcher(load_config(soil_root))) as s:
        yield s


def use(monkeypatch, m: Model | None) -> None:
    """This test's searches re-score with ``m`` (None: no model), whatever is shipped."""
    monkeypatch.setattr(rescore_mod, "model_for", lambda provider: m)


def ids(response) -> list[str]:
    return [r.source_file for r in response.results]


def test_a_model_reorders_a_search_and_the_config_turns_it_off(searcher, monkeypatch):
    use(monkeypatch, None)
    fused = ids(searcher.search("compost soil", limit=5, now=NOW))
    # a model that only likes short chunks puts the short note above the long one
    use(monkeypatch, model(length=-20.0))
    shown = searcher.search("compost soil", limit=5, now=NOW)
    assert ids(shown).index("notes/short.md") < ids(shown).index("notes/long.md")
    assert fused.index("notes/long.md") < fused.index("notes/short.md")
    top = shown.results[0]
    assert top.rescored is not None and "re-scored" in formula(top, 60)
    assert "length" in formula(top, 60)
    off = Searcher(dataclasses.replace(searcher.configured, rescore=False))
    try:
        assert ids(off.search("compost soil", limit=5, now=NOW)) == fused
    finally:
        off.close()


def test_no_rescore_on_the_command_line_gives_the_fusions_order(soil_root, monkeypatch,
                                                                 capsys):
    def files(*extra: str) -> list[str]:
        capsys.readouterr()
        assert cli_main(["search", "compost soil", "--root", str(soil_root), "--json",
                         *extra]) == 0
        return [r["source_file"] for r in json.loads(capsys.readouterr().out)["results"]]

    monkeypatch.setenv("MEMLENS_NOW", "2026-11-30")
    use(monkeypatch, None)
    fused = files()
    use(monkeypatch, model(length=-20.0))
    assert files() != fused and files()[0] == "notes/short.md"
    assert files("--no-rescore") == fused


def test_a_single_arm_is_never_rescored(searcher, monkeypatch):
    use(monkeypatch, model(length=-20.0))
    response = searcher.search("compost soil", limit=5, now=NOW, mode="keyword")
    assert all(r.rescored is None for r in response.results)


def test_the_config_key_takes_true_or_false_only(tmp_path):
    root = make_root(tmp_path / "root")
    (root / "memlens.toml").write_text("[search]\nrescore = false\n")
    assert load_config(root).rescore is False
    (root / "memlens.toml").write_text('[search]\nrescore = "no"\n')
    with pytest.raises(ConfigError, match=r"\[search\] rescore must be true or false"):
        load_config(root)
