"""Configuration: documented defaults (docs/design.md), overridable from ``<root>/memlens.toml``.

Every stage reads its numbers from a :class:`Config`, so tests and benchmarks can build one
directly and a user can tune one file. The file is read strictly (engine/config_check.py): a
value of the wrong type or out of range, or an unknown key, is one :class:`ConfigError` line
naming the key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from engine.config_check import FILENAME as CONFIG_FILENAME
from engine.config_check import (
    ConfigError,
    Table,
    checked_number,
    fail,
    parse,
    route_pattern,
    show,
)
from engine.display import close_matches, did_you_mean
from engine.index.sources import Source, check_name, check_type, location, overlap

DB_RELATIVE_PATH = "data/search/memlens.db"

# Recency half-lives in days, per source type (docs/design.md, "Recency").
SOURCE_HALF_LIVES: dict[str, float] = {
    **dict.fromkeys(
        ["observation", "story", "quote", "interview", "interview_meta", "entity_file",
         "codebase_doc"], 365.0),
    "rwgps_memory": 180.0,
    "transcript": 120.0,
    "email_catalog": 90.0,
    **dict.fromkeys(
        ["meeting", "board_summary", "voice", "experiment", "event", "journal"], 60.0),
    **dict.fromkeys(["slack", "telegram", "whatsapp", "signal"], 35.0),
    **dict.fromkeys(["podcast_digest", "checkin"], 30.0),
    **dict.fromkeys(["garmin", "cgm", "scratch"], 14.0),
    # notes are a personal knowledge vault: they age like identity-level material
    "note": 365.0,
}
DEFAULT_HALF_LIFE = 60.0
DECAY_FLOOR = 0.25
# the share of a result's score that age can take away: the oldest chunk keeps
# 1 - DECAY_WEIGHT * (1 - DECAY_FLOOR) = 96.25% of it. Age orders results of comparable
# relevance; it never lifts a loose recent match over the answer (docs/design.md, "Recency").
DECAY_WEIGHT = 0.05
RRF_K = 60
EMBEDDING_BATCH_SIZE = 50
CHUNK_BATCH_SIZE = 200
MAX_EMBED_CHARS = 20_000
DIVERSITY_TARGET = 7
DIVERSITY_LAMBDA = 0.7
MAX_PER_SOURCE_TYPE = 3
# a query word found in at least this many chunks counts as common (see engine/retrieval/keyword_arm.py)
KEYWORD_COMMON_DF = 2000
PROVIDERS = ("local", "minilm", "e5", "openai", "openai-compatible")
QUERY_TIMEOUT = 2.0  # seconds a search waits for a remote provider (engine/embed/provider_guard.py)

# what each table of memlens.toml may hold
TABLE_KEYS: dict[str, tuple[str, ...]] = {
    "index": ("db", "chunk_batch_size", "embedding_batch_size", "max_embed_chars"),
    "routes": (),  # source types, checked against FILE_ROUTES
    "search": ("fusion", "semantic_weight", "rrf_k", "decay_floor", "decay_weight",
               "default_half_life",
               "half_lives", "similarity_threshold", "keyword_common_df", "message_share",
               "rescore"),
    "embedder": ("provider", "model", "base_url", "dimensions", "timeout", "max_retries",
                 "query_timeout"),
    "reranker": ("url", "model", "timeout"),
    "keys": (),  # binding ids, checked by the app (tui/keys.py)
    "sources": (),  # source names, each a table (engine/index/sources.py)
}
SOURCE_KEYS = ("path", "type", "ignore")


@dataclass(frozen=True)
class EmbedderConfig:
    provider: str = "local"  # local | minilm | e5 | openai | openai-compatible
    model: str | None = None
    base_url: str | None = None
    dimensions: int | None = None
    timeout: float = 30.0
    max_retries: int = 5
    query_timeout: float = QUERY_TIMEOUT


@dataclass(frozen=True)
class RerankerConfig:
    url: str | None = None
    model: str | None = None
    timeout: float = 5.0


@dataclass(frozen=True)
class Config:
    root: Path
    db_path: Path
    routes: tuple[tuple[str, str], ...]
    half_lives: dict[str, float] = field(default_factory=lambda: dict(SOURCE_HALF_LIVES))
    default_half_life: float = DEFAULT_HALF_LIFE
    decay_floor: float = DECAY_FLOOR
    decay_weight: float = DECAY_WEIGHT
    rrf_k: int = RRF_K
    similarity_threshold: float | None = None  # None: the embedder's (engine/rank/calibration.py)
    fusion: str = "convex"  # convex | rrf (engine/rank/convex.py)
    rescore: bool = True  # the fused head re-scored by a learned model (engine/rank/rescore.py)
    semantic_weight: float | None = None  # None: the embedder's (engine/rank/calibration.py)
    # a chat window's similarity from its best message; None: the embedder's
    message_share: float | None = None
    keyword_common_df: int = KEYWORD_COMMON_DF
    embedding_batch_size: int = EMBEDDING_BATCH_SIZE
    chunk_batch_size: int = CHUNK_BATCH_SIZE
    max_embed_chars: int = MAX_EMBED_CHARS
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    reranker: RerankerConfig = field(default_factory=RerankerConfig)
    keys: dict[str, str] = field(default_factory=dict)
    sources: tuple[Source, ...] = ()  # folders read in place (engine/index/sources.py)

    def locate(self, rel: str) -> Path | None:
        """Where the indexed file ``rel`` is on disk, unchecked (a stat, never a read)."""
        return location(self.root, self.sources, rel)

    def half_life(self, source_type: str) -> float:
        return self.half_lives.get(source_type, self.default_half_life)

    def with_overrides(self, **changes) -> Config:
        return replace(self, **changes)


def _routes_from_toml(table: dict) -> tuple[tuple[str, str], ...]:
    from engine.index.routes import FILE_ROUTES

    known = sorted({source_type for _, source_type in FILE_ROUTES})
    overridden: dict[str, list[str]] = {}
    for source_type, patterns in table.items():
        if source_type not in known:
            raise fail(f"[routes] names unknown source type {source_type!r}"
                       f"{did_you_mean(close_matches(source_type, known), aside=True)}")
        if isinstance(patterns, str):
            patterns = [patterns]
        if not isinstance(patterns, list) or not patterns:
            raise fail(f"[routes] {source_type} must be a glob or a list of globs")
        overridden[source_type] = [route_pattern(source_type, p) for p in patterns]
    routes: list[tuple[str, str]] = []
    for pattern, source_type in FILE_ROUTES:
        if source_type in overridden:
            continue
        routes.append((pattern, source_type))
    for source_type, patterns in overridden.items():
        routes.extend((p, source_type) for p in patterns)
    return tuple(routes)


def _tables(data: dict) -> dict[str, Table]:
    for name in data:
        if name not in TABLE_KEYS:
            owner = next((t for t, keys in TABLE_KEYS.items() if name in keys), None)
            close = [f"[{owner}] {name}"] if owner else close_matches(name, TABLE_KEYS)
            hint = did_you_mean(close, aside=True)
            raise fail(f"unknown {'table' if isinstance(data[name], dict) else 'key'} "
                       f"{name!r}{hint}")
    tables = {name: Table(data, name, keys) for name, keys in TABLE_KEYS.items()
              if name not in ("routes", "keys", "sources")}
    for name in ("routes", "keys", "sources"):  # their keys are checked by their readers
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise fail(f"[{name}] must be a table (got {show(value)})")
    return tables


def _half_lives(search: Table) -> dict[str, float]:
    from engine.index.routes import FILE_ROUTES

    table = search.values.get("half_lives", {})
    if not isinstance(table, dict):
        raise fail("[search.half_lives] must be a table of source type = days")
    known = sorted(set(SOURCE_HALF_LIVES) | {t for _, t in FILE_ROUTES})
    half_lives = dict(SOURCE_HALF_LIVES)
    for source_type, days in table.items():
        if source_type not in known:
            raise fail(f"[search.half_lives] names unknown source type {source_type!r}"
                       f"{did_you_mean(close_matches(source_type, known), aside=True)}")
        half_lives[source_type] = checked_number(
            days, lambda what, k=source_type, d=days: fail(
                f"[search.half_lives] {k} must be {what} of days (got {show(d)})"), positive=True)
    return half_lives


def _keys(table: dict) -> dict[str, str]:
    for binding, key in table.items():
        if not isinstance(key, str) or not key.strip():
            raise fail(f"[keys] {binding} must be a key name such as \"f10\" (got {key!r})")
    return dict(table)


def _sources(table: dict, root: Path, db_path: Path) -> tuple[Source, ...]:
    """``[sources.NAME]`` tables: ``path`` (absolute or ``~/...``), ``type`` (a source type),
    ``ignore`` (gitignore-style globs). A source may not overlap the root or another source:
    a file would be indexed twice, and the root's secrets would be read through it."""
    sources: list[Source] = []
    for name, spec in table.items():
        if (why := check_name(name)) is not None:
            raise fail(f"[sources] {why}")
        where = f"[sources.{name}]"
        if not isinstance(spec, dict):
            raise fail(f"{where} must be a table with path and type (got {show(spec)})")
        for key in spec:
            if key not in SOURCE_KEYS:
                raise fail(f"{where} unknown key {key!r}"
                           f"{did_you_mean(close_matches(key, SOURCE_KEYS), aside=True)}")
        path, source_type = spec.get("path"), spec.get("type")
        if not isinstance(path, str) or not path.strip():
            raise fail(f"{where} path must be a folder's path (got {show(path)})")
        folder = Path(path).expanduser()
        if not folder.is_absolute():
            raise fail(f"{where} path must be absolute or start with ~ (got {show(path)})")
        if (why := check_type(source_type)) is not None:
            raise fail(f"{where} {why}")
        ignore = spec.get("ignore", [])
        if not isinstance(ignore, list) or not all(isinstance(g, str) for g in ignore):
            raise fail(f"{where} ignore must be a list of globs (got {show(ignore)})")
        source = Source(name, Path(os.path.normpath(folder)), source_type, tuple(ignore))
        if (why := overlap_problem(source, root, sources, db_path, resolve=False)) is not None:
            raise fail(f"{where} {why}")
        sources.append(source)
    return tuple(sources)


def overlap_problem(source: Source, root: Path, others, db_path: Path | None = None,
                    resolve: bool = True) -> str | None:
    """Why ``source`` cannot sit where it is, or None: it may not contain the root, lie inside
    it, hold the index (``db_path``), or overlap another source. Links are resolved unless not
    ``resolve``: loading the file checks the paths as written, since where a link leads can
    change at any time and is checked at every walk and read (engine/index/sources.py,
    ``folder_now``); a link swapped in must not make every command, ``source remove``
    among them, refuse to start."""
    real = os.path.realpath if resolve else os.path.abspath
    if real(source.path) == real(root):
        return "is the data root: its routes index it already ([routes] in memlens.toml)"
    if overlap(source.path, root, resolve):
        inside = Path(real(source.path)).is_relative_to(real(root))
        return ("lies inside the data root: its files are the root's (add a [routes] glob "
                "instead)" if inside else "contains the data root: its secrets and index "
                "would be read through it")
    if db_path is not None and Path(real(db_path)).is_relative_to(real(source.path)):
        return ("holds the index (its database and vector sidecar would be read as notes): "
                "keep the index outside the source")
    for other in others:
        if real(source.path) == real(other.path):
            return f"is source {other.name!r} already"
        if overlap(source.path, other.path, resolve):
            return f"overlaps source {other.name!r}: its files would be indexed twice"
    return None


def load_config(root: str | Path, db_path: str | Path | None = None) -> Config:
    """Read ``<root>/memlens.toml`` (optional) over the defaults; :class:`ConfigError` if bad.

    ``$MEMLENS_EMBEDDER`` overrides the configured provider, so a user can try one without
    editing the file.
    """
    from engine.index.routes import FILE_ROUTES

    root = Path(root).expanduser().resolve()
    data = parse(root / CONFIG_FILENAME)
    tables = _tables(data)
    index, search = tables["index"], tables["search"]
    embed, rerank = tables["embedder"], tables["reranker"]

    if db_path is None:
        db_path = index.string("db", DB_RELATIVE_PATH)
    db_path = Path(db_path).expanduser()
    if not db_path.is_absolute():
        db_path = root / db_path

    provider = embed.choice("provider", "local", PROVIDERS)
    override = os.environ.get("MEMLENS_EMBEDDER")
    if override:
        if override not in PROVIDERS:
            raise ConfigError(f"$MEMLENS_EMBEDDER: unknown embedder {override!r}: use "
                              "local, minilm, e5, openai or openai-compatible")
        provider = override

    return Config(
        root=root,
        db_path=db_path,
        routes=_routes_from_toml(data["routes"]) if "routes" in data else tuple(FILE_ROUTES),
        half_lives=_half_lives(search),
        default_half_life=search.number("default_half_life", DEFAULT_HALF_LIFE, positive=True),
        decay_floor=search.number("decay_floor", DECAY_FLOOR, low=0.0, high=1.0),
        decay_weight=search.number("decay_weight", DECAY_WEIGHT, low=0.0, high=1.0),
        rrf_k=search.integer("rrf_k", RRF_K),
        similarity_threshold=search.number("similarity_threshold", None, low=-1.0, high=1.0),
        fusion=search.choice("fusion", "convex", ("convex", "rrf")),
        rescore=search.boolean("rescore", True),
        semantic_weight=search.number("semantic_weight", None, low=0.0, high=1.0),
        message_share=search.number("message_share", None, low=0.0, high=1.0),
        keyword_common_df=search.integer("keyword_common_df", KEYWORD_COMMON_DF),
        embedding_batch_size=index.integer("embedding_batch_size", EMBEDDING_BATCH_SIZE),
        chunk_batch_size=index.integer("chunk_batch_size", CHUNK_BATCH_SIZE),
        max_embed_chars=index.integer("max_embed_chars", MAX_EMBED_CHARS),
        embedder=EmbedderConfig(
            provider=provider,
            model=embed.string("model"),
            base_url=embed.string("base_url", url=True),
            dimensions=embed.integer("dimensions", None),
            timeout=embed.number("timeout", 30.0, positive=True),
            max_retries=embed.integer("max_retries", 5, minimum=0),
            query_timeout=embed.number("query_timeout", QUERY_TIMEOUT, positive=True),
        ),
        reranker=RerankerConfig(
            url=rerank.string("url", url=True),
            model=rerank.string("model"),
            timeout=rerank.number("timeout", 5.0, positive=True),
        ),
        keys=_keys(data.get("keys", {})),
        sources=_sources(data.get("sources", {}), root, db_path),
    )


# the file `memlens demo` marks its root with (a dot file: never indexed)
DEMO_MARKER = ".memlens-demo.json"


def is_demo_root(root: Path) -> bool:
    """Whether ``root`` was generated by `memlens demo` (which owns its files)."""
    return (Path(root) / DEMO_MARKER).exists()


def default_demo_root() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("memlens")) / "demo"


# the --root and --db help of every command line (memlens, python -m mcp_server, engine.scanner)
ROOT_HELP = "data root (default: $MEMLENS_ROOT, else the demo root)"
DB_HELP = "index file (default: <root>/data/search/memlens.db)"


def resolve_root(explicit: str | Path | None) -> tuple[Path, bool]:
    """The data root: ``--root``, else ``$MEMLENS_ROOT``, else the demo root.

    Returns the root and whether it is the bundled demo root.
    """
    if explicit:
        return Path(explicit).expanduser().resolve(), False
    env = os.environ.get("MEMLENS_ROOT")
    if env:
        return Path(env).expanduser().resolve(), False
    return default_demo_root(), True


def config_missing(root: Path) -> str | None:
    """Why ``<root>/memlens.toml`` holds no configuration now ("gone from the data root";
    "empty now", as a sync tool leaves it before writing), else None (one that does not load
    says why when loaded): it says nothing of the sources, so a running watch keeps its last
    good configuration and a reindex the sources it was given."""
    try:
        return None if (Path(root) / CONFIG_FILENAME).read_bytes().strip() else "empty now"
    except FileNotFoundError:
        return "gone from the data root"
    except OSError:
        return None


class FollowedConfig:
    """A long-running process's configuration (MCP server, app, watcher's readers): the one it
    started with, its ``routes`` and ``sources`` following ``memlens.toml`` as the file is now.

    Each :meth:`current` costs one ``stat`` of the file; a change (new mtime, size, ctime or
    file: an atomic rename) is read before the next read is served, so a removed source or a
    new ignore rule holds at once. A file that does not load keeps the last good routes and
    sources, with :attr:`error` saying why (readers of sources then refuse: what failed to
    load may be the removal of one).
    """

    def __init__(self, config: Config):
        import threading

        self._started = config
        self._current = config
        self._stamp = _stamp(config.root / CONFIG_FILENAME)
        self._lock = threading.Lock()
        self.error: str | None = None

    def current(self) -> Config:
        stamp = _stamp(self._started.root / CONFIG_FILENAME)
        if stamp == self._stamp:
            return self._current
        with self._lock:
            if stamp != self._stamp:
                try:
                    fresh = load_config(self._started.root, self._started.db_path)
                    self._current = replace(self._started, routes=fresh.routes,
                                            sources=fresh.sources)
                    self.error = None
                except (ConfigError, OSError) as exc:
                    self.error = " ".join(str(exc).split()) or type(exc).__name__
                self._stamp = stamp
        return self._current


def _stamp(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns
