/* Passage evidence's text scans and scoring as compiled loops (engine/retrieval/passages.py
 * wraps them).
 *
 * Passage evidence reads ~150 chat windows a query (the arm's chat hits and their neighbours):
 * where each message starts, how many words it has, which of its words could stem to a query
 * word, and then the best passage of each hit. One call scans every window, one scores every
 * passage: called per window, the ~450 calls and the dicts they built cost ~2 ms of the arm's
 * ~8 ms at 500k chunks (docs/benchmarks.md). Each function gives exactly what the Python it
 * replaces gives, which stays as the fallback and is compared with it by
 * tests/search/test_passages_compiled.py:
 *
 *   message_starts(content) -> list[int]
 *       the offsets ``^\[\d{4}-\d\d-\d\d \d\d:\d\d\] `` matches at (re.M), [] unless the
 *       first is 0
 *   message_words(content, starts, heads, read_start, read_end) -> (lengths, hits) | None
 *       each message's length (spaces + 1) and (message index, lower-cased word) for every
 *       word starting with a head, read in the first ``read_start`` and last ``read_end``
 *       messages (read_start < 0: all of them); None when lower-casing a span changes its
 *       length (the caller's regex path handles that text)
 *   scan_windows(contents, reads, heads, fallback) -> (scan, words)   (below)
 *   scan_passages(scan, tokens, weights, jobs, k1, b, passage) -> list[float | None]  (below)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#define STAMP 19 /* "[YYYY-MM-DD HH:MM] " */

static int is_stamp(int kind, const void *data, Py_ssize_t at, Py_ssize_t len) {
    static const char shape[STAMP + 1] = "[dddd-dd-dd dd:dd] ";
    if (len - at < STAMP)
        return 0;
    for (int i = 0; i < STAMP; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, at + i);
        if (shape[i] == 'd') { /* what \d matches in a str pattern */
            if (ch < 128 ? ch < '0' || ch > '9' : !Py_UNICODE_ISDECIMAL(ch))
                return 0;
        } else if (ch != (Py_UCS4)shape[i]) {
            return 0;
        }
    }
    return 1;
}

static int grow(void **array, Py_ssize_t *cap, Py_ssize_t need, size_t size) {
    if (need <= *cap)
        return 0;
    Py_ssize_t grown = *cap ? *cap : 16;
    while (grown < need)
        grown *= 2;
    void *more = PyMem_Realloc(*array, (size_t)grown * size);
    if (more == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *array = more;
    *cap = grown;
    return 0;
}

/* Where the messages of ``content`` start, into ``*out`` (the caller frees it): how many, 0
 * when the text is not laid out as messages, -1 on error. */
static Py_ssize_t find_starts(PyObject *content, Py_ssize_t **out) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(content), n = 0, cap = 0;
    int kind = PyUnicode_KIND(content);
    const void *data = PyUnicode_DATA(content);
    *out = NULL;
    if (!is_stamp(kind, data, 0, len))
        return 0;
    if (grow((void **)out, &cap, 1, sizeof(Py_ssize_t)) < 0)
        return -1;
    (*out)[n++] = 0;
    if (kind == PyUnicode_1BYTE_KIND) { /* the usual text: jump from newline to newline */
        const char *s = data, *p = s + STAMP;
        while ((p = memchr(p, '\n', (size_t)(s + len - p))) != NULL) {
            Py_ssize_t at = ++p - s;
            if (is_stamp(kind, data, at, len)) {
                if (grow((void **)out, &cap, n + 1, sizeof(Py_ssize_t)) < 0)
                    return -1;
                (*out)[n++] = at;
            }
        }
        return n;
    }
    /* a stamp holds no newline: the next can start after it */
    for (Py_ssize_t at = STAMP; at < len; at++) {
        if (PyUnicode_READ(kind, data, at - 1) == '\n' && is_stamp(kind, data, at, len)) {
            if (grow((void **)out, &cap, n + 1, sizeof(Py_ssize_t)) < 0)
                return -1;
            (*out)[n++] = at;
            at += STAMP - 1;
        }
    }
    return n;
}

/* A list of the ``n`` numbers, or NULL on error. */
static PyObject *number_list(const Py_ssize_t *values, Py_ssize_t n) {
    PyObject *out = PyList_New(n);
    for (Py_ssize_t i = 0; out != NULL && i < n; i++) {
        PyObject *value = PyLong_FromSsize_t(values[i]);
        if (value == NULL)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, value);
    }
    return out;
}

static PyObject *message_starts(PyObject *self, PyObject *content) {
    (void)self;
    if (!PyUnicode_Check(content)) {
        PyErr_SetString(PyExc_TypeError, "message_starts() takes a str");
        return NULL;
    }
    Py_ssize_t *starts;
    Py_ssize_t n = find_starts(content, &starts);
    PyObject *out = n < 0 ? NULL : number_list(starts, n);
    PyMem_Free(starts);
    return out;
}

/* Each message's length in words: its spaces + 1 (one loop per character width). */
#define COUNT_SPACES(T)                                                                        \
    for (Py_ssize_t i = 0; i < n; i++) {                                                       \
        const T *s = data;                                                                     \
        Py_ssize_t spaces = 0, end = i + 1 < n ? starts[i + 1] : len;                          \
        for (Py_ssize_t at = starts[i]; at < end; at++)                                        \
            spaces += s[at] == ' ';                                                            \
        lengths[i] = spaces + 1;                                                               \
    }

static void message_lengths(PyObject *content, const Py_ssize_t *starts, Py_ssize_t n,
                            Py_ssize_t *lengths) {
    const void *data = PyUnicode_DATA(content);
    Py_ssize_t len = PyUnicode_GET_LENGTH(content);
    switch (PyUnicode_KIND(content)) {
    case PyUnicode_1BYTE_KIND:
        COUNT_SPACES(Py_UCS1)
        break;
    case PyUnicode_2BYTE_KIND:
        COUNT_SPACES(Py_UCS2)
        break;
    default:
        COUNT_SPACES(Py_UCS4)
    }
}

typedef struct {
    Py_ssize_t at;  /* offset in the span's lower-cased text */
    Py_ssize_t end; /* end of the word there */
} Hit;

static inline int is_word(Py_UCS4 ch) {
    if (ch < 128) /* the common case, without the Unicode database's lookups */
        return (ch >= '0' && ch <= '9') || ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z')
               || ch == '_';
    return Py_UNICODE_ISALNUM(ch);
}

static inline Py_UCS1 ascii_lower(Py_UCS1 ch) {
    return ch >= 'A' && ch <= 'Z' ? (Py_UCS1)(ch + ('a' - 'A')) : ch;
}

/* Whether ``head`` is at ``at`` in ``data``. */
static int head_at(PyObject *head, int kind, const void *data, Py_ssize_t at, Py_ssize_t len) {
    Py_ssize_t size = PyUnicode_GET_LENGTH(head);
    if (size == 0 || size > len - at)
        return 0;
    int hkind = PyUnicode_KIND(head);
    const void *hdata = PyUnicode_DATA(head);
    for (Py_ssize_t k = 0; k < size; k++) {
        if (PyUnicode_READ(kind, data, at + k) != PyUnicode_READ(hkind, hdata, k))
            return 0;
    }
    return 1;
}

static int add_hit(Hit **hits, Py_ssize_t *n, Py_ssize_t *cap, Py_ssize_t at, Py_ssize_t end) {
    if (grow((void **)hits, cap, *n + 1, sizeof(Hit)) < 0)
        return -1;
    (*hits)[*n].at = at;
    (*hits)[*n].end = end;
    (*n)++;
    return 0;
}

/* Whether every head is ASCII (a query of English words): then text that is not ASCII can
 * still be scanned without a lower-cased copy (in_place_hits). */
static int ascii_heads(PyObject *heads) {
    for (Py_ssize_t h = 0; h < PyTuple_GET_SIZE(heads); h++)
        if (!PyUnicode_IS_ASCII(PyTuple_GET_ITEM(heads, h)))
            return 0;
    return 1;
}

/* Whether str.lower() changes a character's length or maps it into ASCII: only U+0130 (İ, to
 * two characters) and U+212A (the Kelvin sign, to "k"), as tests/search/
 * test_passages_compiled.py checks against this Python's Unicode tables. */
#define LOWER_SPECIAL(ch) ((ch) == 0x130 || (ch) == 0x212A)

/* The words starting with a head in text[a:b] read in place, lower-cased as str.lower() would:
 * a head (ASCII) can only start at an ASCII character, and lower-casing keeps every character
 * a word character or not, unless LOWER_SPECIAL. Word by word: a word start is checked
 * against the heads' first letters, the rest of the word skipped. Only the ASCII heads are
 * looked for (ASCII text holds no other). -2 when the span holds a LOWER_SPECIAL character or
 * a found word one that is not ASCII (its lower case needs str.lower(): the caller's copy
 * serves). One function per character width: the loop reads the text without a switch. */
#define IN_PLACE_HITS(NAME, T)                                                                 \
    static Py_ssize_t NAME(const T *s, Py_ssize_t a, Py_ssize_t b, PyObject *heads,            \
                           Hit **hits, Py_ssize_t *cap) {                                      \
        Py_ssize_t n = 0, n_heads = PyTuple_GET_SIZE(heads);                                   \
        unsigned char first[128] = {0};                                                        \
        for (Py_ssize_t h = 0; h < n_heads; h++) {                                             \
            PyObject *head = PyTuple_GET_ITEM(heads, h);                                       \
            if (PyUnicode_IS_ASCII(head) && PyUnicode_GET_LENGTH(head) > 0)                    \
                first[PyUnicode_1BYTE_DATA(head)[0]] = 1;                                      \
        }                                                                                      \
        for (Py_ssize_t at = a; at < b; at++) { /* at == a, or s[at - 1] is no word char */    \
            Py_UCS4 ch = s[at];                                                                \
            if (ch < 128 && first[ascii_lower((Py_UCS1)ch)]) {                                 \
                Py_ssize_t h = 0;                                                              \
                for (; h < n_heads; h++) {                                                     \
                    PyObject *head = PyTuple_GET_ITEM(heads, h);                               \
                    Py_ssize_t size = PyUnicode_GET_LENGTH(head), k = 0;                       \
                    if (!PyUnicode_IS_ASCII(head) || size == 0 || size > b - at)               \
                        continue;                                                              \
                    const Py_UCS1 *hd = PyUnicode_1BYTE_DATA(head);                            \
                    while (k < size && s[at + k] < 128                                         \
                           && ascii_lower((Py_UCS1)s[at + k]) == hd[k])                        \
                        k++;                                                                   \
                    if (k == size)                                                             \
                        break;                                                                 \
                }                                                                              \
                if (h < n_heads) {                                                             \
                    Py_ssize_t end = at;                                                       \
                    for (; end < b && is_word(s[end]); end++)                                  \
                        if (s[end] >= 128)                                                     \
                            return -2;                                                         \
                    if (add_hit(hits, &n, cap, at, end) < 0)                                   \
                        return -1;                                                             \
                }                                                                              \
            }                                                                                  \
            if (sizeof(T) > 1 && LOWER_SPECIAL(ch))                                            \
                return -2;                                                                     \
            if (is_word(ch)) { /* past the word and the character after it */                  \
                for (; at + 1 < b && is_word(s[at + 1]); at++)                                 \
                    if (sizeof(T) > 1 && LOWER_SPECIAL(s[at + 1]))                             \
                        return -2;                                                             \
                at++;                                                                          \
                if (sizeof(T) > 1 && at < b && LOWER_SPECIAL(s[at]))                           \
                    return -2;                                                                 \
            }                                                                                  \
        }                                                                                      \
        return n;                                                                              \
    }

IN_PLACE_HITS(in_place_hits_1, Py_UCS1)
IN_PLACE_HITS(in_place_hits_2, Py_UCS2)
IN_PLACE_HITS(in_place_hits_4, Py_UCS4)

static Py_ssize_t in_place_hits(PyObject *text, Py_ssize_t a, Py_ssize_t b, PyObject *heads,
                                Hit **hits, Py_ssize_t *cap) {
    switch (PyUnicode_KIND(text)) {
    case PyUnicode_1BYTE_KIND:
        return in_place_hits_1(PyUnicode_1BYTE_DATA(text), a, b, heads, hits, cap);
    case PyUnicode_2BYTE_KIND:
        return in_place_hits_2(PyUnicode_2BYTE_DATA(text), a, b, heads, hits, cap);
    default:
        return in_place_hits_4(PyUnicode_4BYTE_DATA(text), a, b, heads, hits, cap);
    }
}

/* The words starting with a head, in offset order: where word_hits (engine/retrieval/
 * passages.py) finds a head with no word character before it, the word characters from
 * there; ``text``: lower-cased already. -1 on error. */
static Py_ssize_t span_hits(PyObject *text, Py_ssize_t a, Py_ssize_t b, PyObject *heads,
                            Hit **hits, Py_ssize_t *cap) {
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t n = 0, n_heads = PyTuple_GET_SIZE(heads);
    Py_UCS4 *firsts = PyMem_Malloc((size_t)(n_heads + 1) * sizeof(Py_UCS4));
    if (firsts == NULL) { /* each head's first letter: most places fail on it */
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t h = 0; h < n_heads; h++) {
        PyObject *head = PyTuple_GET_ITEM(heads, h);
        firsts[h] = PyUnicode_GET_LENGTH(head) ? PyUnicode_READ_CHAR(head, 0) : (Py_UCS4)-1;
    }
    for (Py_ssize_t at = a; at < b; at++) {
        if (at > a && is_word(PyUnicode_READ(kind, data, at - 1)))
            continue;
        Py_UCS4 first = PyUnicode_READ(kind, data, at);
        Py_ssize_t h = 0;
        while (h < n_heads && (firsts[h] != first
                               || !head_at(PyTuple_GET_ITEM(heads, h), kind, data, at, b)))
            h++;
        if (h == n_heads)
            continue;
        Py_ssize_t end = at;
        while (end < b && is_word(PyUnicode_READ(kind, data, end)))
            end++;
        if (add_hit(hits, &n, cap, at, end) < 0) {
            PyMem_Free(firsts);
            return -1;
        }
    }
    PyMem_Free(firsts);
    return n;
}

/* Where a span's words go: (message index, lower-cased word, a new reference the sink takes). */
typedef int (*Sink)(void *into, Py_ssize_t msg, PyObject *word);

/* Hand (message index, word) for the words of content[a:b] to ``sink``; 1 done, 0 when
 * lower-casing changes the span's length, -1 on error. ``msg``: the message index, moved
 * forward. */
static int read_span(PyObject *content, Py_ssize_t a, Py_ssize_t b, PyObject *heads,
                     const Py_ssize_t *starts, Py_ssize_t n_starts, Py_ssize_t *msg,
                     Sink sink, void *into, Hit **hits, Py_ssize_t *cap) {
    /* ASCII text (lower() maps only A-Z) is read in place, and so is other text where the
     * heads and the words found are ASCII; else the span is lower-cased first, as word_hits
     * does, and left to it when that changes the length */
    PyObject *text = content;
    Py_ssize_t from = a, n = -2;
    if (PyUnicode_IS_ASCII(content) || ascii_heads(heads))
        n = in_place_hits(content, a, b, heads, hits, cap);
    if (n == -1)
        return -1;
    int copied = n == -2;
    if (copied) {
        PyObject *span = PyUnicode_Substring(content, a, b);
        if (span == NULL)
            return -1;
        text = PyObject_CallMethod(span, "lower", NULL);
        Py_DECREF(span);
        if (text == NULL)
            return -1;
        if (PyUnicode_GET_LENGTH(text) != b - a) {
            Py_DECREF(text);
            return 0;
        }
        from = 0;
        n = span_hits(text, 0, b - a, heads, hits, cap);
    }
    int rc = n < 0 ? -1 : 1;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n && rc == 1; i++) {
        Py_ssize_t at = (*hits)[i].at, end = (*hits)[i].end;
        Py_ssize_t offset = a + at - from;
        while (*msg + 1 < n_starts && starts[*msg + 1] <= offset) /* bisect_right - 1 */
            (*msg)++;
        PyObject *word;
        if (copied) {
            word = PyUnicode_Substring(text, at, end);
        } else { /* an ASCII word, lower-cased */
            word = PyUnicode_New(end - at, 127);
            if (word != NULL) {
                Py_UCS1 *into_word = PyUnicode_1BYTE_DATA(word);
                for (Py_ssize_t j = at; j < end; j++)
                    into_word[j - at] = ascii_lower((Py_UCS1)PyUnicode_READ(kind, data, j));
            }
        }
        if (word == NULL || sink(into, *msg, word) < 0)
            rc = -1;
    }
    if (copied)
        Py_DECREF(text);
    return rc;
}

/* Read a chat window's words: its spans (all of it, or the first ``read_start`` and last
 * ``read_end`` messages) through read_span; what read_span answers. */
static int read_window(PyObject *content, const Py_ssize_t *starts, Py_ssize_t n,
                       Py_ssize_t read_start, Py_ssize_t read_end, PyObject *heads, Sink sink,
                       void *into, Hit **hits, Py_ssize_t *cap) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(content), spans[2][2], msg = 0;
    int n_spans = 0;
    if (read_start < 0 || read_start + read_end >= n) {
        spans[n_spans][0] = 0;
        spans[n_spans++][1] = len;
    } else {
        if (read_start > 0) {
            spans[n_spans][0] = 0;
            spans[n_spans++][1] = starts[read_start];
        }
        if (read_end > 0) {
            spans[n_spans][0] = starts[n - read_end];
            spans[n_spans++][1] = len;
        }
    }
    for (int s = 0; s < n_spans; s++) {
        int rc = read_span(content, spans[s][0], spans[s][1], heads, starts, n, &msg, sink,
                           into, hits, cap);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

static int heads_are_str(PyObject *heads) {
    for (Py_ssize_t h = 0; h < PyTuple_GET_SIZE(heads); h++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(heads, h))) {
            PyErr_SetString(PyExc_TypeError, "heads must be str");
            return 0;
        }
    }
    return 1;
}

static int append_pair(void *into, Py_ssize_t msg, PyObject *word) {
    PyObject *pair = Py_BuildValue("(nN)", msg, word);
    int rc = pair == NULL ? -1 : PyList_Append((PyObject *)into, pair);
    Py_XDECREF(pair);
    return rc;
}

static PyObject *message_words(PyObject *self, PyObject *args) {
    PyObject *content, *starts_list, *heads;
    Py_ssize_t read_start, read_end;
    (void)self;
    if (!PyArg_ParseTuple(args, "UO!O!nn", &content, &PyList_Type, &starts_list, &PyTuple_Type,
                          &heads, &read_start, &read_end) || !heads_are_str(heads))
        return NULL;
    Py_ssize_t len = PyUnicode_GET_LENGTH(content), n = PyList_GET_SIZE(starts_list);
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "starts is empty");
        return NULL;
    }
    Py_ssize_t *starts = PyMem_Malloc((size_t)(2 * n) * sizeof(Py_ssize_t));
    if (starts == NULL)
        return PyErr_NoMemory();
    Py_ssize_t *counts = starts + n;
    for (Py_ssize_t i = 0; i < n; i++) {
        starts[i] = PyLong_AsSsize_t(PyList_GET_ITEM(starts_list, i));
        if ((starts[i] == -1 && PyErr_Occurred()) || starts[i] < 0 || starts[i] > len
            || (i == 0 && starts[i] != 0) || (i > 0 && starts[i] < starts[i - 1])) {
            PyMem_Free(starts);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "starts must begin at 0 and rise within the text");
            return NULL;
        }
    }
    message_lengths(content, starts, n, counts);
    PyObject *lengths = number_list(counts, n), *hits = PyList_New(0), *result = NULL;
    Hit *buffer = NULL;
    Py_ssize_t cap = 0;
    if (lengths != NULL && hits != NULL) {
        int rc = read_window(content, starts, n, read_start, read_end, heads, append_pair, hits,
                             &buffer, &cap);
        result = rc < 0 ? NULL : rc == 0 ? Py_NewRef(Py_None) : PyTuple_Pack(2, lengths, hits);
    }
    PyMem_Free(starts);
    PyMem_Free(buffer);
    Py_XDECREF(lengths);
    Py_XDECREF(hits);
    return result;
}

/* ---- the whole stage: scan_windows, then scan_passages ----------------------------------- */

typedef struct {
    Py_ssize_t n_msgs;   /* 0: not laid out as messages (no passage, no lengths) */
    Py_ssize_t *lengths; /* words per message */
    Py_ssize_t n_hits, cap_hits;
    Py_ssize_t *hit_msg;  /* the message a word is in, rising */
    Py_ssize_t *hit_word; /* the word, as its index in the scan's words */
    Py_ssize_t cap_words;
} Window;

typedef struct {
    Py_ssize_t n;
    Window *windows;
    PyObject *words; /* the distinct words found, a list */
    PyObject *index; /* word -> its index in ``words`` */
} Scan;

#define SCAN_CAPSULE "memlens._passages.scan"

static void free_scan(Scan *scan) {
    if (scan == NULL)
        return;
    for (Py_ssize_t i = 0; scan->windows != NULL && i < scan->n; i++) {
        PyMem_Free(scan->windows[i].lengths);
        PyMem_Free(scan->windows[i].hit_msg);
        PyMem_Free(scan->windows[i].hit_word);
    }
    PyMem_Free(scan->windows);
    Py_XDECREF(scan->words);
    Py_XDECREF(scan->index);
    PyMem_Free(scan);
}

static void scan_capsule_free(PyObject *capsule) {
    free_scan(PyCapsule_GetPointer(capsule, SCAN_CAPSULE));
}

typedef struct {
    Scan *scan;
    Window *window;
} ScanSink;

/* A window's word, kept as the index of its text among the scan's distinct words. */
static int keep_word(void *into, Py_ssize_t msg, PyObject *word) {
    ScanSink *to = into;
    Window *w = to->window;
    PyObject *known = PyDict_GetItemWithError(to->scan->index, word);
    Py_ssize_t index;
    if (known != NULL) {
        index = PyLong_AsSsize_t(known);
    } else if (PyErr_Occurred()) {
        index = -1;
    } else {
        index = PyList_GET_SIZE(to->scan->words);
        PyObject *number = PyLong_FromSsize_t(index);
        if (number == NULL || PyList_Append(to->scan->words, word) < 0
            || PyDict_SetItem(to->scan->index, word, number) < 0)
            index = -1;
        Py_XDECREF(number);
    }
    Py_DECREF(word);
    if (index < 0 || grow((void **)&w->hit_msg, &w->cap_hits, w->n_hits + 1,
                          sizeof(Py_ssize_t)) < 0
        || grow((void **)&w->hit_word, &w->cap_words, w->n_hits + 1, sizeof(Py_ssize_t)) < 0)
        return -1;
    w->hit_msg[w->n_hits] = msg;
    w->hit_word[w->n_hits++] = index;
    return 0;
}

/* A window whose lower case changes length, read by ``fallback`` (passages.python_message_words:
 * the regex word_hits uses for such text): its words kept as read_window would keep them. */
static int read_by_fallback(PyObject *fallback, PyObject *content, const Py_ssize_t *starts,
                            Py_ssize_t n_msgs, Py_ssize_t read_start, Py_ssize_t read_end,
                            PyObject *heads, ScanSink *into) {
    PyObject *starts_list = number_list(starts, n_msgs), *got = NULL;
    PyObject *read = read_start < 0 ? Py_NewRef(Py_None)
                                    : Py_BuildValue("(nn)", read_start, read_end);
    if (starts_list != NULL && read != NULL)
        got = PyObject_CallFunctionObjArgs(fallback, content, starts_list, heads, read, NULL);
    Py_XDECREF(starts_list);
    Py_XDECREF(read);
    if (got == NULL)
        return -1;
    PyObject *hits = PyTuple_Check(got) && PyTuple_GET_SIZE(got) == 2 ? PyTuple_GET_ITEM(got, 1)
                                                                     : NULL;
    int rc = hits != NULL && PyList_Check(hits) ? 0 : -1;
    if (rc < 0)
        PyErr_SetString(PyExc_TypeError, "scan_windows(): the fallback gives (lengths, hits)");
    into->window->n_hits = 0; /* what the compiled scan kept before it gave up */
    for (Py_ssize_t h = 0; rc == 0 && h < PyList_GET_SIZE(hits); h++) {
        PyObject *hit = PyList_GET_ITEM(hits, h);
        Py_ssize_t msg = -1;
        PyObject *word = NULL;
        if (PyTuple_Check(hit) && PyTuple_GET_SIZE(hit) == 2) {
            msg = PyLong_AsSsize_t(PyTuple_GET_ITEM(hit, 0));
            word = PyTuple_GET_ITEM(hit, 1);
        }
        Window *w = into->window;
        if (msg < 0 || msg >= n_msgs || word == NULL || !PyUnicode_Check(word)
            || (w->n_hits && msg < w->hit_msg[w->n_hits - 1])) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError,
                                "scan_windows(): the fallback's hits are (message, word), rising");
            rc = -1;
        } else {
            rc = keep_word(into, msg, Py_NewRef(word));
        }
    }
    Py_DECREF(got);
    return rc;
}

/* scan_windows(contents, reads, heads, fallback) -> (scan, words)
 *
 * Every window's messages, their lengths and the words starting with a head, as message_words
 * reads them with (read_start, read_end) = reads[i]; a window whose lower case changes length
 * (Turkish İ) is read by ``fallback(content, starts, heads, read)``, the Python scan, alone.
 * ``words``: the distinct words found (to be tokenized by the caller), ``scan``: an opaque
 * object for scan_passages. */
static PyObject *scan_windows(PyObject *self, PyObject *args) {
    PyObject *contents, *reads, *heads, *fallback;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O", &PyList_Type, &contents, &PyList_Type, &reads,
                          &PyTuple_Type, &heads, &fallback) || !heads_are_str(heads))
        return NULL;
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "scan_windows(): the fallback must be callable");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(contents);
    if (PyList_GET_SIZE(reads) != n) {
        PyErr_SetString(PyExc_ValueError, "scan_windows(): one read per content");
        return NULL;
    }
    Scan *scan = PyMem_Calloc(1, sizeof(Scan));
    if (scan == NULL)
        return PyErr_NoMemory();
    scan->n = n;
    scan->windows = PyMem_Calloc((size_t)n + 1, sizeof(Window));
    scan->words = PyList_New(0);
    scan->index = PyDict_New();
    Hit *buffer = NULL;
    Py_ssize_t cap = 0;
    PyObject *result = NULL;
    if (scan->windows == NULL || scan->words == NULL || scan->index == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *content = PyList_GET_ITEM(contents, i);
        Py_ssize_t read_start, read_end, *starts;
        if (!PyUnicode_Check(content)) {
            PyErr_SetString(PyExc_TypeError, "scan_windows(): contents must be str");
            goto done;
        }
        if (!PyArg_ParseTuple(PyList_GET_ITEM(reads, i), "nn", &read_start, &read_end))
            goto done;
        Window *w = &scan->windows[i];
        Py_ssize_t n_msgs = find_starts(content, &starts);
        if (n_msgs < 0)
            goto done;
        if (n_msgs == 0)
            continue;
        w->n_msgs = n_msgs;
        w->lengths = PyMem_Malloc((size_t)n_msgs * sizeof(Py_ssize_t));
        if (w->lengths == NULL) {
            PyMem_Free(starts);
            PyErr_NoMemory();
            goto done;
        }
        message_lengths(content, starts, n_msgs, w->lengths);
        ScanSink into = {scan, w};
        int rc = read_window(content, starts, n_msgs, read_start, read_end, heads, keep_word,
                             &into, &buffer, &cap);
        if (rc == 0)
            rc = read_by_fallback(fallback, content, starts, n_msgs, read_start, read_end, heads,
                                  &into);
        PyMem_Free(starts);
        if (rc < 0)
            goto done;
    }
    PyObject *capsule = PyCapsule_New(scan, SCAN_CAPSULE, scan_capsule_free);
    if (capsule == NULL)
        goto done;
    PyObject *words = Py_NewRef(scan->words);
    scan = NULL; /* the capsule owns it */
    result = Py_BuildValue("(NN)", capsule, words);
done:
    PyMem_Free(buffer);
    free_scan(scan);
    return result;
}

/* A window's query stems per message, in first-seen order: message m's are entries
 * off[m] .. off[m + 1] - 1 of (stem, count). */
typedef struct {
    Py_ssize_t *off;
    Py_ssize_t *stem;
    Py_ssize_t *count;
} WindowTfs;

/* The query stems (indexes into the weights) each distinct word's tokens are, in token order:
 * word j's are stems[off[j]] .. stems[off[j + 1] - 1]. 0, or -1 on error. */
static int word_stems(PyObject *words, PyObject *tokens, PyObject *position,
                      Py_ssize_t **off, Py_ssize_t **stems) {
    Py_ssize_t n = PyList_GET_SIZE(words), size = 0, cap = 0;
    *stems = NULL;
    *off = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (*off == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        PyObject *word = PyList_GET_ITEM(words, j);
        PyObject *made = PyDict_GetItemWithError(tokens, word);
        if (made == NULL) {
            if (!PyErr_Occurred())
                PyErr_SetObject(PyExc_KeyError, word);
            return -1;
        }
        PyObject *seq = PySequence_Fast(made, "scan_passages(): tokens are a sequence");
        if (seq == NULL)
            return -1;
        (*off)[j] = size;
        for (Py_ssize_t t = 0; t < PySequence_Fast_GET_SIZE(seq); t++) {
            PyObject *at = PyDict_GetItemWithError(position, PySequence_Fast_GET_ITEM(seq, t));
            if (at == NULL && PyErr_Occurred()) {
                Py_DECREF(seq);
                return -1;
            }
            if (at == NULL) /* a token that is no query stem */
                continue;
            if (grow((void **)stems, &cap, size + 1, sizeof(Py_ssize_t)) < 0) {
                Py_DECREF(seq);
                return -1;
            }
            (*stems)[size++] = PyLong_AsSsize_t(at);
        }
        Py_DECREF(seq);
    }
    (*off)[n] = size;
    return 0;
}

/* Count each message's query stems, as python_message_tfs's dicts do. 0, or -1 on error. */
static int window_tfs(const Window *w, const Py_ssize_t *off, const Py_ssize_t *stems,
                      WindowTfs *tfs) {
    Py_ssize_t most = 0;
    for (Py_ssize_t h = 0; h < w->n_hits; h++)
        most += off[w->hit_word[h] + 1] - off[w->hit_word[h]];
    tfs->off = PyMem_Malloc((size_t)(w->n_msgs + 1) * sizeof(Py_ssize_t));
    tfs->stem = PyMem_Malloc((size_t)(most + 1) * sizeof(Py_ssize_t));
    tfs->count = PyMem_Malloc((size_t)(most + 1) * sizeof(Py_ssize_t));
    if (tfs->off == NULL || tfs->stem == NULL || tfs->count == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t e = 0, h = 0;
    for (Py_ssize_t m = 0; m < w->n_msgs; m++) {
        tfs->off[m] = e;
        for (; h < w->n_hits && w->hit_msg[h] == m; h++) {
            Py_ssize_t word = w->hit_word[h];
            for (Py_ssize_t k = off[word]; k < off[word + 1]; k++) {
                Py_ssize_t t = tfs->off[m];
                while (t < e && tfs->stem[t] != stems[k])
                    t++;
                if (t == e) {
                    tfs->stem[e] = stems[k];
                    tfs->count[e++] = 0;
                }
                tfs->count[t]++;
            }
        }
    }
    tfs->off[w->n_msgs] = e;
    return 0;
}

typedef struct {
    Py_ssize_t window, msg;
} Message;

/* The best BM25 of the ``passage`` consecutive messages of ``seq`` centred on seq[first] ...
 * seq[first + count - 1], as python_best_passage computes it: term by term in first-seen
 * order, so the floats are equal. ``slot``: -1 for every stem (left so); ``order``,
 * ``counts``: room for every stem. */
static double best_passage(const Message *seq, Py_ssize_t size, Py_ssize_t first,
                           Py_ssize_t count, Py_ssize_t passage, const Scan *scan,
                           const WindowTfs *tfs, const double *idf, double mean, double k1,
                           double b, Py_ssize_t *slot, Py_ssize_t *order, Py_ssize_t *counts) {
    Py_ssize_t half = passage / 2;
    double best = 0.0;
    for (Py_ssize_t c = first; c < first + count; c++) {
        Py_ssize_t lo = c - half > 0 ? c - half : 0;
        Py_ssize_t hi = lo + passage < size ? lo + passage : size;
        Py_ssize_t n_terms = 0, length = 0;
        for (Py_ssize_t m = lo; m < hi; m++) {
            const WindowTfs *tf = &tfs[seq[m].window];
            length += scan->windows[seq[m].window].lengths[seq[m].msg];
            for (Py_ssize_t e = tf->off[seq[m].msg]; e < tf->off[seq[m].msg + 1]; e++) {
                Py_ssize_t s = tf->stem[e];
                if (slot[s] < 0) {
                    slot[s] = n_terms;
                    order[n_terms] = s;
                    counts[n_terms++] = 0;
                }
                counts[slot[s]] += tf->count[e];
            }
        }
        if (n_terms == 0)
            continue;
        double norm = k1 * (1.0 - b + b * (double)length / (mean != 0.0 ? mean : 1.0));
        double score = 0.0;
        for (Py_ssize_t t = 0; t < n_terms; t++) {
            double n = (double)counts[t];
            score += idf[order[t]] * n * (k1 + 1.0) / (n + norm);
            slot[order[t]] = -1;
        }
        if (score > best)
            best = score;
    }
    return best;
}

/* scan_passages(scan, tokens, weights, jobs, k1, b, passage) -> list[float | None]
 *
 * ``tokens``: each of the scan's words -> the tokens the index makes of it; ``weights``:
 * query stem -> idf; each job (before, own, after) names windows of the scan by position
 * (-1: none). A job's passages run over the last passage // 2 messages of ``before``, the
 * messages of ``own`` and the first passage // 2 of ``after``, centred on each of own's; its
 * answer is the best one's BM25 (None when ``own`` is not laid out as messages), with the
 * mean passage length taken over every window scanned: what passages.python_passage_scores
 * computes. */
static PyObject *scan_passages(PyObject *self, PyObject *args) {
    PyObject *capsule, *tokens, *weights, *jobs;
    double k1, b;
    Py_ssize_t passage;
    (void)self;
    if (!PyArg_ParseTuple(args, "OO!O!O!ddn", &capsule, &PyDict_Type, &tokens, &PyDict_Type,
                          &weights, &PyList_Type, &jobs, &k1, &b, &passage))
        return NULL;
    Scan *scan = PyCapsule_GetPointer(capsule, SCAN_CAPSULE);
    if (scan == NULL)
        return NULL;
    if (passage < 1) {
        PyErr_SetString(PyExc_ValueError, "passage must be at least 1");
        return NULL;
    }
    Py_ssize_t n_stems = PyDict_GET_SIZE(weights), half = passage / 2;
    PyObject *position = PyDict_New(), *out = NULL;
    double *idf = PyMem_Malloc((size_t)(n_stems + 1) * sizeof(double));
    Py_ssize_t *scratch = PyMem_Malloc((size_t)(3 * n_stems + 3) * sizeof(Py_ssize_t));
    WindowTfs *tfs = PyMem_Calloc((size_t)scan->n + 1, sizeof(WindowTfs));
    Py_ssize_t *word_off = NULL, *stems = NULL;
    Message *seq = NULL;
    Py_ssize_t seq_cap = 0;
    if (position == NULL || idf == NULL || scratch == NULL || tfs == NULL) {
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t pos = 0, t = 0;
    PyObject *key, *value;
    while (PyDict_Next(weights, &pos, &key, &value)) {
        PyObject *number = PyLong_FromSsize_t(t);
        idf[t] = PyFloat_AsDouble(value);
        if (number == NULL || (idf[t] == -1.0 && PyErr_Occurred())
            || PyDict_SetItem(position, key, number) < 0) {
            Py_XDECREF(number);
            goto done;
        }
        Py_DECREF(number);
        scratch[t++] = -1; /* slot */
    }
    if (word_stems(scan->words, tokens, position, &word_off, &stems) < 0)
        goto done;
    Py_ssize_t total = 0, messages = 0;
    for (Py_ssize_t i = 0; i < scan->n; i++) {
        const Window *w = &scan->windows[i];
        if (w->n_msgs == 0)
            continue;
        if (window_tfs(w, word_off, stems, &tfs[i]) < 0)
            goto done;
        for (Py_ssize_t m = 0; m < w->n_msgs; m++)
            total += w->lengths[m];
        messages += w->n_msgs;
    }
    double mean = (double)(passage * total) / (double)(messages > 0 ? messages : 1);
    out = PyList_New(PyList_GET_SIZE(jobs));
    for (Py_ssize_t j = 0; out != NULL && j < PyList_GET_SIZE(jobs); j++) {
        Py_ssize_t around[3];
        if (!PyArg_ParseTuple(PyList_GET_ITEM(jobs, j), "nnn", &around[0], &around[1],
                              &around[2]))
            goto fail;
        for (int k = 0; k < 3; k++) {
            if (around[k] < -1 || around[k] >= scan->n || (k == 1 && around[k] < 0)) {
                PyErr_SetString(PyExc_IndexError, "scan_passages(): no such window");
                goto fail;
            }
        }
        const Window *before = around[0] >= 0 ? &scan->windows[around[0]] : NULL;
        const Window *own = &scan->windows[around[1]];
        const Window *after = around[2] >= 0 ? &scan->windows[around[2]] : NULL;
        if (own->n_msgs == 0) {
            PyList_SET_ITEM(out, j, Py_NewRef(Py_None));
            continue;
        }
        /* seq[-half:] of the window before ([-0:] is all of it), seq[:half] of the one after */
        Py_ssize_t n_before = before ? before->n_msgs : 0, n_after = after ? after->n_msgs : 0;
        Py_ssize_t head = half && half < n_before ? half : n_before;
        Py_ssize_t tail = half < n_after ? half : n_after, size = 0;
        if (grow((void **)&seq, &seq_cap, head + own->n_msgs + tail, sizeof(Message)) < 0)
            goto fail;
        for (Py_ssize_t m = n_before - head; m < n_before; m++)
            seq[size++] = (Message){around[0], m};
        for (Py_ssize_t m = 0; m < own->n_msgs; m++)
            seq[size++] = (Message){around[1], m};
        for (Py_ssize_t m = 0; m < tail; m++)
            seq[size++] = (Message){around[2], m};
        double best = best_passage(seq, size, head, own->n_msgs, passage, scan, tfs, idf, mean,
                                   k1, b, scratch, scratch + n_stems + 1,
                                   scratch + 2 * n_stems + 2);
        PyObject *score = PyFloat_FromDouble(best);
        if (score == NULL)
            goto fail;
        PyList_SET_ITEM(out, j, score);
    }
    goto done;
fail:
    Py_CLEAR(out);
done:
    for (Py_ssize_t i = 0; tfs != NULL && i < scan->n; i++) {
        PyMem_Free(tfs[i].off);
        PyMem_Free(tfs[i].stem);
        PyMem_Free(tfs[i].count);
    }
    PyMem_Free(tfs);
    PyMem_Free(idf);
    PyMem_Free(scratch);
    PyMem_Free(word_off);
    PyMem_Free(stems);
    PyMem_Free(seq);
    Py_XDECREF(position);
    return out;
}

static PyMethodDef methods[] = {
    {"message_starts", message_starts, METH_O, "Offsets where a chat window's messages begin."},
    {"message_words", message_words, METH_VARARGS,
     "Each message's length and the words that start with a head."},
    {"scan_windows", scan_windows, METH_VARARGS,
     "Every window's message lengths and words starting with a head, for scan_passages."},
    {"scan_passages", scan_passages, METH_VARARGS, "Each job's best passage's BM25."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_passages", NULL, -1, methods};

PyMODINIT_FUNC PyInit__passages(void) { return PyModule_Create(&module); }
