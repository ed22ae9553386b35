"""The tools' input schemas (JSON Schema), as the SDK lists them to the client."""

from __future__ import annotations

from engine.scanner import SOURCE_TYPES
from engine.search_options import SORTS

MAX_LIMIT = 50
DEFAULT_LIMIT = 10
MAX_NEIGHBORS = 10


def search_schema() -> dict:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What you are looking for — words, a "
                      "phrase or a question."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                      "default": DEFAULT_LIMIT,
                      "description": "Maximum number of results (default 10, at most 50)."},
            "folder": {"type": "string", "description": "Optional path prefix relative to the "
                       "data root (e.g. \"notes/work/\")."},
            "tags": {"type": "array", "items": {"type": "string"},
                     "description": "Optional tag names; only notes carrying ALL of them."},
            "frontmatter": {"type": "object",
                            "additionalProperties": {"type": ["string", "number", "integer",
                                                              "boolean", "null"]},
                            "description": "Optional frontmatter key/value pairs; strict type "
                            "matching (\"0\" does not match 0)."},
            "source_types": {"type": "array", "items": {"type": "string",
                                                        "enum": list(SOURCE_TYPES)},
                             "description": "Optional source types to keep."},
            "since": {"type": "string", "description": "Optional first content date, "
                      "YYYY-MM-DD (inclusive)."},
            "until": {"type": "string", "description": "Optional last content date, "
                      "YYYY-MM-DD (inclusive)."},
            "rerank": {"type": "boolean", "default": False,
                       "description": "Reorder the candidates with the deployment's reranker."},
            "sort": {"type": "string", "enum": list(SORTS), "default": "relevance",
                     "description": "relevance (default) or date: the page's best results, "
                     "newest first."},
            "decay": {"type": "boolean", "default": True,
                      "description": "false ranks hybrid results without recency decay."},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


READ_NOTE_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path relative to the data root, as a "
                 "search row's path shows it."},
        "section": {"type": ["string", "integer", "null"], "description": "Optional markdown "
                    "section, \"#N\" as in a row's § field (\"#0\": above the first heading)."},
        "offset": {"type": "integer", "minimum": 0, "default": 0,
                   "description": "Character offset to continue a long file from."},
    },
    "required": ["path"],
    "additionalProperties": False,
}

NEIGHBORHOOD_SCHEMA = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "A chunk id from a search row's id: field."},
        "before": {"type": "integer", "minimum": 0, "maximum": MAX_NEIGHBORS, "default": 2,
                   "description": "Chunks before it (default 2)."},
        "after": {"type": "integer", "minimum": 0, "maximum": MAX_NEIGHBORS, "default": 2,
                  "description": "Chunks after it (default 2)."},
    },
    "required": ["id"],
    "additionalProperties": False,
}

STATUS_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}
