"""The optional HTTP reranker against a real Cohere/Jina-style server on 127.0.0.1."""

from __future__ import annotations

import httpx
import pytest

from engine.config import RerankerConfig
from engine.rank.rerank import RerankOutcome, rerank
from tests.http_fixtures import Reply, Request, ServerFactory

DOCS = ["the harbor bridge opened", "tomatoes on the south fence", "bridge toll prices",
        "a walk along the harbor"]
KEY = "rr-FAKEKEY-4242-do-not-leak"


@pytest.fixture
def http_server():
    with ServerFactory() as start:
        yield start


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch):
    monkeypatch.delenv("MEMLENS_RERANK_API_KEY", raising=False)


def config(server, **kwargs) -> RerankerConfig:
    options = dict(url=server.url + "/v1/rerank", model="rerank-english-v3.0", timeout=2.0)
    options.update(kwargs)
    return RerankerConfig(**options)


def scored(scores: dict[int, float]) -> Reply:
    results = sorted(({"index": i, "relevance_score": s} for i, s in scores.items()),
                     key=lambda r: -r["relevance_score"])
    return Reply(200, {"id": "x", "results": results, "meta": {}})


def test_not_configured_makes_no_request():
    outcome = rerank("bridge", DOCS, RerankerConfig())
    assert outcome == RerankOutcome(False, "not_configured", [0, 1, 2, 3], {})


def test_success_reorders_and_sends_the_documented_body(http_server, monkeypatch):
    monkeypatch.setenv("MEMLENS_RERANK_API_KEY", KEY)
    server = http_server(scored({0: 0.9, 1: 0.01, 2: 0.95, 3: 0.3}))
    outcome = rerank("harbor bridge", DOCS, config(server))

    assert outcome.reranked and outcome.reason is None
    assert outcome.order == [2, 0, 3, 1]
    assert outcome.scores == {0: 0.9, 1: 0.01, 2: 0.95, 3: 0.3}
    (request,) = server.requests
    assert request.method == "POST" and request.path == "/v1/rerank"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json() == {"model": "rerank-english-v3.0", "query": "harbor bridge",
                              "documents": DOCS, "top_n": 4}


def test_top_n_results_come_first_and_the_rest_keep_their_order(http_server):
    server = http_server(scored({3: 0.8, 1: 0.6}))
    outcome = rerank("harbor", DOCS, config(server, model=None), top_n=2)

    assert outcome.reranked
    assert outcome.order == [3, 1, 0, 2]  # always a permutation of the documents
    assert outcome.scores == {3: 0.8, 1: 0.6}
    body = server.requests[0].json()
    assert body["top_n"] == 2 and "model" not in body
    assert "authorization" not in server.requests[0].headers


def test_timeout_keeps_original_order(http_server):
    server = http_server(Reply(200, {"results": []}, delay=2.0))
    outcome = rerank("bridge", DOCS, config(server, timeout=0.2))

    assert not outcome.reranked and outcome.reason == "timeout"
    assert outcome.order == [0, 1, 2, 3] and outcome.scores == {}
    assert outcome.elapsed_ms < 1500
    assert len(server.requests) == 1  # no retry: search must stay fast


@pytest.mark.parametrize("status", [500, 401, 404, 429])
def test_http_error_is_reason_error(http_server, status, monkeypatch):
    monkeypatch.setenv("MEMLENS_RERANK_API_KEY", KEY)

    def echo(request: Request) -> Reply:
        return Reply(status, {"message": request.headers.get("authorization", "")})

    server = http_server(echo)
    outcome = rerank("bridge", DOCS, config(server))

    assert not outcome.reranked and outcome.reason == "error"
    assert outcome.order == [0, 1, 2, 3]
    assert f"HTTP {status}" in outcome.detail and KEY not in repr(outcome)


@pytest.mark.parametrize("reply", [
    Reply(200, body="<html>gateway</html>"),
    Reply(200, ["not", "an", "object"]),
    Reply(200, {"data": []}),
    Reply(200, {"results": "x"}),
    Reply(200, {"results": [{"index": 9, "relevance_score": 0.5}]}),
    Reply(200, {"results": [{"index": "0", "relevance_score": 0.5}]}),
    Reply(200, {"results": [{"index": 0}]}),
    Reply(200, {"results": [{"index": 0, "relevance_score": "high"}]}),
    Reply(200, {"results": [{"index": 1, "relevance_score": 0.5},
                            {"index": 1, "relevance_score": 0.4}]}),
    Reply(200, {"results": [7]}),
], ids=lambda r: (r.body or str(r.json))[:40])
def test_malformed_body_is_reason_error(http_server, reply):
    server = http_server(reply)
    outcome = rerank("bridge", DOCS, config(server))

    assert not outcome.reranked and outcome.reason == "error"
    assert outcome.order == [0, 1, 2, 3] and outcome.scores == {}
    assert "malformed" in outcome.detail


def test_unreachable_server_is_reason_error():
    outcome = rerank("bridge", DOCS, RerankerConfig(url="http://127.0.0.1:1/rerank", timeout=1))
    assert (outcome.reranked, outcome.reason, outcome.order) == (False, "error", [0, 1, 2, 3])


def test_bad_url_is_reason_error():
    outcome = rerank("bridge", DOCS, RerankerConfig(url="not a url"))
    assert (outcome.reranked, outcome.reason) == (False, "error")


def test_no_documents_makes_no_request(http_server):
    server = http_server()
    outcome = rerank("bridge", [], config(server))
    assert (outcome.reranked, outcome.reason, outcome.order) == (False, "no_documents", [])
    assert server.requests == []


def test_a_shared_client_is_reused_and_left_open(http_server):
    server = http_server(scored({0: 0.1, 1: 0.9}), scored({0: 0.7, 1: 0.2}))
    with httpx.Client() as client:
        first = rerank("q", DOCS[:2], config(server), client=client)
        second = rerank("q", DOCS[:2], config(server), client=client)
        assert not client.is_closed
    assert (first.order, second.order) == ([1, 0], [0, 1])
