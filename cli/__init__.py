"""The ``memlens`` command line: a front door over the engine, beside ``tui`` and ``mcp_server``
(docs/architecture.md). Entry point: :func:`cli.main.main`."""
