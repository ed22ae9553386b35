/* Reading one term's posting list straight from an FTS5 table's segments (fts5_postings.c). */
#ifndef MEMLENS_FTS5_POSTINGS_H
#define MEMLENS_FTS5_POSTINGS_H

#include "sqlite3ext.h"

/* A row holding a term: its rowid and how often the term occurs in it (in every column) */
typedef struct {
    unsigned int rowid;
    unsigned int tf;
} Fts5Posting;

/* A growable array of postings (sqlite3_malloc'ed; the caller frees ``at``) */
typedef struct {
    Fts5Posting *at;
    int n, cap;
    unsigned int max_tf; /* the largest tf appended */
} Fts5PostingArray;

#define FTS5_POSTINGS_MAX_ROWID (1LL << 25) /* rowids past it are not read (SQLITE_RANGE) */

typedef struct Fts5Postings Fts5Postings;

/* A reader of ``table``'s index on ``db`` (the %_data and %_idx tables), for one read
 * transaction: open it, walk terms, close it. NULL when out of memory. */
Fts5Postings *fts5_postings_open(sqlite3 *db, const char *table);
void fts5_postings_close(Fts5Postings *reader);

/* Append every row holding ``term`` (the token as the tokenizer writes it, UTF-8, n bytes) to
 * ``out`` in rowid order, each once, as the newest segment holding it says (a row deleted there
 * is left out). SQLITE_CORRUPT when the index is not as this reader knows FTS5's format, and
 * SQLITE_RANGE for a rowid past FTS5_POSTINGS_MAX_ROWID (the caller ranks another way). */
int fts5_postings_read(Fts5Postings *reader, const char *term, int n, Fts5PostingArray *out);

#endif
