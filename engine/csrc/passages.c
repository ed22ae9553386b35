/* The text scans of passage evidence as compiled loops (engine/retrieval/passages.py wraps them).
 *
 * Passage evidence reads ~140 chat windows a query (the arm's chat hits and their neighbours):
 * where each message starts, how many words it has, and which of its words could stem to a
 * query word. In Python that was ~3 ms of the keyword arm at 500k chunks (docs/benchmarks.md).
 * Each function gives exactly what the Python it replaces gives, which stays as the fallback
 * and is compared with it by tests/test_passages_compiled.py:
 *
 *   message_starts(content) -> list[int]
 *       the offsets ``^\[\d{4}-\d\d-\d\d \d\d:\d\d\] `` matches at (re.M), [] unless the
 *       first is 0
 *   message_words(content, starts, heads, read_start, read_end) -> (lengths, hits) | None
 *       each message's length (spaces + 1) and (message index, lower-cased word) for every
 *       word starting with a head, read in the first ``read_start`` and last ``read_end``
 *       messages (read_start < 0: all of them); None when lower-casing a span changes its
 *       length (the caller's regex path handles that text)
 *   message_tfs(lengths, hits, tokens, weights) -> list[(dict, int)]   (below)
 *   best_passages(jobs, weights, mean, k1, b, passage) -> list[float]   (below)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define STAMP 19 /* "[YYYY-MM-DD HH:MM] " */

static int is_stamp(int kind, const void *data, Py_ssize_t at, Py_ssize_t len) {
    static const char shape[STAMP + 1] = "[dddd-dd-dd dd:dd] ";
    if (len - at < STAMP)
        return 0;
    for (int i = 0; i < STAMP; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, at + i);
        if (shape[i] == 'd') {
            if (!Py_UNICODE_ISDECIMAL(ch)) /* what \d matches in a str pattern */
                return 0;
        } else if (ch != (Py_UCS4)shape[i]) {
            return 0;
        }
    }
    return 1;
}

static PyObject *message_starts(PyObject *self, PyObject *content) {
    if (!PyUnicode_Check(content)) {
        PyErr_SetString(PyExc_TypeError, "message_starts() takes a str");
        return NULL;
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(content);
    int kind = PyUnicode_KIND(content);
    const void *data = PyUnicode_DATA(content);
    PyObject *out = PyList_New(0);
    if (out == NULL || !is_stamp(kind, data, 0, len))
        return out;
    for (Py_ssize_t at = 0; at < len; at++) {
        if ((at == 0 || PyUnicode_READ(kind, data, at - 1) == '\n')
            && is_stamp(kind, data, at, len)) {
            PyObject *n = PyLong_FromSsize_t(at);
            if (n == NULL || PyList_Append(out, n) < 0) {
                Py_XDECREF(n);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(n);
            at += STAMP - 1; /* a stamp holds no newline: the next can start after it */
        }
    }
    return out;
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

/* Whether ``head`` is at ``at`` in ``data`` (read through ``lower``: the text as it is,
 * or its ASCII letters lower-cased). */
static int head_at(PyObject *head, int kind, const void *data, Py_ssize_t at, Py_ssize_t len,
                   int lower) {
    Py_ssize_t size = PyUnicode_GET_LENGTH(head);
    if (size == 0 || size > len - at)
        return 0;
    int hkind = PyUnicode_KIND(head);
    const void *hdata = PyUnicode_DATA(head);
    for (Py_ssize_t k = 0; k < size; k++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, at + k);
        if (lower && ch >= 'A' && ch <= 'Z')
            ch += 'a' - 'A';
        if (ch != PyUnicode_READ(hkind, hdata, k))
            return 0;
    }
    return 1;
}

/* The words starting with a head, in offset order: where word_hits (engine/retrieval/
 * passages.py) finds a head with no word character before it, the word characters from
 * there. ``lower``: the text is ASCII and read lower-cased (no copy made). -1 on error. */
static Py_ssize_t span_hits(PyObject *text, Py_ssize_t a, Py_ssize_t b, PyObject *heads,
                            int lower, Hit **hits, Py_ssize_t *cap) {
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
        if (lower && first >= 'A' && first <= 'Z')
            first += 'a' - 'A';
        Py_ssize_t h = 0;
        while (h < n_heads && (firsts[h] != first
                               || !head_at(PyTuple_GET_ITEM(heads, h), kind, data, at, b, lower)))
            h++;
        if (h == n_heads)
            continue;
        Py_ssize_t end = at;
        while (end < b && is_word(PyUnicode_READ(kind, data, end)))
            end++;
        if (n == *cap) {
            Py_ssize_t grown = *cap ? *cap * 2 : 64;
            Hit *more = PyMem_Realloc(*hits, grown * sizeof(Hit));
            if (more == NULL) {
                PyMem_Free(firsts);
                PyErr_NoMemory();
                return -1;
            }
            *hits = more;
            *cap = grown;
        }
        (*hits)[n].at = at;
        (*hits)[n].end = end;
        n++;
    }
    PyMem_Free(firsts);
    return n;
}

/* Append (message index, word) for the words of content[a:b]; 1 done, 0 when lower-casing
 * changes the span's length, -1 on error. ``msg``: the message index, moved forward. */
static int read_span(PyObject *content, Py_ssize_t a, Py_ssize_t b, PyObject *heads,
                     const Py_ssize_t *starts, Py_ssize_t n_starts, Py_ssize_t *msg,
                     PyObject *out, Hit **hits, Py_ssize_t *cap) {
    /* ASCII text (lower() maps only A-Z) is read in place; other text is lower-cased first,
     * as word_hits does, and left to it when that changes the length */
    int ascii = PyUnicode_IS_ASCII(content);
    PyObject *text = content;
    Py_ssize_t from = a, to = b;
    if (!ascii) {
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
        to = b - a;
    }
    Py_ssize_t n = span_hits(text, from, to, heads, ascii, hits, cap);
    int rc = n < 0 ? -1 : 1;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n && rc == 1; i++) {
        Py_ssize_t at = (*hits)[i].at, end = (*hits)[i].end;
        Py_ssize_t offset = a + at - from;
        while (*msg + 1 < n_starts && starts[*msg + 1] <= offset) /* bisect_right - 1 */
            (*msg)++;
        PyObject *word;
        if (ascii) {
            word = PyUnicode_New(end - at, 127);
            if (word != NULL) {
                Py_UCS1 *into = PyUnicode_1BYTE_DATA(word);
                for (Py_ssize_t j = at; j < end; j++) {
                    Py_UCS4 ch = PyUnicode_READ(kind, data, j);
                    into[j - at] = (Py_UCS1)(ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch);
                }
            }
        } else {
            word = PyUnicode_Substring(text, at, end);
        }
        PyObject *pair = word ? Py_BuildValue("(nN)", *msg, word) : NULL;
        if (pair == NULL || PyList_Append(out, pair) < 0)
            rc = -1;
        Py_XDECREF(pair);
    }
    if (!ascii)
        Py_DECREF(text);
    return rc;
}

static PyObject *message_words(PyObject *self, PyObject *args) {
    PyObject *content, *starts_list, *heads;
    Py_ssize_t read_start, read_end;
    if (!PyArg_ParseTuple(args, "UO!O!nn", &content, &PyList_Type, &starts_list, &PyTuple_Type,
                          &heads, &read_start, &read_end))
        return NULL;
    for (Py_ssize_t h = 0; h < PyTuple_GET_SIZE(heads); h++) {
        if (!PyUnicode_Check(PyTuple_GET_ITEM(heads, h))) {
            PyErr_SetString(PyExc_TypeError, "heads must be str");
            return NULL;
        }
    }
    Py_ssize_t len = PyUnicode_GET_LENGTH(content), n = PyList_GET_SIZE(starts_list);
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "starts is empty");
        return NULL;
    }
    Py_ssize_t *starts = PyMem_Malloc((size_t)(n + 1) * sizeof(Py_ssize_t));
    if (starts == NULL)
        return PyErr_NoMemory();
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
    starts[n] = len; /* each message ends where the next starts */

    PyObject *lengths = PyList_New(n), *hits = PyList_New(0), *result = NULL;
    Hit *buffer = NULL;
    Py_ssize_t cap = 0, msg = 0;
    if (lengths == NULL || hits == NULL)
        goto done;
    int kind = PyUnicode_KIND(content);
    const void *data = PyUnicode_DATA(content);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t spaces = 0;
        for (Py_ssize_t at = starts[i]; at < starts[i + 1]; at++)
            spaces += PyUnicode_READ(kind, data, at) == ' ';
        PyObject *count = PyLong_FromSsize_t(spaces + 1);
        if (count == NULL)
            goto done;
        PyList_SET_ITEM(lengths, i, count);
    }
    Py_ssize_t spans[2][2];
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
        int rc = read_span(content, spans[s][0], spans[s][1], heads, starts, n, &msg, hits,
                           &buffer, &cap);
        if (rc < 0)
            goto done;
        if (rc == 0) {
            result = Py_NewRef(Py_None);
            goto done;
        }
    }
    result = PyTuple_Pack(2, lengths, hits);
done:
    PyMem_Free(starts);
    PyMem_Free(buffer);
    Py_XDECREF(lengths);
    Py_XDECREF(hits);
    return result;
}

/* best_passages(jobs, weights, mean, k1, b, passage) -> list[float]
 *
 * For each job (seq, first, count): seq is a window's messages with its neighbours' edge
 * messages, each (stem -> count, length); the passages are ``passage`` consecutive messages
 * centred on seq[first] ... seq[first + count - 1]. The best passage's BM25, computed as
 * python_best_passage does, term by term in the same order, so the floats are equal. */
static PyObject *best_passages(PyObject *self, PyObject *args) {
    PyObject *jobs, *weights;
    double mean, k1, b;
    Py_ssize_t passage;
    if (!PyArg_ParseTuple(args, "O!O!dddn", &PyList_Type, &jobs, &PyDict_Type, &weights, &mean,
                          &k1, &b, &passage))
        return NULL;
    if (passage < 1) {
        PyErr_SetString(PyExc_ValueError, "passage must be at least 1");
        return NULL;
    }
    Py_ssize_t half = passage / 2;
    PyObject *out = PyList_New(PyList_GET_SIZE(jobs));
    if (out == NULL)
        return NULL;
    /* a passage holds at most every stem of the query once */
    Py_ssize_t max_terms = PyDict_GET_SIZE(weights) + 1;
    PyObject **keys = PyMem_Malloc((size_t)max_terms * sizeof(PyObject *));
    Py_ssize_t *counts = PyMem_Malloc((size_t)max_terms * sizeof(Py_ssize_t));
    if (keys == NULL || counts == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (Py_ssize_t j = 0; j < PyList_GET_SIZE(jobs); j++) {
        PyObject *seq;
        Py_ssize_t first, count;
        if (!PyArg_ParseTuple(PyList_GET_ITEM(jobs, j), "O!nn", &PyList_Type, &seq, &first,
                              &count))
            goto fail;
        Py_ssize_t size = PyList_GET_SIZE(seq);
        if (first < 0 || count < 0 || first + count > size) {
            PyErr_SetString(PyExc_ValueError, "centres outside the sequence");
            goto fail;
        }
        double best = 0.0;
        for (Py_ssize_t c = first; c < first + count; c++) {
            Py_ssize_t lo = c - half > 0 ? c - half : 0;
            Py_ssize_t hi = lo + passage < size ? lo + passage : size;
            Py_ssize_t n_terms = 0, length = 0;
            for (Py_ssize_t m = lo; m < hi; m++) {
                PyObject *item = PyList_GET_ITEM(seq, m), *tf, *key, *value;
                Py_ssize_t words, pos = 0;
                if (!PyArg_ParseTuple(item, "O!n", &PyDict_Type, &tf, &words))
                    goto fail;
                length += words;
                while (PyDict_Next(tf, &pos, &key, &value)) { /* first-seen order, as a dict */
                    Py_ssize_t n = PyLong_AsSsize_t(value), t = 0;
                    if (n == -1 && PyErr_Occurred())
                        goto fail;
                    for (; t < n_terms; t++) {
                        int same = keys[t] == key ? 1 : PyObject_RichCompareBool(keys[t], key,
                                                                                 Py_EQ);
                        if (same < 0)
                            goto fail;
                        if (same)
                            break;
                    }
                    if (t == n_terms) {
                        if (n_terms == max_terms) { /* a stem the weights do not hold */
                            PyErr_SetObject(PyExc_KeyError, key);
                            goto fail;
                        }
                        keys[n_terms] = key; /* borrowed: the dicts outlive this call */
                        counts[n_terms++] = 0;
                    }
                    counts[t] += n;
                }
            }
            if (n_terms == 0)
                continue;
            double norm = k1 * (1.0 - b + b * (double)length / (mean != 0.0 ? mean : 1.0));
            double score = 0.0;
            for (Py_ssize_t t = 0; t < n_terms; t++) {
                PyObject *w = PyDict_GetItemWithError(weights, keys[t]);
                if (w == NULL) {
                    if (!PyErr_Occurred())
                        PyErr_SetObject(PyExc_KeyError, keys[t]);
                    goto fail;
                }
                double weight = PyFloat_AsDouble(w), n = (double)counts[t];
                if (weight == -1.0 && PyErr_Occurred())
                    goto fail;
                score += weight * n * (k1 + 1.0) / (n + norm);
            }
            if (score > best)
                best = score;
        }
        PyObject *value = PyFloat_FromDouble(best);
        if (value == NULL)
            goto fail;
        PyList_SET_ITEM(out, j, value);
    }
    PyMem_Free(keys);
    PyMem_Free(counts);
    return out;
fail:
    PyMem_Free(keys);
    PyMem_Free(counts);
    Py_DECREF(out);
    return NULL;
}

/* message_tfs(lengths, hits, tokens, weights) -> [(dict, length)]: per message, how often each
 * query stem (a key of ``weights``) occurs among its words, from message_words' answer and
 * ``tokens`` (word -> the tuple of tokens the index makes of it): passages._message_tfs, whose
 * per-hit loop in Python cost ~1 ms of a query's passage evidence at 500k. */
static PyObject *message_tfs(PyObject *self, PyObject *args) {
    PyObject *lengths, *hits, *tokens, *weights;
    (void)self;
    if (!PyArg_ParseTuple(args, "O!O!O!O!", &PyList_Type, &lengths, &PyList_Type, &hits,
                          &PyDict_Type, &tokens, &PyDict_Type, &weights))
        return NULL;
    Py_ssize_t n = PyList_GET_SIZE(lengths);
    PyObject *out = PyList_New(n);
    if (!out) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *counts = PyDict_New();
        PyObject *pair = counts ? PyTuple_Pack(2, counts, PyList_GET_ITEM(lengths, i)) : NULL;
        Py_XDECREF(counts);
        if (!pair) goto fail;
        PyList_SET_ITEM(out, i, pair);
    }
    for (Py_ssize_t h = 0; h < PyList_GET_SIZE(hits); h++) {
        PyObject *hit = PyList_GET_ITEM(hits, h);
        if (!PyTuple_Check(hit) || PyTuple_GET_SIZE(hit) != 2) {
            PyErr_SetString(PyExc_TypeError, "message_tfs(): a hit is (message, word)");
            goto fail;
        }
        Py_ssize_t message = PyLong_AsSsize_t(PyTuple_GET_ITEM(hit, 0));
        if (message == -1 && PyErr_Occurred()) goto fail;
        if (message < 0) message += n; /* as out[message] reads it */
        if (message < 0 || message >= n) {
            PyErr_SetString(PyExc_IndexError, "list index out of range");
            goto fail;
        }
        PyObject *word = PyTuple_GET_ITEM(hit, 1);
        PyObject *made = PyDict_GetItemWithError(tokens, word);
        if (!made) {
            if (!PyErr_Occurred()) PyErr_SetObject(PyExc_KeyError, word);
            goto fail;
        }
        PyObject *seq = PySequence_Fast(made, "message_tfs(): tokens are a sequence");
        if (!seq) goto fail;
        PyObject *counts = PyTuple_GET_ITEM(PyList_GET_ITEM(out, message), 0);
        for (Py_ssize_t t = 0; t < PySequence_Fast_GET_SIZE(seq); t++) {
            PyObject *token = PySequence_Fast_GET_ITEM(seq, t);
            int wanted = PyDict_Contains(weights, token);
            PyObject *now = wanted > 0 ? PyDict_GetItemWithError(counts, token) : NULL;
            PyObject *next = NULL;
            if (wanted > 0 && !PyErr_Occurred()) {
                long count = now ? PyLong_AsLong(now) : 0;
                next = count == -1 && PyErr_Occurred() ? NULL : PyLong_FromLong(count + 1);
            }
            if (wanted < 0 || (wanted > 0 && (!next || PyDict_SetItem(counts, token, next) < 0))) {
                Py_XDECREF(next);
                Py_DECREF(seq);
                goto fail;
            }
            Py_XDECREF(next);
        }
        Py_DECREF(seq);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"message_tfs", message_tfs, METH_VARARGS,
     "Per message, how often each query stem occurs, and its length."},
    {"best_passages", best_passages, METH_VARARGS, "Each window's best passage's BM25."},
    {"message_starts", message_starts, METH_O, "Offsets where a chat window's messages begin."},
    {"message_words", message_words, METH_VARARGS,
     "Each message's length and the words that start with a head."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_passages", NULL, -1, methods};

PyMODINIT_FUNC PyInit__passages(void) { return PyModule_Create(&module); }
