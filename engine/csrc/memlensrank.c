/* memlens_bm25(): FTS5's bm25 with the document frequencies given by the caller.
 *
 * FTS5's own bm25() learns each phrase's document frequency by walking the phrase's whole
 * posting list (xQueryPhrase) once per statement: at 2M chunks a common word's walk costs
 * ~19 ms, and the keyword arm's plans run several statements a query over common words
 * (docs/benchmarks.md, "The keyword arm"). The arm already knows those counts exactly (the
 * index's term list, engine/keyword_arm.py), so it passes them:
 *
 *     memlens_bm25(chunks_fts, df_0, df_1, ...)   -- one per phrase, in query order
 *
 * A negative df means "not known": that phrase is counted as bm25() counts it. A second list
 * of the same length, when given, weighs each phrase (its term in the sum is multiplied):
 *
 *     memlens_bm25(chunks_fts, df_0, ..., df_n, w_0, ..., w_n)
 *
 * the score bm25() gives a MATCH that repeats phrase i w_i times, without FTS5 reading its
 * posting list w_i times (a long request says its topic words several times). Everything
 * else is bm25()'s arithmetic, in its order (k1 = 1.2, b = 0.75, every column weight 1,
 * idf = log((N - df + 0.5) / (df + 0.5)) floored at 1e-6, the score negated), so the result
 * equals bm25() for the true counts.
 *
 * Each row's length (its token count, for bm25's length normalisation) costs FTS5 a lookup in
 * its docsize table per row: ~0.5 us, two thirds of scoring a common word's 40,000 rows at 500k
 * chunks (27 ms -> 8 ms without it). On a read-only connection (a searcher's) the lengths read
 * are kept in an array by rowid and reused by later statements while the database is
 * unchanged: SQLITE_FCNTL_DATA_VERSION moves with any commit, from any connection, and then the
 * array is forgotten. A connection that can write never keeps lengths (its own uncommitted
 * changes would not move that counter). The scores are the same either way.
 *
 * A SQLite loadable extension (engine/storage/rank_extension.py loads it into every connection).
 */
#include <math.h>
#include <string.h>

#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

typedef struct {
    int n_phrase;
    double avgdl;
    double *idf; /* each phrase's idf times its weight */
} Bm25Data;

/* The row lengths one connection has read, by rowid (length + 1; 0: not read yet) */
typedef struct {
    sqlite3 *db;
    unsigned int version;   /* SQLITE_FCNTL_DATA_VERSION the lengths were read under */
    int valid;              /* the lengths belong to ``version`` (and the connection is read-only) */
    unsigned int *len;
    sqlite3_int64 cap;
} Lengths;

#define LENGTHS_MAX_ROWID (1LL << 25) /* 128 MB at most; rows above are looked up each time */

static void free_lengths(void *p) {
    Lengths *lengths = p;
    if (lengths) sqlite3_free(lengths->len);
    sqlite3_free(lengths);
}

/* Once per statement: forget the lengths when the database changed since they were read */
static void check_lengths(Lengths *lengths) {
    unsigned int version = 0;
    if (!lengths) return;
    if (sqlite3_db_readonly(lengths->db, "main") != 1
        || sqlite3_file_control(lengths->db, "main", SQLITE_FCNTL_DATA_VERSION, &version)
               != SQLITE_OK) {
        lengths->valid = 0;
        return;
    }
    if (!lengths->valid || lengths->version != version) {
        if (lengths->len) memset(lengths->len, 0, sizeof(unsigned int) * (size_t)lengths->cap);
        lengths->version = version;
        lengths->valid = 1;
    }
}

/* Keep a row's length; without memory (or past LENGTHS_MAX_ROWID) it is simply not kept */
static void keep_length(Lengths *lengths, sqlite3_int64 rowid, int n_tok) {
    if (rowid < 0 || rowid >= LENGTHS_MAX_ROWID || n_tok < 0) return;
    if (rowid >= lengths->cap) { /* grow to the next power of two past rowid */
        sqlite3_int64 cap = lengths->cap ? lengths->cap : 4096;
        while (cap <= rowid) cap *= 2;
        unsigned int *grown =
            sqlite3_realloc64(lengths->len, sizeof(unsigned int) * (sqlite3_uint64)cap);
        if (!grown) return;
        memset(grown + lengths->cap, 0, sizeof(unsigned int) * (size_t)(cap - lengths->cap));
        lengths->len = grown;
        lengths->cap = cap;
    }
    lengths->len[rowid] = (unsigned int)n_tok + 1;
}

static int row_length(const Fts5ExtensionApi *api, Fts5Context *fts, Lengths *lengths,
                      int *n_tok) {
    sqlite3_int64 rowid = api->xRowid(fts);
    int usable = lengths && lengths->valid && rowid >= 0 && rowid < LENGTHS_MAX_ROWID;
    if (usable && rowid < lengths->cap && lengths->len[rowid]) {
        *n_tok = (int)(lengths->len[rowid] - 1);
        return SQLITE_OK;
    }
    int rc = api->xColumnSize(fts, -1, n_tok);
    if (rc == SQLITE_OK && usable) keep_length(lengths, rowid, *n_tok);
    return rc;
}

/* memlens_preload_lengths(table): read every row's length from FTS5's docsize table in one
 * pass (60-100 ms at 500k chunks, against ~0.5 us a row looked up one by one), for a
 * long-running searcher to call once at start. Returns the rows kept (0 on a connection that
 * can write). */
static void preload_lengths(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    Lengths *lengths = sqlite3_user_data(ctx);
    const unsigned char *table = argc == 1 ? sqlite3_value_text(argv[0]) : NULL;
    if (!table) {
        sqlite3_result_error(ctx, "memlens_preload_lengths: give the FTS5 table's name", -1);
        return;
    }
    char *sql = sqlite3_mprintf("SELECT id, sz FROM \"%w_docsize\"", (const char *)table);
    sqlite3_stmt *stmt = NULL;
    int rc = sql ? sqlite3_prepare_v2(lengths->db, sql, -1, &stmt, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    sqlite3_int64 kept = 0;
    int first = 1;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (first) { /* the scan's read transaction is open: its data version is the one */
            first = 0;
            check_lengths(lengths);
            if (!lengths->valid) break;
        }
        const unsigned char *blob = sqlite3_column_blob(stmt, 1);
        int n = sqlite3_column_bytes(stmt, 1), at = 0;
        sqlite3_int64 total = 0;
        while (at < n) { /* one SQLite varint per column (FTS5's size array) */
            sqlite3_uint64 v = 0;
            int i = 0;
            while (at < n && i < 8 && (blob[at] & 0x80)) v = (v << 7) | (blob[at++] & 0x7f), i++;
            if (at < n) v = i == 8 ? (v << 8) | blob[at++] : (v << 7) | blob[at++];
            total += (sqlite3_int64)v;
        }
        if (total <= 0x7fffffff) {
            keep_length(lengths, sqlite3_column_int64(stmt, 0), (int)total);
            kept++;
        }
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_OK && rc != SQLITE_DONE) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    sqlite3_result_int64(ctx, lengths->valid ? kept : 0);
}

static int count_hit(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
    (void)api; (void)fts;
    (*(sqlite3_int64 *)user)++;
    return SQLITE_OK;
}

static void free_data(void *p) { sqlite3_free(p); }

/* The statement's idf values and average length, made on its first row */
static int statement_data(const Fts5ExtensionApi *api, Fts5Context *fts, int n_val,
                          sqlite3_value **vals, Bm25Data **out, char **why) {
    Bm25Data *data = api->xGetAuxdata(fts, 0);
    if (data) {
        *out = data;
        return SQLITE_OK;
    }
    check_lengths(api->xUserData(fts));
    int n_phrase = api->xPhraseCount(fts);
    if (n_val != n_phrase && n_val != 2 * n_phrase) {
        *why = sqlite3_mprintf("memlens_bm25: %d values for %d phrases (a document frequency "
                               "each, then optionally a weight each)", n_val, n_phrase);
        return SQLITE_ERROR;
    }
    data = sqlite3_malloc64(sizeof(Bm25Data) + sizeof(double) * (sqlite3_uint64)n_phrase);
    if (!data) return SQLITE_NOMEM;
    memset(data, 0, sizeof(Bm25Data));
    data->n_phrase = n_phrase;
    data->idf = (double *)&data[1];
    sqlite3_int64 n_row = 0, n_token = 0;
    int rc = api->xRowCount(fts, &n_row);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &n_token);
    if (rc == SQLITE_OK) data->avgdl = (double)n_token / (double)n_row;
    for (int i = 0; rc == SQLITE_OK && i < n_phrase; i++) {
        sqlite3_int64 hits = sqlite3_value_int64(vals[i]);
        if (hits < 0) {
            hits = 0;
            rc = api->xQueryPhrase(fts, i, &hits, count_hit);
        }
        double idf = log((n_row - hits + 0.5) / (hits + 0.5));
        double weight = n_val > n_phrase ? sqlite3_value_double(vals[n_phrase + i]) : 1.0;
        data->idf[i] = (idf <= 0.0 ? 1e-6 : idf) * weight;
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, data, free_data);
    if (rc != SQLITE_OK) {
        sqlite3_free(data);
        return rc;
    }
    *out = data;
    return SQLITE_OK;
}

static void memlens_bm25(const Fts5ExtensionApi *api, Fts5Context *fts,
                         sqlite3_context *ctx, int n_val, sqlite3_value **vals) {
    const double k1 = 1.2, b = 0.75;
    Bm25Data *data = NULL;
    char *why = NULL;
    int rc = statement_data(api, fts, n_val, vals, &data, &why);
    if (why) {
        sqlite3_result_error(ctx, why, -1);
        sqlite3_free(why);
        return;
    }
    double stack_freq[16];
    double *freq = stack_freq;
    if (rc == SQLITE_OK && data->n_phrase > 16) {
        freq = sqlite3_malloc64(sizeof(double) * (sqlite3_uint64)data->n_phrase);
        if (!freq) rc = SQLITE_NOMEM;
    }
    int n_tok = 0;
    /* each phrase's hits counted on its own: xInstCount would first merge every phrase's
     * positions into one sorted list, which bm25 never needs */
    for (int i = 0; rc == SQLITE_OK && i < data->n_phrase; i++) {
        Fts5PhraseIter iter;
        int col = 0, off = 0, hits = 0;
        rc = api->xPhraseFirst(fts, i, &iter, &col, &off);
        for (; rc == SQLITE_OK && col >= 0; api->xPhraseNext(fts, &iter, &col, &off))
            hits++;
        freq[i] = (double)hits;
    }
    if (rc == SQLITE_OK) rc = row_length(api, fts, api->xUserData(fts), &n_tok);
    if (rc == SQLITE_OK) {
        double score = 0.0, d = (double)n_tok;
        for (int i = 0; i < data->n_phrase; i++)
            score += data->idf[i] * ((freq[i] * (k1 + 1.0))
                                     / (freq[i] + k1 * (1 - b + b * d / data->avgdl)));
        sqlite3_result_double(ctx, -1.0 * score);
    } else {
        sqlite3_result_error_code(ctx, rc);
    }
    if (freq != stack_freq) sqlite3_free(freq);
}

static fts5_api *fts5_of(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) == SQLITE_OK) {
        sqlite3_bind_pointer(stmt, 1, (void *)&api, "fts5_api_ptr", NULL);
        sqlite3_step(stmt);
    }
    sqlite3_finalize(stmt);
    return api;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_memlensrank_init(sqlite3 *db, char **err, const sqlite3_api_routines *routines) {
    SQLITE_EXTENSION_INIT2(routines);
    fts5_api *fts5 = fts5_of(db);
    if (fts5 == NULL || fts5->iVersion < 2) {
        *err = sqlite3_mprintf("memlens_bm25 needs FTS5");
        return SQLITE_ERROR;
    }
    Lengths *lengths = sqlite3_malloc64(sizeof(Lengths));
    if (!lengths) return SQLITE_NOMEM;
    memset(lengths, 0, sizeof(Lengths));
    lengths->db = db;
    int rc = sqlite3_create_function_v2(db, "memlens_preload_lengths", 1, SQLITE_UTF8, lengths,
                                        preload_lengths, NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        free_lengths(lengths);
        return rc;
    }
    /* the lengths are freed with the rank function, when the connection closes */
    return fts5->xCreateFunction(fts5, "memlens_bm25", lengths, memlens_bm25, free_lengths);
}
