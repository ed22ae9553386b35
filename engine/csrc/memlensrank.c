/* memlens_bm25(): FTS5's bm25 with the document frequencies given by the caller.
 *
 * FTS5's own bm25() learns each phrase's document frequency by walking the phrase's whole
 * posting list (xQueryPhrase) once per statement: at 2M chunks a common word's walk costs
 * ~19 ms, and the keyword arm's plans run several statements a query over common words
 * (docs/benchmarks.md, "The keyword arm"). The arm already knows those counts exactly (the
 * index's term list, engine/retrieval/keyword_arm.py), so it passes them:
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
 * memlens_topk() (below) answers a whole OR query's best rows by those same scores in one call,
 * reading the words' postings from the index's pages (fts5_postings.c).
 *
 * A SQLite loadable extension (engine/storage/rank_extension.py loads it into every connection).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fts5_postings.h"
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
    int complete;           /* every row's length was read under ``version`` (a preload) */
    unsigned int *len;
    sqlite3_int64 cap;
    int min_len;            /* the shortest row's length, when ``complete`` */
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
        lengths->valid = lengths->complete = 0;
        return;
    }
    if (!lengths->valid || lengths->version != version) {
        if (lengths->len) memset(lengths->len, 0, sizeof(unsigned int) * (size_t)lengths->cap);
        lengths->version = version;
        lengths->valid = 1;
        lengths->complete = 0;
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

/* A row's length from its %_docsize record: one SQLite varint per column (FTS5's size array),
 * added up */
static sqlite3_int64 docsize_total(const unsigned char *blob, int n) {
    sqlite3_int64 total = 0;
    int at = 0;
    while (at < n) {
        sqlite3_uint64 v = 0;
        int i = 0;
        while (at < n && i < 8 && (blob[at] & 0x80)) v = (v << 7) | (blob[at++] & 0x7f), i++;
        if (at < n) v = i == 8 ? (v << 8) | blob[at++] : (v << 7) | blob[at++];
        total += (sqlite3_int64)v;
    }
    return total;
}

/* Every row's length under the current read transaction; ``kept``: how many (0 when the
 * connection can write, where lengths are never kept) */
static int load_lengths(Lengths *lengths, const char *table, sqlite3_int64 *kept) {
    char *sql = sqlite3_mprintf("SELECT id, sz FROM \"%w_docsize\"", table);
    sqlite3_stmt *stmt = NULL;
    int rc = sql ? sqlite3_prepare_v2(lengths->db, sql, -1, &stmt, NULL) : SQLITE_NOMEM;
    sqlite3_free(sql);
    int first = 1;
    *kept = 0;
    lengths->min_len = 0;
    while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        rc = SQLITE_OK;
        if (first) { /* the scan's read transaction is open: its data version is the one */
            first = 0;
            check_lengths(lengths);
            if (!lengths->valid) break;
        }
        sqlite3_int64 total =
            docsize_total(sqlite3_column_blob(stmt, 1), sqlite3_column_bytes(stmt, 1));
        if (total <= 0x7fffffff) {
            keep_length(lengths, sqlite3_column_int64(stmt, 0), (int)total);
            if (*kept == 0 || total < lengths->min_len) lengths->min_len = (int)total;
            (*kept)++;
        }
    }
    sqlite3_finalize(stmt);
    if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
        if (first) check_lengths(lengths); /* no rows: nothing to keep, but known */
        lengths->complete = lengths->valid;
    }
    if (!lengths->valid) *kept = 0;
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
    sqlite3_int64 kept = 0;
    int rc = load_lengths(lengths, (const char *)table, &kept);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(ctx, rc);
        return;
    }
    sqlite3_result_int64(ctx, kept);
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

/* memlens_topk(chunks_fts, table, k, df_0..df_n, w_0..w_n, term_0..term_n): the best k rows
 * of the statement's MATCH (an OR of its phrases) by the score memlens_bm25 gives them with
 * those counts and weights, in one call. Used as
 *
 *     SELECT memlens_topk(chunks_fts, 'chunks_fts', 50, ...) FROM chunks_fts
 *     WHERE chunks_fts MATCH ? LIMIT 1
 *
 * FTS5's ORDER BY rank steps the OR row by row, merging the phrases' lists and calling the
 * rank function on every row (~0.2-0.5 us a row). Here:
 *
 * 1. Each phrase's postings (rowid, occurrences) are read into an array: a phrase whose term
 *    is given (the one token the tokenizer makes of it) straight from the index's leaves
 *    (fts5_postings.c, ~5 ns a posting) outside a transaction (inside one, FTS5 may hold
 *    changes in memory); any other through FTS5 (xQueryPhrase, ~0.1 us a posting).
 * 2. The arrays are merged in rowid order with MaxScore pruning (Turtle & Flood, 1995): a
 *    phrase can add at most idf * share(its largest count, the shortest row); once the k-th
 *    best score found beats the sum of the smallest of those bounds, a row holding only those
 *    phrases cannot enter, so only rows of the other phrases are visited (the rest looked up
 *    by galloping search), and a row whose bound from its counts cannot reach the k-th score
 *    is not scored at all. A scored row's length comes from the kept lengths, else from
 *    %_docsize (then kept, on a read-only connection).
 *
 * Answers a blob of (rowid int64, score double) pairs, best first (ties by rowid), or NULL
 * where it cannot answer (a rowid past the arrays' range, an index it cannot read): the caller
 * ranks another way. A row's score adds its phrases' shares in query order, with the same
 * operations as memlens_bm25, so the scores are the same to the bit. */

#define SHARE_TF 4      /* shares are kept for counts 1..4 and lengths below 1024 (nearly */
#define SHARE_LEN 1024  /* every posting), else computed: divisions were most of a score */

#define MAX_LISTS 256   /* phrases in one call (a longer query is ranked through FTS5) */
#define BOUND_TF 8      /* a row's bound is looked up for counts up to 8 */
#define SLACK (1 + 1e-9) /* a bound is a sum in another order than the score's */

typedef struct {
    Fts5PostingArray postings; /* in rowid order, then one past the last at rowid UINT_MAX */
    unsigned int *lens;        /* each posting's row length, when xQueryPhrase read them */
    int pos;                   /* the merge's place in ``postings`` */
    double idf;                /* idf times the phrase's weight */
    double bound;              /* the most this phrase adds to any row's score */
    double bound_at[BOUND_TF + 1]; /* the most it adds to a row holding it tf times (<= 8) */
} PostingList;

typedef struct {
    PostingList *list;
    Lengths *lengths;
    const char *table;
    sqlite3_stmt *docsize; /* a length not kept is read from %_docsize (prepared when needed) */
    double avgdl;
    unsigned int min_len; /* no row is shorter (0 when the lengths are not all loaded) */
    double share[SHARE_TF * SHARE_LEN]; /* bm25's tf part by [tf - 1][length]; 0: not yet */
} Scorer;

/* xQueryPhrase's callback: one row holding the phrase, its length read now */
static int take_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
    Scorer *scorer = user;
    PostingList *list = scorer->list;
    Fts5PostingArray *out = &list->postings;
    Fts5PhraseIter iter;
    int col = 0, off = 0, hits = 0, n_tok = 0;
    sqlite3_int64 rowid = api->xRowid(fts);
    if (rowid < 0 || rowid >= FTS5_POSTINGS_MAX_ROWID) return SQLITE_RANGE;
    int rc = api->xPhraseFirst(fts, 0, &iter, &col, &off);
    for (; rc == SQLITE_OK && col >= 0; api->xPhraseNext(fts, &iter, &col, &off)) hits++;
    if (rc == SQLITE_OK) rc = row_length(api, fts, scorer->lengths, &n_tok);
    if (rc != SQLITE_OK) return rc;
    if (out->n == out->cap) {
        int cap = out->cap ? out->cap * 2 : 1024;
        Fts5Posting *at = sqlite3_realloc64(out->at, sizeof(Fts5Posting) * (sqlite3_uint64)cap);
        if (at) out->at = at;
        unsigned int *lens = sqlite3_realloc64(list->lens, sizeof(unsigned int) * (sqlite3_uint64)cap);
        if (lens) list->lens = lens;
        if (!at || !lens) return SQLITE_NOMEM;
        out->cap = cap;
    }
    unsigned int tf = hits > 0xffff ? 0xffff : (unsigned int)hits;
    list->lens[out->n] = (unsigned int)n_tok;
    out->at[out->n++] = (Fts5Posting){(unsigned int)rowid, tf};
    if (tf > out->max_tf) out->max_tf = tf;
    return SQLITE_OK;
}

/* A row's length: kept from an earlier read, else from %_docsize (and kept, on a read-only
 * connection). Only the rows scored exactly need one, a few thousand at most a query. */
static int length_of(Scorer *scorer, unsigned int rowid, unsigned int *len) {
    Lengths *t = scorer->lengths;
    if (t->valid && rowid < t->cap && t->len[rowid]) {
        *len = t->len[rowid] - 1;
        return SQLITE_OK;
    }
    int rc = SQLITE_OK;
    if (!scorer->docsize) {
        char *sql = sqlite3_mprintf("SELECT sz FROM \"%w_docsize\" WHERE id = ?", scorer->table);
        rc = sql ? sqlite3_prepare_v2(t->db, sql, -1, &scorer->docsize, NULL) : SQLITE_NOMEM;
        sqlite3_free(sql);
        if (rc != SQLITE_OK) return rc;
    }
    sqlite3_bind_int64(scorer->docsize, 1, rowid);
    rc = sqlite3_step(scorer->docsize);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 total = docsize_total(sqlite3_column_blob(scorer->docsize, 0),
                                            sqlite3_column_bytes(scorer->docsize, 0));
        rc = total <= 0x7fffffff ? SQLITE_OK : SQLITE_CORRUPT;
        *len = (unsigned int)total;
        if (rc == SQLITE_OK && t->valid) keep_length(t, rowid, (int)total);
    } else {
        rc = rc == SQLITE_DONE ? SQLITE_CORRUPT : rc; /* a posting without a row */
    }
    sqlite3_reset(scorer->docsize);
    return rc;
}

/* bm25's tf part for a row: memlens_bm25's operations, in its order */
static inline double share_of(Scorer *scorer, unsigned int tf, unsigned int n_tok) {
    const double k1 = 1.2, b = 0.75;
    double *known = tf <= SHARE_TF && n_tok < SHARE_LEN
                        ? &scorer->share[(tf - 1) * SHARE_LEN + n_tok] : NULL;
    if (known && *known != 0.0) return *known;
    double f = (double)tf, d = (double)n_tok;
    double share = (f * (k1 + 1.0)) / (f + k1 * (1 - b + b * d / scorer->avgdl));
    if (known) *known = share;
    return share;
}

typedef struct { sqlite3_int64 rowid; double score; } Hit;

/* a worse than b: lower score, or the same score and a higher rowid */
static int worse(const Hit *a, const Hit *b) {
    return a->score < b->score || (a->score == b->score && a->rowid > b->rowid);
}

static void sift_down(Hit *heap, int n, int i) { /* a heap with the worst hit on top */
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && worse(&heap[l], &heap[m])) m = l;
        if (r < n && worse(&heap[r], &heap[m])) m = r;
        if (m == i) return;
        Hit t = heap[i]; heap[i] = heap[m]; heap[m] = t;
        i = m;
    }
}

static int by_rank(const void *a, const void *b) {
    return worse(a, b) ? 1 : worse(b, a) ? -1 : 0;
}

/* The first posting of ``list`` at or past ``rowid``, from its position on (galloping) */
static int seek_posting(PostingList *list, unsigned int rowid) {
    const Fts5Posting *at = list->postings.at;
    int n = list->postings.n, lo = list->pos, step = 1, hi;
    if (lo >= n || at[lo].rowid >= rowid) return lo;
    while (lo + step < n && at[lo + step].rowid < rowid) {
        lo += step;
        step *= 2;
    }
    hi = lo + step < n ? lo + step : n; /* at[lo] < rowid <= at[hi] (or the end) */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (at[mid].rowid < rowid) lo = mid;
        else hi = mid;
    }
    return list->pos = hi;
}

/* The k best rows of the lists, into ``heap`` (n of them); MaxScore as described above */
static int best_rows(Scorer *scorer, PostingList *lists, int n_list, int k, Hit *heap,
                     int *n_heap) {
    int order[MAX_LISTS], n = 0;  /* the lists by bound, smallest first */
    double sum_below[MAX_LISTS + 1]; /* sum_below[j]: the bounds of order[0..j-1] together */
    if (n_list > MAX_LISTS) return SQLITE_RANGE;
    for (int i = 0; i < n_list; i++) {
        int j = i;
        while (j > 0 && lists[order[j - 1]].bound > lists[i].bound) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    sum_below[0] = 0.0;
    for (int j = 0; j < n_list; j++) sum_below[j + 1] = sum_below[j] + lists[order[j]].bound;
    int essential = 0; /* order[essential..] must be walked; the rest are only looked into */
    double floor = -1.0; /* the k-th best score, once k rows are held */
    unsigned int present_tf[MAX_LISTS];
    for (;;) {
        /* the next row of any essential list */
        unsigned int row = UINT_MAX; /* each list ends with a posting at UINT_MAX */
        for (int j = essential; j < n_list; j++) {
            unsigned int at = lists[order[j]].postings.at[lists[order[j]].pos].rowid;
            if (at < row) row = at;
        }
        if (row == UINT_MAX) break;
        double bound = sum_below[essential];
        unsigned int len = UINT_MAX;
        for (int j = essential; j < n_list; j++) {
            PostingList *l = &lists[order[j]];
            const Fts5Posting *p = &l->postings.at[l->pos];
            present_tf[order[j]] = 0;
            if (p->rowid == row) {
                if (l->lens) len = l->lens[l->pos];
                l->pos++;
                present_tf[order[j]] = p->tf;
                bound += p->tf <= BOUND_TF ? l->bound_at[p->tf] : l->bound;
            }
        }
        if (n < k || bound * SLACK >= floor) { /* SLACK: the sums round differently */
            bound -= sum_below[essential]; /* the other lists: only what this row holds */
            for (int j = 0; j < essential; j++) {
                PostingList *l = &lists[order[j]];
                int at = seek_posting(l, row);
                const Fts5Posting *p = &l->postings.at[at];
                present_tf[order[j]] = 0;
                if (at < l->postings.n && p->rowid == row) {
                    present_tf[order[j]] = p->tf;
                    if (l->lens) len = l->lens[at];
                    bound += p->tf <= BOUND_TF ? l->bound_at[p->tf] : l->bound;
                }
            }
            if (n == k && bound * SLACK < floor) continue;
            int rc = len == UINT_MAX ? length_of(scorer, row, &len) : SQLITE_OK;
            if (rc != SQLITE_OK) return rc;
            double score = 0.0;
            for (int i = 0; i < n_list; i++) /* in query order, as memlens_bm25 adds */
                if (present_tf[i]) score += lists[i].idf * share_of(scorer, present_tf[i], len);
            Hit hit = {row, score};
            if (n < k) {
                heap[n++] = hit;
                if (n == k) for (int i = n / 2 - 1; i >= 0; i--) sift_down(heap, n, i);
            } else if (worse(&heap[0], &hit)) {
                heap[0] = hit;
                sift_down(heap, n, 0);
            }
            if (n == k) {
                floor = heap[0].score;
                /* lists whose bounds together stay below the floor need no walking */
                while (essential < n_list && sum_below[essential + 1] * SLACK < floor)
                    essential++;
            }
        }
    }
    *n_heap = n;
    return SQLITE_OK;
}

static void memlens_topk(const Fts5ExtensionApi *api, Fts5Context *fts,
                         sqlite3_context *ctx, int n_val, sqlite3_value **vals) {
    int n_phrase = api->xPhraseCount(fts);
    const char *table = n_val > 0 ? (const char *)sqlite3_value_text(vals[0]) : NULL;
    if (n_val != 2 + 3 * n_phrase || !table) {
        sqlite3_result_error(ctx, "memlens_topk: give the table's name, k, then a document "
                             "frequency, a weight and a term (or NULL) per phrase", -1);
        return;
    }
    sqlite3_int64 k = sqlite3_value_int64(vals[1]);
    Bm25Data *data = NULL;
    char *why = NULL;
    int rc = statement_data(api, fts, 2 * n_phrase, vals + 2, &data, &why);
    if (why) {
        sqlite3_result_error(ctx, why, -1);
        sqlite3_free(why);
        return;
    }
    Lengths *t = api->xUserData(fts);
    Scorer *scorer = sqlite3_malloc64(sizeof(Scorer));
    PostingList *lists = sqlite3_malloc64(sizeof(PostingList) * (sqlite3_uint64)(n_phrase + 1));
    if (rc == SQLITE_OK && (!scorer || !lists)) rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) {
        memset(scorer, 0, sizeof(Scorer));
        memset(lists, 0, sizeof(PostingList) * (size_t)(n_phrase + 1));
        scorer->lengths = t;
        scorer->avgdl = data->avgdl;
    }
    /* outside a transaction everything FTS5 holds is in its tables (it writes what it keeps
     * in memory at each commit): the leaves can be read directly */
    Fts5Postings *reader = NULL;
    if (rc == SQLITE_OK && sqlite3_get_autocommit(t->db)
        && !(reader = fts5_postings_open(t->db, table)))
        rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) {
        scorer->table = table;
        scorer->min_len = t->valid && t->complete ? (unsigned int)t->min_len : 0;
    }
    sqlite3_value **terms = vals + 2 + 2 * n_phrase;
    for (int i = 0; rc == SQLITE_OK && i < n_phrase; i++) {
        PostingList *list = &lists[i];
        Fts5PostingArray *postings = &list->postings;
        list->idf = data->idf[i];
        scorer->list = list;
        if (reader && sqlite3_value_type(terms[i]) == SQLITE_TEXT)
            rc = fts5_postings_read(reader, (const char *)sqlite3_value_text(terms[i]),
                                    sqlite3_value_bytes(terms[i]), postings);
        else
            rc = api->xQueryPhrase(fts, i, scorer, take_row); /* in rowid order */
        if (rc == SQLITE_OK && postings->n == postings->cap) { /* room for the end mark */
            Fts5Posting *at = sqlite3_realloc64(postings->at, sizeof(Fts5Posting) *
                                                (sqlite3_uint64)(postings->cap + 1));
            if (at) postings->at = at, postings->cap++;
            else rc = SQLITE_NOMEM;
        }
        if (rc != SQLITE_OK) break;
        postings->at[postings->n] = (Fts5Posting){UINT_MAX, 0}; /* past every row */
        if (postings->n) {
            list->bound = list->idf * share_of(scorer, postings->max_tf, scorer->min_len);
            for (unsigned int tf = 1; tf <= BOUND_TF; tf++)
                list->bound_at[tf] = tf < postings->max_tf
                    ? list->idf * share_of(scorer, tf, scorer->min_len) : list->bound;
        }
    }
    fts5_postings_close(reader);
    Hit *heap = NULL;
    int n = 0;
    if (k > 0x7fffffff / (sqlite3_int64)sizeof(Hit)) k = 0x7fffffff / (sqlite3_int64)sizeof(Hit);
    if (rc == SQLITE_OK && k > 0) {
        heap = sqlite3_malloc64(sizeof(Hit) * (sqlite3_uint64)k);
        if (!heap) rc = SQLITE_NOMEM;
    }
    if (rc == SQLITE_OK && heap) rc = best_rows(scorer, lists, n_phrase, (int)k, heap, &n);
    if (rc == SQLITE_OK) {
        qsort(heap, (size_t)n, sizeof(Hit), by_rank);
        sqlite3_result_blob64(ctx, heap ? (void *)heap : (void *)"",
                              sizeof(Hit) * (sqlite3_uint64)n,
                              heap ? sqlite3_free : SQLITE_STATIC);
        heap = NULL;
    } else if (rc == SQLITE_RANGE || rc == SQLITE_CORRUPT || rc == SQLITE_NOTFOUND) {
        sqlite3_result_null(ctx); /* cannot answer: the caller ranks through FTS5 */
    } else {
        sqlite3_result_error_code(ctx, rc);
    }
    sqlite3_free(heap);
    for (int i = 0; lists && i < n_phrase; i++) {
        sqlite3_free(lists[i].postings.at);
        sqlite3_free(lists[i].lens);
    }
    sqlite3_free(lists);
    if (scorer) sqlite3_finalize(scorer->docsize);
    sqlite3_free(scorer);
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
    rc = fts5->xCreateFunction(fts5, "memlens_topk", lengths, memlens_topk, NULL);
    if (rc != SQLITE_OK) {
        free_lengths(lengths);
        return rc;
    }
    /* the lengths are freed with the rank function, when the connection closes */
    return fts5->xCreateFunction(fts5, "memlens_bm25", lengths, memlens_bm25, free_lengths);
}
