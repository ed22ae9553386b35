"""The openai / openai-compatible embedder against a real embeddings server on 127.0.0.1."""

from __future__ import annotations

import json
import logging
import random
import re
import socket

import numpy as np
import pytest

from engine.config import ConfigError, EmbedderConfig
from engine.embed.embedder_openai import OpenAIEmbedder
from engine.embedder import EmbeddingError, get_embedder
from tests.http_fixtures import Reply, Request, ServerFactory

KEY = "sk-FAKEKEY-9f3e1c-do-not-leak"
DIM = 4


@pytest.fixture
def http_server():
    with ServerFactory() as start:
        yield start


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def vector_for(text: str, dim: int = DIM) -> list[float]:
    """A recognisable, unnormalised vector: texts 't<n>' map to [n+1, 2, 0, ...]."""
    match = re.fullmatch(r"t(\d+)", text)
    n = int(match.group(1)) if match else len(text)
    return [float(n + 1), 2.0] + [0.0] * (dim - 2)


def embeddings(dim: int = DIM, shuffle: bool = False):
    """A responder answering one embedding per input, like the real API."""

    def answer(request: Request) -> Reply:
        inputs = request.json()["input"]
        data = [{"object": "embedding", "index": i, "embedding": vector_for(t, dim)}
                for i, t in enumerate(inputs)]
        if shuffle:
            random.Random(len(inputs)).shuffle(data)
        return Reply(200, {"object": "list", "data": data, "model": "m",
                           "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    return answer


def expected(text: str, dim: int = DIM) -> np.ndarray:
    v = np.asarray(vector_for(text, dim), dtype=np.float32)
    return v / np.linalg.norm(v)


def make(server, **kwargs) -> OpenAIEmbedder:
    options = dict(provider="openai", base_url=server.url + "/v1", dimensions=DIM,
                   api_key=KEY, timeout=2.0, max_retries=3)
    options.update(kwargs)
    return OpenAIEmbedder(**options)


# a server-directed delay the SDK honours, so a retry costs 10 ms, not its 0.5 s backoff
FAST = {"retry-after-ms": "10"}


def retries_logged(caplog) -> list[str]:
    """The SDK's own line per retry (logger ``openai``): the attempts a test cannot count on a
    closed port."""
    return [r.getMessage() for r in caplog.records
            if r.name.startswith("openai") and r.getMessage().startswith("Retrying request")]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- success -----------------------------------------------------------------------------------

def test_success_normalised_order_restored_and_request_shape(http_server):
    server = http_server(embeddings(shuffle=True))
    texts = ["t0", "t1", "t2", "t3", "t4"]
    vectors = make(server).embed(texts)

    assert vectors.dtype == np.float32 and vectors.shape == (5, DIM)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, rtol=1e-6)
    for text, row in zip(texts, vectors, strict=True):
        np.testing.assert_allclose(row, expected(text), rtol=1e-6)
    (request,) = server.requests
    assert request.method == "POST" and request.path == "/v1/embeddings"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.json() == {"model": "text-embedding-3-small", "input": texts,
                              "dimensions": DIM, "encoding_format": "float"}


def test_batches_of_50(http_server):
    server = http_server(embeddings(shuffle=True), embeddings(), embeddings(shuffle=True))
    texts = [f"t{i}" for i in range(120)]
    vectors = make(server).embed(texts)

    assert [len(r.json()["input"]) for r in server.requests] == [50, 50, 20]
    assert server.requests[1].json()["input"][0] == "t50"
    np.testing.assert_allclose(vectors, np.stack([expected(t) for t in texts]), rtol=1e-6)


def test_batch_size_is_a_constructor_argument(http_server):
    server = http_server(default=embeddings())
    make(server, batch_size=7).embed([f"t{i}" for i in range(20)])
    assert [len(r.json()["input"]) for r in server.requests] == [7, 7, 6]


def test_long_text_is_sent_truncated_and_blank_text_as_space(http_server):
    server = http_server(embeddings())
    long_text = "x" * 25_000
    vectors = make(server).embed([long_text, "", "t1"])

    sent = server.requests[0].json()["input"]
    assert len(sent[0]) == 20_000 and sent[0] == long_text[:20_000]
    assert sent[1] == " "
    assert vectors.shape == (3, DIM)


def test_empty_input_makes_no_request(http_server):
    server = http_server()
    assert make(server).embed([]).shape == (0, DIM)
    assert server.requests == []


def test_embed_single(http_server):
    server = http_server(embeddings())
    np.testing.assert_allclose(make(server).embed_single("t7"), expected("t7"), rtol=1e-6)


# -- retries (the SDK's) --------------------------------------------------------------------

def test_429_then_success_honours_retry_after(http_server, caplog):
    caplog.set_level(logging.INFO, logger="openai")
    server = http_server(Reply(429, headers={"Retry-After": "0.01"}), embeddings())
    vectors = make(server).embed(["t1"])

    assert len(server.requests) == 2
    assert retries_logged(caplog) == ["Retrying request in 0.010000 seconds (retry 1 of 3)"]
    np.testing.assert_allclose(vectors[0], expected("t1"), rtol=1e-6)


def test_retry_after_beyond_the_sdk_maximum_is_final_at_once(http_server):
    server = http_server(Reply(429, headers={"Retry-After": "999"}), default=embeddings())
    with pytest.raises(EmbeddingError) as info:
        make(server).embed(["t1"])
    assert info.value.kind == "provider_error" and "HTTP 429" in str(info.value)
    assert len(server.requests) == 1  # not waited for: the search or reindex goes on


def test_500_502_then_success(http_server):
    server = http_server(Reply(500, headers=FAST), Reply(502, headers=FAST), embeddings())
    vectors = make(server).embed(["t3"])

    assert len(server.requests) == 3
    np.testing.assert_allclose(vectors[0], expected("t3"), rtol=1e-6)


def test_retries_use_the_sdk_backoff_without_a_retry_after(http_server, caplog):
    caplog.set_level(logging.INFO, logger="openai")
    server = http_server(Reply(503), embeddings())
    embedder = OpenAIEmbedder(base_url=server.url, api_key=KEY, dimensions=DIM, max_retries=2)
    assert embedder.embed(["t1"]).shape == (1, DIM)
    assert len(server.requests) == 2
    (line,) = retries_logged(caplog)
    assert line.endswith("(retry 1 of 2)")


def test_500_forever_is_provider_error_after_max_retries_plus_one(http_server):
    server = http_server(default=Reply(500, headers=FAST))
    with pytest.raises(EmbeddingError) as info:
        make(server, max_retries=3).embed(["t1"])

    assert info.value.kind == "provider_error"
    assert "4 attempt" in str(info.value) and "HTTP 500" in str(info.value)
    assert len(server.requests) == 4


def test_connection_refused_is_retried_then_provider_error(caplog):
    caplog.set_level(logging.INFO, logger="openai")
    embedder = OpenAIEmbedder(base_url=f"http://127.0.0.1:{closed_port()}/v1", api_key=KEY,
                              max_retries=1, timeout=1.0)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    assert info.value.kind == "provider_error"
    assert "connection failed" in str(info.value) and "2 attempt" in str(info.value)
    assert len(retries_logged(caplog)) == 1


def test_slow_response_times_out_is_retried_then_provider_error(http_server):
    server = http_server(default=Reply(200, {"data": []}, delay=2.0))
    with pytest.raises(EmbeddingError) as info:
        make(server, timeout=0.2, max_retries=1).embed(["t1"])

    assert info.value.kind == "provider_error"
    assert "timed out" in str(info.value)
    assert len(server.requests) == 2


def test_slow_then_fast_recovers(http_server):
    server = http_server(Reply(200, {"data": []}, delay=2.0), embeddings())
    vectors = make(server, timeout=0.2, max_retries=1).embed(["t2"])
    np.testing.assert_allclose(vectors[0], expected("t2"), rtol=1e-6)


def test_a_query_is_one_attempt_within_its_budget(http_server):
    server = http_server(Reply(503, headers=FAST), default=embeddings())
    embedder = make(server, max_retries=5)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed_query("t1", budget=1.0)
    assert info.value.kind == "provider_error" and "1 attempt" in str(info.value)
    assert len(server.requests) == 1
    np.testing.assert_allclose(embedder.embed_query("t1", budget=1.0), expected("t1"),
                               rtol=1e-6)


# -- final errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("status", [400, 413, 422])
def test_refused_input_is_provider_input_rejected_without_retry(http_server, status):
    server = http_server(
        Reply(status, {"error": {"message": "This model's maximum context length is 8192"}}),
        default=embeddings())
    with pytest.raises(EmbeddingError) as info:
        make(server).embed(["t1"])

    assert info.value.kind == "provider_input_rejected"
    assert f"HTTP {status}" in str(info.value) and "maximum context length" in str(info.value)
    assert len(server.requests) == 1


@pytest.mark.parametrize("status", [401, 403, 404, 418])
def test_auth_and_other_4xx_are_provider_error_without_retry(http_server, status):
    server = http_server(Reply(status), default=embeddings())
    with pytest.raises(EmbeddingError) as info:
        make(server).embed(["t1"])

    assert info.value.kind == "provider_error"
    assert len(server.requests) == 1
    if status == 401:
        assert "rejected the API key" in str(info.value)


@pytest.mark.parametrize("reply", [
    Reply(200, body="<html>not json</html>"),
    Reply(200, body='{"data": [ {"embedding": [1, 2'),
    Reply(200, ["a", "list"]),
    Reply(200, {"object": "list"}),
    Reply(200, {"data": "nope"}),
    Reply(200, {"data": []}),  # 0 embeddings for 2 inputs
    Reply(200, {"data": [{"index": 0, "embedding": [1, 0, 0, 0]}]}),  # 1 for 2
    Reply(200, {"data": [{"index": 0}, {"index": 1}]}),
    Reply(200, {"data": [{"index": 0, "embedding": [1, 0, 0, 0]},
                         {"index": 0, "embedding": [0, 1, 0, 0]}]}),  # duplicate index
    Reply(200, {"data": [{"index": 0, "embedding": [1, 0, 0, 0]},
                         {"index": 5, "embedding": [0, 1, 0, 0]}]}),  # index out of range
    Reply(200, {"data": [{"index": 0, "embedding": [1, 0, 0, 0]},
                         {"index": 1, "embedding": [0, 1]}]}),  # ragged
    Reply(200, {"data": [{"index": 0, "embedding": [1, "x", 0, 0]},
                         {"index": 1, "embedding": [0, 1, 0, 0]}]}),  # not numbers
    Reply(200, {"data": [{"index": 0, "embedding": [1, 0, 0]},
                         {"index": 1, "embedding": [0, 1, 0]}]}),  # wrong dimension
    Reply(200, body='{"data": [{"index": 0, "embedding": [1, NaN, 0, 0]}, '
                    '{"index": 1, "embedding": [0, 1, 0, 0]}]}'),  # not finite
    Reply(200, {"data": [{"index": 0, "embedding": [0, 0, 0, 0]},
                         {"index": 1, "embedding": [0, 1, 0, 0]}]}),  # zero length
    Reply(200, {"data": [{"index": 0, "embedding": [1e-9, 0, 0, 0]},
                         {"index": 1, "embedding": [0, 1, 0, 0]}]}),  # almost zero
], ids=lambda r: (r.body or json.dumps(r.json))[:40])
def test_malformed_response_is_provider_error(http_server, reply):
    server = http_server(reply, default=embeddings())
    with pytest.raises(EmbeddingError) as info:
        make(server).embed(["t0", "t1"])

    assert info.value.kind == "provider_error"
    assert "malformed" in str(info.value)
    assert len(server.requests) == 1


def test_response_without_index_keeps_server_order(http_server):
    server = http_server(Reply(200, {"data": [{"embedding": vector_for("t0")},
                                              {"embedding": vector_for("t1")}]}))
    vectors = make(server).embed(["t0", "t1"])
    np.testing.assert_allclose(vectors, np.stack([expected("t0"), expected("t1")]), rtol=1e-6)


def test_unsupported_url_is_provider_error_without_a_request(caplog):
    caplog.set_level(logging.DEBUG, logger="openai")
    embedder = OpenAIEmbedder("openai-compatible", model="m", base_url="localhost:11434/v1")
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    assert info.value.kind == "provider_error" and "not an http(s) URL" in str(info.value)
    assert retries_logged(caplog) == []


# -- openai-compatible -------------------------------------------------------------------------

def test_openai_compatible_discovers_then_fixes_dimension(http_server):
    server = http_server(embeddings(dim=5), embeddings(dim=5), embeddings(dim=6))
    config = EmbedderConfig(provider="openai-compatible", model="nomic-embed-text",
                            base_url=server.url + "/v1/", max_retries=0)
    embedder = OpenAIEmbedder.from_config(config, None)

    assert embedder.dim == 0 and embedder.info.provider == "openai-compatible"
    assert embedder.discover_dim() == 5
    assert embedder.info.dim == 5 and embedder.info.model == "nomic-embed-text"
    assert embedder.embed(["t1", "t2"]).shape == (2, 5)
    with pytest.raises(EmbeddingError, match="6-d vectors, expected 5"):
        embedder.embed(["t1"])

    first = server.requests[0]
    assert first.path == "/v1/embeddings"
    assert "authorization" not in first.headers  # no key needed for a local server
    assert "dimensions" not in first.json()
    assert first.json()["model"] == "nomic-embed-text"


def test_openai_compatible_with_configured_dimensions(http_server):
    server = http_server(embeddings(dim=8))
    config = EmbedderConfig(provider="openai-compatible", model="m", base_url=server.url,
                            dimensions=8)
    embedder = OpenAIEmbedder.from_config(config)
    assert embedder.dim == 8
    assert embedder.embed(["t1"]).shape == (1, 8)
    assert server.requests[0].json()["dimensions"] == 8


@pytest.mark.parametrize("config", [
    EmbedderConfig(provider="openai-compatible", model="m"),
    EmbedderConfig(provider="openai-compatible", base_url="http://127.0.0.1:1/v1"),
    EmbedderConfig(provider="openai", dimensions=0),
])
def test_bad_config_is_a_clear_value_error(config):
    with pytest.raises(ConfigError) as info:
        OpenAIEmbedder.from_config(config)
    assert isinstance(info.value, ValueError)
    assert "base_url" in str(info.value) or "model" in str(info.value) \
        or "dimensions" in str(info.value)


def test_openai_defaults():
    embedder = OpenAIEmbedder.from_config(EmbedderConfig(provider="openai"))
    assert (embedder.provider, embedder.model, embedder.dim) == \
        ("openai", "text-embedding-3-small", 1536)
    assert embedder.base_url == "https://api.openai.com/v1"
    assert embedder.batch_size == 50 and embedder.max_retries == 5


# -- the API key -------------------------------------------------------------------------------

def test_missing_key_fails_at_embed_time_not_construction(http_server, tmp_path):
    server = http_server(default=embeddings())
    config = EmbedderConfig(provider="openai", base_url=server.url, dimensions=DIM)
    embedder = get_embedder(config, tmp_path)  # constructing works: status screens need it

    assert isinstance(embedder, OpenAIEmbedder) and not embedder.has_api_key
    assert "api_key=missing" in repr(embedder)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    assert info.value.kind == "provider_error"
    assert "no OpenAI API key: set $OPENAI_API_KEY or write" in str(info.value)
    assert str(tmp_path / "secrets" / "openai.json") in str(info.value)
    assert server.requests == []


@pytest.mark.parametrize("field", ["api_key", "OPENAI_API_KEY"])
def test_key_from_secrets_file(http_server, tmp_path, field):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "openai.json").write_text(json.dumps({field: KEY}))
    server = http_server(embeddings())
    config = EmbedderConfig(provider="openai", base_url=server.url, dimensions=DIM)
    embedder = get_embedder(config, tmp_path)

    assert embedder.has_api_key and embedder.key_source.endswith("openai.json")
    embedder.embed(["t1"])
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_env_key_wins_over_secrets_file(http_server, tmp_path, monkeypatch):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "openai.json").write_text(json.dumps({"api_key": "sk-from-file"}))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    server = http_server(embeddings())
    embedder = OpenAIEmbedder.from_config(
        EmbedderConfig(provider="openai", base_url=server.url, dimensions=DIM), tmp_path)

    assert embedder.key_source == "env"
    embedder.embed(["t1"])
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"


def test_malformed_secrets_file_is_explained_without_its_content(tmp_path):
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "openai.json").write_text('{"api_key": "' + KEY)  # broken JSON
    embedder = OpenAIEmbedder.from_config(EmbedderConfig(provider="openai"), tmp_path)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    assert "not valid JSON" in str(info.value)
    assert KEY not in str(info.value)


def test_key_never_leaks(http_server, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    echo_key = {"error": {"message": f"Incorrect API key provided: {KEY}"}}

    def echo_auth(request: Request) -> Reply:  # a server that quotes the header back
        return Reply(400, {"error": {"message": request.headers.get("authorization", "")}})

    server = http_server(
        Reply(401, echo_key),                        # auth refused, body quotes the key
        Reply(403, echo_key),
        echo_auth,                                   # input rejected, body quotes the header
        Reply(422, echo_key),
        Reply(404, echo_key),
        Reply(418, echo_key),
        Reply(500, echo_key, headers=FAST), Reply(500, echo_key),  # retries used up (max_retries=1)
        Reply(200, body=f"not json {KEY}"),          # malformed
        Reply(200, {"data": KEY}),                   # malformed shape
        Reply(200, {"data": []}, delay=1.0), Reply(200, {"data": []}, delay=1.0),  # timeouts
    )
    embedder = make(server, max_retries=1, timeout=0.2)
    refused = OpenAIEmbedder(base_url=f"http://127.0.0.1:{closed_port()}", api_key=KEY,
                             max_retries=1)
    errors: list[EmbeddingError] = []
    for _ in range(10):
        with pytest.raises(EmbeddingError) as info:
            embedder.embed(["t1"])
        errors.append(info.value)
    with pytest.raises(EmbeddingError) as info:
        refused.embed(["t1"])
    errors.append(info.value)

    assert len(server.requests) == 12  # every scripted path was really taken
    assert {e.kind for e in errors} == {"provider_error", "provider_input_rejected"}
    for obj in (embedder, refused):
        assert KEY not in repr(obj) and KEY not in str(obj) and KEY not in repr(vars(obj))
    for error in errors:
        assert KEY not in str(error) and KEY not in repr(error)
        assert KEY not in str(error.args)
    assert KEY not in caplog.text
    assert "retry" in caplog.text  # the retries were logged, without the key
