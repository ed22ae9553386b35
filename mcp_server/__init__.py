"""``memlens mcp``: the engine as an MCP server over stdio or HTTP (the official MCP Python SDK).

A front door beside the Textual app (``tui/``), over the same read facade
(:class:`engine.library.Library`); it only reads and never imports textual or rich.

Tools: ``hybrid_search``, ``keyword_search``, ``semantic_search`` (a header, then one line
per result: a JSON object of content fields followed by server fields), ``read_note`` (a
whole file or one markdown section), ``get_neighborhood`` (the chunks around a result, and
the profile of a person it names) and ``index_status``.

Modules: ``server`` (SDK wiring, stdio), ``http`` (streamable HTTP behind a token), ``tools`` (the implementations),
``args`` (argument checks), ``page`` (the search page), ``answers`` (the other tools' text),
``text`` (JSON strings, one-line errors, no machine paths), ``descriptions`` and ``schemas``
(what the client lists).
"""
