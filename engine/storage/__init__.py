"""The SQLite file underneath: connections, the writer lock, FTS5 records, the bm25 extension, log reads."""
