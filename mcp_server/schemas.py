"""The tools' input schemas (JSON Schema), as the SDK lists them to the client."""

from __future__ import annotations

from engine import SOURCE_TYPES
from engine.search_options import SORTS

MAX_LIMIT = 50
DEFAULT_LIMIT = 10
MAX_NEIGHBORS = 10
MAX_MESSAGES = 50  # get_neighborhood with messages: true
MAX_TIMELINE = 200


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
                       "data root (e.g. \"notes/work/\"), or a folder inside one "
                       "(\"Projects/\" for the index's one \"@Vault/Projects/\")."},
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
                      "YYYY-MM-DD (inclusive); wins over a time phrase in the query."},
            "until": {"type": "string", "description": "Optional last content date, "
                      "YYYY-MM-DD (inclusive); wins over a time phrase in the query."},
            "person": {"type": "string", "description": "Optional person filter: only chunks "
                       "where they take part, are named (name or alias, typos forgiven), or "
                       "their entity file / profile."},
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
        "before": {"type": "integer", "minimum": 0, "maximum": MAX_MESSAGES,
                   "description": "Chunks before it (default 2, at most 10); with messages: "
                   "messages before it (default 10, at most 50)."},
        "after": {"type": "integer", "minimum": 0, "maximum": MAX_MESSAGES,
                  "description": "Chunks after it (default 2, at most 10); with messages: "
                  "messages after it (default 10, at most 50)."},
        "messages": {"type": "boolean", "default": False,
                     "description": "Individual messages (sender, time, text) around a chat, "
                     "meeting, voice or transcript hit instead of whole chunks."},
    },
    "required": ["id"],
    "additionalProperties": False,
}

TIMELINE_SCHEMA = {
    "type": "object",
    "properties": {
        "when": {"type": "string", "description": "A date (2026-03-14), a range "
                 "(2026-03-01..2026-03-15, 2026-03) or a time phrase (\"last week\", "
                 "\"March\", \"two weeks ago\", \"on this day\")."},
        "source_types": {"type": "array", "items": {"type": "string",
                                                    "enum": list(SOURCE_TYPES)},
                         "description": "Optional source types to keep."},
        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_TIMELINE, "default": 50,
                  "description": "Rows listed at most (default 50, at most 200); the counts "
                  "cover the whole range."},
    },
    "required": ["when"],
    "additionalProperties": False,
}

STATUS_SCHEMA = {"type": "object", "properties": {}, "additionalProperties": False}
