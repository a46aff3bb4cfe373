/* The compiled kernels of layout mode (extract/layout/kernels.py).
 *
 * Layout mode's rules (extract/layout/) decide in Python; what they measure,
 * on a page's units (lines) as columns of doubles and index arrays, runs here
 * when this extension is built: rows top to bottom, shared baselines between
 * runs of lines, the stream's runs down a leaf, a topological order, the
 * stream's disorder against a reading. Each function is the exact
 * transliteration of its numpy/Python reference in kernels.py, which stays
 * the oracle (RAGPREP_PURE=1 selects it; tests/extract/test_layout_kernels.py
 * holds the two equal on fixtures and the corpus).
 *
 * Inputs are C-contiguous buffers (float64 'd', int64 'l'/'q', bool '?');
 * outputs are bytearrays the caller views with np.frombuffer. Indices are
 * bounds-checked. Floating-point expressions are written in the order numpy
 * evaluates them and built with -ffp-contract=off, so results are bitwise the
 * reference's. Comparisons follow numpy's: NaN sorts last, min/max propagate
 * NaN as np.minimum/np.maximum do, Python's min()/max() as Python does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "_npsum.h"

/* ---- buffers ------------------------------------------------------------ */

typedef struct { Py_buffer view; int ok; } View;

static int get_view(PyObject *obj, View *v, const char *format, Py_ssize_t itemsize, const char *what) {
    v->ok = 0;
    if (PyObject_GetBuffer(obj, &v->view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    v->ok = 1;
    const char *f = v->view.format ? v->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int same = strcmp(f, format) == 0 || (format[0] == 'l' && f[0] == 'q' && !f[1]);
    if (v->view.itemsize != itemsize || !same) {
        PyErr_Format(PyExc_TypeError, "%s: expected a contiguous array of '%s' items", what, format);
        return -1;
    }
    return 0;
}

static void release(View *v) { if (v->ok) PyBuffer_Release(&v->view); v->ok = 0; }

/* The four float64 columns of unit boxes (x0, x1, y0, y1), all one length:
 * that length, or -1 with an exception set. */
static Py_ssize_t get_boxes(PyObject *const objs[4], View views[4]) {
    static const char *names[4] = {"x0", "x1", "y0", "y1"};
    for (int c = 0; c < 4; c++)
        if (get_view(objs[c], &views[c], "d", 8, names[c]) < 0) return -1;
    for (int c = 1; c < 4; c++)
        if (views[c].view.len != views[0].view.len) {
            PyErr_SetString(PyExc_ValueError, "unit columns differ in length");
            return -1;
        }
    return views[0].view.len / 8;
}

static void release_boxes(View views[4]) {
    for (int c = 0; c < 4; c++) release(&views[c]);
}

static int check_ids(const int64_t *ids, Py_ssize_t n, Py_ssize_t size, const char *what) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (ids[k] < 0 || ids[k] >= size) {
            PyErr_Format(PyExc_IndexError, "%s: index out of range", what);
            return -1;
        }
    return 0;
}

/* Unit boxes (get_boxes) and the int64 indices `ids` into them, bounds-checked:
 * how many ids, or -1 with an exception set. */
static Py_ssize_t get_unit_boxes(PyObject *const objs[4], View views[4], PyObject *ids_obj, View *ids) {
    Py_ssize_t size = get_boxes(objs, views);
    if (size < 0 || get_view(ids_obj, ids, "l", 8, "ids") < 0) return -1;
    Py_ssize_t n = ids->view.len / 8;
    return check_ids(ids->view.buf, n, size, "ids") < 0 ? -1 : n;
}

/* Two float64 unit columns of one length (objs, named `names`) and the int64
 * indices `ids` into them, bounds-checked: how many ids, or -1 with an
 * exception set. */
static Py_ssize_t get_column_pair(PyObject *const objs[2], View v[2], const char *const names[2], PyObject *ids_obj, View *ids) {
    if (get_view(objs[0], &v[0], "d", 8, names[0]) < 0 || get_view(objs[1], &v[1], "d", 8, names[1]) < 0 ||
        get_view(ids_obj, ids, "l", 8, "ids") < 0)
        return -1;
    Py_ssize_t size = v[0].view.len / 8, n = ids->view.len / 8;
    if (v[1].view.len / 8 != size) {
        PyErr_Format(PyExc_ValueError, "%s and %s differ in length", names[0], names[1]);
        return -1;
    }
    return check_ids(ids->view.buf, n, size, "ids") < 0 ? -1 : n;
}

static PyObject *int64_bytes(const int64_t *values, Py_ssize_t n) {
    return PyByteArray_FromStringAndSize((const char *)values, n * (Py_ssize_t)sizeof(int64_t));
}

/* numpy's order for sorting: NaN after every number, NaNs equal. */
static inline int np_less(double a, double b) { return a < b || (b != b && a == a); }

/* np.minimum / np.maximum: NaN propagates. */
static inline double np_min(double a, double b) {
    if (a != a) return a;
    if (b != b) return b;
    return a <= b ? a : b;
}
static inline double np_max(double a, double b) {
    if (a != a) return a;
    if (b != b) return b;
    return a >= b ? a : b;
}

/* Python's min(a, b) and max(a, b) of two floats: the first unless the second beats it. */
static inline double py_min(double a, double b) { return b < a ? b : a; }
static inline double py_max(double a, double b) { return b > a ? b : a; }

/* A unit's baseline, kernels.baselines: its descent share of the height up from y0. */
static inline double unit_baseline(const double *Y0, const double *Y1, int64_t u, double descent) {
    return Y0[u] + descent * (Y1[u] - Y0[u]);
}

/* A stable merge sort of positions 0..n-1 by key[position] in numpy's order
 * (np.argsort(key, kind="stable")). Callers that fill a fresh key buffer calloc it:
 * gcc 12 cannot see that their fill loop covers what the sort reads, and warns
 * (-Wmaybe-uninitialized) at every pip build. */
static void stable_argsort(const double *key, int64_t *out, int64_t *tmp, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) out[i] = i;
    for (Py_ssize_t width = 1; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {
            Py_ssize_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = np_less(key[out[j]], key[out[i]]) ? out[j++] : out[i++];
            while (i < mid) tmp[k++] = out[i++];
            while (j < hi) tmp[k++] = out[j++];
        }
        memcpy(out, tmp, (size_t)n * sizeof(int64_t));
    }
}

/* The same for int64 keys. */
static void stable_argsort_int(const int64_t *key, int64_t *out, int64_t *tmp, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) out[i] = i;
    for (Py_ssize_t width = 1; width < n; width *= 2) {
        for (Py_ssize_t lo = 0; lo < n; lo += 2 * width) {
            Py_ssize_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            Py_ssize_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = key[out[j]] < key[out[i]] ? out[j++] : out[i++];
            while (i < mid) tmp[k++] = out[i++];
            while (j < hi) tmp[k++] = out[j++];
        }
        memcpy(out, tmp, (size_t)n * sizeof(int64_t));
    }
}

static int cmp_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_np_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return np_less(x, y) ? -1 : np_less(y, x) ? 1 : 0;
}

/* rows' body: ids[0..n) top to bottom into sorted, the row starts into
 * starts (n + 1 long at least), their count returned; order, tmp and key
 * are work buffers of n. */
static Py_ssize_t sort_rows(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, double tol,
                            int64_t *sorted, int64_t *starts, int64_t *order, int64_t *tmp, double *key) {
    for (Py_ssize_t k = 0; k < n; k++) key[k] = -Y1[ids[k]];
    stable_argsort(key, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) sorted[k] = ids[order[k]];
    Py_ssize_t rows = 0;
    starts[rows++] = 0;
    double floor = n ? Y0[sorted[0]] : 0.0;
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        if (k) floor = np_min(floor, Y0[sorted[k]]);
        if (floor >= Y1[sorted[k + 1]] - tol) starts[rows++] = k + 1;
    }
    return rows;
}

/* ---- rows(y0, y1, ids, tol) -> (ids top to bottom, row starts) ----------
 * kernels.rows_top_down: ids sorted by -y1 (stable), a new row where the
 * lowest bottom so far lies at or above the next unit's top less tol. */
static PyObject *layout_rows(PyObject *mod, PyObject *args) {
    PyObject *y0_obj, *y1_obj, *ids_obj;
    double tol;
    if (!PyArg_ParseTuple(args, "OOOd", &y0_obj, &y1_obj, &ids_obj, &tol)) return NULL;
    View v[2], vi = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *order = NULL, *tmp = NULL, *sorted = NULL, *starts = NULL;
    double *key = NULL;
    PyObject *const objs[2] = {y0_obj, y1_obj};
    static const char *const names[2] = {"y0", "y1"};
    Py_ssize_t n = get_column_pair(objs, v, names, ids_obj, &vi);
    if (n < 0) goto done;
    const double *Y0 = v[0].view.buf, *Y1 = v[1].view.buf;
    const int64_t *ids = vi.view.buf;
    Py_ssize_t cap = n ? n : 1;
    order = malloc(cap * sizeof(int64_t)); tmp = malloc(cap * sizeof(int64_t));
    sorted = malloc(cap * sizeof(int64_t)); starts = malloc((cap + 1) * sizeof(int64_t));
    key = calloc(cap, sizeof(double));
    if (!order || !tmp || !sorted || !starts || !key) { PyErr_NoMemory(); goto done; }
    Py_ssize_t rows = sort_rows(Y0, Y1, ids, n, tol, sorted, starts, order, tmp, key);
    result = Py_BuildValue("(NN)", int64_bytes(sorted, n), int64_bytes(starts, rows));
done:
    free(order); free(tmp); free(sorted); free(starts); free(key);
    release(&v[0]); release(&v[1]); release(&vi);
    return result;
}

/* shared_baselines' count: the lines `ids` (owner[k]: the run of line k, of
 * `runs`) by baseline; per line, the runs with a line within tol of its
 * baseline (its own included), each once; per pair key (run of the line) *
 * runs + (run met), sorted, how many lines met it: the distinct keys and
 * their counts, malloc'd into *keys_out and *counts_out (the caller frees
 * both), their number returned, or -1 with MemoryError set. */
static Py_ssize_t shared_keys(const double *Y0, const double *Y1, const int64_t *ids, const int64_t *owner,
                              Py_ssize_t n, Py_ssize_t runs, double descent, double tol,
                              int64_t **keys_out, int64_t **counts_out) {
    Py_ssize_t cap = n ? n : 1, distinct = -1;
    double *base = calloc(cap, sizeof(double)), *sbase = malloc(cap * sizeof(double));
    int64_t *order = malloc(cap * sizeof(int64_t)), *tmp = malloc(cap * sizeof(int64_t));
    int64_t *sowner = malloc(cap * sizeof(int64_t)), *seen = malloc((runs ? runs : 1) * sizeof(int64_t));
    int64_t *keys = NULL, *counts = NULL;
    if (!base || !sbase || !order || !tmp || !sowner || !seen) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < n; k++) base[k] = unit_baseline(Y0, Y1, ids[k], descent);
    stable_argsort(base, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) { sbase[k] = base[order[k]]; sowner[k] = owner[order[k]]; }
    /* Pass 1 counts the keys, pass 2 writes them. */
    Py_ssize_t n_keys = 0;
    for (int pass = 0; pass < 2; pass++) {
        Py_ssize_t low = 0, high = 0, written = 0;
        for (Py_ssize_t r = 0; r < runs; r++) seen[r] = -1;
        for (Py_ssize_t k = 0; k < n; k++) {
            double lo = sbase[k] - tol, hi = sbase[k] + tol;
            /* searchsorted(base, lo, "left") and (base, hi, "right"); both grow with k. */
            while (low < n && np_less(sbase[low], lo)) low++;
            if (high < low) high = low;
            while (high < n && !np_less(hi, sbase[high])) high++;
            for (Py_ssize_t w = low; w < high; w++) {
                int64_t o = sowner[w];
                if (seen[o] == k) continue;
                seen[o] = k;
                if (pass) keys[written] = sowner[k] * (int64_t)runs + o;
                written++;
            }
        }
        if (!pass) {
            n_keys = written;
            keys = malloc((n_keys ? n_keys : 1) * sizeof(int64_t));
            counts = malloc((n_keys ? n_keys : 1) * sizeof(int64_t));
            if (!keys || !counts) { PyErr_NoMemory(); goto done; }
        }
    }
    qsort(keys, (size_t)n_keys, sizeof(int64_t), cmp_int64);
    distinct = 0;
    for (Py_ssize_t k = 0; k < n_keys; k++) {
        if (distinct && keys[distinct - 1] == keys[k]) { counts[distinct - 1]++; continue; }
        keys[distinct] = keys[k];
        counts[distinct++] = 1;
    }
done:
    free(base); free(sbase); free(order); free(tmp); free(sowner); free(seen);
    if (distinct < 0) { free(keys); free(counts); keys = counts = NULL; }
    *keys_out = keys;
    *counts_out = counts;
    return distinct;
}

/* ---- shared_baselines(y0, y1, ids, lengths, descent, tol) -> (pairs, counts)
 * kernels.shared_baseline_counts: shared_keys of the lines `ids` (runs of
 * `lengths` lines each, concatenated). */
static PyObject *layout_shared_baselines(PyObject *mod, PyObject *args) {
    PyObject *y0_obj, *y1_obj, *ids_obj, *len_obj;
    double descent, tol;
    if (!PyArg_ParseTuple(args, "OOOOdd", &y0_obj, &y1_obj, &ids_obj, &len_obj, &descent, &tol)) return NULL;
    View v0 = {0}, v1 = {0}, vi = {0}, vl = {0};
    PyObject *result = NULL;
    int64_t *owner = NULL, *keys = NULL, *counts = NULL;
    if (get_view(y0_obj, &v0, "d", 8, "y0") < 0 || get_view(y1_obj, &v1, "d", 8, "y1") < 0 ||
        get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(len_obj, &vl, "l", 8, "lengths") < 0)
        goto done;
    Py_ssize_t size = v0.view.len / 8, n = vi.view.len / 8, runs = vl.view.len / 8;
    if (v1.view.len / 8 != size) { PyErr_SetString(PyExc_ValueError, "y0 and y1 differ in length"); goto done; }
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    if (check_ids(ids, n, size, "ids") < 0) goto done;
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < runs; r++) {
        if (lengths[r] < 0 || lengths[r] > n - total) {
            PyErr_SetString(PyExc_ValueError, lengths[r] < 0 ? "negative run length" : "run lengths do not add up to the lines");
            goto done;
        }
        total += (Py_ssize_t)lengths[r];
    }
    if (total != n) { PyErr_SetString(PyExc_ValueError, "run lengths do not add up to the lines"); goto done; }
    owner = malloc((n ? n : 1) * sizeof(int64_t));
    if (!owner) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t r = 0, k = 0; r < runs; r++)
        for (int64_t j = 0; j < lengths[r]; j++, k++) owner[k] = r;
    Py_ssize_t distinct = shared_keys(v0.view.buf, v1.view.buf, ids, owner, n, runs, descent, tol, &keys, &counts);
    if (distinct < 0) goto done;
    result = Py_BuildValue("(NN)", int64_bytes(keys, distinct), int64_bytes(counts, distinct));
done:
    free(owner); free(keys); free(counts);
    release(&v0); release(&v1); release(&vi); release(&vl);
    return result;
}

/* ---- pair_shared(y0, y1, a, b, descent, tol) -> int
 * kernels.shared_pair (regions.shared_rows): of the two runs of lines a
 * and b, shared_baselines' count for the shorter one (a on a tie) against
 * the other, 0 where they meet nowhere; one call, no keys handed back. */
static PyObject *layout_pair_shared(PyObject *mod, PyObject *args) {
    PyObject *y0_obj, *y1_obj, *a_obj, *b_obj;
    double descent, tol;
    if (!PyArg_ParseTuple(args, "OOOOdd", &y0_obj, &y1_obj, &a_obj, &b_obj, &descent, &tol)) return NULL;
    View v0 = {0}, v1 = {0}, va = {0}, vb = {0};
    PyObject *result = NULL;
    int64_t *ids = NULL, *owner = NULL, *keys = NULL, *counts = NULL;
    if (get_view(y0_obj, &v0, "d", 8, "y0") < 0 || get_view(y1_obj, &v1, "d", 8, "y1") < 0 ||
        get_view(a_obj, &va, "l", 8, "a") < 0 || get_view(b_obj, &vb, "l", 8, "b") < 0)
        goto done;
    Py_ssize_t size = v0.view.len / 8, na = va.view.len / 8, nb = vb.view.len / 8;
    if (v1.view.len / 8 != size) { PyErr_SetString(PyExc_ValueError, "y0 and y1 differ in length"); goto done; }
    if (check_ids(va.view.buf, na, size, "a") < 0 || check_ids(vb.view.buf, nb, size, "b") < 0) goto done;
    ids = malloc((na + nb ? na + nb : 1) * sizeof(int64_t));
    owner = malloc((na + nb ? na + nb : 1) * sizeof(int64_t));
    if (!ids || !owner) { PyErr_NoMemory(); goto done; }
    memcpy(ids, va.view.buf, (size_t)na * sizeof(int64_t));
    memcpy(ids + na, vb.view.buf, (size_t)nb * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < na + nb; k++) owner[k] = k < na ? 0 : 1;
    Py_ssize_t distinct = shared_keys(v0.view.buf, v1.view.buf, ids, owner, na + nb, 2, descent, tol, &keys, &counts);
    if (distinct < 0) goto done;
    int64_t key = na <= nb ? 1 : 2, count = 0;
    for (Py_ssize_t k = 0; k < distinct; k++)
        if (keys[k] == key) count = counts[k];
    result = PyLong_FromLongLong((long long)count);
done:
    free(ids); free(owner); free(keys); free(counts);
    release(&v0); release(&v1); release(&va); release(&vb);
    return result;
}

/* ---- paint_run_cuts(x0, x1, y0, y1, ids, descent, tol, half_body, run_gap, gutter, rtl) -> cuts
 * kernels.paint_run_cuts: where the stream (lines `ids` in stream order)
 * leaves a block (leaves._paint_runs). */
/* paint_run_cuts' cuts of the lines ids[0..n) into cuts (n at most): their count. */
static Py_ssize_t paint_cuts_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                                Py_ssize_t n, double descent, double tol, double half_body, double run_gap, double gutter,
                                int rtl, int64_t *cuts) {
    Py_ssize_t n_cuts = 0;
    if (!n) return 0;
    double left = X0[ids[0]], right = X1[ids[0]];
    for (Py_ssize_t k = 1; k < n; k++) {
        int64_t a = ids[k - 1], b = ids[k];
        double base_a = unit_baseline(Y0, Y1, a, descent), base_b = unit_baseline(Y0, Y1, b, descent);
        int below = base_b <= base_a - half_body && Y0[a] - Y1[b] <= run_gap;
        below = below && py_min(right, X1[b]) > py_max(left, X0[b]);
        double step = rtl ? X0[a] - X1[b] : X0[b] - X1[a];
        int forward = -tol <= step && step < gutter;
        int same_row = py_min(Y1[b], Y1[a]) - py_max(Y0[b], Y0[a]) > tol && forward;
        if (below || same_row) {
            left = py_min(left, X0[b]);
            right = py_max(right, X1[b]);
        } else {
            cuts[n_cuts++] = k;
            left = X0[b];
            right = X1[b];
        }
    }
    return n_cuts;
}

static PyObject *layout_paint_run_cuts(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double descent, tol, half_body, run_gap, gutter;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOdddddp", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &descent, &tol,
                          &half_body, &run_gap, &gutter, &rtl))
        return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *cuts = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf;
    cuts = malloc((n ? n : 1) * sizeof(int64_t));
    if (!cuts) { PyErr_NoMemory(); goto done; }
    Py_ssize_t n_cuts = paint_cuts_of(X0, X1, Y0, Y1, ids, n, descent, tol, half_body, run_gap, gutter, rtl, cuts);
    result = int64_bytes(cuts, n_cuts);
done:
    free(cuts);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ---- kahn(before) -> order, or None on a cycle ---------------------------
 * kernels.kahn: a topological order of the relation before[i, j] (n x n
 * bool), the smallest free node first (a binary min-heap). */
static void heap_push(int64_t *heap, Py_ssize_t *size, int64_t value) {
    Py_ssize_t i = (*size)++;
    while (i > 0) {
        Py_ssize_t parent = (i - 1) / 2;
        if (heap[parent] <= value) break;
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = value;
}

static int64_t heap_pop(int64_t *heap, Py_ssize_t *size) {
    int64_t top = heap[0], last = heap[--(*size)];
    Py_ssize_t i = 0;
    for (;;) {
        Py_ssize_t child = 2 * i + 1;
        if (child >= *size) break;
        if (child + 1 < *size && heap[child + 1] < heap[child]) child++;
        if (heap[child] >= last) break;
        heap[i] = heap[child];
        i = child;
    }
    if (*size) heap[i] = last;
    return top;
}

/* kahn's body over the n x n relation B (row-major): the order into out
 * (n), the free node of least number first; how many nodes it ordered (n
 * but on a cycle), or -1 out of memory (no exception set). */
static Py_ssize_t kahn_of(const unsigned char *B, Py_ssize_t n, int64_t *out) {
    Py_ssize_t cap = n ? n : 1;
    int64_t *indegree = calloc(cap, sizeof(int64_t)), *heap = malloc(cap * sizeof(int64_t));
    if (!indegree || !heap) { free(indegree); free(heap); return -1; }
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < n; j++) indegree[j] += B[i * n + j] != 0;
    Py_ssize_t size = 0, done_count = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (!indegree[k]) heap_push(heap, &size, k);
    while (size) {
        int64_t k = heap_pop(heap, &size);
        out[done_count++] = k;
        for (Py_ssize_t j = 0; j < n; j++)
            if (B[k * n + j] && --indegree[j] == 0) heap_push(heap, &size, j);
    }
    free(indegree); free(heap);
    return done_count;
}

static PyObject *layout_kahn(PyObject *mod, PyObject *arg) {
    View vb = {0};
    PyObject *result = NULL;
    int64_t *out = NULL;
    if (get_view(arg, &vb, "?", 1, "before") < 0) goto done;
    Py_ssize_t cells = vb.view.len, n = 0;
    while (n * n < cells) n++;
    if (n * n != cells) { PyErr_SetString(PyExc_ValueError, "before must be square"); goto done; }
    out = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
    Py_ssize_t done_count = out ? kahn_of(vb.view.buf, n, out) : -1;
    if (done_count < 0) { PyErr_NoMemory(); goto done; }
    if (done_count == n) result = int64_bytes(out, n);
    else { result = Py_None; Py_INCREF(result); }
done:
    free(out);
    release(&vb);
    return result;
}

/* The length of the longest non-decreasing subsequence of values[0..n-1]
 * (patience sorting with bisect_right, as kernels.stream_disorder does);
 * `tails` holds n items. */
static Py_ssize_t non_decreasing_run(const int64_t *values, Py_ssize_t n, int64_t *tails) {
    Py_ssize_t longest = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        Py_ssize_t lo = 0, hi = longest;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (values[k] < tails[mid]) hi = mid; else lo = mid + 1;
        }
        tails[lo] = values[k];
        if (lo == longest) longest++;
    }
    return longest;
}

/* ---- disorder(ids, lengths) -> int ---------------------------------------
 * kernels.stream_disorder: the parts (runs of `lengths` of the units `ids`,
 * concatenated in reading order) labelled by part, the labels in stream
 * order (ids ascending, stable), less the longest non-decreasing run of them. */
static PyObject *layout_disorder(PyObject *mod, PyObject *args) {
    PyObject *ids_obj, *len_obj;
    if (!PyArg_ParseTuple(args, "OO", &ids_obj, &len_obj)) return NULL;
    View vi = {0}, vl = {0};
    PyObject *result = NULL;
    int64_t *label = NULL, *order = NULL, *tmp = NULL, *tails = NULL;
    if (get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(len_obj, &vl, "l", 8, "lengths") < 0) goto done;
    Py_ssize_t n = vi.view.len / 8, parts = vl.view.len / 8;
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    Py_ssize_t cap = n ? n : 1, total = 0;
    label = malloc(cap * sizeof(int64_t)); order = malloc(cap * sizeof(int64_t));
    tmp = malloc(cap * sizeof(int64_t)); tails = malloc(cap * sizeof(int64_t));
    if (!label || !order || !tmp || !tails) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t p = 0; p < parts; p++) {
        if (lengths[p] < 0 || total + lengths[p] > n) { PyErr_SetString(PyExc_ValueError, "bad part lengths"); goto done; }
        for (int64_t j = 0; j < lengths[p]; j++) label[total++] = p;
    }
    if (total != n) { PyErr_SetString(PyExc_ValueError, "part lengths do not add up to the units"); goto done; }
    stable_argsort_int(ids, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) tmp[k] = label[order[k]];
    result = PyLong_FromSsize_t(n - non_decreasing_run(tmp, n, tails));
done:
    free(label); free(order); free(tmp); free(tails);
    release(&vi); release(&vl);
    return result;
}

/* ---- text_classes(texts, order) -> (alpha, space) ------------------------
 * Per glyph text, str.isalpha() and str.isspace() as bool bytes: every
 * character a letter (a blank), and at least one. `texts` is a list of str
 * or the glyph table's text column (a contiguous object array, read in place
 * through the buffer protocol, format "O"); `order` (int64, or None for all
 * of them in turn) the texts to classify: a page's stream reads its column
 * in place, with no copy of it gathered and listed first. The loop calls
 * back into nothing, so the borrowed items stay alive while it reads them. */
/* str.isalpha() and str.isspace() of one glyph text into *alpha and *space;
 * -1 with an exception set where it is no str. Inlined into the loops that
 * ask it per glyph: as a call, its entry and exit were a third of its cost. */
static inline __attribute__((always_inline)) int text_class(PyObject *text, char *alpha, char *space) {
    if (!text || !PyUnicode_Check(text)) { PyErr_SetString(PyExc_TypeError, "glyph texts must be str"); return -1; }
    Py_ssize_t len = PyUnicode_GET_LENGTH(text);
    if (len == 1 && PyUnicode_IS_ASCII(text)) {
        /* Most glyphs: one ASCII character, whose letters are exactly A-Z and a-z. */
        Py_UCS1 ch = PyUnicode_1BYTE_DATA(text)[0], folded = ch | 0x20;
        *alpha = (char)(folded >= 'a' && folded <= 'z');
        *space = (char)Py_UNICODE_ISSPACE(ch);
        return 0;
    }
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    int is_alpha = len > 0, is_space = len > 0;
    for (Py_ssize_t c = 0; c < len && (is_alpha || is_space); c++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, c);
        is_alpha = is_alpha && Py_UNICODE_ISALPHA(ch);
        is_space = is_space && Py_UNICODE_ISSPACE(ch);
    }
    *alpha = (char)is_alpha;
    *space = (char)is_space;
    return 0;
}

static PyObject *layout_text_classes(PyObject *mod, PyObject *args) {
    PyObject *texts, *order_obj;
    if (!PyArg_ParseTuple(args, "OO", &texts, &order_obj)) return NULL;
    View vt = {0}, vo = {0};
    PyObject *alpha = NULL, *space = NULL;
    PyObject *const *items;
    Py_ssize_t size;
    if (PyList_Check(texts)) {
        items = PySequence_Fast_ITEMS(texts);
        size = PyList_GET_SIZE(texts);
    } else {
        if (get_view(texts, &vt, "O", (Py_ssize_t)sizeof(PyObject *), "texts") < 0) goto fail;
        items = (PyObject *const *)vt.view.buf;
        size = vt.view.len / (Py_ssize_t)sizeof(PyObject *);
    }
    const int64_t *order = NULL;
    Py_ssize_t n = size;
    if (order_obj != Py_None) {
        if (get_view(order_obj, &vo, "l", 8, "order") < 0) goto fail;
        order = vo.view.buf;
        n = vo.view.len / 8;
    }
    alpha = PyByteArray_FromStringAndSize(NULL, n);
    space = PyByteArray_FromStringAndSize(NULL, n);
    if (!alpha || !space) goto fail;
    char *A = PyByteArray_AS_STRING(alpha), *S = PyByteArray_AS_STRING(space);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t at = order ? (Py_ssize_t)order[i] : i;
        if (at < 0 || at >= size) { PyErr_SetString(PyExc_IndexError, "text index out of range"); goto fail; }
        if (text_class(items[at], &A[i], &S[i]) < 0) goto fail;
    }
    release(&vt); release(&vo);
    return Py_BuildValue("(NN)", alpha, space);
fail:
    release(&vt); release(&vo);
    Py_XDECREF(alpha); Py_XDECREF(space);
    return NULL;
}

/* letter_counts' body: of an even sample of the glyphs of units ids[0..n)
 * (glyphs start[u]:end[u] of `glyphs`, in turn; every max(1, total //
 * sample)-th), the letters and the glyphs that are no blanks; -1 with an
 * exception set where a unit's glyphs lie out of range. */
static int sample_letters(const int64_t *start, const int64_t *end, Py_ssize_t glyphs, const int64_t *ids, Py_ssize_t n,
                          const unsigned char *alpha, const unsigned char *space, Py_ssize_t sample,
                          Py_ssize_t *letters_out, Py_ssize_t *inked_out) {
    Py_ssize_t total = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t u = ids[k];
        if (start[u] < 0 || end[u] < start[u] || end[u] > glyphs) { PyErr_SetString(PyExc_IndexError, "unit out of range"); return -1; }
        total += (Py_ssize_t)(end[u] - start[u]);
    }
    Py_ssize_t step = sample > 0 ? total / sample : 0;
    if (step < 1) step = 1;
    Py_ssize_t letters = 0, taken = 0, blanks = 0, offset = 0, next = 0;
    for (Py_ssize_t k = 0; k < n && next < total; k++) {
        int64_t u = ids[k];
        Py_ssize_t length = (Py_ssize_t)(end[u] - start[u]);
        /* Empty units take no sample: np.searchsorted(offset, picked, "right") - 1 skips them. */
        while (next < offset + length) {
            Py_ssize_t g = (Py_ssize_t)start[u] + next - offset;
            letters += alpha[g] != 0;
            blanks += space[g] != 0;
            taken++;
            next += step;
        }
        offset += length;
    }
    *letters_out = letters;
    *inked_out = taken - blanks;
    return 0;
}

/* ---- letter_counts(start, end, ids, alpha, space, sample) -> (letters, inked)
 * kernels.letter_counts: the glyphs of units `ids` (glyphs start[u]:end[u]
 * of the stream, in turn) taken every max(1, total // sample) of them; how
 * many are letters, and how many are not blanks. */
static PyObject *layout_letter_counts(PyObject *mod, PyObject *args) {
    PyObject *start_obj, *end_obj, *ids_obj, *alpha_obj, *space_obj;
    Py_ssize_t sample;
    if (!PyArg_ParseTuple(args, "OOOOOn", &start_obj, &end_obj, &ids_obj, &alpha_obj, &space_obj, &sample)) return NULL;
    View vs = {0}, ve = {0}, vi = {0}, va = {0}, vb = {0};
    PyObject *result = NULL;
    if (get_view(start_obj, &vs, "l", 8, "start") < 0 || get_view(end_obj, &ve, "l", 8, "end") < 0 ||
        get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(alpha_obj, &va, "?", 1, "alpha") < 0 ||
        get_view(space_obj, &vb, "?", 1, "space") < 0)
        goto done;
    Py_ssize_t units = vs.view.len / 8, n = vi.view.len / 8, glyphs = va.view.len;
    if (ve.view.len / 8 != units || vb.view.len != glyphs) { PyErr_SetString(PyExc_ValueError, "columns differ in length"); goto done; }
    const int64_t *start = vs.view.buf, *end = ve.view.buf, *ids = vi.view.buf;
    const unsigned char *alpha = va.view.buf, *space = vb.view.buf;
    if (check_ids(ids, n, units, "ids") < 0) goto done;
    Py_ssize_t letters, inked;
    if (sample_letters(start, end, glyphs, ids, n, alpha, space, sample, &letters, &inked) < 0) goto done;
    result = Py_BuildValue("(nn)", letters, inked);
done:
    release(&vs); release(&ve); release(&vi); release(&va); release(&vb);
    return result;
}

/* ---- stream_visits(region, part) -> (part sorted, cuts) -------------------
 * kernels.stream_visit_cuts: `part` sorted, and where a unit of the sorted
 * `region` that is not in `part` comes between two of its units. */
/* Where a unit of the sorted region[0..m) not in the sorted part[0..n) comes
 * between two of the part's units (np.searchsorted(region, part) steps by
 * more than one): those positions into cuts (n long), their count returned. */
static Py_ssize_t visit_cuts(const int64_t *region, Py_ssize_t m, const int64_t *sorted, Py_ssize_t n, int64_t *cuts) {
    Py_ssize_t n_cuts = 0, previous = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        /* np.searchsorted(region, part, "left") */
        Py_ssize_t lo = 0, hi = m;
        while (lo < hi) {
            Py_ssize_t mid = (lo + hi) / 2;
            if (region[mid] < sorted[k]) lo = mid + 1; else hi = mid;
        }
        if (k && lo - previous > 1) cuts[n_cuts++] = k;
        previous = lo;
    }
    return n_cuts;
}

static PyObject *layout_stream_visits(PyObject *mod, PyObject *args) {
    PyObject *region_obj, *part_obj;
    if (!PyArg_ParseTuple(args, "OO", &region_obj, &part_obj)) return NULL;
    View vr = {0}, vp = {0};
    PyObject *result = NULL;
    int64_t *sorted = NULL, *cuts = NULL;
    if (get_view(region_obj, &vr, "l", 8, "region") < 0 || get_view(part_obj, &vp, "l", 8, "part") < 0) goto done;
    Py_ssize_t m = vr.view.len / 8, n = vp.view.len / 8;
    sorted = malloc((n ? n : 1) * sizeof(int64_t)); cuts = malloc((n ? n : 1) * sizeof(int64_t));
    if (!sorted || !cuts) { PyErr_NoMemory(); goto done; }
    memcpy(sorted, vp.view.buf, (size_t)n * sizeof(int64_t));
    qsort(sorted, (size_t)n, sizeof(int64_t), cmp_int64);
    Py_ssize_t n_cuts = visit_cuts(vr.view.buf, m, sorted, n, cuts);
    result = Py_BuildValue("(NN)", int64_bytes(sorted, n), int64_bytes(cuts, n_cuts));
done:
    free(sorted); free(cuts);
    release(&vr); release(&vp);
    return result;
}

/* ---- run_boxes(x0, y0, x1, y1, ids, lengths) -> (x0, y0, x1, y1) per run --
 * kernels.run_boxes: the box of each run of units (none empty),
 * np.minimum / np.maximum over its units. */
static PyObject *layout_run_boxes(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    if (!PyArg_ParseTuple(args, "OOOOOO", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj)) return NULL;
    View v[4], vi = {0}, vl = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    double *out = NULL;
    static const char *names[4] = {"x0", "y0", "x1", "y1"};
    for (int c = 0; c < 4; c++)
        if (get_view(obj[c], &v[c], "d", 8, names[c]) < 0) goto done;
    if (get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(len_obj, &vl, "l", 8, "lengths") < 0) goto done;
    Py_ssize_t size = v[0].view.len / 8, n = vi.view.len / 8, runs = vl.view.len / 8;
    for (int c = 1; c < 4; c++)
        if (v[c].view.len / 8 != size) { PyErr_SetString(PyExc_ValueError, "unit columns differ in length"); goto done; }
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    if (check_ids(ids, n, size, "ids") < 0) goto done;
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < runs; r++) {
        if (lengths[r] < 1 || lengths[r] > n - total) { PyErr_SetString(PyExc_ValueError, "bad run lengths"); goto done; }
        total += (Py_ssize_t)lengths[r];
    }
    if (total != n) { PyErr_SetString(PyExc_ValueError, "run lengths do not add up to the units"); goto done; }
    out = malloc((runs ? 4 * runs : 1) * sizeof(double));
    if (!out) { PyErr_NoMemory(); goto done; }
    const double *X0 = v[0].view.buf, *Y0 = v[1].view.buf, *X1 = v[2].view.buf, *Y1 = v[3].view.buf;
    for (Py_ssize_t r = 0, k = 0; r < runs; r++) {
        double a = X0[ids[k]], b = Y0[ids[k]], c = X1[ids[k]], d = Y1[ids[k]];
        Py_ssize_t end = k + (Py_ssize_t)lengths[r];
        for (k++; k < end; k++) {
            a = np_min(a, X0[ids[k]]); b = np_min(b, Y0[ids[k]]);
            c = np_max(c, X1[ids[k]]); d = np_max(d, Y1[ids[k]]);
        }
        out[r] = a; out[runs + r] = b; out[2 * runs + r] = c; out[3 * runs + r] = d;
    }
    result = PyByteArray_FromStringAndSize((const char *)out, 4 * runs * (Py_ssize_t)sizeof(double));
done:
    free(out);
    for (int c = 0; c < 4; c++) release(&v[c]);
    release(&vi); release(&vl);
    return result;
}

/* get_run_terms' terms of the n runs (boxes X0, X1, Y1): top = y1 - stacked,
 * start = x0 + tol, edge = -x1 on an `rtl` page, else x0. */
static void run_terms(const double *X0, const double *X1, const double *Y1, Py_ssize_t n, double stacked, double tol,
                      int rtl, double *top, double *start, double *edge) {
    for (Py_ssize_t k = 0; k < n; k++) {
        top[k] = Y1[k] - stacked;
        start[k] = X0[k] + tol;
        edge[k] = rtl ? -X1[k] : X0[k];
    }
}

/* The four float64 columns of run boxes (x0, y0, x1, y1), all one length,
 * and the per-run terms run_pairs and run_stacking broadcast, computed once
 * (the same doubles as numpy's): top[k] = y1[k] - stacked, start[k] = x0[k]
 * + tol, edge[k] = -x1[k] on an `rtl` page, else x0[k], in one malloc'd
 * block of three columns at *terms (the caller frees it). The run count, or
 * -1 with an exception set. */
static Py_ssize_t get_run_terms(PyObject *const obj[4], View v[4], double stacked, double tol, int rtl, double **terms) {
    static const char *names[4] = {"x0", "y0", "x1", "y1"};
    for (int c = 0; c < 4; c++)
        if (get_view(obj[c], &v[c], "d", 8, names[c]) < 0) return -1;
    Py_ssize_t n = v[0].view.len / 8;
    for (int c = 1; c < 4; c++)
        if (v[c].view.len / 8 != n) { PyErr_SetString(PyExc_ValueError, "run columns differ in length"); return -1; }
    size_t cap = n ? (size_t)n : 1;
    double *top = *terms = malloc(3 * cap * sizeof(double));
    if (!top) { PyErr_NoMemory(); return -1; }
    run_terms(v[0].view.buf, v[2].view.buf, v[3].view.buf, n, stacked, tol, rtl, top, top + cap, top + 2 * cap);
    return n;
}

/* One row i of run_pairs: restrict, so that the byte stores (which may alias
 * anything) do not force the columns to be reloaded, and the loops vectorize;
 * flush `f` only where it is asked for (NULL otherwise). */
static void run_pairs_row(Py_ssize_t n, double y0, double x1, double reach, double e, double tol,
                          const double *restrict top, const double *restrict start, const double *restrict X1,
                          const double *restrict edge, char *restrict a, char *restrict p, char *restrict f) {
    for (Py_ssize_t j = 0; j < n; j++) {
        a[j] = y0 >= top[j];
        p[j] = (x1 <= start[j]) | (X1[j] <= reach);
    }
    if (f)
        for (Py_ssize_t j = 0; j < n; j++) f[j] = fabs(e - edge[j]) <= tol;
}

/* ---- run_pairs(x0, y0, x1, y1, stacked, tol, rtl, flush) -> (above, apart[, flush])
 * kernels.run_pairs (leaves._boxes, _stacked_in_place): per pair (i, j) of
 * runs (their boxes x0, y0, x1, y1, one per run), n x n bools each: run i
 * lies above run j (y0[i] >= y1[j] - stacked), they are apart along the line
 * (x1[i] <= x0[j] + tol or x1[j] <= x0[i] + tol), and, where `flush` asks,
 * they are flush on the edge lines start from (|e[i] - e[j]| <= tol,
 * e = -x1 on an `rtl` page, else x0). NaN compares false, as in numpy. */
static PyObject *layout_run_pairs(PyObject *mod, PyObject *args) {
    PyObject *obj[4];
    double stacked, tol;
    int rtl, with_flush;
    if (!PyArg_ParseTuple(args, "OOOOddpp", &obj[0], &obj[1], &obj[2], &obj[3], &stacked, &tol, &rtl, &with_flush))
        return NULL;
    View v[4];
    memset(v, 0, sizeof v);
    PyObject *result = NULL, *above = NULL, *apart = NULL, *flush = NULL;
    double *top = NULL;
    Py_ssize_t n = get_run_terms(obj, v, stacked, tol, rtl, &top);
    if (n < 0) goto done;
    if (n > 0 && n > PY_SSIZE_T_MAX / n) { PyErr_NoMemory(); goto done; }
    const double *Y0 = v[1].view.buf, *X1 = v[2].view.buf;
    size_t cap = n ? (size_t)n : 1;
    const double *start = top + cap, *edge = start + cap;
    above = PyByteArray_FromStringAndSize(NULL, n * n);
    apart = PyByteArray_FromStringAndSize(NULL, n * n);
    if (with_flush) flush = PyByteArray_FromStringAndSize(NULL, n * n);
    if (!above || !apart || (with_flush && !flush)) goto done;
    char *A = PyByteArray_AS_STRING(above), *P = PyByteArray_AS_STRING(apart);
    char *F = flush ? PyByteArray_AS_STRING(flush) : NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        run_pairs_row(n, Y0[i], X1[i], start[i], edge[i], tol, top, start, X1, edge, A + i * n, P + i * n,
                      F ? F + i * n : NULL);
    result = flush ? PyTuple_Pack(3, above, apart, flush) : PyTuple_Pack(2, above, apart);
done:
    free(top);
    Py_XDECREF(above); Py_XDECREF(apart); Py_XDECREF(flush);
    for (int c = 0; c < 4; c++) release(&v[c]);
    return result;
}

/* Runs j in [lo, hi) against run i for run_stacking (i itself left out by
 * the caller): how many j run i lies above (added to *above), how many of
 * them are stacked with it (not apart, flush; added to *stacked), and per j
 * whether i does not lie above it (added to not_above[j]). Branch-free: one
 * comparison chain per pair, no n x n store. */
static void run_stacking_row(Py_ssize_t lo, Py_ssize_t hi, double y0, double x1, double reach, double e, double tol,
                             const double *restrict top, const double *restrict start, const double *restrict X1,
                             const double *restrict edge, int64_t *restrict not_above, int64_t *above,
                             int64_t *stacked) {
    int64_t a_sum = 0, s_sum = 0;
    for (Py_ssize_t j = lo; j < hi; j++) {
        int64_t a = y0 >= top[j];
        int64_t s = a & !((x1 <= start[j]) | (X1[j] <= reach)) & (fabs(e - edge[j]) <= tol);
        a_sum += a;
        s_sum += s;
        not_above[j] += 1 - a;
    }
    *above += a_sum;
    *stacked += s_sum;
}

/* run_stacking's counts of the n runs (Y0, X1 and run_terms' top, start,
 * edge): into *out, and the top and bottom runs into top_ids and bottom_ids
 * (n each); not_above is a zeroed work buffer of n. */
typedef struct { Py_ssize_t pairs, upward, runs_up, tops, bottoms; } Stacking;

/* stacking_counts by every pair: the reference of the sorted path below,
 * and the path where the flush tolerance is no finite number. */
static void stacking_counts_pairwise(Py_ssize_t n, const double *Y0, const double *X1, const double *top,
                                     const double *start, const double *edge, double tol, int64_t *not_above,
                                     int64_t *top_ids, int64_t *bottom_ids, Stacking *out) {
    Stacking s = {0, 0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t above = 0, before = 0, after = 0;  /* stacked pairs with j < i, with j > i */
        run_stacking_row(0, i, Y0[i], X1[i], start[i], edge[i], tol, top, start, X1, edge, not_above, &above, &before);
        run_stacking_row(i + 1, n, Y0[i], X1[i], start[i], edge[i], tol, top, start, X1, edge, not_above, &above, &after);
        s.pairs += before + after;
        s.upward += before;
        s.runs_up += before > 0;
        if (above == n - 1) top_ids[s.tops++] = i;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (!not_above[k]) bottom_ids[s.bottoms++] = k;
    *out = s;
}

typedef struct { double key; Py_ssize_t at; } KeyAt;

static int cmp_key_at(const void *a, const void *b) {
    double x = ((const KeyAt *)a)->key, y = ((const KeyAt *)b)->key;
    return (x > y) - (x < y);
}

/* The non-NaN values[0..n) ascending into keys (their runs in .at); their count. */
static Py_ssize_t sorted_keys(const double *values, Py_ssize_t n, int finite_only, KeyAt *keys) {
    Py_ssize_t m = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (finite_only ? isfinite(values[k]) : !isnan(values[k])) keys[m++] = (KeyAt){values[k], k};
    qsort(keys, (size_t)m, sizeof(KeyAt), cmp_key_at);
    return m;
}

/* How many of keys[0..m) (ascending, no NaN) are <= y (none where y is NaN). */
static Py_ssize_t count_at_most(const KeyAt *keys, Py_ssize_t m, double y) {
    Py_ssize_t lo = 0, hi = m;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (keys[mid].key <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* How many of keys[0..m) (ascending, no NaN) are < y; m where y is NaN. */
static Py_ssize_t count_below(const KeyAt *keys, Py_ssize_t m, double y) {
    Py_ssize_t lo = 0, hi = m;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (!(keys[mid].key >= y)) lo = mid + 1; else hi = mid;
    }
    return lo;
}

/* run_stacking's counts of the n runs (Y0, X1 and run_terms' top, start,
 * edge): into *out, and the top and bottom runs into top_ids and bottom_ids
 * (n each); not_above is a zeroed work buffer of n. The same comparisons as
 * stacking_counts_pairwise, without the n x n pairs (a leaf of a table's
 * single lines has a thousand runs): how many runs each lies above, and how
 * many lie above it, are counted in the sorted tops and bottoms; a stacked
 * pair is flush (edges within tol, both finite), so only runs whose edges
 * lie within a window wider than tol (a superset: the exact test decides)
 * are compared. -1 where the work buffers cannot be had (no error set). */
static int stacking_counts(Py_ssize_t n, const double *Y0, const double *X1, const double *top, const double *start,
                           const double *edge, double tol, int64_t *not_above, int64_t *top_ids, int64_t *bottom_ids,
                           Stacking *out) {
    if (!isfinite(tol) || n < 2) {
        stacking_counts_pairwise(n, Y0, X1, top, start, edge, tol, not_above, top_ids, bottom_ids, out);
        return 0;
    }
    KeyAt *keys = malloc(3 * (size_t)n * sizeof(KeyAt));
    if (!keys) return -1;
    KeyAt *tops = keys, *bottoms = keys + n, *edges = keys + 2 * n;
    Py_ssize_t n_tops = sorted_keys(top, n, 0, tops), n_bottoms = sorted_keys(Y0, n, 0, bottoms);
    Py_ssize_t n_edges = sorted_keys(edge, n, 1, edges);
    Stacking s = {0, 0, 0, 0, 0};
    for (Py_ssize_t i = 0; i < n; i++) {
        int self = Y0[i] >= top[i];
        /* Runs i lies above (Y0[i] >= top[j]), and runs lying above i (Y0[j] >= top[i]), i itself left out. */
        Py_ssize_t above = count_at_most(tops, n_tops, Y0[i]) - self;
        Py_ssize_t over_it = n_bottoms - count_below(bottoms, n_bottoms, top[i]) - self;
        not_above[i] = (n - 1) - over_it;
        if (above == n - 1) top_ids[s.tops++] = i;
        if (!isfinite(edge[i])) continue;
        double reach = 2.0 * fabs(tol) + 1.0 + 1e-9 * fabs(edge[i]);
        Py_ssize_t lo = count_below(edges, n_edges, edge[i] - reach), hi = count_at_most(edges, n_edges, edge[i] + reach);
        int64_t before = 0, after = 0;
        for (Py_ssize_t k = lo; k < hi; k++) {
            Py_ssize_t j = edges[k].at;
            if (j == i) continue;
            int64_t a = Y0[i] >= top[j];
            int64_t st = a & !((X1[i] <= start[j]) | (X1[j] <= start[i])) & (fabs(edge[i] - edge[j]) <= tol);
            if (j < i) before += st; else after += st;
        }
        s.pairs += before + after;
        s.upward += before;
        s.runs_up += before > 0;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (!not_above[k]) bottom_ids[s.bottoms++] = k;
    free(keys);
    *out = s;
    return 0;
}

/* ---- run_stacking(x0, y0, x1, y1, stacked, tol, rtl) -> (pairs, upward, runs_up, top, bottom)
 * kernels.run_stacking (leaves._stacked_in_place): of run_pairs' relations
 * (the same doubles, the same comparisons), what the leaf's order reads
 * without the n x n matrices: how many pairs (i, j), i != j, are stacked
 * (above, not apart, flush); how many of them upward (i painted after j,
 * j < i); how many runs i have such a j; and the runs above every other
 * (top) and below every other (bottom). */
static PyObject *layout_run_stacking(PyObject *mod, PyObject *args) {
    PyObject *obj[4];
    double stacked, tol;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOddp", &obj[0], &obj[1], &obj[2], &obj[3], &stacked, &tol, &rtl)) return NULL;
    View v[4];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    double *top = NULL;
    int64_t *ints = NULL;
    Py_ssize_t n = get_run_terms(obj, v, stacked, tol, rtl, &top);
    if (n < 0) goto done;
    size_t cap = n ? (size_t)n : 1;
    ints = calloc(3 * cap, sizeof(int64_t));
    if (!ints) { PyErr_NoMemory(); goto done; }
    Stacking s;
    if (stacking_counts(n, v[1].view.buf, v[2].view.buf, top, top + cap, top + 2 * cap, tol, ints, ints + cap, ints + 2 * cap, &s) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(nnnNN)", s.pairs, s.upward, s.runs_up, int64_bytes(ints + cap, s.tops), int64_bytes(ints + 2 * cap, s.bottoms));
done:
    free(top); free(ints);
    for (int c = 0; c < 4; c++) release(&v[c]);
    return result;
}

/* ---- side_by_side_pairs(x0, x1, y0, y1, ids, long_width, gutter) -> (width, long, pairs)
 * kernels.side_by_side_pairs (cut._may_hold_columns): the width of the
 * units `ids` (one at least: the largest x1 less the least x0, NaN
 * propagating); of those at least `long_width` wide, how many, and how
 * many neighbours in the order of their middles (y0 + y1, stable) overlap
 * across the line and lie a gutter apart along it. */
static PyObject *layout_side_by_side_pairs(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double long_width, gutter;
    if (!PyArg_ParseTuple(args, "OOOOOdd", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &long_width, &gutter)) return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *keep = NULL, *order = NULL, *tmp = NULL;
    double *key = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf;
    Py_ssize_t cap = n ? n : 1;
    keep = malloc(cap * sizeof(int64_t)); order = malloc(cap * sizeof(int64_t));
    tmp = malloc(cap * sizeof(int64_t)); key = malloc(cap * sizeof(double));
    if (!keep || !order || !tmp || !key) { PyErr_NoMemory(); goto done; }
    if (n < 1) { PyErr_SetString(PyExc_ValueError, "no units"); goto done; }
    double high = X1[ids[0]], low = X0[ids[0]];
    for (Py_ssize_t k = 1; k < n; k++) { high = np_max(high, X1[ids[k]]); low = np_min(low, X0[ids[k]]); }
    Py_ssize_t m = 0, pairs = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (X1[ids[k]] - X0[ids[k]] >= long_width) keep[m++] = ids[k];
    if (m >= 4) {
        for (Py_ssize_t k = 0; k < m; k++) key[k] = Y0[keep[k]] + Y1[keep[k]];
        stable_argsort(key, order, tmp, m);
        for (Py_ssize_t k = 0; k + 1 < m; k++) {
            int64_t a = keep[order[k]], b = keep[order[k + 1]];
            int overlap = np_min(Y1[a], Y1[b]) > np_max(Y0[a], Y0[b]);
            int apart = X0[b] - X1[a] >= gutter || X0[a] - X1[b] >= gutter;
            pairs += overlap && apart;
        }
    }
    result = Py_BuildValue("(dnn)", high - low, m, pairs);
done:
    free(keep); free(order); free(tmp); free(key);
    release_boxes(vbox); release(&vi);
    return result;
}

typedef struct { double extent; Py_ssize_t side_by_side; double glyphs; } RowStats;

/* row_measures' body, of units ids[0..n) in `rows` (>= 1) rows starting at
 * the checked S; extent and glyphs are work buffers of `rows`. */
static RowStats row_stats(const double *X0, const double *X1, const int64_t *inked, const int64_t *ids, Py_ssize_t n,
                          const int64_t *S, Py_ssize_t rows, double *extent, int64_t *glyphs) {
    Py_ssize_t side = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t first = (Py_ssize_t)S[r], end = r + 1 < rows ? (Py_ssize_t)S[r + 1] : n;
        double low = X0[ids[first]], high = X1[ids[first]], start = low, stop = high;
        int64_t count = inked[ids[first]];
        for (Py_ssize_t k = first + 1; k < end; k++) {
            low = np_min(low, X0[ids[k]]);
            high = np_max(high, X1[ids[k]]);
            start = np_max(start, X0[ids[k]]);
            stop = np_min(stop, X1[ids[k]]);
            count += inked[ids[k]];
        }
        extent[r] = high - low;
        glyphs[r] = count;
        side += end - first > 1 && start >= stop;
    }
    qsort(extent, (size_t)rows, sizeof(double), cmp_np_double);
    qsort(glyphs, (size_t)rows, sizeof(int64_t), cmp_int64);
    RowStats found = {extent[rows / 2], side, (double)glyphs[rows / 2]};
    return found;
}

/* ---- row_measures(x0, x1, inked, ids, starts) -> (extent, side by side, glyphs)
 * kernels.row_measures (regions._is_text_column): of the rows (units `ids`
 * in rows starting at `starts`), the median extent along the line (a row's
 * rightmost end less its leftmost start), how many rows hold units side by
 * side (several units, the rightmost start at or right of the leftmost
 * end), and the median of the rows' inked glyphs. Medians are the upper
 * ones of np.sort (NaN last). */
static PyObject *layout_row_measures(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *inked_obj, *ids_obj, *starts_obj;
    if (!PyArg_ParseTuple(args, "OOOOO", &x0_obj, &x1_obj, &inked_obj, &ids_obj, &starts_obj)) return NULL;
    View vx0 = {0}, vx1 = {0}, vk = {0}, vi = {0}, vs = {0};
    PyObject *result = NULL;
    double *extent = NULL;
    int64_t *glyphs = NULL;
    if (get_view(x0_obj, &vx0, "d", 8, "x0") < 0 || get_view(x1_obj, &vx1, "d", 8, "x1") < 0 ||
        get_view(inked_obj, &vk, "l", 8, "inked") < 0 || get_view(ids_obj, &vi, "l", 8, "ids") < 0 ||
        get_view(starts_obj, &vs, "l", 8, "starts") < 0)
        goto done;
    Py_ssize_t size = vx0.view.len / 8, n = vi.view.len / 8, rows = vs.view.len / 8;
    if (vx1.view.len / 8 != size || vk.view.len / 8 != size) { PyErr_SetString(PyExc_ValueError, "unit columns differ in length"); goto done; }
    if (rows <= 0) { PyErr_SetString(PyExc_ValueError, "no rows"); goto done; }
    const double *X0 = vx0.view.buf, *X1 = vx1.view.buf;
    const int64_t *inked = vk.view.buf, *ids = vi.view.buf, *S = vs.view.buf;
    if (check_ids(ids, n, size, "ids") < 0) goto done;
    for (Py_ssize_t r = 0; r < rows; r++)
        if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) { PyErr_SetString(PyExc_ValueError, "bad row starts"); goto done; }
    extent = malloc(rows * sizeof(double)); glyphs = malloc(rows * sizeof(int64_t));
    if (!extent || !glyphs) { PyErr_NoMemory(); goto done; }
    RowStats found = row_stats(X0, X1, inked, ids, n, S, rows, extent, glyphs);
    result = Py_BuildValue("(dnd)", found.extent, found.side_by_side, found.glyphs);
done:
    free(extent); free(glyphs);
    release(&vx0); release(&vx1); release(&vk); release(&vi); release(&vs);
    return result;
}

/* ---- back_up_moves(x0, x1, y0, y1, ids, descent, half_body, same_row, rtl) -> int
 * kernels.back_up_moves (leaves.reads_down): of the moves from line to line
 * of `ids`, how many go back up to a line above that overlaps the last
 * along the line or lies before it, or back along the row. */
/* back_up_moves' count over the moves between ids[0..n) in turn. */
static Py_ssize_t back_up_count(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                                Py_ssize_t n, double descent, double half_body, double same_row, int rtl) {
    Py_ssize_t count = 0;
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        int64_t a = ids[k], b = ids[k + 1];
        double base_a = unit_baseline(Y0, Y1, a, descent), base_b = unit_baseline(Y0, Y1, b, descent);
        int up = base_b >= base_a + half_body;
        int over = np_min(X1[a], X1[b]) > np_max(X0[a], X0[b]);
        int row = fabs(base_b - base_a) <= same_row;
        int back = rtl ? X0[b] >= X1[a] : X1[b] <= X0[a];
        count += (up && (over || back)) || (row && back);
    }
    return count;
}

static PyObject *layout_back_up_moves(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double descent, half_body, same_row;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOdddp", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &descent, &half_body,
                          &same_row, &rtl))
        return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    result = PyLong_FromSsize_t(back_up_count(X0, X1, Y0, Y1, vi.view.buf, n, descent, half_body, same_row, rtl));
done:
    release_boxes(vbox); release(&vi);
    return result;
}

/* ---- cell_disorder(bands, band_lengths, columns, column_lengths, units, band_first) -> int
 * kernels.cell_disorder: the units of a region cut into bands and into
 * columns (two partitions of the same units) numbered by cell, band by band
 * (`band_first`) or column by column; the units in stream order (ascending,
 * stable over the columns' order) less the longest run of them whose cell
 * numbers never go down. */
static int part_of(const int64_t *ids, const int64_t *lengths, Py_ssize_t parts, Py_ssize_t n, int64_t *out,
                   Py_ssize_t units) {
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0; p < parts; p++) {
        if (lengths[p] < 0 || k + lengths[p] > n) return -1;
        for (int64_t j = 0; j < lengths[p]; j++, k++) {
            if (ids[k] < 0 || ids[k] >= units) return -1;
            out[ids[k]] = p;
        }
    }
    return k == n ? 0 : -1;
}

/* cell_disorder's count: the bands (ids `bands`, runs `band_len`, n_bands of
 * them, nb units) and the columns (ids `cols`, runs `col_len`, n_columns of
 * them, n units), of `units` on the page; -1 with an exception set. */
static int cell_disorder_of(const int64_t *bands, const int64_t *band_len, Py_ssize_t n_bands, Py_ssize_t nb,
                            const int64_t *cols, const int64_t *col_len, Py_ssize_t n_columns, Py_ssize_t n,
                            Py_ssize_t units, int band_first, Py_ssize_t *out) {
    int status = -1;
    Py_ssize_t cap = units > 0 ? units : 1, ncap = n ? n : 1;
    /* A unit count whose bytes no size holds (cap x 8 would wrap to a few: every unit then written past them). */
    if (cap > PY_SSIZE_T_MAX / (Py_ssize_t)sizeof(int64_t)) { PyErr_NoMemory(); return -1; }
    int64_t *band_of = malloc(cap * sizeof(int64_t)), *column_of = malloc(cap * sizeof(int64_t));
    int64_t *order = malloc(ncap * sizeof(int64_t)), *tmp = malloc(ncap * sizeof(int64_t)), *tails = malloc(ncap * sizeof(int64_t));
    if (!band_of || !column_of || !order || !tmp || !tails) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t u = 0; u < units; u++) band_of[u] = column_of[u] = -1;
    if (part_of(bands, band_len, n_bands, nb, band_of, units) < 0 || part_of(cols, col_len, n_columns, n, column_of, units) < 0) {
        PyErr_SetString(PyExc_ValueError, "bad parts");
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (band_of[cols[k]] < 0) { PyErr_SetString(PyExc_ValueError, "a column's unit is in no band"); goto done; }
    stable_argsort_int(cols, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t u = cols[order[k]];
        tmp[k] = band_first ? band_of[u] * (int64_t)n_columns + column_of[u] : column_of[u] * (int64_t)n_bands + band_of[u];
    }
    *out = n - non_decreasing_run(tmp, n, tails);
    status = 0;
done:
    free(band_of); free(column_of); free(order); free(tmp); free(tails);
    return status;
}

static PyObject *layout_cell_disorder(PyObject *mod, PyObject *args) {
    PyObject *b_obj, *bl_obj, *c_obj, *cl_obj;
    Py_ssize_t units;
    int band_first;
    if (!PyArg_ParseTuple(args, "OOOOnp", &b_obj, &bl_obj, &c_obj, &cl_obj, &units, &band_first)) return NULL;
    View vb = {0}, vbl = {0}, vc = {0}, vcl = {0};
    PyObject *result = NULL;
    if (get_view(b_obj, &vb, "l", 8, "bands") < 0 || get_view(bl_obj, &vbl, "l", 8, "band lengths") < 0 ||
        get_view(c_obj, &vc, "l", 8, "columns") < 0 || get_view(cl_obj, &vcl, "l", 8, "column lengths") < 0)
        goto done;
    Py_ssize_t disorder;
    if (cell_disorder_of(vb.view.buf, vbl.view.buf, vbl.view.len / 8, vb.view.len / 8, vc.view.buf, vcl.view.buf,
                         vcl.view.len / 8, vc.view.len / 8, units, band_first, &disorder) == 0)
        result = PyLong_FromSsize_t(disorder);
done:
    release(&vb); release(&vbl); release(&vc); release(&vcl);
    return result;
}

/* ---- gutter_cells(x0, x1, y0, y1, ids, starts, share, gutter) -> (left, right, crossing) or None
 * kernels.gutter_cells (regions._gutter_cells): the region (units `ids`
 * in rows starting at `starts`, each row as high as its units' extent
 * across the line; a candidate needs `share` of the rows' total height,
 * gutter_rows) on a grid of rows by cells between the
 * units' distinct left and right edges (sorted as np.unique sorts: NaN last,
 * one of them); a cell's support is the height of the rows with content on
 * both sides of it and none on it, added down the rows in row order; runs of
 * cells supported by `need` or more, at least `gutter` wide (numpy's
 * pairwise sum), are candidates, the best the one supported most; its core
 * as kernels._gutter_core grows it. Returns the core's left and right edge
 * and, per row, whether a unit of the row covers a cell of the core; None
 * with fewer than two edges or no candidate. */
static Py_ssize_t edge_cell(const double *edges, Py_ssize_t count, double v) {
    /* np.searchsorted(edges, v, "left") in numpy's order */
    Py_ssize_t lo = 0, hi = count;
    while (lo < hi) {
        Py_ssize_t mid = (lo + hi) / 2;
        if (np_less(edges[mid], v)) lo = mid + 1; else hi = mid;
    }
    return lo;
}

static double np_sum(const double *a, Py_ssize_t n) {
    /* ndarray.sum() of a non-empty slice: its first value plus the rest */
    return a[0] + pairwise_sum(a + 1, n - 1);
}

/* The distinct edges of the units (into edges, 2 n long; their count
 * returned), sorted as np.unique sorts them, and per unit the cells its left
 * and right edge fall on (into first and end, n long: np.searchsorted). */
static Py_ssize_t unit_cells(const double *X0, const double *X1, const int64_t *ids, Py_ssize_t n, double *edges,
                             int64_t *first, int64_t *end) {
    for (Py_ssize_t k = 0; k < n; k++) { edges[2 * k] = X0[ids[k]]; edges[2 * k + 1] = X1[ids[k]]; }
    qsort(edges, (size_t)(2 * n), sizeof(double), cmp_np_double);
    Py_ssize_t distinct = 0;
    for (Py_ssize_t k = 0; k < 2 * n; k++) {
        double v = edges[k];
        if (distinct) {
            double last = edges[distinct - 1];
            if (last == v || (last != last && v != v)) continue;
        }
        edges[distinct++] = v;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        first[k] = edge_cell(edges, distinct, X0[ids[k]]);
        end[k] = edge_cell(edges, distinct, X1[ids[k]]);
    }
    return distinct;
}

/* Per row and cell whether a unit of the row covers it (C) and whether it is
 * whitespace between the row's leftmost and rightmost content (I), both rows
 * x cells, malloc'ed; -1 on error. */
static int gutter_grid(const int64_t *first, const int64_t *end, Py_ssize_t n, const int64_t *S, Py_ssize_t rows,
                       Py_ssize_t cells, char **C, char **I) {
    int64_t *count = malloc((cells + 1) * sizeof(int64_t));
    *C = malloc(rows * cells); *I = malloc(rows * cells);
    if (!count || !*C || !*I) { free(count); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t lo = (Py_ssize_t)S[r], hi = r + 1 < rows ? (Py_ssize_t)S[r + 1] : n;
        int64_t leftmost = first[lo], rightmost = end[lo];
        memset(count, 0, (cells + 1) * sizeof(int64_t));
        for (Py_ssize_t k = lo; k < hi; k++) {
            count[first[k]]++;
            count[end[k]]--;
            if (first[k] < leftmost) leftmost = first[k];
            if (end[k] > rightmost) rightmost = end[k];
        }
        int64_t running = 0;
        for (Py_ssize_t e = 0; e < cells; e++) {
            running += count[e];
            int cover = running > 0;
            (*C)[r * cells + e] = (char)cover;
            (*I)[r * cells + e] = (char)(!cover && e >= leftmost && e < rightmost);
        }
    }
    free(count);
    return 0;
}

/* Per cell, the rows' heights where `flags` is set, added down the rows in
 * row order (height times 0 or 1, as the reference multiplies). */
static void row_sums(const char *flags, const double *height, Py_ssize_t rows, Py_ssize_t cells, double *out) {
    for (Py_ssize_t e = 0; e < cells; e++) out[e] = height[0] * (flags[e] ? 1.0 : 0.0);
    for (Py_ssize_t r = 1; r < rows; r++)
        for (Py_ssize_t e = 0; e < cells; e++) out[e] += height[r] * (flags[r * cells + e] ? 1.0 : 0.0);
}

/* kernels._gutter_core: the cells lo..hi of the core of candidate run
 * first..last; -1 (ValueError, as np.argmax of nothing) when no cell of the
 * run equals its least blocking (NaN). */
static int gutter_core_cells(const double *blocked, const double *width, Py_ssize_t first, Py_ssize_t last,
                             double gutter, Py_ssize_t *lo_out, Py_ssize_t *hi_out) {
    double least = blocked[first];
    for (Py_ssize_t e = first; e < last; e++) {
        if (least != least) break;
        if (blocked[e] < least || blocked[e] != blocked[e]) least = blocked[e];
    }
    Py_ssize_t lo = -1;
    for (Py_ssize_t e = first; e < last; e++) {
        if (blocked[e] != least) continue;
        if (lo < 0) { lo = e; continue; }
        double best = width[lo], v = width[e];
        if (best == best && (v > best || v != v)) lo = e;
    }
    if (lo < 0) { PyErr_SetString(PyExc_ValueError, "no least blocked cell"); return -1; }
    Py_ssize_t hi = lo + 1;
    while (np_sum(width + lo, hi - lo) < gutter && (lo > first || hi < last)) {
        int grow_left = hi >= last || (lo > first && blocked[lo - 1] <= blocked[hi]);
        if (grow_left) lo--; else hi++;
    }
    *lo_out = lo; *hi_out = hi;
    return 0;
}

/* The best supported candidate run of cells (into first, last); 0 when none. */
static int best_gutter_run(const double *support, const double *width, Py_ssize_t cells, double need, double gutter,
                           Py_ssize_t *first_out, Py_ssize_t *last_out) {
    int found = 0;
    double best_support = 0.0;
    for (Py_ssize_t e = 0; e < cells;) {
        if (!(support[e] >= need)) { e++; continue; }
        Py_ssize_t first = e;
        double most = support[e];
        while (e < cells && support[e] >= need) { if (support[e] > most) most = support[e]; e++; }
        if (np_sum(width + first, e - first) >= gutter && most > best_support) {
            found = 1; best_support = most; *first_out = first; *last_out = e;
        }
    }
    return found;
}

/* The rows' heights (into H: per row, its units' largest Y1 less their least
 * Y0, NaN propagating as np.maximum.reduceat and np.minimum.reduceat do) and
 * the support a candidate needs, `share` of their total (ndarray.sum()); 0
 * where the rows of several units do not reach it together (no cell can:
 * only they have whitespace between content), else 1. SEVERAL: rows long. */
static int gutter_rows(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, const int64_t *S,
                       Py_ssize_t rows, double share, double *H, double *several, double *need_out) {
    Py_ssize_t picked = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t lo = (Py_ssize_t)S[r], hi = r + 1 < rows ? (Py_ssize_t)S[r + 1] : n;
        double top = Y1[ids[lo]], bottom = Y0[ids[lo]];
        for (Py_ssize_t k = lo + 1; k < hi; k++) { top = np_max(top, Y1[ids[k]]); bottom = np_min(bottom, Y0[ids[k]]); }
        H[r] = top - bottom;
        if (hi - lo > 1) several[picked++] = H[r];
    }
    double need = share * np_sum(H, rows);
    *need_out = need;
    return !((picked ? np_sum(several, picked) : 0.0) < need);
}

/* The cells each row's units cover, as disjoint spans [a, b) sorted along
 * the row (row r's are spans[at[r]] to spans[at[r + 1]]), and the row's
 * leftmost and rightmost cell (left, right): the covered cells and the
 * whitespace between content of gutter_grid, without its rows x cells. */
typedef struct { int64_t a, b; } CellSpan;

static int cmp_span(const void *x, const void *y) {
    const CellSpan *p = x, *q = y;
    return p->a != q->a ? (p->a > q->a) - (p->a < q->a) : (p->b > q->b) - (p->b < q->b);
}

static void row_spans(const int64_t *first, const int64_t *end, Py_ssize_t n, const int64_t *S, Py_ssize_t rows,
                      CellSpan *spans, int64_t *at, int64_t *left, int64_t *right) {
    Py_ssize_t out = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t lo = (Py_ssize_t)S[r], hi = r + 1 < rows ? (Py_ssize_t)S[r + 1] : n, start = out;
        at[r] = out; left[r] = first[lo]; right[r] = end[lo];
        for (Py_ssize_t k = lo; k < hi; k++) {
            if (first[k] < left[r]) left[r] = first[k];
            if (end[k] > right[r]) right[r] = end[k];
            if (first[k] < end[k]) { spans[out].a = first[k]; spans[out].b = end[k]; out++; }
        }
        qsort(spans + start, (size_t)(out - start), sizeof(CellSpan), cmp_span);
        Py_ssize_t kept = start;
        for (Py_ssize_t j = start; j < out; j++) {
            if (kept > start && spans[j].a <= spans[kept - 1].b) {
                if (spans[j].b > spans[kept - 1].b) spans[kept - 1].b = spans[j].b;
            } else spans[kept++] = spans[j];
        }
        out = kept;
    }
    at[rows] = out;
}

/* row_sums of gutter_grid's I from the spans: per row, its height added to
 * each cell between its content and not covered, rows in row order. With
 * every height finite and above 0 a row adds exactly what the dense sum's
 * height x 0 or 1 adds (x + 0.0 is x for x >= +0.0). */
static void span_support(const CellSpan *spans, const int64_t *at, const int64_t *left, const int64_t *right,
                         const double *H, Py_ssize_t rows, Py_ssize_t cells, double *support) {
    for (Py_ssize_t e = 0; e < cells; e++) support[e] = 0.0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        int64_t e = left[r];
        for (int64_t j = at[r]; j < at[r + 1]; j++) {
            for (; e < spans[j].a; e++) support[e] += H[r];
            if (spans[j].b > e) e = spans[j].b;
        }
        for (; e < right[r]; e++) support[e] += H[r];
    }
}

/* row_sums of gutter_grid's C over cells first..last only (all
 * gutter_core_cells reads), from the spans, as span_support adds. */
static void span_blocked(const CellSpan *spans, const int64_t *at, const double *H, Py_ssize_t rows, Py_ssize_t first,
                         Py_ssize_t last, double *blocked) {
    for (Py_ssize_t e = first; e < last; e++) blocked[e] = 0.0;
    for (Py_ssize_t r = 0; r < rows; r++)
        for (int64_t j = at[r]; j < at[r + 1]; j++) {
            int64_t lo = spans[j].a > first ? spans[j].a : first, hi = spans[j].b < last ? spans[j].b : last;
            for (int64_t e = lo; e < hi; e++) blocked[e] += H[r];
        }
}

/* The gutter of gutter_cells over the rows' spans (or, where a height is
 * not finite and above 0 or a unit's cells run backwards, over the dense
 * rows x cells grid): into lo and hi the core's cells, into X per row
 * whether it crosses the core; 0 when no candidate, -1 on error. */
static int gutter_found(const int64_t *first, const int64_t *end, Py_ssize_t n, const int64_t *S, Py_ssize_t rows,
                        const double *H, const double *width, Py_ssize_t cells, double need, double gutter,
                        Py_ssize_t *lo, Py_ssize_t *hi, char *X) {
    int sparse = 1, found = -1;
    for (Py_ssize_t r = 0; r < rows; r++) sparse &= H[r] > 0.0 && isfinite(H[r]);
    for (Py_ssize_t k = 0; k < n; k++) sparse &= first[k] <= end[k];
    double *support = malloc(cells * sizeof(double)), *blocked = malloc(cells * sizeof(double));
    CellSpan *spans = sparse ? malloc(n * sizeof(CellSpan)) : NULL;
    int64_t *at = sparse ? malloc((rows + 1) * sizeof(int64_t)) : NULL, *left = sparse ? malloc(rows * sizeof(int64_t)) : NULL;
    int64_t *right = sparse ? malloc(rows * sizeof(int64_t)) : NULL;
    char *C = NULL, *I = NULL;
    Py_ssize_t first_cell = 0, last_cell = 0;
    if (!support || !blocked || (sparse && (!spans || !at || !left || !right))) { PyErr_NoMemory(); goto done; }
    if (sparse) {
        row_spans(first, end, n, S, rows, spans, at, left, right);
        span_support(spans, at, left, right, H, rows, cells, support);
    } else {
        if (gutter_grid(first, end, n, S, rows, cells, &C, &I) < 0) goto done;
        row_sums(I, H, rows, cells, support);
    }
    found = best_gutter_run(support, width, cells, need, gutter, &first_cell, &last_cell);
    if (!found) goto done;
    if (sparse) span_blocked(spans, at, H, rows, first_cell, last_cell, blocked);
    else row_sums(C, H, rows, cells, blocked);
    if (gutter_core_cells(blocked, width, first_cell, last_cell, gutter, lo, hi) < 0) { found = -1; goto done; }
    for (Py_ssize_t r = 0; r < rows; r++) {
        char any = 0;
        if (sparse) {
            for (int64_t j = at[r]; j < at[r + 1]; j++) any |= spans[j].a < *hi && spans[j].b > *lo;
        } else {
            for (Py_ssize_t e = *lo; e < *hi; e++) any |= C[r * cells + e];
        }
        X[r] = any;
    }
done:
    free(support); free(blocked); free(spans); free(at); free(left); free(right); free(C); free(I);
    return found;
}

/* gutter_cells' core over units ids[0..n) in `rows` rows starting at S
 * (checked): into *left and *right the core's edges and into X (rows long)
 * per row whether it crosses the core; 1 found, 0 none, -1 on error. */
static int gutter_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                     Py_ssize_t n, const int64_t *S, Py_ssize_t rows, double share, double gutter, double *left,
                     double *right, char *X) {
    if (!rows) return 0;
    int found = -1;
    double *edges = malloc(2 * n * sizeof(double)), *width = NULL;
    double *H = calloc(rows, sizeof(double)), *several = calloc(rows, sizeof(double));
    int64_t *first = malloc(n * sizeof(int64_t)), *end = malloc(n * sizeof(int64_t));
    if (!H || !several || !edges || !first || !end) { PyErr_NoMemory(); goto done; }
    double need;
    Py_ssize_t cells = 0, lo = 0, hi = 0;
    if (gutter_rows(Y0, Y1, ids, n, S, rows, share, H, several, &need))
        cells = unit_cells(X0, X1, ids, n, edges, first, end) - 1;
    if (cells < 1) { found = 0; goto done; }
    width = malloc(cells * sizeof(double));
    if (!width) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t e = 0; e < cells; e++) width[e] = edges[e + 1] - edges[e];
    found = gutter_found(first, end, n, S, rows, H, width, cells, need, gutter, &lo, &hi, X);
    if (found > 0) { *left = edges[lo]; *right = edges[hi]; }
done:
    free(edges); free(width); free(H); free(several); free(first); free(end);
    return found;
}

/* Row starts S[0..rows) of n units, checked: 0, or -1 with a ValueError. */
static int check_row_starts(const int64_t *S, Py_ssize_t rows, Py_ssize_t n) {
    for (Py_ssize_t r = 0; r < rows; r++)
        if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) { PyErr_SetString(PyExc_ValueError, "bad row starts"); return -1; }
    if (rows && S[0] != 0) { PyErr_SetString(PyExc_ValueError, "rows must start at 0"); return -1; }
    return 0;
}

static PyObject *layout_gutter_cells(PyObject *mod, PyObject *args) {
    PyObject *objs[4], *ids_obj, *starts_obj;
    double share, gutter;
    if (!PyArg_ParseTuple(args, "OOOOOOdd", &objs[0], &objs[1], &objs[2], &objs[3], &ids_obj, &starts_obj, &share, &gutter))
        return NULL;
    View vbox[4], vi = {0}, vs = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL, *crossing_obj = NULL;
    Py_ssize_t n = get_unit_boxes((PyObject *const *)objs, vbox, ids_obj, &vi);
    if (n < 0 || get_view(starts_obj, &vs, "l", 8, "starts") < 0) goto done;
    Py_ssize_t rows = vs.view.len / 8;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    if (check_row_starts(vs.view.buf, rows, n) < 0) goto done;
    crossing_obj = PyByteArray_FromStringAndSize(NULL, rows);
    if (!crossing_obj) goto done;
    double left = 0.0, right = 0.0;
    int found = gutter_of(X0, X1, Y0, Y1, vi.view.buf, n, vs.view.buf, rows, share, gutter, &left, &right,
                          PyByteArray_AS_STRING(crossing_obj));
    if (found < 0) goto done;
    if (found) result = Py_BuildValue("(ddO)", left, right, crossing_obj);
    else { result = Py_None; Py_INCREF(result); }
done:
    Py_XDECREF(crossing_obj);
    release_boxes(vbox); release(&vi); release(&vs);
    return result;
}

/* ---- nearest_under(x0, x1, y0, y1, ids, descent, half_body) -> (below, above, gap_below, gap_above)
 * kernels.nearest_under (leaves._tight_chains): per line i of `ids`, the
 * line j under it (overlapping along the line, its baseline half a body
 * height lower or more) with the least whitespace y0[i] - y1[j] from i's
 * bottom to j's top, as np.argmin picks it (the first of equals, the first
 * NaN; 0 where no line is under, with an infinite gap); per line j, the line
 * above it so. */
static inline int argmin_takes(double best, double v) { return best == best && (v < best || v != v); }

/* The first position r of the ascending `sorted` (n values) with
 * sorted[r] > v (upper) or sorted[r] >= v (lower). */
static Py_ssize_t first_above(const double *sorted, Py_ssize_t n, double v, int strict) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (strict ? sorted[mid] > v : sorted[mid] >= v) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

/* Whitespace bounds compared with a margin far above the rounding of page
 * coordinates, so that a scan stops only where every line left is further. */
static inline double sweep_margin(double a, double b, double c) { return 1e-9 * (1.0 + fabs(a) + fabs(b) + fabs(c)); }

/* nearest_under on finite boxes, the same answers as the pairwise scan
 * without looking at every pair: the lines sorted by baseline, the lines
 * under line i are a prefix of that order (base[j] <= base[i] - half_body)
 * and the lines over line j a suffix (base[i] - half_body >= base[j], that
 * double being monotone in base[i]). Each scan runs outwards from i and stops
 * where even the tallest box (hmax: top over baseline; dmax: baseline over
 * bottom) would leave more whitespace than the best found. Ties go to the
 * first line, as np.argmin's do. -1 when out of memory. */
static int nearest_sweep(Py_ssize_t n, const int64_t *ids, const double *X0, const double *X1, const double *Y0,
                         const double *Y1, const double *base, double half_body, int64_t *below, int64_t *above,
                         double *gap_below, double *gap_above) {
    size_t cap = n ? (size_t)n : 1;
    int64_t *order = malloc(2 * cap * sizeof(int64_t));
    double *sb = malloc(2 * cap * sizeof(double));
    if (!order || !sb) { free(order); free(sb); return -1; }
    int64_t *tmp = order + cap;
    double *st = sb + cap, hmax = -INFINITY, dmax = -INFINITY;
    stable_argsort(base, order, tmp, n);
    for (Py_ssize_t r = 0; r < n; r++) {
        sb[r] = base[order[r]];
        st[r] = sb[r] - half_body;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        hmax = py_max(hmax, Y1[ids[k]] - base[k]);
        dmax = py_max(dmax, base[k] - Y0[ids[k]]);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t a = ids[i];
        double best = INFINITY, y0 = Y0[a];
        int64_t at = 0;
        for (Py_ssize_t r = first_above(sb, n, base[i] - half_body, 1) - 1; r >= 0; r--) {
            double bound = y0 - (sb[r] + hmax);
            if (bound > best + sweep_margin(y0, sb[r], hmax)) break;
            int64_t j = order[r], b = ids[j];
            if (!(np_min(X1[a], X1[b]) > np_max(X0[a], X0[b]))) continue;
            double gap = y0 - Y1[b];
            if (gap < best || (gap == best && j < at)) { best = gap; at = j; }
        }
        gap_below[i] = best;
        below[i] = at;
    }
    for (Py_ssize_t j = 0; j < n; j++) {
        int64_t b = ids[j];
        double best = INFINITY, y1 = Y1[b];
        int64_t at = 0;
        for (Py_ssize_t r = first_above(st, n, base[j], 0); r < n; r++) {
            double bound = (sb[r] - dmax) - y1;
            if (bound > best + sweep_margin(y1, sb[r], dmax)) break;
            int64_t i = order[r], a = ids[i];
            if (!(np_min(X1[a], X1[b]) > np_max(X0[a], X0[b]))) continue;
            double gap = Y0[a] - y1;
            if (gap < best || (gap == best && i < at)) { best = gap; at = i; }
        }
        gap_above[j] = best;
        above[j] = at;
    }
    free(order); free(sb);
    return 0;
}

/* nearest_under's four columns of the lines ids[0..n) into below, above,
 * gap_below, gap_above (n each); `base` (n) is work. 0, or -1 out of memory
 * (no exception set). */
static int nearest_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n,
                      double descent, double half_body, int64_t *below, int64_t *above, double *gap_below, double *gap_above,
                      double *base) {
    for (Py_ssize_t k = 0; k < n; k++) {
        base[k] = unit_baseline(Y0, Y1, ids[k], descent);
        below[k] = above[k] = 0;
        gap_below[k] = gap_above[k] = INFINITY;
    }
    int finite = isfinite(half_body);
    for (Py_ssize_t k = 0; k < n && finite; k++)
        finite = isfinite(X0[ids[k]]) && isfinite(X1[ids[k]]) && isfinite(Y0[ids[k]]) && isfinite(Y1[ids[k]]) &&
                 isfinite(base[k]);
    if (finite) return nearest_sweep(n, ids, X0, X1, Y0, Y1, base, half_body, below, above, gap_below, gap_above);
    /* gap[i][j] in row-major order: row minima for `below`, column minima
     * (the first i, scanning i upwards) for `above`. */
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t a = ids[i];
        for (Py_ssize_t j = 0; j < n; j++) {
            int64_t b = ids[j];
            int along = np_min(X1[a], X1[b]) > np_max(X0[a], X0[b]);
            double gap = along && base[j] <= base[i] - half_body ? Y0[a] - Y1[b] : INFINITY;
            if (j == 0) gap_below[i] = gap;
            else if (argmin_takes(gap_below[i], gap)) { gap_below[i] = gap; below[i] = j; }
            if (i == 0) gap_above[j] = gap;
            else if (argmin_takes(gap_above[j], gap)) { gap_above[j] = gap; above[j] = i; }
        }
    }
    return 0;
}

static PyObject *layout_nearest_under(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double descent, half_body;
    if (!PyArg_ParseTuple(args, "OOOOOdd", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &descent, &half_body)) return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *below = NULL, *above = NULL;
    double *gap_below = NULL, *gap_above = NULL, *base = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf;
    Py_ssize_t cap = n ? n : 1;
    below = calloc(cap, sizeof(int64_t)); above = calloc(cap, sizeof(int64_t));
    gap_below = malloc(cap * sizeof(double)); gap_above = malloc(cap * sizeof(double)); base = calloc(cap, sizeof(double));
    if (!below || !above || !gap_below || !gap_above || !base) { PyErr_NoMemory(); goto done; }
    if (nearest_of(X0, X1, Y0, Y1, ids, n, descent, half_body, below, above, gap_below, gap_above, base) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("(NNNN)", int64_bytes(below, n), int64_bytes(above, n),
                           PyByteArray_FromStringAndSize((const char *)gap_below, n * (Py_ssize_t)sizeof(double)),
                           PyByteArray_FromStringAndSize((const char *)gap_above, n * (Py_ssize_t)sizeof(double)));
done:
    free(below); free(above); free(gap_below); free(gap_above); free(base);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ---- backward_units(x, height, aligned, start, end, back_step) -> flags per unit
 * kernels.backward_units (lines.glyphs_along): per unit (glyphs
 * start[u]:end[u] of the stream, `x` their centres along the line), does
 * the stream paint it backwards: a step back between two aligned glyphs of
 * the unit wider than the larger height, or at least two steps back of
 * back_step x the smaller height and more of them than such steps ahead. */
/* kernels.backward_units' flags into out (one per unit start[u]:end[u] of the n
 * glyphs: x their centres along the line, H their heights, A whether each is
 * set in the page's direction); -1 with an exception set when a unit is out
 * of range. */
static int backward_flags(const double *X, const double *H, const unsigned char *A, const int64_t *start,
                          const int64_t *end, Py_ssize_t units, Py_ssize_t n, double back_step, char *out) {
    for (Py_ssize_t u = 0; u < units; u++) {
        if (start[u] < 0 || end[u] < start[u] || end[u] > n) {
            PyErr_SetString(PyExc_IndexError, "unit out of range");
            return -1;
        }
        int jump = 0;
        Py_ssize_t back = 0, ahead = 0;
        for (Py_ssize_t k = (Py_ssize_t)start[u] + 1; k < (Py_ssize_t)end[u]; k++) {
            if (!A[k] || !A[k - 1]) continue;
            double step = X[k] - X[k - 1], smaller = np_min(H[k], H[k - 1]);
            jump |= step < -np_max(H[k], H[k - 1]);
            back += step <= -(back_step * smaller);
            ahead += step >= back_step * smaller;
        }
        out[u] = (char)(jump || (back >= 2 && back > ahead));
    }
    return 0;
}

static PyObject *layout_backward_units(PyObject *mod, PyObject *args) {
    PyObject *x_obj, *h_obj, *a_obj, *s_obj, *e_obj;
    double back_step;
    if (!PyArg_ParseTuple(args, "OOOOOd", &x_obj, &h_obj, &a_obj, &s_obj, &e_obj, &back_step)) return NULL;
    View vx = {0}, vh = {0}, va = {0}, vs = {0}, ve = {0};
    PyObject *result = NULL;
    if (get_view(x_obj, &vx, "d", 8, "x") < 0 || get_view(h_obj, &vh, "d", 8, "height") < 0 ||
        get_view(a_obj, &va, "?", 1, "aligned") < 0 || get_view(s_obj, &vs, "l", 8, "start") < 0 ||
        get_view(e_obj, &ve, "l", 8, "end") < 0)
        goto done;
    Py_ssize_t n = vx.view.len / 8, units = vs.view.len / 8;
    if (vh.view.len / 8 != n || va.view.len != n || ve.view.len / 8 != units) {
        PyErr_SetString(PyExc_ValueError, "columns differ in length");
        goto done;
    }
    result = PyByteArray_FromStringAndSize(NULL, units);
    if (!result) goto done;
    if (backward_flags(vx.view.buf, vh.view.buf, va.view.buf, vs.view.buf, ve.view.buf, units, n, back_step,
                       PyByteArray_AS_STRING(result)) < 0)
        Py_CLEAR(result);
done:
    release(&vx); release(&vh); release(&va); release(&vs); release(&ve);
    return result;
}

/* ---- marks_beside(x0, x1, y0, y1, ids, mark_height, join_gap) -> positions
 * kernels.marks_beside (lines._marks_on_their_lines): per unit of `ids` at
 * most mark_height tall, the first unit taller than that whose box holds
 * its middle across the line and which it touches along the line within
 * join_gap x its height; -1 for the others. */
/* marks_beside's body: per unit of ids[0..n) into found[0..n), its line or -1. */
static void marks_found(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                        Py_ssize_t n, double mark_height, double join_gap, int64_t *found) {
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t a = ids[k];
        double height = Y1[a] - Y0[a];
        found[k] = -1;
        if (!(height <= mark_height)) continue;
        double middle = (Y0[a] + Y1[a]) / 2, reach = join_gap * height;
        for (Py_ssize_t j = 0; j < n; j++) {
            int64_t b = ids[j];
            if (!(Y1[b] - Y0[b] > mark_height)) continue;
            if (Y0[b] <= middle && middle <= Y1[b] && X0[b] - X1[a] <= reach && X0[a] - X1[b] <= reach) {
                found[k] = j;
                break;
            }
        }
    }
}

static PyObject *layout_marks_beside(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double mark_height, join_gap;
    if (!PyArg_ParseTuple(args, "OOOOOdd", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &mark_height, &join_gap)) return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *found = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf;
    found = malloc((n ? n : 1) * sizeof(int64_t));
    if (!found) { PyErr_NoMemory(); goto done; }
    marks_found(X0, X1, Y0, Y1, ids, n, mark_height, join_gap, found);
    result = int64_bytes(found, n);
done:
    free(found);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ---- lines_along(x0, x1, ids, row, height, span, join_gap) -> (along, line)
 * kernels.lines_along (lines.line_order): units `ids` ordered by `row`, then
 * along it by x0 (stable), and per unit so ordered its line: a new one at
 * each new row or gap along the row wider than join_gap x the smaller
 * height. Each row is set `span` past the last, as the reference does, so
 * the running right edge is the same float. */
/* lines_along's body: positions into ids[0..n) in order, and per position
 * its line in line; tmp, by_x, key (n int64) and x (n doubles) are work
 * buffers, key and x calloc'ed (see stable_argsort). */
static void along_lines(const double *X0, const double *X1, const int64_t *ids, const int64_t *row, const double *height,
                        Py_ssize_t n, double span, double join_gap, int64_t *order, int64_t *line, int64_t *tmp,
                        int64_t *by_x, int64_t *key, double *x) {
    /* np.lexsort((x0, row)): stable by x0, then stable by row. */
    for (Py_ssize_t k = 0; k < n; k++) x[k] = X0[ids[k]];
    stable_argsort(x, by_x, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) key[k] = row[by_x[k]];
    stable_argsort_int(key, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) order[k] = by_x[order[k]];
    double reach = 0.0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t u = order[k], at = ids[u];
        double offset = (double)row[u] * span, x0 = X0[at] + offset, x1 = X1[at] + offset;
        if (k == 0) { line[0] = 0; reach = x1; continue; }
        int64_t prev = order[k - 1];
        int new_line = row[u] != row[prev] || x0 - reach > join_gap * np_min(height[prev], height[u]);
        line[k] = line[k - 1] + new_line;
        reach = np_max(reach, x1);
    }
}

static PyObject *layout_lines_along(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *ids_obj, *row_obj, *h_obj;
    double span, join_gap;
    if (!PyArg_ParseTuple(args, "OOOOOdd", &x0_obj, &x1_obj, &ids_obj, &row_obj, &h_obj, &span, &join_gap)) return NULL;
    View vx0 = {0}, vx1 = {0}, vi = {0}, vr = {0}, vh = {0};
    PyObject *result = NULL, *along_bytes = NULL, *line_bytes = NULL;
    int64_t *order = NULL, *tmp = NULL, *by_x = NULL, *key = NULL, *line = NULL;
    double *x = NULL;
    if (get_view(x0_obj, &vx0, "d", 8, "x0") < 0 || get_view(x1_obj, &vx1, "d", 8, "x1") < 0 ||
        get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(row_obj, &vr, "l", 8, "row") < 0 ||
        get_view(h_obj, &vh, "d", 8, "height") < 0)
        goto done;
    Py_ssize_t size = vx0.view.len / 8, n = vi.view.len / 8;
    if (vx1.view.len != vx0.view.len || vr.view.len / 8 != n || vh.view.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "columns differ in length");
        goto done;
    }
    const int64_t *ids = vi.view.buf, *row = vr.view.buf;
    if (check_ids(ids, n, size, "ids") < 0) goto done;
    const double *X0 = vx0.view.buf, *X1 = vx1.view.buf, *height = vh.view.buf;
    size_t cells = (size_t)(n ? n : 1);
    order = malloc(cells * sizeof(int64_t)); tmp = malloc(cells * sizeof(int64_t));
    by_x = malloc(cells * sizeof(int64_t)); key = calloc(cells, sizeof(int64_t));
    line = malloc(cells * sizeof(int64_t)); x = calloc(cells, sizeof(double));
    if (!order || !tmp || !by_x || !key || !line || !x) { PyErr_NoMemory(); goto done; }
    along_lines(X0, X1, ids, row, height, n, span, join_gap, order, line, tmp, by_x, key, x);
    along_bytes = int64_bytes(order, n);
    line_bytes = along_bytes ? int64_bytes(line, n) : NULL;
    if (line_bytes) result = PyTuple_Pack(2, along_bytes, line_bytes);
done:
    Py_XDECREF(along_bytes); Py_XDECREF(line_bytes);
    free(order); free(tmp); free(by_x); free(key); free(line); free(x);
    release(&vx0); release(&vx1); release(&vi); release(&vr); release(&vh);
    return result;
}

/* ---- blank_edges(space, start, end) -> flags per glyph ----------------------
 * kernels.blank_edges: the blanks (`space`, per glyph) that lead or trail
 * each unit start[u]:end[u]. */
static PyObject *layout_blank_edges(PyObject *mod, PyObject *args) {
    PyObject *sp_obj, *s_obj, *e_obj;
    if (!PyArg_ParseTuple(args, "OOO", &sp_obj, &s_obj, &e_obj)) return NULL;
    View vsp = {0}, vs = {0}, ve = {0};
    PyObject *result = NULL;
    if (get_view(sp_obj, &vsp, "?", 1, "space") < 0 || get_view(s_obj, &vs, "l", 8, "start") < 0 ||
        get_view(e_obj, &ve, "l", 8, "end") < 0)
        goto done;
    Py_ssize_t n = vsp.view.len, units = vs.view.len / 8;
    if (ve.view.len / 8 != units) { PyErr_SetString(PyExc_ValueError, "start and end differ in length"); goto done; }
    const unsigned char *space = vsp.view.buf;
    const int64_t *start = vs.view.buf, *end = ve.view.buf;
    for (Py_ssize_t u = 0; u < units; u++)
        if (start[u] < 0 || end[u] < start[u] || end[u] > n) { PyErr_SetString(PyExc_IndexError, "unit out of range"); goto done; }
    result = PyByteArray_FromStringAndSize(NULL, n);
    if (!result) goto done;
    char *out = PyByteArray_AS_STRING(result);
    memset(out, 0, (size_t)n);
    for (Py_ssize_t u = 0; u < units; u++) {
        Py_ssize_t k = (Py_ssize_t)start[u];
        while (k < end[u] && space[k]) out[k++] = 1;
        k = (Py_ssize_t)end[u] - 1;
        while (k >= start[u] && space[k]) out[k--] = 1;
    }
done:
    release(&vsp); release(&vs); release(&ve);
    return result;
}

/* ---- pair_moves(origin, own_end, direction, height, prev, cur, line_break_ratio, same_direction)
 *      -> (line_break bool, across, gap, height) per pair ---------------------
 * kernels.pair_moves (units.line_moves, units.reordered_moves): for each pair
 * of glyph-table rows prev[k] -> cur[k], geometric.line_break_rule (the move
 * across the previous direction, the larger height times the ratio, the
 * turn), the gap along the previous direction from its own end, and the
 * larger height: the formulas of core_pair_rules (_core.c), operation by
 * operation, np.maximum's NaN included. */
/* The glyph table's columns: origin and own end (x, y per row), direction
 * (a unit vector per row), height. */
typedef struct { const double *O, *E, *D, *H; } GlyphColumns;

/* One pair's move, rows p -> c (pair_moves): the line rule's break and move
 * across the first glyph's direction, the gap along it from its own end, the
 * larger height. */
static inline void pair_move(const GlyphColumns *g, int64_t p, int64_t c, double ratio, double same_direction, char *brk,
                             double *across_out, double *gap_out, double *larger_out) {
    const double *O = g->O, *E = g->E, *D = g->D, *H = g->H;
    double dx = D[2 * p], dy = D[2 * p + 1];
    double across = (O[2 * c] - O[2 * p]) * -dy + (O[2 * c + 1] - O[2 * p + 1]) * dx;
    double larger = np_max(H[p], H[c]);
    int turned = dx * D[2 * c] + dy * D[2 * c + 1] < same_direction;
    *brk = (char)(fabs(across) > ratio * larger || turned);
    *across_out = across;
    *gap_out = (O[2 * c] - E[2 * p]) * dx + (O[2 * c + 1] - E[2 * p + 1]) * dy;
    *larger_out = larger;
}

/* units.reordered_moves' rule: the moves of the order S[pos[0..q)] (pos
 * checked against the stream S) from those of the stream (LB per position,
 * A, G, M per pair): a pair of positions one after the other in the stream
 * keeps its measurements, any other pair is measured anew (pair_move); into
 * brk (q, the first 0) and acr, gap, hgt (q - 1 each). */
static void reordered_moves_of(const GlyphColumns *g, const int64_t *S, const char *LB, const double *A, const double *G,
                               const double *M, const int64_t *pos, Py_ssize_t q, double ratio, double same_direction,
                               char *brk, double *acr, double *gap, double *hgt) {
    if (q) brk[0] = 0;
    for (Py_ssize_t k = 0; k + 1 < q; k++) {
        int64_t a = pos[k], b = pos[k + 1];
        if (b == a + 1) {
            brk[k + 1] = LB[b] ? 1 : 0;
            acr[k] = A[b - 1]; gap[k] = G[b - 1]; hgt[k] = M[b - 1];
        } else {
            pair_move(g, S[a], S[b], ratio, same_direction, &brk[k + 1], &acr[k], &gap[k], &hgt[k]);
        }
    }
}

static PyObject *layout_pair_moves(PyObject *mod, PyObject *args) {
    PyObject *o_obj, *e_obj, *d_obj, *h_obj, *p_obj, *c_obj;
    double ratio, same_direction;
    if (!PyArg_ParseTuple(args, "OOOOOOdd", &o_obj, &e_obj, &d_obj, &h_obj, &p_obj, &c_obj, &ratio, &same_direction))
        return NULL;
    View vo = {0}, ve = {0}, vd = {0}, vh = {0}, vp = {0}, vc = {0};
    PyObject *brk = NULL, *acr = NULL, *gap = NULL, *hgt = NULL, *result = NULL;
    if (get_view(o_obj, &vo, "d", 8, "origin") < 0 || get_view(e_obj, &ve, "d", 8, "own_end") < 0 ||
        get_view(d_obj, &vd, "d", 8, "direction") < 0 || get_view(h_obj, &vh, "d", 8, "height") < 0 ||
        get_view(p_obj, &vp, "l", 8, "prev") < 0 || get_view(c_obj, &vc, "l", 8, "cur") < 0)
        goto done;
    Py_ssize_t rows = vh.view.len / 8, n = vp.view.len / 8;
    if (vo.view.len / 16 != rows || ve.view.len / 16 != rows || vd.view.len / 16 != rows ||
        vo.view.len != ve.view.len || vo.view.len != vd.view.len) {
        PyErr_SetString(PyExc_ValueError, "glyph columns differ in length");
        goto done;
    }
    if (vc.view.len / 8 != n) { PyErr_SetString(PyExc_ValueError, "prev and cur differ in length"); goto done; }
    const int64_t *P = vp.view.buf, *C = vc.view.buf;
    if (check_ids(P, n, rows, "prev") < 0 || check_ids(C, n, rows, "cur") < 0) goto done;
    brk = PyByteArray_FromStringAndSize(NULL, n);
    acr = PyByteArray_FromStringAndSize(NULL, n * 8);
    gap = PyByteArray_FromStringAndSize(NULL, n * 8);
    hgt = PyByteArray_FromStringAndSize(NULL, n * 8);
    if (!brk || !acr || !gap || !hgt) goto done;
    const double *O = vo.view.buf, *E = ve.view.buf, *D = vd.view.buf, *H = vh.view.buf;
    char *B = PyByteArray_AS_STRING(brk);
    double *A = (double *)PyByteArray_AS_STRING(acr), *G = (double *)PyByteArray_AS_STRING(gap);
    double *M = (double *)PyByteArray_AS_STRING(hgt);
    const GlyphColumns g = {O, E, D, H};
    for (Py_ssize_t k = 0; k < n; k++) pair_move(&g, P[k], C[k], ratio, same_direction, &B[k], &A[k], &G[k], &M[k]);
    result = Py_BuildValue("(OOOO)", brk, acr, gap, hgt);
done:
    Py_XDECREF(brk); Py_XDECREF(acr); Py_XDECREF(gap); Py_XDECREF(hgt);
    release(&vo); release(&ve); release(&vd); release(&vh); release(&vp); release(&vc);
    return result;
}

/* ---- emit(ids, lengths, start, end) -> (positions, new_leaf) ---------------
 * kernels.emit_leaves (leaves.emit): the leaves (runs of `lengths` of the
 * units `ids`, concatenated in reading order) as stream positions of their
 * glyphs (unit u is glyphs start[u]:end[u]); a unit in no leaf right after
 * the placed unit before it (before the first when none is), in its leaf;
 * and where a new leaf starts. */
static PyObject *layout_emit(PyObject *mod, PyObject *args) {
    PyObject *ids_obj, *len_obj, *s_obj, *e_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &ids_obj, &len_obj, &s_obj, &e_obj)) return NULL;
    View vi = {0}, vl = {0}, vs = {0}, ve = {0};
    PyObject *result = NULL, *positions = NULL, *new_leaf = NULL;
    int64_t *leaf = NULL, *order = NULL, *tmp = NULL;
    double *rank = NULL;
    if (get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(len_obj, &vl, "l", 8, "lengths") < 0 ||
        get_view(s_obj, &vs, "l", 8, "start") < 0 || get_view(e_obj, &ve, "l", 8, "end") < 0)
        goto done;
    Py_ssize_t n = vi.view.len / 8, leaves = vl.view.len / 8, units = vs.view.len / 8;
    if (ve.view.len / 8 != units) { PyErr_SetString(PyExc_ValueError, "start and end differ in length"); goto done; }
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf, *start = vs.view.buf, *end = ve.view.buf;
    if (check_ids(ids, n, units, "ids") < 0) goto done;
    Py_ssize_t glyphs = 0;
    for (Py_ssize_t u = 0; u < units; u++) {
        if (start[u] < 0 || end[u] < start[u]) { PyErr_SetString(PyExc_IndexError, "unit out of range"); goto done; }
        /* Glyphs whose positions no buffer holds: their count x 8 would wrap. */
        if (end[u] - start[u] > PY_SSIZE_T_MAX / 8 - glyphs) { PyErr_NoMemory(); goto done; }
        glyphs += (Py_ssize_t)(end[u] - start[u]);
    }
    Py_ssize_t cap = units ? units : 1;
    leaf = malloc(cap * sizeof(int64_t)); order = malloc(cap * sizeof(int64_t));
    tmp = malloc(cap * sizeof(int64_t)); rank = calloc(cap, sizeof(double));
    if (!leaf || !order || !tmp || !rank) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t u = 0; u < units; u++) leaf[u] = -1;
    Py_ssize_t k = 0;
    for (Py_ssize_t p = 0; p < leaves; p++) {
        if (lengths[p] < 0 || k + lengths[p] > n) { PyErr_SetString(PyExc_ValueError, "bad leaf lengths"); goto done; }
        for (int64_t j = 0; j < lengths[p]; j++, k++) { leaf[ids[k]] = p; rank[ids[k]] = (double)k; }
    }
    if (k != n) { PyErr_SetString(PyExc_ValueError, "leaf lengths do not add up to the units"); goto done; }
    Py_ssize_t first_placed = -1, last_placed = -1;
    for (Py_ssize_t u = 0; u < units && first_placed < 0; u++)
        if (leaf[u] >= 0) first_placed = u;
    if (first_placed < 0) {
        int64_t *all = malloc((glyphs ? glyphs : 1) * sizeof(int64_t));
        if (!all) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t g = 0; g < glyphs; g++) all[g] = g;
        positions = int64_bytes(all, glyphs);
        free(all);
        new_leaf = PyByteArray_FromStringAndSize(NULL, glyphs);
        if (!positions || !new_leaf) goto done;
        memset(PyByteArray_AS_STRING(new_leaf), 0, (size_t)glyphs);
        result = Py_BuildValue("(OO)", positions, new_leaf);
        goto done;
    }
    for (Py_ssize_t u = 0; u < units; u++) {
        if (leaf[u] >= 0) { last_placed = u; continue; }
        Py_ssize_t anchor = last_placed >= 0 ? last_placed : first_placed;
        leaf[u] = leaf[anchor];
        rank[u] = rank[anchor] + (last_placed >= 0 ? 0.5 : -0.5);
    }
    stable_argsort(rank, order, tmp, units);
    positions = PyByteArray_FromStringAndSize(NULL, glyphs * (Py_ssize_t)sizeof(int64_t));
    new_leaf = PyByteArray_FromStringAndSize(NULL, glyphs);
    if (!positions || !new_leaf) goto done;
    int64_t *P = (int64_t *)PyByteArray_AS_STRING(positions);
    char *L = PyByteArray_AS_STRING(new_leaf);
    memset(L, 0, (size_t)glyphs);
    Py_ssize_t at = 0;
    for (Py_ssize_t r = 0; r < units; r++) {
        int64_t u = order[r];
        if (r && leaf[u] != leaf[order[r - 1]] && at < glyphs) L[at] = 1;
        for (int64_t g = start[u]; g < end[u]; g++) P[at++] = g;
    }
    result = Py_BuildValue("(OO)", positions, new_leaf);
done:
    Py_XDECREF(positions); Py_XDECREF(new_leaf);
    free(leaf); free(order); free(tmp); free(rank);
    release(&vi); release(&vl); release(&vs); release(&ve);
    return result;
}

typedef struct { Py_ssize_t pairs; double median_words; Py_ssize_t lines, wrapped; } WrapCounts;

/* wrap_measures' body, of units ids[0..n) (n >= 1) in `rows` rows starting
 * at S; box = (x0, x1, y0, y1); pairs, step, sorted (rows long) and counts
 * (n long) are work buffers. */
static WrapCounts wrap_counts(const double *const box[4], const int64_t *words, const double *first_word, const int64_t *ids,
                              Py_ssize_t n, const int64_t *S, Py_ssize_t rows, double descent, double paragraph_step,
                              double space, int64_t *pairs, double *step, double *sorted, int64_t *counts) {
    const double *X0 = box[0], *X1 = box[1], *Y0 = box[2], *Y1 = box[3];
    WrapCounts found = {0, 0.0, 0, 0};
    Py_ssize_t n_pairs = 0;
    for (Py_ssize_t r = 0; r + 1 < rows; r++) {
        Py_ssize_t next_end = r + 2 < rows ? (Py_ssize_t)S[r + 2] : n;
        if (S[r + 1] - S[r] == 1 && next_end - S[r + 1] == 1) pairs[n_pairs++] = r;
    }
    found.pairs = n_pairs;
    if (n_pairs < 2) return found;
    for (Py_ssize_t k = 0; k < n; k++) counts[k] = words[ids[k]];
    qsort(counts, (size_t)n, sizeof(int64_t), cmp_int64);
    found.median_words = (double)counts[n / 2];
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        int64_t a = ids[S[pairs[p]]], b = ids[S[pairs[p] + 1]];
        double base_a = unit_baseline(Y0, Y1, a, descent), base_b = unit_baseline(Y0, Y1, b, descent);
        step[p] = sorted[p] = base_a - base_b;
    }
    qsort(sorted, (size_t)n_pairs, sizeof(double), cmp_np_double);
    double limit = paragraph_step * sorted[n_pairs / 2];
    double low = X0[ids[0]], high = X1[ids[0]];
    for (Py_ssize_t k = 1; k < n; k++) { low = np_min(low, X0[ids[k]]); high = np_max(high, X1[ids[k]]); }
    double width = high - low;
    for (Py_ssize_t p = 0; p < n_pairs; p++) {
        int64_t a = ids[S[pairs[p]]], b = ids[S[pairs[p] + 1]];
        double word = first_word[b];
        if (!(step[p] <= limit) || !(word < X1[b] - X0[b] - space)) continue;
        found.lines++;
        found.wrapped += X1[a] - X0[a] + space + word > width;
    }
    return found;
}

/* ---- wrap_measures(x0, x1, y0, y1, words, first_word, ids, starts, descent, paragraph_step, space)
 *      -> (pairs, median words, lines, wrapped)
 * kernels.wrap_measures (regions.wraps): of the rows of units `ids` (rows
 * starting at `starts`), how many single-line rows a single-line row follows
 * (pairs); the median word count of the units; of those pairs, the lines
 * not followed by a paragraph gap (a step down of at most paragraph_step x
 * the pairs' median step) whose next line holds several words (its first
 * word ends `space` short of its end); and how many of those the next
 * line's first word, after `space`, would not fit beside in the group's
 * width. Only the pairs when there are fewer than two. */
static PyObject *layout_wrap_measures(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *w_obj, *f_obj, *ids_obj, *s_obj;
    double descent, paragraph_step, space;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddd", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &w_obj, &f_obj, &ids_obj, &s_obj,
                          &descent, &paragraph_step, &space))
        return NULL;
    View vbox[4], vi = {0}, vw = {0}, vf = {0}, vs = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *pairs = NULL, *counts = NULL;
    double *step = NULL, *sorted = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0 || get_view(w_obj, &vw, "l", 8, "words") < 0 || get_view(f_obj, &vf, "d", 8, "first_word") < 0 ||
        get_view(s_obj, &vs, "l", 8, "starts") < 0)
        goto done;
    Py_ssize_t size = vbox[0].view.len / 8, rows = vs.view.len / 8;
    if (vw.view.len / 8 != size || vf.view.len / 8 != size) { PyErr_SetString(PyExc_ValueError, "unit columns differ in length"); goto done; }
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const double *first_word = vf.view.buf;
    const int64_t *ids = vi.view.buf, *words = vw.view.buf, *S = vs.view.buf;
    for (Py_ssize_t r = 0; r < rows; r++)
        if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) { PyErr_SetString(PyExc_ValueError, "bad row starts"); goto done; }
    Py_ssize_t cap = rows ? rows : 1;
    pairs = malloc(cap * sizeof(int64_t)); step = malloc(cap * sizeof(double)); sorted = malloc(cap * sizeof(double));
    counts = malloc((n ? n : 1) * sizeof(int64_t));
    if (!pairs || !step || !sorted || !counts) { PyErr_NoMemory(); goto done; }
    const double *box[4] = {X0, X1, Y0, Y1};
    WrapCounts found = wrap_counts(box, words, first_word, ids, n, S, rows, descent, paragraph_step, space,
                                   pairs, step, sorted, counts);
    result = Py_BuildValue("(ndnn)", found.pairs, found.median_words, found.lines, found.wrapped);
done:
    free(pairs); free(step); free(sorted); free(counts);
    release_boxes(vbox); release(&vi); release(&vw); release(&vf); release(&vs);
    return result;
}

/* Run lengths that are all positive and add up to the `n` units: 0, or -1
 * with an exception set. */
static int check_lengths(const int64_t *lengths, Py_ssize_t runs, Py_ssize_t n) {
    Py_ssize_t total = 0;
    for (Py_ssize_t r = 0; r < runs; r++) {
        if (lengths[r] < 1 || lengths[r] > n - total) { PyErr_SetString(PyExc_ValueError, "bad run lengths"); return -1; }
        total += (Py_ssize_t)lengths[r];
    }
    if (total != n) { PyErr_SetString(PyExc_ValueError, "run lengths do not add up to the units"); return -1; }
    return 0;
}

/* The unit boxes, the ids of the units in run order and the run lengths (runs
 * of consecutive ids) that a run kernel takes: the number of ids, its run count
 * in *runs, or -1 with the error set. */
static Py_ssize_t get_unit_runs(PyObject *const objs[4], View views[4], PyObject *ids_obj, View *ids,
                                PyObject *len_obj, View *lengths, Py_ssize_t *runs) {
    Py_ssize_t n = get_unit_boxes(objs, views, ids_obj, ids);
    if (n < 0 || get_view(len_obj, lengths, "l", 8, "lengths") < 0) return -1;
    *runs = lengths->view.len / 8;
    return check_lengths(lengths->view.buf, *runs, n) < 0 ? -1 : n;
}

/* get_unit_runs and the per-unit word columns a wrap kernel takes (words per
 * unit, the first word's width): blocks_wrap and paragraph_blocks read the
 * same columns. The number of ids, or -1 with the error set. */
static Py_ssize_t get_wrap_runs(PyObject *const objs[4], View views[4], PyObject *ids_obj, View *ids, PyObject *len_obj,
                                View *lengths, PyObject *w_obj, View *words, PyObject *f_obj, View *first_word,
                                Py_ssize_t *blocks) {
    Py_ssize_t n = get_unit_runs(objs, views, ids_obj, ids, len_obj, lengths, blocks);
    if (n < 0 || get_view(w_obj, words, "l", 8, "words") < 0 || get_view(f_obj, first_word, "d", 8, "first_word") < 0)
        return -1;
    Py_ssize_t size = views[0].view.len / 8;
    if (words->view.len / 8 != size || first_word->view.len / 8 != size) {
        PyErr_SetString(PyExc_ValueError, "unit columns differ in length");
        return -1;
    }
    return n;
}

/* How many times the group changes down the page among the lines of run a
 * (ids[a0:a1]) that overlap run b's box along the line (bx0[b]..bx1[b]) and
 * those of run b that overlap run a's, read top to bottom (by baseline `base`
 * per position in ids, descending, stable: a's lines before b's on a tie);
 * -1 when fewer than two of either overlap. `key`, `pos`, `tmp` and `group`
 * are scratch of the two runs' length. */
static Py_ssize_t turns_of(Py_ssize_t a0, Py_ssize_t a1, Py_ssize_t b0, Py_ssize_t b1, const double *ax, const double *bx,
                           const int64_t *ids, const double *X0, const double *X1, const double *base, double *key,
                           int64_t *pos, int64_t *tmp, char *group) {
    Py_ssize_t m = 0, from_a;
    for (Py_ssize_t k = a0; k < a1; k++)
        if (X1[ids[k]] > bx[0] && X0[ids[k]] < bx[1]) { key[m] = -base[k]; group[m++] = 0; }
    from_a = m;
    for (Py_ssize_t k = b0; k < b1; k++)
        if (X1[ids[k]] > ax[0] && X0[ids[k]] < ax[1]) { key[m] = -base[k]; group[m++] = 1; }
    if (from_a < 2 || m - from_a < 2) return -1;
    stable_argsort(key, pos, tmp, m);
    Py_ssize_t changes = 0;
    for (Py_ssize_t k = 1; k < m; k++) changes += group[pos[k]] != group[pos[k - 1]];
    return changes;
}

/* ---- turning_pair(x0, x1, y0, y1, ids, lengths, descent, stacked, tol, turns) -> (i, j) or None
 * kernels.turning_pair (leaves._lines_in_turn): of the runs of lines (ids,
 * cut by `lengths`), the first pair i < j in row-major order whose boxes are
 * tangled (neither above the other, `stacked`, nor apart along the line,
 * `tol`: run_pairs' relations) and whose lines take turns down the page:
 * of those that overlap the other run's box along the line, two or more of
 * each, the group changes `turns` times or more read top to bottom
 * (baselines `descent` of the height above the bottom). */
/* turning_pair's pair of the runs of lines ids[0..n) (cut by `lengths`, `runs` of them) into pair[0], pair[1]:
 * 1 where found, 0 where none is, -1 out of memory (no exception set). */
static int turning_pair_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                           const int64_t *lengths, Py_ssize_t runs, Py_ssize_t n, double descent, double stacked, double tol,
                           Py_ssize_t turns, Py_ssize_t pair[2]) {
    int found = -1;
    Py_ssize_t cap = n ? n : 1, rcap = runs ? runs : 1;
    double *box = malloc(4 * rcap * sizeof(double));   /* per run: x0, x1, y0, y1 */
    double *base = malloc(cap * sizeof(double)), *key = malloc(cap * sizeof(double));
    int64_t *first = malloc((rcap + 1) * sizeof(int64_t)), *pos = malloc(2 * cap * sizeof(int64_t));
    char *group = malloc(cap);
    if (!box || !base || !key || !first || !pos || !group) goto done;
    for (Py_ssize_t r = 0, k = 0; r < runs; r++) {
        double *b = box + 4 * r;
        first[r] = k;
        b[0] = X0[ids[k]]; b[1] = X1[ids[k]]; b[2] = Y0[ids[k]]; b[3] = Y1[ids[k]];
        for (Py_ssize_t end = k + (Py_ssize_t)lengths[r]; k < end; k++) {
            int64_t u = ids[k];
            b[0] = np_min(b[0], X0[u]); b[1] = np_max(b[1], X1[u]);
            b[2] = np_min(b[2], Y0[u]); b[3] = np_max(b[3], Y1[u]);
            base[k] = unit_baseline(Y0, Y1, u, descent);
        }
    }
    first[runs] = n;
    found = 0;
    for (Py_ssize_t i = 0; i < runs && !found; i++) {
        const double *a = box + 4 * i;
        for (Py_ssize_t j = i + 1; j < runs; j++) {
            const double *b = box + 4 * j;
            int above = a[2] >= b[3] - stacked || b[2] >= a[3] - stacked;
            int apart = a[1] <= b[0] + tol || b[1] <= a[0] + tol;
            if (above || apart) continue;
            const double ax[2] = {a[0], a[1]}, bx[2] = {b[0], b[1]};
            Py_ssize_t changes = turns_of(first[i], first[i + 1], first[j], first[j + 1], ax, bx, ids, X0, X1, base, key, pos,
                                          pos + cap, group);
            if (changes >= turns) { pair[0] = i; pair[1] = j; found = 1; break; }
        }
    }
done:
    free(box); free(base); free(key); free(first); free(pos); free(group);
    return found;
}

static PyObject *layout_turning_pair(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    double descent, stacked, tol;
    Py_ssize_t turns;
    if (!PyArg_ParseTuple(args, "OOOOOOdddn", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &descent, &stacked,
                          &tol, &turns))
        return NULL;
    View vbox[4], vi = {0}, vl = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    Py_ssize_t runs = 0, n = get_unit_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, &runs), pair[2];
    if (n < 0) goto done;
    int found = turning_pair_of(vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf, vi.view.buf,
                                vl.view.buf, runs, n, descent, stacked, tol, turns, pair);
    if (found < 0) PyErr_NoMemory();
    else if (found) result = Py_BuildValue("(nn)", pair[0], pair[1]);
    else { Py_INCREF(Py_None); result = Py_None; }
done:
    release_boxes(vbox); release(&vi); release(&vl);
    return result;
}

/* out_of_turn's flags of the blocks (ids cut by `lengths`; `size` units in
 * all) into flags; owner (size) and sorted (n) are work buffers. */
static void out_of_turn_flags(const double *X0, const double *X1, const double *Y0, const double *Y1, Py_ssize_t size,
                              const int64_t *ids, const int64_t *lengths, Py_ssize_t blocks, double descent,
                              int64_t *owner, int64_t *sorted, char *flags) {
    for (Py_ssize_t u = 0; u < size; u++) owner[u] = -1;
    for (Py_ssize_t b = 0, k = 0; b < blocks; b++)
        for (Py_ssize_t end = k + (Py_ssize_t)lengths[b]; k < end; k++) owner[ids[k]] = b;
    for (Py_ssize_t b = 0, k = 0; b < blocks; k += (Py_ssize_t)lengths[b], b++) {
        Py_ssize_t m = (Py_ssize_t)lengths[b];
        const int64_t *block = ids + k;
        double lo_x = X0[block[0]], hi_x = X1[block[0]];
        for (Py_ssize_t i = 0; i < m; i++) {
            sorted[i] = block[i];
            lo_x = np_min(lo_x, X0[block[i]]);
            hi_x = np_max(hi_x, X1[block[i]]);
        }
        qsort(sorted, (size_t)m, sizeof(int64_t), cmp_int64);
        int flag = 0;
        for (Py_ssize_t i = 1; i < m && !flag; i++) {
            int64_t a = sorted[i - 1], c = sorted[i];
            double step = unit_baseline(Y0, Y1, c, descent) - unit_baseline(Y0, Y1, a, descent);
            flag = step > 0;
        }
        for (int64_t u = sorted[0] + 1; u < sorted[m - 1] && !flag; u++)
            flag = owner[u] >= 0 && owner[u] != b && (X1[u] <= lo_x || X0[u] >= hi_x);
        flags[b] = (char)flag;
    }
}

/* ---- out_of_turn(x0, x1, y0, y1, ids, lengths, descent) -> flags per block
 * kernels.out_of_turn (leaves._painted_in_turn): per block of lines (ids,
 * cut by `lengths`, each block's lines top to bottom; unit numbers follow
 * stream order), does the stream paint its lines other than top to bottom
 * (a baseline rising from one painted line to the next), or, between the
 * first and the last painted of them, a line of another of these blocks
 * that lies beside it along the line (right of its box or left of it)? */
static PyObject *layout_out_of_turn(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    double descent;
    if (!PyArg_ParseTuple(args, "OOOOOOd", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &descent)) return NULL;
    View vbox[4], vi = {0}, vl = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *owner = NULL, *sorted = NULL;
    Py_ssize_t blocks = 0, n = get_unit_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, &blocks);
    if (n < 0) goto done;
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    Py_ssize_t size = vbox[0].view.len / 8;
    owner = malloc((size ? size : 1) * sizeof(int64_t));
    sorted = malloc((n ? n : 1) * sizeof(int64_t));
    result = PyByteArray_FromStringAndSize(NULL, blocks);
    if (!owner || !sorted || !result) { if (!result) goto done; PyErr_NoMemory(); Py_CLEAR(result); goto done; }
    out_of_turn_flags(X0, X1, Y0, Y1, size, ids, lengths, blocks, descent, owner, sorted, PyByteArray_AS_STRING(result));
done:
    free(owner); free(sorted);
    release_boxes(vbox); release(&vi); release(&vl);
    return result;
}

/* ---- follow_chains(below, linked, tops, limit) -> (positions, lengths)
 * kernels.follow_chains (leaves.stacked_blocks, _tight_chains): from each
 * position of `tops` in turn, the chain of positions that goes on from a
 * position to below[position] while that one is linked, and stops after
 * limit + 1 positions at the most. */
static PyObject *layout_follow_chains(PyObject *mod, PyObject *args) {
    PyObject *below_obj, *linked_obj, *tops_obj;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "OOOn", &below_obj, &linked_obj, &tops_obj, &limit)) return NULL;
    View vb = {0}, vk = {0}, vt = {0};
    PyObject *result = NULL;
    int64_t *chain = NULL, *lengths = NULL;
    if (get_view(below_obj, &vb, "l", 8, "below") < 0 || get_view(linked_obj, &vk, "?", 1, "linked") < 0 ||
        get_view(tops_obj, &vt, "l", 8, "tops") < 0)
        goto done;
    Py_ssize_t n = vb.view.len / 8, n_tops = vt.view.len / 8;
    if (vk.view.len != n) { PyErr_SetString(PyExc_ValueError, "below and linked differ in length"); goto done; }
    if (limit < 0) { PyErr_SetString(PyExc_ValueError, "negative chain limit"); goto done; }
    const int64_t *below = vb.view.buf, *tops = vt.view.buf;
    const char *linked = vk.view.buf;
    if (check_ids(below, n, n, "below") < 0 || check_ids(tops, n_tops, n, "tops") < 0) goto done;
    /* A chain visits each position at most once unless below[] cycles; the
     * bound keeps the output finite whatever it holds. */
    Py_ssize_t per_chain = limit < n ? limit + 1 : n + 1, cap = 1;
    if (n_tops > 0 && per_chain > PY_SSIZE_T_MAX / 8 / n_tops) { PyErr_NoMemory(); goto done; }
    cap = n_tops * per_chain + 1;
    chain = malloc((size_t)cap * sizeof(int64_t));
    lengths = malloc((size_t)(n_tops ? n_tops : 1) * sizeof(int64_t));
    if (!chain || !lengths) { PyErr_NoMemory(); goto done; }
    Py_ssize_t out = 0;
    for (Py_ssize_t t = 0; t < n_tops; t++) {
        Py_ssize_t length = 1;
        int64_t at = tops[t];
        chain[out++] = at;
        while (linked[at] && length <= limit && length < per_chain) {
            at = below[at];
            chain[out++] = at;
            length++;
        }
        lengths[t] = length;
    }
    result = Py_BuildValue("(NN)", int64_bytes(chain, out), int64_bytes(lengths, n_tops));
done:
    free(chain); free(lengths);
    release(&vb); release(&vk); release(&vt);
    return result;
}

/* The box of one chain of positions into `ids`: np.min of x0 and y0, np.max
 * of x1 and y1 over its lines (NaN propagates). */
static void chain_box(const int64_t *chain, Py_ssize_t length, const int64_t *ids, const double *X0, const double *X1,
                      const double *Y0, const double *Y1, double box[4]) {
    box[0] = X0[ids[chain[0]]]; box[1] = X1[ids[chain[0]]];
    box[2] = Y0[ids[chain[0]]]; box[3] = Y1[ids[chain[0]]];
    for (Py_ssize_t k = 1; k < length; k++) {
        int64_t u = ids[chain[k]];
        box[0] = np_min(box[0], X0[u]); box[1] = np_max(box[1], X1[u]);
        box[2] = np_min(box[2], Y0[u]); box[3] = np_max(box[3], Y1[u]);
    }
}

/* Is the chain (its box `box`: c0, c1, r0, r1) a cell: a line of `ids` lies
 * beside it on its row, every such line is `in_cell`, and so is its column
 * neighbour above or below (`column`, -1 where none)? */
static int chain_is_cell(Py_ssize_t n, const int64_t *ids, const double *X0, const double *X1, const double *Y0,
                         const double *Y1, const double box[4], const char *in_cell, const int64_t column[2]) {
    int any = 0;
    for (Py_ssize_t j = 0; j < n; j++) {
        int64_t u = ids[j];
        if (np_min(Y1[u], box[3]) > np_max(Y0[u], box[2]) && (X1[u] <= box[0] || X0[u] >= box[1])) {
            if (!in_cell[j]) return 0;
            any = 1;
        }
    }
    return any && ((column[0] >= 0 && in_cell[column[0]]) || (column[1] >= 0 && in_cell[column[1]]));
}

/* cell_chains' cells of the lines ids[0..n) (below, above, gap_below,
 * gap_above: their nearest_under; positions checked) into *cells_out (their
 * lines, *lines_out of them) and *lengths_out (lines per cell), both
 * malloc'd for the caller to free: the cell count, or -1 with an exception
 * set. */
static Py_ssize_t cell_chains_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                                 Py_ssize_t n, const int64_t *below, const int64_t *above, const double *gap_below,
                                 const double *gap_above, double leading, double padding, Py_ssize_t max_lines,
                                 int64_t **cells_out, int64_t **lengths_out, Py_ssize_t *lines_out) {
    Py_ssize_t found = -1;
    char *flags = NULL;
    int64_t *chain = NULL, *kept = NULL, *cells = NULL, *lengths = NULL;
    /* A chain holds at most bound + 1 positions (follow_chains' bound). */
    Py_ssize_t bound = max_lines < n ? max_lines : n, cap = n ? n : 1;
    if (bound + 1 > PY_SSIZE_T_MAX / 8 / cap) { PyErr_NoMemory(); goto done; }
    flags = calloc(2 * (size_t)cap, 1);
    chain = malloc((size_t)cap * (size_t)(bound + 1) * sizeof(int64_t));
    kept = malloc(2 * (size_t)cap * sizeof(int64_t));  /* per kept chain: where it starts in chain[], its length */
    cells = malloc((size_t)cap * (size_t)(bound + 1) * sizeof(int64_t));
    lengths = malloc((size_t)cap * sizeof(int64_t));
    if (!flags || !chain || !kept || !cells || !lengths) { PyErr_NoMemory(); goto done; }
    char *linked = flags, *in_cell = flags + cap;
    for (Py_ssize_t k = 0; k < n; k++) linked[k] = gap_below[k] <= leading && above[below[k]] == k;
    Py_ssize_t used = 0, n_kept = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!linked[k] || (linked[above[k]] && below[above[k]] == k)) continue;
        Py_ssize_t start = used, length = 1;
        int64_t at = k;
        chain[used++] = at;
        while (linked[at] && length <= bound) {
            at = below[at];
            chain[used++] = at;
            length++;
        }
        if (length <= max_lines && gap_above[k] >= padding && gap_below[at] >= padding) {
            kept[2 * n_kept] = start;
            kept[2 * n_kept + 1] = length;
            n_kept++;
        } else {
            used = start;
        }
    }
    for (Py_ssize_t k = 0; k < n; k++) in_cell[k] = gap_above[k] >= padding && gap_below[k] >= padding;
    for (Py_ssize_t c = 0; c < used; c++) in_cell[chain[c]] = 1;
    Py_ssize_t out = 0, n_cells = 0;
    for (Py_ssize_t c = 0; c < n_kept; c++) {
        const int64_t *lines = chain + kept[2 * c];
        Py_ssize_t length = kept[2 * c + 1];
        double box[4];
        chain_box(lines, length, ids, X0, X1, Y0, Y1, box);
        int64_t first = lines[0], last = lines[length - 1];
        int64_t column[2] = {isfinite(gap_above[first]) ? above[first] : -1, isfinite(gap_below[last]) ? below[last] : -1};
        if (!chain_is_cell(n, ids, X0, X1, Y0, Y1, box, in_cell, column)) continue;
        for (Py_ssize_t k = 0; k < length; k++) cells[out++] = ids[lines[k]];
        lengths[n_cells++] = length;
    }
    *lines_out = out;
    found = n_cells;
done:
    free(flags); free(chain); free(kept);
    if (found < 0) { free(cells); free(lengths); cells = lengths = NULL; }
    *cells_out = cells;
    *lengths_out = lengths;
    return found;
}

/* ---- cell_chains(x0, x1, y0, y1, ids, below, above, gap_below, gap_above, leading, padding, max_lines)
 *      -> (the cells' lines, lines per cell)
 * kernels.cell_chains (leaves.stacked_cells): chains down below[] of lines
 * linked (gap_below <= leading, each the nearest line above the next),
 * from each position that no linked line leads to, kept where they hold at
 * most max_lines lines and are padded (gap_above of the first, gap_below of
 * the last >= padding); of those, the cells: a line beside the chain's box
 * on its row, every such line in a chain or padded on its own, and so the
 * nearest line above or below it (where its gap is finite). Positions
 * (below, above) are bounds-checked against ids. */
static PyObject *layout_cell_chains(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj, *b_obj, *a_obj, *gb_obj, *ga_obj;
    double leading, padding;
    Py_ssize_t max_lines;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOddn", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &b_obj, &a_obj, &gb_obj,
                          &ga_obj, &leading, &padding, &max_lines))
        return NULL;
    View vbox[4], vi = {0}, vb = {0}, va = {0}, vgb = {0}, vga = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *cells = NULL, *lengths = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    if (get_view(b_obj, &vb, "l", 8, "below") < 0 || get_view(a_obj, &va, "l", 8, "above") < 0 ||
        get_view(gb_obj, &vgb, "d", 8, "gap_below") < 0 || get_view(ga_obj, &vga, "d", 8, "gap_above") < 0)
        goto done;
    if (vb.view.len != vi.view.len || va.view.len != vi.view.len || vgb.view.len != vi.view.len ||
        vga.view.len != vi.view.len) {
        PyErr_SetString(PyExc_ValueError, "nearest lines differ in length from ids");
        goto done;
    }
    if (max_lines < 0) { PyErr_SetString(PyExc_ValueError, "negative chain limit"); goto done; }
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf, *below = vb.view.buf, *above = va.view.buf;
    const double *gap_below = vgb.view.buf, *gap_above = vga.view.buf;
    if (check_ids(below, n, n, "below") < 0 || check_ids(above, n, n, "above") < 0) goto done;
    Py_ssize_t out = 0, n_cells = cell_chains_of(X0, X1, Y0, Y1, ids, n, below, above, gap_below, gap_above, leading, padding,
                                                 max_lines, &cells, &lengths, &out);
    if (n_cells < 0) goto done;
    result = Py_BuildValue("(NN)", int64_bytes(cells, out), int64_bytes(lengths, n_cells));
done:
    free(cells); free(lengths);
    release_boxes(vbox); release(&vi); release(&vb); release(&va); release(&vgb); release(&vga);
    return result;
}

/* block_chains' walk of the n lines `ids` (below, above, gap_below: their
 * nearest_under): the blocks' lines into `lines` (2n), their count into
 * *out, the lines per block into `lengths` (n); flags (2n) and measures
 * (2n) are zeroed and plain work buffers. The block count, or -1 with an
 * exception set. */
static Py_ssize_t block_walk(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, const int64_t *below,
                             const int64_t *above, const double *gap_below, double descent, double paragraph_gap,
                             double size_change, char *flags, double *measures, int64_t *lines, int64_t *lengths,
                             Py_ssize_t *lines_out) {
    Py_ssize_t cap = n ? n : 1;
    char *linked = flags, *has_above = flags + cap;
    double *base = measures, *height = measures + cap;
    for (Py_ssize_t k = 0; k < n; k++) {
        height[k] = Y1[ids[k]] - Y0[ids[k]];
        base[k] = Y0[ids[k]] + descent * height[k];
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        double h = height[k], under = height[below[k]];
        double taller = np_max(h, under);
        int same_size = taller <= size_change * np_max(np_min(h, under), 1e-9);
        linked[k] = isfinite(gap_below[k]) && base[k] - base[below[k]] <= paragraph_gap * taller && same_size &&
                    above[below[k]] == k;
        if (linked[k]) has_above[below[k]] = 1;
    }
    Py_ssize_t out = 0, n_blocks = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (has_above[k]) continue;
        Py_ssize_t length = 1;
        int64_t at = k;
        lines[out++] = ids[at];
        while (linked[at] && length <= n) {  /* follow_chains' bound: n + 1 lines */
            if (out >= 2 * cap) { PyErr_SetString(PyExc_RuntimeError, "block chains overran their bound"); return -1; }
            at = below[at];
            lines[out++] = ids[at];
            length++;
        }
        lengths[n_blocks++] = length;
    }
    *lines_out = out;
    return n_blocks;
}

/* block_chains' `turns`: out_of_turn_flags of the blocks of two lines or
 * more among the n_blocks blocks (`lines` cut by `lengths`) into flags, 0
 * for a block of one line. 0, or -1 with MemoryError set. */
static int blocks_out_of_turn(View vbox[4], const int64_t *lines, const int64_t *lengths, Py_ssize_t n_blocks,
                              double descent, char *flags) {
    Py_ssize_t size = vbox[0].view.len / 8, total = 0, multi = 0, m_lines = 0;
    for (Py_ssize_t b = 0; b < n_blocks; b++) total += (Py_ssize_t)lengths[b];
    size_t cap = total ? (size_t)total : 1;
    int64_t *work = malloc((3 * cap + (size ? (size_t)size : 1)) * sizeof(int64_t));
    char *multi_flags = malloc(cap);
    if (!work || !multi_flags) { free(work); free(multi_flags); PyErr_NoMemory(); return -1; }
    int64_t *m_ids = work, *m_lengths = work + cap, *sorted = work + 2 * cap, *owner = work + 3 * cap;
    for (Py_ssize_t b = 0, k = 0; b < n_blocks; k += (Py_ssize_t)lengths[b], b++) {
        if (lengths[b] < 2) continue;
        memcpy(m_ids + m_lines, lines + k, (size_t)lengths[b] * sizeof(int64_t));
        m_lines += (Py_ssize_t)lengths[b];
        m_lengths[multi++] = lengths[b];
    }
    /* out_of_turn asks nothing of a leaf with fewer than two blocks of lines. */
    if (multi >= 2)
        out_of_turn_flags(vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf, size, m_ids, m_lengths,
                          multi, descent, owner, sorted, multi_flags);
    for (Py_ssize_t b = 0, m = 0; b < n_blocks; b++) flags[b] = lengths[b] < 2 ? 0 : multi >= 2 ? multi_flags[m++] : 0;
    free(work); free(multi_flags);
    return 0;
}

/* ---- block_chains(x0, x1, y0, y1, ids, below, above, gap_below, descent, paragraph_gap, size_change)
 *      -> (the blocks' lines, lines per block)
 * kernels.block_chains (leaves.stacked_blocks): a line is linked to its
 * nearest line under it (below, a position into ids) where that gap is
 * finite, the step between their baselines (`descent` of the height above
 * the bottom) is at most paragraph_gap x the taller height, their heights
 * differ by at most size_change (the smaller clamped to 1e-9), and the line
 * under has it as its nearest line above; the blocks are the chains down
 * the links from each line that no link reaches, in order. With `turns`,
 * per block too, does the stream paint it out of turn (out_of_turn, of the
 * blocks of two lines or more, where there are two; 0 otherwise). Links are one to
 * one (above[below[k]] == k), so the chains hold every line once and never
 * cycle; the walk is bounded all the same. */
static PyObject *layout_block_chains(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj, *b_obj, *a_obj, *gb_obj;
    double descent, paragraph_gap, size_change;
    int turns = 0;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddd|p", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &b_obj, &a_obj, &gb_obj,
                          &descent, &paragraph_gap, &size_change, &turns))
        return NULL;
    View vbox[4], vi = {0}, vb = {0}, va = {0}, vgb = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    char *flags = NULL;
    double *measures = NULL;
    int64_t *lines = NULL, *lengths = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    if (get_view(b_obj, &vb, "l", 8, "below") < 0 || get_view(a_obj, &va, "l", 8, "above") < 0 ||
        get_view(gb_obj, &vgb, "d", 8, "gap_below") < 0)
        goto done;
    if (vb.view.len != vi.view.len || va.view.len != vi.view.len || vgb.view.len != vi.view.len) {
        PyErr_SetString(PyExc_ValueError, "nearest lines differ in length from ids");
        goto done;
    }
    const double *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf, *gap_below = vgb.view.buf;
    const int64_t *ids = vi.view.buf, *below = vb.view.buf, *above = va.view.buf;
    if (check_ids(below, n, n, "below") < 0 || check_ids(above, n, n, "above") < 0) goto done;
    Py_ssize_t cap = n ? n : 1;
    flags = calloc(2 * (size_t)cap, 1);
    measures = malloc(2 * (size_t)cap * sizeof(double));
    lines = malloc(2 * (size_t)cap * sizeof(int64_t));  /* tops and link targets: 2n at the most */
    lengths = malloc((size_t)cap * sizeof(int64_t));
    if (!flags || !measures || !lines || !lengths) { PyErr_NoMemory(); goto done; }
    Py_ssize_t out = 0, n_blocks = block_walk(Y0, Y1, ids, n, below, above, gap_below, descent, paragraph_gap, size_change,
                                              flags, measures, lines, lengths, &out);
    if (n_blocks < 0) goto done;
    if (!turns) {
        result = Py_BuildValue("(NN)", int64_bytes(lines, out), int64_bytes(lengths, n_blocks));
        goto done;
    }
    PyObject *in_turn = PyByteArray_FromStringAndSize(NULL, n_blocks);
    if (!in_turn || blocks_out_of_turn(vbox, lines, lengths, n_blocks, descent, PyByteArray_AS_STRING(in_turn)) < 0) {
        Py_XDECREF(in_turn);
        goto done;
    }
    result = Py_BuildValue("(NNN)", int64_bytes(lines, out), int64_bytes(lengths, n_blocks), in_turn);
done:
    free(flags); free(measures); free(lines); free(lengths);
    release_boxes(vbox); release(&vi); release(&vb); release(&va); release(&vgb);
    return result;
}

/* ==== lpage: a leaf's cells and blocks painted in turn, one call (leaves._cells_and_turns) ==== */

/* ---- leaf_cells(x0, x1, y0, y1, ids, (descent, line_step, leading, padding, paragraph_gap, size_change), max_lines)
 *      -> (cell lines, lines per cell, block lines, lines per block, per block out of turn)
 * kernels.leaf_cells (leaves._cells_and_turns): of a leaf's lines `ids`,
 * their nearest_under once (nearest_of: `descent`, `line_step`), the cells
 * of cell_chains_of on it (`leading`, `padding`, `max_lines`; none where
 * max_lines < 0: a leaf stacked_cells does not look at), and the blocks of
 * block_walk on it with blocks_out_of_turn's flags (`descent`,
 * `paragraph_gap`, `size_change`): stacked_cells' and _painted_in_turn's
 * measures, each the body of its own kernel, where they were three calls
 * and a cache. */
static PyObject *layout_leaf_cells(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj;
    double descent, line_step, leading, padding, paragraph_gap, size_change;
    Py_ssize_t max_lines;
    if (!PyArg_ParseTuple(args, "OOOOO(dddddd)n", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &descent, &line_step, &leading,
                          &padding, &paragraph_gap, &size_change, &max_lines))
        return NULL;
    View vbox[4] = {0}, vi = {0};
    PyObject *result = NULL, *in_turn = NULL;
    int64_t *near = NULL, *cells = NULL, *cell_lengths = NULL, *lines = NULL;
    double *gaps = NULL;
    char *flags = NULL;
    Py_ssize_t n = get_unit_boxes(obj, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf;
    size_t cap = n ? (size_t)n : 1;
    near = malloc(5 * cap * sizeof(int64_t));  /* below, above; the blocks' lines (2n), their lengths */
    gaps = malloc(3 * cap * sizeof(double));   /* gap_below, gap_above; base, then block_walk's measures (2n) */
    flags = calloc(2 * cap, 1);
    double *measures = malloc(2 * cap * sizeof(double));
    if (!near || !gaps || !flags || !measures) { free(measures); PyErr_NoMemory(); goto done; }
    int64_t *below = near, *above = near + cap, *block_lines = near + 2 * cap, *block_lengths = near + 4 * cap;
    double *gap_below = gaps, *gap_above = gaps + cap;
    if (nearest_of(X0, X1, Y0, Y1, ids, n, descent, line_step, below, above, gap_below, gap_above, gaps + 2 * cap) < 0) {
        free(measures); PyErr_NoMemory(); goto done;
    }
    Py_ssize_t cell_lines = 0, n_cells = 0;
    if (max_lines >= 0) {
        n_cells = cell_chains_of(X0, X1, Y0, Y1, ids, n, below, above, gap_below, gap_above, leading, padding, max_lines, &cells,
                                 &cell_lengths, &cell_lines);
        if (n_cells < 0) { free(measures); goto done; }
    }
    Py_ssize_t out = 0, n_blocks = block_walk(Y0, Y1, ids, n, below, above, gap_below, descent, paragraph_gap, size_change, flags,
                                              measures, block_lines, block_lengths, &out);
    free(measures);
    if (n_blocks < 0) goto done;
    in_turn = PyByteArray_FromStringAndSize(NULL, n_blocks);
    if (!in_turn || blocks_out_of_turn(vbox, block_lines, block_lengths, n_blocks, descent, PyByteArray_AS_STRING(in_turn)) < 0)
        goto done;
    result = Py_BuildValue("(NNNNO)", int64_bytes(cells, cell_lines), int64_bytes(cell_lengths, n_cells),
                           int64_bytes(block_lines, out), int64_bytes(block_lengths, n_blocks), in_turn);
done:
    Py_XDECREF(in_turn);
    free(near); free(gaps); free(flags); free(cells); free(cell_lengths); free(lines);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ==== end of lpage's leaf cells ==== */

/* ==== the fixed per-page pipeline: units.Page's frame, lines.glyphs_along ====
 * Kernels that read the glyph table's columns themselves through a page's
 * stream (table rows, bounds-checked) instead of numpy gathering them once
 * per column and page. Both answer only for an upright frame (along (1, 0),
 * where every projection on it is a coordinate, exactly), and decline (None)
 * where a value they read is not finite: the numpy reference then runs. */

/* The glyph columns origin, own_end, direction (rows x 2 doubles) and height
 * (rows) and the int64 stream of rows into them, checked: the stream's
 * length, or -1 with an exception set. */
static Py_ssize_t get_stream_columns(PyObject *const objs[5], View v[5], Py_ssize_t *rows) {
    static const char *names[5] = {"origin", "own_end", "direction", "height", "stream"};
    for (int c = 0; c < 4; c++)
        if (get_view(objs[c], &v[c], "d", 8, names[c]) < 0) return -1;
    if (get_view(objs[4], &v[4], "l", 8, names[4]) < 0) return -1;
    *rows = v[3].view.len / 8;
    for (int c = 0; c < 3; c++)
        if (v[c].view.len != 16 * *rows) {
            PyErr_SetString(PyExc_ValueError, "glyph columns differ in length");
            return -1;
        }
    Py_ssize_t n = v[4].view.len / 8;
    return check_ids(v[4].view.buf, n, *rows, "stream") < 0 ? -1 : n;
}

/* Unit starts: strictly increasing from 0, all below n (the units cover the
 * stream in turn, as np.*.reduceat over them reads it). */
static int units_cover(const int64_t *start, Py_ssize_t units, Py_ssize_t n) {
    if (units < 1 || start[0] != 0) return 0;
    for (Py_ssize_t u = 1; u < units; u++)
        if (start[u] <= start[u - 1]) return 0;
    return start[units - 1] < n;
}

/* np.rint of x in [-0.5, 2^51] (round half to even, the default rounding
 * mode): adding and taking away 2^52 leaves the nearest integer, with no call
 * into libm (rint is not inlined on baseline x86-64). Callers keep only
 * results in [0, 2^51]; below -0.5 any negative number serves. */
static inline double small_rint(double x) {
    const double two52 = 4503599627370496.0;
    return x >= 0 ? (x + two52) - two52 : (x < -0.5 ? -1.0 : 0.0);
}

/* geometric.most_common(height, 10)'s bin of one height: np.rint of height
 * x 10 where it lies in [0, top] (top: max_value x 10, rounded), else -1
 * (not kept). */
static inline int64_t height_tenth(double height, double top) {
    double s = height * 10;
    if (s >= -0.5 && s <= top + 0.5) {
        s = small_rint(s);
        if (s >= 0 && s <= top) return (int64_t)s;
    }
    return -1;
}

/* geometric.most_common(height, 10) of n heights binned by height_tenth
 * (`last`: the largest bin, -1 where none is kept): the most common height
 * to a tenth of a point (the first of equal counts), 0.0 where none is
 * kept; -1.0 when out of memory. */
static double common_tenth(const int64_t *tenth, Py_ssize_t n, int64_t last) {
    if (last < 0) return 0.0;
    int64_t *count = calloc((size_t)last + 1, sizeof(int64_t));
    if (!count) return -1.0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (tenth[k] >= 0) count[tenth[k]]++;
    int64_t best = 0;
    for (int64_t s = 1; s <= last; s++)
        if (count[s] > count[best]) best = s;
    free(count);
    return (double)best / 10;
}

/* What upright_frame_of measures on the way for upright_backward_units
 * (stream_units asks both of one stream): per glyph its centre along the
 * line (X) and whether it is set in the page's direction (A), arrays of n
 * the caller gives; then the heights (the frame's own column) and whether
 * every value the backward test reads is finite (nonfinite 0.0; the frame's
 * four and the own end's y and the direction). `measured`: whether the
 * frame read the glyphs at all (it declines skewed units first). */
typedef struct {
    double *X;
    unsigned char *A;
    const double *HT;
    double nonfinite;
    int measured;
} BackwardPrep;

/* ---- upright_frame(origin, own_end, direction, height, stream, start, space,
 *      descent, skewed, same_direction, max_value)
 *      -> None or (low_x, high_x, height, x0, x1, y0, y1, inked, aligned, end, placed, body)
 * kernels.unit_frame on an upright frame (units.Page): per glyph of the stream
 * its extent along the line (origin to own end) and its height, blanks that
 * lead or trail a unit (`space`, per stream position) with no extent
 * (infinite); per unit start[u]:start[u + 1] its box (across the line, the
 * baseline less `descent` of the height to the height above it), its glyphs
 * less those blanks, whether its first glyph runs in the page's direction,
 * where it ends (start[u + 1], n for the last) and whether it is placed
 * (aligned, and some glyph inked: units.Page.placed); the page's most
 * common height. None where a value read is not finite, a
 * unit is set `skewed` (kernels.flattened lays it flat, in numpy) or the
 * starts do not cover the stream in turn. */
/* upright_frame's body on the stream S[0..n) of glyph columns g, cut into
 * units start[0..units): the result tuple, None where the kernel declines,
 * NULL with an exception set. One pass over the glyphs, unit by unit: each
 * glyph's values read once for its extent, its unit's box and its height's
 * bin, and for `bp` where not NULL. */
static PyObject *upright_frame_of(const GlyphColumns *g, const int64_t *S, Py_ssize_t n, const int64_t *start, Py_ssize_t units,
                                  const unsigned char *space, const double frame_rules[4], BackwardPrep *bp) {
    const double *O = g->O, *E = g->E, *D = g->D, *H = g->H;
    const double descent = frame_rules[0], skewed = frame_rules[1], same_direction = frame_rules[2];
    PyObject *result = NULL, *col[11] = {NULL};
    int64_t *tenth = NULL;
    if (!units_cover(start, units, n)) return Py_NewRef(Py_None);
    for (Py_ssize_t u = 0; u < units; u++) {
        double dx = D[2 * S[start[u]]], dy = D[2 * S[start[u]] + 1];
        if (!isfinite(dx) || !isfinite(dy) || dx < skewed) return Py_NewRef(Py_None);
    }
    const Py_ssize_t sizes[11] = {8 * n, 8 * n, 8 * n, 8 * units, 8 * units, 8 * units, 8 * units, 8 * units, units,
                                  8 * units, units};
    for (int c = 0; c < 11; c++)
        if (!(col[c] = PyByteArray_FromStringAndSize(NULL, sizes[c] ? sizes[c] : 0))) goto done;
    double *LX = (double *)PyByteArray_AS_STRING(col[0]), *HX = (double *)PyByteArray_AS_STRING(col[1]);
    double *HT = (double *)PyByteArray_AS_STRING(col[2]);
    double *X0 = (double *)PyByteArray_AS_STRING(col[3]), *X1 = (double *)PyByteArray_AS_STRING(col[4]);
    double *Y0 = (double *)PyByteArray_AS_STRING(col[5]), *Y1 = (double *)PyByteArray_AS_STRING(col[6]);
    int64_t *inked = (int64_t *)PyByteArray_AS_STRING(col[7]);
    char *aligned = PyByteArray_AS_STRING(col[8]), *placed = PyByteArray_AS_STRING(col[10]);
    int64_t *ends = (int64_t *)PyByteArray_AS_STRING(col[9]);
    tenth = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!tenth) { PyErr_NoMemory(); goto done; }
    double nonfinite = 0.0, extra = 0.0;  /* x - x is 0 for every finite x, NaN for an infinite or NaN one */
    double top = small_rint(frame_rules[3] * 10), h_before = NAN;
    int64_t last = -1, tenth_before = -1;
    for (Py_ssize_t u = 0; u < units; u++) {
        Py_ssize_t lo = (Py_ssize_t)start[u], hi = u + 1 < units ? (Py_ssize_t)start[u + 1] : n, first = lo, end = hi;
        /* kernels.blank_edges: blanks with only blanks between them and the unit's edge */
        while (first < hi && space[first]) first++;
        while (end > first && space[end - 1]) end--;
        double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
        for (Py_ssize_t k = lo; k < hi; k++) {
            int64_t r = S[k];
            double ax = O[2 * r], bx = E[2 * r], h = H[r], ay = O[2 * r + 1];
            nonfinite += ((ax - ax) + (bx - bx)) + ((h - h) + (ay - ay));
            HT[k] = h;
            /* A height repeats from glyph to glyph along a line: its bin is found once. */
            tenth[k] = h == h_before ? tenth_before : height_tenth(h, top);
            h_before = h; tenth_before = tenth[k];
            last = tenth[k] > last ? tenth[k] : last;
            if (bp) {
                double ey = E[2 * r + 1], dx = D[2 * r], dy = D[2 * r + 1];
                extra += (ey - ey) + ((dx - dx) + (dy - dy));
                bp->X[k] = (ax + bx) / 2;
                bp->A[k] = dx >= same_direction;
            }
            if (k < first || k >= end) { LX[k] = INFINITY; HX[k] = -INFINITY; continue; } /* an edge blank: no extent */
            /* every value finite (checked below): np.minimum and np.maximum are plain comparisons */
            LX[k] = ax <= bx ? ax : bx;
            HX[k] = ax >= bx ? ax : bx;
            x0 = LX[k] < x0 ? LX[k] : x0;
            x1 = HX[k] > x1 ? HX[k] : x1;
            double low = ay - descent * h, high = low + h;
            y0 = low < y0 ? low : y0;
            y1 = high > y1 ? high : y1;
        }
        X0[u] = x0; X1[u] = x1; Y0[u] = y0; Y1[u] = y1;
        inked[u] = (int64_t)(end - first);
        aligned[u] = (char)(D[2 * S[lo]] >= same_direction);
        ends[u] = (int64_t)hi;
        placed[u] = (char)(aligned[u] && end > first);
    }
    if (bp) *bp = (BackwardPrep){bp->X, bp->A, HT, nonfinite + extra, 1};
    if (nonfinite != 0.0) { result = Py_NewRef(Py_None); goto done; }
    double body = common_tenth(tenth, n, last);
    if (body < 0) { PyErr_NoMemory(); goto done; }
    result = Py_BuildValue("(OOOOOOOOOOOd)", col[0], col[1], col[2], col[3], col[4], col[5], col[6], col[7], col[8], col[9],
                           col[10], body);
done:
    for (int c = 0; c < 11; c++) Py_XDECREF(col[c]);
    free(tenth);
    return result;
}

static PyObject *layout_upright_frame(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *st_obj, *sp_obj;
    double descent, skewed, same_direction, max_value;
    if (!PyArg_ParseTuple(args, "OOOOOOOdddd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &st_obj, &sp_obj,
                          &descent, &skewed, &same_direction, &max_value))
        return NULL;
    View v[5], vst = {0}, vsp = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    Py_ssize_t rows, n = get_stream_columns((PyObject *const *)objs, v, &rows);
    if (n < 0 || get_view(st_obj, &vst, "l", 8, "start") < 0 || get_view(sp_obj, &vsp, "?", 1, "space") < 0) goto done;
    if (vsp.view.len != n) { PyErr_SetString(PyExc_ValueError, "space and stream differ in length"); goto done; }
    const GlyphColumns g = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    const double frame_rules[4] = {descent, skewed, same_direction, max_value};
    result = upright_frame_of(&g, v[4].view.buf, n, vst.view.buf, vst.view.len / 8, vsp.view.buf, frame_rules, NULL);
done:
    for (int c = 0; c < 5; c++) release(&v[c]);
    release(&vst); release(&vsp);
    return result;
}

/* ---- upright_backward_units(origin, own_end, direction, height, stream, start, end,
 *      back_step, same_direction) -> None or flags per unit
 * kernels.stream_backward_units on an upright frame (lines.glyphs_along):
 * kernels.backward_units of the stream's glyphs, their centres along the
 * line, heights and alignment with the page read off the glyph columns.
 * None where a value read is not finite. */
/* upright_backward_units' body on the stream S[0..n) of glyph columns g,
 * units start[u]:end[u]: flags per unit, None where a value read is not
 * finite, NULL with an exception set. */
static PyObject *upright_backward_of(const GlyphColumns *g, const int64_t *S, Py_ssize_t n, const int64_t *start,
                                     const int64_t *end, Py_ssize_t units, double back_step, double same_direction) {
    const double *O = g->O, *E = g->E, *D = g->D, *H = g->H;
    PyObject *result = NULL;
    double *X = malloc((size_t)(n ? n : 1) * sizeof(double)), *HT = malloc((size_t)(n ? n : 1) * sizeof(double));
    unsigned char *A = malloc((size_t)(n ? n : 1));
    if (!X || !HT || !A) { PyErr_NoMemory(); goto done; }
    double nonfinite = 0.0;  /* x - x is 0 for every finite x, NaN for an infinite or NaN one */
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t r = S[k];
        double ox = O[2 * r], oy = O[2 * r + 1], ex = E[2 * r], ey = E[2 * r + 1], dx = D[2 * r], dy = D[2 * r + 1];
        nonfinite += (((ox - ox) + (oy - oy)) + ((ex - ex) + (ey - ey))) + (((dx - dx) + (dy - dy)) + (H[r] - H[r]));
        X[k] = (ox + ex) / 2;
        HT[k] = H[r];
        A[k] = dx >= same_direction;
    }
    if (nonfinite != 0.0) { result = Py_NewRef(Py_None); goto done; }
    result = PyByteArray_FromStringAndSize(NULL, units);
    if (!result) goto done;
    if (backward_flags(X, HT, A, start, end, units, n, back_step, PyByteArray_AS_STRING(result)) < 0) Py_CLEAR(result);
done:
    free(X); free(HT); free(A);
    return result;
}

/* upright_backward_of where upright_frame_of measured the glyphs already
 * (`bp`): flags per unit from its centres, heights and alignment, None
 * where a value read is not finite; read afresh where the frame declined
 * before reading them. */
static PyObject *upright_backward_from(const GlyphColumns *g, const int64_t *S, Py_ssize_t n, const int64_t *start,
                                       const int64_t *end, Py_ssize_t units, double back_step, double same_direction,
                                       const BackwardPrep *bp) {
    if (!bp->measured) return upright_backward_of(g, S, n, start, end, units, back_step, same_direction);
    if (bp->nonfinite != 0.0) return Py_NewRef(Py_None);
    PyObject *result = PyByteArray_FromStringAndSize(NULL, units);
    if (result && backward_flags(bp->X, bp->HT, bp->A, start, end, units, n, back_step, PyByteArray_AS_STRING(result)) < 0)
        Py_CLEAR(result);
    return result;
}

static PyObject *layout_upright_backward_units(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *s_obj, *e_obj;
    double back_step, same_direction;
    if (!PyArg_ParseTuple(args, "OOOOOOOdd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &s_obj, &e_obj,
                          &back_step, &same_direction))
        return NULL;
    View v[5], vs = {0}, ve = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    Py_ssize_t rows, n = get_stream_columns((PyObject *const *)objs, v, &rows);
    if (n < 0 || get_view(s_obj, &vs, "l", 8, "start") < 0 || get_view(e_obj, &ve, "l", 8, "end") < 0) goto done;
    Py_ssize_t units = vs.view.len / 8;
    if (ve.view.len / 8 != units) { PyErr_SetString(PyExc_ValueError, "start and end differ in length"); goto done; }
    const GlyphColumns g = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    result = upright_backward_of(&g, v[4].view.buf, n, vs.view.buf, ve.view.buf, units, back_step, same_direction);
done:
    for (int c = 0; c < 5; c++) release(&v[c]);
    release(&vs); release(&ve);
    return result;
}

/* ---- block_starts(origin, direction, height, font_size, order, line_break, across, move_height,
 *      paragraph_gap, font_change, indent_min, indent_max, flush) -> (starts, indented or None)
 * kernels.block_starts (labels.with_blocks): per position of `order` (glyph
 * rows; line_break per position, across and move_height per pair of
 * positions, units.Moves), blocks.block_break (at a line break: a gap across
 * wider than paragraph_gap x the pair's height, a move back up, font sizes
 * apart by more than font_change) with the first position a start; and the
 * line starts indented against both neighbouring lines, which are flush
 * with each other (labels.with_blocks' first-line rule), None when none is. */
/* block_starts' thresholds, in glyph heights but for the size ratio. */
typedef struct {
    double paragraph_gap, font_change, indent_min, indent_max, flush;
} BlockRule;

/* The reading's glyph columns and moves block_starts reads: O, D (rows x
 * 2), H, F (rows); order (n positions), LB per position, A and M per pair. */
typedef struct {
    const double *O, *D, *H, *F;
    const int64_t *order;
    const unsigned char *LB;
    const double *A, *M;
    Py_ssize_t n;
} BlockReading;

/* block_starts' two rules on reading r: block_break's starts into S (n
 * flags, the first set) and the positions of the line starts indented
 * against both neighbouring lines, flush with each other, into indent_at
 * (n slots, ascending): their count, or -1 out of memory (no exception). */
static Py_ssize_t block_starts_of(const BlockReading *r, const BlockRule *rule, char *S, int64_t *indent_at) {
    const double *O = r->O, *D = r->D, *H = r->H, *F = r->F, *A = r->A, *M = r->M;
    const int64_t *order = r->order;
    const unsigned char *LB = r->LB;
    Py_ssize_t n = r->n;
    if (n) S[0] = 1;
    for (Py_ssize_t k = 1; k < n; k++) {
        /* Off a line break no block starts: the sizes' ratio is asked only at one. */
        double across = A[k - 1];
        if (!LB[k] || -across > rule->paragraph_gap * M[k - 1] || across > 0) {
            S[k] = (char)LB[k];
            continue;
        }
        double size = F[order[k - 1]], next = F[order[k]];
        S[k] = np_max(size, next) / np_max(np_min(size, next), 1e-9) > rule->font_change;
    }
    /* the line starts: position 0, then every line break */
    int64_t *line = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!line) return -1;
    Py_ssize_t lines = 0, found = 0;
    if (n) line[lines++] = 0;
    for (Py_ssize_t k = 1; k < n; k++)
        if (LB[k]) line[lines++] = k;
    for (Py_ssize_t i = 1; i + 1 < lines; i++) {
        int64_t before = order[line[i - 1]], first = order[line[i]], after = order[line[i + 1]];
        double left_before = O[2 * before] * D[2 * before] + O[2 * before + 1] * D[2 * before + 1];
        double left = O[2 * first] * D[2 * first] + O[2 * first + 1] * D[2 * first + 1];
        double left_after = O[2 * after] * D[2 * after] + O[2 * after + 1] * D[2 * after + 1];
        double indent = left - left_before, h = H[first];
        if (indent > rule->indent_min * h && indent < rule->indent_max * h && fabs(left_after - left_before) < rule->flush * h)
            indent_at[found++] = line[i];
    }
    free(line);
    return found;
}

/* The views of a reading's columns (origin, direction, height, font_size,
 * order, line_break, across, move_height) into v[8] and r, checked: 0, or
 * -1 with an exception set. */
static int get_block_reading(PyObject *const objs[8], View v[8], BlockReading *r) {
    static const char *names[8] = {"origin", "direction", "height", "font_size", "order", "line_break", "across", "height of moves"};
    static const char *formats[8] = {"d", "d", "d", "d", "l", "?", "d", "d"};
    static const Py_ssize_t sizes[8] = {8, 8, 8, 8, 8, 1, 8, 8};
    for (int c = 0; c < 8; c++)
        if (get_view(objs[c], &v[c], formats[c], sizes[c], names[c]) < 0) return -1;
    Py_ssize_t rows = v[2].view.len / 8, n = v[4].view.len / 8, pairs = n ? n - 1 : 0;
    if (v[0].view.len != 16 * rows || v[1].view.len != 16 * rows || v[3].view.len != 8 * rows) {
        PyErr_SetString(PyExc_ValueError, "glyph columns differ in length");
        return -1;
    }
    if (v[5].view.len != n || v[6].view.len != 8 * pairs || v[7].view.len != 8 * pairs) {
        PyErr_SetString(PyExc_ValueError, "moves and order differ in length");
        return -1;
    }
    *r = (BlockReading){v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf, v[4].view.buf, v[5].view.buf,
                        v[6].view.buf, v[7].view.buf, n};
    return check_ids(r->order, n, rows, "order");
}

static PyObject *layout_block_starts(PyObject *mod, PyObject *args) {
    PyObject *objs[8];
    BlockRule rule;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddddd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5], &objs[6],
                          &objs[7], &rule.paragraph_gap, &rule.font_change, &rule.indent_min, &rule.indent_max, &rule.flush))
        return NULL;
    View v[8];
    memset(v, 0, sizeof v);
    BlockReading r;
    PyObject *starts = NULL, *indented = NULL, *result = NULL;
    int64_t *indent_at = NULL;
    if (get_block_reading(objs, v, &r) < 0) goto done;
    Py_ssize_t n = r.n;
    if (!(starts = PyByteArray_FromStringAndSize(NULL, n))) goto done;
    if (!(indent_at = malloc((size_t)(n ? n : 1) * sizeof(int64_t)))) { PyErr_NoMemory(); goto done; }
    Py_ssize_t found = block_starts_of(&r, &rule, PyByteArray_AS_STRING(starts), indent_at);
    if (found < 0) { PyErr_NoMemory(); goto done; }
    if (found) {
        if (!(indented = PyByteArray_FromStringAndSize(NULL, n))) goto done;
        char *I = PyByteArray_AS_STRING(indented);
        memset(I, 0, (size_t)n);
        for (Py_ssize_t i = 0; i < found; i++) I[indent_at[i]] = 1;
    }
    result = Py_BuildValue("(OO)", starts, found ? indented : Py_None);
done:
    Py_XDECREF(starts); Py_XDECREF(indented);
    free(indent_at);
    for (int c = 0; c < 8; c++) release(&v[c]);
    return result;
}

/* numpy's np.rint(v).astype(np.int64) clipped to [0, top]: NaN and values
 * past int64 cast to its minimum (x86's cvttsd2si), which clips to 0. */
static inline int64_t clipped_rint(double v, int64_t top) {
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return 0;
    if (v < -0.5) return 0;
    if (v > (double)top + 0.5) return top;
    int64_t r = (int64_t)small_rint(v);
    return r < 0 ? 0 : r > top ? top : r;
}

/* heading_blocks' work: its rule's thresholds, and its answer per block. */
typedef struct {
    double heading_size, heading_share, page_share, max_value;
    long heading_lines;
} HeadingRule;

typedef struct {
    int64_t *starts, *length, *block_size;
    char *heading;
    Py_ssize_t blocks;
} HeadingBlocks;

static void heading_blocks_free(HeadingBlocks *h) {
    free(h->starts); free(h->length); free(h->block_size); free(h->heading);
}

/* heading_blocks' rule over the n positions into `h`: 0, or -1 on an error set. */
static int heading_runs(const double *size, const unsigned char *B, const unsigned char *LB, Py_ssize_t n,
                        const HeadingRule *rule, HeadingBlocks *h) {
    /* The half sizes' top, an int64: max_value NaN or past 2**61 has none. */
    int64_t top = rule->max_value >= 0 && rule->max_value < 0x1p61 ? (int64_t)(2 * rule->max_value) : -1;
    size_t cells = (size_t)(n ? n : 1);
    int64_t *half = malloc(cells * sizeof(int64_t)), *count = NULL;
    h->starts = malloc(cells * sizeof(int64_t));
    h->length = malloc(cells * sizeof(int64_t));
    h->block_size = malloc(cells * sizeof(int64_t));
    h->heading = malloc(cells);
    int status = -1;
    if (!half || !h->starts || !h->length || !h->block_size || !h->heading) { PyErr_NoMemory(); goto done; }
    if (top < 0) { PyErr_SetString(PyExc_ValueError, "heading rule: max_value must lie in [0, 2**61)"); goto done; }
    /* Half sizes: a size repeats from glyph to glyph along a line, and is
     * halved and rounded once. Counted up to the largest only (a page's
     * sizes lie far below 2 x max_value). */
    int64_t last = 0, most = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t s = k && size[k] == size[k - 1] ? last : clipped_rint(size[k] * 2, top);
        most = s > most ? s : most;
        half[k] = last = s;
    }
    if (!(count = calloc((size_t)most + 1, sizeof(int64_t)))) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < n; k++) count[half[k]]++;
    /* The body: the most common half size, the smallest of equals (np.argmax of the counts). */
    int64_t body = 0;
    for (int64_t s = 1; s <= most; s++)
        if (count[s] > count[body]) body = s;
    Py_ssize_t blocks = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (B[k]) h->starts[blocks++] = k;
    double large_from = rule->heading_size * (double)body;
    for (Py_ssize_t b = 0; b < blocks; b++) {
        Py_ssize_t lo = (Py_ssize_t)h->starts[b], hi = b + 1 < blocks ? (Py_ssize_t)h->starts[b + 1] : n;
        int64_t large = 0, breaks = 0, biggest = 0;
        for (Py_ssize_t k = lo; k < hi; k++) {
            int is_large = (double)half[k] >= large_from;
            large += is_large;
            breaks += LB[k];
            if (is_large && half[k] > biggest) biggest = half[k];
        }
        int64_t lines = breaks + !LB[lo], length = (int64_t)(hi - lo);
        h->length[b] = length;
        h->block_size[b] = biggest;
        h->heading[b] = (char)((double)large / (double)length >= rule->heading_share && lines <= rule->heading_lines &&
                               length >= 2 && body > 0 && (double)count[biggest] <= rule->page_share * (double)n);
    }
    h->blocks = blocks;
    status = 0;
done:
    free(half); free(count);
    return status;
}

/* The heading levels of the blocks `h` (heading_runs) read along (along_x,
 * along_y): of its headings, those written along the page (direction . along
 * at least `same` at the block's first glyph of `order`; along (1, 0) the
 * product is the direction's x plus its y x 0, exact, so computed as the
 * reference's matmul computes it) stay headings (h->heading updated), and
 * their sizes, distinct, largest first, go to *sizes (malloc'ed, the
 * caller frees it): how many; -1 where a heading is to be tested along
 * another direction than (1, 0) (or none known: along NaN) and the
 * reference decides, -2 out of memory (an exception set). */
static Py_ssize_t heading_levels(HeadingBlocks *h, const int64_t *order, const double *D, double along_x, double along_y,
                                 double same, int64_t **sizes) {
    Py_ssize_t headings = 0;
    for (Py_ssize_t b = 0; b < h->blocks; b++) headings += h->heading[b];
    if (headings && !(along_x == 1.0 && along_y == 0.0)) return -1;
    /* The heading sizes, distinct, largest first (few: insertion). */
    int64_t *size = *sizes = malloc((size_t)(headings ? headings : 1) * sizeof(int64_t));
    if (!size) { PyErr_NoMemory(); return -2; }
    Py_ssize_t levels = 0;
    for (Py_ssize_t b = 0; b < h->blocks; b++) {
        if (!h->heading[b]) continue;
        int64_t g = order[h->starts[b]];
        h->heading[b] = D[2 * g] * along_x + D[2 * g + 1] * along_y >= same;
        if (!h->heading[b]) continue;
        Py_ssize_t j = 0;
        while (j < levels && size[j] > h->block_size[b]) j++;
        if (j < levels && size[j] == h->block_size[b]) continue;
        memmove(size + j + 1, size + j, (size_t)(levels - j) * sizeof(int64_t));
        size[j] = h->block_size[b];
        levels++;
    }
    return levels;
}

/* Block b's label index: 0 for a P, else its size's rank among the heading
 * sizes `sizes` (heading_levels), 1 for the largest. */
static int64_t heading_label(const HeadingBlocks *h, Py_ssize_t b, const int64_t *sizes) {
    if (!h->heading[b]) return 0;
    int64_t value = 0;
    while (sizes[value] != h->block_size[b]) value++;
    return value + 1;
}

/* ---- heading_blocks(size, block_start, line_break, heading_size, heading_share, heading_lines,
 *      page_share, max_value) -> (starts, length, heading, block_size)
 * kernels.heading_blocks (labels.block_labels): sizes in half points
 * (clipped to [0, 2 max_value]), the page's body size (the most common, the
 * smallest of equals); per block (runs from each block start): its start
 * and length, its largest size of those at least heading_size x the body
 * (0 where none), and whether it reads as a heading: at least
 * heading_share of its glyphs that large, at most heading_lines lines, two
 * glyphs or more, a body size above 0, and its size setting at most
 * page_share of the page's glyphs. */
static PyObject *layout_heading_blocks(PyObject *mod, PyObject *args) {
    PyObject *s_obj, *b_obj, *lb_obj;
    HeadingRule rule;
    if (!PyArg_ParseTuple(args, "OOOddldd", &s_obj, &b_obj, &lb_obj, &rule.heading_size, &rule.heading_share,
                          &rule.heading_lines, &rule.page_share, &rule.max_value))
        return NULL;
    View vs = {0}, vb = {0}, vlb = {0};
    PyObject *result = NULL;
    HeadingBlocks h = {0};
    if (get_view(s_obj, &vs, "d", 8, "size") < 0 || get_view(b_obj, &vb, "?", 1, "block_start") < 0 ||
        get_view(lb_obj, &vlb, "?", 1, "line_break") < 0)
        goto done;
    Py_ssize_t n = vs.view.len / 8;
    if (vb.view.len != n || vlb.view.len != n) { PyErr_SetString(PyExc_ValueError, "columns differ in length"); goto done; }
    if (heading_runs(vs.view.buf, vb.view.buf, vlb.view.buf, n, &rule, &h) < 0) goto done;
    result = Py_BuildValue("(NNNN)", int64_bytes(h.starts, h.blocks), int64_bytes(h.length, h.blocks),
                           PyByteArray_FromStringAndSize(h.heading, h.blocks), int64_bytes(h.block_size, h.blocks));
done:
    heading_blocks_free(&h);
    release(&vs); release(&vb); release(&vlb);
    return result;
}

/* ---- block_labels(size, block_start, line_break, heading_size, heading_share, heading_lines,
 *      page_share, max_value, direction, order, along_x, along_y, same_direction)
 *      -> (label_index, levels), 0 or None
 * labels.block_labels in one call on a page read along (1, 0): its
 * blocks (heading_blocks' rule), of the headings those written along the
 * page (direction . along at least same_direction: along (1, 0) the
 * product is the direction's x plus its y x 0, exact, so computed as the
 * reference's matmul computes it), and per position the index of its
 * block's label: 0 for P, else the rank of the block's size among the
 * headings' sizes, largest first (1-based). 0 where no block is a heading;
 * None where a heading's direction is to be tested along another direction
 * (or none known: along NaN) and the reference decides. label_index is
 * bytes of int64 items; levels the count of heading sizes. */
static PyObject *layout_block_labels(PyObject *mod, PyObject *args) {
    PyObject *s_obj, *b_obj, *lb_obj, *d_obj, *o_obj;
    HeadingRule rule;
    double along_x, along_y, same;
    if (!PyArg_ParseTuple(args, "OOOddlddOOddd", &s_obj, &b_obj, &lb_obj, &rule.heading_size, &rule.heading_share,
                          &rule.heading_lines, &rule.page_share, &rule.max_value, &d_obj, &o_obj, &along_x, &along_y,
                          &same))
        return NULL;
    View vs = {0}, vb = {0}, vlb = {0}, vd = {0}, vo = {0};
    PyObject *result = NULL, *index = NULL;
    HeadingBlocks h = {0};
    int64_t *sizes = NULL;
    if (get_view(s_obj, &vs, "d", 8, "size") < 0 || get_view(b_obj, &vb, "?", 1, "block_start") < 0 ||
        get_view(lb_obj, &vlb, "?", 1, "line_break") < 0 || get_view(d_obj, &vd, "d", 8, "direction") < 0 ||
        get_view(o_obj, &vo, "l", 8, "order") < 0)
        goto done;
    Py_ssize_t n = vs.view.len / 8, rows = vd.view.len / 16;
    if (vb.view.len != n || vlb.view.len != n || vo.view.len != 8 * n) {
        PyErr_SetString(PyExc_ValueError, "columns differ in length");
        goto done;
    }
    const int64_t *order = vo.view.buf;
    const double *D = vd.view.buf;
    if (check_ids(order, n, rows, "order") < 0) goto done;
    if (heading_runs(vs.view.buf, vb.view.buf, vlb.view.buf, n, &rule, &h) < 0) goto done;
    Py_ssize_t levels = heading_levels(&h, order, D, along_x, along_y, same, &sizes);
    if (levels == -2) goto done;
    if (levels == -1) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    if (!levels) {
        result = PyLong_FromLong(0);
        goto done;
    }
    if (!(index = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 8)))) goto done;
    int64_t *label = (int64_t *)PyBytes_AS_STRING(index);
    for (Py_ssize_t b = 0; b < h.blocks; b++) {
        int64_t value = heading_label(&h, b, sizes);
        for (int64_t k = h.starts[b]; k < h.starts[b] + h.length[b]; k++) label[k] = value;
    }
    result = Py_BuildValue("(On)", index, levels);
done:
    Py_XDECREF(index);
    free(sizes);
    heading_blocks_free(&h);
    release(&vs); release(&vb); release(&vlb); release(&vd); release(&vo);
    return result;
}

/* ---- block_reading(origin, own_end, direction, height, font_size, stream, line_break, across, gap, move_height,
 *      positions, forced, rtl, (paragraph_gap, font_change, indent_min, indent_max, flush),
 *      (heading_size, heading_share, heading_lines, page_share, max_value), along_x, along_y, same_direction,
 *      line_break_ratio)
 *      -> (order or None, line_break or None, block_start, block_label or None, levels)
 * labels.reordered_reading in one call: the reading stream[positions]
 * (positions None: the stream itself) and its moves, those of the stream
 * (line_break per position, across, gap and move_height per pair)
 * reordered as units.reordered_moves reorders them (reordered_moves_of;
 * the order as int64 bytes and its line breaks, both None where the
 * reading is the stream in its own order: positions None or 0..n-1); then labels.with_blocks' block starts of the reading
 * (block_starts' rules; the indented line starts but on an `rtl` page;
 * every `forced` position, bools per position of the reading, or None)
 * and labels.block_labels of the blocks they start, per block (the run
 * from each start) rather than per position: their label indices as int64
 * bytes, None where every block is a P, and the count of heading sizes;
 * levels -1 (block_label None) where block_labels' kernel declines, and
 * the reference labels the blocks. */
typedef struct {
    PyObject *order, *line_break;  /* the reading's, where positions reorder the stream */
    double *across, *gap, *height; /* its moves per pair (malloc'ed) */
} Reordered;

/* The reading stream[pos[0..q)] and its moves into `out`, `r` set to read
 * it: 0, or -1 with an exception set. */
static int reordered_reading(const GlyphColumns *g, const int64_t *S, const char *LB, const double *A, const double *G,
                             const double *M, const int64_t *pos, Py_ssize_t q, const double rules[2], Reordered *out,
                             BlockReading *r) {
    size_t pairs = (size_t)(q > 1 ? q - 1 : 1);
    out->order = PyByteArray_FromStringAndSize(NULL, 8 * q);
    out->line_break = PyByteArray_FromStringAndSize(NULL, q);
    out->across = malloc(pairs * sizeof(double));
    out->gap = malloc(pairs * sizeof(double));
    out->height = malloc(pairs * sizeof(double));
    if (!out->order || !out->line_break) return -1;
    if (!out->across || !out->gap || !out->height) { PyErr_NoMemory(); return -1; }
    int64_t *order = (int64_t *)PyByteArray_AS_STRING(out->order);
    char *brk = PyByteArray_AS_STRING(out->line_break);
    for (Py_ssize_t k = 0; k < q; k++) order[k] = S[pos[k]];
    reordered_moves_of(g, S, LB, A, G, M, pos, q, rules[0], rules[1], brk, out->across, out->gap, out->height);
    r->order = order; r->LB = (const unsigned char *)brk; r->A = out->across; r->M = out->height; r->n = q;
    return 0;
}

/* block_reading's rules on reading r (block starts, then labels): the
 * starts, the labels or None and the levels into out[0..2]: 0, or -1 with
 * an exception set. */
static int block_reading_of(const BlockReading *r, const unsigned char *forced, int rtl, const BlockRule *rule,
                            const HeadingRule *hr, const double along[3], PyObject *out[2], Py_ssize_t *levels_out) {
    Py_ssize_t n = r->n;
    int64_t *indent_at = NULL, *sizes = NULL;
    double *size = NULL;
    HeadingBlocks h = {0};
    int status = -1;
    if (!(out[0] = PyByteArray_FromStringAndSize(NULL, n))) goto done;
    char *S = PyByteArray_AS_STRING(out[0]);
    indent_at = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    size = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!indent_at || !size) { PyErr_NoMemory(); goto done; }
    Py_ssize_t found = block_starts_of(r, rule, S, indent_at);
    if (found < 0) { PyErr_NoMemory(); goto done; }
    /* A first line's indent only in left-to-right text; a forced start always. */
    for (Py_ssize_t i = 0; i < found && !rtl; i++) S[indent_at[i]] = 1;
    for (Py_ssize_t k = 0; k < n && forced; k++) S[k] = (char)(S[k] | (forced[k] != 0));
    for (Py_ssize_t k = 0; k < n; k++) size[k] = r->F[r->order[k]];
    if (heading_runs(size, (const unsigned char *)S, r->LB, n, hr, &h) < 0) goto done;
    Py_ssize_t levels = heading_levels(&h, r->order, r->D, along[0], along[1], along[2], &sizes);
    if (levels == -2) goto done;
    if (levels > 0) {
        if (!(out[1] = PyByteArray_FromStringAndSize(NULL, h.blocks * (Py_ssize_t)sizeof(int64_t)))) goto done;
        int64_t *label = (int64_t *)PyByteArray_AS_STRING(out[1]);
        for (Py_ssize_t b = 0; b < h.blocks; b++) label[b] = heading_label(&h, b, sizes);
    }
    *levels_out = levels;
    status = 0;
done:
    free(indent_at); free(size); free(sizes);
    heading_blocks_free(&h);
    return status;
}

static PyObject *layout_block_reading(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *f_obj, *m_obj[4], *pos_obj, *forced_obj;
    int rtl;
    BlockRule rule;
    HeadingRule hr;
    double along[3], rules[2];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOp(ddddd)(ddldd)dddd", &objs[0], &objs[1], &objs[2], &objs[3], &f_obj, &objs[4],
                          &m_obj[0], &m_obj[1], &m_obj[2], &m_obj[3], &pos_obj, &forced_obj, &rtl, &rule.paragraph_gap,
                          &rule.font_change, &rule.indent_min, &rule.indent_max, &rule.flush, &hr.heading_size,
                          &hr.heading_share, &hr.heading_lines, &hr.page_share, &hr.max_value, &along[0], &along[1],
                          &along[2], &rules[0]))
        return NULL;
    rules[1] = along[2];  /* the line rule's turn: the same direction as the headings' */
    View v[5], vf = {0}, vm[4], vp = {0}, vforced = {0};
    memset(v, 0, sizeof v); memset(vm, 0, sizeof vm);
    PyObject *result = NULL, *out[2] = {NULL};
    Reordered re = {0};
    Py_ssize_t rows, n = get_stream_columns((PyObject *const *)objs, v, &rows), levels = -1;
    if (n < 0 || get_view(f_obj, &vf, "d", 8, "font_size") < 0 || get_view(m_obj[0], &vm[0], "?", 1, "line_break") < 0 ||
        get_view(m_obj[1], &vm[1], "d", 8, "across") < 0 || get_view(m_obj[2], &vm[2], "d", 8, "gap") < 0 ||
        get_view(m_obj[3], &vm[3], "d", 8, "height of moves") < 0)
        goto done;
    Py_ssize_t pairs = n ? n - 1 : 0;
    if (vf.view.len != 8 * rows) { PyErr_SetString(PyExc_ValueError, "glyph columns differ in length"); goto done; }
    if (vm[0].view.len != n || vm[1].view.len != 8 * pairs || vm[2].view.len != 8 * pairs || vm[3].view.len != 8 * pairs) {
        PyErr_SetString(PyExc_ValueError, "moves and stream differ in length");
        goto done;
    }
    const GlyphColumns g = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    const int64_t *S = v[4].view.buf;
    BlockReading r = {g.O, g.D, g.H, vf.view.buf, S, vm[0].view.buf, vm[1].view.buf, vm[3].view.buf, n};
    if (pos_obj != Py_None) {
        if (get_view(pos_obj, &vp, "l", 8, "positions") < 0) goto done;
        Py_ssize_t q = vp.view.len / 8, k = 0;
        const int64_t *pos = vp.view.buf;
        if (check_ids(pos, q, n, "positions") < 0) goto done;
        /* The stream in its own order (most pages: nothing moved) is read as it is. */
        while (k < q && pos[k] == k) k++;
        if ((k < q || q != n) &&
            reordered_reading(&g, S, vm[0].view.buf, vm[1].view.buf, vm[2].view.buf, vm[3].view.buf, pos, q, rules, &re, &r) < 0)
            goto done;
    }
    const unsigned char *forced = NULL;
    if (forced_obj != Py_None) {
        if (get_view(forced_obj, &vforced, "?", 1, "forced") < 0) goto done;
        if (vforced.view.len != r.n) { PyErr_SetString(PyExc_ValueError, "forced and order differ in length"); goto done; }
        forced = vforced.view.buf;
    }
    if (block_reading_of(&r, forced, rtl, &rule, &hr, along, out, &levels) < 0) goto done;
    result = Py_BuildValue("(OOOOn)", re.order ? re.order : Py_None, re.line_break ? re.line_break : Py_None, out[0],
                           out[1] ? out[1] : Py_None, levels);
done:
    Py_XDECREF(out[0]); Py_XDECREF(out[1]);
    Py_XDECREF(re.order); Py_XDECREF(re.line_break);
    free(re.across); free(re.gap); free(re.height);
    for (int c = 0; c < 5; c++) release(&v[c]);
    for (int c = 0; c < 4; c++) release(&vm[c]);
    release(&vf); release(&vp); release(&vforced);
    return result;
}

/* ==== lrules: kernels of the rule engine's decisions (leaves.py, cut.py) ====
 * Where a rule loops in Python over a leaf's runs, redoing n x n work after
 * every step, the loop's geometry runs here whole and hands the rule the
 * steps it takes. */

/* Do runs i and j interleave: neither lies above the other (y0 >= y1 of the
 * other less `stacked`) and they are not apart along the line (within `tol`)?
 * run_pairs' comparisons, the same doubles: NaN compares false. */
static inline int runs_tangled(const double *X0, const double *Y0, const double *X1, const double *Y1, Py_ssize_t i,
                               Py_ssize_t j, double stacked, double tol) {
    int above = (Y0[i] >= Y1[j] - stacked) | (Y0[j] >= Y1[i] - stacked);
    int apart = (X1[i] <= X0[j] + tol) | (X1[j] <= X0[i] + tol);
    return !(above | apart);
}

/* The first tangled pair (a, b), a < b, in row-major order of runs 0..n-1,
 * where every pair of rows before `changed` but those with run `changed` is
 * known untangled (-1: nothing known): 1 and the pair in *a, *b, or 0. */
static int first_tangled(const double *X0, const double *Y0, const double *X1, const double *Y1, Py_ssize_t n,
                         Py_ssize_t changed, double stacked, double tol, Py_ssize_t *a, Py_ssize_t *b) {
    for (Py_ssize_t p = 0; p < changed; p++)
        if (runs_tangled(X0, Y0, X1, Y1, p, changed, stacked, tol)) { *a = p; *b = changed; return 1; }
    for (Py_ssize_t p = changed < 0 ? 0 : changed; p < n; p++)
        for (Py_ssize_t q = p + 1; q < n; q++)
            if (runs_tangled(X0, Y0, X1, Y1, p, q, stacked, tol)) { *a = p; *b = q; return 1; }
    return 0;
}

/* ---- interleaved_merges(x0, y0, x1, y1, stacked, tol) -> (i, j) pairs, flat
 * kernels.interleaved_merges (leaves._merge_interleaved): while two of the
 * runs (boxes x0, y0, x1, y1, one per run) interleave, the first such pair
 * (i, j) in row-major order merges: run i takes the union of both boxes
 * (np.minimum/np.maximum, as run_boxes reduces the merged lines) and run j
 * goes. After a merge only pairs with the merged run can change among the
 * rows before it, so the search resumes there rather than rebuilding n x n. */
static PyObject *layout_interleaved_merges(PyObject *mod, PyObject *args) {
    PyObject *obj[4];
    double stacked, tol;
    if (!PyArg_ParseTuple(args, "OOOOdd", &obj[0], &obj[1], &obj[2], &obj[3], &stacked, &tol)) return NULL;
    static const char *names[4] = {"x0", "y0", "x1", "y1"};
    View v[4];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    double *box = NULL;
    int64_t *merges = NULL;
    for (int c = 0; c < 4; c++)
        if (get_view(obj[c], &v[c], "d", 8, names[c]) < 0) goto done;
    Py_ssize_t n = v[0].view.len / 8;
    for (int c = 1; c < 4; c++)
        if (v[c].view.len / 8 != n) { PyErr_SetString(PyExc_ValueError, "run columns differ in length"); goto done; }
    size_t cap = n ? (size_t)n : 1;
    box = malloc(4 * cap * sizeof(double));
    merges = malloc(2 * cap * sizeof(int64_t));
    if (!box || !merges) { PyErr_NoMemory(); goto done; }
    double *X0 = box, *Y0 = box + cap, *X1 = box + 2 * cap, *Y1 = box + 3 * cap;
    for (int c = 0; c < 4; c++) memcpy(box + c * cap, v[c].view.buf, (size_t)n * sizeof(double));
    Py_ssize_t count = 0, changed = -1, i, j;
    while (n > 1 && first_tangled(X0, Y0, X1, Y1, n, changed, stacked, tol, &i, &j)) {
        merges[2 * count] = i;
        merges[2 * count + 1] = j;
        count++;
        X0[i] = np_min(X0[i], X0[j]);
        Y0[i] = np_min(Y0[i], Y0[j]);
        X1[i] = np_max(X1[i], X1[j]);
        Y1[i] = np_max(Y1[i], Y1[j]);
        for (int c = 0; c < 4; c++) {
            double *column = box + c * cap;
            memmove(column + j, column + j + 1, (size_t)(n - j - 1) * sizeof(double));
        }
        n--;
        changed = i;
    }
    result = int64_bytes(merges, 2 * count);
done:
    free(box); free(merges);
    for (int c = 0; c < 4; c++) release(&v[c]);
    return result;
}

/* Lines lines[0..m) sorted in place, stably, by key[k] (one per line in
 * `lines`' current order); work buffers of m each. */
static void sort_lines_by(int64_t *lines, double *key, int64_t *order, int64_t *tmp, int64_t *copy, Py_ssize_t m) {
    stable_argsort(key, order, tmp, m);
    for (Py_ssize_t k = 0; k < m; k++) copy[k] = lines[order[k]];
    memcpy(lines, copy, (size_t)m * sizeof(int64_t));
}

/* leaves._cells_along of lines[0..m) (one table row), written to out: the
 * lines along the line (x0, or -x1 on an `rtl` page), cut into cells
 * where a line starts at or past the reach of the cell before, each
 * cell's lines top to bottom (-y1, stably). Returns the most lines a cell
 * holds. */
static Py_ssize_t cells_along(const int64_t *lines, Py_ssize_t m, const double *X0, const double *X1, const double *Y1, int rtl,
                              int64_t *out, double *key, int64_t *order, int64_t *tmp, int64_t *copy) {
    memcpy(out, lines, (size_t)m * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < m; k++) key[k] = rtl ? -X1[out[k]] : X0[out[k]];
    sort_lines_by(out, key, order, tmp, copy, m);
    Py_ssize_t first = 0, largest = 0;
    double reach = -INFINITY;
    for (Py_ssize_t k = 0; k <= m; k++) {
        double start = 0.0, end = 0.0;
        if (k < m) {
            start = rtl ? -X1[out[k]] : X0[out[k]];
            end = rtl ? -X0[out[k]] : X1[out[k]];
            if (k > 0 && start < reach) { reach = py_max(reach, end); continue; }
        }
        if (k > first) {  /* the cell out[first..k) ends: its lines top to bottom */
            for (Py_ssize_t c = first; c < k; c++) key[c - first] = -Y1[out[c]];
            sort_lines_by(out + first, key, order, tmp, copy, k - first);
            if (k - first > largest) largest = k - first;
        }
        first = k;
        reach = end;
    }
    return largest;
}

/* kernels._cells_on_two_lines: some row of two lines or more, padded by
 * `padding` from the row over it (or the first), with a row as full `leading`
 * or less under it (not touching), lies under a row of fewer lines or none.
 * Rows r in [0, rows) hold lines first_line[r] .. first_line[r + 1] (n). */
static int cells_on_two_lines(const double *top, const double *bottom, const int64_t *first_line, Py_ssize_t rows,
                              Py_ssize_t n, double leading, double padding) {
    for (Py_ssize_t r = 0; r + 1 < rows; r++) {
        Py_ssize_t count = first_line[r + 1] - first_line[r];
        Py_ssize_t next = (r + 2 < rows ? first_line[r + 2] : n) - first_line[r + 1];
        Py_ssize_t over = r ? first_line[r] - first_line[r - 1] : 0;
        double below = bottom[r] - top[r + 1];
        int padded = r == 0 || bottom[r - 1] - top[r] >= padding;
        if (below > 0 && below <= leading && next == count && padded && count >= 2 && over < count) return 1;
    }
    return 0;
}

/* ---- grid_rows(x0, x1, y0, y1, ids, descent, same_row, padding, leading, max_cell_lines, rtl) -> ids, or None
 * kernels.grid_rows (leaves._grid_rows): lines `ids` by rows top to bottom
 * (baselines, `descent` of the height above the bottom, within `same_row` of
 * the one before), each row along the line; where four rows or more are
 * parted by whitespace and runs of up to `max_cell_lines` rows lie `leading`
 * or less apart (padded by `padding` from the rows around them), those rows are cells
 * along the line, each cell's lines top to bottom; so are longer runs padded on
 * one side whose cells hold `max_cell_lines` lines or fewer (staggered labels). None where a box's x is
 * NaN or its baseline is (a NaN edge, or infinite edges: -inf + inf): the
 * reference's sorts order NaN keys their own way (np.sort(base)[::-1] puts
 * a NaN baseline first, argsort(-base) last), and it runs there. */
static PyObject *layout_grid_rows(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj;
    double descent, same_row, padding, leading;
    Py_ssize_t max_cell;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOddddnp", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &descent, &same_row, &padding,
                          &leading, &max_cell, &rtl))
        return NULL;
    View vbox[4], vi;
    memset(vbox, 0, sizeof vbox);
    memset(&vi, 0, sizeof vi);
    PyObject *result = NULL;
    int64_t *ints = NULL;
    double *floats = NULL;
    char *joins = NULL;
    Py_ssize_t n = get_unit_boxes(obj, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t u = ids[k];
        double base = unit_baseline(Y0, Y1, u, descent);
        if (X0[u] != X0[u] || X1[u] != X1[u] || base != base) { result = Py_None; Py_INCREF(result); goto done; }
    }
    size_t cap = n ? (size_t)n : 1;
    ints = malloc(6 * cap * sizeof(int64_t));
    floats = malloc(4 * cap * sizeof(double));
    if (!ints || !floats) { PyErr_NoMemory(); goto done; }
    int64_t *lines = ints, *order = ints + cap, *tmp = ints + 2 * cap, *copy = ints + 3 * cap, *out = ints + 4 * cap,
            *first_line = ints + 5 * cap;
    double *key = floats, *base = floats + cap, *top = floats + 2 * cap, *bottom = floats + 3 * cap;
    /* _row_major: top to bottom by baseline (stable), then along each row. */
    memcpy(lines, ids, (size_t)n * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < n; k++) key[k] = -unit_baseline(Y0, Y1, lines[k], descent);
    sort_lines_by(lines, key, order, tmp, copy, n);
    for (Py_ssize_t k = 0; k < n; k++) base[k] = unit_baseline(Y0, Y1, lines[k], descent);
    for (Py_ssize_t k = 0, row_start = 0; k <= n; k++) {
        if (k < n && (k == 0 || !(base[k - 1] - base[k] > same_row))) continue;
        for (Py_ssize_t c = row_start; c < k; c++) key[c - row_start] = rtl ? -X1[lines[c]] : X0[lines[c]];
        sort_lines_by(lines + row_start, key, order, tmp, copy, k - row_start);
        row_start = k;
    }
    /* _grid_rows: rows where the baseline steps by more than same_row. */
    Py_ssize_t rows = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        base[k] = unit_baseline(Y0, Y1, lines[k], descent);
        if (k == 0 || fabs(base[k] - base[k - 1]) > same_row) first_line[rows++] = k;
    }
    Py_ssize_t tight = 0;
    for (Py_ssize_t r = 0; r < rows; r++) {
        Py_ssize_t end = r + 1 < rows ? first_line[r + 1] : n;
        top[r] = Y1[lines[first_line[r]]];
        bottom[r] = Y0[lines[first_line[r]]];
        for (Py_ssize_t k = first_line[r] + 1; k < end; k++) {
            top[r] = np_max(top[r], Y1[lines[k]]);
            bottom[r] = np_min(bottom[r], Y0[lines[k]]);
        }
    }
    /* kernels._cell_lines_below: a row goes on the run above where its boxes
     * touch the row above, or lie `leading` or less under it with fewer lines
     * than the run's first row, or as many where the table's cells are on two
     * lines (kernels._cells_on_two_lines). */
    joins = malloc(cap);
    if (!joins) { PyErr_NoMemory(); goto done; }
    int two_line = cells_on_two_lines(top, bottom, first_line, rows, n, leading, padding);
    for (Py_ssize_t r = 1, run = 0; r < rows; r++) {
        double gap = bottom[r - 1] - top[r];
        Py_ssize_t count = (r + 1 < rows ? first_line[r + 1] : n) - first_line[r];
        Py_ssize_t first_count = (run + 1 < rows ? first_line[run + 1] : n) - first_line[run];
        joins[r] = gap <= 0 || (gap <= leading && (count < first_count || (two_line && count == first_count)));
        if (!joins[r]) run = r;
        tight += joins[r];
    }
    if (rows < 4 || !tight) { result = int64_bytes(lines, n); goto done; }
    /* Runs of joined rows: cells along the line where short and padded. */
    for (Py_ssize_t first = 0; first < rows;) {
        Py_ssize_t last = first + 1;
        while (last < rows && joins[last]) last++;
        int padded_above = first == 0 || bottom[first - 1] - top[first] >= padding;
        int padded_below = last == rows || bottom[last - 1] - top[last] >= padding;
        Py_ssize_t lo = first_line[first], hi = last < rows ? first_line[last] : n;
        /* kernels._staggered_labels: a run over more rows than a cell has
         * lines, padded on one side, whose cells hold max_cell lines or
         * fewer, is a head of staggered labels, read cell by cell. */
        int staggered = last - first > max_cell && (padded_above || padded_below) &&
                        cells_along(lines + lo, hi - lo, X0, X1, Y1, rtl, out + lo, key, order, tmp, copy) <= max_cell;
        if (staggered) {
            /* out[lo..hi) holds its cells */
        } else if (last - first > 1 && last - first <= max_cell && padded_above && padded_below) {
            cells_along(lines + lo, hi - lo, X0, X1, Y1, rtl, out + lo, key, order, tmp, copy);
        } else {
            memcpy(out + lo, lines + lo, (size_t)(hi - lo) * sizeof(int64_t));
        }
        first = last;
    }
    result = int64_bytes(out, n);
done:
    free(ints); free(floats); free(joins);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ---- row_mates(x0, x1, y0, y1, ids, lengths, descent, same_row) -> runs x runs bools
 * kernels.row_mates (leaves._row_mates): per pair of runs of lines (ids cut
 * by lengths, none empty), are both one row each (no step wider than
 * `same_row` between their sorted baselines, `descent` of the height above
 * the bottom) and their mean baselines (ndarray.mean: numpy's pairwise sum
 * over the count) within `same_row`; each run is its own mate. */
static PyObject *layout_row_mates(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    double descent, same_row;
    if (!PyArg_ParseTuple(args, "OOOOOOdd", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &descent, &same_row))
        return NULL;
    View vbox[4], vi, vl;
    memset(vbox, 0, sizeof vbox);
    memset(&vi, 0, sizeof vi);
    memset(&vl, 0, sizeof vl);
    PyObject *result = NULL, *mates = NULL;
    double *floats = NULL;
    char *single = NULL;
    Py_ssize_t runs = 0;
    Py_ssize_t n = get_unit_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, &runs);
    if (n < 0) goto done;
    if (runs > 0 && runs > PY_SSIZE_T_MAX / runs) { PyErr_NoMemory(); goto done; }
    const double *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    size_t cap = n ? (size_t)n : 1, rcap = runs ? (size_t)runs : 1;
    floats = malloc((2 * cap + rcap) * sizeof(double));
    single = malloc(rcap);
    mates = PyByteArray_FromStringAndSize(NULL, runs * runs);
    if (!floats || !single) { PyErr_NoMemory(); goto done; }
    if (!mates) goto done;
    double *line = floats, *sorted = floats + cap, *base = floats + 2 * cap;
    for (Py_ssize_t k = 0; k < n; k++) line[k] = unit_baseline(Y0, Y1, ids[k], descent);
    for (Py_ssize_t r = 0, at = 0; r < runs; at += lengths[r], r++) {
        Py_ssize_t m = lengths[r];
        base[r] = m > 1 ? np_sum(line + at, m) / (double)m : line[at];
        memcpy(sorted, line + at, (size_t)m * sizeof(double));
        qsort(sorted, (size_t)m, sizeof(double), cmp_np_double);
        single[r] = 1;
        for (Py_ssize_t k = 1; k < m; k++)
            if (sorted[k] - sorted[k - 1] > same_row) { single[r] = 0; break; }
    }
    char *M = PyByteArray_AS_STRING(mates);
    for (Py_ssize_t i = 0; i < runs; i++)
        for (Py_ssize_t j = 0; j < runs; j++)
            M[i * runs + j] = i == j || (single[i] && single[j] && fabs(base[i] - base[j]) <= same_row);
    result = mates;
    mates = NULL;
done:
    free(floats); free(single);
    Py_XDECREF(mates);
    release_boxes(vbox); release(&vi); release(&vl);
    return result;
}

/* ---- blocks_wrap(x0, x1, y0, y1, words, first_word, ids, lengths, row_tol, descent, paragraph_step, space)
 *      -> (pairs, median words, lines, wrapped), one each per block
 * kernels.blocks_wrap (leaves._paragraphs): wrap_measures of each block of
 * lines (ids cut by lengths) in its rows (rows, `row_tol`), every block in
 * one call: a leaf the stream is no witness of asks it of every block. */
static PyObject *layout_blocks_wrap(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *w_obj, *f_obj, *ids_obj, *len_obj;
    double row_tol, descent, paragraph_step, space;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddd", &obj[0], &obj[1], &obj[2], &obj[3], &w_obj, &f_obj, &ids_obj, &len_obj,
                          &row_tol, &descent, &paragraph_step, &space))
        return NULL;
    View vbox[4], vi, vl, vw, vf;
    memset(vbox, 0, sizeof vbox);
    memset(&vi, 0, sizeof vi); memset(&vl, 0, sizeof vl); memset(&vw, 0, sizeof vw); memset(&vf, 0, sizeof vf);
    PyObject *result = NULL;
    int64_t *ints = NULL, *out = NULL;
    double *floats = NULL, *medians = NULL;
    Py_ssize_t blocks = 0;
    Py_ssize_t n = get_wrap_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, w_obj, &vw, f_obj, &vf, &blocks);
    if (n < 0) goto done;
    const double *box[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    size_t cap = n ? (size_t)n : 1, bcap = blocks ? (size_t)blocks : 1;
    ints = malloc(7 * (cap + 1) * sizeof(int64_t));
    floats = malloc(3 * cap * sizeof(double));
    out = malloc(3 * bcap * sizeof(int64_t));
    medians = malloc(bcap * sizeof(double));
    if (!ints || !floats || !out || !medians) { PyErr_NoMemory(); goto done; }
    int64_t *sorted = ints, *starts = sorted + cap + 1, *order = starts + cap + 1, *tmp = order + cap + 1,
            *pairs = tmp + cap + 1, *counts = pairs + cap + 1;
    double *key = floats, *step = floats + cap, *sorted_steps = floats + 2 * cap;
    for (Py_ssize_t b = 0, at = 0; b < blocks; at += lengths[b], b++) {
        Py_ssize_t m = lengths[b];
        Py_ssize_t rows = sort_rows(box[2], box[3], ids + at, m, row_tol, sorted, starts, order, tmp, key);
        WrapCounts found = wrap_counts(box, vw.view.buf, vf.view.buf, sorted, m, starts, rows, descent, paragraph_step,
                                       space, pairs, step, sorted_steps, counts);
        out[b] = found.pairs;
        out[bcap + b] = found.lines;
        out[2 * bcap + b] = found.wrapped;
        medians[b] = found.median_words;
    }
    result = Py_BuildValue("(NNNN)", int64_bytes(out, blocks),
                           PyByteArray_FromStringAndSize((const char *)medians, blocks * (Py_ssize_t)sizeof(double)),
                           int64_bytes(out + bcap, blocks), int64_bytes(out + 2 * bcap, blocks));
done:
    free(ints); free(floats); free(out); free(medians);
    release_boxes(vbox); release(&vi); release(&vl); release(&vw); release(&vf);
    return result;
}

/* ---- row_groups(top, bottom, one_row, shared) -> ends
 * kernels.row_groups (leaves._cells_along_rows): items in reading order (their
 * boxes from `bottom` to `top` across the line) cut into groups: an item
 * joins the group before it where both it and the group's first item are
 * one row (`one_row`) and its box overlaps every box of the group across the
 * line by `shared` of the shorter of the two or more (NaN: no). The end of
 * each group, in order. */
static PyObject *layout_row_groups(PyObject *mod, PyObject *args) {
    PyObject *t_obj, *b_obj, *o_obj;
    double shared;
    if (!PyArg_ParseTuple(args, "OOOd", &t_obj, &b_obj, &o_obj, &shared)) return NULL;
    View vt = {0}, vb = {0}, vo = {0};
    PyObject *result = NULL;
    int64_t *ends = NULL;
    if (get_view(t_obj, &vt, "d", 8, "top") < 0 || get_view(b_obj, &vb, "d", 8, "bottom") < 0 ||
        get_view(o_obj, &vo, "?", 1, "one_row") < 0)
        goto done;
    Py_ssize_t n = vt.view.len / 8;
    if (vb.view.len / 8 != n || vo.view.len != n) { PyErr_SetString(PyExc_ValueError, "item columns differ in length"); goto done; }
    const double *top = vt.view.buf, *bottom = vb.view.buf;
    const char *one_row = vo.view.buf;
    ends = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
    if (!ends) { PyErr_NoMemory(); goto done; }
    Py_ssize_t groups = 0;
    for (Py_ssize_t k = 0; k < n;) {
        Py_ssize_t end = k + 1;
        while (end < n && one_row[k] && one_row[end]) {
            int all = 1;
            for (Py_ssize_t i = k; i < end && all; i++) {
                double overlap = np_min(top[i], top[end]) - np_max(bottom[i], bottom[end]);
                double shorter = np_min(top[i] - bottom[i], top[end] - bottom[end]);
                all = overlap >= shared * shorter;
            }
            if (!all) break;
            end++;
        }
        ends[groups++] = end;
        k = end;
    }
    result = int64_bytes(ends, groups);
done:
    free(ends);
    release(&vt); release(&vb); release(&vo);
    return result;
}

/* ---- block_firsts(y0, y1, ids, padding, from_foot) -> ids of the lines that begin a block
 * kernels.block_firsts (regions.block_starts, regions._block_ends): the
 * lines `ids` by their tops (stable, -y1 ascending as np.argsort sorts it:
 * NaN last), and of them the first and each whose top lies `padding` or
 * more below the lowest bottom of those before it (np.minimum.accumulate:
 * NaN propagates). `from_foot`: the page turned over (bottom -y1, top
 * -y0; negation is exact), so the lines that end a block, from the foot up. */
/* kernels.block_firsts of ids[0..n) (n >= 1) into firsts: their count;
 * order, tmp and key work buffers of n. */
static Py_ssize_t block_firsts_of(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, double padding,
                                  int from_foot, int64_t *firsts, int64_t *order, int64_t *tmp, double *key) {
#define BOTTOM(u) (from_foot ? -Y1[(u)] : Y0[(u)])
#define TOP(u) (from_foot ? -Y0[(u)] : Y1[(u)])
    for (Py_ssize_t k = 0; k < n; k++) key[k] = -TOP(ids[k]);
    stable_argsort(key, order, tmp, n);
    Py_ssize_t count = 0;
    double floor = BOTTOM(ids[order[0]]);
    firsts[count++] = ids[order[0]];
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        if (k) floor = np_min(floor, BOTTOM(ids[order[k]]));
        if (floor - TOP(ids[order[k + 1]]) >= padding) firsts[count++] = ids[order[k + 1]];
    }
#undef BOTTOM
#undef TOP
    return count;
}

static PyObject *layout_block_firsts(PyObject *mod, PyObject *args) {
    PyObject *y0_obj, *y1_obj, *ids_obj;
    double padding;
    int from_foot;
    if (!PyArg_ParseTuple(args, "OOOdp", &y0_obj, &y1_obj, &ids_obj, &padding, &from_foot)) return NULL;
    View v[2], vi = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *order = NULL, *tmp = NULL, *firsts = NULL;
    double *key = NULL;
    PyObject *const objs[2] = {y0_obj, y1_obj};
    static const char *const names[2] = {"y0", "y1"};
    Py_ssize_t n = get_column_pair(objs, v, names, ids_obj, &vi);
    if (n < 0) goto done;
    const double *Y0 = v[0].view.buf, *Y1 = v[1].view.buf;
    const int64_t *ids = vi.view.buf;
    Py_ssize_t cap = n ? n : 1;
    order = malloc(cap * sizeof(int64_t)); tmp = malloc(cap * sizeof(int64_t)); firsts = malloc(cap * sizeof(int64_t));
    key = calloc(cap, sizeof(double));
    if (!order || !tmp || !firsts || !key) { PyErr_NoMemory(); goto done; }
    Py_ssize_t count = n ? block_firsts_of(Y0, Y1, ids, n, padding, from_foot, firsts, order, tmp, key) : 0;
    result = int64_bytes(firsts, count);
done:
    free(order); free(tmp); free(firsts); free(key);
    release(&v[0]); release(&v[1]); release(&vi);
    return result;
}

/* ---- placed_lines(x0, x1, y0, y1, ids, space, end, inked, descent, line_baseline, mark_height,
 *      join_gap, justified_space, number_gap, number_glyphs, piece_share, row_overlap)
 *      -> (ids, row, mark, line, span, rules)
 * lines.line_order's first rules on the placed units `ids` (ascending), as
 * lines._lines_by_the_rules applies them: units by baseline top down
 * (stable), a new row where the baseline steps down more than
 * line_baseline x the smaller height; small units (mark_height at most)
 * beside a line on its row, with its height, marks beside marks until no
 * more are found (_marks_on_their_lines, _marks_beside_marks); then by row
 * and along it, and per unit its line (lines_along, rows `span` apart).
 * `rules` says which later rules may change what this gives (bit 1
 * _justified_lines, 2 _numbered_headings, 4 _pieces_inside): each bit is
 * clear exactly where that rule's own first test leaves the lines as they
 * are, the same doubles compared. `space` (per stream position: a blank)
 * and `end` (per unit, where it ends) give Page.trails_blank, `inked` (per
 * unit) Page.inked. */
enum { JUSTIFIED_RULE = 1, NUMBERED_RULE = 2, PIECES_RULE = 4 };

typedef struct {
    double descent, line_baseline, mark_height, join_gap, justified_space, number_gap, piece_share, row_overlap;
    int64_t number_glyphs;
} LineParams;

/* The marks among units sid[0..n) (sorted by baseline; heights sh) as
 * _marks_on_their_lines finds them, marks beside marks included: per unit
 * beside[k] (-1: no mark); 0, or -1 with an exception set. X0 and X1 are
 * the page's, grown along the line by marks in work copies gx0, gx1 (size units). */
static int placed_marks(const double *X0, const double *X1, const double *Y0, const double *Y1, Py_ssize_t size,
                        const int64_t *sid, const double *sh, Py_ssize_t n, const LineParams *p, int64_t *beside,
                        int64_t *again) {
    Py_ssize_t small = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        beside[k] = -1;
        small += sh[k] <= p->mark_height;
    }
    if (!small || small == n) return 0;
    marks_found(X0, X1, Y0, Y1, sid, n, p->mark_height, p->join_gap, beside);
    int any = 0, all_small = 1;
    for (Py_ssize_t k = 0; k < n; k++) {
        any |= beside[k] >= 0;
        if (sh[k] <= p->mark_height && beside[k] < 0) all_small = 0;
    }
    if (!any || all_small) return 0;
    double *gx0 = malloc((size_t)(size ? size : 1) * sizeof(double)), *gx1 = malloc((size_t)(size ? size : 1) * sizeof(double));
    if (!gx0 || !gx1) { free(gx0); free(gx1); PyErr_NoMemory(); return -1; }
    memcpy(gx0, X0, (size_t)size * sizeof(double));
    memcpy(gx1, X1, (size_t)size * sizeof(double));
    for (;;) {  /* each pass places one mark more at least: at most n passes */
        for (Py_ssize_t k = 0; k < n; k++)
            if (beside[k] >= 0) {
                int64_t host = sid[beside[k]], m = sid[k];
                gx0[host] = np_min(gx0[host], X0[m]);
                gx1[host] = np_max(gx1[host], X1[m]);
            }
        marks_found(gx0, gx1, Y0, Y1, sid, n, p->mark_height, p->join_gap, again);
        int found = 0;
        for (Py_ssize_t k = 0; k < n; k++)
            if (again[k] >= 0 && beside[k] < 0) { beside[k] = again[k]; found = 1; }
        if (!found) break;
    }
    free(gx0); free(gx1);
    return 0;
}

/* The `rules` bits of placed_lines for units ids[0..n) along their rows
 * (row, line per unit; rows `span` apart); ax0, ax1 and reach are work buffers of n. */
static int placed_rules(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                        const int64_t *row, const int64_t *line, Py_ssize_t n, double span, const unsigned char *space,
                        const int64_t *end, const int64_t *inked, const LineParams *p, double *ax0, double *ax1,
                        double *reach, int64_t *host) {
    for (Py_ssize_t k = 0; k < n; k++) {
        double offset = (double)row[k] * span;
        ax0[k] = X0[ids[k]] + offset;
        ax1[k] = X1[ids[k]] + offset;
        reach[k] = k ? np_max(reach[k - 1], ax1[k]) : ax1[k];
        int64_t own = ax1[k] == reach[k] ? (int64_t)k : 0;
        host[k] = k && host[k - 1] > own ? host[k - 1] : own;
    }
    int rules = 0;
    Py_ssize_t lines = 0, previous = 0;
    int spaced_before = 0;
    for (Py_ssize_t k = 1; k < n; k++) {
        int64_t a = ids[k - 1], b = ids[k];
        if (line[k] != line[k - 1]) {
            /* _gaps_before_lines: a line's first unit and its gap along the row. */
            double gap = ax0[k] - reach[k - 1];
            int same_row = (double)row[k] * span == (double)row[k - 1] * span, trails = space[end[a] - 1];
            int spaced = same_row && trails && gap <= p->justified_space;
            if (spaced && spaced_before) rules |= JUSTIFIED_RULE;
            spaced_before = spaced;
            double smaller = np_min(Y1[b] - Y0[b], Y1[a] - Y0[a]);
            int alone = k - previous == 1;
            if (alone && same_row && gap <= p->number_gap * smaller && trails && inked[a] <= p->number_glyphs)
                rules |= NUMBERED_RULE;
            lines++;
            previous = k;
        }
        /* _pieces_inside: a unit inside the extent of its row's furthest reaching unit before it. */
        int64_t hk = host[k - 1], h = ids[hk];
        double centre = (ax0[k] + ax1[k]) / 2, width = ax1[k] - ax0[k], host_width = ax1[hk] - ax0[hk];
        double height = Y1[b] - Y0[b], host_height = Y1[h] - Y0[h];
        double base = Y0[b] + p->descent * height, host_base = Y0[h] + p->descent * host_height;
        if (line[k] == line[hk] && centre < reach[k - 1] && width <= p->piece_share * host_width &&
            height > p->mark_height && height <= host_height + p->row_overlap &&
            fabs(base - host_base) <= p->line_baseline * np_min(height, host_height))
            rules |= PIECES_RULE;
    }
    if (lines < 2) rules &= ~JUSTIFIED_RULE;
    return rules;
}

/* What placed_lines gives, in buffers placed_free releases: the units by
 * row and along it, per unit its row, whether it is a mark, its line; the
 * rows' span and the rules bits. */
typedef struct {
    int64_t *ibuf, *ids, *row, *line;
    double *dbuf;
    unsigned char *mark, *mark_along;
    double span;
    int rules;
} Placed;

static void placed_free(Placed *r) { free(r->ibuf); free(r->dbuf); free(r->mark); }

/* placed_lines' body on units ids[0..n) (checked: in range, their ends too)
 * of the unit boxes X0, X1, Y0, Y1 (`size` units): 0, or -1 with an exception
 * set; r is placed_free'd by the caller either way. */
static int placed_lines_of(const double *X0, const double *X1, const double *Y0, const double *Y1, Py_ssize_t size,
                           const int64_t *ids, Py_ssize_t n, const unsigned char *space, const int64_t *end,
                           const int64_t *inked, const LineParams *lp, Placed *r) {
    const LineParams p = *lp;
    size_t cells = (size_t)(n ? n : 1);
    /* int64 work: sid order tmp beside again row row2 along line by_x key host out_ids out_row (13 x n) */
    r->ibuf = calloc(13 * cells, sizeof(int64_t));
    /* doubles: key sh sb h2 x ax0 ax1 reach (8 x n) */
    r->dbuf = calloc(8 * cells, sizeof(double));
    r->mark = calloc(cells, 1);
    if (!r->ibuf || !r->dbuf || !r->mark) { PyErr_NoMemory(); return -1; }
    int64_t *ibuf = r->ibuf;
    double *dbuf = r->dbuf;
    unsigned char *mark = r->mark;
    int64_t *sid = ibuf, *order = ibuf + cells, *tmp = ibuf + 2 * cells, *beside = ibuf + 3 * cells, *again = ibuf + 4 * cells;
    int64_t *row = ibuf + 5 * cells, *row2 = ibuf + 6 * cells, *along = ibuf + 7 * cells, *line = ibuf + 8 * cells;
    int64_t *by_x = ibuf + 9 * cells, *key_i = ibuf + 10 * cells, *host = ibuf + 11 * cells, *out_ids = ibuf + 12 * cells;
    double *key = dbuf, *sh = dbuf + cells, *sb = dbuf + 2 * cells, *h2 = dbuf + 3 * cells, *x = dbuf + 4 * cells;
    double *ax0 = dbuf + 5 * cells, *ax1 = dbuf + 6 * cells, *reach = dbuf + 7 * cells;
    /* By baseline, top down (np.argsort(-base, kind="stable")), and the rows. */
    for (Py_ssize_t k = 0; k < n; k++) {
        double height = Y1[ids[k]] - Y0[ids[k]];
        key[k] = -(Y0[ids[k]] + p.descent * height);
    }
    stable_argsort(key, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t u = ids[order[k]];
        sid[k] = u;
        sh[k] = Y1[u] - Y0[u];
        sb[k] = Y0[u] + p.descent * sh[k];
        row[k] = k ? row[k - 1] + (sb[k - 1] - sb[k] > p.line_baseline * np_min(sh[k - 1], sh[k])) : 0;
    }
    if (placed_marks(X0, X1, Y0, Y1, size, sid, sh, n, &p, beside, again) < 0) return -1;
    double high = 0.0, low = 0.0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int placed = beside[k] >= 0;
        mark[k] = (unsigned char)placed;
        row2[k] = placed ? row[beside[k]] : row[k];
        h2[k] = placed ? sh[beside[k]] : sh[k];
        high = k ? np_max(high, X1[sid[k]]) : X1[sid[k]];
        low = k ? np_min(low, X0[sid[k]]) : X0[sid[k]];
    }
    double span = (high - low) + 1.0;
    along_lines(X0, X1, sid, row2, h2, n, span, p.join_gap, along, line, tmp, by_x, key_i, x);
    unsigned char *mark_along = (unsigned char *)tmp;  /* tmp is free again: n bytes of it */
    for (Py_ssize_t k = 0; k < n; k++) {
        out_ids[k] = sid[along[k]];
        row[k] = row2[along[k]];
        mark_along[k] = mark[along[k]];
    }
    r->ids = out_ids; r->row = row; r->line = line; r->mark_along = mark_along; r->span = span;
    r->rules = placed_rules(X0, X1, Y0, Y1, out_ids, row, line, n, span, space, end, inked, &p, ax0, ax1, reach, host);
    return 0;
}

static PyObject *layout_placed_lines(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj, *space_obj, *end_obj, *inked_obj;
    LineParams p;
    long long number_glyphs;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddddddLdd", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &space_obj, &end_obj,
                          &inked_obj, &p.descent, &p.line_baseline, &p.mark_height, &p.join_gap, &p.justified_space,
                          &p.number_gap, &number_glyphs, &p.piece_share, &p.row_overlap))
        return NULL;
    p.number_glyphs = (int64_t)number_glyphs;
    View vbox[4], vi = {0}, vs = {0}, ve = {0}, vk = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL, *out[4] = {NULL, NULL, NULL, NULL};
    Placed r = {0};
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0 || get_view(space_obj, &vs, "?", 1, "space") < 0 || get_view(end_obj, &ve, "l", 8, "end") < 0 ||
        get_view(inked_obj, &vk, "l", 8, "inked") < 0)
        goto done;
    Py_ssize_t size = vbox[0].view.len / 8, glyphs = vs.view.len;
    if (ve.view.len / 8 != size || vk.view.len / 8 != size) {
        PyErr_SetString(PyExc_ValueError, "end and inked differ in length from the units");
        goto done;
    }
    const int64_t *ids = vi.view.buf, *end = ve.view.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (end[ids[k]] < 1 || end[ids[k]] > glyphs) { PyErr_SetString(PyExc_IndexError, "end: unit out of range"); goto done; }
    if (placed_lines_of(vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf, size, ids, n, vs.view.buf, end,
                        vk.view.buf, &p, &r) < 0)
        goto done;
    out[0] = int64_bytes(r.ids, n);
    out[1] = out[0] ? int64_bytes(r.row, n) : NULL;
    out[2] = out[1] ? PyByteArray_FromStringAndSize((const char *)r.mark_along, n) : NULL;
    out[3] = out[2] ? int64_bytes(r.line, n) : NULL;
    if (out[3]) result = Py_BuildValue("(OOOOdi)", out[0], out[1], out[2], out[3], r.span, r.rules);
done:
    for (int c = 0; c < 4; c++) Py_XDECREF(out[c]);
    placed_free(&r);
    release_boxes(vbox); release(&vi); release(&vs); release(&ve); release(&vk);
    return result;
}

/* ---- line_blanks(origin, own_end, direction, height, stream, start, inked, aligned, x0, x1, y0, y1, ids, line,
 *                  offset, descent, line_baseline, join_gap) -> (units, line, rank, host, centre) or None ----------
 * lines.blanks_on_their_lines on a page read along (1, 0), in one pass: the
 * units of blanks (Page.blank_units: no inked glyph, set in the page's
 * direction), each one's box along the line and its mean baseline, kept where
 * its glyphs lie together; the nearest placed unit `ids` on its baseline and
 * within the join gap (_nearest_units: the least gap, then the nearest
 * baseline, then the lowest baseline in numpy's stable order); its rank on
 * that unit's line. The reference's expressions operation by operation:
 * `origin @ along` as x * 1 + y * 0, add.reduceat as its first value plus
 * numpy's pairwise sum of the rest, np.searchsorted over an array that need
 * not be sorted with numpy's own search (binsearch_right). None (the
 * reference decides) where a value it reads is not finite. */
/* numpy's binsearch<side right> for one key of a run of keys, over an array
 * of doubles or of int64: the bounds carried from the key before (numpy
 * narrows the search by the previous key, which over an unsorted array
 * decides the answer). */
#define DEFINE_BINSEARCH_RIGHT(name, T)                                                             \
    static Py_ssize_t name(const T *arr, Py_ssize_t n, T key, T *last, Py_ssize_t *lo, Py_ssize_t *hi) { \
        if (*last <= key) *hi = n;                                                                  \
        else { *lo = 0; *hi = *hi < n ? *hi + 1 : n; }                                              \
        *last = key;                                                                                \
        while (*lo < *hi) {                                                                         \
            Py_ssize_t mid = *lo + ((*hi - *lo) >> 1);                                              \
            if (arr[mid] <= key) *lo = mid + 1; else *hi = mid;                                     \
        }                                                                                           \
        return *lo;                                                                                 \
    }
DEFINE_BINSEARCH_RIGHT(binsearch_right_d, double)
DEFINE_BINSEARCH_RIGHT(binsearch_right_l, int64_t)

typedef struct {
    const double *O, *E, *H, *X0, *X1, *Y0, *Y1, *offset;
    const int64_t *S, *start, *inked, *ids, *line;
    const unsigned char *aligned;
    Py_ssize_t n, units, m;
    double descent, baseline, join_gap;
} BlankPage;

/* Page.blank_units' box of unit u (low, high, base, height, width) and the
 * test that keeps it (its glyphs together); 0 where a value is not finite. */
static int blank_box(const BlankPage *p, Py_ssize_t u, double *box, double *sums) {
    Py_ssize_t a = (Py_ssize_t)p->start[u], b = u + 1 < p->units ? (Py_ssize_t)p->start[u + 1] : p->n;
    double low = 0, high = 0, height = 0;
    for (Py_ssize_t k = a; k < b; k++) {
        int64_t g = p->S[k];
        double ox = p->O[2 * g], oy = p->O[2 * g + 1], ex = p->E[2 * g], ey = p->E[2 * g + 1], h = p->H[g];
        if (!isfinite(ox) || !isfinite(oy) || !isfinite(ex) || !isfinite(ey) || !isfinite(h)) return 0;
        double s = ox * 1.0 + oy * 0.0, e = ex * 1.0 + ey * 0.0;
        double lo = s <= e ? s : e, hi = s >= e ? s : e;
        low = k == a || lo < low ? lo : low;
        high = k == a || hi > high ? hi : high;
        height = k == a || h > height ? h : height;
        sums[k - a] = oy * 1.0 - ox * 0.0;
        sums[(b - a) + (k - a)] = fabs(e - s);
    }
    Py_ssize_t count = b - a;
    box[0] = low; box[1] = high;
    box[2] = (sums[0] + pairwise_sum(sums + 1, count - 1)) / (double)count;
    box[3] = height;
    box[4] = sums[count] + pairwise_sum(sums + count + 1, count - 1);
    return 1;
}

/* The nearest unit (a position into ids, by_base sorted by baseline) to the
 * blank `box`, -1 where none is near: _nearest_units' window and tests. */
static Py_ssize_t nearest_unit(const BlankPage *p, const int64_t *by_base, const double *ubase, const double *box) {
    double base = box[2], h = box[3];
    double low_v = base - p->baseline * h, high_v = base + p->baseline * h;
    Py_ssize_t lo = 0, hi = p->m;
    while (lo < hi) { Py_ssize_t mid = lo + ((hi - lo) >> 1); if (ubase[by_base[mid]] < low_v) lo = mid + 1; else hi = mid; }
    Py_ssize_t best = -1;
    double best_gap = 0, best_step = 0;
    for (Py_ssize_t k = lo; k < p->m && ubase[by_base[k]] <= high_v; k++) {
        int64_t at = by_base[k], u = p->ids[at];
        double uh = p->Y1[u] - p->Y0[u];
        double smaller = np_min(uh, h);
        double gap = np_max(np_max(p->X0[u] - box[1], box[0] - p->X1[u]), 0.0);
        double step = fabs(ubase[at] - base);
        if (!(step <= p->baseline * smaller && gap <= p->join_gap * smaller)) continue;
        if (best < 0 || gap < best_gap || (gap == best_gap && step < best_step)) { best = at; best_gap = gap; best_step = step; }
    }
    return best;
}

static PyObject *line_blanks_result(const BlankPage *p, Py_ssize_t found, const int64_t *fu, const int64_t *fat, const double *fcentre) {
    /* the rank of each found blank on its unit's line, and the five columns */
    PyObject *cols[5] = {NULL};
    int64_t *units = malloc((size_t)(found ? found : 1) * 3 * sizeof(int64_t));
    double *rank = malloc((size_t)(found ? found : 1) * sizeof(double)), *keyarr = malloc((size_t)(p->m ? p->m : 1) * sizeof(double));
    PyObject *result = NULL;
    if (!units || !rank || !keyarr) { PyErr_NoMemory(); goto done; }
    int64_t *line = units + found, *host = units + 2 * found;
    for (Py_ssize_t k = 0; k < p->m; k++) keyarr[k] = p->X0[p->ids[k]] + p->offset[k];
    Py_ssize_t lo_d = 0, hi_d = p->m, lo_l = 0, hi_l = p->m;
    double last_d = found ? fcentre[0] + p->offset[fat[0]] : 0;
    int64_t last_l = found ? p->line[fat[0]] : 0;
    for (Py_ssize_t j = 0; j < found; j++) {
        int64_t at = fat[j], u = p->ids[at];
        double centre = fcentre[j];
        int inside = p->X0[u] < centre && centre < p->X1[u];
        Py_ssize_t before = binsearch_right_d(keyarr, p->m, centre + p->offset[at], &last_d, &lo_d, &hi_d) - 1;
        Py_ssize_t last_of_line = binsearch_right_l(p->line, p->m, p->line[at], &last_l, &lo_l, &hi_l) - 1;
        units[j] = fu[j];
        line[j] = p->line[at];
        rank[j] = inside ? (double)at + 0.25 : (double)(before < last_of_line ? before : last_of_line) + 0.5;
        host[j] = inside ? u : -1;
    }
    cols[0] = int64_bytes(units, found); cols[1] = int64_bytes(line, found);
    cols[2] = PyByteArray_FromStringAndSize((const char *)rank, found * (Py_ssize_t)sizeof(double));
    cols[3] = int64_bytes(host, found);
    cols[4] = PyByteArray_FromStringAndSize((const char *)fcentre, found * (Py_ssize_t)sizeof(double));
    if (cols[0] && cols[1] && cols[2] && cols[3] && cols[4]) {
        result = Py_BuildValue("(NNNNN)", cols[0], cols[1], cols[2], cols[3], cols[4]);
        for (int c = 0; c < 5; c++) cols[c] = NULL;
    }
done:
    for (int c = 0; c < 5; c++) Py_XDECREF(cols[c]);
    free(units); free(rank); free(keyarr);
    return result;
}

/* line_blanks' body on the page p (its units covering the stream): the
 * units of blanks on a line into fu, the position in ids of the unit each
 * lies nearest into fat, its centre into fcentre (each of p->units); how
 * many, -2 where a value read is not finite (the reference decides), -1
 * with an exception set. */
static Py_ssize_t blanks_found(const BlankPage *p, int64_t *fu, int64_t *fat, double *fcentre) {
    size_t m1 = (size_t)(p->m ? p->m : 1), n1 = (size_t)(p->n ? p->n : 1);
    int64_t *by_base = malloc(m1 * sizeof(int64_t)), *tmp = malloc(m1 * sizeof(int64_t));
    double *ubase = malloc(m1 * sizeof(double)), *sums = malloc(2 * n1 * sizeof(double));
    Py_ssize_t found = -1;
    if (!by_base || !tmp || !ubase || !sums) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < p->m; k++) {
        int64_t u = p->ids[k];
        if (!isfinite(p->X0[u]) || !isfinite(p->X1[u]) || !isfinite(p->Y0[u]) || !isfinite(p->Y1[u]) || !isfinite(p->offset[k])) {
            found = -2;
            goto done;
        }
        ubase[k] = p->Y0[u] + p->descent * (p->Y1[u] - p->Y0[u]);
    }
    stable_argsort(ubase, by_base, tmp, p->m);
    found = 0;
    for (Py_ssize_t u = 0; u < p->units; u++) {
        if (p->inked[u] != 0 || !p->aligned[u]) continue;
        double box[5];
        if (!blank_box(p, u, box, sums)) { found = -2; goto done; }
        if (!(box[1] - box[0] <= box[4] + p->join_gap * box[3])) continue;
        Py_ssize_t at = p->m ? nearest_unit(p, by_base, ubase, box) : -1;
        if (at < 0) continue;
        fu[found] = u; fat[found] = at; fcentre[found] = (box[0] + box[1]) / 2;
        found++;
    }
done:
    free(by_base); free(tmp); free(ubase); free(sums);
    return found;
}

static PyObject *layout_line_blanks(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *st_obj, *ink_obj, *al_obj, *box_obj[4], *ids_obj, *line_obj, *off_obj;
    BlankPage p;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOddd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &st_obj, &ink_obj,
                          &al_obj, &box_obj[0], &box_obj[1], &box_obj[2], &box_obj[3], &ids_obj, &line_obj, &off_obj,
                          &p.descent, &p.baseline, &p.join_gap))
        return NULL;
    View v[5], vbox[4], vst = {0}, vink = {0}, val = {0}, vi = {0}, vl = {0}, vo = {0};
    memset(v, 0, sizeof v); memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *fu = NULL, *fat = NULL;
    double *fcentre = NULL;
    Py_ssize_t rows;
    p.n = get_stream_columns((PyObject *const *)objs, v, &rows);
    if (p.n < 0) goto done;
    p.m = get_unit_boxes(box_obj, vbox, ids_obj, &vi);
    if (p.m < 0 || get_view(st_obj, &vst, "l", 8, "start") < 0 || get_view(ink_obj, &vink, "l", 8, "inked") < 0 ||
        get_view(al_obj, &val, "?", 1, "aligned") < 0 || get_view(line_obj, &vl, "l", 8, "line") < 0 ||
        get_view(off_obj, &vo, "d", 8, "offset") < 0)
        goto done;
    p.units = vst.view.len / 8;
    if (vink.view.len / 8 != p.units || val.view.len != p.units || vbox[0].view.len / 8 != p.units ||
        vl.view.len / 8 != p.m || vo.view.len / 8 != p.m) {
        PyErr_SetString(PyExc_ValueError, "line_blanks: columns differ in length");
        goto done;
    }
    p.O = v[0].view.buf; p.E = v[1].view.buf; p.H = v[3].view.buf; p.S = v[4].view.buf;
    p.start = vst.view.buf; p.inked = vink.view.buf; p.aligned = val.view.buf;
    p.X0 = vbox[0].view.buf; p.X1 = vbox[1].view.buf; p.Y0 = vbox[2].view.buf; p.Y1 = vbox[3].view.buf;
    p.ids = vi.view.buf; p.line = vl.view.buf; p.offset = vo.view.buf;
    if (!units_cover(p.start, p.units, p.n)) { result = Py_NewRef(Py_None); goto done; }
    size_t u1 = (size_t)(p.units ? p.units : 1);
    fu = malloc(u1 * sizeof(int64_t)); fat = malloc(u1 * sizeof(int64_t)); fcentre = malloc(u1 * sizeof(double));
    if (!fu || !fat || !fcentre) { PyErr_NoMemory(); goto done; }
    Py_ssize_t found = blanks_found(&p, fu, fat, fcentre);
    if (found == -2) result = Py_NewRef(Py_None);
    else if (found >= 0) result = line_blanks_result(&p, found, fu, fat, fcentre);
done:
    free(fu); free(fat); free(fcentre);
    for (int c = 0; c < 5; c++) release(&v[c]);
    release_boxes(vbox); release(&vst); release(&vink); release(&val); release(&vi); release(&vl); release(&vo);
    return result;
}

/* ---- row_returns(x0, x1, y0, y1, ids, descent, same_baseline, piece_gap) -> (returns, rows)
 * kernels.row_returns (leaves._rows_in_pieces): lines `ids` (in paint
 * order) by baseline top down (stable), a new row where the baseline steps
 * down more than same_baseline, then by row and along it by x0 (stable);
 * how many lines next to the one before them on its row, at most
 * piece_gap after its end, the stream does not paint right after or
 * before it, and how many rows. */
/* row_returns' (returns, rows) of the lines ids[0..n) into out: 0, or -1 out of memory (no exception set). */
static int row_returns_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                          Py_ssize_t n, double descent, double same_baseline, double piece_gap, Py_ssize_t out[2]) {
    size_t cells = (size_t)(n ? n : 1);
    int64_t *ibuf = calloc(6 * cells, sizeof(int64_t));  /* by_base tmp row by_x row_key order */
    double *dbuf = calloc(2 * cells, sizeof(double));   /* base key, x0 key */
    if (!ibuf || !dbuf) { free(ibuf); free(dbuf); return -1; }
    int64_t *by_base = ibuf, *tmp = ibuf + cells, *row = ibuf + 2 * cells, *by_x = ibuf + 3 * cells;
    int64_t *row_key = ibuf + 4 * cells, *order = ibuf + 5 * cells;
    double *key = dbuf, *x = dbuf + cells;
    for (Py_ssize_t k = 0; k < n; k++) key[k] = -unit_baseline(Y0, Y1, ids[k], descent);
    stable_argsort(key, by_base, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) {
        /* -np.diff(base[by_base]) > same_baseline */
        double step = k ? -(unit_baseline(Y0, Y1, ids[by_base[k]], descent) - unit_baseline(Y0, Y1, ids[by_base[k - 1]], descent)) : 0.0;
        row[k] = k ? row[k - 1] + (step > same_baseline) : 0;
        x[k] = X0[ids[by_base[k]]];
    }
    /* np.lexsort((x0, row)) over positions in by_base order. */
    stable_argsort(x, by_x, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) row_key[k] = row[by_x[k]];
    stable_argsort_int(row_key, order, tmp, n);
    Py_ssize_t returns = 0;
    for (Py_ssize_t k = 1; k < n; k++) {
        int64_t p = by_x[order[k - 1]], q = by_x[order[k]], a = by_base[p], b = by_base[q];
        double gap = X0[ids[b]] - X1[ids[a]];
        int64_t apart = a > b ? a - b : b - a;
        returns += row[q] == row[p] && gap <= piece_gap && apart > 1;
    }
    out[0] = returns;
    out[1] = n ? (Py_ssize_t)row[by_x[order[n - 1]]] + 1 : 0;
    free(ibuf); free(dbuf);
    return 0;
}

static PyObject *layout_row_returns(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double descent, same_baseline, piece_gap;
    if (!PyArg_ParseTuple(args, "OOOOOddd", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &descent, &same_baseline, &piece_gap))
        return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi), out[2];
    if (n < 0) goto done;
    if (row_returns_of(vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf, vi.view.buf, n, descent,
                       same_baseline, piece_gap, out) < 0)
        PyErr_NoMemory();
    else
        result = Py_BuildValue("(nn)", out[0], out[1]);
done:
    release_boxes(vbox); release(&vi);
    return result;
}

/* ==== end of lrules' kernels ==== */

/* ---- stream_unit_starts(origin, own_end, direction, height, stream, line_break, gap, space,
 *      segment_gap, segment_back, blank_gap) -> positions
 * kernels.stream_unit_starts (units.unit_starts): the positions of the
 * stream where a unit starts, 0 first; per pair of consecutive glyphs
 * geometric.unit_breaks on the pair's line break (line_break, per position)
 * and gap along the line (gap, per pair), the gap after a blank (`space`,
 * per position) that lies past blank_gap x the smaller height measured from
 * where the blank starts (its own width along its direction added). */
/* stream_unit_starts' body on the stream S[0..n) (n >= 1) of glyph columns g:
 * the unit starts into starts[], how many. `cuts`: segment_gap, segment_back,
 * blank_gap. */
static Py_ssize_t unit_starts_of(const GlyphColumns *g, const int64_t *S, Py_ssize_t n, const unsigned char *LB, const double *G,
                                 const unsigned char *space, const double cuts[3], int64_t *starts) {
    const double *O = g->O, *E = g->E, *D = g->D, *H = g->H;
    const double segment_gap = cuts[0], segment_back = cuts[1], blank_gap = cuts[2];
    Py_ssize_t count = 0;
    starts[count++] = 0;
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        int64_t r = S[k], q = S[k + 1];
        double smaller = np_min(H[r], H[q]), larger = np_max(H[r], H[q]), gap = G[k];
        int line_break = LB[k + 1];
        int cut = line_break || gap > segment_gap * smaller || gap < -segment_back * larger;
        if (!cut && gap > blank_gap * smaller && space[k]) {
            double width = (E[2 * r] - O[2 * r]) * D[2 * r] + (E[2 * r + 1] - O[2 * r + 1]) * D[2 * r + 1];
            double from_start = gap + width;
            cut = line_break || from_start > segment_gap * smaller || from_start < -segment_back * larger;
        }
        if (cut) starts[count++] = k + 1;
    }
    return count;
}

static PyObject *layout_stream_unit_starts(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *lb_obj, *g_obj, *sp_obj;
    double segment_gap, segment_back, blank_gap;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &lb_obj, &g_obj, &sp_obj,
                          &segment_gap, &segment_back, &blank_gap))
        return NULL;
    View v[5], vlb = {0}, vg = {0}, vsp = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *starts = NULL;
    Py_ssize_t rows, n = get_stream_columns((PyObject *const *)objs, v, &rows);
    if (n < 0 || get_view(lb_obj, &vlb, "?", 1, "line_break") < 0 || get_view(g_obj, &vg, "d", 8, "gap") < 0 ||
        get_view(sp_obj, &vsp, "?", 1, "space") < 0)
        goto done;
    Py_ssize_t pairs = n ? n - 1 : 0;
    if (vlb.view.len != n || vsp.view.len != n || vg.view.len != 8 * pairs) {
        PyErr_SetString(PyExc_ValueError, "moves and stream differ in length");
        goto done;
    }
    const GlyphColumns g = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    const double cuts[3] = {segment_gap, segment_back, blank_gap};
    starts = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (!starts) { PyErr_NoMemory(); goto done; }
    result = int64_bytes(starts, unit_starts_of(&g, v[4].view.buf, n, vlb.view.buf, vg.view.buf, vsp.view.buf, cuts, starts));
done:
    free(starts);
    for (int c = 0; c < 5; c++) release(&v[c]);
    release(&vlb); release(&vg); release(&vsp);
    return result;
}

/* ---- reordered_moves(origin, own_end, direction, height, stream, line_break, across, gap, larger, positions,
 *      line_break_ratio, same_direction) -> (line_break, across, gap, height)
 * kernels.reordered_moves (units.reordered_moves): the moves of the order
 * stream[positions] from those of the stream (line_break per position,
 * across, gap and larger per pair): a pair of positions one after the other
 * in the stream keeps its measurements, any other pair is measured anew
 * (pair_move). */
static PyObject *layout_reordered_moves(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *in_obj[4], *pos_obj;
    double ratio, same_direction;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOdd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &in_obj[0], &in_obj[1],
                          &in_obj[2], &in_obj[3], &pos_obj, &ratio, &same_direction))
        return NULL;
    View v[5], vin[4], vp = {0};
    memset(v, 0, sizeof v); memset(vin, 0, sizeof vin);
    PyObject *result = NULL, *out[4] = {NULL};
    Py_ssize_t rows, n = get_stream_columns((PyObject *const *)objs, v, &rows);
    if (n < 0 || get_view(in_obj[0], &vin[0], "?", 1, "line_break") < 0 || get_view(in_obj[1], &vin[1], "d", 8, "across") < 0 ||
        get_view(in_obj[2], &vin[2], "d", 8, "gap") < 0 || get_view(in_obj[3], &vin[3], "d", 8, "height") < 0 ||
        get_view(pos_obj, &vp, "l", 8, "positions") < 0)
        goto done;
    Py_ssize_t pairs = n ? n - 1 : 0, q = vp.view.len / 8, fresh_pairs = q ? q - 1 : 0;
    if (vin[0].view.len != n || vin[1].view.len != 8 * pairs || vin[2].view.len != 8 * pairs || vin[3].view.len != 8 * pairs) {
        PyErr_SetString(PyExc_ValueError, "moves and stream differ in length");
        goto done;
    }
    const int64_t *pos = vp.view.buf, *S = v[4].view.buf;
    if (check_ids(pos, q, n, "positions") < 0) goto done;
    const Py_ssize_t sizes[4] = {q, 8 * fresh_pairs, 8 * fresh_pairs, 8 * fresh_pairs};
    for (int c = 0; c < 4; c++)
        if (!(out[c] = PyByteArray_FromStringAndSize(NULL, sizes[c]))) goto done;
    const char *LB = vin[0].view.buf;
    const double *A = vin[1].view.buf, *G = vin[2].view.buf, *M = vin[3].view.buf;
    char *brk = PyByteArray_AS_STRING(out[0]);
    double *acr = (double *)PyByteArray_AS_STRING(out[1]), *gap = (double *)PyByteArray_AS_STRING(out[2]);
    double *hgt = (double *)PyByteArray_AS_STRING(out[3]);
    const GlyphColumns g = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    reordered_moves_of(&g, S, LB, A, G, M, pos, q, ratio, same_direction, brk, acr, gap, hgt);
    result = Py_BuildValue("(OOOO)", out[0], out[1], out[2], out[3]);
done:
    for (int c = 0; c < 4; c++) Py_XDECREF(out[c]);
    for (int c = 0; c < 5; c++) release(&v[c]);
    for (int c = 0; c < 4; c++) release(&vin[c]);
    release(&vp);
    return result;
}

/* ---- stream_units(origin, own_end, direction, height, stream, texts,
 *      (line_break_ratio, same_direction, segment_gap, segment_back, blank_gap, back_step, line_baseline,
 *       upright, descent, skewed, max_value))
 *      (mark_size, join_gap, justified_space, number_gap, piece_share, row_overlap, number_glyphs))
 *      -> (line_break, across, gap, height, alpha, space, starts, painted_back, frame or None, backwards or None,
 *          lines_apart)
 * kernels.stream_units (units.page_units): a page's stream measured and cut
 * into units in one pass. pair_moves of each pair of the stream (line_break
 * per position, the first False), text_classes of its glyphs' texts (the
 * glyph table's contiguous object array, read in place), stream_unit_starts
 * on those, the positions units.pieces_painted_back tests
 * (units.painted_back_candidates: a letter whose pair steps back back_step x
 * the pair's height after a pair that did not, two glyphs or more into its
 * unit, within line_baseline x the pair's height across); and, where every
 * glyph of the table runs within `upright` of (1, 0) (the frame
 * geometric.reading_direction gives such a page) and no position is to be
 * tested, the units' upright_frame and upright_backward_units, each None
 * where it declines; and where both answer and no unit is painted
 * backwards, whether lines.line_order leaves the units as they are
 * (lines_apart_of; False where not measured). */
static PyObject *stream_units_result(PyObject *col[6], const int64_t *starts, Py_ssize_t units, const int64_t *tested,
                                     Py_ssize_t count, PyObject *frame, PyObject *backwards, int apart) {
    PyObject *s = int64_bytes(starts, units), *t = int64_bytes(tested, count), *result = NULL;
    if (s && t)
        result = Py_BuildValue("(OOOOOOOOOON)", col[0], col[1], col[2], col[3], col[4], col[5], s, t, frame, backwards,
                               PyBool_FromLong(apart));
    Py_XDECREF(s); Py_XDECREF(t);
    return result;
}

/* units.painted_back_candidates on the stream's moves (n positions, units
 * start[0..units)): the positions to test into tested[], how many. */
static Py_ssize_t painted_back_of(const double *A, const double *G, const double *M, const char *alpha, Py_ssize_t n,
                                  const int64_t *start, Py_ssize_t units, double back_step, double line_baseline, int64_t *tested) {
    Py_ssize_t count = 0, u = 0;
    for (Py_ssize_t j = 1; j + 1 < n; j++) {
        if (!(G[j] < M[j] * -back_step) || G[j - 1] < M[j - 1] * -back_step) continue;
        Py_ssize_t c = j + 1;
        while (u + 1 < units && start[u + 1] <= c) u++;
        if (alpha[c] && c - start[u] >= 2 && fabs(A[c - 1]) <= line_baseline * M[c - 1]) tested[count++] = c;
    }
    return count;
}

/* Does lines.line_order leave the page of units start[0..units) of the
 * stream S[0..n) as it is (None), the frame being upright_frame's tuple
 * `frame`: fewer than two placed units (set in the page's direction, some
 * glyph inked), or placed_lines' lines one unit each with no rule after it
 * to apply and line_blanks finding no unit of blanks on a line? 1 where it
 * does, 0 where the rules are to decide (line_blanks declines too), -1 with
 * an exception set. `lp`: placed_lines' thresholds, the heights in body
 * heights (mark_height, justified_space, row_overlap); ends: per unit, where
 * it ends. */
static int lines_apart_of(const GlyphColumns *g, const int64_t *S, Py_ssize_t n, const int64_t *start, const int64_t *ends,
                          Py_ssize_t units, const unsigned char *space, PyObject *frame, const LineParams *lp) {
    const double *X0 = (const double *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(frame, 3));
    const double *X1 = (const double *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(frame, 4));
    const double *Y0 = (const double *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(frame, 5));
    const double *Y1 = (const double *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(frame, 6));
    const int64_t *inked = (const int64_t *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(frame, 7));
    const unsigned char *aligned = (const unsigned char *)PyByteArray_AS_STRING(PyTuple_GET_ITEM(frame, 8));
    double body = PyFloat_AS_DOUBLE(PyTuple_GET_ITEM(frame, 11));
    body = body != 0.0 ? body : 1.0;  /* Page.body: the frame's, or 1.0 */
    LineParams p = *lp;
    p.mark_height = lp->mark_height * body;
    p.justified_space = lp->justified_space * body;
    p.row_overlap = lp->row_overlap * body;
    size_t u1 = (size_t)(units ? units : 1);
    int64_t *ids = malloc(3 * u1 * sizeof(int64_t));
    double *offset = malloc(2 * u1 * sizeof(double));
    Placed r = {0};
    int apart = -1;
    if (!ids || !offset) { PyErr_NoMemory(); goto done; }
    Py_ssize_t m = 0;
    for (Py_ssize_t u = 0; u < units; u++)
        if (aligned[u] && inked[u] > 0) ids[m++] = u;
    if (m < 2) { apart = 1; goto done; }
    if (placed_lines_of(X0, X1, Y0, Y1, units, ids, m, space, ends, inked, &p, &r) < 0) goto done;
    apart = 0;
    if (r.rules || r.line[m - 1] != m - 1) goto done;
    for (Py_ssize_t k = 0; k < m; k++) offset[k] = (double)r.row[k] * r.span;
    const BlankPage bp = {g->O, g->E, g->H, X0, X1, Y0, Y1, offset, S, start, inked, r.ids, r.line, aligned, n, units, m,
                          p.descent, p.line_baseline, p.join_gap};
    Py_ssize_t found = blanks_found(&bp, ids + u1, ids + 2 * u1, offset + u1);
    apart = found == -1 ? -1 : found == 0;
done:
    placed_free(&r);
    free(ids); free(offset);
    return apart;
}

static PyObject *layout_stream_units(PyObject *mod, PyObject *args) {
    PyObject *objs[5], *t_obj;
    double ratio, same_direction, cuts[3], back_step, upright, skewed, max_value;
    LineParams lp;
    long long number_glyphs;
    if (!PyArg_ParseTuple(args, "OOOOOO(ddddddddddd)(ddddddL)", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &t_obj,
                          &ratio, &same_direction, &cuts[0], &cuts[1], &cuts[2], &back_step, &lp.line_baseline, &upright,
                          &lp.descent, &skewed, &max_value, &lp.mark_height, &lp.join_gap, &lp.justified_space,
                          &lp.number_gap, &lp.piece_share, &lp.row_overlap, &number_glyphs))
        return NULL;
    lp.number_glyphs = (int64_t)number_glyphs;
    const double line_baseline = lp.line_baseline, descent = lp.descent;
    View v[5], vt = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL, *col[6] = {NULL}, *frame = NULL, *backwards = NULL;
    int64_t *starts = NULL, *ends = NULL, *tested = NULL;
    double *centre = NULL;
    unsigned char *aligned = NULL;
    Py_ssize_t rows, n = get_stream_columns((PyObject *const *)objs, v, &rows);
    if (n < 0 || get_view(t_obj, &vt, "O", (Py_ssize_t)sizeof(PyObject *), "texts") < 0) goto done;
    if (vt.view.len / (Py_ssize_t)sizeof(PyObject *) != rows) {
        PyErr_SetString(PyExc_ValueError, "texts and glyph columns differ in length");
        goto done;
    }
    const Py_ssize_t pairs = n ? n - 1 : 0, sizes[6] = {n, 8 * pairs, 8 * pairs, 8 * pairs, n, n};
    for (int c = 0; c < 6; c++)
        if (!(col[c] = PyByteArray_FromStringAndSize(NULL, sizes[c]))) goto done;
    char *LB = PyByteArray_AS_STRING(col[0]), *alpha = PyByteArray_AS_STRING(col[4]), *space = PyByteArray_AS_STRING(col[5]);
    double *A = (double *)PyByteArray_AS_STRING(col[1]), *G = (double *)PyByteArray_AS_STRING(col[2]);
    double *M = (double *)PyByteArray_AS_STRING(col[3]);
    const GlyphColumns g = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    const int64_t *S = v[4].view.buf;
    PyObject *const *items = (PyObject *const *)vt.view.buf;
    if (n) LB[0] = 0;
    for (Py_ssize_t k = 0; k < pairs; k++) pair_move(&g, S[k], S[k + 1], ratio, same_direction, &LB[k + 1], &A[k], &G[k], &M[k]);
    for (Py_ssize_t k = 0; k < n; k++)
        if (text_class(items[S[k]], &alpha[k], &space[k]) < 0) goto done;
    starts = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    ends = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    tested = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    centre = malloc((size_t)(n ? n : 1) * sizeof(double));
    aligned = malloc((size_t)(n ? n : 1));
    if (!starts || !ends || !tested || !centre || !aligned) { PyErr_NoMemory(); goto done; }
    const unsigned char *blank = (const unsigned char *)space;
    Py_ssize_t units = unit_starts_of(&g, S, n, (const unsigned char *)LB, G, blank, cuts, starts);
    Py_ssize_t count = painted_back_of(A, G, M, alpha, n, starts, units, back_step, line_baseline, tested);
    int framed = count == 0, apart = 0;
    for (Py_ssize_t r = 0; r < rows && framed; r++) framed = g.D[2 * r] > upright;
    if (framed) {
        const double frame_rules[4] = {descent, skewed, same_direction, max_value};
        BackwardPrep bp = {centre, aligned, NULL, 0.0, 0};
        if (!(frame = upright_frame_of(&g, S, n, starts, units, blank, frame_rules, &bp))) goto done;
        for (Py_ssize_t u = 0; u < units; u++) ends[u] = u + 1 < units ? starts[u + 1] : n;
        if (!(backwards = upright_backward_from(&g, S, n, starts, ends, units, back_step, same_direction, &bp))) goto done;
        /* No unit painted backwards: lines.glyphs_along leaves the page as it is, and line_order reads it next. */
        int forwards = frame != Py_None && backwards != Py_None;
        for (Py_ssize_t u = 0; u < units && forwards; u++) forwards = !PyByteArray_AS_STRING(backwards)[u];
        if (forwards && (apart = lines_apart_of(&g, S, n, starts, ends, units, blank, frame, &lp)) < 0) goto done;
    } else {
        frame = Py_NewRef(Py_None);
        backwards = Py_NewRef(Py_None);
    }
    result = stream_units_result(col, starts, units, tested, count, frame, backwards, apart);
done:
    for (int c = 0; c < 6; c++) Py_XDECREF(col[c]);
    Py_XDECREF(frame); Py_XDECREF(backwards);
    free(starts); free(ends); free(tested); free(centre); free(aligned);
    for (int c = 0; c < 5; c++) release(&v[c]);
    release(&vt);
    return result;
}

/* leaves kernels */

/* flush_visits' groups of the runs (ids in run order, `lengths` per run; the
 * edges sign * edge[u], the sign 1 or -1: exact) into ends (one per run at
 * most): their count. */
static Py_ssize_t flush_groups(const double *edge, double sign, const int64_t *ids, const int64_t *lengths, Py_ssize_t runs,
                               double slack, int64_t *ends) {
    Py_ssize_t groups = 0;
    double low = 0.0, high = 0.0;
    for (Py_ssize_t r = 0, k = 0; r < runs; r++) {
        Py_ssize_t end = k + (Py_ssize_t)lengths[r];
        double a = sign * edge[ids[k]], b = a;
        for (k++; k < end; k++) { a = np_min(a, sign * edge[ids[k]]); b = np_max(b, sign * edge[ids[k]]); }
        if (r > 0) {
            double lo = np_min(low, a), hi = np_max(high, b);
            if (hi - lo <= slack) { low = lo; high = hi; ends[groups - 1] = r + 1; continue; }
        }
        low = a; high = b;
        ends[groups++] = r + 1;
    }
    return groups;
}

/* ---- flush_visits(edge, ids, lengths, slack) -> ends
 * kernels.flush_visits (leaves._flush_right_visits): runs of units (ids in
 * run order, `lengths` per run) joined while the edges `edge` of the group
 * so far and of the next run span at most `slack` (np.ptp of their
 * concatenation: the group's running min and max, NaN propagating, so a
 * NaN edge joins nothing and nothing joins it); the end of each group, in
 * runs. */
static PyObject *layout_flush_visits(PyObject *mod, PyObject *args) {
    PyObject *e_obj, *ids_obj, *len_obj;
    double slack;
    if (!PyArg_ParseTuple(args, "OOOd", &e_obj, &ids_obj, &len_obj, &slack)) return NULL;
    View ve = {0}, vi = {0}, vl = {0};
    PyObject *result = NULL;
    int64_t *ends = NULL;
    if (get_view(e_obj, &ve, "d", 8, "edge") < 0 || get_view(ids_obj, &vi, "l", 8, "ids") < 0 ||
        get_view(len_obj, &vl, "l", 8, "lengths") < 0)
        goto done;
    Py_ssize_t size = ve.view.len / 8, n = vi.view.len / 8, runs = vl.view.len / 8;
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    if (check_ids(ids, n, size, "ids") < 0 || check_lengths(lengths, runs, n) < 0) goto done;
    ends = malloc((runs ? (size_t)runs : 1) * sizeof(int64_t));
    if (!ends) { PyErr_NoMemory(); goto done; }
    result = int64_bytes(ends, flush_groups(ve.view.buf, 1.0, ids, lengths, runs, slack, ends));
done:
    free(ends);
    release(&ve); release(&vi); release(&vl);
    return result;
}

/* ---- pass_cuts(x0, x1, y0, y1, ids, descent, same_row, line_step, run_gap, pass_edge, rtl) -> positions
 * kernels.pass_cuts (leaves._passes_in_turn): the positions k of `ids`
 * (lines in stream order) where the stream's pass down the leaf ends
 * before line k: it goes back up (the baseline at or above the last one's
 * plus `line_step`), across to a line beside the last one off its row
 * (baselines more than `same_row` apart, no overlap along the line), or
 * down across more than `run_gap` of whitespace to a line whose edge (x0,
 * x1 on an `rtl` page) lies more than `pass_edge` from the last one's. */
/* pass_cuts' positions of the lines ids[0..n) into cuts (n at most): their count. */
static Py_ssize_t pass_cuts_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                               Py_ssize_t n, double descent, double same_row, double line_step, double run_gap,
                               double pass_edge, int rtl, int64_t *cuts) {
    const double *edge = rtl ? X1 : X0;
    Py_ssize_t n_cuts = 0;
    for (Py_ssize_t k = 1; k < n; k++) {
        int64_t a = ids[k - 1], b = ids[k];
        double base_a = unit_baseline(Y0, Y1, a, descent), base_b = unit_baseline(Y0, Y1, b, descent);
        int off_row = fabs(base_b - base_a) > same_row;
        int beside = np_min(X1[a], X1[b]) <= np_max(X0[a], X0[b]) && off_row;
        int jump = Y0[a] - Y1[b] > run_gap && fabs(edge[a] - edge[b]) > pass_edge;
        if (base_b >= base_a + line_step || beside || jump) cuts[n_cuts++] = k;
    }
    return n_cuts;
}

static PyObject *layout_pass_cuts(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *ids_obj;
    double descent, same_row, line_step, run_gap, pass_edge;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOdddddp", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &ids_obj, &descent, &same_row,
                          &line_step, &run_gap, &pass_edge, &rtl))
        return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    PyObject *result = NULL;
    int64_t *cuts = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_unit_boxes(objs, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    cuts = malloc((n ? n : 1) * sizeof(int64_t));
    if (!cuts) { PyErr_NoMemory(); goto done; }
    Py_ssize_t n_cuts = pass_cuts_of(X0, X1, Y0, Y1, vi.view.buf, n, descent, same_row, line_step, run_gap, pass_edge, rtl, cuts);
    result = int64_bytes(cuts, n_cuts);
done:
    free(cuts);
    release_boxes(vbox); release(&vi);
    return result;
}

/* components' union-find: the roots of nodes a and b (paths halved on the
 * way), b's root hung under a's. */
static void union_roots(int64_t *parent, int64_t a, int64_t b) {
    while (parent[a] != a) { parent[a] = parent[parent[a]]; a = parent[a]; }
    while (parent[b] != b) { parent[b] = parent[parent[b]]; b = parent[b]; }
    if (a != b) parent[b] = a;
}

/* components' labels: each node's root, then per root its smallest node (the
 * first met counting up), into parent[]; least[] is a work buffer of n. */
static void label_components(int64_t *parent, int64_t *least, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t r = k;
        while (parent[r] != r) r = parent[r];
        parent[k] = r;
        least[k] = -1;
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (least[parent[k]] < 0) least[parent[k]] = k;
    for (Py_ssize_t k = 0; k < n; k++) parent[k] = least[parent[k]];
}

/* ---- components(n, src, dst) -> labels
 * kernels.components (leaves._merge_grids): the nodes 0..n-1 joined along
 * every edge src[k] - dst[k] (union-find); per node, the smallest node of
 * its component. */
static PyObject *layout_components(PyObject *mod, PyObject *args) {
    Py_ssize_t n;
    PyObject *s_obj, *d_obj;
    if (!PyArg_ParseTuple(args, "nOO", &n, &s_obj, &d_obj)) return NULL;
    View vs = {0}, vd = {0};
    PyObject *result = NULL;
    int64_t *parent = NULL, *least = NULL;
    if (n < 0) { PyErr_SetString(PyExc_ValueError, "negative node count"); return NULL; }
    /* n * 8 bytes must not wrap (n = 2**62 made room for nothing and wrote n items). */
    if ((size_t)n > PY_SSIZE_T_MAX / sizeof(int64_t)) return PyErr_NoMemory();
    if (get_view(s_obj, &vs, "l", 8, "src") < 0 || get_view(d_obj, &vd, "l", 8, "dst") < 0) goto done;
    Py_ssize_t edges = vs.view.len / 8;
    if (vd.view.len / 8 != edges) { PyErr_SetString(PyExc_ValueError, "src and dst differ in length"); goto done; }
    const int64_t *src = vs.view.buf, *dst = vd.view.buf;
    if (check_ids(src, edges, n, "src") < 0 || check_ids(dst, edges, n, "dst") < 0) goto done;
    parent = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
    least = malloc((n ? (size_t)n : 1) * sizeof(int64_t));
    if (!parent || !least) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < n; k++) parent[k] = k;
    for (Py_ssize_t e = 0; e < edges; e++) union_roots(parent, src[e], dst[e]);
    label_components(parent, least, n);
    result = int64_bytes(parent, n);
done:
    free(parent); free(least);
    release(&vs); release(&vd);
    return result;
}

/* ==== end of leaves kernels ==== */

/* ==== lpage: fused leaf rules (leaves.py's rule families in one pass each) ==== */

/* The box of each run of the lines `ids` (runs of `lengths` lines,
 * concatenated; run_boxes: np.minimum / np.maximum over its lines) into
 * `box` (4 x runs doubles: the x0, y0, x1 and y1 rows), and per line its run
 * into `owner` (NULL: not asked). */
static void unit_run_boxes(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                           const int64_t *lengths, Py_ssize_t runs, double *box, int64_t *owner) {
    for (Py_ssize_t r = 0, k = 0; r < runs; r++) {
        double a = X0[ids[k]], b = Y0[ids[k]], c = X1[ids[k]], d = Y1[ids[k]];
        Py_ssize_t end = k + (Py_ssize_t)lengths[r];
        for (; k < end; k++) {
            if (owner) owner[k] = r;
            a = np_min(a, X0[ids[k]]); b = np_min(b, Y0[ids[k]]);
            c = np_max(c, X1[ids[k]]); d = np_max(d, Y1[ids[k]]);
        }
        box[r] = a; box[runs + r] = b; box[2 * runs + r] = c; box[3 * runs + r] = d;
    }
}

/* A growable int64 buffer of (i, j, shared) triples. */
typedef struct { int64_t *items; Py_ssize_t len, cap; } Triples;

static int triples_push(Triples *t, int64_t i, int64_t j, int64_t shared) {
    if (t->len + 3 > t->cap) {
        Py_ssize_t cap = t->cap ? t->cap : 48;
        while (cap < t->len + 3) {
            if (cap > PY_SSIZE_T_MAX / 2 / (Py_ssize_t)sizeof(int64_t)) { PyErr_NoMemory(); return -1; }
            cap *= 2;
        }
        int64_t *grown = realloc(t->items, (size_t)cap * sizeof(int64_t));
        if (!grown) { PyErr_NoMemory(); return -1; }
        t->items = grown;
        t->cap = cap;
    }
    t->items[t->len++] = i; t->items[t->len++] = j; t->items[t->len++] = shared;
    return 0;
}

/* How many lines of run `s` met run `o` (shared_keys' count of key s * runs
 * + o; 0 where none did): a binary search of the sorted keys. */
static int64_t shared_count(const int64_t *keys, const int64_t *counts, Py_ssize_t distinct, int64_t key) {
    Py_ssize_t lo = 0, hi = distinct;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (keys[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo < distinct && keys[lo] == key ? counts[lo] : 0;
}

/* grid_links' pairs of runs (boxes X0, X1 per run, `narrow_run` flags):
 * (i, j, shared) for each pair i < j, row-major, both narrow, apart within
 * tol, more than half the shorter's lines on the other's baselines. */
static int grid_link_pairs(const double *X0, const double *X1, const char *narrow_run, const int64_t *lengths,
                           Py_ssize_t runs, double tol, const int64_t *keys, const int64_t *counts,
                           Py_ssize_t distinct, Triples *out) {
    for (Py_ssize_t i = 0; i < runs; i++) {
        if (!narrow_run[i]) continue;
        for (Py_ssize_t j = i + 1; j < runs; j++) {
            if (!narrow_run[j] || !((X1[i] <= X0[j] + tol) | (X1[j] <= X0[i] + tol))) continue;
            int64_t s = lengths[i] <= lengths[j] ? i : j, o = s == i ? j : i;
            int64_t shared = shared_count(keys, counts, distinct, s * (int64_t)runs + o);
            if (shared * 2 > lengths[s] && triples_push(out, i, j, shared) < 0) return -1;
        }
    }
    return 0;
}

/* ---- grid_links(x0, x1, y0, y1, ids, lengths, descent, same_row, narrow, tol) -> (boxes, links)
 * kernels.grid_links (leaves._merge_grids): the box of each run of the
 * lines `ids` (runs of `lengths` lines, concatenated; run_boxes' x0, y0,
 * x1, y1 rows of doubles), and, flat int64 (i, j, shared), the pairs i < j
 * in row-major order of runs both narrower than `narrow` (x1 - x0), apart
 * along the line (run_pairs' apart, within tol), where more than half of
 * the shorter run's lines (run i where they tie) lie within `same_row` of
 * a baseline of the other (shared_baselines' count). The baselines are
 * counted only where two narrow runs lie apart. */
/* grid_links' run boxes (into box, 4 x runs: x0, y0, x1, y1 rows) and links (into *links) of the runs of the
 * lines ids[0..n) cut by `lengths`: 0, or -1 with an exception set. */
static int grid_links_of(const double *X0, const double *X1, const double *Y0, const double *Y1, const int64_t *ids,
                         const int64_t *lengths, Py_ssize_t runs, Py_ssize_t n, double descent, double same_row, double narrow,
                         double tol, double *box, Triples *links) {
    int ok = -1;
    int64_t *owner = malloc((n ? (size_t)n : 1) * sizeof(int64_t)), *keys = NULL, *counts = NULL;
    char *narrow_run = malloc(runs ? (size_t)runs : 1);
    if (!owner || !narrow_run) { PyErr_NoMemory(); goto done; }
    const double *bx0 = box, *bx1 = box + 2 * runs;
    unit_run_boxes(X0, X1, Y0, Y1, ids, lengths, runs, box, owner);
    Py_ssize_t narrow_runs = 0;
    for (Py_ssize_t r = 0; r < runs; r++) narrow_runs += narrow_run[r] = bx1[r] - bx0[r] < narrow;
    if (narrow_runs >= 2) {
        Py_ssize_t distinct = shared_keys(Y0, Y1, ids, owner, n, runs, descent, same_row, &keys, &counts);
        if (distinct < 0 || grid_link_pairs(bx0, bx1, narrow_run, lengths, runs, tol, keys, counts, distinct, links) < 0)
            goto done;
    }
    ok = 0;
done:
    free(owner); free(keys); free(counts); free(narrow_run);
    return ok;
}

static PyObject *layout_grid_links(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    double descent, same_row, narrow, tol;
    if (!PyArg_ParseTuple(args, "OOOOOOdddd", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &descent,
                          &same_row, &narrow, &tol))
        return NULL;
    View v[4], vi = {0}, vl = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    double *box = NULL;
    Triples links = {NULL, 0, 0};
    Py_ssize_t runs = 0, n = get_unit_runs(obj, v, ids_obj, &vi, len_obj, &vl, &runs);
    if (n < 0) goto done;
    box = malloc(4 * (runs ? (size_t)runs : 1) * sizeof(double));
    if (!box) { PyErr_NoMemory(); goto done; }
    if (grid_links_of(v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf, vi.view.buf, vl.view.buf, runs, n, descent,
                      same_row, narrow, tol, box, &links) < 0)
        goto done;
    result = Py_BuildValue("(NN)", PyByteArray_FromStringAndSize((const char *)box, 4 * runs * (Py_ssize_t)sizeof(double)),
                           int64_bytes(links.items, links.len));
done:
    free(box); free(links.items);
    release_boxes(v); release(&vi); release(&vl);
    return result;
}

/* Is the pair i < j of runs (boxes Y0, X1, Y1; get_run_terms' top = y1 -
 * stacked, start = x0 + tol and `line_start`, the edge lines start from) of
 * one grid column (grid_groups): one above the other, not apart, and both
 * members or one a member and the other stacked tight at a cell's leading
 * on its edge? */
static int grid_column_pair(const double *line_start, const double *Y0, const double *X1, const double *Y1,
                            const double *top, const double *start, const char *member, Py_ssize_t i, Py_ssize_t j,
                            double leading, double edge) {
    int above = (Y0[i] >= top[j]) | (Y0[j] >= top[i]);
    int apart = (X1[i] <= start[j]) | (X1[j] <= start[i]);
    if (!above || apart || !(member[i] | member[j])) return 0;
    if (member[i] & member[j]) return 1;
    int tight = (fabs(Y0[i] - Y1[j]) <= leading) | (fabs(Y0[j] - Y1[i]) <= leading);
    return tight & (fabs(line_start[i] - line_start[j]) <= edge);
}

/* ---- grid_groups(x0, y0, x1, y1, member, src, dst, stacked, tol, leading, edge, rtl) -> labels
 * kernels.grid_groups (leaves._merge_grids): the runs (their boxes, one per
 * run) joined along the links src[k] - dst[k] and along every pair one
 * above the other (run_pairs' above either way, within `stacked`), not
 * apart (within tol), of one grid column (two `member`s, or a member and
 * a run stacked at most `leading` from it, the edges its lines start from
 * within `edge`: left edges, right ones on an `rtl` page); per run, the
 * smallest run of its component (components). */
static PyObject *layout_grid_groups(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *m_obj, *s_obj, *d_obj;
    double stacked, tol, leading, edge;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOOOddddp", &obj[0], &obj[1], &obj[2], &obj[3], &m_obj, &s_obj, &d_obj, &stacked,
                          &tol, &leading, &edge, &rtl))
        return NULL;
    View v[4], vm = {0}, vs = {0}, vd = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    double *terms = NULL;
    int64_t *parent = NULL, *least = NULL;
    Py_ssize_t n = get_run_terms(obj, v, stacked, tol, rtl, &terms);
    if (n < 0 || get_view(m_obj, &vm, "?", 1, "member") < 0 || get_view(s_obj, &vs, "l", 8, "src") < 0 ||
        get_view(d_obj, &vd, "l", 8, "dst") < 0)
        goto done;
    Py_ssize_t links = vs.view.len / 8;
    if (vm.view.len != n || vd.view.len / 8 != links) { PyErr_SetString(PyExc_ValueError, "grid columns differ in length"); goto done; }
    const int64_t *src = vs.view.buf, *dst = vd.view.buf;
    if (check_ids(src, links, n, "src") < 0 || check_ids(dst, links, n, "dst") < 0) goto done;
    size_t cap = n ? (size_t)n : 1;
    parent = malloc(cap * sizeof(int64_t));
    least = malloc(cap * sizeof(int64_t));
    if (!parent || !least) { PyErr_NoMemory(); goto done; }
    const double *Y0 = v[1].view.buf, *X1 = v[2].view.buf, *Y1 = v[3].view.buf;
    const double *top = terms, *start = terms + cap, *line_start = terms + 2 * cap;
    const char *member = vm.view.buf;
    for (Py_ssize_t k = 0; k < n; k++) parent[k] = k;
    for (Py_ssize_t e = 0; e < links; e++) union_roots(parent, src[e], dst[e]);
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = i + 1; j < n; j++)
            if (grid_column_pair(line_start, Y0, X1, Y1, top, start, member, i, j, leading, edge)) union_roots(parent, i, j);
    label_components(parent, least, n);
    result = int64_bytes(parent, n);
done:
    free(terms); free(parent); free(least);
    for (int c = 0; c < 4; c++) release(&v[c]);
    release(&vm); release(&vs); release(&vd);
    return result;
}

/* Is run a nested over run b (hole_count): a above b (within top's
 * stacked), not apart (within start's tol), the narrower within the wider
 * along the line (their overlap at least the narrower's width less tol)? */
static inline int nested_over(const double *X0, const double *Y0, const double *X1, const double *top,
                              const double *start, Py_ssize_t a, Py_ssize_t b, double tol) {
    if (!(Y0[a] >= top[b]) || (X1[a] <= start[b]) | (X1[b] <= start[a])) return 0;
    double inner = np_min(X1[a], X1[b]) - np_max(X0[a], X0[b]);
    return inner >= np_min(X1[a] - X0[a], X1[b] - X0[b]) - tol;
}

/* kernels.hole_count: 0 where fewer than `filled_holes` runs are painted
 * after a run under them (the lowest y1 so far at most y0 + stacked), else
 * how many runs i have a run nested over them painted before the last run
 * nested under them painted before i. */
static Py_ssize_t hole_count(Py_ssize_t n, const double *X0, const double *Y0, const double *X1, const double *Y1,
                             const double *top, const double *start, double stacked, double tol, Py_ssize_t filled_holes) {
    Py_ssize_t after_under = 0, holes = 0;
    double lowest = n ? Y1[0] : 0.0;
    for (Py_ssize_t k = 1; k < n; k++) {
        if (k > 1) lowest = np_min(lowest, Y1[k - 1]);
        after_under += lowest <= Y0[k] + stacked;
    }
    if (after_under < filled_holes) return 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t first_over = n, last_under = -1;
        for (Py_ssize_t j = 0; j < i; j++) {
            if (first_over == n && nested_over(X0, Y0, X1, top, start, j, i, tol)) first_over = j;
            if (nested_over(X0, Y0, X1, top, start, i, j, tol)) last_under = j;
        }
        holes += first_over < last_under;
    }
    return holes;
}

/* ---- leaf_stacking(x0, x1, y0, y1, ids, lengths, stacked, tol, rtl, filled_holes)
 *      -> (boxes, pairs, upward, runs_up, top, bottom, holes)
 * kernels.leaf_stacking (leaves._stacked_in_place): the box of each run of
 * the lines `ids` (runs of `lengths`, concatenated; run_boxes' rows), the
 * runs' run_stacking, and their hole_count. */
static PyObject *layout_leaf_stacking(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    double stacked, tol;
    int rtl;
    Py_ssize_t filled_holes;
    if (!PyArg_ParseTuple(args, "OOOOOOddpn", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &stacked, &tol,
                          &rtl, &filled_holes))
        return NULL;
    View v[4], vi = {0}, vl = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    double *box = NULL;
    int64_t *ints = NULL;
    Py_ssize_t runs = 0, n = get_unit_runs(obj, v, ids_obj, &vi, len_obj, &vl, &runs);
    if (n < 0) goto done;
    size_t cap = runs ? (size_t)runs : 1;
    box = malloc(7 * cap * sizeof(double));
    ints = calloc(3 * cap, sizeof(int64_t));
    if (!box || !ints) { PyErr_NoMemory(); goto done; }
    unit_run_boxes(v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf, vi.view.buf, vl.view.buf, runs, box, NULL);
    const double *bx0 = box, *by0 = box + runs, *bx1 = box + 2 * runs, *by1 = box + 3 * runs;
    double *top = box + 4 * cap, *start = top + cap, *edge = start + cap;
    run_terms(bx0, bx1, by1, runs, stacked, tol, rtl, top, start, edge);
    Stacking s;
    if (stacking_counts(runs, by0, bx1, top, start, edge, tol, ints, ints + cap, ints + 2 * cap, &s) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t holes = hole_count(runs, bx0, by0, bx1, by1, top, start, stacked, tol, filled_holes);
    result = Py_BuildValue("(NnnnNNn)", PyByteArray_FromStringAndSize((const char *)box, 4 * runs * (Py_ssize_t)sizeof(double)),
                           s.pairs, s.upward, s.runs_up, int64_bytes(ints + cap, s.tops), int64_bytes(ints + 2 * cap, s.bottoms), holes);
done:
    free(box); free(ints);
    release_boxes(v); release(&vi); release(&vl);
    return result;
}

/* ==== end of lpage's fused leaf rules ==== */

/* region kernels */

typedef struct { int64_t *sorted, *starts, *order, *tmp; double *key, *extent; int64_t *glyphs; } GroupWork;
typedef struct { double width; Py_ssize_t rows; RowStats stats; Py_ssize_t letters, inked, long_rows; } GroupStats;

/* The columns a group's measures read (kernels.group_measures, column_verdicts):
 * the unit boxes of `ids`, each unit's inked count and glyph span, and the
 * glyphs' letter and space flags, checked to agree in length; the unit count
 * (one at least), or -1 with an exception set. Release with release_group. */
typedef struct { View box[4], inked, start, end, alpha, space, ids; Py_ssize_t glyphs; } GroupViews;

static void release_group(GroupViews *v) {
    release_boxes(v->box); release(&v->inked); release(&v->start); release(&v->end); release(&v->alpha);
    release(&v->space); release(&v->ids);
}

/* The page's columns of get_group (no ids): the unit count, or -1 with an
 * exception set. Release with release_group. */
static Py_ssize_t get_group_columns(PyObject *const box[4], PyObject *inked, PyObject *start, PyObject *end, PyObject *alpha,
                                    PyObject *space, GroupViews *v) {
    memset(v, 0, sizeof *v);
    Py_ssize_t size = get_boxes(box, v->box);
    if (size < 0 || get_view(inked, &v->inked, "l", 8, "inked") < 0 || get_view(start, &v->start, "l", 8, "start") < 0 ||
        get_view(end, &v->end, "l", 8, "end") < 0 || get_view(alpha, &v->alpha, "?", 1, "alpha") < 0 ||
        get_view(space, &v->space, "?", 1, "space") < 0)
        return -1;
    v->glyphs = v->alpha.view.len;
    if (v->inked.view.len / 8 != size || v->start.view.len / 8 != size || v->end.view.len / 8 != size ||
        v->space.view.len != v->glyphs) {
        PyErr_SetString(PyExc_ValueError, "columns differ in length");
        return -1;
    }
    return size;
}

static Py_ssize_t get_group(PyObject *const box[4], PyObject *inked, PyObject *start, PyObject *end, PyObject *alpha,
                            PyObject *space, PyObject *ids, GroupViews *v) {
    Py_ssize_t size = get_group_columns(box, inked, start, end, alpha, space, v);
    if (size < 0 || get_view(ids, &v->ids, "l", 8, "ids") < 0) return -1;
    Py_ssize_t n = v->ids.view.len / 8;
    if (check_ids(v->ids.view.buf, n, size, "ids") < 0) return -1;
    if (n < 1) { PyErr_SetString(PyExc_ValueError, "no units"); return -1; }
    return n;
}

/* group_measures' body, of units ids[0..n) (n >= 1, checked): its width, its
 * rows (into w.sorted and w.starts), row_stats of them, letters of the sample
 * and its long rows; -1 with an exception set where a unit's glyphs lie out
 * of range. `w` holds work buffers of n (starts n + 1). */
static int group_stats(View vbox[4], const int64_t *inked, const int64_t *start, const int64_t *end, Py_ssize_t glyph_count,
                       const unsigned char *alpha, const unsigned char *space, const int64_t *ids, Py_ssize_t n, double tol,
                       double fill, Py_ssize_t sample, GroupWork w, GroupStats *g) {
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    /* x1[ids].max() - x0[ids].min(): NaN propagates, as in numpy's reductions. */
    double high = X1[ids[0]], low = X0[ids[0]];
    for (Py_ssize_t k = 1; k < n; k++) { high = np_max(high, X1[ids[k]]); low = np_min(low, X0[ids[k]]); }
    g->width = high - low;
    g->rows = sort_rows(Y0, Y1, ids, n, tol, w.sorted, w.starts, w.order, w.tmp, w.key);
    g->stats = row_stats(X0, X1, inked, w.sorted, n, w.starts, g->rows, w.extent, w.glyphs);
    if (sample_letters(start, end, glyph_count, w.sorted, n, alpha, space, sample, &g->letters, &g->inked) < 0) return -1;
    double reach = fill * g->width;
    g->long_rows = 0;
    for (Py_ssize_t r = 0; r < g->rows; r++) {
        Py_ssize_t stop = r + 1 < g->rows ? (Py_ssize_t)w.starts[r + 1] : n;
        for (Py_ssize_t k = (Py_ssize_t)w.starts[r]; k < stop; k++)
            if (X1[w.sorted[k]] - X0[w.sorted[k]] >= reach) { g->long_rows++; break; }
    }
    return 0;
}

/* ---- group_measures(x0, x1, y0, y1, inked, start, end, alpha, space, ids, tol, fill, sample)
 *      -> (width, ids top to bottom, row starts, extent, side by side, glyphs, letters, inked, long rows)
 * kernels.group_measures (regions.is_text_column and regions.holds_prose):
 * of the units `ids` (one at least), the width (the largest x1 less the
 * least x0), their rows (rows within tol), row_measures of those rows,
 * letter_counts of the units in row order, and how many rows hold a unit
 * as long as fill x the width. One call where the two tests made five. */
static PyObject *layout_group_measures(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *y0_obj, *y1_obj, *inked_obj, *start_obj, *end_obj, *alpha_obj, *space_obj, *ids_obj;
    double tol, fill;
    Py_ssize_t sample;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOddn", &x0_obj, &x1_obj, &y0_obj, &y1_obj, &inked_obj, &start_obj, &end_obj,
                          &alpha_obj, &space_obj, &ids_obj, &tol, &fill, &sample))
        return NULL;
    GroupViews v;
    PyObject *result = NULL;
    int64_t *order = NULL, *tmp = NULL, *sorted = NULL, *starts = NULL, *glyphs = NULL;
    double *key = NULL, *extent = NULL;
    PyObject *const objs[4] = {x0_obj, x1_obj, y0_obj, y1_obj};
    Py_ssize_t n = get_group(objs, inked_obj, start_obj, end_obj, alpha_obj, space_obj, ids_obj, &v);
    if (n < 0) goto done;
    const int64_t *ids = v.ids.view.buf, *inked = v.inked.view.buf;
    order = malloc(n * sizeof(int64_t)); tmp = malloc(n * sizeof(int64_t)); sorted = malloc(n * sizeof(int64_t));
    starts = malloc((n + 1) * sizeof(int64_t)); glyphs = malloc(n * sizeof(int64_t));
    key = calloc(n, sizeof(double)); extent = malloc(n * sizeof(double));
    if (!order || !tmp || !sorted || !starts || !glyphs || !key || !extent) { PyErr_NoMemory(); goto done; }
    GroupStats g;
    if (group_stats(v.box, inked, v.start.view.buf, v.end.view.buf, v.glyphs, v.alpha.view.buf, v.space.view.buf, ids, n, tol,
                    fill, sample,
                    (GroupWork){sorted, starts, order, tmp, key, extent, glyphs}, &g) < 0)
        goto done;
    result = Py_BuildValue("(dNNdndnnn)", g.width, int64_bytes(sorted, n), int64_bytes(starts, g.rows), g.stats.extent,
                           g.stats.side_by_side, g.stats.glyphs, g.letters, g.inked, g.long_rows);
done:
    free(order); free(tmp); free(sorted); free(starts); free(glyphs); free(key); free(extent);
    release_group(&v);
    return result;
}

/* ---- gutter_cuts(x0, x1, ids, gutter) -> (ids by x0, cuts) -------------
 * kernels.gutter_cuts (cut.text_columns): the units `ids` sorted by x0
 * (stable, NaN last), and the positions in that order where a unit starts
 * a gutter or more right of the running largest x1 of those before it. */
/* gutter_cuts' body: ids[0..n) by x0 (stable, NaN last) into sorted, and
 * where a unit starts `gutter` or more right of the running largest x1 of
 * those before it into cuts; their count. order, tmp, key: work of n. */
static Py_ssize_t gutter_cuts_of(const double *X0, const double *X1, const int64_t *ids, Py_ssize_t n, double gutter,
                                 int64_t *sorted, int64_t *cuts, int64_t *order, int64_t *tmp, double *key) {
    for (Py_ssize_t k = 0; k < n; k++) key[k] = X0[ids[k]];
    stable_argsort(key, order, tmp, n);
    for (Py_ssize_t k = 0; k < n; k++) sorted[k] = ids[order[k]];
    Py_ssize_t n_cuts = 0;
    double reach = n ? X1[sorted[0]] : 0.0;
    for (Py_ssize_t k = 1; k < n; k++) {
        /* np.maximum.accumulate: NaN propagates. */
        if (X0[sorted[k]] - reach >= gutter) cuts[n_cuts++] = k;
        reach = np_max(reach, X1[sorted[k]]);
    }
    return n_cuts;
}

static PyObject *layout_gutter_cuts(PyObject *mod, PyObject *args) {
    PyObject *x0_obj, *x1_obj, *ids_obj;
    double gutter;
    if (!PyArg_ParseTuple(args, "OOOd", &x0_obj, &x1_obj, &ids_obj, &gutter)) return NULL;
    View v[2], vi = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *order = NULL, *tmp = NULL, *sorted = NULL, *cuts = NULL;
    double *key = NULL;
    PyObject *const objs[2] = {x0_obj, x1_obj};
    static const char *const names[2] = {"x0", "x1"};
    Py_ssize_t n = get_column_pair(objs, v, names, ids_obj, &vi);
    if (n < 0) goto done;
    Py_ssize_t cap = n ? n : 1;
    order = malloc(cap * sizeof(int64_t)); tmp = malloc(cap * sizeof(int64_t));
    sorted = malloc(cap * sizeof(int64_t)); cuts = malloc(cap * sizeof(int64_t));
    key = calloc(cap, sizeof(double));
    if (!order || !tmp || !sorted || !cuts || !key) { PyErr_NoMemory(); goto done; }
    Py_ssize_t n_cuts = gutter_cuts_of(v[0].view.buf, v[1].view.buf, vi.view.buf, n, gutter, sorted, cuts, order, tmp, key);
    result = Py_BuildValue("(NN)", int64_bytes(sorted, n), int64_bytes(cuts, n_cuts));
done:
    free(order); free(tmp); free(sorted); free(cuts); free(key);
    release(&v[0]); release(&v[1]); release(&vi);
    return result;
}

/* section_breaks' body: of the rows of ids[0..n) starting at S[0..rows)
 * (checked), the row starts `gap` or more under the lowest bottom so far,
 * into breaks (rows long); their count. */
static Py_ssize_t section_breaks_of(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, const int64_t *S,
                                    Py_ssize_t rows, double gap, int64_t *breaks) {
    Py_ssize_t n_breaks = 0, last = 0;  /* floor: the least y0 of ids[0..last] */
    double floor = n ? Y0[ids[0]] : 0.0;
    for (Py_ssize_t r = 1; r < rows; r++) {
        /* np.minimum.accumulate to the unit before the row: NaN propagates. */
        while (last < S[r] - 1) floor = np_min(floor, Y0[ids[++last]]);
        if (floor - Y1[ids[S[r]]] >= gap) breaks[n_breaks++] = S[r];
    }
    return n_breaks;
}

/* ---- section_breaks(y0, y1, ids, starts, gap) -> positions ---------------
 * kernels.section_breaks (regions.gap_bands): of the rows of `ids`
 * (top to bottom, rows starting at `starts`), the row starts under the
 * lowest bottom so far by `gap` or more. */
static PyObject *layout_section_breaks(PyObject *mod, PyObject *args) {
    PyObject *y0_obj, *y1_obj, *ids_obj, *starts_obj;
    double gap;
    if (!PyArg_ParseTuple(args, "OOOOd", &y0_obj, &y1_obj, &ids_obj, &starts_obj, &gap)) return NULL;
    View v[2], vi = {0}, vs = {0};
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *breaks = NULL;
    PyObject *const objs[2] = {y0_obj, y1_obj};
    static const char *const names[2] = {"y0", "y1"};
    Py_ssize_t n = get_column_pair(objs, v, names, ids_obj, &vi);
    if (n < 0 || get_view(starts_obj, &vs, "l", 8, "starts") < 0) goto done;
    Py_ssize_t rows = vs.view.len / 8;
    const double *Y0 = v[0].view.buf, *Y1 = v[1].view.buf;
    const int64_t *ids = vi.view.buf, *S = vs.view.buf;
    for (Py_ssize_t r = 0; r < rows; r++)
        if (S[r] < 0 || S[r] >= n || (r && S[r] <= S[r - 1])) { PyErr_SetString(PyExc_ValueError, "bad row starts"); goto done; }
    breaks = malloc((rows ? rows : 1) * sizeof(int64_t));
    if (!breaks) { PyErr_NoMemory(); goto done; }
    result = int64_bytes(breaks, section_breaks_of(Y0, Y1, ids, n, S, rows, gap, breaks));
done:
    free(breaks);
    release(&v[0]); release(&v[1]); release(&vi); release(&vs);
    return result;
}

/* end of region kernels */

/* ==== lpage: region verdicts (regions.is_text_column, regions.holds_prose) ==== */

/* Of a group measured by group_stats (n units), the code of column_verdicts:
 * regions._is_text_column's rules in its order, then regions._holds_prose's
 * (the reference: the why of each rule is there). The wrap test of a narrow
 * group is left to the caller (code 2): it measures words the page counts
 * only when asked. */
typedef struct { double narrow, column_width, split_rows, min_glyphs, letter_share; Py_ssize_t prose_lines; double prose_share; } ColumnLimits;

static unsigned char column_code(const GroupStats *g, Py_ssize_t n, double fill, const ColumnLimits *lim) {
    double letters = g->inked ? (double)g->letters / (double)g->inked : 0.0;
    int text = 1;
    if (n < 2 || g->width < lim->narrow || g->rows < 2) text = 0;
    else if (g->stats.extent < fill * g->width) text = 0;                               /* rows fill the width */
    else if ((double)g->stats.side_by_side > lim->split_rows * (double)g->rows) text = 0; /* no cells side by side */
    else if (g->stats.glyphs < lim->min_glyphs) text = 0;                               /* enough glyphs per row */
    else if (!(letters >= lim->letter_share)) text = 0;                                 /* mostly letters */
    else if (g->width < lim->column_width) text = 2;                                    /* narrow: if it wraps */
    int prose = n >= lim->prose_lines && !(g->width < lim->column_width) && g->long_rows >= lim->prose_lines &&
                (double)g->long_rows >= lim->prose_share * (double)g->rows && letters >= lim->letter_share;
    return (unsigned char)(text | prose << 2);
}

static Py_ssize_t run_view(PyObject *obj, Py_buffer *view);

/* Work buffers of group_stats for groups of up to *cap units, grown to n
 * where n is more: 0, or -1 with an exception set. */
static int grow_group_work(int64_t **ints, double **floats, Py_ssize_t *cap, Py_ssize_t n) {
    if (n <= *cap) return 0;
    size_t room = (size_t)n + 1;
    free(*ints); free(*floats);
    *ints = malloc(6 * room * sizeof(int64_t));
    *floats = calloc(2 * room, sizeof(double));
    if (!*ints || !*floats) { *cap = 0; PyErr_NoMemory(); return -1; }
    *cap = n;
    return 0;
}

/* The code of column_verdicts of the group held by `view` (n units, any
 * stride): its ids copied into the work buffers' first n, checked against
 * `size` units; the code, or -1 with an exception set. */
static int group_code(GroupViews *v, Py_ssize_t size, const Py_buffer *view, Py_ssize_t n, int64_t *ints, double *floats,
                      double tol, double fill, Py_ssize_t sample, const ColumnLimits *lim) {
    size_t cap = (size_t)n + 1;
    int64_t *ids = ints + 5 * cap;
    const char *buf = view->buf;
    for (Py_ssize_t k = 0; k < n; k++) memcpy(&ids[k], buf + k * view->strides[0], sizeof(int64_t));
    if (check_ids(ids, n, size, "ids") < 0) return -1;
    GroupWork w = {ints, ints + cap, ints + 2 * cap, ints + 3 * cap, floats, floats + n, ints + 4 * cap};
    GroupStats g;
    if (group_stats(v->box, v->inked.view.buf, v->start.view.buf, v->end.view.buf, v->glyphs, v->alpha.view.buf,
                    v->space.view.buf, ids, n, tol, fill, sample, w, &g) < 0)
        return -1;
    return column_code(&g, n, fill, lim);
}

/* ---- column_verdicts(x0, x1, y0, y1, inked, start, end, alpha, space, groups, (tol, fill, sample),
 *                      (narrow, column_width, split_rows, glyphs, letters, prose_lines, prose_share)) -> codes
 * kernels.column_verdicts: of each group of the list `groups` (1-d int64
 * arrays of one unit at least, any stride), group_measures' measures and
 * the verdicts the text-column and prose tests give on them, one byte
 * each: bits 0-1 is_text_column (0 no, 1 yes, 2 yes if the group's lines
 * wrap), bit 2 holds_prose. The cut judges a region's bands, a gutter's
 * groups and a column's parts together: one call, the page's columns
 * taken once, where each group took a call, two tests and a tuple of
 * measures. */
static PyObject *layout_column_verdicts(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *inked_obj, *start_obj, *end_obj, *alpha_obj, *space_obj, *groups_obj;
    double tol, fill;
    Py_ssize_t sample;
    ColumnLimits lim;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOO(ddn)(dddddnd)", &obj[0], &obj[1], &obj[2], &obj[3], &inked_obj, &start_obj,
                          &end_obj, &alpha_obj, &space_obj, &groups_obj, &tol, &fill, &sample, &lim.narrow, &lim.column_width,
                          &lim.split_rows, &lim.min_glyphs, &lim.letter_share, &lim.prose_lines, &lim.prose_share))
        return NULL;
    GroupViews v;
    PyObject *result = NULL, *seq = NULL;
    int64_t *ints = NULL;
    double *floats = NULL;
    Py_ssize_t cap = 0;
    Py_ssize_t size = get_group_columns(obj, inked_obj, start_obj, end_obj, alpha_obj, space_obj, &v);
    if (size < 0 || !(seq = PySequence_Fast(groups_obj, "groups: expected a sequence"))) goto done;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    unsigned char *codes = malloc(count ? (size_t)count : 1);
    if (!codes) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_buffer view;
        Py_ssize_t n = run_view(items[k], &view);
        if (n == -2) { PyErr_SetString(PyExc_TypeError, "groups: expected 1-d int64 arrays"); break; }
        int code = -1;
        if (n < 1) PyErr_SetString(PyExc_ValueError, "no units");
        else if (grow_group_work(&ints, &floats, &cap, n) == 0)
            code = group_code(&v, size, &view, n, ints, floats, tol, fill, sample, &lim);
        PyBuffer_Release(&view);
        if (code < 0) break;
        codes[k] = (unsigned char)code;
    }
    if (!PyErr_Occurred()) result = PyByteArray_FromStringAndSize((const char *)codes, count);
    free(codes);
done:
    free(ints); free(floats);
    Py_XDECREF(seq);
    release_group(&v);
    return result;
}

/* ==== end of lpage's region verdicts ==== */

/* ==== lpage: a leaf's runs passed as the list they are (kernels.joined_runs, kernels.paint_order), a page's words ==== */

/* The view of run `obj` into *view, held, where it is a 1-d int64 buffer
 * (any stride): its length; -2 where it is no such buffer (no view held,
 * no error set: the caller's reference path takes it). */
static Py_ssize_t run_view(PyObject *obj, Py_buffer *view) {
    if (PyObject_GetBuffer(obj, view, PyBUF_STRIDES | PyBUF_FORMAT) < 0) { PyErr_Clear(); return -2; }
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    if (view->itemsize == 8 && view->ndim == 1 && (strcmp(f, "l") == 0 || strcmp(f, "q") == 0)) return view->shape[0];
    PyBuffer_Release(view);
    return -2;
}

/* The runs of `list` (a sequence of 1-d int64 arrays, none empty): their
 * lines concatenated into *ids and their lengths into *lengths (malloc'd;
 * *count runs, *total lines). 1 done, 0 where there is no run, or some run
 * is empty or no 1-d int64 array (no error set), -1 with an error set.
 * Each run's view is taken once and held until its lines are copied (a
 * leaf of single lines has a thousand runs). */
static int join_run_list(PyObject *list, int64_t **ids, int64_t **lengths, Py_ssize_t *count, Py_ssize_t *total) {
    *ids = NULL; *lengths = NULL;
    PyObject *seq = PySequence_Fast(list, "runs: expected a sequence");
    if (!seq) return -1;
    Py_ssize_t runs = PySequence_Fast_GET_SIZE(seq), lines = 0, held = 0;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    Py_buffer *views = NULL;
    int status = 0;
    if (!runs) goto done;  /* np.concatenate of no runs raises: the reference's */
    *lengths = malloc((size_t)runs * sizeof(int64_t));
    views = malloc((size_t)runs * sizeof(Py_buffer));
    if (!*lengths || !views) { PyErr_NoMemory(); status = -1; goto done; }
    for (Py_ssize_t r = 0; r < runs; r++) {
        Py_ssize_t n = run_view(items[r], &views[r]);
        if (n == -2) goto done;
        held++;
        if (n < 1) goto done;
        if (n > PY_SSIZE_T_MAX / 8 - lines) { PyErr_NoMemory(); status = -1; goto done; }
        (*lengths)[r] = n;
        lines += n;
    }
    *ids = malloc((lines ? (size_t)lines : 1) * sizeof(int64_t));
    if (!*ids) { PyErr_NoMemory(); status = -1; goto done; }
    for (Py_ssize_t r = 0, at = 0; r < runs; r++) {
        const char *buf = views[r].buf;
        Py_ssize_t stride = views[r].strides[0];
        for (Py_ssize_t k = 0; k < (*lengths)[r]; k++) memcpy(&(*ids)[at + k], buf + k * stride, sizeof(int64_t));
        at += (*lengths)[r];
    }
    *count = runs; *total = lines;
    status = 1;
done:
    for (Py_ssize_t r = 0; r < held; r++) PyBuffer_Release(&views[r]);
    free(views);
    Py_DECREF(seq);
    if (status != 1) { free(*ids); free(*lengths); *ids = NULL; *lengths = NULL; }
    return status;
}

/* ---- joined_runs(runs) -> (ids, lengths) | None
 * kernels.joined_runs: the lines of a list of runs (1-d int64 arrays, none
 * empty) concatenated, and each run's length, as int64 bytes; None where
 * there is no run, or a run is empty or no such array (the reference path
 * then decides, as np.concatenate and len would). */
static PyObject *layout_joined_runs(PyObject *mod, PyObject *list) {
    int64_t *ids, *lengths;
    Py_ssize_t runs = 0, lines = 0;
    int status = join_run_list(list, &ids, &lengths, &runs, &lines);
    if (status <= 0) return status < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *a = int64_bytes(ids, lines), *b = a ? int64_bytes(lengths, runs) : NULL;
    free(ids); free(lengths);
    if (!b) { Py_XDECREF(a); return NULL; }
    return Py_BuildValue("(NN)", a, b);
}

typedef struct { int64_t first; Py_ssize_t run; } RunFirst;

/* By first line, then run: np.argsort(kind="stable") of the first lines. */
static int run_first_cmp(const void *a, const void *b) {
    const RunFirst *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->run < y->run ? -1 : x->run > y->run;
}

/* ---- paint_order(runs) -> order | None
 * kernels.paint_order (leaves._in_paint_order): the runs (1-d int64 arrays
 * of unit numbers, none empty) by their smallest unit, ties in list order
 * (a stable sort), as int64 bytes; None where there is no run, or a run
 * is empty or no such array. */
static PyObject *layout_paint_order(PyObject *mod, PyObject *list) {
    int64_t *ids, *lengths;
    Py_ssize_t runs = 0, lines = 0;
    int status = join_run_list(list, &ids, &lengths, &runs, &lines);
    if (status <= 0) return status < 0 ? NULL : Py_NewRef(Py_None);
    PyObject *result = NULL;
    RunFirst *firsts = malloc((runs ? (size_t)runs : 1) * sizeof(RunFirst));
    int64_t *order = malloc((runs ? (size_t)runs : 1) * sizeof(int64_t));
    if (!firsts || !order) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t r = 0, k = 0; r < runs; r++) {
        int64_t low = ids[k];
        for (Py_ssize_t end = k + (Py_ssize_t)lengths[r]; k < end; k++) low = ids[k] < low ? ids[k] : low;
        firsts[r].first = low; firsts[r].run = r;
    }
    qsort(firsts, (size_t)runs, sizeof(RunFirst), run_first_cmp);
    for (Py_ssize_t r = 0; r < runs; r++) order[r] = (int64_t)firsts[r].run;
    result = int64_bytes(order, runs);
done:
    free(firsts); free(order); free(ids); free(lengths);
    return result;
}

/* ---- first_words(blank, start, end, low, high, height, word_gap) -> (first_word, words) | None
 * units._first_words (Page.first_word, Page.words) in one pass: per unit
 * start[i]:end[i] of the page's glyphs (`blank` per glyph; `low`, `high`
 * its extent along the line, infinite for edge blanks; `height`), the
 * extent from its first inked glyph to the last one before a word break
 * (0 where not finite), as doubles, and how many words it holds, as
 * int64: np.add.reduceat's sums of the word ends from start[i] up to the
 * next unit's start (the last unit's up to the last glyph). A word ends at
 * glyph k where glyph k + 1 is blank or lies more than `word_gap` heights
 * (glyph k's) away, and at every unit's last glyph. None where there is no
 * glyph or no unit, or a unit is empty or out of the glyphs: the numpy
 * expressions decide then. */
static PyObject *layout_first_words(PyObject *mod, PyObject *args) {
    PyObject *b_obj, *s_obj, *e_obj, *lo_obj, *hi_obj, *h_obj;
    double word_gap;
    if (!PyArg_ParseTuple(args, "OOOOOOd", &b_obj, &s_obj, &e_obj, &lo_obj, &hi_obj, &h_obj, &word_gap)) return NULL;
    View vb = {0}, vs = {0}, ve = {0}, vlo = {0}, vhi = {0}, vh = {0};
    PyObject *result = NULL;
    char *stop = NULL;
    double *extent = NULL;
    int64_t *words = NULL;
    if (get_view(b_obj, &vb, "?", 1, "blank") < 0 || get_view(s_obj, &vs, "l", 8, "start") < 0 ||
        get_view(e_obj, &ve, "l", 8, "end") < 0 || get_view(lo_obj, &vlo, "d", 8, "low") < 0 ||
        get_view(hi_obj, &vhi, "d", 8, "high") < 0 || get_view(h_obj, &vh, "d", 8, "height") < 0)
        goto done;
    Py_ssize_t n = vb.view.len, units = vs.view.len / 8;
    if (vlo.view.len / 8 != n || vhi.view.len / 8 != n || vh.view.len / 8 != n || ve.view.len / 8 != units) {
        PyErr_SetString(PyExc_ValueError, "first_words: columns differ in length");
        goto done;
    }
    const char *blank = vb.view.buf;
    const int64_t *start = vs.view.buf, *end = ve.view.buf;
    const double *low = vlo.view.buf, *high = vhi.view.buf, *height = vh.view.buf;
    int usual = n > 0 && units > 0;
    for (Py_ssize_t i = 0; usual && i < units; i++) usual = start[i] >= 0 && start[i] < end[i] && end[i] <= n;
    if (!usual) { result = Py_NewRef(Py_None); goto done; }
    stop = malloc((size_t)n);
    extent = malloc((size_t)units * sizeof(double));
    words = malloc((size_t)units * sizeof(int64_t));
    if (!stop || !extent || !words) { PyErr_NoMemory(); goto done; }
    /* stop[k]: a word ends at glyph k (1), and the glyph is inked, no blank (bit 2). */
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        double gap = np_max(low[k + 1] - high[k], low[k] - high[k + 1]);
        stop[k] = (char)(blank[k + 1] || gap > word_gap * height[k]);
    }
    stop[n - 1] = 0;
    for (Py_ssize_t i = 0; i < units; i++) stop[end[i] - 1] = 1;
    for (Py_ssize_t k = 0; k < n; k++) stop[k] = (char)(stop[k] && isfinite(low[k]) && !blank[k]);
    for (Py_ssize_t i = 0; i < units; i++) {
        Py_ssize_t first = (Py_ssize_t)start[i], last;
        for (Py_ssize_t k = first; k < end[i]; k++)
            if (isfinite(low[k]) && !blank[k]) { first = k; break; }
        last = first;
        for (Py_ssize_t k = first; k < end[i]; k++)
            if (stop[k]) { last = k; break; }
        double e = np_max(high[first], high[last]) - np_min(low[first], low[last]);
        extent[i] = isfinite(e) ? e : 0.0;
        /* np.add.reduceat: up to the next start, or one glyph where that is not after it. */
        Py_ssize_t a = (Py_ssize_t)start[i], b = i + 1 < units ? (Py_ssize_t)start[i + 1] : n;
        int64_t count = stop[a];
        for (Py_ssize_t k = a + 1; k < b; k++) count += stop[k];
        words[i] = count;
    }
    PyObject *x = PyByteArray_FromStringAndSize((const char *)extent, units * (Py_ssize_t)sizeof(double));
    PyObject *w = x ? int64_bytes(words, units) : NULL;
    if (w) result = Py_BuildValue("(NN)", x, w);
    else Py_XDECREF(x);
done:
    free(stop); free(extent); free(words);
    release(&vb); release(&vs); release(&ve); release(&vlo); release(&vhi); release(&vh);
    return result;
}

/* ==== end of lpage's run lists ==== */

/* ==== lpage: a leaf's tail (leaves._edge_rows, then _stack_down's stack) ==== */

/* np.max / np.min over values[0..n), n >= 1: NaN propagates. */
static double np_max_over(const double *values, Py_ssize_t n) {
    double m = values[0];
    for (Py_ssize_t k = 1; k < n; k++) m = np_max(m, values[k]);
    return m;
}

static double np_min_over(const double *values, Py_ssize_t n) {
    double m = values[0];
    for (Py_ssize_t k = 1; k < n; k++) m = np_min(m, values[k]);
    return m;
}

/* The work buffers of leaf_tail, each of m items (m the leaf's lines). */
typedef struct {
    double *base, *key, *tmp_d;
    int64_t *idx, *tmp, *row, *parts[2];
    char *on, *keep;
} TailWork;

typedef struct {
    const double *X0, *X1, *Y0, *Y1;
    const char *placed;
    Py_ssize_t units;
    double descent, same_row, section;
    int rtl;
} TailPage;

/* _edge_rows' test of one side (0 the top row, 1 the bottom row) of the
 * leaf's lines `order` (m of them, baselines w->base): the row's lines, by
 * where they start along the line, into w->parts[side] and their flags
 * into w->on; how many (0 where the row stays), -1 where no line of the
 * page is placed (np.max of nothing raises: the reference decides). */
static Py_ssize_t edge_row(const TailPage *p, const int64_t *order, Py_ssize_t m, int side, TailWork *w) {
    double edge = side == 0 ? np_max_over(w->base, m) : np_min_over(w->base, m);
    Py_ssize_t count = 0, rest = 0;
    for (Py_ssize_t k = 0; k < m; k++) count += w->on[k] = (char)(fabs(w->base[k] - edge) <= p->same_row);
    if (count < 2 || count == m) return 0;
    for (Py_ssize_t k = 0, r = 0; k < m; k++) {
        if (w->on[k]) { w->row[r] = order[k]; w->key[r++] = p->rtl ? -p->X1[order[k]] : p->X0[order[k]]; }
        else w->tmp_d[rest++] = side == 0 ? p->Y1[order[k]] : p->Y0[order[k]];
    }
    double low = side == 0 ? p->Y0[w->row[0]] : np_min_over(w->tmp_d, rest), high = side == 0 ? np_max_over(w->tmp_d, rest) : p->Y1[w->row[0]];
    for (Py_ssize_t r = 1; r < count; r++) {
        if (side == 0) low = np_min(low, p->Y0[w->row[r]]);
        else high = np_max(high, p->Y1[w->row[r]]);
    }
    if (low - high < p->section) return 0;
    stable_argsort(w->key, w->idx, w->tmp, count);
    int same = 1;
    for (Py_ssize_t r = 0; r < count; r++) {
        w->parts[side][r] = w->row[w->idx[r]];
        same &= w->parts[side][r] == order[side == 0 ? r : m - count + r];
    }
    if (same) return 0;  /* read so already */
    double beyond = 0.0;
    int any = 0;
    for (Py_ssize_t u = 0; u < p->units; u++) {
        if (!p->placed[u]) continue;
        double b = unit_baseline(p->Y0, p->Y1, u, p->descent) - edge;
        b = side == 0 ? b : -b;
        beyond = any ? np_max(beyond, b) : b;
        any = 1;
    }
    if (!any) return -1;
    return beyond > p->same_row ? 0 : count;
}

/* leaves._edge_rows of `order` (m lines) into out (2 m long); its length, or -1 (edge_row's). */
static Py_ssize_t edge_rows(const TailPage *p, const int64_t *order, Py_ssize_t m, TailWork *w, int64_t *out) {
    if (m < 3) { memcpy(out, order, (size_t)m * sizeof(int64_t)); return m; }
    Py_ssize_t count[2] = {0, 0};
    for (Py_ssize_t k = 0; k < m; k++) { w->base[k] = unit_baseline(p->Y0, p->Y1, order[k], p->descent); w->keep[k] = 1; }
    for (int side = 0; side < 2; side++) {
        count[side] = edge_row(p, order, m, side, w);
        if (count[side] < 0) return -1;
        if (count[side])
            for (Py_ssize_t k = 0; k < m; k++) w->keep[k] &= (char)!w->on[k];
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t r = 0; r < count[0]; r++) out[n++] = w->parts[0][r];
    for (Py_ssize_t k = 0; k < m; k++) if (w->keep[k]) out[n++] = order[k];
    for (Py_ssize_t r = 0; r < count[1]; r++) out[n++] = w->parts[1][r];
    return n;
}

/* leaves._one_stack of lines `down` (n, top to bottom). */
static int one_stack(const TailPage *p, const int64_t *down, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        double step = unit_baseline(p->Y0, p->Y1, down[k + 1], p->descent) - unit_baseline(p->Y0, p->Y1, down[k], p->descent);
        if (-step <= p->same_row) return 0;
    }
    for (Py_ssize_t k = 0; k + 1 < n; k++) {
        int64_t a = down[k], b = down[k + 1];
        int along = np_min(p->X1[b], p->X1[a]) > np_max(p->X0[b], p->X0[a]);
        if (!along && !(p->Y0[a] - p->Y1[b] >= p->section)) return 0;
    }
    return 1;
}

/* _stack_down's stack of `order` (n lines, _edge_rows' order): the lines
 * between its top and bottom rows of several lines, [*lo, *hi), top to
 * bottom into down; 1 where they are one stack painted otherwise (the
 * stacked_blocks test is the caller's), else 0. */
static int stack_of(const TailPage *p, const int64_t *order, Py_ssize_t n, TailWork *w, Py_ssize_t *lo, Py_ssize_t *hi, int64_t *down) {
    if (n < 3) return 0;
    for (Py_ssize_t k = 0; k < n; k++) w->tmp_d[k] = unit_baseline(p->Y0, p->Y1, order[k], p->descent);
    double top = np_max_over(w->tmp_d, n), foot = np_min_over(w->tmp_d, n);
    Py_ssize_t c[2] = {0, 0};
    for (Py_ssize_t k = 0; k < n; k++) {
        c[0] += fabs(w->tmp_d[k] - top) <= p->same_row;
        c[1] += fabs(w->tmp_d[k] - foot) <= p->same_row;
    }
    int lead = c[0] > 1, tail = c[1] > 1;
    for (Py_ssize_t k = 0; lead && k < c[0]; k++) lead = fabs(w->tmp_d[k] - top) <= p->same_row;
    for (Py_ssize_t k = n - c[1]; tail && k < n; k++) tail = fabs(w->tmp_d[k] - foot) <= p->same_row;
    *lo = lead ? c[0] : 0;
    *hi = tail ? n - c[1] : n;
    Py_ssize_t m = *hi - *lo;
    if (m < 3) return 0;
    for (Py_ssize_t k = 0; k < m; k++) w->key[k] = -w->tmp_d[*lo + k];
    stable_argsort(w->key, w->idx, w->tmp, m);
    int same = 1;
    for (Py_ssize_t k = 0; k < m; k++) { down[k] = order[*lo + w->idx[k]]; same &= down[k] == order[*lo + k]; }
    return !same && one_stack(p, down, m);
}

/* ---- leaf_tail(x0, x1, y0, y1, placed, order, descent, same_row, section_gap, rtl) -> (order, lo, hi, down) | None
 * kernels.leaf_tail (leaves._edges_and_stack): leaves._edge_rows of the
 * leaf's lines `order` (a reading order; unit boxes, `placed` per unit),
 * as int64 bytes, and of that, _stack_down's stack: lo, hi and the lines
 * order[lo:hi] top to bottom (int64 bytes) where they are one stack
 * painted in another order, else None for down (the stacked_blocks test
 * is Python's). None where no unit is placed and a row asks for the
 * page's edge (the reference raises). */
static PyObject *layout_leaf_tail(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *placed_obj, *ids_obj;
    TailPage p;
    if (!PyArg_ParseTuple(args, "OOOOOOdddp", &obj[0], &obj[1], &obj[2], &obj[3], &placed_obj, &ids_obj, &p.descent,
                          &p.same_row, &p.section, &p.rtl))
        return NULL;
    View vbox[4] = {0}, vi = {0}, vp = {0};
    PyObject *result = NULL;
    TailWork w = {0};
    int64_t *out = NULL, *down = NULL;
    Py_ssize_t m = get_unit_boxes(obj, vbox, ids_obj, &vi);
    if (m < 0 || get_view(placed_obj, &vp, "?", 1, "placed") < 0) goto done;
    p.units = vbox[0].view.len / 8;
    if (vp.view.len != p.units) { PyErr_SetString(PyExc_ValueError, "placed: one flag per unit"); goto done; }
    p.X0 = vbox[0].view.buf; p.X1 = vbox[1].view.buf; p.Y0 = vbox[2].view.buf; p.Y1 = vbox[3].view.buf;
    p.placed = vp.view.buf;
    size_t items = m ? (size_t)m : 1;
    w.base = calloc(items, sizeof(double)); w.key = calloc(2 * items, sizeof(double)); w.tmp_d = calloc(2 * items, sizeof(double));
    w.idx = calloc(2 * items, sizeof(int64_t)); w.tmp = calloc(2 * items, sizeof(int64_t)); w.row = calloc(items, sizeof(int64_t));
    w.parts[0] = calloc(items, sizeof(int64_t)); w.parts[1] = calloc(items, sizeof(int64_t));
    w.on = calloc(items, 1); w.keep = calloc(items, 1);
    out = calloc(2 * items, sizeof(int64_t)); down = calloc(2 * items, sizeof(int64_t));
    if (!w.base || !w.key || !w.tmp_d || !w.idx || !w.tmp || !w.row || !w.parts[0] || !w.parts[1] || !w.on || !w.keep || !out || !down) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = edge_rows(&p, vi.view.buf, m, &w, out), lo = 0, hi = 0;
    if (n < 0) { result = Py_NewRef(Py_None); goto done; }
    int stack = stack_of(&p, out, n, &w, &lo, &hi, down);
    PyObject *edged = int64_bytes(out, n), *lines = !edged ? NULL : stack ? int64_bytes(down, hi - lo) : Py_NewRef(Py_None);
    if (lines) result = Py_BuildValue("(NnnN)", edged, lo, hi, lines);
    else Py_XDECREF(edged);
done:
    free(w.base); free(w.key); free(w.tmp_d); free(w.idx); free(w.tmp); free(w.row); free(w.parts[0]); free(w.parts[1]);
    free(w.on); free(w.keep); free(out); free(down);
    release_boxes(vbox); release(&vi); release(&vp);
    return result;
}

/* ==== end of lpage's leaf tail ==== */

/* ==== lpage: the page's reading direction (units.reads_rtl) ==== */

/* ---- reads_rtl(texts, order, step, first_rtl, edges) -> bool
 * kernels.reads_rtl: of the glyphs order[0], order[step], order[2 * step], ...
 * (texts: the glyph table's contiguous object array of str, read in place
 * through the buffer protocol), the first code point of each (-1 for an empty
 * text, as text_edges gives it). False where none is sampled or none reaches
 * first_rtl; else do more of them lie in an RTL range (after an odd number of
 * the sorted range `edges`: bidi.is_rtl's searchsorted, side right) than are
 * Latin letters or letters of another left-to-right script (U+00C0 up, not
 * RTL, outside U+2000-U+303F)? The loop calls back into nothing, so the
 * borrowed texts stay alive while it reads them. */
static PyObject *layout_reads_rtl(PyObject *mod, PyObject *args) {
    PyObject *texts_obj, *order_obj, *edges_obj;
    Py_ssize_t step;
    long long first_rtl;
    if (!PyArg_ParseTuple(args, "OOnLO", &texts_obj, &order_obj, &step, &first_rtl, &edges_obj)) return NULL;
    if (step < 1) { PyErr_SetString(PyExc_ValueError, "step must be positive"); return NULL; }
    View vt = {0}, vo = {0}, ve = {0};
    PyObject *result = NULL;
    if (get_view(texts_obj, &vt, "O", (Py_ssize_t)sizeof(PyObject *), "texts") < 0 || get_view(order_obj, &vo, "l", 8, "order") < 0 ||
        get_view(edges_obj, &ve, "l", 8, "edges") < 0)
        goto done;
    Py_ssize_t size = vt.view.len / (Py_ssize_t)sizeof(PyObject *), n = vo.view.len / 8, m = ve.view.len / 8;
    PyObject *const *items = (PyObject *const *)vt.view.buf;
    const int64_t *order = vo.view.buf, *edges = ve.view.buf;
    long long top = 0;
    Py_ssize_t sampled = 0, rtl = 0, ltr = 0;
    for (Py_ssize_t k = 0; k < n; k = step > n - k ? n : k + step) {
        int64_t g = order[k];
        if (g < 0 || g >= size) { PyErr_SetString(PyExc_IndexError, "order: index out of range"); goto done; }
        PyObject *text = items[g];
        if (!text || !PyUnicode_Check(text)) { PyErr_SetString(PyExc_TypeError, "glyph texts must be str"); goto done; }
        long long cp = PyUnicode_GET_LENGTH(text) ? (long long)PyUnicode_READ_CHAR(text, 0) : -1;
        top = sampled++ ? (cp > top ? cp : top) : cp;
        Py_ssize_t below = 0;  /* edges at or below cp */
        while (below < m && edges[below] <= cp) below++;
        int is_rtl = below % 2 == 1;
        long long folded = cp | 0x20;
        int latin = folded >= 'a' && folded <= 'z';
        int other = cp >= 0xC0 && !is_rtl && !(cp >= 0x2000 && cp <= 0x303F);
        rtl += is_rtl;
        ltr += latin || other;
    }
    result = PyBool_FromLong(sampled && top >= first_rtl && rtl > ltr);
done:
    release(&vt); release(&vo); release(&ve);
    return result;
}

/* ==== end of lpage's reading direction ==== */

/* ==== lpage: a leaf's paragraphs (leaves._paragraphs) ==== */

/* _on_baselines' count: of lines ids[0..n), how many lie within `tol` of one
 * of the `m` baselines sorted in base (NaN last): the nearest one below or
 * above each line's own baseline (np.searchsorted, side left, in numpy's
 * order; np.minimum of the two distances, NaN propagating). */
static Py_ssize_t on_baselines(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, const double *base,
                               Py_ssize_t m, double descent, double tol) {
    Py_ssize_t on = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        double own = Y0[ids[k]] + descent * (Y1[ids[k]] - Y0[ids[k]]);
        Py_ssize_t lo = 0, hi = m;
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            if (np_less(base[mid], own)) lo = mid + 1; else hi = mid;
        }
        double below = fabs(own - base[lo > 0 ? lo - 1 : 0]), above = fabs(base[lo < m - 1 ? lo : m - 1] - own);
        on += np_min(below, above) <= tol;
    }
    return on;
}

/* ---- paragraph_blocks(x0, x1, y0, y1, words, first_word, ids, lengths, row_tol, descent, paragraph_step, space,
 *                       min_pairs, wrap_words, wrap_pairs, wrapped_share, same_baseline) -> bools, one per block
 * kernels.paragraph_blocks: of the blocks (ids cut by lengths, a leaf's
 * stacked_blocks), those that wrap as a paragraph's lines do (blocks_wrap's
 * measures, regions._wrapped's verdict: min_pairs pairs, a median line of
 * wrap_words words, wrap_pairs lines, wrapped_share of them wrapped), but for
 * those with a line of another block (none of the wrapping ones) beside them
 * along the line whose baselines more than half their lines lie on (within
 * same_baseline). */
/* paragraph_blocks' body: of the blocks (ids[0..n) cut by lengths, `blocks`
 * of them; units 0..size of the page) into keep (one byte each), whether
 * each wraps as a paragraph (blocks_wrap's measures with `row_tol`,
 * `descent`, `paragraph_step`, `space`; the verdict `wrap`: min_pairs,
 * wrap_words, wrap_pairs, wrapped_share) and has no other block's lines
 * beside it on its baselines (`same_baseline`). 0, or -1 out of memory
 * (MemoryError set). */
typedef struct { double row_tol, descent, paragraph_step, space; Py_ssize_t min_pairs; double wrap_words; Py_ssize_t wrap_pairs; double wrapped_share, same_baseline; } ParagraphLimits;

static int paragraph_keep(const double *const box[4], const int64_t *words, const double *first_word, Py_ssize_t size,
                          const int64_t *ids, const int64_t *lengths, Py_ssize_t blocks, Py_ssize_t n, const ParagraphLimits *l,
                          char *keep) {
    const double *X0 = box[0], *X1 = box[1], *Y0 = box[2], *Y1 = box[3];
    size_t cap = n ? (size_t)n : 1;
    int64_t *ints = malloc(7 * (cap + 1) * sizeof(int64_t)), *rest = malloc(cap * sizeof(int64_t));
    double *floats = calloc(3 * cap, sizeof(double)), *base = malloc(cap * sizeof(double));
    char *other = calloc(size ? (size_t)size : 1, 1);
    int status = -1;
    if (!ints || !floats || !rest || !base || !other) { PyErr_NoMemory(); goto done; }
    int64_t *sorted = ints, *starts = sorted + cap + 1, *order = starts + cap + 1, *tmp = order + cap + 1,
            *pairs = tmp + cap + 1, *counts = pairs + cap + 1;
    double *key = floats, *step = floats + cap, *sorted_steps = floats + 2 * cap;
    /* The wrapping blocks (blocks_wrapping: of two lines or more). */
    Py_ssize_t wrapping = 0;
    for (Py_ssize_t b = 0, at = 0; b < blocks; at += lengths[b], b++) {
        Py_ssize_t m = lengths[b];
        keep[b] = 0;
        if (m < 2) continue;
        Py_ssize_t rows = sort_rows(Y0, Y1, ids + at, m, l->row_tol, sorted, starts, order, tmp, key);
        WrapCounts found = wrap_counts(box, words, first_word, sorted, m, starts, rows, l->descent, l->paragraph_step,
                                       l->space, pairs, step, sorted_steps, counts);
        keep[b] = found.pairs >= l->min_pairs && found.median_words >= l->wrap_words && found.lines >= l->wrap_pairs &&
                  (double)found.wrapped >= l->wrapped_share * (double)found.lines;
        wrapping += keep[b];
    }
    if (wrapping) {
        /* The lines of the other blocks, ascending. */
        for (Py_ssize_t k = 0; k < n; k++) other[ids[k]] = 1;
        for (Py_ssize_t b = 0, at = 0; b < blocks; at += lengths[b], b++)
            if (keep[b])
                for (Py_ssize_t k = at; k < at + lengths[b]; k++) other[ids[k]] = 0;
        Py_ssize_t n_rest = 0;
        for (Py_ssize_t u = 0; u < size; u++)
            if (other[u]) rest[n_rest++] = u;
        for (Py_ssize_t b = 0, at = 0; b < blocks; at += lengths[b], b++) {
            if (!keep[b]) continue;
            const int64_t *block = ids + at;
            Py_ssize_t m = lengths[b], n_beside = 0;
            double left = X0[block[0]], right = X1[block[0]];
            for (Py_ssize_t k = 1; k < m; k++) { left = np_min(left, X0[block[k]]); right = np_max(right, X1[block[k]]); }
            for (Py_ssize_t k = 0; k < n_rest; k++) {
                int64_t u = rest[k];
                if (X1[u] <= left || X0[u] >= right) base[n_beside++] = Y0[u] + l->descent * (Y1[u] - Y0[u]);
            }
            if (!n_beside) continue;
            qsort(base, (size_t)n_beside, sizeof(double), cmp_np_double);
            if (on_baselines(Y0, Y1, block, m, base, n_beside, l->descent, l->same_baseline) * 2 > m) keep[b] = 0;
        }
    }
    status = 0;
done:
    free(ints); free(floats); free(rest); free(base); free(other);
    return status;
}

static PyObject *layout_paragraph_blocks(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *w_obj, *f_obj, *ids_obj, *len_obj;
    ParagraphLimits l;
    if (!PyArg_ParseTuple(args, "OOOOOOOOddddndndd", &obj[0], &obj[1], &obj[2], &obj[3], &w_obj, &f_obj, &ids_obj, &len_obj,
                          &l.row_tol, &l.descent, &l.paragraph_step, &l.space, &l.min_pairs, &l.wrap_words, &l.wrap_pairs,
                          &l.wrapped_share, &l.same_baseline))
        return NULL;
    View vbox[4], vi, vl, vw, vf;
    memset(vbox, 0, sizeof vbox);
    memset(&vi, 0, sizeof vi); memset(&vl, 0, sizeof vl); memset(&vw, 0, sizeof vw); memset(&vf, 0, sizeof vf);
    PyObject *result = NULL;
    char *keep = NULL;
    Py_ssize_t blocks = 0;
    Py_ssize_t n = get_wrap_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, w_obj, &vw, f_obj, &vf, &blocks);
    if (n < 0) goto done;
    const double *box[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    keep = calloc(blocks ? (size_t)blocks : 1, 1);
    if (!keep) { PyErr_NoMemory(); goto done; }
    if (paragraph_keep(box, vw.view.buf, vf.view.buf, vbox[0].view.len / 8, vi.view.buf, vl.view.buf, blocks, n, &l, keep) < 0)
        goto done;
    result = PyByteArray_FromStringAndSize(keep, blocks);
done:
    free(keep);
    release_boxes(vbox); release(&vi); release(&vl); release(&vw); release(&vf);
    return result;
}

/* ==== end of lpage's paragraphs ==== */

/* ==== lpage: the page's notes (leaves._margin_note, leaves._note_over_the_text) ==== */

/* _is_margin_note's block test of lines note[0..n) (n >= 1): does
 * regions.block_starts find one block (kernels.block_firsts: by their tops,
 * -y1 in numpy's stable order, none `padding` or more below every line
 * above it, np.minimum.accumulate propagating NaN)? */
static int one_block(const double *Y0, const double *Y1, const int64_t *note, Py_ssize_t n, double padding, double *key,
                     int64_t *idx, int64_t *tmp) {
    for (Py_ssize_t k = 0; k < n; k++) key[k] = -Y1[note[k]];
    stable_argsort(key, idx, tmp, n);
    double floor = Y0[note[idx[0]]];
    for (Py_ssize_t k = 1; k < n; k++) {
        if (floor - Y1[note[idx[k]]] >= padding) return 0;
        floor = np_min(floor, Y0[note[idx[k]]]);
    }
    return 1;
}

/* _distinct_rows(note) >= 2: of the baselines of lines note[0..n) sorted
 * (NaN last), does one step up from the one before by more than `same_row`? */
static int two_rows(const double *Y0, const double *Y1, const int64_t *note, Py_ssize_t n, double descent, double same_row,
                    double *base) {
    for (Py_ssize_t k = 0; k < n; k++) base[k] = unit_baseline(Y0, Y1, note[k], descent);
    qsort(base, (size_t)n, sizeof(double), cmp_np_double);
    for (Py_ssize_t k = 1; k < n; k++)
        if (base[k] - base[k - 1] > same_row) return 1;
    return 0;
}

/* The limits of the margin-note rules (leaves._margin_note's constants, in points). */
typedef struct { double descent, long_width, gutter, padding, same_row, max_gap, letter_share; Py_ssize_t prose_lines; } NoteLimits;

/* leaves._is_margin_note of the lines note[0..n) beside text[0..t) (t >= 1):
 * one block, two rows or more, beside prose, a gutter to MARGIN_NOTE_GAP
 * from the text (np.min over every pair: NaN propagates and fails the test),
 * mostly letters (alpha over the glyphs start[u]..end[u] of its units,
 * bounds-checked: -1 with IndexError set). */
static int is_margin_note(const double *const box[4], const int64_t *const glyphs[2], const char *alpha, Py_ssize_t size,
                          const int64_t *note, Py_ssize_t n, const int64_t *text, Py_ssize_t t, const NoteLimits *lim,
                          double *key, int64_t *idx, int64_t *tmp) {
    const double *X0 = box[0], *X1 = box[1], *Y0 = box[2], *Y1 = box[3];
    if (!one_block(Y0, Y1, note, n, lim->padding, key, idx, tmp)) return 0;
    Py_ssize_t prose = 0;
    for (Py_ssize_t k = 0; k < t; k++) prose += X1[text[k]] - X0[text[k]] >= lim->long_width;
    if (prose < lim->prose_lines || !two_rows(Y0, Y1, note, n, lim->descent, lim->same_row, key)) return 0;
    double note_right = X1[note[0]], text_left = X0[text[0]];
    for (Py_ssize_t k = 1; k < n; k++) note_right = np_max(note_right, X1[note[k]]);
    for (Py_ssize_t k = 1; k < t; k++) text_left = np_min(text_left, X0[text[k]]);
    /* The note's near edge against the text's far one: left of the text, its right edge against their left ones. */
    const double *near = note_right < text_left ? X1 : X0, *far = note_right < text_left ? X0 : X1;
    double gap = fabs(near[note[0]] - far[text[0]]);
    for (Py_ssize_t a = 0; a < n; a++)
        for (Py_ssize_t b = 0; b < t; b++) gap = np_min(gap, fabs(near[note[a]] - far[text[b]]));
    if (!(lim->gutter <= gap && gap <= lim->max_gap)) return 0;
    Py_ssize_t letters = 0, inked = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t from = glyphs[0][note[k]], to = glyphs[1][note[k]];
        for (int64_t g = from; g < to; g++) {
            if (g < 0 || g >= size) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); return -1; }
            letters += alpha[g] != 0;
        }
        inked += to > from ? (Py_ssize_t)(to - from) : 0;
    }
    return (double)letters >= lim->letter_share * (double)inked;
}

/* ---- margin_note(x0, x1, y0, y1, start, end, alpha, order, descent, long_width, gutter, padding, same_row, max_gap,
 *                  letter_share, prose_lines) -> bools, one per line of order | None
 * kernels.margin_note (leaves._margin_note): of a leaf's lines `order`, the
 * lines clear of the text's edge (the outer edge of its long lines, a gutter
 * away: left of it, else right of it), two or more, where they are a margin
 * note (_is_margin_note); None where they are not. */
static PyObject *layout_margin_note(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *start_obj, *end_obj, *alpha_obj, *ids_obj;
    NoteLimits lim;
    if (!PyArg_ParseTuple(args, "OOOOOOOOdddddddn", &obj[0], &obj[1], &obj[2], &obj[3], &start_obj, &end_obj, &alpha_obj,
                          &ids_obj, &lim.descent, &lim.long_width, &lim.gutter, &lim.padding, &lim.same_row, &lim.max_gap,
                          &lim.letter_share, &lim.prose_lines))
        return NULL;
    View vbox[4] = {0}, vi = {0}, vs = {0}, ve = {0}, va = {0};
    PyObject *result = NULL;
    char *mask = NULL;
    int64_t *lines = NULL, *idx = NULL;
    double *key = NULL;
    Py_ssize_t m = get_unit_boxes(obj, vbox, ids_obj, &vi);
    if (m < 0 || get_view(start_obj, &vs, "l", 8, "start") < 0 || get_view(end_obj, &ve, "l", 8, "end") < 0 ||
        get_view(alpha_obj, &va, "?", 1, "alpha") < 0)
        goto done;
    Py_ssize_t units = vbox[0].view.len / 8;
    if (vs.view.len / 8 != units || ve.view.len / 8 != units) { PyErr_SetString(PyExc_ValueError, "start, end: one per unit"); goto done; }
    const double *box[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    const double *X0 = box[0], *X1 = box[1];
    const int64_t *order = vi.view.buf;
    if (m - 2 < lim.prose_lines) { result = Py_NewRef(Py_None); goto done; } /* m < prose_lines + 2, which need not fit */
    double left = 0.0, right = 0.0;
    Py_ssize_t long_lines = 0, count = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        int64_t u = order[k];
        if (!(X1[u] - X0[u] >= lim.long_width)) continue;
        left = long_lines ? np_min(left, X0[u]) : X0[u];
        right = long_lines ? np_max(right, X1[u]) : X1[u];
        long_lines++;
    }
    if (long_lines < lim.prose_lines) { result = Py_NewRef(Py_None); goto done; }
    size_t items = (size_t)m;
    mask = calloc(items, 1); lines = calloc(2 * items, sizeof(int64_t)); idx = calloc(2 * items, sizeof(int64_t));
    key = calloc(items, sizeof(double));
    if (!mask || !lines || !idx || !key) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < m; k++) count += mask[k] = (char)(X1[order[k]] <= left - lim.gutter);
    if (count < 2) {
        count = 0;
        for (Py_ssize_t k = 0; k < m; k++) count += mask[k] = (char)(X0[order[k]] >= right + lim.gutter);
        if (count < 2) { result = Py_NewRef(Py_None); goto done; }
    }
    /* The note's lines, then the text's, each in `order`'s order. */
    Py_ssize_t n = 0, t = count;
    for (Py_ssize_t k = 0; k < m; k++) {
        if (mask[k]) lines[n++] = order[k];
        else lines[t++] = order[k];
    }
    const int64_t *glyphs[2] = {vs.view.buf, ve.view.buf};
    int found = is_margin_note(box, glyphs, va.view.buf, va.view.len, lines, n, lines + n, m - n, &lim, key, idx, idx + m);
    if (found >= 0) result = found ? PyByteArray_FromStringAndSize(mask, m) : Py_NewRef(Py_None);
done:
    free(mask); free(lines); free(idx); free(key);
    release_boxes(vbox); release(&vi); release(&vs); release(&ve); release(&va);
    return result;
}

/* ---- note_over_the_text(x0, x1, y0, y1, order, section_gap, inset, rtl) -> (down, cut) | None
 * kernels.note_over_the_text (leaves._note_over_the_text): a page's lines
 * `order` top to bottom (by -y1, numpy's stable order: int64 bytes) and
 * where the first whitespace gap of `section_gap` or more under all the lines
 * above it lies (np.minimum.accumulate of their bottoms, NaN propagating),
 * where two lines or more lie above it and inside the measure of the lines
 * under it, in from its start edge by `inset` (leaves._inset_in); None
 * otherwise (fewer than four lines, no such gap, or not so inset). */
static PyObject *layout_note_over_the_text(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj;
    double section, inset;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOddp", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &section, &inset, &rtl)) return NULL;
    View vbox[4] = {0}, vi = {0};
    PyObject *result = NULL;
    int64_t *down = NULL, *idx = NULL;
    double *key = NULL;
    Py_ssize_t m = get_unit_boxes(obj, vbox, ids_obj, &vi);
    if (m < 0) goto done;
    if (m < 4) { result = Py_NewRef(Py_None); goto done; }
    const double *X0 = vbox[0].view.buf, *X1 = vbox[1].view.buf, *Y0 = vbox[2].view.buf, *Y1 = vbox[3].view.buf;
    const int64_t *order = vi.view.buf;
    size_t items = (size_t)m;
    down = calloc(items, sizeof(int64_t)); idx = calloc(2 * items, sizeof(int64_t)); key = calloc(items, sizeof(double));
    if (!down || !idx || !key) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < m; k++) key[k] = -Y1[order[k]];
    stable_argsort(key, idx, idx + m, m);
    for (Py_ssize_t k = 0; k < m; k++) down[k] = order[idx[k]];
    /* The first gap: under position k, k + 1 the first line under it. */
    Py_ssize_t cut = 0;
    double floor = Y0[down[0]];
    for (Py_ssize_t k = 0; k + 1 < m && !cut; k++) {
        if (floor - Y1[down[k + 1]] >= section) cut = k + 1;
        floor = np_min(floor, Y0[down[k + 1]]);
    }
    if (cut < 2) { result = Py_NewRef(Py_None); goto done; }
    double low = X0[down[0]], high = X1[down[0]], left = X0[down[cut]], right = X1[down[cut]];
    for (Py_ssize_t k = 1; k < cut; k++) { low = np_min(low, X0[down[k]]); high = np_max(high, X1[down[k]]); }
    for (Py_ssize_t k = cut + 1; k < m; k++) { left = np_min(left, X0[down[k]]); right = np_max(right, X1[down[k]]); }
    int inside = rtl ? low >= left && high <= right - inset : low >= left + inset && high <= right;
    result = inside ? Py_BuildValue("(Nn)", int64_bytes(down, m), cut) : Py_NewRef(Py_None);
done:
    free(down); free(idx); free(key);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ==== end of lpage's page notes ==== */

/* ==== lpage: a table painted column by column (leaves._column_grid's visits) ==== */

/* _values_up_and_down of one visit v[0..m) (m >= 1; edge = sign * src, the
 * line ends; the leaf's greatest line end `leaf_end`, np.max: NaN
 * propagates): narrower than a column (x1's max less x0's min under
 * column_width), flush with the leaf's end of the line (within slack), each
 * value starting no further back along the line than the one before
 * (line_start: x0, or -x1 on an rtl page; within slack), one at least a
 * line or more (next_line) above the one before. NaN fails each test as numpy's comparisons do. */
static int values_up_and_down(const double *const box[4], const double *edge, double sign, const int64_t *v, Py_ssize_t m,
                              double leaf_end, double slack, double column_width, double next_line, int rtl) {
    const double *X0 = box[0], *X1 = box[1], *Y0 = box[2];
    double left = X0[v[0]], right = X1[v[0]], end = sign * edge[v[0]];
    for (Py_ssize_t k = 1; k < m; k++) {
        left = np_min(left, X0[v[k]]); right = np_max(right, X1[v[k]]); end = np_max(end, sign * edge[v[k]]);
    }
    if (right - left >= column_width || leaf_end - end > slack) return 0;
    int up = 0;
    for (Py_ssize_t k = 1; k < m; k++) {
        double before = rtl ? -X1[v[k - 1]] : X0[v[k - 1]], start = rtl ? -X1[v[k]] : X0[v[k]];
        if (!(start - before >= -slack)) return 0;
        up |= Y0[v[k]] - Y0[v[k - 1]] >= next_line;
    }
    return up;
}

/* ---- column_visits(x0, x1, y0, y1, ids, lengths, slack, grid_rows, column_width, next_line, rtl) -> (up, bounds)
 * kernels.column_visits (leaves._column_grid): the leaf's runs (ids in run
 * order, `lengths` per run) joined into visits to a column set flush with
 * the line's end (flush_groups of the line ends x1, -x0 on an rtl page,
 * within slack); of those of grid_rows lines or more, the first and end run
 * of each (int64 bytes, in pairs), and whether the stream paints one of them
 * up and down by where each value starts (values_up_and_down). */
/* column_visits' visits of the runs (ids[0..n) cut by `lengths`) into bounds (pairs, *big of them; `ends`
 * scratch of one per run): whether the stream paints one of them up and down. */
static int visits_of(const double *const box[4], const int64_t *ids, const int64_t *lengths, Py_ssize_t runs, Py_ssize_t n,
                     double slack, Py_ssize_t grid_rows, double column_width, double next_line, int rtl, int64_t *ends,
                     int64_t *bounds, Py_ssize_t *big) {
    const double *edge = rtl ? box[0] : box[1];
    double sign = rtl ? -1.0 : 1.0;
    Py_ssize_t groups = flush_groups(edge, sign, ids, lengths, runs, slack, ends);
    double leaf_end = n ? sign * edge[ids[0]] : 0.0;
    for (Py_ssize_t k = 1; k < n; k++) leaf_end = np_max(leaf_end, sign * edge[ids[k]]);
    int up = 0;
    *big = 0;
    for (Py_ssize_t g = 0, r = 0, at = 0; g < groups; g++) {
        Py_ssize_t first = r, from = at;
        for (; r < ends[g]; r++) at += (Py_ssize_t)lengths[r];
        if (at - from < grid_rows) continue;
        bounds[2 * *big] = first; bounds[2 * *big + 1] = r; (*big)++;
        up = up || values_up_and_down(box, edge, sign, ids + from, at - from, leaf_end, slack, column_width, next_line, rtl);
    }
    return up;
}

static PyObject *layout_column_visits(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    double slack, column_width, next_line;
    Py_ssize_t grid_rows;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOOdnddp", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &slack, &grid_rows,
                          &column_width, &next_line, &rtl))
        return NULL;
    View vbox[4] = {0}, vi = {0}, vl = {0};
    PyObject *result = NULL;
    int64_t *ends = NULL, *bounds = NULL;
    Py_ssize_t runs = 0, n = get_unit_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, &runs);
    if (n < 0) goto done;
    const double *box[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    const int64_t *ids = vi.view.buf, *lengths = vl.view.buf;
    ends = malloc((runs ? (size_t)runs : 1) * sizeof(int64_t));
    bounds = malloc((runs ? 2 * (size_t)runs : 1) * sizeof(int64_t));
    if (!ends || !bounds) { PyErr_NoMemory(); goto done; }
    Py_ssize_t big = 0;
    int up = visits_of(box, ids, lengths, runs, n, slack, grid_rows, column_width, next_line, rtl, ends, bounds, &big);
    PyObject *pairs = int64_bytes(bounds, 2 * big);
    if (pairs) result = Py_BuildValue("(NN)", PyBool_FromLong(up), pairs);
done:
    free(ends); free(bounds);
    release_boxes(vbox); release(&vi); release(&vl);
    return result;
}

/* ==== end of lpage's column visits ==== */


/* ==== lpage: blocks wholly above and before one another (leaves._blocks_ahead) ==== */

/* ---- blocks_ahead(x0, x1, y0, y1, ids, lengths, rtl) -> (alone, among) | None
 * kernels.blocks_ahead (leaves._blocks_ahead): of a leaf's runs (ids in run
 * order, `lengths` per run; their boxes unit_run_boxes'), the blocks (runs
 * of two lines or more) level with no other run (no two boxes overlap
 * across the line: np.minimum of their tops over np.maximum of their
 * bottoms, NaN level with nothing), as int64 bytes of runs, ascending, and
 * among them, row-major bytes, [i, j]: block i wholly above block j (its
 * bottom at or over j's top) and wholly before it along the line (its right
 * edge at or before j's left one; its left edge at or after j's right one
 * on an rtl page). None where fewer than two runs are blocks, or no later
 * block is so ahead of an earlier one (every such pair reads so already). */
/* blocks_ahead's body over the runs' boxes (`box`: 4 x runs, unit_run_boxes'
 * rows; `lengths` lines per run): the blocks level with no other run into
 * alone (*m of them, ascending) and among them into among (m x m,
 * row-major); whether a later block lies ahead of an earlier one. */
static int blocks_ahead_of(const double *box, const int64_t *lengths, Py_ssize_t runs, int rtl, int64_t *alone, char *among,
                           Py_ssize_t *m_out) {
    const double *X0 = box, *Y0 = box + runs, *X1 = box + 2 * runs, *Y1 = box + 3 * runs;
    Py_ssize_t m = 0;
    for (Py_ssize_t b = 0; b < runs; b++) {
        if (lengths[b] < 2) continue;
        int level = 0;
        for (Py_ssize_t r = 0; r < runs && !level; r++) level = r != b && np_min(Y1[b], Y1[r]) > np_max(Y0[b], Y0[r]);
        if (!level) alone[m++] = b;
    }
    int against = 0;  /* a later block ahead of an earlier one */
    for (Py_ssize_t i = 0; i < m; i++)
        for (Py_ssize_t j = 0; j < m; j++) {
            int64_t a = alone[i], b = alone[j];
            int before = rtl ? X0[a] >= X1[b] : X1[a] <= X0[b];
            among[i * m + j] = (char)(Y0[a] >= Y1[b] && before);
            against |= j < i && among[i * m + j];
        }
    *m_out = m;
    return against;
}

static PyObject *layout_blocks_ahead(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj, *len_obj;
    int rtl;
    if (!PyArg_ParseTuple(args, "OOOOOOp", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &len_obj, &rtl)) return NULL;
    View vbox[4] = {0}, vi = {0}, vl = {0};
    PyObject *result = NULL;
    double *box = NULL;
    int64_t *alone = NULL;
    char *among = NULL;
    Py_ssize_t runs = 0, n = get_unit_runs(obj, vbox, ids_obj, &vi, len_obj, &vl, &runs);
    if (n < 0) goto done;
    const int64_t *lengths = vl.view.buf;
    Py_ssize_t blocks = 0, m = 0;
    for (Py_ssize_t r = 0; r < runs; r++) blocks += lengths[r] > 1;
    if (blocks < 2) { result = Py_NewRef(Py_None); goto done; }
    box = malloc(4 * (size_t)runs * sizeof(double));
    alone = malloc((size_t)blocks * sizeof(int64_t));
    among = malloc((size_t)blocks * (size_t)blocks);
    if (!box || !alone || !among) { PyErr_NoMemory(); goto done; }
    unit_run_boxes(vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf, vi.view.buf, lengths, runs, box, NULL);
    if (!blocks_ahead_of(box, lengths, runs, rtl, alone, among, &m)) { result = Py_NewRef(Py_None); goto done; }
    PyObject *lines = int64_bytes(alone, m), *pairs = lines ? PyByteArray_FromStringAndSize(among, m * m) : NULL;
    if (pairs) result = Py_BuildValue("(NN)", lines, pairs);
    else Py_XDECREF(lines);
done:
    free(box); free(alone); free(among);
    release_boxes(vbox); release(&vi); release(&vl);
    return result;
}

/* ==== end of lpage's blocks ahead ==== */

/* ---- the stream's witness of a region's cut (tiebreaks) ---------------------
 * tiebreaks.stream_band_order and tiebreaks.stream_reads_columns, each whole
 * in one call: the rules as the reference states them, on the measures of
 * the kernels above (stream_visits' cuts, back_up_moves, gutter_cells,
 * cell_disorder). The cut asks them of every region it cuts into bands, or
 * into bands with a gutter candidate; each was a chain of a dozen kernel and
 * numpy calls per band. */

/* leaves.reads_down's measure and threshold: DESCENT, NEXT_LINE and
 * SAME_BASELINE body heights, 1 - COHERENT, the page's direction. */
typedef struct { double descent, line_step, same_row, back_share; int rtl; } ReadsDown;

/* leaves.reads_down of the units ids[0..n) sorted (np.sort) into `sorted`. */
static int reads_down_sorted(const double *const box[4], const int64_t *ids, Py_ssize_t n, const ReadsDown *r, int64_t *sorted) {
    memcpy(sorted, ids, (size_t)n * sizeof(int64_t));
    qsort(sorted, (size_t)n, sizeof(int64_t), cmp_int64);
    Py_ssize_t back = back_up_count(box[0], box[1], box[2], box[3], sorted, n, r->descent, r->line_step, r->same_row, r->rtl);
    return (double)back <= r->back_share * (double)(n - 1);
}

/* np.max / np.min of values[ids[0..n)] (n >= 1), NaN propagating. */
static double np_max_at(const double *values, const int64_t *ids, Py_ssize_t n) {
    double v = values[ids[0]];
    for (Py_ssize_t k = 1; k < n; k++) v = np_max(v, values[ids[k]]);
    return v;
}
static double np_min_at(const double *values, const int64_t *ids, Py_ssize_t n) {
    double v = values[ids[0]];
    for (Py_ssize_t k = 1; k < n; k++) v = np_min(v, values[ids[k]]);
    return v;
}

/* groups.median_of of the heights (y1 - y0) of units ids[0..n) (n >= 1):
 * sorted as np.sort sorts (NaN last), the middle or the mean of the two. */
static double median_height(const double *Y0, const double *Y1, const int64_t *ids, Py_ssize_t n, double *work) {
    for (Py_ssize_t k = 0; k < n; k++) work[k] = Y1[ids[k]] - Y0[ids[k]];
    qsort(work, (size_t)n, sizeof(double), cmp_np_double);
    return (work[(n - 1) / 2] + work[n / 2]) / 2;
}

static int64_t least_of(const int64_t *ids, Py_ssize_t n) {
    int64_t v = ids[0];
    for (Py_ssize_t k = 1; k < n; k++) if (ids[k] < v) v = ids[k];
    return v;
}

/* A region's bands as the stream paints them: band k is ids[at[k]..at[k+1])
 * of the joined bands; painted[k] and painted_n[k] the band as the witness
 * (the last one less a foot painted first). */
typedef struct {
    const int64_t *ids; const int64_t *len; const int64_t *at; Py_ssize_t count;
    const int64_t **painted; Py_ssize_t *painted_n;
} Bands;

/* tiebreaks._foot_painted_first of the last band into b->painted[last]
 * (region[0..m) sorted; `sorted` and `cuts` work buffers of the band's
 * length, `sorted` holding the rest where it is painted apart). */
static void foot_painted_first(const Bands *b, const int64_t *region, Py_ssize_t m, const double *Y0, const double *Y1,
                               double slack, int64_t *sorted, int64_t *cuts) {
    Py_ssize_t last = b->count - 1, lo = b->at[last], n = b->at[last + 1] - lo;
    b->painted[last] = b->ids + lo; b->painted_n[last] = n;
    memcpy(sorted, b->ids + lo, (size_t)n * sizeof(int64_t));
    qsort(sorted, (size_t)n, sizeof(int64_t), cmp_int64);
    if (visit_cuts(region, m, sorted, n, cuts) != 1) return;
    Py_ssize_t c = cuts[0];
    if (c > m || memcmp(sorted, region, (size_t)c * sizeof(int64_t)) != 0) return;
    if (np_max_at(Y1, sorted, c) > np_min_at(Y0, sorted + c, n - c) + slack) return;
    b->painted[last] = sorted + c; b->painted_n[last] = n - c;
}

/* Is every painted band one visit of the stream, read down the page? */
static int bands_witnessed(const Bands *b, const double *const box[4], const int64_t *region, Py_ssize_t m, const ReadsDown *r,
                           int64_t *sorted, int64_t *cuts) {
    for (Py_ssize_t k = 0; k < b->count; k++) {
        Py_ssize_t n = b->painted_n[k];
        memcpy(sorted, b->painted[k], (size_t)n * sizeof(int64_t));
        qsort(sorted, (size_t)n, sizeof(int64_t), cmp_int64);
        if (visit_cuts(region, m, sorted, n, cuts)) return 0;
        if (!reads_down_sorted(box, sorted, n, r, cuts)) return 0;
    }
    return 1;
}

/* tiebreaks._small_print_at_foot: where the bands the stream may order end. */
static Py_ssize_t small_print_at_foot(const Bands *b, const double *Y0, const double *Y1, Py_ssize_t first, Py_ssize_t last,
                                      double small_print, double *work) {
    while (last - first >= 2) {
        const int64_t *foot = b->ids + b->at[last - 1], *others = b->ids + b->at[first];
        double own = median_height(Y0, Y1, foot, b->at[last] - b->at[last - 1], work);
        if (own > small_print * median_height(Y0, Y1, others, b->at[last - 1] - b->at[first], work)) break;
        last--;
    }
    return last;
}

/* tiebreaks._bands_painted_up of the painted bands first..last by their least units `at`. */
static int bands_painted_up(const int64_t *at, Py_ssize_t first, Py_ssize_t last, double consistent) {
    Py_ssize_t columns = 0, upward = 0, count = last - first;
    for (Py_ssize_t j = first; j < last; j++) {
        Py_ssize_t over = 0;
        for (Py_ssize_t i = first; i < j; i++) over += at[i] > at[j];
        columns += over > 0; upward += over;
    }
    Py_ssize_t pairs = count * (count - 1) / 2;
    return columns > 1 && (double)upward > consistent * (double)pairs;
}

/* The order of the bands (into order, count long) stream_band_order reads
 * them in, from the witnessed bands' least units `at`, first..last the
 * bands it may move; 0 where a heading between them is painted out of turn
 * (the bands then keep their order, as where it is no witness). */
static int band_turns(const int64_t *at, const char *furniture, Py_ssize_t count, Py_ssize_t first, Py_ssize_t last,
                      int64_t *order, int64_t *rank, int64_t *tmp) {
    stable_argsort_int(at, order, tmp, count);
    for (Py_ssize_t k = 0; k < count; k++) rank[order[k]] = k;
    for (Py_ssize_t k = first; k + 1 < last; k++)
        if (furniture[k] && rank[k + 1] != rank[k] + 1) return 0;
    for (Py_ssize_t k = 0; k < count; k++) order[k] = k;
    stable_argsort_int(at + first, tmp, rank, last - first);
    for (Py_ssize_t k = 0; k < last - first; k++) order[first + k] = first + tmp[k];
    return 1;
}

/* ---- band_order(x0, x1, y0, y1, ids, bands, furniture, slack, small_print, consistent,
 *                 descent, line_step, same_row, back_share, rtl) -> order | None
 * tiebreaks.stream_band_order: the region's bands (a list of int64 arrays,
 * top to bottom, two or more) in the order the stream paints them where it
 * is a witness, as int64 band numbers (the bands' own order where it is
 * none); None where a band is empty or no int64 array (the reference then
 * decides). `furniture` holds a byte per band. */
static PyObject *band_order_of(const double *const box[4], const int64_t *region, Py_ssize_t m, Bands *b, const char *furniture,
                               const double limits[3], const ReadsDown *r) {
    Py_ssize_t count = b->count, longest = 0;
    for (Py_ssize_t k = 0; k < count; k++) if (b->at[k + 1] - b->at[k] > longest) longest = b->at[k + 1] - b->at[k];
    Py_ssize_t total = b->at[count];
    int64_t *sorted = malloc((longest + 1) * sizeof(int64_t)), *cuts = malloc((longest + 1) * sizeof(int64_t));
    int64_t *rest = malloc((longest + 1) * sizeof(int64_t)), *at = malloc(count * sizeof(int64_t));
    int64_t *order = malloc(count * sizeof(int64_t)), *rank = malloc(count * sizeof(int64_t)), *tmp = malloc(count * sizeof(int64_t));
    double *work = malloc((total + 1) * sizeof(double));
    PyObject *result = NULL;
    if (!sorted || !cuts || !rest || !at || !order || !rank || !tmp || !work) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < count; k++) { b->painted[k] = b->ids + b->at[k]; b->painted_n[k] = b->at[k + 1] - b->at[k]; order[k] = k; }
    foot_painted_first(b, region, m, box[2], box[3], limits[0], rest, cuts);
    Py_ssize_t first = furniture[0] ? 1 : 0, last = furniture[count - 1] ? count - 1 : count;
    if (bands_witnessed(b, box, region, m, r, sorted, cuts)) {
        last = small_print_at_foot(b, box[2], box[3], first, last, limits[1], work);
        for (Py_ssize_t k = 0; k < count; k++) at[k] = least_of(b->painted[k], b->painted_n[k]);
        if (last - first >= 2 && !bands_painted_up(at, first, last, limits[2]) && !band_turns(at, furniture, count, first, last, order, rank, tmp))
            for (Py_ssize_t k = 0; k < count; k++) order[k] = k;
    }
    result = int64_bytes(order, count);
done:
    free(sorted); free(cuts); free(rest); free(at); free(order); free(rank); free(tmp); free(work);
    return result;
}

/* The region's units (bounds-checked into `size` units, sorted into *region)
 * and its bands joined (join_run_list, their ids bounds-checked, starts into
 * b->at): 1 done, 0 where a band is empty or no int64 array, -1 on error. */
static int region_bands(PyObject *ids_obj, PyObject *bands_obj, Py_ssize_t size, View *vi, int64_t **region, Bands *b,
                        int64_t **ids, int64_t **lengths) {
    Py_ssize_t count = 0, total = 0;
    if (get_view(ids_obj, vi, "l", 8, "ids") < 0) return -1;
    Py_ssize_t m = vi->view.len / 8;
    if (check_ids(vi->view.buf, m, size, "ids") < 0) return -1;
    int status = join_run_list(bands_obj, ids, lengths, &count, &total);
    if (status <= 0) return status;
    if (check_ids(*ids, total, size, "bands") < 0) return -1;
    *region = malloc((m + 1) * sizeof(int64_t));
    int64_t *at = malloc((count + 1) * sizeof(int64_t));
    b->painted = malloc(count * sizeof(int64_t *)); b->painted_n = malloc(count * sizeof(Py_ssize_t));
    if (!*region || !at || !b->painted || !b->painted_n) { free(at); PyErr_NoMemory(); return -1; }
    memcpy(*region, vi->view.buf, (size_t)m * sizeof(int64_t));
    qsort(*region, (size_t)m, sizeof(int64_t), cmp_int64);
    at[0] = 0;
    for (Py_ssize_t k = 0; k < count; k++) at[k + 1] = at[k] + (*lengths)[k];
    b->ids = *ids; b->len = *lengths; b->at = at; b->count = count;
    return 1;
}

static PyObject *layout_band_order(PyObject *mod, PyObject *args) {
    PyObject *objs[4], *ids_obj, *bands_obj;
    const char *furniture;
    Py_ssize_t n_furniture;
    double limits[3];
    ReadsDown r;
    if (!PyArg_ParseTuple(args, "OOOOOOy#dddddddp", &objs[0], &objs[1], &objs[2], &objs[3], &ids_obj, &bands_obj, &furniture,
                          &n_furniture, &limits[0], &limits[1], &limits[2], &r.descent, &r.line_step, &r.same_row,
                          &r.back_share, &r.rtl))
        return NULL;
    View vbox[4], vi = {0};
    memset(vbox, 0, sizeof vbox);
    Bands b = {0};
    int64_t *region = NULL, *ids = NULL, *lengths = NULL;
    PyObject *result = NULL;
    Py_ssize_t size = get_boxes(objs, vbox);
    int status = size < 0 ? -1 : region_bands(ids_obj, bands_obj, size, &vi, &region, &b, &ids, &lengths);
    if (status == 0) result = Py_NewRef(Py_None);
    if (status <= 0) goto done;
    if (n_furniture != b.count || b.count < 2) { PyErr_SetString(PyExc_ValueError, "two bands or more, a furniture byte each"); goto done; }
    const double *const box[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    result = band_order_of(box, region, vi.view.len / 8, &b, furniture, limits, &r);
done:
    free(region); free(ids); free(lengths); free((void *)b.at); free(b.painted); free(b.painted_n);
    release_boxes(vbox); release(&vi);
    return result;
}

/* tiebreaks._foot_across of the sides first[0..nf) and second[0..ns) of a
 * gutter at x `middle`: into cols the sides in reading order (the first
 * less its foot, the second, the foot), into lengths their lengths; how
 * many sides. */
static Py_ssize_t foot_across(const double *const box[4], const int64_t *first, Py_ssize_t nf, const int64_t *second, Py_ssize_t ns,
                              double middle, double slack, int64_t *cols, int64_t *lengths) {
    double under = np_max_at(box[2], second, ns) + slack;
    Py_ssize_t kept = 0, foot = 0;
    for (Py_ssize_t k = 0; k < nf; k++) {
        int64_t u = first[k];
        foot += box[0][u] < middle && box[1][u] > middle && box[3][u] <= under;
    }
    if (!foot || foot == nf) {
        memcpy(cols, first, (size_t)nf * sizeof(int64_t)); memcpy(cols + nf, second, (size_t)ns * sizeof(int64_t));
        lengths[0] = nf; lengths[1] = ns;
        return 2;
    }
    Py_ssize_t at_foot = nf - foot + ns;
    for (Py_ssize_t k = 0; k < nf; k++) {
        int64_t u = first[k];
        if (box[0][u] < middle && box[1][u] > middle && box[3][u] <= under) cols[at_foot++] = u;
        else cols[kept++] = u;
    }
    memcpy(cols + kept, second, (size_t)ns * sizeof(int64_t));
    lengths[0] = kept; lengths[1] = ns; lengths[2] = foot;
    return 3;
}

/* The sides of the gutter at x `middle` of the region ids[0..n) (a unit
 * whose left edge is at `middle` or right of it on the right side, each in
 * the region's order; the right side first on an rtl page) through
 * foot_across into cols and lengths; 0 sides where one side is empty. */
static Py_ssize_t gutter_sides(const double *const box[4], const int64_t *ids, Py_ssize_t n, double middle, double slack, int rtl,
                               int64_t *work, int64_t *cols, int64_t *lengths) {
    Py_ssize_t left = 0, right = n;
    for (Py_ssize_t k = 0; k < n; k++) if (!(box[0][ids[k]] >= middle)) work[left++] = ids[k];
    if (!left || left == n) return 0;
    for (Py_ssize_t k = n - 1; k >= 0; k--) if (box[0][ids[k]] >= middle) work[--right] = ids[k];
    if (rtl) return foot_across(box, work + left, n - left, work, left, middle, slack, cols, lengths);
    return foot_across(box, work, left, work + left, n - left, middle, slack, cols, lengths);
}

/* stream_reads_columns over the region's sides (cols, `sides` runs of
 * `lengths`, n units) and its bands b: 1, 0, or -1 on error; `work` holds
 * n units. */
static int sides_read_first(const double *const box[4], const int64_t *cols, const int64_t *lengths, Py_ssize_t sides, Py_ssize_t n,
                            const Bands *b, Py_ssize_t units, double consistent, const ReadsDown *r, int64_t *work) {
    Py_ssize_t column_first, band_first;
    if (cell_disorder_of(b->ids, b->len, b->count, b->at[b->count], cols, lengths, sides, n, units, 0, &column_first) < 0) return -1;
    if ((double)column_first > consistent * (double)n) return 0;
    for (Py_ssize_t k = 0, at = 0; k < sides; at += lengths[k], k++)
        if (!reads_down_sorted(box, cols + at, lengths[k], r, work)) return 0;
    if (cell_disorder_of(b->ids, b->len, b->count, b->at[b->count], cols, lengths, sides, n, units, 1, &band_first) < 0) return -1;
    return column_first < band_first;
}

/* ---- reads_columns(x0, x1, y0, y1, ids, ordered, starts, bands, units, share, gutter, slack,
 *                    consistent, descent, line_step, same_row, back_share, rtl) -> bool | None
 * tiebreaks.stream_reads_columns: does the stream read the two sides of the
 * region's best gutter candidate (gutter_cells of its rows: `ordered` in
 * rows from `starts`) one after the other, across its `bands`, closer than
 * band after band, each side down the page? None where a band is empty or
 * no int64 array (the reference then decides). */
static PyObject *layout_reads_columns(PyObject *mod, PyObject *args) {
    PyObject *objs[4], *ids_obj, *ordered_obj, *starts_obj, *bands_obj;
    Py_ssize_t units;
    double share, gutter, slack, consistent;
    ReadsDown r;
    if (!PyArg_ParseTuple(args, "OOOOOOOOnddddddddp", &objs[0], &objs[1], &objs[2], &objs[3], &ids_obj, &ordered_obj, &starts_obj,
                          &bands_obj, &units, &share, &gutter, &slack, &consistent, &r.descent, &r.line_step, &r.same_row,
                          &r.back_share, &r.rtl))
        return NULL;
    View vbox[4], vi = {0}, vo = {0}, vs = {0};
    memset(vbox, 0, sizeof vbox);
    Bands b = {0};
    int64_t *region = NULL, *ids = NULL, *lengths = NULL, *work = NULL, *cols = NULL;
    char *crossing = NULL;
    PyObject *result = NULL;
    Py_ssize_t size = get_boxes(objs, vbox);
    int status = size < 0 ? -1 : region_bands(ids_obj, bands_obj, size, &vi, &region, &b, &ids, &lengths);
    if (status == 0) result = Py_NewRef(Py_None);
    if (status <= 0) goto done;
    if (get_view(ordered_obj, &vo, "l", 8, "ordered") < 0 || get_view(starts_obj, &vs, "l", 8, "starts") < 0) goto done;
    Py_ssize_t n = vi.view.len / 8, m = vo.view.len / 8, rows = vs.view.len / 8;
    if (check_ids(vo.view.buf, m, size, "ordered") < 0 || check_row_starts(vs.view.buf, rows, m) < 0) goto done;
    const double *const box[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    double left = 0.0, right = 0.0;
    int64_t side_lengths[3];
    work = malloc((n + m + 1) * sizeof(int64_t)); cols = malloc((n + 1) * sizeof(int64_t)); crossing = malloc(rows + 1);
    if (!work || !cols || !crossing) { PyErr_NoMemory(); goto done; }
    int found = rows < 2 ? 0 : gutter_of(box[0], box[1], box[2], box[3], vo.view.buf, m, vs.view.buf, rows, share, gutter, &left, &right, crossing);
    if (found < 0) goto done;
    Py_ssize_t sides = found ? gutter_sides(box, vi.view.buf, n, (left + right) / 2, slack, r.rtl, work, cols, side_lengths) : 0;
    int reads = sides ? sides_read_first(box, cols, side_lengths, sides, n, &b, units, consistent, &r, work) : 0;
    if (reads >= 0) result = PyBool_FromLong(reads);
done:
    free(region); free(ids); free(lengths); free((void *)b.at); free(b.painted); free(b.painted_n); free(work); free(cols); free(crossing);
    release_boxes(vbox); release(&vi); release(&vo); release(&vs);
    return result;
}

/* ---- a region's text columns (cut.text_columns) ----------------------------
 * cut.text_columns whole but for the recursion: the region's groups between
 * full-height gutters (gutter_cuts), those next to one another that share
 * their rows joined (_tables_joined), and per gutter left between two
 * groups whether it stands: between two groups of running text, or two
 * columns set on their own (own_rows); or which group's own cut is asked
 * (beside_text: read_region, in Python). The text-column and prose tests of
 * each group are regions.judge's (column_code, and wraps' measure on the
 * group's rows where a narrow group's lines must wrap). */

typedef struct {
    GroupViews v;
    const int64_t *words; const double *first_word;
    double tol, fill; Py_ssize_t sample; ColumnLimits lim;
    double descent, paragraph_step, wrap_space; Py_ssize_t min_pairs; double min_words; Py_ssize_t min_lines; double wrapped_share;
    double same_baseline, padding, aligned, cover; Py_ssize_t grid_rows;
    int64_t *ints; double *floats; Py_ssize_t cap;
} ColumnPage;

/* regions.is_text_column and regions.holds_prose of units ids[0..n) into
 * *text and *prose (judge: a group of fewer than two units is neither):
 * 0, or -1 with an exception set; 1 (not judged) where the lines must wrap
 * and the page's words are not given (p->words NULL: leaf_witness asks for
 * them only then). */
static int group_verdicts(ColumnPage *p, const int64_t *ids, Py_ssize_t n, int *text, int *prose) {
    *text = *prose = 0;
    if (n < 2) return 0;
    if (grow_group_work(&p->ints, &p->floats, &p->cap, n) < 0) return -1;
    size_t cap = (size_t)n + 1;
    GroupWork w = {p->ints, p->ints + cap, p->ints + 2 * cap, p->ints + 3 * cap, p->floats, p->floats + n, p->ints + 4 * cap};
    GroupStats g;
    if (group_stats(p->v.box, p->v.inked.view.buf, p->v.start.view.buf, p->v.end.view.buf, p->v.glyphs, p->v.alpha.view.buf,
                    p->v.space.view.buf, ids, n, p->tol, p->fill, p->sample, w, &g) < 0)
        return -1;
    int code = column_code(&g, n, p->fill, &p->lim);
    *prose = (code & 4) != 0;
    *text = (code & 3) == 1;
    if ((code & 3) == 2) {
        if (!p->words) return 1;  /* the page's words not given: not judged */
        /* regions.wraps on the group's rows (rows_of's: group_stats sorted them so) */
        int64_t *pairs = malloc(cap * sizeof(int64_t)), *counts = malloc(cap * sizeof(int64_t));
        double *step = malloc(cap * sizeof(double)), *sorted = malloc(cap * sizeof(double));
        if (!pairs || !counts || !step || !sorted) { free(pairs); free(counts); free(step); free(sorted); PyErr_NoMemory(); return -1; }
        const double *box[4] = {p->v.box[0].view.buf, p->v.box[1].view.buf, p->v.box[2].view.buf, p->v.box[3].view.buf};
        WrapCounts c = wrap_counts(box, p->words, p->first_word, w.sorted, n, w.starts, g.rows, p->descent, p->paragraph_step,
                                   p->wrap_space, pairs, step, sorted, counts);
        free(pairs); free(counts); free(step); free(sorted);
        *text = c.pairs >= p->min_pairs && c.median_words >= p->min_words && c.lines >= p->min_lines &&
                (double)c.wrapped >= p->wrapped_share * (double)c.lines;
    }
    return 0;
}

/* regions.shared_rows of a[0..na) and b[0..nb) (kernels.shared_pair): -1 on error. */
static int64_t pair_shared_count(const double *Y0, const double *Y1, const int64_t *a, Py_ssize_t na, const int64_t *b,
                                 Py_ssize_t nb, double descent, double tol) {
    int64_t *ids = malloc((na + nb + 1) * sizeof(int64_t)), *owner = malloc((na + nb + 1) * sizeof(int64_t));
    int64_t *keys = NULL, *counts = NULL, count = -1;
    if (!ids || !owner) { PyErr_NoMemory(); goto done; }
    memcpy(ids, a, (size_t)na * sizeof(int64_t));
    memcpy(ids + na, b, (size_t)nb * sizeof(int64_t));
    for (Py_ssize_t k = 0; k < na + nb; k++) owner[k] = k < na ? 0 : 1;
    Py_ssize_t distinct = shared_keys(Y0, Y1, ids, owner, na + nb, 2, descent, tol, &keys, &counts);
    if (distinct < 0) goto done;
    int64_t key = na <= nb ? 1 : 2;
    count = 0;
    for (Py_ssize_t k = 0; k < distinct; k++)
        if (keys[k] == key) count = counts[k];
done:
    free(ids); free(owner); free(keys); free(counts);
    return count;
}

/* regions._unaligned of a[0..na) and b[0..nb): 1, 0, or -1 on error. */
static int unaligned(const ColumnPage *p, const int64_t *a, Py_ssize_t na, const int64_t *b, Py_ssize_t nb) {
    Py_ssize_t least = na < nb ? na : nb;
    if (least < 2) return 0;
    int64_t shared = pair_shared_count(p->v.box[2].view.buf, p->v.box[3].view.buf, a, na, b, nb, p->descent, p->same_baseline);
    if (shared < 0) return -1;
    return (double)shared <= p->aligned * (double)least;
}

/* regions._on_rows_of: do more than ALIGNED of the lines starts[0..ns) lie on
 * the baseline of a line of other[0..no) (no >= 1)? */
static int on_rows_of(const ColumnPage *p, const int64_t *starts, Py_ssize_t ns, const int64_t *other, Py_ssize_t no) {
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    Py_ssize_t near = 0;
    for (Py_ssize_t i = 0; i < ns; i++) {
        double base = unit_baseline(Y0, Y1, starts[i], p->descent), least = fabs(base - unit_baseline(Y0, Y1, other[0], p->descent));
        for (Py_ssize_t j = 1; j < no; j++) least = np_min(least, fabs(base - unit_baseline(Y0, Y1, other[j], p->descent)));
        near += least <= p->same_baseline;
    }
    return (double)near > p->aligned * (double)ns;
}

/* regions.staggered of a[0..na) and b[0..nb) (both one line or more): 1, 0,
 * or -1 on error. */
static int staggered_of(const ColumnPage *p, const int64_t *a, Py_ssize_t na, const int64_t *b, Py_ssize_t nb) {
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    Py_ssize_t n = na > nb ? na : nb;
    int64_t *fa = malloc((na + 1) * sizeof(int64_t)), *fb = malloc((nb + 1) * sizeof(int64_t));
    int64_t *order = malloc((n + 1) * sizeof(int64_t)), *tmp = malloc((n + 1) * sizeof(int64_t));
    double *key = calloc(n + 1, sizeof(double));
    int found = -1;
    if (!fa || !fb || !order || !tmp || !key) { PyErr_NoMemory(); goto done; }
    Py_ssize_t sa = block_firsts_of(Y0, Y1, a, na, p->padding, 0, fa, order, tmp, key);
    Py_ssize_t sb = block_firsts_of(Y0, Y1, b, nb, p->padding, 0, fb, order, tmp, key);
    found = unaligned(p, fa, sa, fb, sb);
    if (found <= 0) goto done;
    if (!on_rows_of(p, fa, sa, b, nb) && !on_rows_of(p, fb, sb, a, na)) { found = 1; goto done; }
    sa = block_firsts_of(Y0, Y1, a, na, p->padding, 1, fa, order, tmp, key);
    sb = block_firsts_of(Y0, Y1, b, nb, p->padding, 1, fb, order, tmp, key);
    found = unaligned(p, fa, sa, fb, sb);
done:
    free(fa); free(fb); free(order); free(tmp); free(key);
    return found;
}

static double width_of(const ColumnPage *p, const int64_t *ids, Py_ssize_t n) {
    return np_max_at(p->v.box[1].view.buf, ids, n) - np_min_at(p->v.box[0].view.buf, ids, n);
}

/* regions.own_rows of left[0..nl) and right[0..nr) (both one unit or more):
 * 1, 0, or -1 on error. */
static int own_rows_of(const ColumnPage *p, const int64_t *left, Py_ssize_t nl, const int64_t *right, Py_ssize_t nr) {
    double narrow = py_min(width_of(p, left, nl), width_of(p, right, nr));
    Py_ssize_t least = nl < nr ? nl : nr;
    if (least < p->grid_rows || narrow < p->lim.narrow) return 0;
    int64_t shared = pair_shared_count(p->v.box[2].view.buf, p->v.box[3].view.buf, left, nl, right, nr, p->descent, p->same_baseline);
    if (shared < 0) return -1;
    if ((double)shared <= p->aligned * (double)least) return narrow >= p->lim.column_width;
    return staggered_of(p, left, nl, right, nr);
}

/* A region's groups: group g is sorted[at[g]..at[g + 1]), with its verdicts. */
typedef struct { const int64_t *sorted; int64_t *at; int *text, *running; Py_ssize_t count; } Groups;

/* cut._tables_joined of the groups g (their verdicts held) into j (at, the
 * verdicts of the groups joined): 0, or -1 on error. */
static int tables_joined(ColumnPage *p, const Groups *g, Groups *j) {
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    j->count = 1; j->at[0] = 0; j->text[0] = g->text[0]; j->running[0] = g->running[0];
    for (Py_ssize_t i = 1; i < g->count; i++) {
        Py_ssize_t last = j->count - 1, lo = j->at[last], mid = g->at[i], hi = g->at[i + 1];
        const int64_t *a = g->sorted + lo, *b = g->sorted + mid;
        Py_ssize_t na = mid - lo, nb = hi - mid, least = na < nb ? na : nb;
        int join = 0;
        if (!(j->running[last] || g->running[i])) {
            int64_t shared = pair_shared_count(Y0, Y1, a, na, b, nb, p->descent, p->same_baseline);
            if (shared < 0) return -1;
            if ((double)shared > p->aligned * (double)least) {
                int apart = staggered_of(p, a, na, b, nb);
                if (apart < 0) return -1;
                join = !apart;
            }
        }
        if (join) {
            int text, prose;
            if (group_verdicts(p, a, na + nb, &text, &prose) < 0) return -1;
            j->text[last] = text; j->running[last] = text || prose;
        } else {
            j->at[j->count] = mid; j->text[j->count] = g->text[i]; j->running[j->count] = g->running[i];
            j->count++;
        }
    }
    j->at[j->count] = g->at[g->count];
    return 0;
}

/* cut.text_columns' beside_text less its question to read_region: is group
 * k, not running text, beside the running text of group j along
 * COMPOUND_COVER of its height? */
static int beside_cover(const ColumnPage *p, const Groups *g, Py_ssize_t k, Py_ssize_t j) {
    if (g->running[k] || !g->running[j]) return 0;
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    const int64_t *a = g->sorted + g->at[k], *b = g->sorted + g->at[j];
    Py_ssize_t na = g->at[k + 1] - g->at[k], nb = g->at[j + 1] - g->at[j];
    double top = np_max_at(Y1, a, na), bottom = np_min_at(Y0, a, na);
    double beside = py_min(top, np_max_at(Y1, b, nb)) - py_max(bottom, np_min_at(Y0, b, nb));
    return !(beside < p->cover * (top - bottom));
}

/* Per gutter between groups i - 1 and i of g: code (bit 0 it stands between
 * running text, bit 1 between columns set on their own, beside_table) and
 * the group whose own cut decides (beside_text), or -1: 0, or -1 on error. */
static int gutter_codes(ColumnPage *p, const Groups *g, char *codes, int64_t *asks) {
    for (Py_ssize_t i = 1; i < g->count; i++) {
        codes[i - 1] = 0; asks[i - 1] = -1;
        if (g->running[i - 1] && g->running[i]) { codes[i - 1] = 1; continue; }
        if (beside_cover(p, g, i - 1, i)) asks[i - 1] = i - 1;
        else if (beside_cover(p, g, i, i - 1)) asks[i - 1] = i;
        if (g->text[i - 1] || g->text[i]) continue;
        const int64_t *a = g->sorted + g->at[i - 1], *b = g->sorted + g->at[i];
        int own = own_rows_of(p, a, g->at[i] - g->at[i - 1], b, g->at[i + 1] - g->at[i]);
        if (own < 0) return -1;
        codes[i - 1] = (char)(own << 1);
    }
    return 0;
}

/* The groups of sorted[0..n) between cuts[0..n_cuts) with their verdicts
 * into g (buffers of n_cuts + 2): 0, or -1 on error. */
static int judged_groups(ColumnPage *p, const int64_t *sorted, Py_ssize_t n, const int64_t *cuts, Py_ssize_t n_cuts, Groups *g) {
    g->sorted = sorted; g->count = n_cuts + 1; g->at[0] = 0; g->at[g->count] = n;
    for (Py_ssize_t k = 0; k < n_cuts; k++) g->at[k + 1] = cuts[k];
    for (Py_ssize_t k = 0; k < g->count; k++) {
        int text, prose;
        if (group_verdicts(p, sorted + g->at[k], g->at[k + 1] - g->at[k], &text, &prose) < 0) return -1;
        g->text[k] = text; g->running[k] = text || prose;
    }
    return 0;
}

/* The page's columns of a ColumnPage (its units' boxes, glyphs and words):
 * the unit count, or -1 with an exception set. */
static Py_ssize_t get_column_page(PyObject *const box[4], PyObject *const glyphs[5], PyObject *words, PyObject *first_word,
                                  ColumnPage *p, View *vw, View *vf) {
    Py_ssize_t size = get_group_columns(box, glyphs[0], glyphs[1], glyphs[2], glyphs[3], glyphs[4], &p->v);
    if (size < 0 || get_view(words, vw, "l", 8, "words") < 0 || get_view(first_word, vf, "d", 8, "first_word") < 0) return -1;
    if (vw->view.len / 8 != size || vf->view.len / 8 != size) { PyErr_SetString(PyExc_ValueError, "unit columns differ in length"); return -1; }
    p->words = vw->view.buf; p->first_word = vf->view.buf;
    return size;
}

/* ---- column_groups(x0, x1, y0, y1, inked, start, end, alpha, space, words, first_word, ids, gutter,
 *                    (tol, fill, sample), (narrow, column_width, split_rows, glyphs, letters, prose_lines, prose_share),
 *                    (descent, paragraph_step, wrap_space, min_pairs, min_words, min_lines, wrapped),
 *                    (same_baseline, padding, aligned, cover, grid_rows))
 *      -> None | (ids by x0, group starts, codes, asks)
 * cut.text_columns but for beside_text's read_region: None where no
 * full-height gutter parts the region; else its units by x0, where each
 * group (tables joined) starts after the first, and per gutter between two
 * groups its code (gutter_codes) and the group whose own cut decides it. */
static PyObject *layout_column_groups(PyObject *mod, PyObject *args) {
    PyObject *box[4], *glyphs[5], *words_obj, *first_obj, *ids_obj;
    double gutter, min_words;
    ColumnPage p;
    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOd(ddn)(dddddnd)(dddndnd)(ddddn)", &box[0], &box[1], &box[2], &box[3], &glyphs[0],
                          &glyphs[1], &glyphs[2], &glyphs[3], &glyphs[4], &words_obj, &first_obj, &ids_obj, &gutter, &p.tol, &p.fill,
                          &p.sample, &p.lim.narrow, &p.lim.column_width, &p.lim.split_rows, &p.lim.min_glyphs, &p.lim.letter_share,
                          &p.lim.prose_lines, &p.lim.prose_share, &p.descent, &p.paragraph_step, &p.wrap_space, &p.min_pairs,
                          &min_words, &p.min_lines, &p.wrapped_share, &p.same_baseline, &p.padding, &p.aligned, &p.cover, &p.grid_rows))
        return NULL;
    p.min_words = min_words;
    View vw = {0}, vf = {0}, vi = {0};
    PyObject *result = NULL;
    int64_t *work = NULL;
    double *key = NULL;
    int *flags = NULL;
    char *codes = NULL;
    Py_ssize_t size = get_column_page(box, glyphs, words_obj, first_obj, &p, &vw, &vf);
    if (size < 0 || get_view(ids_obj, &vi, "l", 8, "ids") < 0) goto done;
    Py_ssize_t n = vi.view.len / 8;
    if (check_ids(vi.view.buf, n, size, "ids") < 0) goto done;
    size_t room = (size_t)n + 2;
    work = malloc(8 * room * sizeof(int64_t)); key = calloc(room, sizeof(double)); flags = malloc(4 * room * sizeof(int));
    codes = malloc(room);
    if (!work || !key || !flags || !codes) { PyErr_NoMemory(); goto done; }
    int64_t *sorted = work, *cuts = work + room;
    Py_ssize_t n_cuts = gutter_cuts_of(p.v.box[0].view.buf, p.v.box[1].view.buf, vi.view.buf, n, gutter, sorted, cuts,
                                       work + 2 * room, work + 3 * room, key);
    if (!n_cuts) { result = Py_NewRef(Py_None); goto done; }
    Groups g = {0, work + 2 * room, flags, flags + room, 0}, j = {sorted, work + 3 * room, flags + 2 * room, flags + 3 * room, 0};
    int64_t *asks = work + 4 * room;
    if (judged_groups(&p, sorted, n, cuts, n_cuts, &g) < 0 || tables_joined(&p, &g, &j) < 0 || gutter_codes(&p, &j, codes, asks) < 0)
        goto done;
    result = Py_BuildValue("(NNNN)", int64_bytes(sorted, n), int64_bytes(j.at + 1, j.count - 1),
                           PyByteArray_FromStringAndSize(codes, j.count - 1), int64_bytes(asks, j.count - 1));
done:
    free(work); free(key); free(flags); free(codes); free(p.ints); free(p.floats);
    release_group(&p.v); release(&vw); release(&vf); release(&vi);
    return result;
}


/* ---- a region's bands at its columns' gaps (tiebreaks.column_gap_bands) ---- */

/* tiebreaks._widest_lines_through of one column (units col[0..n)) cut into
 * parts at its section gaps (gap_bands of its rows): per gap between two
 * parts, one of them a text column, the first widest of the region's
 * whitespace lines (low[l] to high[l], `lines` of them) through it marked
 * in `candidate`: 0, or -1 on error. */
static int widest_lines_through(ColumnPage *p, const int64_t *col, Py_ssize_t n, const double *low, const double *high,
                                Py_ssize_t lines, double section_gap, char *candidate) {
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    int status = -1;
    size_t room = (size_t)n + 1;
    int64_t *sorted = malloc(room * sizeof(int64_t)), *S = malloc((room + 1) * sizeof(int64_t)), *order = malloc(room * sizeof(int64_t));
    int64_t *tmp = malloc(room * sizeof(int64_t)), *at = malloc((room + 1) * sizeof(int64_t));
    double *key = calloc(room, sizeof(double));
    int *text = malloc(room * sizeof(int));
    if (!sorted || !S || !order || !tmp || !at || !key || !text) { PyErr_NoMemory(); goto done; }
    Py_ssize_t rows = sort_rows(Y0, Y1, col, n, p->tol, sorted, S, order, tmp, key);
    Py_ssize_t parts = rows < 2 ? 0 : section_breaks_of(Y0, Y1, sorted, n, S, rows, section_gap, at + 1);
    status = 0;
    if (!parts) goto done;
    at[0] = 0; parts++; at[parts] = n;
    for (Py_ssize_t k = 0; k < parts; k++) {
        int prose;
        if (group_verdicts(p, sorted + at[k], at[k + 1] - at[k], &text[k], &prose) < 0) { status = -1; goto done; }
    }
    double top = np_min_at(Y0, sorted, at[1]);  /* np.minimum.accumulate of the parts' lowest edges */
    for (Py_ssize_t k = 1; k < parts; k++) {
        if (text[k - 1] || text[k]) {
            double bottom = np_max_at(Y1, sorted + at[k], at[k + 1] - at[k]);
            Py_ssize_t widest = -1;
            for (Py_ssize_t l = 0; l < lines; l++) {
                if (!(low[l] < top && high[l] > bottom && high[l] > low[l])) continue;
                if (widest < 0 || high[l] - low[l] > high[widest] - low[widest]) widest = l;
            }
            if (widest >= 0) candidate[widest] = 1;
        }
        top = np_min(top, np_min_at(Y0, sorted + at[k], at[k + 1] - at[k]));
    }
done:
    free(sorted); free(S); free(order); free(tmp); free(at); free(key); free(text);
    return status;
}

/* tiebreaks.stream_reads_bands of the region ordered[0..m) (n_ids units) cut
 * before position `cut` against its columns c: 1, 0, or -1 on error. */
static int reads_bands_at(const int64_t *ordered, Py_ssize_t m, Py_ssize_t cut, const Bands *c, Py_ssize_t units, double strays,
                          Py_ssize_t n_ids) {
    int64_t lengths[2] = {cut, m - cut};
    Py_ssize_t band_first, column_first;
    Py_ssize_t total = c->at[c->count];
    if (cell_disorder_of(ordered, lengths, 2, m, c->ids, c->len, c->count, total, units, 1, &band_first) < 0) return -1;
    if (!((double)band_first <= strays * (double)n_ids)) return 0;
    if (cell_disorder_of(ordered, lengths, 2, m, c->ids, c->len, c->count, total, units, 0, &column_first) < 0) return -1;
    return band_first < column_first;
}

/* ---- gap_cuts(x0, x1, y0, y1, inked, start, end, alpha, space, words, first_word, ids, ordered, starts, columns,
 *               units, section_gap, strays, (tol, fill, sample), (narrow, ...), (descent, ...)) -> kept | None
 * tiebreaks.column_gap_bands whole: of the region (`ids`; its rows
 * `ordered` from `starts`, two or more) and its `columns`, the row breaks
 * (numbers into starts[1:]) it is cut at, ascending; None where a column
 * is empty or no int64 array (the rule then decides). */
static PyObject *layout_gap_cuts(PyObject *mod, PyObject *args) {
    PyObject *box[4], *glyphs[5], *words_obj, *first_obj, *ids_obj, *ordered_obj, *starts_obj, *columns_obj;
    Py_ssize_t units;
    double section_gap, strays, min_words;
    ColumnPage p;
    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOOndd(ddn)(dddddnd)(dddndnd)", &box[0], &box[1], &box[2], &box[3], &glyphs[0],
                          &glyphs[1], &glyphs[2], &glyphs[3], &glyphs[4], &words_obj, &first_obj, &ids_obj, &ordered_obj, &starts_obj,
                          &columns_obj, &units, &section_gap, &strays, &p.tol, &p.fill, &p.sample, &p.lim.narrow, &p.lim.column_width,
                          &p.lim.split_rows, &p.lim.min_glyphs, &p.lim.letter_share, &p.lim.prose_lines, &p.lim.prose_share,
                          &p.descent, &p.paragraph_step, &p.wrap_space, &p.min_pairs, &min_words, &p.min_lines, &p.wrapped_share))
        return NULL;
    p.min_words = min_words;
    View vw = {0}, vf = {0}, vi = {0}, vo = {0}, vs = {0};
    PyObject *result = NULL;
    Bands c = {0};
    int64_t *region = NULL, *cids = NULL, *clen = NULL, *kept = NULL;
    double *low = NULL, *high = NULL;
    char *candidate = NULL;
    Py_ssize_t size = get_column_page(box, glyphs, words_obj, first_obj, &p, &vw, &vf);
    int status = size < 0 ? -1 : region_bands(ids_obj, columns_obj, size, &vi, &region, &c, &cids, &clen);
    if (status == 0) result = Py_NewRef(Py_None);
    if (status <= 0) goto done;
    if (get_view(ordered_obj, &vo, "l", 8, "ordered") < 0 || get_view(starts_obj, &vs, "l", 8, "starts") < 0) goto done;
    Py_ssize_t m = vo.view.len / 8, rows = vs.view.len / 8, lines = rows - 1;
    const int64_t *ordered = vo.view.buf, *S = vs.view.buf;
    if (check_ids(ordered, m, size, "ordered") < 0 || check_row_starts(S, rows, m) < 0) goto done;
    if (rows < 2) { PyErr_SetString(PyExc_ValueError, "two rows or more"); goto done; }
    const double *Y0 = p.v.box[2].view.buf, *Y1 = p.v.box[3].view.buf;
    low = malloc(rows * sizeof(double)); high = malloc(rows * sizeof(double)); candidate = calloc(rows, 1);
    kept = malloc(rows * sizeof(int64_t));
    if (!low || !high || !candidate || !kept) { PyErr_NoMemory(); goto done; }
    double floor = Y0[ordered[0]];  /* np.minimum.accumulate: NaN propagates */
    for (Py_ssize_t r = 1, k = 0; r < rows; r++) {
        while (k < S[r] - 1) floor = np_min(floor, Y0[ordered[++k]]);
        low[r - 1] = Y1[ordered[S[r]]]; high[r - 1] = floor;
    }
    for (Py_ssize_t k = 0; k < c.count; k++)
        if (widest_lines_through(&p, c.ids + c.at[k], c.at[k + 1] - c.at[k], low, high, lines, section_gap, candidate) < 0) goto done;
    Py_ssize_t n_kept = 0;
    for (Py_ssize_t l = 0; l < lines; l++) {
        if (!candidate[l]) continue;
        int reads = reads_bands_at(ordered, m, S[l + 1], &c, units, strays, vi.view.len / 8);
        if (reads < 0) goto done;
        if (reads) kept[n_kept++] = l;
    }
    result = int64_bytes(kept, n_kept);
done:
    free(region); free(cids); free(clen); free((void *)c.at); free(c.painted); free(c.painted_n);
    free(low); free(high); free(candidate); free(kept); free(p.ints); free(p.floats);
    release_group(&p.v); release(&vw); release(&vf); release(&vi); release(&vo); release(&vs);
    return result;
}

/* ==== lcut: a region read by its columns, one call (cut._read_columns) ==== */

/* A list of parts (leaves, a column's parts, visits): part k is
 * ids[at[k]..at[k + 1]), count parts, at[0] = 0. Only the last part grows
 * (merge_fragments' run) or shrinks (_trailing_visit_below's cut). */
typedef struct { int64_t *ids; Py_ssize_t cap; int64_t *at; Py_ssize_t count, at_cap; } Parts;

#define PART(p, k) ((p)->ids + (p)->at[k])
#define PART_N(p, k) ((Py_ssize_t)((p)->at[(k) + 1] - (p)->at[k]))

static void parts_free(Parts *p) { free(p->ids); free(p->at); memset(p, 0, sizeof *p); }

/* Room for `more` ids and one part more: 0, or -1 with an exception set. */
static int parts_room(Parts *p, Py_ssize_t more) {
    if (!p->at) {
        p->at_cap = 8;
        if (!(p->at = malloc(p->at_cap * sizeof(int64_t)))) { PyErr_NoMemory(); return -1; }
        p->at[0] = 0; p->count = 0;
    }
    if (p->count + 2 > p->at_cap) {
        int64_t *at = realloc(p->at, 2 * p->at_cap * sizeof(int64_t));
        if (!at) { PyErr_NoMemory(); return -1; }
        p->at = at; p->at_cap *= 2;
    }
    Py_ssize_t need = p->at[p->count] + more;
    if (need > p->cap) {
        Py_ssize_t cap = p->cap ? p->cap : 64;
        while (cap < need) cap *= 2;
        int64_t *ids = realloc(p->ids, cap * sizeof(int64_t));
        if (!ids) { PyErr_NoMemory(); return -1; }
        p->ids = ids; p->cap = cap;
    }
    return 0;
}

/* A new part of ids[0..n) (not in p itself): 0, or -1 on error. */
static int parts_push(Parts *p, const int64_t *ids, Py_ssize_t n) {
    if (parts_room(p, n) < 0) return -1;
    memcpy(p->ids + p->at[p->count], ids, (size_t)n * sizeof(int64_t));
    p->at[p->count + 1] = p->at[p->count] + n;
    p->count++;
    return 0;
}

/* ids[0..n) (not in p itself) appended to the last part (np.concatenate): 0, or -1 on error. */
static int parts_extend(Parts *p, const int64_t *ids, Py_ssize_t n) {
    if (parts_room(p, n) < 0) return -1;
    memcpy(p->ids + p->at[p->count], ids, (size_t)n * sizeof(int64_t));
    p->at[p->count] += n;
    return 0;
}

static int64_t largest_of(const int64_t *ids, Py_ssize_t n) {
    int64_t v = ids[0];
    for (Py_ssize_t k = 1; k < n; k++) if (ids[k] > v) v = ids[k];
    return v;
}

/* What the column rules measure with besides ColumnPage's: SECTION_GAP and
 * PARAGRAPH_GAP - 1 body heights (regions.gap_bands, the parts set apart). */
typedef struct { ColumnPage *p; double section_gap, paragraph_gap; const int64_t *region; Py_ssize_t m; const Parts *columns; } ColumnRead;

/* regions.is_text_column of ids[0..n) (judge's, wraps asked of a narrow
 * group), and in *running whether it or holds_prose holds: 1, 0, or -1 on error. */
static int text_column(ColumnPage *p, const int64_t *ids, Py_ssize_t n, int *running) {
    int text, prose;
    if (group_verdicts(p, ids, n, &text, &prose) < 0) return -1;
    if (running) *running = text || prose;
    return text;
}

/* regions.merge_fragments of `in` (parts none empty) into `out` (empty):
 * each run of consecutive parts that are not running text merged into one,
 * but for a part whose rows are its own beside the run's (own_rows): 0, or -1 on error. */
static int merged_fragments(ColumnPage *p, const Parts *in, Parts *out) {
    int run = 0;
    for (Py_ssize_t k = 0; k < in->count; k++) {
        const int64_t *part = PART(in, k);
        Py_ssize_t n = PART_N(in, k);
        int running;
        if (text_column(p, part, n, &running) < 0) return -1;
        int fragment = !running, join = 0;
        if (fragment && run) {
            int own = own_rows_of(p, PART(out, out->count - 1), PART_N(out, out->count - 1), part, n);
            if (own < 0) return -1;
            join = !own;
        }
        if ((join ? parts_extend(out, part, n) : parts_push(out, part, n)) < 0) return -1;
        run = fragment;
    }
    return 0;
}

/* Sorted copy of ids[0..n) into `sorted`, and where a unit of the region
 * outside them comes between two of them into `cuts` (kernels.stream_visit_cuts): the cuts' count. */
static Py_ssize_t stream_visits_of(const ColumnRead *r, const int64_t *ids, Py_ssize_t n, int64_t *sorted, int64_t *cuts) {
    memcpy(sorted, ids, (size_t)n * sizeof(int64_t));
    qsort(sorted, (size_t)n, sizeof(int64_t), cmp_int64);
    return visit_cuts(r->region, r->m, sorted, n, cuts);
}

/* tiebreaks.visits_top_down of part[0..n) (n >= 1) pushed onto `out`: the
 * stream's visits to it top to bottom where they lie one above the other
 * in another order, else the part sorted: 0, or -1 on error. */
static int visits_top_down_of(const ColumnRead *r, const int64_t *part, Py_ssize_t n, Parts *out) {
    const double *Y0 = r->p->v.box[2].view.buf, *Y1 = r->p->v.box[3].view.buf;
    int status = -1;
    int64_t *sorted = malloc((n + 1) * sizeof(int64_t)), *cuts = malloc((n + 2) * sizeof(int64_t));
    int64_t *order = malloc((n + 1) * sizeof(int64_t)), *tmp = malloc((n + 1) * sizeof(int64_t));
    double *top = malloc((n + 1) * sizeof(double)), *bottom = malloc((n + 1) * sizeof(double)), *key = calloc(n + 1, sizeof(double));
    if (!sorted || !cuts || !order || !tmp || !top || !bottom || !key) { PyErr_NoMemory(); goto done; }
    Py_ssize_t n_cuts = stream_visits_of(r, part, n, sorted, cuts + 1), visits = n_cuts + 1;
    int whole = n_cuts == 0;
    if (!whole) {
        cuts[0] = 0; cuts[visits] = n;
        for (Py_ssize_t v = 0; v < visits; v++) {  /* np.maximum.reduceat / np.minimum.reduceat: NaN propagates */
            top[v] = np_max_at(Y1, sorted + cuts[v], cuts[v + 1] - cuts[v]);
            bottom[v] = np_min_at(Y0, sorted + cuts[v], cuts[v + 1] - cuts[v]);
            key[v] = -top[v];
        }
        stable_argsort(key, order, tmp, visits);
        whole = 1;
        for (Py_ssize_t v = 0; v < visits; v++) if (order[v] != v) whole = 0;
        /* visits side by side or overlapping: no top-to-bottom order to restore */
        for (Py_ssize_t v = 0; !whole && v + 1 < visits; v++)
            if (!(bottom[order[v]] >= top[order[v + 1]] - r->p->tol)) whole = 1;
    }
    if (whole) status = parts_push(out, sorted, n);
    else {
        status = 0;
        for (Py_ssize_t v = 0; v < visits && status == 0; v++)
            status = parts_push(out, sorted + cuts[order[v]], cuts[order[v] + 1] - cuts[order[v]]);
    }
done:
    free(sorted); free(cuts); free(order); free(tmp); free(top); free(bottom); free(key);
    return status;
}

/* cut._column_parts of column[0..n) (unsplit) into `inner` (empty): its
 * parts at its section gaps (gap_bands of its rows), each as the stream's
 * visits top to bottom, fragments merged, where that makes more than one;
 * else the column itself: 0, or -1 on error. */
static int column_parts_of(const ColumnRead *r, const int64_t *column, Py_ssize_t n, Parts *inner) {
    ColumnPage *p = r->p;
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    int status = -1;
    Parts visited = {0};
    int64_t *work = malloc(5 * (n + 1) * sizeof(int64_t));
    double *key = calloc(n + 1, sizeof(double));
    if (!work || !key) { PyErr_NoMemory(); goto done; }
    int64_t *sorted = work, *starts = work + (n + 1), *breaks = work + 4 * (n + 1);
    Py_ssize_t rows = sort_rows(Y0, Y1, column, n, p->tol, sorted, starts, work + 2 * (n + 1), work + 3 * (n + 1), key);
    Py_ssize_t n_breaks = rows >= 2 ? section_breaks_of(Y0, Y1, sorted, n, starts, rows, r->section_gap, breaks) : 0;
    if (!n_breaks) { if (visits_top_down_of(r, column, n, &visited) < 0) goto done; }
    for (Py_ssize_t b = 0, from = 0; n_breaks && b <= n_breaks; b++) {
        Py_ssize_t to = b < n_breaks ? breaks[b] : n;
        if (visits_top_down_of(r, sorted + from, to - from, &visited) < 0) goto done;
        from = to;
    }
    status = visited.count > 1 ? merged_fragments(p, &visited, inner) : parts_push(inner, column, n);
done:
    free(work); free(key); parts_free(&visited);
    return status;
}

/* cut._last_row_top of part[0..n) (n >= 1): the top of its last row; NAN
 * with an exception set where memory runs out. */
static double last_row_top(const ColumnPage *p, const int64_t *part, Py_ssize_t n, int *failed) {
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    int64_t *work = malloc(4 * (n + 1) * sizeof(int64_t));
    double *key = calloc(n + 1, sizeof(double)), top = NAN;
    if (!work || !key) { PyErr_NoMemory(); *failed = 1; }
    else {
        int64_t *sorted = work, *starts = work + (n + 1);
        Py_ssize_t rows = sort_rows(Y0, Y1, part, n, p->tol, sorted, starts, work + 2 * (n + 1), work + 3 * (n + 1), key);
        top = np_max_at(Y1, sorted + starts[rows - 1], n - starts[rows - 1]);
    }
    free(work); free(key);
    return top;
}

/* cut._walked_into: is the region's unit painted just before the last part's
 * first one on the last row of the part above it? 1, 0, or -1 on error. */
static int walked_into(const ColumnRead *r, const Parts *inner) {
    const int64_t *last = PART(inner, inner->count - 1), *above = PART(inner, inner->count - 2);
    Py_ssize_t n_above = PART_N(inner, inner->count - 2);
    int64_t first = least_of(last, PART_N(inner, inner->count - 1));
    Py_ssize_t lo = 0, hi = r->m;  /* np.searchsorted(region, first) */
    while (lo < hi) { Py_ssize_t mid = (lo + hi) / 2; if (r->region[mid] < first) lo = mid + 1; else hi = mid; }
    if (lo == 0) return 0;
    int64_t before = r->region[lo - 1];
    int in_above = 0;
    for (Py_ssize_t k = 0; k < n_above && !in_above; k++) in_above = above[k] == before;
    if (!in_above) return 0;
    int failed = 0;
    double top = last_row_top(r->p, above, n_above, &failed);
    if (failed) return -1;
    return ((const double *)r->p->v.box[3].view.buf)[before] <= top + r->p->tol;
}

/* cut._last_part_below: does the last part of column k's parts `inner` read
 * after the columns? 1, 0, or -1 on error. */
static int last_part_below(const ColumnRead *r, Py_ssize_t k, const Parts *inner) {
    ColumnPage *p = r->p;
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    if (inner->count < 2) return 0;
    const int64_t *last = PART(inner, inner->count - 1);
    Py_ssize_t n_last = PART_N(inner, inner->count - 1);
    int text = text_column(p, last, n_last, NULL);
    if (text != 0) return text < 0 ? -1 : 0;
    /* A part at the column's leading under the line over it is the column going on. */
    double lowest = np_min_at(Y0, inner->ids, inner->at[inner->count - 1]);
    if (lowest - np_max_at(Y1, last, n_last) < r->paragraph_gap) return 0;
    int failed = 0;
    double top = last_row_top(p, last, n_last, &failed) - p->tol;
    if (failed) return -1;
    int64_t others = inner->at[inner->count - 1] ? largest_of(inner->ids, inner->at[inner->count - 1]) : -1;
    for (Py_ssize_t j = 0; j < r->columns->count; j++) {
        if (j == k) continue;
        const int64_t *c = PART(r->columns, j);
        for (Py_ssize_t u = 0; u < PART_N(r->columns, j); u++)
            if (Y0[c[u]] >= top && c[u] > others) others = c[u];
    }
    if (!(least_of(last, n_last) > others)) return 0;
    int walked = walked_into(r, inner);
    return walked < 0 ? -1 : !walked;
}

/* tiebreaks.trailing_visit of column k: the stream's second and last visit
 * to it, set apart below the rest and under every other column, into
 * visit[0..*n_visit) (buffers of the column's length): 1 found, 0 none, -1 on error. */
static int trailing_visit_of(const ColumnRead *r, Py_ssize_t k, int64_t *sorted, int64_t *cuts, const int64_t **visit,
                             Py_ssize_t *n_visit) {
    ColumnPage *p = r->p;
    const double *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    Py_ssize_t n = PART_N(r->columns, k);
    if (stream_visits_of(r, PART(r->columns, k), n, sorted, cuts) != 1) return 0;
    const int64_t *rest = sorted, *v = sorted + cuts[0];
    Py_ssize_t n_rest = cuts[0], nv = n - cuts[0];
    int text = text_column(p, v, nv, NULL);
    if (text != 0) return text < 0 ? -1 : 0;
    double top = np_max_at(Y1, v, nv);
    if (np_min_at(Y0, rest, n_rest) - top < r->paragraph_gap) return 0;
    int64_t first = least_of(v, nv);
    for (Py_ssize_t j = 0; j < r->columns->count; j++) {
        if (j == k) continue;
        const int64_t *c = PART(r->columns, j);
        Py_ssize_t nc = PART_N(r->columns, j);
        if (!(np_min_at(Y0, c, nc) >= top - p->tol && largest_of(c, nc) < first)) return 0;
    }
    *visit = v; *n_visit = nv;
    return 1;
}

static int int64_in_sorted(const int64_t *sorted, Py_ssize_t n, int64_t v) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) { Py_ssize_t mid = (lo + hi) / 2; if (sorted[mid] < v) lo = mid + 1; else hi = mid; }
    return lo < n && sorted[lo] == v;
}

/* cut._trailing_visit_below: column k's trailing visit, where it lies in the
 * last of its parts `inner` (running text, or its only part), taken out of
 * that part and pushed onto `below`: 1 moved, 0 not, -1 on error. */
static int trailing_visit_below(const ColumnRead *r, Py_ssize_t k, Parts *inner, Parts *below) {
    Py_ssize_t last = inner->count - 1, n_last = PART_N(inner, last), n = PART_N(r->columns, k);
    if (inner->count > 1) {
        int text = text_column(r->p, PART(inner, last), n_last, NULL);
        if (text <= 0) return text;
    }
    int status = -1;
    int64_t *sorted = malloc((n + 1) * sizeof(int64_t)), *cuts = malloc((n + 1) * sizeof(int64_t));
    const int64_t *visit = NULL;
    Py_ssize_t n_visit = 0;
    if (!sorted || !cuts) { PyErr_NoMemory(); goto done; }
    status = trailing_visit_of(r, k, sorted, cuts, &visit, &n_visit);
    if (status <= 0) goto done;
    /* Under the rest of its column, it lies in the last part (np.isin). */
    int64_t *part = PART(inner, last);
    Py_ssize_t kept = 0;
    for (Py_ssize_t u = 0; u < n_last; u++) kept += !int64_in_sorted(visit, n_visit, part[u]);
    if (!kept || n_last - kept != n_visit) { status = 0; goto done; }
    if (parts_push(below, visit, n_visit) < 0) { status = -1; goto done; }
    Py_ssize_t at = 0;
    for (Py_ssize_t u = 0; u < n_last; u++)
        if (!int64_in_sorted(visit, n_visit, part[u])) part[at++] = part[u];
    inner->at[inner->count] = inner->at[last] + at;
    status = 1;
done:
    free(sorted); free(cuts);
    return status;
}

/* cut._first_part_ahead: is the first part of column k's `inner` no running
 * text, above every other column and painted before all of them? 1, 0, or -1 on error. */
static int first_part_ahead(const ColumnRead *r, Py_ssize_t k, const Parts *inner) {
    const double *Y0 = r->p->v.box[2].view.buf, *Y1 = r->p->v.box[3].view.buf;
    if (inner->count < 2) return 0;
    const int64_t *first = PART(inner, 0);
    Py_ssize_t n = PART_N(inner, 0);
    int text = text_column(r->p, first, n, NULL);
    if (text != 0) return text < 0 ? -1 : 0;
    double bottom = np_min_at(Y0, first, n) + r->p->tol;
    int64_t last = largest_of(first, n);
    for (Py_ssize_t j = 0; j < r->columns->count; j++) {
        if (j == k) continue;
        const int64_t *c = PART(r->columns, j);
        Py_ssize_t nc = PART_N(r->columns, j);
        if (!(np_max_at(Y1, c, nc) <= bottom && last < least_of(c, nc))) return 0;
    }
    return 1;
}

/* cut._column_parts and cut._placed_apart of column k (unsplit): its parts
 * pushed onto `leaves`, less its last part or trailing visit (onto `below`)
 * and its first part (onto `ahead`) where they read apart: 0, or -1 on error. */
static int column_placed(const ColumnRead *r, Py_ssize_t k, Parts *leaves, Parts *ahead, Parts *below) {
    Parts inner = {0};
    int status = -1;
    if (column_parts_of(r, PART(r->columns, k), PART_N(r->columns, k), &inner) < 0) goto done;
    int moved = last_part_below(r, k, &inner);
    if (moved < 0) goto done;
    if (moved) {
        if (parts_push(below, PART(&inner, inner.count - 1), PART_N(&inner, inner.count - 1)) < 0) goto done;
        inner.count--;
    } else if (trailing_visit_below(r, k, &inner, below) < 0) goto done;
    int first = first_part_ahead(r, k, &inner);
    if (first < 0 || (first && parts_push(ahead, PART(&inner, 0), PART_N(&inner, 0)) < 0)) goto done;
    status = 0;
    for (Py_ssize_t j = first; j < inner.count && status == 0; j++) status = parts_push(leaves, PART(&inner, j), PART_N(&inner, j));
done:
    parts_free(&inner);
    return status;
}

/* `from`'s parts pushed onto `to` by their least unit (sorted's key, stable): 0, or -1 on error. */
static int push_by_least(const Parts *from, Parts *to) {
    Py_ssize_t n = from->count;
    if (!n) return 0;
    int64_t *key = malloc(n * sizeof(int64_t)), *order = malloc(n * sizeof(int64_t)), *tmp = malloc(n * sizeof(int64_t));
    int status = -1;
    if (!key || !order || !tmp) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < n; k++) key[k] = least_of(PART(from, k), PART_N(from, k));
    stable_argsort_int(key, order, tmp, n);
    status = 0;
    for (Py_ssize_t k = 0; k < n && status == 0; k++) status = parts_push(to, PART(from, order[k]), PART_N(from, order[k]));
done:
    free(key); free(order); free(tmp);
    return status;
}

/* The parts of the sequence `obj` (1-d int64 arrays, any stride, none
 * empty, each unit under `size`) pushed onto `to`: 1, 0 where one is empty
 * or no such array (the rule then decides; no error set), -1 on error. */
static int push_arrays(PyObject *obj, Py_ssize_t size, Parts *to) {
    PyObject *seq = PySequence_Fast(obj, "expected a sequence of arrays");
    if (!seq) return -1;
    int status = 1;
    for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(seq) && status == 1; k++) {
        Py_buffer view;
        Py_ssize_t n = run_view(PySequence_Fast_GET_ITEM(seq, k), &view);
        if (n < 1) { if (n == 0) PyBuffer_Release(&view); status = 0; break; }
        if (parts_room(to, n) < 0) status = -1;
        else {
            int64_t *ids = to->ids + to->at[to->count];
            for (Py_ssize_t u = 0; u < n; u++) memcpy(&ids[u], (const char *)view.buf + u * view.strides[0], sizeof(int64_t));
            if (check_ids(ids, n, size, "parts") < 0) status = -1;
            else { to->at[to->count + 1] = to->at[to->count] + n; to->count++; }
        }
        PyBuffer_Release(&view);
    }
    Py_DECREF(seq);
    return status;
}

/* cut._read_columns less its recursion: the leaves of the region cut into
 * `columns`, `reads[k]` column k's leaves where its own cut split it, else
 * None: 1 into `out`, 0 where the rule decides, -1 on error. */
static int column_leaves_of(ColumnRead *r, PyObject *reads_obj, Py_ssize_t size, Parts *out) {
    Parts leaves = {0}, ahead = {0}, below = {0}, all = {0};
    int status = -1;
    PyObject *reads = PySequence_Fast(reads_obj, "reads: expected a sequence");
    if (!reads) return -1;
    if (PySequence_Fast_GET_SIZE(reads) != r->columns->count) { PyErr_SetString(PyExc_ValueError, "a read per column"); goto done; }
    for (Py_ssize_t k = 0; k < r->columns->count; k++) {
        PyObject *read = PySequence_Fast_GET_ITEM(reads, k);
        status = read == Py_None ? (column_placed(r, k, &leaves, &ahead, &below) < 0 ? -1 : 1) : push_arrays(read, size, &leaves);
        if (status <= 0) goto done;
    }
    /* Unit numbers follow stream order: several parts set apart keep it. */
    status = -1;
    if (push_by_least(&ahead, &all) < 0) goto done;
    for (Py_ssize_t k = 0; k < leaves.count; k++) if (parts_push(&all, PART(&leaves, k), PART_N(&leaves, k)) < 0) goto done;
    if (push_by_least(&below, &all) < 0) goto done;
    status = merged_fragments(r->p, &all, out) < 0 ? -1 : 1;
done:
    Py_DECREF(reads);
    parts_free(&leaves); parts_free(&ahead); parts_free(&below); parts_free(&all);
    return status;
}

/* ---- column_leaves(x0, x1, y0, y1, inked, start, end, alpha, space, words, first_word, ids, columns, reads,
 *                    section_gap, paragraph_gap, (tol, fill, sample), (narrow, ...), (descent, ...),
 *                    (same_baseline, padding, aligned, cover, grid_rows)) -> None | (leaves' units, leaf starts)
 * cut._read_columns whole but for its recursion (read_region of each
 * column, whose leaves `reads` hold, None where unsplit): each unsplit
 * column's parts (_column_parts), less those read before or after every
 * column (_placed_apart), the leaves in order, fragments merged
 * (merge_fragments). None where a column or a leaf is empty (the rule
 * then decides). */
static PyObject *layout_column_leaves(PyObject *mod, PyObject *args) {
    PyObject *box[4], *glyphs[5], *words_obj, *first_obj, *ids_obj, *columns_obj, *reads_obj;
    double min_words;
    ColumnPage p;
    ColumnRead r = {&p, 0, 0, NULL, 0, NULL};
    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOOdd(ddn)(dddddnd)(dddndnd)(ddddn)", &box[0], &box[1], &box[2], &box[3], &glyphs[0],
                          &glyphs[1], &glyphs[2], &glyphs[3], &glyphs[4], &words_obj, &first_obj, &ids_obj, &columns_obj, &reads_obj,
                          &r.section_gap, &r.paragraph_gap, &p.tol, &p.fill, &p.sample, &p.lim.narrow, &p.lim.column_width,
                          &p.lim.split_rows, &p.lim.min_glyphs, &p.lim.letter_share, &p.lim.prose_lines, &p.lim.prose_share,
                          &p.descent, &p.paragraph_step, &p.wrap_space, &p.min_pairs, &min_words, &p.min_lines, &p.wrapped_share,
                          &p.same_baseline, &p.padding, &p.aligned, &p.cover, &p.grid_rows))
        return NULL;
    p.min_words = min_words;
    View vw = {0}, vf = {0}, vi = {0};
    PyObject *result = NULL;
    Parts columns = {0}, out = {0};
    int64_t *region = NULL;
    Py_ssize_t size = get_column_page(box, glyphs, words_obj, first_obj, &p, &vw, &vf);
    if (size < 0 || get_view(ids_obj, &vi, "l", 8, "ids") < 0) goto done;
    Py_ssize_t m = vi.view.len / 8;
    if (check_ids(vi.view.buf, m, size, "ids") < 0) goto done;
    if (!(region = malloc((m + 1) * sizeof(int64_t)))) { PyErr_NoMemory(); goto done; }
    memcpy(region, vi.view.buf, (size_t)m * sizeof(int64_t));
    qsort(region, (size_t)m, sizeof(int64_t), cmp_int64);
    r.region = region; r.m = m; r.columns = &columns;
    int status = push_arrays(columns_obj, size, &columns);
    if (status == 1) status = column_leaves_of(&r, reads_obj, size, &out);
    if (status == 0) result = Py_NewRef(Py_None);
    if (status == 1 && !out.count) result = Py_BuildValue("(NN)", int64_bytes(NULL, 0), int64_bytes(NULL, 0));
    else if (status == 1) result = Py_BuildValue("(NN)", int64_bytes(out.ids, out.at[out.count]), int64_bytes(out.at + 1, out.count));
done:
    free(region); free(p.ints); free(p.floats);
    parts_free(&columns); parts_free(&out);
    release_group(&p.v); release(&vw); release(&vf); release(&vi);
    return result;
}

/* ==== end of lcut's columns read ==== */

/* ==== lpage: the front of a leaf's order, one call (leaves._front) ==== */

/* What leaves._front measures with besides reads_down's measure (ReadsDown:
 * DESCENT, NEXT_LINE and SAME_BASELINE in points, 1 - COHERENT, the
 * direction), in points (body heights scaled) but for the counts. */
typedef struct {
    double descent, tol, half_body, run_gap, gutter, same_baseline, column_width, piece_gap, pass_edge, stacked, back_share;
    Py_ssize_t grid_rows, row_returns, turns;
    int rtl;
} FrontLimits;

/* leaf_front's verdicts: the leaf is one paint run (it reads as painted);
 * the stream is no witness (geometry orders the runs); it is, and its runs
 * stand; the rules in Python decide (a grid test or a merge the kernel
 * leaves to them). */
enum { FRONT_ONE_RUN = 0, FRONT_OTHER = 1, FRONT_WITNESS = 2, FRONT_ASK = 3 };

/* leaves._rows_in_pieces: 1, 0, or -1 out of memory. */
static int front_rows_in_pieces(const double *const b[4], const int64_t *ids, Py_ssize_t n, const FrontLimits *f) {
    Py_ssize_t out[2];
    if (f->row_returns > n / 2) return 0; /* n < 2 x row_returns, which no Py_ssize_t need hold */
    if (row_returns_of(b[0], b[1], b[2], b[3], ids, n, f->descent, f->same_baseline, f->piece_gap, out) < 0) return -1;
    return out[0] >= f->row_returns && (double)out[0] >= f->back_share * (double)out[1];
}

/* _merge_grids' first test on the big visits (`bounds`: first and end run of
 * each, `big` of them, of the runs ids[0..) cut by `lengths`): 0 where no two
 * link (grid_links_of: then no grid merges them), FRONT_ASK where some do
 * (the rules judge the pair's text columns), -1 out of memory. */
static int front_visits_link(const double *const b[4], const int64_t *ids, const int64_t *lengths, const int64_t *bounds,
                             Py_ssize_t big, const FrontLimits *f) {
    Py_ssize_t m = 0, at = 0, r = 0;
    for (Py_ssize_t v = 0; v < big; v++)
        for (Py_ssize_t k = bounds[2 * v]; k < bounds[2 * v + 1]; k++) m += (Py_ssize_t)lengths[k];
    int64_t *visit = malloc((size_t)m * sizeof(int64_t)), *length = malloc((size_t)big * sizeof(int64_t));
    double *box = malloc(4 * (size_t)big * sizeof(double));
    Triples links = {NULL, 0, 0};
    int found = -1;
    if (!visit || !length || !box) goto done;
    m = 0;
    for (Py_ssize_t v = 0; v < big; v++) {  /* the visit's lines: its runs' positions, one contiguous stretch of ids */
        for (; r < bounds[2 * v]; r++) at += (Py_ssize_t)lengths[r];
        Py_ssize_t from = at;
        for (; r < bounds[2 * v + 1]; r++) at += (Py_ssize_t)lengths[r];
        memcpy(visit + m, ids + from, (size_t)(at - from) * sizeof(int64_t));
        length[v] = at - from;
        m += at - from;
    }
    if (grid_links_of(b[0], b[1], b[2], b[3], visit, length, big, m, f->descent, f->same_baseline, f->column_width, f->tol, box,
                      &links) == 0)
        found = links.len ? FRONT_ASK : 0;
done:
    free(visit); free(length); free(box); free(links.items);
    return found;
}

/* leaves._column_grid short of _merge_grids: 1 a grid (a visit painted up
 * and down), 0 none (no visit so, and no two big visits that link:
 * front_visits_link), FRONT_ASK where two link (_merge_grids judges them),
 * -1 out of memory. */
static int front_column_grid(const double *const b[4], const int64_t *ids, const int64_t *lengths, Py_ssize_t runs,
                             Py_ssize_t n, const FrontLimits *f) {
    if (n < f->grid_rows) return 0;
    int64_t *ends = malloc((size_t)runs * sizeof(int64_t)), *bounds = malloc(2 * (size_t)runs * sizeof(int64_t));
    int found = -1;
    Py_ssize_t big = 0;
    if (ends && bounds) {
        found = visits_of(b, ids, lengths, runs, n, f->tol, f->grid_rows, f->column_width, f->half_body, f->rtl, ends, bounds, &big);
        if (!found && big >= 2) found = front_visits_link(b, ids, lengths, bounds, big, f);
    }
    free(ends); free(bounds);
    return found;
}

/* Run lengths from cut positions (n_cuts of them) of n lines into lengths. */
static void lengths_of_cuts(const int64_t *cuts, Py_ssize_t n_cuts, Py_ssize_t n, int64_t *lengths) {
    for (Py_ssize_t r = 0; r <= n_cuts; r++) lengths[r] = (r < n_cuts ? cuts[r] : n) - (r ? cuts[r - 1] : 0);
}

/* leaves._passes_in_turn and _lines_in_turn short of their merges: 0 where
 * neither two passes (where there are fewer than runs, two or more) nor two
 * runs (`lengths`) take turns, FRONT_ASK where some do, -1 out of memory. */
static int front_turns(const double *const b[4], const int64_t *ids, const int64_t *lengths, Py_ssize_t runs, Py_ssize_t n,
                       const FrontLimits *f) {
    int64_t *cuts = malloc((size_t)n * sizeof(int64_t)), *passes = malloc((size_t)n * sizeof(int64_t));
    Py_ssize_t pair[2];
    int found = -1;
    if (cuts && passes) {
        Py_ssize_t n_cuts = pass_cuts_of(b[0], b[1], b[2], b[3], ids, n, f->descent, f->same_baseline, f->half_body, f->run_gap,
                                         f->pass_edge, f->rtl, cuts);
        found = 0;
        if (n_cuts >= 1 && n_cuts + 1 < runs) {
            lengths_of_cuts(cuts, n_cuts, n, passes);
            found = turning_pair_of(b[0], b[1], b[2], b[3], ids, passes, n_cuts + 1, n, f->descent, f->stacked, f->tol, f->turns, pair);
        }
        if (!found) found = turning_pair_of(b[0], b[1], b[2], b[3], ids, lengths, runs, n, f->descent, f->stacked, f->tol, f->turns, pair);
    }
    free(cuts); free(passes);
    return found > 0 ? FRONT_ASK : found;
}

/* leaf_front's verdict on the leaf of lines ids[0..n) (n >= 2, ascending)
 * cut into its paint runs (`cuts`, n_cuts of them): FRONT_*, or -1 out of
 * memory. `work` holds n. */
static int front_verdict(const double *const b[4], const int64_t *ids, Py_ssize_t n, const int64_t *cuts, Py_ssize_t n_cuts,
                         const ReadsDown *r, const FrontLimits *f, int64_t *work) {
    if (!n_cuts) return FRONT_ONE_RUN;
    if (!reads_down_sorted(b, ids, n, r, work)) return FRONT_OTHER;
    int64_t *lengths = malloc(((size_t)n_cuts + 1) * sizeof(int64_t));
    if (!lengths) return -1;
    lengths_of_cuts(cuts, n_cuts, n, lengths);
    int verdict = front_column_grid(b, ids, lengths, n_cuts + 1, n, f);
    if (verdict == 0) {
        verdict = front_rows_in_pieces(b, ids, n, f);
        if (verdict == 0) {
            verdict = front_turns(b, ids, lengths, n_cuts + 1, n, f);
            if (verdict == 0) verdict = FRONT_WITNESS;
        } else if (verdict == 1) verdict = FRONT_OTHER;
    } else if (verdict == 1) verdict = FRONT_OTHER;
    free(lengths);
    return verdict;
}

/* ---- leaf_front(x0, x1, y0, y1, ids, (descent, line_step, same_row, back_share, rtl), (tol, run_gap, gutter,
 *      column_width, piece_gap, pass_edge, stacked), (grid_rows, row_returns, turns)) -> (verdict, cuts)
 * kernels.leaf_front (leaves._front): of a leaf's lines `ids` (ascending,
 * two or more), its paint runs (paint_cuts_of: int64 bytes of the cut
 * positions) and the verdict of leaf_order's first tests on them, in one
 * call: one run; the stream no witness (reads_down fails, or _column_grid
 * or _rows_in_pieces holds); a witness whose runs stand (no passes nor runs
 * take turns); or FRONT_ASK, where the rules in Python go on (two big
 * visits for _merge_grids, runs or passes to merge by rows). Each test is
 * its own kernel's body (reads_down_sorted, visits_of, grid_links_of,
 * row_returns_of, pass_cuts_of, turning_pair_of); reads_down's measure
 * (descent, line_step, same_row) is theirs too. */
static PyObject *layout_leaf_front(PyObject *mod, PyObject *args) {
    PyObject *obj[4], *ids_obj;
    ReadsDown r;
    FrontLimits f;
    if (!PyArg_ParseTuple(args, "OOOOO(ddddp)(ddddddd)(nnn)", &obj[0], &obj[1], &obj[2], &obj[3], &ids_obj, &r.descent,
                          &r.line_step, &r.same_row, &r.back_share, &r.rtl, &f.tol, &f.run_gap, &f.gutter, &f.column_width,
                          &f.piece_gap, &f.pass_edge, &f.stacked, &f.grid_rows, &f.row_returns, &f.turns))
        return NULL;
    f.descent = r.descent; f.half_body = r.line_step; f.same_baseline = r.same_row; f.back_share = r.back_share; f.rtl = r.rtl;
    View vbox[4] = {0}, vi = {0};
    PyObject *result = NULL;
    int64_t *cuts = NULL;
    Py_ssize_t n = get_unit_boxes(obj, vbox, ids_obj, &vi);
    if (n < 0) goto done;
    if (n < 2) { PyErr_SetString(PyExc_ValueError, "leaf_front: fewer than two lines"); goto done; }
    const double *b[4] = {vbox[0].view.buf, vbox[1].view.buf, vbox[2].view.buf, vbox[3].view.buf};
    const int64_t *ids = vi.view.buf;
    cuts = malloc(2 * (size_t)n * sizeof(int64_t));
    if (!cuts) { PyErr_NoMemory(); goto done; }
    Py_ssize_t n_cuts = paint_cuts_of(b[0], b[1], b[2], b[3], ids, n, f.descent, f.tol, f.half_body, f.run_gap, f.gutter, f.rtl, cuts);
    int verdict = front_verdict(b, ids, n, cuts, n_cuts, &r, &f, cuts + n);
    if (verdict < 0) { PyErr_NoMemory(); goto done; }
    result = Py_BuildValue("(iN)", verdict, int64_bytes(cuts, n_cuts));
done:
    free(cuts);
    release_boxes(vbox); release(&vi);
    return result;
}

/* ==== end of lpage's leaf front ==== */

/* ==== lpage: a witnessed leaf's order, one call (leaves._witnessed) ==== */

/* What leaves._witness_rules measures with besides a ColumnPage's (its
 * text-column test's measures and thresholds, wraps', SAME_BASELINE,
 * CELL_PADDING and ALIGNED), in points (body heights scaled) but for the
 * counts and shares. */
typedef struct {
    double gutter, line_step, leading, paragraph_gap, size_change, stacked, consistent, section;
    Py_ssize_t max_cell_lines, filled_holes, blocks_back;
    int rtl;
} WitnessLimits;

/* leaf_witness' verdicts: its order stands (WITNESS_READ), or the rules
 * decide, for the first reason met: a box not finite, a sidebar
 * (_sidebar_lines), cells (stacked_cells' chains), a paragraph painted in
 * turn (_painted_in_turn), blocks painted back (_blocks_painted_back), runs
 * painted up and holes filled later (WITNESS_UP, WITNESS_HOLES: no longer
 * asked, both read: holes_kahn), a block ahead of another (_blocks_ahead), a tail
 * the reference raises on (leaf_tail's None), a run empty or no int64 array;
 * or WITNESS_WORDS: the page's words are needed, and not given (the caller
 * measures them and asks again). */
enum { WITNESS_READ = 0, WITNESS_NOT_FINITE, WITNESS_SIDEBAR, WITNESS_CELLS, WITNESS_TURNED, WITNESS_BACK, WITNESS_UP,
       WITNESS_HOLES, WITNESS_AHEAD, WITNESS_TAIL, WITNESS_RUNS, WITNESS_WORDS };

/* is_text_column of units ids[0..n) (group_verdicts'): 1, 0, -1 on error,
 * or WITNESS_WORDS where the test needs the page's words, not given. */
static int text_column_of(ColumnPage *p, const int64_t *ids, Py_ssize_t n) {
    int text, prose, found = group_verdicts(p, ids, n, &text, &prose);
    return found < 0 ? -1 : found ? WITNESS_WORDS : text;
}

/* leaves._sidebar_lines of the leaf's lines ids[0..n) (ascending, finite
 * boxes) is not None: 1 (a sidebar), 0, WITNESS_WORDS (text_column_of's),
 * or -1 on error. */
static int witness_sidebar(ColumnPage *p, const int64_t *ids, Py_ssize_t n, const WitnessLimits *w) {
    if (n < 4) return 0;
    const double *X0 = p->v.box[0].view.buf, *X1 = p->v.box[1].view.buf, *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    size_t cap = (size_t)n + 1;
    int64_t *ints = malloc(4 * cap * sizeof(int64_t));
    double *floats = calloc(4 * cap, sizeof(double));
    int found = -1;
    if (!ints || !floats) { PyErr_NoMemory(); goto done; }
    int64_t *sorted = ints, *cuts = ints + cap;
    double *before = floats + cap, *after = floats + 2 * cap, *base = floats + 3 * cap;
    Py_ssize_t n_cuts = gutter_cuts_of(X0, X1, ids, n, w->gutter, sorted, cuts, ints + 2 * cap, ints + 3 * cap, floats);
    /* The width of the lines on each side of every cut, from running extremes. */
    double high = X1[sorted[0]], low = X0[sorted[0]];
    for (Py_ssize_t k = 0; k < n; k++) {
        high = np_max(high, X1[sorted[k]]); low = np_min(low, X0[sorted[k]]);
        before[k] = high - low;
    }
    high = X1[sorted[n - 1]]; low = X0[sorted[n - 1]];
    for (Py_ssize_t k = n - 1; k >= 0; k--) {
        high = np_max(high, X1[sorted[k]]); low = np_min(low, X0[sorted[k]]);
        after[k] = high - low;
    }
    found = 0;
    for (Py_ssize_t c = 0; c < n_cuts && !found; c++) {
        Py_ssize_t cut = (Py_ssize_t)cuts[c];
        for (int s = 0; s < 2 && !found; s++) {
            const int64_t *text = s == 0 ? sorted : sorted + cut, *side = s == 0 ? sorted + cut : sorted;
            Py_ssize_t nt = s == 0 ? cut : n - cut, ns = n - nt;
            double width = s == 0 ? before[cut - 1] : after[cut];
            if (ns < 2 || !(width >= p->lim.column_width)) continue;
            int t = text_column_of(p, text, nt);
            if (t < 0 || t == WITNESS_WORDS) { found = t; break; }
            if (!t) continue;
            t = text_column_of(p, side, ns);
            if (t < 0 || t == WITNESS_WORDS) { found = t; break; }
            if (t) continue;
            /* _on_baselines(text, side): the side's lines on the text's baselines. */
            for (Py_ssize_t k = 0; k < nt; k++) base[k] = unit_baseline(Y0, Y1, text[k], p->descent);
            qsort(base, (size_t)nt, sizeof(double), cmp_np_double);
            found = (double)on_baselines(Y0, Y1, side, ns, base, nt, p->descent, p->same_baseline) <= p->aligned * (double)ns;
        }
    }
done:
    free(ints); free(floats);
    return found;
}

/* leaves._cells_and_turns of the leaf's lines ids[0..n) (ascending) finds
 * nothing to read together: 0; WITNESS_CELLS where stacked_cells' chains
 * find cells (before _wrapped_cells' test: the rules judge them),
 * WITNESS_TURNED where a block painted in turn is a paragraph (_paragraphs),
 * WITNESS_WORDS where that asks for the page's words, not given; -1 on error. */
static int witness_cells(ColumnPage *p, const int64_t *ids, Py_ssize_t n, const WitnessLimits *w) {
    const double *X0 = p->v.box[0].view.buf, *X1 = p->v.box[1].view.buf, *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    size_t cap = n ? (size_t)n : 1;
    int64_t *near = malloc(5 * cap * sizeof(int64_t)), *cells = NULL, *cell_lengths = NULL;
    double *gaps = malloc(3 * cap * sizeof(double)), *measures = malloc(2 * cap * sizeof(double));
    char *flags = calloc(2 * cap, 1), *in_turn = calloc(cap, 1), *keep = calloc(cap, 1);
    int found = -1;
    if (!near || !gaps || !measures || !flags || !in_turn || !keep) { PyErr_NoMemory(); goto done; }
    int64_t *below = near, *above = near + cap, *lines = near + 2 * cap, *lengths = near + 4 * cap;
    if (nearest_of(X0, X1, Y0, Y1, ids, n, p->descent, w->line_step, below, above, gaps, gaps + cap, gaps + 2 * cap) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (w->max_cell_lines >= 0) {
        Py_ssize_t cell_lines = 0;
        Py_ssize_t n_cells = cell_chains_of(X0, X1, Y0, Y1, ids, n, below, above, gaps, gaps + cap, w->leading, p->padding,
                                            w->max_cell_lines, &cells, &cell_lengths, &cell_lines);
        if (n_cells < 0) goto done;
        if (n_cells) { found = WITNESS_CELLS; goto done; }
    }
    Py_ssize_t out = 0, n_blocks = block_walk(Y0, Y1, ids, n, below, above, gaps, p->descent, w->paragraph_gap, w->size_change,
                                              flags, measures, lines, lengths, &out);
    if (n_blocks < 0 || blocks_out_of_turn(p->v.box, lines, lengths, n_blocks, p->descent, in_turn) < 0) goto done;
    found = 0;
    int flagged = 0;
    for (Py_ssize_t b = 0; b < n_blocks; b++) flagged |= in_turn[b];
    if (!flagged) goto done;
    if (!p->words) { found = WITNESS_WORDS; goto done; }
    const double *box[4] = {X0, X1, Y0, Y1};
    ParagraphLimits l = {p->tol, p->descent, p->paragraph_step, p->wrap_space, p->min_pairs, p->min_words, p->min_lines,
                         p->wrapped_share, p->same_baseline};
    if (paragraph_keep(box, p->words, p->first_word, p->v.box[0].view.len / 8, lines, lengths, n_blocks, out, &l, keep) < 0) {
        found = -1;
        goto done;
    }
    for (Py_ssize_t b = 0; b < n_blocks; b++)
        if (in_turn[b] && keep[b]) found = WITNESS_TURNED;
done:
    free(near); free(cells); free(cell_lengths); free(gaps); free(measures); free(flags); free(in_turn); free(keep);
    return found;
}

/* A leaf's runs: run r is ids[at[r]..at[r] + lengths[r]), `count` of them. */
typedef struct { const int64_t *ids, *lengths; int64_t *at; Py_ssize_t count; } WitnessRuns;

/* _stacked_in_place's kahn order (over `holes`, the n x n constraints of
 * runs painted up or of holes filled later,
 * under _with_bands of the furniture: the runs `mark`ed 1 or 3 listed in
 * tops, those marked 2 or 3 in bottoms) into order: 1, 0 on a cycle. */
static int holes_kahn(unsigned char *holes, Py_ssize_t n, const char *mark, const int64_t *tops, Py_ssize_t n_tops,
                      const int64_t *bottoms, Py_ssize_t n_bottoms, int64_t *order) {
    for (Py_ssize_t t = 0; t < n_tops; t++) {  /* a top run first: before every other, after none */
        int64_t k = tops[t];
        if (!(mark[k] & 1)) continue;
        for (Py_ssize_t j = 0; j < n; j++) holes[k * n + j] = (unsigned char)(j != k);
        for (Py_ssize_t i = 0; i < n; i++) holes[i * n + k] = 0;
    }
    for (Py_ssize_t b = 0; b < n_bottoms; b++) {  /* a bottom run last: after every other, before none */
        int64_t k = bottoms[b];
        if (!(mark[k] & 2)) continue;
        for (Py_ssize_t i = 0; i < n; i++) holes[i * n + k] = (unsigned char)(i != k);
        for (Py_ssize_t j = 0; j < n; j++) holes[k * n + j] = 0;
    }
    Py_ssize_t done_count = kahn_of(holes, n, order);
    if (done_count < 0) { PyErr_NoMemory(); return -1; }
    return done_count == n;
}

/* leaves._band_furniture and _band_order of the runs (their tops and
 * bottoms, stacking's) into order, or where `holes` (n x n, or NULL) holds
 * _holes_filled_later's constraints, kahn's order under them and the bands
 * (holes_kahn; _band_order on a cycle): 0, WITNESS_WORDS, or -1 on error. */
static int band_furniture_order(ColumnPage *p, const WitnessRuns *r, const int64_t *tops, Py_ssize_t n_tops, const int64_t *bottoms,
                                Py_ssize_t n_bottoms, unsigned char *holes, int64_t *order) {
    Py_ssize_t count = r->count;
    char *mark = calloc((size_t)count + 1, 1);  /* bit 0 top furniture, bit 1 bottom furniture */
    if (!mark) { PyErr_NoMemory(); return -1; }
    for (int band = 0; band < 2; band++) {
        const int64_t *runs = band ? bottoms : tops;
        for (Py_ssize_t k = 0, n = band ? n_bottoms : n_tops; k < n; k++) {
            int64_t run = runs[k];
            int text = text_column_of(p, r->ids + r->at[run], (Py_ssize_t)r->lengths[run]);
            if (text < 0 || text == WITNESS_WORDS) { free(mark); return text; }
            if (!text) mark[run] = (char)(mark[run] | (band ? 2 : 1));
        }
    }
    int found = holes ? holes_kahn(holes, count, mark, tops, n_tops, bottoms, n_bottoms, order) : 0;
    if (found == 0) {
        /* _band_order: the top furniture last listed first (a run in both
         * bands is a bottom run), then the others in paint order, then the
         * bottom furniture in its listed order. */
        Py_ssize_t m = 0;
        for (Py_ssize_t k = n_tops - 1; k >= 0; k--)
            if (mark[tops[k]] == 1) order[m++] = tops[k];
        for (Py_ssize_t k = 0; k < count; k++)
            if (!mark[k]) order[m++] = k;
        for (Py_ssize_t k = 0; k < n_bottoms; k++)
            if (mark[bottoms[k]] & 2) order[m++] = bottoms[k];
    }
    free(mark);
    return found < 0 ? -1 : 0;
}

/* leaves._stacked_in_place of the runs (paint order) into order (count
 * run numbers; runs painted up, or holes filled later, read in kahn's
 * order under their constraints): 0, a WITNESS_* reason where the rules
 * decide (blocks painted back), or -1 on error.
 * `ids` holds the leaf's lines ascending (n), for _blocks_painted_back's
 * text-column test. */
static int witness_stacking(ColumnPage *p, const WitnessRuns *r, const int64_t *ids, Py_ssize_t n, const WitnessLimits *w,
                            int64_t *order) {
    const double *X0 = p->v.box[0].view.buf, *X1 = p->v.box[1].view.buf, *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    Py_ssize_t runs = r->count;
    size_t cap = (size_t)runs + 1;
    double *box = malloc(10 * cap * sizeof(double));
    int64_t *ints = calloc(4 * cap, sizeof(int64_t));
    unsigned char *holes = NULL;
    int found = -1;
    if (!box || !ints) { PyErr_NoMemory(); goto done; }
    unit_run_boxes(X0, X1, Y0, Y1, r->ids, r->lengths, runs, box, NULL);
    const double *bx0 = box, *by0 = box + runs, *bx1 = box + 2 * runs, *by1 = box + 3 * runs;
    double *top = box + 4 * cap, *start = top + cap, *edge = start + cap;
    /* _blocks_painted_back: the stream goes back up from block to block
     * (the blocks' tops standing for their baselines) BLOCKS_BACK times or
     * more, and in more than CONSISTENT of its moves, in no text column. */
    double *tx0 = edge + cap, *tx1 = tx0 + cap, *ty = tx1 + cap;
    int64_t *blocks = ints + 3 * cap;
    Py_ssize_t nb = 0;
    for (Py_ssize_t k = 0; k < runs; k++)
        if (r->lengths[k] > 1) { tx0[nb] = bx0[k]; tx1[nb] = bx1[k]; ty[nb] = by1[k]; blocks[nb] = nb; nb++; }
    if (nb > w->blocks_back) {
        Py_ssize_t back = back_up_count(tx0, tx1, ty, ty, blocks, nb, 0.0, w->line_step, p->same_baseline, w->rtl);
        if (back >= w->blocks_back && (double)back > w->consistent * (double)(nb - 1)) {
            int text = text_column_of(p, ids, n);
            if (text < 0 || text == WITNESS_WORDS) { found = text; goto done; }
            if (!text) { found = WITNESS_BACK; goto done; }
        }
    }
    run_terms(bx0, bx1, by1, runs, w->stacked, p->tol, w->rtl, top, start, edge);
    Stacking s;
    if (stacking_counts(runs, by0, bx1, top, start, edge, p->tol, ints, ints + cap, ints + 2 * cap, &s) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    if (s.runs_up > 1 && (double)s.upward > w->consistent * (double)s.pairs) {
        /* _stream_paints_runs_up: runs above one another, not apart, flush
         * (run_pairs' above & ~apart & flush, run_stacking's pairs) read top first. */
        holes = malloc((size_t)runs * (size_t)runs);
        if (!holes) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t i = 0; i < runs; i++)
            for (Py_ssize_t j = 0; j < runs; j++)
                holes[i * runs + j] = (unsigned char)(i != j && by0[i] >= top[j] && !((bx1[i] <= start[j]) | (bx1[j] <= start[i])) &&
                                                      fabs(edge[i] - edge[j]) <= p->tol);
    } else if (hole_count(runs, bx0, by0, bx1, by1, top, start, w->stacked, p->tol, w->filled_holes) >= w->filled_holes) {
        /* _holes_filled_later's constraints: blocks nested one over the other (nested_pairs). */
        holes = malloc((size_t)runs * (size_t)runs);
        if (!holes) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t i = 0; i < runs; i++)
            for (Py_ssize_t j = 0; j < runs; j++)
                holes[i * runs + j] = (unsigned char)(i != j && r->lengths[i] > 1 && r->lengths[j] > 1 &&
                                                      nested_over(bx0, by0, bx1, top, start, i, j, p->tol));
    }
    found = band_furniture_order(p, r, ints + cap, s.tops, ints + 2 * cap, s.bottoms, holes, order);
done:
    free(box); free(ints); free(holes);
    return found;
}

/* leaves._stacked_down's test of the stack order[lo..hi) (m lines): does
 * the stream paint some block of it (stacked_blocks) other than top to
 * bottom? 1, 0, or -1 on error. */
static int stack_painted_otherwise(const ColumnPage *p, const int64_t *stack, Py_ssize_t m, const WitnessLimits *w) {
    const double *X0 = p->v.box[0].view.buf, *X1 = p->v.box[1].view.buf, *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    size_t cap = m ? (size_t)m : 1;
    int64_t *ints = malloc(6 * cap * sizeof(int64_t));
    double *floats = malloc(5 * cap * sizeof(double));
    char *flags = calloc(2 * cap, 1);
    int found = -1;
    if (!ints || !floats || !flags) { PyErr_NoMemory(); goto done; }
    int64_t *sorted = ints, *below = ints + cap, *above = ints + 2 * cap, *lines = ints + 3 * cap, *lengths = ints + 5 * cap;
    memcpy(sorted, stack, (size_t)m * sizeof(int64_t));
    qsort(sorted, (size_t)m, sizeof(int64_t), cmp_int64);
    if (nearest_of(X0, X1, Y0, Y1, sorted, m, p->descent, w->line_step, below, above, floats, floats + cap, floats + 2 * cap) < 0) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t out = 0, n_blocks = block_walk(Y0, Y1, sorted, m, below, above, floats, p->descent, w->paragraph_gap,
                                              w->size_change, flags, floats + 3 * cap, lines, lengths, &out);
    if (n_blocks < 0) goto done;
    found = 0;
    for (Py_ssize_t b = 0, at = 0; b < n_blocks && !found; at += lengths[b], b++)
        for (Py_ssize_t k = at + 1; k < at + lengths[b]; k++)
            if (lines[k] < lines[k - 1]) found = 1;
done:
    free(ints); free(floats); free(flags);
    return found;
}

/* leaves._edges_and_stack of `order` (m lines) into out (m): 0, WITNESS_TAIL
 * where leaf_tail declines (the reference raises), or -1 on error. */
static int witness_tail(const ColumnPage *p, const char *placed, const int64_t *order, Py_ssize_t m, const WitnessLimits *w,
                        int64_t *out) {
    TailPage t = {p->v.box[0].view.buf, p->v.box[1].view.buf, p->v.box[2].view.buf, p->v.box[3].view.buf, placed,
                  p->v.box[0].view.len / 8, p->descent, p->same_baseline, w->section, w->rtl};
    size_t items = m ? (size_t)m : 1;
    TailWork tw = {0};
    tw.base = calloc(items, sizeof(double)); tw.key = calloc(2 * items, sizeof(double)); tw.tmp_d = calloc(2 * items, sizeof(double));
    tw.idx = calloc(2 * items, sizeof(int64_t)); tw.tmp = calloc(2 * items, sizeof(int64_t)); tw.row = calloc(items, sizeof(int64_t));
    tw.parts[0] = calloc(items, sizeof(int64_t)); tw.parts[1] = calloc(items, sizeof(int64_t));
    tw.on = calloc(items, 1); tw.keep = calloc(items, 1);
    int64_t *edged = calloc(2 * items, sizeof(int64_t)), *down = calloc(2 * items, sizeof(int64_t));
    int found = -1;
    if (!tw.base || !tw.key || !tw.tmp_d || !tw.idx || !tw.tmp || !tw.row || !tw.parts[0] || !tw.parts[1] || !tw.on || !tw.keep ||
        !edged || !down) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t n = edge_rows(&t, order, m, &tw, edged), lo = 0, hi = 0;
    if (n < 0) { found = WITNESS_TAIL; goto done; }
    memcpy(out, edged, (size_t)n * sizeof(int64_t));
    found = 0;
    if (stack_of(&t, edged, n, &tw, &lo, &hi, down)) {
        int otherwise = stack_painted_otherwise(p, edged + lo, hi - lo, w);
        if (otherwise < 0) found = -1;
        else if (otherwise) memcpy(out + lo, down, (size_t)(hi - lo) * sizeof(int64_t));
    }
done:
    free(tw.base); free(tw.key); free(tw.tmp_d); free(tw.idx); free(tw.tmp); free(tw.row); free(tw.parts[0]); free(tw.parts[1]);
    free(tw.on); free(tw.keep); free(edged); free(down);
    return found;
}

/* leaf_witness' verdict on the leaf ids[0..n) (ascending) and its runs r,
 * its order into out (n) where WITNESS_READ; -1 on error. */
static int witness_order(ColumnPage *p, const char *placed, const int64_t *ids, Py_ssize_t n, WitnessRuns *r,
                         const WitnessLimits *w, int64_t *out) {
    const double *X0 = p->v.box[0].view.buf, *X1 = p->v.box[1].view.buf, *Y0 = p->v.box[2].view.buf, *Y1 = p->v.box[3].view.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (!isfinite(X0[ids[k]]) || !isfinite(X1[ids[k]]) || !isfinite(Y0[ids[k]]) || !isfinite(Y1[ids[k]])) return WITNESS_NOT_FINITE;
    int found = witness_sidebar(p, ids, n, w);
    if (found) return found == 1 ? WITNESS_SIDEBAR : found;
    found = witness_cells(p, ids, n, w);
    if (found) return found;
    size_t cap = (size_t)r->count + 1;
    int64_t *order = malloc(cap * sizeof(int64_t)), *lines = malloc(((size_t)n + 1) * sizeof(int64_t));
    int64_t *lengths = malloc(cap * sizeof(int64_t));
    double *box = malloc(4 * cap * sizeof(double));
    char *among = NULL;
    int64_t *alone = NULL;
    if (!order || !lines || !lengths || !box) { PyErr_NoMemory(); found = -1; goto done; }
    found = witness_stacking(p, r, ids, n, w, order);
    if (found) goto done;
    /* The runs in that order. */
    for (Py_ssize_t k = 0, m = 0; k < r->count; k++) {
        int64_t run = order[k];
        lengths[k] = r->lengths[run];
        memcpy(lines + m, r->ids + r->at[run], (size_t)lengths[k] * sizeof(int64_t));
        m += (Py_ssize_t)lengths[k];
    }
    /* _ahead_first: a block ahead of another, in a leaf that is no text column. */
    if (r->count >= 2) {
        int text = text_column_of(p, ids, n);
        if (text < 0 || text == WITNESS_WORDS) { found = text; goto done; }
        if (!text) {
            Py_ssize_t m = 0;
            alone = malloc(cap * sizeof(int64_t)); among = malloc(cap * cap);
            if (!alone || !among) { PyErr_NoMemory(); found = -1; goto done; }
            unit_run_boxes(X0, X1, Y0, Y1, lines, lengths, r->count, box, NULL);
            if (blocks_ahead_of(box, lengths, r->count, w->rtl, alone, among, &m) && m >= 2) { found = WITNESS_AHEAD; goto done; }
        }
    }
    found = witness_tail(p, placed, lines, n, w, out);
done:
    free(order); free(lines); free(lengths); free(box); free(alone); free(among);
    return found;
}

/* ---- leaf_witness(x0, x1, y0, y1, inked, start, end, alpha, space, words, first_word, placed, ids, runs,
 *                   (tol, fill, sample), (narrow, column_width, split_rows, glyphs, letters, prose_lines, prose_share),
 *                   (descent, paragraph_step, wrap_space, min_pairs, min_words, min_lines, wrapped),
 *                   (same_baseline, padding, aligned),
 *                   (gutter, line_step, leading, paragraph_gap, size_change, stacked, consistent, section_gap),
 *                   (max_cell_lines, filled_holes, blocks_back), rtl) -> (verdict, order | None)
 * kernels.leaf_witness (leaves._witnessed): of a leaf's lines `ids`
 * (ascending) whose stream is the witness of their order, and its runs (a
 * list of int64 arrays, together `ids`), leaf_order's reading of them in
 * one call where the rules move nothing but by the bands and the edges: no
 * sidebar, no cells nor paragraph painted in turn to read together, no
 * blocks painted back nor runs painted up nor holes filled later, no block
 * ahead of another; the runs then read in _band_order, and their lines
 * through _edge_rows and _stack_down (int64 bytes, WITNESS_READ). Else the
 * reason the rules decide (WITNESS_*) and None; `words` and `first_word`
 * may be None where the page has not counted them, and WITNESS_WORDS then
 * says a test needs them. Each step is its own
 * kernel's body (gutter_cuts_of, group_verdicts, on_baselines, nearest_of,
 * cell_chains_of, block_walk, blocks_out_of_turn, paragraph_keep,
 * unit_run_boxes, back_up_count, stacking_counts, hole_count,
 * blocks_ahead_of, edge_rows, stack_of); the text-column test is
 * group_verdicts' (regions.is_text_column compiled, the wraps case too). */
static PyObject *layout_leaf_witness(PyObject *mod, PyObject *args) {
    PyObject *box[4], *glyphs[5], *words_obj, *first_obj, *placed_obj, *ids_obj, *runs_obj;
    ColumnPage p;
    WitnessLimits w;
    memset(&p, 0, sizeof p);
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOOO(ddn)(dddddnd)(dddndnd)(ddd)(dddddddd)(nnn)p", &box[0], &box[1], &box[2], &box[3],
                          &glyphs[0], &glyphs[1], &glyphs[2], &glyphs[3], &glyphs[4], &words_obj, &first_obj, &placed_obj, &ids_obj,
                          &runs_obj, &p.tol, &p.fill, &p.sample, &p.lim.narrow, &p.lim.column_width, &p.lim.split_rows,
                          &p.lim.min_glyphs, &p.lim.letter_share, &p.lim.prose_lines, &p.lim.prose_share, &p.descent,
                          &p.paragraph_step, &p.wrap_space, &p.min_pairs, &p.min_words, &p.min_lines, &p.wrapped_share,
                          &p.same_baseline, &p.padding, &p.aligned, &w.gutter, &w.line_step, &w.leading, &w.paragraph_gap,
                          &w.size_change, &w.stacked, &w.consistent, &w.section, &w.max_cell_lines, &w.filled_holes,
                          &w.blocks_back, &w.rtl))
        return NULL;
    View vw = {0}, vf = {0}, vi = {0}, vp = {0};
    PyObject *result = NULL;
    int64_t *run_ids = NULL, *run_lengths = NULL, *at = NULL, *out = NULL;
    /* words None: not measured yet (the page counts them when asked; WITNESS_WORDS asks). */
    Py_ssize_t size = words_obj == Py_None ? get_group_columns(box, glyphs[0], glyphs[1], glyphs[2], glyphs[3], glyphs[4], &p.v)
                                           : get_column_page(box, glyphs, words_obj, first_obj, &p, &vw, &vf);
    if (size < 0 || get_view(ids_obj, &vi, "l", 8, "ids") < 0 || get_view(placed_obj, &vp, "?", 1, "placed") < 0) goto done;
    Py_ssize_t n = vi.view.len / 8, count = 0, total = 0;
    if (check_ids(vi.view.buf, n, size, "ids") < 0) goto done;
    if (vp.view.len != size) { PyErr_SetString(PyExc_ValueError, "placed: one flag per unit"); goto done; }
    const int64_t *ids = vi.view.buf;
    for (Py_ssize_t k = 1; k < n; k++)
        if (ids[k] <= ids[k - 1]) { PyErr_SetString(PyExc_ValueError, "ids: ascending, each once"); goto done; }
    int status = join_run_list(runs_obj, &run_ids, &run_lengths, &count, &total);
    if (status < 0) goto done;
    if (status == 0) { result = Py_BuildValue("(iO)", WITNESS_RUNS, Py_None); goto done; }
    if (total != n) { PyErr_SetString(PyExc_ValueError, "runs: the leaf's lines together"); goto done; }
    if (check_ids(run_ids, total, size, "runs") < 0) goto done;
    at = malloc(((size_t)count + 1) * sizeof(int64_t));
    out = malloc(((size_t)n + 1) * sizeof(int64_t));
    if (!at || !out) { PyErr_NoMemory(); goto done; }
    at[0] = 0;
    for (Py_ssize_t k = 0; k < count; k++) at[k + 1] = at[k] + run_lengths[k];
    WitnessRuns r = {run_ids, run_lengths, at, count};
    int verdict = witness_order(&p, vp.view.buf, ids, n, &r, &w, out);
    if (verdict < 0) goto done;
    result = verdict == WITNESS_READ ? Py_BuildValue("(iN)", verdict, int64_bytes(out, n)) : Py_BuildValue("(iO)", verdict, Py_None);
done:
    free(run_ids); free(run_lengths); free(at); free(out); free(p.ints); free(p.floats);
    release_group(&p.v); release(&vw); release(&vf); release(&vi); release(&vp);
    return result;
}

/* ==== end of lpage's witnessed leaf ==== */

static PyMethodDef module_methods[] = {
    {"gutter_cuts", (PyCFunction)layout_gutter_cuts, METH_VARARGS, "Units by x0, and where a gutter parts them."},
    {"section_breaks", (PyCFunction)layout_section_breaks, METH_VARARGS, "Row starts a section gap under the rows above."},
    {"column_verdicts", (PyCFunction)layout_column_verdicts, METH_VARARGS,
     "The text-column and prose verdicts on each of a list of groups of units, one byte each."},
    {"group_measures", (PyCFunction)layout_group_measures, METH_VARARGS,
     "Width, rows, row measures, letters and long rows of a group of units."},
    {"rows", (PyCFunction)layout_rows, METH_VARARGS, "Units top to bottom and where each row starts."},
    {"pair_shared", (PyCFunction)layout_pair_shared, METH_VARARGS, "How many lines of the shorter of two runs lie on the other's baselines."},
    {"shared_baselines", (PyCFunction)layout_shared_baselines, METH_VARARGS,
     "Per pair of runs, how many lines of one meet a baseline of the other."},
    {"paint_run_cuts", (PyCFunction)layout_paint_run_cuts, METH_VARARGS, "Where the stream leaves a block."},
    {"kahn", (PyCFunction)layout_kahn, METH_O, "A topological order, the smallest free node first."},
    {"disorder", (PyCFunction)layout_disorder, METH_VARARGS, "Units the stream paints out of a reading's order."},
    {"text_classes", (PyCFunction)layout_text_classes, METH_VARARGS, "str.isalpha and str.isspace of each text (of those at order)."},
    {"letter_counts", (PyCFunction)layout_letter_counts, METH_VARARGS, "Letters and inked glyphs on a sample of units."},
    {"stream_visits", (PyCFunction)layout_stream_visits, METH_VARARGS, "A part sorted, and where the stream leaves it."},
    {"run_boxes", (PyCFunction)layout_run_boxes, METH_VARARGS, "The box of each run of units."},
    {"run_pairs", (PyCFunction)layout_run_pairs, METH_VARARGS, "Per pair of runs: above, apart, flush."},
    {"run_stacking", (PyCFunction)layout_run_stacking, METH_VARARGS,
     "Of a leaf's runs: stacked pairs, those painted upward, runs painted up, the top and bottom runs."},
    {"side_by_side_pairs", (PyCFunction)layout_side_by_side_pairs, METH_VARARGS,
     "Long units, and neighbouring pairs of them a gutter apart on one row."},
    {"row_measures", (PyCFunction)layout_row_measures, METH_VARARGS, "Median row extent, rows side by side, median row glyphs."},
    {"back_up_moves", (PyCFunction)layout_back_up_moves, METH_VARARGS, "Moves of the stream back up or back along a row."},
    {"cell_disorder", (PyCFunction)layout_cell_disorder, METH_VARARGS, "Units the stream paints out of a cell order."},
    {"gutter_cells", (PyCFunction)layout_gutter_cells, METH_VARARGS, "The rows' heights, the best supported gutter's core and the rows crossing it."},
    {"block_firsts", (PyCFunction)layout_block_firsts, METH_VARARGS, "The lines that begin a block, from the top or the foot."},
    {"nearest_under", (PyCFunction)layout_nearest_under, METH_VARARGS, "Per line, the nearest line under and above it."},
    {"backward_units", (PyCFunction)layout_backward_units, METH_VARARGS, "Per unit, is it painted backwards along its line."},
    {"marks_beside", (PyCFunction)layout_marks_beside, METH_VARARGS, "Per small unit, the first line it is a mark beside."},
    {"lines_along", (PyCFunction)layout_lines_along, METH_VARARGS, "Units by row, then along it, and per unit its line."},
    {"blank_edges", (PyCFunction)layout_blank_edges, METH_VARARGS, "Blanks leading or trailing each unit."},
    {"pair_moves", (PyCFunction)layout_pair_moves, METH_VARARGS, "The line rule, gap and larger height of glyph pairs."},
    {"reordered_moves", (PyCFunction)layout_reordered_moves, METH_VARARGS,
     "The moves of a reordering of a stream, from the stream's own and the pairs it brings together."},
    {"emit", (PyCFunction)layout_emit, METH_VARARGS, "Leaves of units as stream positions, and where each leaf starts."},
    {"wrap_measures", (PyCFunction)layout_wrap_measures, METH_VARARGS, "What the wrap test of a group of lines counts."},
    {"out_of_turn", (PyCFunction)layout_out_of_turn, METH_VARARGS, "Per block, is it painted out of order or in turn with another beside it."},
    {"follow_chains", (PyCFunction)layout_follow_chains, METH_VARARGS, "Chains of positions down below[] while linked."},
    {"turning_pair", (PyCFunction)layout_turning_pair, METH_VARARGS, "The first tangled pair of runs whose lines take turns."},
    {"cell_chains", (PyCFunction)layout_cell_chains, METH_VARARGS, "The cells among chains of tight lines, and their lengths."},
    {"block_chains", (PyCFunction)layout_block_chains, METH_VARARGS, "The blocks of a leaf's lines down their nearest lines, and their lengths."},
    /* the fixed per-page pipeline */
    {"upright_frame", (PyCFunction)layout_upright_frame, METH_VARARGS, "A page's glyph extents and unit boxes in an upright frame."},
    {"upright_backward_units", (PyCFunction)layout_upright_backward_units, METH_VARARGS,
     "Per unit of the stream, is it painted backwards along its line (upright frame)."},
    {"block_starts", (PyCFunction)layout_block_starts, METH_VARARGS, "Block starts of a reading, and its indented first lines."},
    {"heading_blocks", (PyCFunction)layout_heading_blocks, METH_VARARGS, "Per block: start, length, heading size, is it a heading."},
    {"block_labels", (PyCFunction)layout_block_labels, METH_VARARGS, "labels.block_labels: per position its block's label index."},
    {"block_reading", (PyCFunction)layout_block_reading, METH_VARARGS,
     "labels.reordered_reading: a reading of the stream reordered, its block starts, and per block its label's index."},
    {"stream_unit_starts", (PyCFunction)layout_stream_unit_starts, METH_VARARGS, "Where the units of a stream start."},
    {"stream_units", (PyCFunction)layout_stream_units, METH_VARARGS,
     "A page's stream measured and cut into units: moves, text classes, unit starts, their frame."},
    /* lrules: the rule engine's decisions */
    {"interleaved_merges", (PyCFunction)layout_interleaved_merges, METH_VARARGS,
     "The merges of interleaved runs, in order, as (i, j) pairs."},
    {"row_groups", (PyCFunction)layout_row_groups, METH_VARARGS, "Items in reading order cut into groups sharing a row."},
    {"blocks_wrap", (PyCFunction)layout_blocks_wrap, METH_VARARGS, "wrap_measures of each block of lines in its rows."},
    {"row_mates", (PyCFunction)layout_row_mates, METH_VARARGS, "Per pair of runs, are both one row each on one baseline."},
    {"grid_rows", (PyCFunction)layout_grid_rows, METH_VARARGS, "Lines of a grid by rows, each row by cells along the line."},
    {"row_returns", (PyCFunction)layout_row_returns, METH_VARARGS,
     "Lines next to one another on a row the stream does not paint in turn, and how many rows."},
    {"placed_lines", (PyCFunction)layout_placed_lines, METH_VARARGS,
     "Placed units by row and along it, their marks and lines, and which later line rules may apply."},
    {"line_blanks", (PyCFunction)layout_line_blanks, METH_VARARGS,
     "Units of blanks on their lines (upright frame): unit, line, rank, host, centre."},
    /* leaves kernels */
    {"flush_visits", (PyCFunction)layout_flush_visits, METH_VARARGS, "Runs joined while their edges span at most a slack."},
    {"pass_cuts", (PyCFunction)layout_pass_cuts, METH_VARARGS, "Where the stream's passes down a leaf end."},
    {"components", (PyCFunction)layout_components, METH_VARARGS, "Per node, the smallest node of its connected component."},
    /* lpage: fused leaf rules */
    {"grid_links", (PyCFunction)layout_grid_links, METH_VARARGS, "Run boxes, and narrow runs apart on one another's baselines."},
    {"grid_groups", (PyCFunction)layout_grid_groups, METH_VARARGS, "Per run, the smallest run of its grid's group."},
    {"leaf_stacking", (PyCFunction)layout_leaf_stacking, METH_VARARGS, "Run boxes, their stacking and the holes the stream fills."},
    /* lpage: run lists */
    {"joined_runs", (PyCFunction)layout_joined_runs, METH_O, "The lines of a list of runs concatenated, and their lengths."},
    {"paint_order", (PyCFunction)layout_paint_order, METH_O, "Runs by their smallest unit, ties in list order."},
    {"first_words", (PyCFunction)layout_first_words, METH_VARARGS, "Per unit, its first word's extent and its word count."},
    /* lpage: a leaf's tail */
    {"leaf_tail", (PyCFunction)layout_leaf_tail, METH_VARARGS, "A leaf's edge rows, and the stack between them."},
    /* lpage: the page's reading direction */
    {"reads_rtl", (PyCFunction)layout_reads_rtl, METH_VARARGS, "Does a sample of the glyphs read right to left."},
    /* lpage: a leaf's paragraphs */
    {"paragraph_blocks", (PyCFunction)layout_paragraph_blocks, METH_VARARGS,
     "Per block of a leaf, does it wrap as a paragraph, not on the baselines of lines beside it."},
    {"margin_note", (PyCFunction)layout_margin_note, METH_VARARGS, "A leaf's lines clear of its text's edge, where they are a margin note."},
    {"note_over_the_text", (PyCFunction)layout_note_over_the_text, METH_VARARGS,
     "A page's lines top down, and where a note inset over the text beneath it ends."},
    {"leaf_cells", (PyCFunction)layout_leaf_cells, METH_VARARGS,
     "A leaf's cells and its blocks with their out-of-turn flags, from one nearest_under."},
    {"leaf_front", (PyCFunction)layout_leaf_front, METH_VARARGS,
     "A leaf's paint runs and the verdict of leaf_order's first tests on them."},
    {"column_visits", (PyCFunction)layout_column_visits, METH_VARARGS,
     "A leaf's runs joined into visits to a column set flush, and is one painted up and down."},
    {"leaf_witness", (PyCFunction)layout_leaf_witness, METH_VARARGS, "A witnessed leaf's order where the rules move nothing but by the bands and the edges, else why not."},
    {"blocks_ahead", (PyCFunction)layout_blocks_ahead, METH_VARARGS, "Blocks alone on their rows, and which lie wholly above and before which."},
    /* lcut: the stream's witness of a region's cut */
    {"band_order", (PyCFunction)layout_band_order, METH_VARARGS, "A region's bands in the order the stream paints them, where it is a witness."},
    {"reads_columns", (PyCFunction)layout_reads_columns, METH_VARARGS,
     "Does the stream read the sides of a region's gutter candidate one after the other."},
    {"column_groups", (PyCFunction)layout_column_groups, METH_VARARGS,
     "A region's groups between full-height gutters, tables joined, and which gutters stand."},
    {"gap_cuts", (PyCFunction)layout_gap_cuts, METH_VARARGS, "Where a region is cut into bands at its columns' gaps the stream reads apart."},
    {"column_leaves", (PyCFunction)layout_column_leaves, METH_VARARGS,
     "A region's leaves read by its columns, their parts set apart and fragments merged, but for the columns' own cuts."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef layout_module = {
    PyModuleDef_HEAD_INIT, "_layout", "Compiled kernels of ragprep's layout mode.", -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__layout(void) { return PyModule_Create(&layout_module); }
