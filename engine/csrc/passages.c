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
 *   best_passages(jobs, weights, mean, k1, b, passage) -> list[float]   (below)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

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

static int by_offset(const void *a, const void *b) {
    Py_ssize_t x = ((const Hit *)a)->at, y = ((const Hit *)b)->at;
    return (x > y) - (x < y);
}

static int is_word(Py_UCS4 ch) { return Py_UNICODE_ISALNUM(ch) || ch == '_'; }

/* The words of ``lower`` starting with a head, sorted by offset, one per offset (a head is
 * never a prefix of another: engine/retrieval/passages.py, word_heads). -1 on error. */
static Py_ssize_t span_hits(PyObject *lower, PyObject *heads, Hit **hits, Py_ssize_t *cap) {
    Py_ssize_t len = PyUnicode_GET_LENGTH(lower), n = 0;
    int kind = PyUnicode_KIND(lower);
    const void *data = PyUnicode_DATA(lower);
    for (Py_ssize_t h = 0; h < PyTuple_GET_SIZE(heads); h++) {
        PyObject *head = PyTuple_GET_ITEM(heads, h);
        Py_ssize_t from = 0;
        while (from <= len) {
            Py_ssize_t at = PyUnicode_Find(lower, head, from, len, 1);
            if (at == -2)
                return -1;
            if (at < 0)
                break;
            from = at + 1;
            if (at > 0 && is_word(PyUnicode_READ(kind, data, at - 1)))
                continue;
            Py_ssize_t end = at;
            while (end < len && is_word(PyUnicode_READ(kind, data, end)))
                end++;
            if (n == *cap) {
                Py_ssize_t grown = *cap ? *cap * 2 : 64;
                Hit *more = PyMem_Realloc(*hits, grown * sizeof(Hit));
                if (more == NULL) {
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
    }
    qsort(*hits, (size_t)n, sizeof(Hit), by_offset);
    return n;
}

/* Append (message index, word) for the words of content[a:b]; 1 done, 0 when lower-casing
 * changes the span's length, -1 on error. ``msg``: the message index, moved forward. */
static int read_span(PyObject *content, Py_ssize_t a, Py_ssize_t b, PyObject *heads,
                     const Py_ssize_t *starts, Py_ssize_t n_starts, Py_ssize_t *msg,
                     PyObject *out, Hit **hits, Py_ssize_t *cap) {
    PyObject *span = PyUnicode_Substring(content, a, b);
    if (span == NULL)
        return -1;
    PyObject *lower = PyObject_CallMethod(span, "lower", NULL);
    Py_DECREF(span);
    if (lower == NULL)
        return -1;
    if (PyUnicode_GET_LENGTH(lower) != b - a) {
        Py_DECREF(lower);
        return 0;
    }
    Py_ssize_t n = span_hits(lower, heads, hits, cap);
    int rc = n < 0 ? -1 : 1;
    for (Py_ssize_t i = 0; i < n && rc == 1; i++) {
        if (i > 0 && (*hits)[i].at == (*hits)[i - 1].at)
            continue;
        Py_ssize_t at = a + (*hits)[i].at;
        while (*msg + 1 < n_starts && starts[*msg + 1] <= at) /* bisect_right - 1 */
            (*msg)++;
        PyObject *word = PyUnicode_Substring(lower, (*hits)[i].at, (*hits)[i].end);
        PyObject *pair = word ? Py_BuildValue("(nN)", *msg, word) : NULL;
        if (pair == NULL || PyList_Append(out, pair) < 0)
            rc = -1;
        Py_XDECREF(pair);
    }
    Py_DECREF(lower);
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
#define MAX_TERMS 64

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
    PyObject *keys[MAX_TERMS];
    Py_ssize_t counts[MAX_TERMS];
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
                        if (n_terms == MAX_TERMS) {
                            PyErr_SetString(PyExc_ValueError, "too many query stems");
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
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"best_passages", best_passages, METH_VARARGS, "Each window's best passage's BM25."},
    {"message_starts", message_starts, METH_O, "Offsets where a chat window's messages begin."},
    {"message_words", message_words, METH_VARARGS,
     "Each message's length and the words that start with a head."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_passages", NULL, -1, methods};

PyMODINIT_FUNC PyInit__passages(void) { return PyModule_Create(&module); }
