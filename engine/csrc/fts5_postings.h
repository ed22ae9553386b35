/* Reading one term's posting list straight from an FTS5 table's segments (fts5_postings.c). */
#ifndef MEMLENS_FTS5_POSTINGS_H
#define MEMLENS_FTS5_POSTINGS_H

#include "sqlite3ext.h"

/* Called once per row holding the term: its rowid and how often the term occurs in it (in
 * every column). Returns SQLITE_OK to go on, anything else to stop the walk with that code. */
typedef int (*PostingFn)(void *user, sqlite3_int64 rowid, int tf);

typedef struct Fts5Postings Fts5Postings;

/* A reader of ``table``'s index on ``db`` (the %_data and %_idx tables), for one read
 * transaction: open it, walk terms, close it. NULL when out of memory. */
Fts5Postings *fts5_postings_open(sqlite3 *db, const char *table);
void fts5_postings_close(Fts5Postings *reader);

/* Every row holding ``term`` (the token as the tokenizer writes it, UTF-8, n bytes), each once,
 * as the newest segment holding it says (a row deleted there is skipped). SQLITE_CORRUPT when
 * the index is not as this reader knows FTS5's format (the caller ranks another way). */
int fts5_postings_walk(Fts5Postings *reader, const char *term, int n, PostingFn fn, void *user);

#endif
