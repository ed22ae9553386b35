"""memlens widgets: each renders data-layer text as plain text (see ``text``)."""
