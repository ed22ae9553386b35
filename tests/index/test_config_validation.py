"""memlens.toml is read strictly: each bad value, unknown key or broken file is one ConfigError
line naming the key, and the CLI prints that line (no traceback)."""

from __future__ import annotations

import pytest

from cli.main import main
from engine.config import ConfigError, load_config
from tests.conftest import make_root


def write(root, text: str):
    (root / "memlens.toml").write_text(text)
    return root


def refusal(root, text: str) -> str:
    write(root, text)
    with pytest.raises(ConfigError) as info:
        load_config(root)
    message = str(info.value)
    assert isinstance(info.value, ValueError)
    assert "\n" not in message and message.startswith("memlens.toml: ")
    return message


@pytest.mark.parametrize(("text", "expected"), [
    # wrong types
    ('index = "x"\n', '[index] must be a table (got "x")'),
    ("search = [1, 2]\n", "[search] must be a table (got [1, 2])"),
    ("routes = 3\n", "[routes] must be a table (got 3)"),
    ("[index]\ndb = 5\n", "[index] db must be a non-empty string (got 5)"),
    ("db = 5\n", "unknown key 'db' (did you mean [index] db?)"),
    ('[search]\nrrf_k = "sixty"\n', '[search] rrf_k must be a positive integer (got "sixty")'),
    ("[search]\nrrf_k = 60.5\n", "[search] rrf_k must be a positive integer (got 60.5)"),
    ("[search]\nrrf_k = true\n", "[search] rrf_k must be a positive integer (got true)"),
    ("[embedder]\ntimeout = -1\n", "[embedder] timeout must be a positive number (got -1)"),
    ("[embedder]\ntimeout = inf\n", "[embedder] timeout must be a positive number (got inf)"),
    ("[embedder]\nquery_timeout = 0\n",
     "[embedder] query_timeout must be a positive number (got 0)"),
    ("[embedder]\nmax_retries = -1\n",
     "[embedder] max_retries must be an integer >= 0 (got -1)"),
    ("[embedder]\ndimensions = 0\n", "[embedder] dimensions must be a positive integer (got 0)"),
    ('[embedder]\nprovider = "cohere"\n',
     '[embedder] provider must be one of local, minilm, e5, openai, openai-compatible '
     '(got "cohere")'),
    ('[embedder]\nbase_url = "localhost:11434"\n',
     '[embedder] base_url must be an http:// or https:// URL (got "localhost:11434")'),
    ("[reranker]\ntimeout = 0\n", "[reranker] timeout must be a positive number (got 0)"),
    ("[keys]\nmenu = 5\n", '[keys] menu must be a key name such as "f10" (got 5)'),
    # out of range
    ("[search]\nrrf_k = 0\n", "[search] rrf_k must be a positive integer (got 0)"),
    ("[search]\nrrf_k = -3\n", "[search] rrf_k must be a positive integer (got -3)"),
    ("[index]\nchunk_batch_size = 0\n",
     "[index] chunk_batch_size must be a positive integer (got 0)"),
    ("[index]\nembedding_batch_size = -1\n",
     "[index] embedding_batch_size must be a positive integer (got -1)"),
    ("[index]\nmax_embed_chars = 0\n",
     "[index] max_embed_chars must be a positive integer (got 0)"),
    ("[search]\ndecay_floor = 5\n", "[search] decay_floor must be a number from 0 to 1 (got 5)"),
    ("[search]\ndecay_floor = -0.1\n",
     "[search] decay_floor must be a number from 0 to 1 (got -0.1)"),
    ("[search]\nsimilarity_threshold = 2\n",
     "[search] similarity_threshold must be a number from -1 to 1 (got 2)"),
    ("[search]\ndefault_half_life = 0\n",
     "[search] default_half_life must be a positive number (got 0)"),
    ("[search.half_lives]\nslack = 0\n",
     "[search.half_lives] slack must be a positive number of days (got 0)"),
    ("[search.half_lives]\nslack = -7\n",
     "[search.half_lives] slack must be a positive number of days (got -7)"),
    ('[search.half_lives]\nslack = "35"\n',
     '[search.half_lives] slack must be a positive number of days (got "35")'),
    ("[search.half_lives]\nslak = 30\n",
     "[search.half_lives] names unknown source type 'slak' (did you mean slack?)"),
    # unknown keys, with a suggestion when one is close
    ("[search]\nrrf_kk = 60\n", "[search] has unknown key 'rrf_kk' (did you mean rrf_k?)"),
    ("[embedder]\nmodle = \"m\"\n", "[embedder] has unknown key 'modle' (did you mean model?)"),
    ("[serch]\nrrf_k = 60\n", "unknown table 'serch' (did you mean search?)"),
    ("[index]\nwhatever = 1\n", "[index] has unknown key 'whatever'"),
    # routes
    ('[routes]\nnote = "/etc/*"\n',
     '[routes] note pattern "/etc/*" must stay inside the data root (a relative glob '
     'without ..)'),
    ('[routes]\nnote = ["notes/**/*.md", "../outside/*.md"]\n',
     '[routes] note pattern "../outside/*.md" must stay inside the data root'),
    ('[routes]\nnote = "C:/Users/*.md"\n', '[routes] note pattern "C:/Users/*.md" must stay'),
    ('[routes]\nnote = ""\n', '[routes] note must be a glob or a list of globs (got "")'),
    ("[routes]\nnote = []\n", "[routes] note must be a glob or a list of globs"),
    ('[routes]\nnotes = "x/*.md"\n',
     "[routes] names unknown source type 'notes' (did you mean note?)"),
])
def test_bad_value_is_one_line_naming_the_key(tmp_path, text, expected):
    assert expected in refusal(tmp_path, text)


@pytest.mark.parametrize(("content", "expected"), [
    (b"[search]\nrrf_k = 60\nthis is not toml\n", "memlens.toml: line 3, column 6: invalid TOML"),
    (b"[search\nrrf_k = 60\n", "memlens.toml: line 1, column 8: invalid TOML"),
    (b'[search]\nrrf_k = "unterminated\n', "memlens.toml: line 2, column "),
    (b"[index]\ndb = 'x'\n\xff\xfe garbage\n", "memlens.toml: line 3: not UTF-8 text"),
])
def test_garbage_file_is_one_line_with_the_line_number(tmp_path, content, expected):
    (tmp_path / "memlens.toml").write_bytes(content)
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value).startswith(expected) and "\n" not in str(info.value)


def test_a_directory_named_memlens_toml_is_one_line(tmp_path):
    (tmp_path / "memlens.toml").mkdir()
    with pytest.raises(ConfigError, match=r"^memlens.toml: cannot be read \(IsADirectoryError\)$"):
        load_config(tmp_path)


def test_bad_environment_embedder_is_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMLENS_EMBEDDER", "cohere")
    with pytest.raises(ConfigError, match=r"^\$MEMLENS_EMBEDDER: unknown embedder 'cohere'"):
        load_config(tmp_path)


def test_every_documented_key_is_accepted(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)
    write(tmp_path, """
[index]
db = "elsewhere/index.db"
chunk_batch_size = 100
embedding_batch_size = 25
max_embed_chars = 8000

[routes]
note = ["notes/**/*.md", "vault/**/*.md"]

[search]
rrf_k = 30
decay_floor = 0
default_half_life = 45.5
similarity_threshold = 0.35
keyword_common_df = 500
[search.half_lives]
slack = 20
note = 1

[embedder]
provider = "openai-compatible"
model = "nomic-embed-text"
base_url = "http://127.0.0.1:11434/v1"
dimensions = 768
timeout = 10
max_retries = 0
query_timeout = 1.5

[reranker]
url = "https://rerank.example/v1/rerank"
model = "rerank-lite"
timeout = 2

[keys]
menu = "f10"
""")
    config = load_config(tmp_path)
    assert config.db_path == tmp_path.resolve() / "elsewhere/index.db"
    assert (config.chunk_batch_size, config.embedding_batch_size, config.max_embed_chars) == \
        (100, 25, 8000)
    assert ("vault/**/*.md", "note") in config.routes
    assert (config.rrf_k, config.decay_floor, config.default_half_life) == (30, 0.0, 45.5)
    assert config.half_life("slack") == 20.0 and config.half_life("note") == 1.0
    assert config.similarity_threshold == 0.35 and config.keyword_common_df == 500
    e = config.embedder
    assert (e.provider, e.model, e.dimensions, e.timeout, e.max_retries, e.query_timeout) == \
        ("openai-compatible", "nomic-embed-text", 768, 10.0, 0, 1.5)
    assert config.reranker.timeout == 2.0 and config.keys == {"menu": "f10"}


def test_defaults_without_a_file(tmp_path, monkeypatch):
    monkeypatch.delenv("MEMLENS_EMBEDDER", raising=False)
    config = load_config(tmp_path)
    assert config.rrf_k == 60 and config.embedder.query_timeout == 2.0
    assert config.embedder.provider == "local"


@pytest.mark.parametrize("text", ['[routes]\nnote = "/etc/*"\n', "[search]\nrrf_kk = 1\n",
                                  'index = "x"\n', "[search\n"])
def test_cli_prints_one_line_and_exits_1(tmp_path, capsys, text):
    root = write(make_root(tmp_path / "root"), text)
    code = main(["search", "harbor", "--root", str(root)])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("memlens: memlens.toml: ") and err.count("\n") == 1
    assert "Traceback" not in err
