"""The values a search accepts, importable without loading the pipeline (a front door builds
its argument parser from them before it knows whether it will search)."""

MODES = ("hybrid", "keyword", "semantic")
SORTS = ("relevance", "date")
MAX_LIMIT = 200
