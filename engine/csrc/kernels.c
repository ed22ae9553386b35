/* The vector sidecar's two scans as compiled loops (engine/kernels.py wraps them).
 *
 * numpy makes every step of the first pass a separate pass over the rows (a product, an XOR,
 * two ANDs, two popcounts, the sums...), ~10 ns a row; one fused loop reads each row once.
 * Both functions release the GIL, so the keyword arm runs beside them. Each has an AVX2 body
 * chosen at import when the CPU has it, and a portable one; the results are the same sums in
 * float32 (up to rounding order).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#define HAVE_X86 1
#endif

/* IEEE half -> float, for the portable body */
static inline float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    uint32_t exp = (h >> 10) & 0x1F;
    uint32_t man = h & 0x3FF;
    uint32_t bits;
    if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else {  /* subnormal: normalise */
            exp = 127 - 15 + 1;
            while (!(man & 0x400)) { man <<= 1; exp--; }
            bits = sign | (exp << 23) | ((man & 0x3FF) << 13);
        }
    } else if (exp == 0x1F) {
        bits = sign | 0x7F800000 | (man << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }

/* out[i] = lead[i]·q (int8 codes) + scale[i] * (total - 2 unit (pc((w^s)&p0) + 2 pc((w^s)&p1))), two words */
typedef struct {
    const int8_t *lead; Py_ssize_t n; Py_ssize_t head;
    const uint64_t *words; const float *scale; const float *q;
    uint64_t sign[2], plane0[2], plane1[2];
    float total, unit;
    float *out;
} FirstPassArgs;

static void first_pass_portable(const FirstPassArgs *a) {
    for (Py_ssize_t i = 0; i < a->n; i++) {
        const int8_t *row = a->lead + i * a->head;
        float dot = 0.0f;
        for (Py_ssize_t d = 0; d < a->head; d++) dot += (float)row[d] * a->q[d];
        uint64_t x0 = a->words[2 * i] ^ a->sign[0], x1 = a->words[2 * i + 1] ^ a->sign[1];
        int c = popcount64(x0 & a->plane0[0]) + popcount64(x1 & a->plane0[1])
              + 2 * (popcount64(x0 & a->plane1[0]) + popcount64(x1 & a->plane1[1]));
        a->out[i] = dot + a->scale[i] * (a->total - 2.0f * a->unit * (float)c);
    }
}

static void rescore_portable(const uint16_t *full, Py_ssize_t dim, const int64_t *idx,
                             Py_ssize_t m, int64_t start, const float *q, float *out) {
    for (Py_ssize_t j = 0; j < m; j++) {
        const uint16_t *row = full + (idx[j] - start) * dim;
        float dot = 0.0f;
        for (Py_ssize_t d = 0; d < dim; d++) dot += half_to_float(row[d]) * q[d];
        out[j] = dot;
    }
}

#ifdef HAVE_X86
__attribute__((target("avx2,fma,popcnt")))
static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_shuffle_ps(s, s, 1));
    return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma,popcnt")))
static void first_pass_avx2(const FirstPassArgs *a) {
    Py_ssize_t head = a->head, full8 = head & ~(Py_ssize_t)7;
    for (Py_ssize_t i = 0; i < a->n; i++) {
        const int8_t *row = a->lead + i * head;
        __m256 acc = _mm256_setzero_ps();
        for (Py_ssize_t d = 0; d < full8; d += 8) {  /* 8 codes -> 8 int32 -> 8 floats */
            __m256i codes = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(row + d)));
            acc = _mm256_fmadd_ps(_mm256_cvtepi32_ps(codes), _mm256_loadu_ps(a->q + d), acc);
        }
        float dot = hsum256(acc);
        for (Py_ssize_t d = full8; d < head; d++) dot += (float)row[d] * a->q[d];
        uint64_t x0 = a->words[2 * i] ^ a->sign[0], x1 = a->words[2 * i + 1] ^ a->sign[1];
        int c = (int)_mm_popcnt_u64(x0 & a->plane0[0]) + (int)_mm_popcnt_u64(x1 & a->plane0[1])
              + 2 * ((int)_mm_popcnt_u64(x0 & a->plane1[0])
                     + (int)_mm_popcnt_u64(x1 & a->plane1[1]));
        a->out[i] = dot + a->scale[i] * (a->total - 2.0f * a->unit * (float)c);
    }
}

__attribute__((target("avx2,fma,f16c")))
static void rescore_avx2(const uint16_t *full, Py_ssize_t dim, const int64_t *idx,
                         Py_ssize_t m, int64_t start, const float *q, float *out) {
    Py_ssize_t full8 = dim & ~(Py_ssize_t)7;
    for (Py_ssize_t j = 0; j < m; j++) {
        const uint16_t *row = full + (idx[j] - start) * dim;
        if (j + 4 < m) _mm_prefetch((const char *)(full + (idx[j + 4] - start) * dim), _MM_HINT_T0);
        __m256 acc = _mm256_setzero_ps();
        for (Py_ssize_t d = 0; d < full8; d += 8) {
            __m256 v = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(row + d)));
            acc = _mm256_fmadd_ps(v, _mm256_loadu_ps(q + d), acc);
        }
        float dot = hsum256(acc);
        for (Py_ssize_t d = full8; d < dim; d++) dot += half_to_float(row[d]) * q[d];
        out[j] = dot;
    }
}
#endif

static int use_avx2 = 0;

/* The buffers a call holds, released together whatever happened */
typedef struct {
    Py_buffer views[5];
    int held;
} Buffers;

/* A contiguous buffer of at least ``count`` items of ``itemsize`` bytes, or NULL with an
   exception set */
static void *take(Buffers *b, PyObject *obj, Py_ssize_t itemsize, Py_ssize_t count,
                  int writable, const char *name) {
    Py_buffer *view = &b->views[b->held];
    int flags = PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return NULL;
    b->held++;
    if (view->len < itemsize * count) {
        PyErr_Format(PyExc_ValueError, "%s holds %zd bytes, %zd needed", name, view->len,
                     itemsize * count);
        return NULL;
    }
    return view->buf;
}

static PyObject *release(Buffers *b, PyObject *result) {
    while (b->held) PyBuffer_Release(&b->views[--b->held]);
    return result;
}

static int words2(PyObject *seq, uint64_t out[2], const char *name) {
    if (!PyArg_ParseTuple(seq, "KK", &out[0], &out[1])) {
        PyErr_Format(PyExc_TypeError, "%s: two unsigned 64-bit words", name);
        return -1;
    }
    return 0;
}

static PyObject *first_pass(PyObject *self, PyObject *args) {
    PyObject *lead_o, *words_o, *scale_o, *q_o, *sign_o, *p0_o, *p1_o, *out_o;
    Py_ssize_t n, head;
    float total, unit;
    if (!PyArg_ParseTuple(args, "OnnOOOO!O!O!ffO", &lead_o, &n, &head, &words_o, &scale_o,
                          &q_o, &PyTuple_Type, &sign_o, &PyTuple_Type, &p0_o, &PyTuple_Type,
                          &p1_o, &total, &unit, &out_o))
        return NULL;
    if (n < 0 || head < 0) {
        PyErr_SetString(PyExc_ValueError, "negative size");
        return NULL;
    }
    FirstPassArgs a = {.n = n, .head = head, .total = total, .unit = unit};
    if (words2(sign_o, a.sign, "sign") < 0 || words2(p0_o, a.plane0, "plane0") < 0
        || words2(p1_o, a.plane1, "plane1") < 0)
        return NULL;
    Buffers b = {.held = 0};
    if (!(a.lead = take(&b, lead_o, 1, n * head, 0, "lead"))
        || !(a.words = take(&b, words_o, 8, 2 * n, 0, "words"))
        || !(a.scale = take(&b, scale_o, 4, n, 0, "scale"))
        || !(a.q = take(&b, q_o, 4, head, 0, "query"))
        || !(a.out = take(&b, out_o, 4, n, 1, "out")))
        return release(&b, NULL);
    Py_BEGIN_ALLOW_THREADS
#ifdef HAVE_X86
    if (use_avx2) first_pass_avx2(&a); else
#endif
    first_pass_portable(&a);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    return release(&b, Py_None);
}

static PyObject *rescore(PyObject *self, PyObject *args) {
    PyObject *full_o, *idx_o, *q_o, *out_o;
    Py_ssize_t rows, dim, m;
    long long start;
    if (!PyArg_ParseTuple(args, "OnnOnLOO", &full_o, &rows, &dim, &idx_o, &m, &start, &q_o,
                          &out_o))
        return NULL;
    if (rows < 0 || dim < 0 || m < 0) {
        PyErr_SetString(PyExc_ValueError, "negative size");
        return NULL;
    }
    Buffers b = {.held = 0};
    const uint16_t *full;
    const int64_t *ix;
    const float *q;
    float *out;
    if (!(full = take(&b, full_o, 2, rows * dim, 0, "full"))
        || !(ix = take(&b, idx_o, 8, m, 0, "idx"))
        || !(q = take(&b, q_o, 4, dim, 0, "query"))
        || !(out = take(&b, out_o, 4, m, 1, "out")))
        return release(&b, NULL);
    for (Py_ssize_t j = 0; j < m; j++) {  /* never read outside the mapped rows */
        if (ix[j] < start || ix[j] - start >= rows) {
            PyErr_Format(PyExc_IndexError, "row %lld outside [%lld, %lld)", (long long)ix[j],
                         start, start + (long long)rows);
            return release(&b, NULL);
        }
    }
    Py_BEGIN_ALLOW_THREADS
#ifdef HAVE_X86
    if (use_avx2) rescore_avx2(full, dim, ix, m, start, q, out); else
#endif
    rescore_portable(full, dim, ix, m, start, q, out);
    Py_END_ALLOW_THREADS
    Py_INCREF(Py_None);
    return release(&b, Py_None);
}

static PyObject *set_simd(PyObject *self, PyObject *arg) {
    int want = PyObject_IsTrue(arg);
    if (want < 0) return NULL;
#ifdef HAVE_X86
    __builtin_cpu_init();
    use_avx2 = want && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
               && __builtin_cpu_supports("f16c") && __builtin_cpu_supports("popcnt");
#else
    use_avx2 = 0;
#endif
    return PyBool_FromLong(use_avx2);
}

static PyMethodDef methods[] = {
    {"first_pass", first_pass, METH_VARARGS,
     "first_pass(lead int8, n, head, words, scale, q, sign, plane0, plane1, total, unit, out)"},
    {"rescore", rescore, METH_VARARGS,
     "rescore(full, rows, dim, idx, m, start, q, out): out[j] = full[idx[j]-start]·q"},
    {"set_simd", set_simd, METH_O,
     "set_simd(flag) -> bool: use the AVX2 bodies when asked and the CPU has them"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_kernels", NULL, -1, methods};

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *on = set_simd(NULL, Py_True);
    Py_XDECREF(on);
    return m;
}
