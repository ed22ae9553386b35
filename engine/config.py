"""Configuration: the seed's numbers as defaults, overridable from ``<root>/memlens.toml``.

Every stage reads its numbers from a :class:`Config`, so tests and benchmarks can build one
directly and a user can tune one file.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path

DB_RELATIVE_PATH = "data/search/memlens.db"
CONFIG_FILENAME = "memlens.toml"

# Recency half-lives in days, per source type (seed: "Recency decay").
SOURCE_HALF_LIVES: dict[str, float] = {
    **dict.fromkeys(
        ["observation", "story", "quote", "interview", "interview_meta", "entity_file",
         "codebase_doc"], 365.0),
    "rwgps_memory": 180.0,
    "transcript": 120.0,
    "email_catalog": 90.0,
    **dict.fromkeys(
        ["meeting", "board_summary", "voice", "experiment", "event", "journal"], 60.0),
    **dict.fromkeys(["slack", "telegram", "signal"], 35.0),
    **dict.fromkeys(["podcast_digest", "checkin"], 30.0),
    **dict.fromkeys(["garmin", "cgm", "scratch"], 14.0),
    # notes are a personal knowledge vault: they age like identity-level material
    "note": 365.0,
}
DEFAULT_HALF_LIFE = 60.0
DECAY_FLOOR = 0.25
RRF_K = 60
EMBEDDING_BATCH_SIZE = 50
CHUNK_BATCH_SIZE = 200
MAX_EMBED_CHARS = 20_000
DIVERSITY_TARGET = 7
DIVERSITY_LAMBDA = 0.7
MAX_PER_SOURCE_TYPE = 3
# a query word found in at least this many chunks counts as common (see engine/keyword_arm.py)
KEYWORD_COMMON_DF = 2000


class ConfigError(ValueError):
    """memlens.toml is malformed or names something unknown."""


@dataclass(frozen=True)
class EmbedderConfig:
    provider: str = "local"  # local | minilm | openai | openai-compatible
    model: str | None = None
    base_url: str | None = None
    dimensions: int | None = None
    timeout: float = 30.0
    max_retries: int = 5


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
    rrf_k: int = RRF_K
    similarity_threshold: float | None = None  # None: the embedder's (engine/calibration.py)
    fusion: str = "convex"  # convex | rrf (engine/convex.py)
    semantic_weight: float | None = None  # None: the embedder's (engine/calibration.py)
    keyword_common_df: int = KEYWORD_COMMON_DF
    embedding_batch_size: int = EMBEDDING_BATCH_SIZE
    chunk_batch_size: int = CHUNK_BATCH_SIZE
    max_embed_chars: int = MAX_EMBED_CHARS
    embedder: EmbedderConfig = field(default_factory=EmbedderConfig)
    reranker: RerankerConfig = field(default_factory=RerankerConfig)
    keys: dict[str, str] = field(default_factory=dict)

    def half_life(self, source_type: str) -> float:
        return self.half_lives.get(source_type, self.default_half_life)

    def with_overrides(self, **changes) -> Config:
        return replace(self, **changes)


def _routes_from_toml(table: dict) -> tuple[tuple[str, str], ...]:
    from .scanner import FILE_ROUTES

    known = {source_type for _, source_type in FILE_ROUTES}
    overridden: dict[str, list[str]] = {}
    for source_type, patterns in table.items():
        if source_type not in known:
            raise ConfigError(f"[routes] names unknown source type {source_type!r}")
        if isinstance(patterns, str):
            patterns = [patterns]
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise ConfigError(f"[routes] {source_type} must be a glob or a list of globs")
        overridden[source_type] = patterns
    routes: list[tuple[str, str]] = []
    for pattern, source_type in FILE_ROUTES:
        if source_type in overridden:
            continue
        routes.append((pattern, source_type))
    for source_type, patterns in overridden.items():
        routes.extend((p, source_type) for p in patterns)
    return tuple(routes)


def _number(table: dict, key: str, kind, default):
    value = table.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ConfigError(f"{key} must be a number, not {value!r}")
    return kind(value)


def _fusion(value) -> str:
    if value not in ("convex", "rrf"):
        raise ConfigError(f"fusion must be convex or rrf, not {value!r}")
    return value


def _share(value: float | None) -> float | None:
    if value is not None and not 0.0 <= value <= 1.0:
        raise ConfigError(f"semantic_weight must be between 0 and 1, not {value!r}")
    return value


def load_config(root: str | Path, db_path: str | Path | None = None) -> Config:
    """Read ``<root>/memlens.toml`` (optional) over the defaults.

    ``$MEMLENS_EMBEDDER`` overrides the configured provider, so a user can try one without
    editing the file.
    """
    from .scanner import FILE_ROUTES

    root = Path(root).expanduser().resolve()
    data: dict = {}
    config_file = root / CONFIG_FILENAME
    if config_file.exists():
        try:
            data = tomllib.loads(config_file.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{config_file}: {exc}") from exc

    index = data.get("index", {})
    search = data.get("search", {})
    embed = data.get("embedder", {})
    rerank = data.get("reranker", {})

    if db_path is None:
        db_path = index.get("db", DB_RELATIVE_PATH)
    db_path = Path(db_path).expanduser()
    if not db_path.is_absolute():
        db_path = root / db_path

    half_lives = dict(SOURCE_HALF_LIVES)
    for source_type, days in search.get("half_lives", {}).items():
        half_lives[source_type] = float(_number({"d": days}, "d", float, None))

    provider = os.environ.get("MEMLENS_EMBEDDER") or embed.get("provider", "local")
    if provider not in ("local", "minilm", "openai", "openai-compatible"):
        raise ConfigError(
            f"unknown embedder {provider!r}: use local, minilm, openai or openai-compatible")

    return Config(
        root=root,
        db_path=db_path,
        routes=_routes_from_toml(data["routes"]) if "routes" in data else tuple(FILE_ROUTES),
        half_lives=half_lives,
        default_half_life=_number(search, "default_half_life", float, DEFAULT_HALF_LIFE),
        decay_floor=_number(search, "decay_floor", float, DECAY_FLOOR),
        rrf_k=_number(search, "rrf_k", int, RRF_K),
        similarity_threshold=_number(search, "similarity_threshold", float, None),
        fusion=_fusion(search.get("fusion", "convex")),
        semantic_weight=_share(_number(search, "semantic_weight", float, None)),
        keyword_common_df=_number(search, "keyword_common_df", int, KEYWORD_COMMON_DF),
        embedding_batch_size=_number(index, "embedding_batch_size", int, EMBEDDING_BATCH_SIZE),
        chunk_batch_size=_number(index, "chunk_batch_size", int, CHUNK_BATCH_SIZE),
        max_embed_chars=_number(index, "max_embed_chars", int, MAX_EMBED_CHARS),
        embedder=EmbedderConfig(
            provider=provider,
            model=embed.get("model"),
            base_url=embed.get("base_url"),
            dimensions=_number(embed, "dimensions", int, None),
            timeout=_number(embed, "timeout", float, 30.0),
            max_retries=_number(embed, "max_retries", int, 5),
        ),
        reranker=RerankerConfig(
            url=rerank.get("url"),
            model=rerank.get("model"),
            timeout=_number(rerank, "timeout", float, 5.0),
        ),
        keys={str(k): str(v) for k, v in data.get("keys", {}).items()},
    )


def default_demo_root() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("memlens")) / "demo"


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
