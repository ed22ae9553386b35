/* One term's posting list, read straight from an FTS5 table's segments.
 *
 * FTS5's own ways of walking a posting list (a MATCH, or xQueryPhrase from a rank function)
 * step a cursor per row: ~0.1 us a posting. memlens_topk (memlensrank.c) needs only each row's
 * rowid and how often the term occurs in it, for every row of a few lists, so it decodes the
 * leaf pages itself (~5 ns a posting). The format is FTS5's documented on-disk one (SQLite's
 * ext/fts5/fts5_index.c, "Details"), stable since 3.9:
 *
 *   %_data id 10     the structure: a 4-byte cookie, varints nLevel, nSegment, write counter,
 *                    then per level nMerge, nSeg and per segment (oldest first) segid,
 *                    first page, last page
 *   %_data id (segid << 37) + page   a leaf: u16 offset of the first rowid that starts on it
 *                    (0: none before the first term), u16 size of the leaf (the page footer
 *                    follows: the term offsets, delta-coded varints), then terms and doclists
 *   %_idx (segid, term, pgno)   the first term of each leaf with terms; pgno = page << 1 | flag
 *
 * A term is stored with the main index's prefix byte '0'; the first term of a leaf in full,
 * later ones as (shared prefix length, new bytes). A doclist is an absolute rowid, then rowid
 * deltas, each followed by varint 2 * poslist size + delete flag and the poslist (position + 2
 * per occurrence, 0x01 + column number where a column starts). A doclist spans leaves: a leaf
 * continuing it starts with the rest of a poslist, and its first rowid is absolute again.
 *
 * A newer segment's entry for a row overrides an older one's (an entry with the delete flag
 * and no positions removes the row): segments are read newest first (level 0 first, within a
 * level the last one first) and a row already met is skipped. Anything that does not decode as
 * this format says (including the structure record of tables with contentless deletes, which
 * adds fields) is SQLITE_CORRUPT, and the caller ranks through FTS5 instead.
 */
#include "fts5_postings.h"

#include <stdlib.h>
#include <string.h>

SQLITE_EXTENSION_INIT3

#define MAX_SEGMENTS 2000             /* FTS5_MAX_SEGMENT */
#define SEGMENT_ROWID(segid, page) (((sqlite3_int64)(segid) << 37) + (sqlite3_int64)(page))

typedef struct { int segid, first, last; } Segment;

struct Fts5Postings {
    sqlite3 *db;
    char *data_table;                  /* "<table>_data" */
    sqlite3_stmt *seek;                /* the %_idx lookup */
    sqlite3_blob *blob;                /* open on the last leaf read */
    Segment *segments;                 /* newest first */
    int n_segments;
    unsigned char *page;               /* the last leaf read (zero padded) */
    int page_size, page_cap;
    unsigned char *doclist;            /* the term's doclist from one segment, leaves joined */
    sqlite3_int64 doclist_size, doclist_cap;
    sqlite3_int64 *absolute;           /* offsets in ``doclist`` where a rowid is absolute */
    int n_absolute, absolute_cap;
    unsigned char *term;               /* the leaf's term being read (its prefix shared) */
    sqlite3_int64 term_cap;
    unsigned char *key;                /* '0' and the term looked for */
    sqlite3_int64 key_cap;
    unsigned int *seen;                /* by rowid: the walk that last met the row */
    sqlite3_int64 seen_cap;
    unsigned int walk;
};

/* A SQLite varint at p (the caller guarantees 9 readable bytes: buffers are zero padded) */
static inline int get_varint(const unsigned char *p, sqlite3_uint64 *v) {
    if (p[0] < 0x80) { /* most rowid deltas and sizes */
        *v = p[0];
        return 1;
    }
    sqlite3_uint64 x = 0;
    for (int i = 0; i < 8; i++) {
        x = (x << 7) | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    *v = (x << 8) | p[8];
    return 9;
}

static int grow(void **buf, sqlite3_int64 *cap, sqlite3_int64 need, size_t item) {
    if (need <= *cap) return SQLITE_OK;
    sqlite3_int64 n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    void *grown = sqlite3_realloc64(*buf, (sqlite3_uint64)n * item);
    if (!grown) return SQLITE_NOMEM;
    *buf = grown;
    *cap = n;
    return SQLITE_OK;
}

/* Read a %_data record into reader->page (with 16 zero bytes after it) */
static int read_record(Fts5Postings *r, sqlite3_int64 id) {
    int rc = r->blob ? sqlite3_blob_reopen(r->blob, id)
                     : sqlite3_blob_open(r->db, "main", r->data_table, "block", id, 0, &r->blob);
    if (rc != SQLITE_OK) return rc == SQLITE_ERROR ? SQLITE_CORRUPT : rc; /* no such page */
    int n = sqlite3_blob_bytes(r->blob);
    sqlite3_int64 cap = r->page_cap;
    if (grow((void **)&r->page, &cap, (sqlite3_int64)n + 16, 1) != SQLITE_OK) return SQLITE_NOMEM;
    r->page_cap = (int)cap;
    rc = sqlite3_blob_read(r->blob, r->page, n, 0);
    memset(r->page + n, 0, 16);
    r->page_size = n;
    return rc;
}

static int read_structure(Fts5Postings *r) {
    int rc = read_record(r, 10);
    if (rc != SQLITE_OK) return rc;
    const unsigned char *p = r->page;
    int n = r->page_size, at = 4;
    if (n < 4 || (p[0] == 0xff && p[1] == 0 && p[2] == 0 && p[3] == 1)) return SQLITE_CORRUPT;
    sqlite3_uint64 n_level, n_segment, counter;
    at += get_varint(p + at, &n_level);
    at += get_varint(p + at, &n_segment);
    at += get_varint(p + at, &counter);
    if (n_segment > MAX_SEGMENTS || n_level > 64 || at > n) return SQLITE_CORRUPT;
    Segment *segments = sqlite3_malloc64(sizeof(Segment) * (n_segment ? n_segment : 1));
    if (!segments) return SQLITE_NOMEM;
    int filled = 0;
    for (sqlite3_uint64 level = 0; level < n_level && at <= n; level++) {
        sqlite3_uint64 merging, n_seg;
        at += get_varint(p + at, &merging);
        at += get_varint(p + at, &n_seg);
        if (n_seg > n_segment - (sqlite3_uint64)filled) break;
        /* a level lists its segments oldest first: place them newest first */
        for (sqlite3_uint64 i = 0; i < n_seg && at <= n; i++) {
            sqlite3_uint64 segid, first, last;
            at += get_varint(p + at, &segid);
            at += get_varint(p + at, &first);
            at += get_varint(p + at, &last);
            Segment *s = &segments[filled + (int)(n_seg - 1 - i)];
            s->segid = (int)segid;
            s->first = (int)first;
            s->last = (int)last;
            if (segid == 0 || segid > 0xffff || first == 0 || last > 0x7fffffff) at = n + 1;
        }
        filled += (int)n_seg;
    }
    if (at > n || (sqlite3_uint64)filled != n_segment) {
        sqlite3_free(segments);
        return SQLITE_CORRUPT;
    }
    r->segments = segments;
    r->n_segments = filled;
    return SQLITE_OK;
}

Fts5Postings *fts5_postings_open(sqlite3 *db, const char *table) {
    Fts5Postings *r = sqlite3_malloc64(sizeof(Fts5Postings));
    if (!r) return NULL;
    memset(r, 0, sizeof(*r));
    r->db = db;
    r->data_table = sqlite3_mprintf("%s_data", table);
    char *sql = sqlite3_mprintf("SELECT pgno FROM \"%w_idx\" WHERE segid = ? AND term <= ? "
                                "ORDER BY term DESC LIMIT 1", table);
    if (!r->data_table || !sql
        || sqlite3_prepare_v2(db, sql, -1, &r->seek, NULL) != SQLITE_OK) {
        sqlite3_free(sql);
        fts5_postings_close(r);
        return NULL;
    }
    sqlite3_free(sql);
    return r;
}

void fts5_postings_close(Fts5Postings *r) {
    if (!r) return;
    sqlite3_finalize(r->seek);
    if (r->blob) sqlite3_blob_close(r->blob);
    sqlite3_free(r->data_table);
    sqlite3_free(r->segments);
    sqlite3_free(r->page);
    sqlite3_free(r->doclist);
    sqlite3_free(r->absolute);
    sqlite3_free(r->seen);
    sqlite3_free(r->term);
    sqlite3_free(r->key);
    sqlite3_free(r);
}

/* The leaf where ``key`` would start in ``s`` (0: before the segment's first leaf) */
static int seek_page(Fts5Postings *r, const Segment *s, const unsigned char *key, int n_key,
                     int *page) {
    sqlite3_bind_int(r->seek, 1, s->segid);
    sqlite3_bind_blob(r->seek, 2, key, n_key, SQLITE_STATIC);
    int rc = sqlite3_step(r->seek);
    *page = s->first;
    if (rc == SQLITE_ROW) {
        sqlite3_int64 pgno = sqlite3_column_int64(r->seek, 0) >> 1;
        if (pgno > s->first) *page = (int)pgno;
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        rc = SQLITE_OK;
    }
    sqlite3_reset(r->seek);
    return rc;
}

static int append(Fts5Postings *r, const unsigned char *from, sqlite3_int64 n) {
    if (grow((void **)&r->doclist, &r->doclist_cap, r->doclist_size + n + 16, 1) != SQLITE_OK)
        return SQLITE_NOMEM;
    memcpy(r->doclist + r->doclist_size, from, (size_t)n);
    r->doclist_size += n;
    memset(r->doclist + r->doclist_size, 0, 16);
    return SQLITE_OK;
}

/* ``key``'s doclist in ``s``, leaves joined, into reader->doclist (size 0: not there) */
static int gather(Fts5Postings *r, const Segment *s, const unsigned char *key, int n_key) {
    r->doclist_size = 0;
    r->n_absolute = 0;
    int page = 0;
    int rc = seek_page(r, s, key, n_key, &page);
    if (rc != SQLITE_OK || page > s->last) return rc;
    if ((rc = read_record(r, SEGMENT_ROWID(s->segid, page))) != SQLITE_OK) return rc;
    const unsigned char *p = r->page;
    int n = r->page_size, leaf = n >= 4 ? (p[2] << 8 | p[3]) : 0;
    if (leaf < 4 || leaf > n) return SQLITE_CORRUPT;
    /* the terms on the leaf, through its footer; the term kept in ``term`` */
    int n_term = 0, footer = leaf, start = -1, end = leaf;
    sqlite3_uint64 offset = 0;
    for (int k = 0; footer < n; k++) {
        sqlite3_uint64 delta, keep = 0, fresh;
        footer += get_varint(p + footer, &delta);
        offset += delta;
        if (offset < 4 || offset >= (sqlite3_uint64)leaf) return SQLITE_CORRUPT;
        if (start >= 0) { /* the term after ours: our doclist ends here */
            end = (int)offset;
            break;
        }
        int at = (int)offset;
        if (k > 0) at += get_varint(p + at, &keep);
        at += get_varint(p + at, &fresh);
        if (keep > (sqlite3_uint64)n_term || at + fresh > (sqlite3_uint64)leaf)
            return SQLITE_CORRUPT;
        if (grow((void **)&r->term, &r->term_cap, (sqlite3_int64)(keep + fresh + 1), 1) != SQLITE_OK)
            return SQLITE_NOMEM; /* a token may be long (a pasted base64 run): never skipped */
        unsigned char *term = r->term;
        memcpy(term + keep, p + at, (size_t)fresh);
        n_term = (int)(keep + fresh);
        at += (int)fresh;
        int cmp = memcmp(r->term, key, (size_t)(n_term < n_key ? n_term : n_key));
        if (cmp == 0) cmp = n_term - n_key;
        if (cmp > 0) return SQLITE_OK; /* past it: not in this segment */
        if (cmp == 0) start = at;
    }
    if (start < 0) return SQLITE_OK;
    if ((rc = append(r, p + start, end - start)) != SQLITE_OK) return rc;
    int more = end == leaf && footer >= n; /* no term after ours on its leaf */
    while (more && page < s->last) {
        if ((rc = read_record(r, SEGMENT_ROWID(s->segid, ++page))) != SQLITE_OK) return rc;
        p = r->page;
        n = r->page_size;
        leaf = n >= 4 ? (p[2] << 8 | p[3]) : 0;
        int first_rowid = n >= 4 ? (p[0] << 8 | p[1]) : 0, stop = leaf;
        if (leaf < 4 || leaf > n) return SQLITE_CORRUPT;
        if (leaf < n) { /* a term starts on this leaf: the doclist ends before it */
            sqlite3_uint64 first_term;
            get_varint(p + leaf, &first_term);
            if (first_term < 4 || first_term > (sqlite3_uint64)leaf) return SQLITE_CORRUPT;
            stop = (int)first_term;
            more = 0;
        }
        if (first_rowid) { /* where the first rowid starting on this leaf is, absolute */
            if (first_rowid < 4 || first_rowid >= stop) return SQLITE_CORRUPT;
            sqlite3_int64 cap = r->absolute_cap;
            if (grow((void **)&r->absolute, &cap, r->n_absolute + 1,
                     sizeof(sqlite3_int64)) != SQLITE_OK)
                return SQLITE_NOMEM;
            r->absolute_cap = (int)cap;
            r->absolute[r->n_absolute++] = r->doclist_size + (first_rowid - 4);
        }
        if ((rc = append(r, p + 4, stop - 4)) != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* Whether the row was met earlier in this walk (a newer segment spoke for it); marks it */
static int met(Fts5Postings *r, sqlite3_int64 rowid, int *rc) {
    if (rowid < 0 || rowid >= FTS5_POSTINGS_MAX_ROWID) {
        *rc = SQLITE_RANGE;
        return 1;
    }
    if (rowid >= r->seen_cap) {
        sqlite3_int64 old = r->seen_cap, cap = old;
        if (grow((void **)&r->seen, &cap, rowid + 1, sizeof(unsigned int)) != SQLITE_OK) {
            *rc = SQLITE_NOMEM;
            return 1;
        }
        memset(r->seen + old, 0, sizeof(unsigned int) * (size_t)(cap - old));
        r->seen_cap = cap;
    }
    if (r->seen[rowid] == r->walk) return 1;
    r->seen[rowid] = r->walk;
    return 0;
}

/* Append each entry of reader->doclist to ``out`` unless deleted or met before */
static int decode(Fts5Postings *r, int check_seen, Fts5PostingArray *out) {
    const unsigned char *p = r->doclist;
    sqlite3_int64 n = r->doclist_size, at = 0, rowid = 0;
    int next_absolute = 0, rc = SQLITE_OK;
    /* an entry takes 2 bytes at least (a rowid and a size): room for every one */
    sqlite3_int64 cap = out->cap;
    if (grow((void **)&out->at, &cap, out->n + n / 2 + 2, sizeof(Fts5Posting)) != SQLITE_OK)
        return SQLITE_NOMEM;
    out->cap = (int)cap;
    Fts5Posting *dst = out->at + out->n;
    unsigned int max_tf = out->max_tf;
    /* the entries between two leaves' first rowids: the first of each run is absolute */
    sqlite3_int64 run_end = r->n_absolute ? r->absolute[0] : n;
    while (at < n) {
        sqlite3_uint64 v, size;
        int absolute = at == 0;
        if (at == run_end) {
            absolute = 1;
            next_absolute++;
            run_end = next_absolute < r->n_absolute ? r->absolute[next_absolute] : n;
        }
        at += get_varint(p + at, &v);
        rowid = absolute ? (sqlite3_int64)v : rowid + (sqlite3_int64)v;
        at += get_varint(p + at, &size);
        sqlite3_int64 end = at + (sqlite3_int64)(size >> 1);
        if (end > n) return SQLITE_CORRUPT;
        unsigned int tf;
        if (end - at == 1) { /* one position of one byte: most postings */
            tf = 1;
            at = end;
        } else if (end - at == 2 && p[at] != 0x01) { /* two positions, or one of two bytes */
            tf = p[at] & 0x80 ? 1 : 2;
            at = end;
        } else {
            tf = 0;
            while (at < end) { /* count the positions: varints, less each column's 0x01 + number */
                unsigned char c = p[at++];
                if (c == 0x01) { /* a column starts: skip its number */
                    while (p[at++] & 0x80) {}
                    continue;
                }
                tf++;
                while (c & 0x80) c = p[at++];
            }
        }
        if (at != end || at > run_end) return SQLITE_CORRUPT; /* out of step with the leaves */
        if (rowid < 0 || rowid >= FTS5_POSTINGS_MAX_ROWID) return SQLITE_RANGE;
        if (check_seen && met(r, rowid, &rc)) {
            if (rc != SQLITE_OK) return rc;
            continue;
        }
        if (tf == 0) continue; /* deleted here */
        if (tf > 0xffff) tf = 0xffff;
        *dst++ = (Fts5Posting){(unsigned int)rowid, tf};
        if (tf > max_tf) max_tf = tf;
    }
    out->n = (int)(dst - out->at);
    out->max_tf = max_tf;
    return next_absolute == r->n_absolute ? SQLITE_OK : SQLITE_CORRUPT;
}

static int by_rowid(const void *a, const void *b) {
    unsigned int x = ((const Fts5Posting *)a)->rowid, y = ((const Fts5Posting *)b)->rowid;
    return x < y ? -1 : x > y;
}

int fts5_postings_read(Fts5Postings *r, const char *term, int n, Fts5PostingArray *out) {
    int rc = SQLITE_OK;
    if (!r->segments && (rc = read_structure(r)) != SQLITE_OK) return rc;
    if (n < 0) return SQLITE_CORRUPT;
    if (grow((void **)&r->key, &r->key_cap, (sqlite3_int64)n + 1, 1) != SQLITE_OK)
        return SQLITE_NOMEM;
    unsigned char *key = r->key;
    key[0] = '0'; /* the main index's prefix */
    memcpy(key + 1, term, (size_t)n);
    if (++r->walk == 0) { /* the marks wrapped: forget them all */
        if (r->seen) memset(r->seen, 0, sizeof(unsigned int) * (size_t)r->seen_cap);
        r->walk = 1;
    }
    int first = out->n, read = 0;
    for (int i = 0; rc == SQLITE_OK && i < r->n_segments; i++) {
        rc = gather(r, &r->segments[i], key, n + 1);
        if (rc == SQLITE_OK && r->doclist_size) {
            rc = decode(r, r->n_segments > 1, out);
            read++;
        }
    }
    if (rc == SQLITE_OK && read > 1) /* each segment's rows came in order, not all together */
        qsort(out->at + first, (size_t)(out->n - first), sizeof(Fts5Posting), by_rowid);
    return rc;
}
