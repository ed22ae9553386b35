"""No API key, nor any 8-character piece of one, leaves its file: not in an exception, a log record,
the index's meta, `memlens stats --json`, semantic_detail, nor a reranker's detail. A key whose
form cannot be sent (line break, whitespace, control characters) is refused when it is read."""

from __future__ import annotations

import json
import logging

import pytest

from cli.main import main
from engine.config import EmbedderConfig, RerankerConfig, load_config
from engine.embed.embedder_openai import OpenAIEmbedder
from engine.embed.redact import register_secret, scrub
from engine.embedder import EmbeddingError
from engine.indexer import reindex
from engine.rank.rerank import rerank
from engine.searcher import Searcher
from engine.storage.db import connect
from tests.conftest import make_root
from tests.http_fixtures import Reply, ServerFactory

KEY = "sk-Zq8vR2mW7xKp4Ld9Tn3Yb6HcQe"
NEWLINE_KEY = "sk-Jd4fW9qA\nr7Tz2Lm8Xc5Vb1Ny"


@pytest.fixture
def http_server():
    with ServerFactory() as start:
        yield start


@pytest.fixture(autouse=True)
def no_env_keys(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("MEMLENS_RERANK_API_KEY", raising=False)
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)


def pieces(key: str) -> set[str]:
    """Every 8-character slice of the key, as printed raw, by repr (str, bytes) and by JSON."""
    forms = {key, repr(key)[1:-1], repr(key.encode())[2:-1], json.dumps(key)[1:-1]}
    return {f[i:i + 8] for f in forms for i in range(len(f) - 7)}


def assert_clean(text: str, key: str = KEY) -> None:
    leaked = sorted(p for p in pieces(key) if p in text)
    assert not leaked, f"key pieces {leaked} in {text!r}"


# -- the scrub ----------------------------------------------------------------------------------

def test_scrub_masks_the_key_its_slices_and_its_escaped_forms():
    register_secret(NEWLINE_KEY)
    header = f"Bearer {NEWLINE_KEY}".encode()
    messages = [
        f"LocalProtocolError: Illegal header value {header!r}",  # h11's message
        f"Illegal header value {f'Bearer {NEWLINE_KEY}'!r}",
        json.dumps({"error": f"bad key {NEWLINE_KEY}"}),
        f"the key starts {NEWLINE_KEY[2:14]} and ends {NEWLINE_KEY[-9:]}",
        " ".join(f"echo: {NEWLINE_KEY}".split()),
    ]
    for message in messages:
        scrubbed = scrub(message)
        assert "***" in scrubbed
        assert_clean(scrubbed, NEWLINE_KEY)
    assert scrub("nothing secret here: HTTP 400") == "nothing secret here: HTTP 400"


# -- a key that cannot be sent is refused when read ---------------------------------------------

@pytest.mark.parametrize(("key", "why"), [
    (NEWLINE_KEY, "line break"),
    ("sk-Jd4fW9qA r7Tz2Lm8Xc5Vb1Ny", "whitespace"),
    ("sk-Jd4fW9qA\tr7Tz2Lm8Xc5Vb1Ny", "whitespace"),
    ("sk-Jd4fW9qA\x07r7Tz2Lm8Xc5Vb1Ny", "control character"),
    ("sk-Jd4fW9qA\x1br7Tz2Lm8Xc5Vb1Ny", "control character"),
    ("sk-Jd4fW9qAé7Tz2Lm8Xc5Vb1Ny", "non-ASCII"),
])
def test_unusable_env_key_is_one_error_naming_its_source(http_server, monkeypatch, caplog,
                                                         key, why):
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("OPENAI_API_KEY", key)
    server = http_server(default=Reply(200, {"data": []}))
    embedder = OpenAIEmbedder.from_config(
        EmbedderConfig(provider="openai", base_url=server.url, dimensions=4, max_retries=2))
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    message = str(info.value)
    assert message.startswith("the API key in $OPENAI_API_KEY is unusable: it contains ")
    assert why in message and "\n" not in message
    assert server.requests == []  # never sent
    for text in (message, repr(info.value), repr(embedder), caplog.text):
        assert_clean(text, key)


def test_unusable_key_in_the_secrets_file_names_the_file(http_server, tmp_path):
    (tmp_path / "secrets").mkdir()
    secrets = tmp_path / "secrets" / "openai.json"
    secrets.write_text(json.dumps({"api_key": NEWLINE_KEY}))
    server = http_server(default=Reply(200, {"data": []}))
    embedder = OpenAIEmbedder.from_config(
        EmbedderConfig(provider="openai-compatible", model="m", base_url=server.url,
                       dimensions=4), tmp_path)
    with pytest.raises(EmbeddingError) as info:
        embedder.embed(["t1"])
    assert f"the API key in {secrets} is unusable: it contains a line break" in str(info.value)
    assert server.requests == []
    assert_clean(str(info.value), NEWLINE_KEY)


# -- a provider quoting the key, through the real indexer, search and CLI ----------------------

def test_provider_400_quoting_the_key_leaks_nowhere(http_server, tmp_path, monkeypatch, capsys,
                                                    caplog):
    caplog.set_level(logging.DEBUG)
    root = make_root(tmp_path / "root")
    echo = {"error": {"message": f"invalid input for key {KEY} (key id {KEY[6:18]}...)"}}
    server = http_server(default=Reply(400, echo), max_requests=1000)
    (root / "memlens.toml").write_text(
        '[embedder]\nprovider = "openai-compatible"\nmodel = "m"\n'
        f'base_url = "{server.url}/v1"\ndimensions = 8\nmax_retries = 0\n')
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    config = load_config(root)

    stats = reindex(config=config)
    assert stats.chunks > 0 and stats.pending_embeddings == stats.chunks
    assert stats.embedding_errors and all("***" in e for e in stats.embedding_errors)
    assert_clean(json.dumps(stats.to_dict()))
    conn = connect(config.db_path)
    meta = "\n".join(f"{k}={v}" for k, v in conn.execute("SELECT key, value FROM meta"))
    conn.close()
    assert "last_reindex_stats" in meta
    assert_clean(meta)

    searcher = Searcher(config)
    response = searcher.search("harbor bridge")
    searcher.close()
    assert response.semantic_error == "provider_input_rejected" and response.results
    assert_clean(response.semantic_detail or "")
    assert "***" in (response.semantic_detail or "")

    assert main(["stats", "--json", "--root", str(root)]) == 0
    out, err = capsys.readouterr()
    assert_clean(out + err)
    assert server.requests and server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    assert_clean(caplog.text)


# -- the reranker's key -------------------------------------------------------------------------

def test_reranker_key_that_cannot_be_sent_is_refused_without_a_request(http_server,
                                                                       monkeypatch):
    monkeypatch.setenv("MEMLENS_RERANK_API_KEY", NEWLINE_KEY)
    server = http_server(default=Reply(200, {"results": []}))
    outcome = rerank("q", ["a", "b"], RerankerConfig(url=server.url + "/rerank"))
    assert not outcome.reranked and outcome.reason == "error"
    assert outcome.detail == ("the API key in $MEMLENS_RERANK_API_KEY is unusable: it contains "
                              "a line break")
    assert server.requests == []

