/* ragprep.extract._grids: the compiled kernels of table detection on untagged
 * pages (extract/gridfind.py), an optional extension of its own.
 *
 * gridfind.py keeps the numpy reference of every kernel here and runs it where
 * this module is not built or RAGPREP_PURE is set; tests/extract/
 * test_grids_compiled.py holds the two equal on the fixtures and the corpus.
 * Each kernel does the same float operations in the same order as its
 * reference, so results are bit-identical, not merely close:
 *
 *   text_lines       gridfind._lines: glyphs into lines top to bottom, each
 *                    line in x order and cut into pieces at wide gaps;
 *   rules            gridfind._rules: the rules among the page's straight pieces;
 *   merge_collinear  gridfind._merge_collinear: touching rules on one line joined;
 *   rule_components  the connected sets of crossing rules in gridfind.ruled_grids;
 *   grid_spans       gridfind._spans: a ruled grid's slots joined into cells;
 *   grid_slots       gridfind._glyph_slots: the slot each glyph's box centre lies in;
 *   word_counts      gridfind._word_counts: the words of each cell of a grid;
 *   aligned_grids    gridfind.aligned_grids after _lines: the runs of lines cut
 *                    in pieces and, of each, the cells _aligned_cells keeps;
 *   page_aligned_grids  gridfind.aligned_grids in one call: text_lines' and
 *                    aligned_grids' work without the lines going to Python;
 *   band_glyphs      running._band_glyphs on an upright page: the glyphs of the
 *                    top and bottom bands (running heads, a per-page cost like
 *                    table detection's, so compiled beside it);
 *   band_segments    running._segments: where band lines and spaces start;
 *   cell_boxes       gridfind._cell_boxes: each detected cell's box, rounded as
 *                    round(v, 3), and its span in the page text;
 *   cell_mcids       gridfind._cell_mcids: each detected cell's MCIDs, each once;
 *   band_lines       running.band_lines up to its keys on a page of upright
 *                    glyphs, in one call: band glyphs, segments, their texts
 *                    and rows (the two kernels above are its steps);
 *   band_joins       whether running._pieces_joined joins any two segments
 *                    (its test only: where one joins, the reference joins them).
 *   band_keys        running.band_lines whole where no pieces join: band_lines'
 *                    segments, band_joins' test, each segment's masked key,
 *                    the candidates and their BandLines, in one call;
 *   band_mask        running.running_mask: a page's running lines' glyphs
 *                    (BandLines.mask) and whether it keeps text elsewhere
 *                    (leaves_text), in one call;
 *   ruled_grids      gridfind.ruled_grids in one call: rules, merged, their
 *                    crossing sets, and of each its edges (means summed as
 *                    np.mean sums), slots, spans and _compress (rules,
 *                    merge_collinear, rule_components, grid_spans, grid_slots
 *                    and word_counts are its steps, kernels of their own);
 *   find_grids       gridfind._grids_found in one call: the page's candidate
 *                    glyphs (text rows less artifacts), ruled_grids' work on
 *                    them, the glyphs its grids take left out, and
 *                    page_aligned_grids' work on the rest (both kernels are
 *                    its steps); a page without a grid answers ().
 *
 * Nothing here reads PDF bytes: the inputs are float columns of the glyph and
 * path tables. Every index is bounds-checked; a coordinate that is not finite
 * (NaN sorts and infinities rank apart in numpy) makes a kernel answer None, and the
 * reference runs for that page.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "_npsum.h"

typedef struct { Py_buffer view; int ok; } View;

static void release(View *v) {
    if (v->ok) PyBuffer_Release(&v->view);
    v->ok = 0;
}

/* A C-contiguous buffer of `itemsize`-byte items of struct format `fmt`
 * ("d" float64, "l"/"q" int64), writable when asked. */
static int get_view(PyObject *obj, View *v, const char *fmt, Py_ssize_t itemsize, int writable, const char *what) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, &v->view, flags) < 0) return -1;
    v->ok = 1;
    const char *f = v->view.format ? v->view.format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int int64 = fmt[0] == 'l' && (f[0] == 'l' || f[0] == 'q') && f[1] == 0;
    if (v->view.itemsize != itemsize || !(int64 || strcmp(f, fmt) == 0)) {
        PyErr_Format(PyExc_TypeError, "%s: expected items of format %s", what, fmt);
        release(v);
        return -1;
    }
    return 0;
}

/* ---- sorting by keys ------------------------------------------------- */

/* Sort keys of one item: the primary and secondary keys compare as
 * doubles, the third (its position) breaks every tie, so the order is total
 * and any correct sort gives numpy's stable one. */
typedef struct { double a, b; int64_t at; } Key;

static inline int key_less(const Key *k, const Key *l) {
    if (k->a != l->a) return k->a < l->a;
    if (k->b != l->b) return k->b < l->b;
    return k->at < l->at;
}

/* Keys in order, fast on what a page mostly is (glyphs painted in reading
 * order, or backwards): natural runs (descending ones reversed) extended to
 * MIN_RUN by insertion, then merged bottom-up, as timsort does without its
 * galloping. `buf` holds n keys. */
#define MIN_RUN 32
static void sort_keys(Key *keys, Py_ssize_t n, Key *buf, Py_ssize_t *bounds) {
    Py_ssize_t runs = 0;
    for (Py_ssize_t start = 0; start < n;) {
        Py_ssize_t end = start + 1;
        if (end < n && key_less(&keys[end], &keys[start])) {
            while (end < n && key_less(&keys[end], &keys[end - 1])) end++;
            for (Py_ssize_t i = start, j = end - 1; i < j; i++, j--) {
                Key t = keys[i]; keys[i] = keys[j]; keys[j] = t;
            }
        } else {
            while (end < n && !key_less(&keys[end], &keys[end - 1])) end++;
        }
        Py_ssize_t stop = end - start < MIN_RUN ? (start + MIN_RUN < n ? start + MIN_RUN : n) : end;
        for (Py_ssize_t i = end; i < stop; i++) {
            Key t = keys[i];
            Py_ssize_t j = i;
            for (; j > start && key_less(&t, &keys[j - 1]); j--) keys[j] = keys[j - 1];
            keys[j] = t;
        }
        bounds[runs++] = start;
        start = stop;
    }
    bounds[runs] = n;
    while (runs > 1) {
        Py_ssize_t merged = 0;
        for (Py_ssize_t r = 0; r < runs; r += 2) {
            Py_ssize_t lo = bounds[r], mid = bounds[r + 1], hi = r + 2 <= runs ? bounds[r + 2] : mid;
            bounds[merged++] = lo;
            if (r + 1 >= runs || !key_less(&keys[mid], &keys[mid - 1])) continue;
            memcpy(buf, keys + lo, (size_t)(mid - lo) * sizeof(Key));
            Py_ssize_t i = 0, left = mid - lo, j = mid, k = lo;
            while (i < left && j < hi) keys[k++] = key_less(&keys[j], &buf[i]) ? keys[j++] : buf[i++];
            while (i < left) keys[k++] = buf[i++];
        }
        bounds[merged] = n;
        runs = merged;
    }
}

static int any_not_finite(const double *v, Py_ssize_t n) {
    for (Py_ssize_t k = 0; k < n; k++)
        if (!isfinite(v[k])) return 1;
    return 0;
}

/* The k-th least of v[0..n) (Hoare's selection, as Wirth writes it), with
 * v left partitioned around it: nothing before position k is greater,
 * nothing after it less. The values are finite (the kernels decline others). */
static double kth_least(double *v, Py_ssize_t n, Py_ssize_t k) {
    Py_ssize_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[k];
        Py_ssize_t i = lo, j = hi;
        do {
            while (v[i] < pivot) i++;
            while (pivot < v[j]) j--;
            if (i <= j) {
                double t = v[i]; v[i] = v[j]; v[j] = t;
                i++; j--;
            }
        } while (i <= j);
        if (j < k) lo = i;
        if (k < i) hi = j;
    }
    return v[k];
}

/* groups.group_medians of one run: the middle value, or the mean of the two
 * middle ones ((low + high) / 2), of `values` gathered through `at`. */
static double median_of(const double *values, const int64_t *at, Py_ssize_t size, double *scratch) {
    int alike = 1;
    for (Py_ssize_t k = 0; k < size; k++) {
        scratch[k] = values[at[k]];
        alike &= scratch[k] == scratch[0];
    }
    /* A line's glyphs mostly share one height: no order to find. Short runs
     * sorted by insertion; longer ones by selection of the upper middle
     * value, the lower one then the greatest before it (a whole sort, as
     * qsort did, costs a call per comparison). Any of these gives the same
     * middle values: the kernel declines values that are not finite. */
    if (alike) return (scratch[(size - 1) / 2] + scratch[size / 2]) / 2;
    if (size <= 32) {
        for (Py_ssize_t i = 1; i < size; i++) {
            double t = scratch[i];
            Py_ssize_t j = i;
            for (; j > 0 && t < scratch[j - 1]; j--) scratch[j] = scratch[j - 1];
            scratch[j] = t;
        }
        return (scratch[(size - 1) / 2] + scratch[size / 2]) / 2;
    }
    double high = kth_least(scratch, size, size / 2), low = high;
    if (size % 2 == 0) {
        low = scratch[0];
        for (Py_ssize_t k = 1; k < size / 2; k++) low = scratch[k] > low ? scratch[k] : low;
    }
    return (low + high) / 2;
}

/* ---- text_lines --------------------------------------------------------- */

/* text_lines(origin, height, quad, direction, glyphs, gap, out_glyphs,
 * out_piece_start, out_piece_x0, out_piece_x1, out_line_piece, out_line_y,
 * out_line_height) -> (pieces, lines, upright), or None when a value is not
 * finite.
 *
 * The glyph table's columns origin (N x 2), height (N), quad (N x 4 x 2) and
 * direction (N x 2), and `glyphs`, the n candidate glyphs (gridfind._lines).
 * Of them the upright ones are read: |direction x - 1| < 0.05 (false for
 * NaN, as numpy's comparison), kept in their order. Those are ordered top
 * to bottom (origin y descending), ties by x, then position;
 * a new line starts where |dy| > 0.3 x the smaller of the two heights
 * (clamped to 1e-6); each line is put in x order (ties keep the order above;
 * the reference sorts by the rank of x, which orders as x does when every
 * value is finite); a piece starts at a line start and where the glyph box's
 * least x lies more than `gap` x the line's median height past the greatest
 * box x so far on the line. Out: the upright glyphs in that order (glyph
 * table indices), per piece its first position and x extent, per line its
 * first piece (and the piece count after the last line), the y of its
 * first glyph and the median height of its first piece. Output buffers
 * hold n items (out_line_piece n + 1). */
/* The page's text lines (grids_text_lines' rule) out. */
typedef struct {
    int64_t *glyphs, *piece_start, *line_piece; /* each n items, line_piece n + 1 */
    double *x0, *x1, *y, *height;                /* each n items */
    Py_ssize_t pieces, lines, upright;
} Lines;

/* The upright candidates' measures (lines_of): per upright glyph its table
 * row, origin x and y, height and box x extent; where each stretch of
 * consecutive ones on one baseline (equal y) starts; and per stretch the
 * first of its least x and the last of its greatest x. */
typedef struct {
    int64_t *up, *run_start, *run_least, *run_most;
    double *X, *Y, *H, *X0, *X1;
    Py_ssize_t n, runs;
} Upright;

/* Top to bottom (text_lines' first sort: -y, then x, then position) the
 * glyphs on one baseline are consecutive, and a line breaks only where the
 * baseline changes: between the greatest (x, position) of one baseline and
 * the least of the next. So the stretches of consecutive glyphs on one
 * baseline are sorted (by -y, then first position: equal baselines become
 * one), not the glyphs; each line's glyphs then in x order, ties by -y and
 * position, which is the order of x then rank in the first sort. Out: per
 * line its first position in `order` and n after the last; `order` the
 * positions (in u->up) line after line, each line in x order. The lines. */
static Py_ssize_t lines_in_order(const Upright *u, Key *keys, Key *buf, Py_ssize_t *bounds, int64_t *line_of,
                                 int64_t *order) {
    const double *X = u->X, *Y = u->Y, *H = u->H;
    for (Py_ssize_t r = 0; r < u->runs; r++) keys[r] = (Key){-Y[u->run_start[r]], (double)u->run_start[r], r};
    sort_keys(keys, u->runs, buf, bounds);
    /* The runs' order, saved before `keys` holds each line's glyphs. */
    int64_t *by_run = (int64_t *)buf;
    for (Py_ssize_t r = 0; r < u->runs; r++) by_run[r] = keys[r].at;
    Py_ssize_t n_lines = 0, filled = 0;
    int64_t last = -1; /* the greatest (x, position) of the baseline before */
    for (Py_ssize_t i = 0; i < u->runs;) {
        /* One baseline: the runs i..j-1 (equal -y), its least and greatest (x, position). */
        Py_ssize_t j = i + 1;
        double y = Y[u->run_start[by_run[i]]];
        while (j < u->runs && Y[u->run_start[by_run[j]]] == y) j++;
        int64_t least = -1, most = -1;
        for (Py_ssize_t k = i; k < j; k++) {
            int64_t a = u->run_least[by_run[k]], b = u->run_most[by_run[k]];
            if (least < 0 || X[a] < X[least] || (X[a] == X[least] && a < least)) least = a;
            if (most < 0 || X[b] > X[most] || (X[b] == X[most] && b > most)) most = b;
        }
        int breaks = last < 0;
        if (!breaks) {
            double hg = H[least] > 1e-6 ? H[least] : 1e-6, hp = H[last] > 1e-6 ? H[last] : 1e-6;
            breaks = fabs(Y[least] - Y[last]) > 0.3 * (hg < hp ? hg : hp);
        }
        if (breaks) line_of[n_lines++] = filled;
        last = most;
        for (Py_ssize_t k = i; k < j; k++) {
            int64_t r = by_run[k], stop = r + 1 < u->runs ? u->run_start[r + 1] : u->n;
            for (int64_t p = u->run_start[r]; p < stop; p++) order[filled++] = p;
        }
        i = j;
    }
    line_of[n_lines] = filled;
    return n_lines;
}

/* One line's measures along `order` (positions start..end-1): its least
 * box x, the greatest box x (the reach), the widest step of a box's least x
 * past the reach before it, and its least height. */
typedef struct { double least, reach, widest, least_h; } LineMeasures;

/* The measures of the line start..end-1 of `order` (LineMeasures) when it
 * is in x order (ties by -y, then position: lines_in_order's sort), as
 * most lines are, one baseline painted left to right: 1, and 0 (nothing
 * measured) where it is not. One pass for both. */
static int measured_in_order(const Upright *u, const int64_t *order, Py_ssize_t start, Py_ssize_t end, LineMeasures *m) {
    const double *X = u->X, *Y = u->Y, *X0 = u->X0, *X1 = u->X1, *H = u->H;
    int64_t a = order[start];
    double reach = X1[a], least = X0[a], widest = -INFINITY, least_h = H[a];
    for (Py_ssize_t k = start + 1; k < end; k++) {
        int64_t b = order[k];
        if (!(X[a] < X[b] || (X[a] == X[b] && (Y[a] > Y[b] || (Y[a] == Y[b] && a < b))))) return 0;
        double step = X0[b] - reach;
        widest = step > widest ? step : widest;
        least = X0[b] < least ? X0[b] : least;
        reach = X1[b] > reach ? X1[b] : reach;
        least_h = H[b] < least_h ? H[b] : least_h;
        a = b;
    }
    *m = (LineMeasures){least, reach, widest, least_h};
    return 1;
}

/* The line start..end-1 of `order` put in x order (ties by -y, then
 * position) and measured (LineMeasures). `keys` holds the line's keys, `buf`
 * and `bounds` sort_keys' room. */
static void line_sorted(const Upright *u, int64_t *order, Py_ssize_t start, Py_ssize_t end, Key *keys, Key *buf,
                        Py_ssize_t *bounds, LineMeasures *m) {
    for (Py_ssize_t k = start; k < end; k++) keys[k - start] = (Key){u->X[order[k]], -u->Y[order[k]], order[k]};
    sort_keys(keys, end - start, buf, bounds);
    for (Py_ssize_t k = start; k < end; k++) order[k] = keys[k - start].at;
    measured_in_order(u, order, start, end, m);
}

/* The pieces of one line (positions start..end-1 of `order`, in x order)
 * into `out` from piece `pieces`: a piece starts at the line's start and
 * where a glyph box's least x lies more than `gap` x the line's median
 * height past the greatest box x so far. The line's height is the median
 * of its first piece; it is found only where asked (`every_height`) or
 * where the line has several pieces (page_grids reads no other): a line
 * whose widest step past the reach is at most `gap` x its least height has
 * one piece whatever its median (gap >= 0, and the median is no less). The
 * pieces after. */
static Py_ssize_t line_pieces(const Upright *u, const int64_t *order, Py_ssize_t start, Py_ssize_t end, double gap,
                              int every_height, const LineMeasures *m, double *scratch, Lines *out, Py_ssize_t line,
                              Py_ssize_t pieces) {
    const double *X0 = u->X0, *X1 = u->X1;
    int64_t g;
    double reach;
    out->line_piece[line] = pieces;
    out->y[line] = u->Y[order[start]];
    if (!every_height && gap >= 0 && !(m->widest > gap * m->least_h)) {
        out->piece_start[pieces] = start;
        out->x0[pieces] = m->least;
        out->x1[pieces] = m->reach;
        out->height[line] = NAN; /* not asked: one piece */
        return pieces + 1;
    }
    double median = median_of(u->H, order + start, end - start, scratch), limit = gap * median;
    Py_ssize_t first_end = end;
    reach = 0.0; /* set at the line's first glyph */
    for (Py_ssize_t k = start; k < end; k++) {
        g = order[k];
        if (k == start || X0[g] - reach > limit) {
            if (k != start && first_end == end) first_end = k;
            out->piece_start[pieces] = k;
            out->x0[pieces] = X0[g];
            out->x1[pieces] = X1[g];
            pieces++;
        } else {
            if (X0[g] < out->x0[pieces - 1]) out->x0[pieces - 1] = X0[g];
            if (X1[g] > out->x1[pieces - 1]) out->x1[pieces - 1] = X1[g];
        }
        reach = k == start || X1[g] > reach ? X1[g] : reach;
    }
    /* A line of one piece: its first piece's median is the line's. */
    out->height[line] = first_end == end ? median : median_of(u->H, order + start, first_end - start, scratch);
    return pieces;
}

/* The upright ones among the `total` candidates into `u` (arrays of
 * `count` items), with their stretches on one baseline: 1 read, 0 when a
 * value is not finite (or a sum of finite ones overflows: the reference
 * reads that page too), -1 on an error set. Every index is checked before a
 * value that is not finite makes the kernel decline. */
static int upright_of(const double *origin, const double *height, const double *quad, const double *direction,
                      Py_ssize_t rows, const int64_t *candidates, Py_ssize_t total, Upright *u) {
    Py_ssize_t n = 0, runs = 0;
    double sum = 0.0; /* of every value read: NaN or infinite where one is */
    double least_x = 0.0, most_x = 0.0; /* the x of the stretch's run_least and run_most */
    for (Py_ssize_t k = 0; k < total; k++) {
        int64_t g = candidates[k];
        if ((uint64_t)g >= (uint64_t)rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); return -1; }
        if (!(fabs(direction[2 * g] - 1.0) < 0.05)) continue;
        const double *q = quad + 8 * g;
        double a = q[0] < q[2] ? q[0] : q[2], b = q[4] < q[6] ? q[4] : q[6];
        double c = q[0] > q[2] ? q[0] : q[2], d = q[4] > q[6] ? q[4] : q[6];
        double x = origin[2 * g], y = origin[2 * g + 1], h = height[g], x0 = a < b ? a : b, x1 = c > d ? c : d;
        u->up[n] = g;
        u->X[n] = x; u->Y[n] = y; u->H[n] = h; u->X0[n] = x0; u->X1[n] = x1;
        /* Not finite once a value is not (a finite sum that overflows declines too: the reference reads it). */
        sum += ((x + y) + (h + x0)) + x1;
        if (!n || y != u->Y[n - 1]) {
            u->run_start[runs] = n;
            u->run_least[runs] = u->run_most[runs] = n;
            least_x = most_x = x;
            runs++;
        } else {
            /* Positions grow along the run: the first least x, the last greatest. */
            if (x < least_x) { u->run_least[runs - 1] = n; least_x = x; }
            if (x >= most_x) { u->run_most[runs - 1] = n; most_x = x; }
        }
        n++;
    }
    u->n = n;
    u->runs = runs;
    return isfinite(sum);
}

/* grids_text_lines' work over the `total` candidates into `out`: 1 done, 0
 * when a value is not finite, -1 on an error set. `every_height`: each
 * line's height (text_lines), else only those of lines of several pieces
 * (line_pieces). */
static int lines_of(const double *origin, const double *height, const double *quad, const double *direction,
                    Py_ssize_t rows, const int64_t *candidates, Py_ssize_t total, double gap, int every_height,
                    Lines *out) {
    int status = -1;
    size_t count = total ? (size_t)total : 1;
    Upright u = {0};
    double *measures = PyMem_Malloc(5 * count * sizeof(double));
    int64_t *positions = PyMem_Malloc(6 * (count + 1) * sizeof(int64_t));
    Key *keys = PyMem_Malloc(count * sizeof(Key)), *buf = PyMem_Malloc(count * sizeof(Key));
    Py_ssize_t *bounds = PyMem_Malloc((count + 1) * sizeof(Py_ssize_t));
    if (!measures || !positions || !keys || !buf || !bounds) { PyErr_NoMemory(); goto done; }
    u.X = measures; u.Y = u.X + count; u.H = u.Y + count; u.X0 = u.H + count; u.X1 = u.X0 + count;
    u.up = positions; u.run_start = u.up + count + 1; u.run_least = u.run_start + count + 1;
    u.run_most = u.run_least + count + 1;
    int64_t *line_of = u.run_most + count + 1, *order = line_of + count + 1;
    status = upright_of(origin, height, quad, direction, rows, candidates, total, &u);
    if (status <= 0) goto done;
    Py_ssize_t n_lines = lines_in_order(&u, keys, buf, bounds, line_of, order);
    double *scratch = (double *)buf; /* free again between the lines' sorts */
    Py_ssize_t pieces = 0;
    for (Py_ssize_t line = 0; line < n_lines; line++) {
        Py_ssize_t start = line_of[line], end = line_of[line + 1], before = pieces;
        LineMeasures m;
        if (!measured_in_order(&u, order, start, end, &m)) line_sorted(&u, order, start, end, keys, buf, bounds, &m);
        pieces = line_pieces(&u, order, start, end, gap, every_height, &m, scratch, out, line, pieces);
        /* page_grids reads the glyphs of lines of several pieces only. */
        if (every_height || pieces - before > 1)
            for (Py_ssize_t k = start; k < end; k++) out->glyphs[k] = u.up[order[k]];
    }
    out->line_piece[n_lines] = pieces;
    out->pieces = pieces;
    out->lines = n_lines;
    out->upright = u.n;
done:
    PyMem_Free(measures);
    PyMem_Free(positions);
    PyMem_Free(keys);
    PyMem_Free(buf);
    PyMem_Free(bounds);
    return status;
}

static PyObject *grids_text_lines(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[12];
    double gap;
    if (!PyArg_ParseTuple(args, "OOOOOdOOOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &gap, &objs[5],
                          &objs[6], &objs[7], &objs[8], &objs[9], &objs[10], &objs[11]))
        return NULL;
    static const char *fmts[12] = {"d", "d", "d", "d", "l", "l", "l", "d", "d", "l", "d", "d"};
    static const char *names[12] = {"origin", "height", "quad", "direction", "glyphs", "out_glyphs", "piece_start",
                                    "piece_x0", "piece_x1", "line_piece", "line_y", "line_height"};
    View v[12];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    for (int i = 0; i < 12; i++)
        if (get_view(objs[i], &v[i], fmts[i], 8, i >= 5, names[i]) < 0) goto done;
    Py_ssize_t rows = v[1].view.len / 8, total = v[4].view.len / 8;
    if (v[0].view.len / 8 != 2 * rows || v[2].view.len / 8 != 8 * rows || v[3].view.len / 8 != 2 * rows) {
        PyErr_SetString(PyExc_ValueError, "origin, height, quad and direction: one row per glyph");
        goto done;
    }
    for (int i = 5; i < 12; i++) {
        Py_ssize_t want = i == 9 ? total + 1 : total;
        if (v[i].view.len / 8 != want) { PyErr_Format(PyExc_ValueError, "%s: wrong length", names[i]); goto done; }
    }
    Lines out = {v[5].view.buf, v[6].view.buf, v[9].view.buf, v[7].view.buf, v[8].view.buf, v[10].view.buf,
                 v[11].view.buf, 0, 0, 0};
    int status = lines_of(v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf, rows, v[4].view.buf, total, gap, 1,
                          &out);
    if (status > 0) result = Py_BuildValue("(nnn)", out.pieces, out.lines, out.upright);
    if (status == 0) { result = Py_None; Py_INCREF(result); }
done:
    for (int i = 0; i < 12; i++) release(&v[i]);
    return result;
}

/* ---- merge_collinear ---------------------------------------------------- */

/* merge_collinear(segments, tolerance, out) -> count, or None when a value is not finite.
 * Rules (position, from, to), m x 3 float64, sorted by position then from
 * (ties by index); each joins the first rule of its line group that it
 * touches (same position within `tolerance`, starting at most `tolerance`
 * past its end), which then reaches the further end; a rule that joins
 * none starts a new one, and a new line group where its position is more
 * than `tolerance` from the last rule's. `out` holds m x 3. */
/* The merge of `m` finite rules S (position, from, to) into O (m x 3), the
 * count out (grids_merge_collinear's rule). keys, buf: m keys; bounds m + 1. */
static Py_ssize_t merge_rules(const double *S, Py_ssize_t m, double t, double *O, Key *keys, Key *buf,
                              Py_ssize_t *bounds) {
    for (Py_ssize_t k = 0; k < m; k++) keys[k] = (Key){S[3 * k], S[3 * k + 1], k};
    sort_keys(keys, m, buf, bounds);
    Py_ssize_t out = 0, group_start = 0;
    for (Py_ssize_t i = 0; i < m; i++) {
        const double *seg = S + 3 * keys[i].at;
        int merged = 0;
        for (Py_ssize_t k = group_start; k < out; k++) {
            double *cur = O + 3 * k;
            if (fabs(cur[0] - seg[0]) <= t && seg[1] <= cur[2] + t) {
                cur[2] = cur[2] >= seg[2] ? cur[2] : seg[2];
                merged = 1;
                break;
            }
        }
        if (merged) continue;
        if (out && fabs(O[3 * (out - 1)] - seg[0]) > t) group_start = out;
        memcpy(O + 3 * out, seg, 3 * sizeof(double));
        out++;
    }
    return out;
}

static PyObject *grids_merge_collinear(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *seg_obj, *out_obj;
    double t;
    if (!PyArg_ParseTuple(args, "OdO", &seg_obj, &t, &out_obj)) return NULL;
    View vs = {0}, vo = {0};
    PyObject *result = NULL;
    Key *keys = NULL, *buf = NULL;
    Py_ssize_t *bounds = NULL;
    if (get_view(seg_obj, &vs, "d", 8, 0, "segments") < 0 || get_view(out_obj, &vo, "d", 8, 1, "out") < 0) goto done;
    if (vs.view.len % 24 || vo.view.len != vs.view.len) { PyErr_SetString(PyExc_ValueError, "segments: m x 3"); goto done; }
    Py_ssize_t m = vs.view.len / 24;
    const double *S = vs.view.buf;
    double *O = vo.view.buf;
    if (any_not_finite(S, 3 * m)) { result = Py_None; Py_INCREF(result); goto done; }
    size_t count = m ? (size_t)m : 1;
    keys = PyMem_Malloc(count * sizeof(Key));
    buf = PyMem_Malloc(count * sizeof(Key));
    bounds = PyMem_Malloc((count + 1) * sizeof(Py_ssize_t));
    if (!keys || !buf || !bounds) { PyErr_NoMemory(); goto done; }
    result = PyLong_FromSsize_t(merge_rules(S, m, t, O, keys, buf, bounds));
done:
    PyMem_Free(keys);
    PyMem_Free(buf);
    PyMem_Free(bounds);
    release(&vs);
    release(&vo);
    return result;
}

/* ---- rule_components ---------------------------------------------------- */

static int64_t find_root(int64_t *parent, int64_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* Every rule's root (`parent`, nh + nv) of the sets of crossing rules:
 * grids_rule_components' union-find. */
static void join_crossings(const double *Hr, Py_ssize_t nh, const double *Vr, Py_ssize_t nv, double t, int64_t *parent) {
    for (Py_ssize_t k = 0; k < nh + nv; k++) parent[k] = k;
    for (Py_ssize_t i = 0; i < nh; i++) {
        const double *h = Hr + 3 * i;
        for (Py_ssize_t j = 0; j < nv; j++) {
            const double *v = Vr + 3 * j;
            if (v[0] >= h[1] - t && v[0] <= h[2] + t && h[0] >= v[1] - t && h[0] <= v[2] + t) {
                int64_t a = find_root(parent, i), b = find_root(parent, nh + j);
                if (a != b) parent[a] = b;
            }
        }
    }
    for (Py_ssize_t k = 0; k < nh + nv; k++) parent[k] = find_root(parent, k);
}

/* rule_components(horizontal, vertical, tolerance, out_roots) -> None.
 * Horizontal rules (y, x0, x1) and vertical ones (x, y0, y1) that cross
 * (each reaches the other's line within `tolerance`) are joined, pair by
 * pair in row-major order (horizontal i, then vertical j), by the union-find
 * of gridfind._find; out_roots (n_h + n_v int64) receives every rule's root. */
static PyObject *grids_rule_components(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *h_obj, *v_obj, *out_obj;
    double t;
    if (!PyArg_ParseTuple(args, "OOdO", &h_obj, &v_obj, &t, &out_obj)) return NULL;
    View vh = {0}, vv = {0}, vo = {0};
    PyObject *result = NULL;
    if (get_view(h_obj, &vh, "d", 8, 0, "horizontal") < 0 || get_view(v_obj, &vv, "d", 8, 0, "vertical") < 0 ||
        get_view(out_obj, &vo, "l", 8, 1, "out_roots") < 0)
        goto done;
    if (vh.view.len % 24 || vv.view.len % 24) { PyErr_SetString(PyExc_ValueError, "rules: m x 3"); goto done; }
    Py_ssize_t nh = vh.view.len / 24, nv = vv.view.len / 24;
    if (vo.view.len / 8 != nh + nv) { PyErr_SetString(PyExc_ValueError, "out_roots: wrong length"); goto done; }
    const double *Hr = vh.view.buf, *Vr = vv.view.buf;
    int64_t *parent = vo.view.buf;
    join_crossings(Hr, nh, Vr, nv, t, parent);
    result = Py_None;
    Py_INCREF(result);
done:
    release(&vh);
    release(&vv);
    release(&vo);
    return result;
}

/* ---- grid_spans --------------------------------------------------------- */

/* grids_grid_spans' union-find of the slots into cells: `parent` holds
 * 2 x n_rows x n_cols items; the cells out. */
static Py_ssize_t slot_spans(const char *right, const char *below, Py_ssize_t n_rows, Py_ssize_t n_cols, int64_t *parent,
                             int64_t *cell, int64_t *spans) {
    Py_ssize_t slots = n_rows * n_cols;
    for (Py_ssize_t s = 0; s < slots; s++) parent[s] = s;
    for (Py_ssize_t r = 0; r < n_rows; r++)
        for (Py_ssize_t c = 0; c < n_cols; c++) {
            Py_ssize_t s = r * n_cols + c;
            if (c + 1 < n_cols && !right[r * (n_cols - 1) + c]) {
                int64_t a = find_root(parent, s), b = find_root(parent, s + 1);
                if (a != b) parent[a] = b;
            }
            if (r + 1 < n_rows && !below[s]) {
                int64_t a = find_root(parent, s), b = find_root(parent, s + n_cols);
                if (a != b) parent[a] = b;
            }
        }
    /* Cells numbered as their first slots come; a root's number kept at its slot in `number`. */
    int64_t *number = parent + slots;
    Py_ssize_t cells = 0;
    for (Py_ssize_t s = 0; s < slots; s++) number[s] = -1;
    for (Py_ssize_t s = 0; s < slots; s++) {
        int64_t root = find_root(parent, s), r = s / n_cols, c = s % n_cols;
        if (number[root] < 0) {
            number[root] = cells;
            int64_t *span = spans + 4 * cells++;
            span[0] = r; span[1] = c; span[2] = r; span[3] = c;
        }
        int64_t *span = spans + 4 * number[root];
        if (c < span[1]) span[1] = c;
        if (r > span[2]) span[2] = r;
        if (c > span[3]) span[3] = c;
        cell[s] = number[root];
    }
    for (Py_ssize_t k = 0; k < cells; k++) {
        int64_t *span = spans + 4 * k;
        span[2] -= span[0] - 1;
        span[3] -= span[1] - 1;
    }
    return cells;
}

/* grid_spans(parted_right, parted_below, n_rows, n_cols, out_cell, out_spans) -> cells.
 *
 * gridfind._spans: the slots of a grid of n_rows x n_cols (row-major) joined
 * into cells where no rule parts them: slot (r, c) and (r, c + 1) where
 * parted_right[r, c] is false (n_rows x (n_cols - 1) bools), (r, c) and
 * (r + 1, c) where parted_below[r, c] is false ((n_rows - 1) x n_cols). A
 * cell is a connected set of slots (union-find); cells are numbered in the
 * order of their first slot. out_cell (n_rows x n_cols int64): each slot's
 * cell; out_spans (n_rows x n_cols rows of 4 int64): per cell its least row,
 * least column, and the rows and columns from those to its greatest. */
static PyObject *grids_grid_spans(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *right_obj, *below_obj, *cell_obj, *spans_obj;
    Py_ssize_t n_rows, n_cols;
    if (!PyArg_ParseTuple(args, "OOnnOO", &right_obj, &below_obj, &n_rows, &n_cols, &cell_obj, &spans_obj)) return NULL;
    View vr = {0}, vb = {0}, vc = {0}, vs = {0};
    PyObject *result = NULL;
    int64_t *parent = NULL;
    if (get_view(right_obj, &vr, "?", 1, 0, "parted_right") < 0 || get_view(below_obj, &vb, "?", 1, 0, "parted_below") < 0 ||
        get_view(cell_obj, &vc, "l", 8, 1, "out_cell") < 0 || get_view(spans_obj, &vs, "l", 8, 1, "out_spans") < 0)
        goto done;
    if (n_rows < 1 || n_cols < 1 || n_rows > PY_SSIZE_T_MAX / 4 / n_cols) {
        PyErr_SetString(PyExc_ValueError, "grid_spans: n_rows and n_cols must be positive");
        goto done;
    }
    Py_ssize_t slots = n_rows * n_cols;
    if (vr.view.len != n_rows * (n_cols - 1) || vb.view.len != (n_rows - 1) * n_cols || vc.view.len / 8 != slots ||
        vs.view.len / 8 != 4 * slots) {
        PyErr_SetString(PyExc_ValueError, "grid_spans: mismatched lengths");
        goto done;
    }
    const char *right = vr.view.buf, *below = vb.view.buf;
    int64_t *cell = vc.view.buf, *spans = vs.view.buf;
    parent = PyMem_Malloc(2 * (size_t)slots * sizeof(int64_t));
    if (!parent) { PyErr_NoMemory(); goto done; }
    result = PyLong_FromSsize_t(slot_spans(right, below, n_rows, n_cols, parent, cell, spans));
done:
    PyMem_Free(parent);
    release(&vr); release(&vb); release(&vc); release(&vs);
    return result;
}

/* ---- grid_slots --------------------------------------------------------- */

/* First position i in `edges` (n values, increasing when `sign` is 1,
 * decreasing when -1) with sign * edges[i] >= sign * v: np.searchsorted
 * (side left) of sign * v in sign * edges. */
static Py_ssize_t first_not_below(const double *edges, Py_ssize_t n, double v, double sign) {
    Py_ssize_t lo = 0, hi = n;
    while (lo < hi) {
        Py_ssize_t mid = lo + (hi - lo) / 2;
        if (sign * edges[mid] < sign * v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The slot (row, column) of the grid of finite edges xs (nx, increasing)
 * and ys (ny, decreasing) the centre of quad `q` lies in (grids_grid_slots'
 * rule): 1, or 0 when it lies in none. */
static int slot_of(const double *q, const double *xs, Py_ssize_t nx, const double *ys, Py_ssize_t ny, Py_ssize_t *row,
                   Py_ssize_t *col) {
    double x = (((q[0] + q[2]) + q[4]) + q[6]) / 4, y = (((q[1] + q[3]) + q[5]) + q[7]) / 4;
    if (!(x > xs[0] && x <= xs[nx - 1] && y < ys[0] && y >= ys[ny - 1])) return 0;
    Py_ssize_t c = first_not_below(xs, nx, x, 1.0) - 1, r = first_not_below(ys, ny, y, -1.0) - 1;
    if (c < 0 || c >= nx - 1 || r < 0 || r >= ny - 1) return 0;
    *row = r;
    *col = c;
    return 1;
}

/* grid_slots(quad, glyphs, xs, ys, out_inside, out_row, out_col) -> count,
 * or None when an edge is not finite (the reference decides).
 *
 * gridfind._slots of the box centres of `glyphs` (glyph table rows), each the
 * mean of its quad's four corners summed in order ((c0 + c1) + c2) + c3, / 4:
 * of those with xs[0] < x <= xs[-1] and ys[-1] <= y < ys[0] (column edges
 * increasing, row edges decreasing, top first), the position in `glyphs`
 * (out_inside), and the slot's row and column by searchsorted (side left) in
 * xs and in -ys, less one, where both fall inside the grid; in order. */
static PyObject *grids_grid_slots(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5], &objs[6]))
        return NULL;
    static const char *fmts[7] = {"d", "l", "d", "d", "l", "l", "l"};
    static const char *names[7] = {"quad", "glyphs", "xs", "ys", "out_inside", "out_row", "out_col"};
    View v[7];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    for (int i = 0; i < 7; i++)
        if (get_view(objs[i], &v[i], fmts[i], 8, i >= 4, names[i]) < 0) goto done;
    Py_ssize_t rows = v[0].view.len / 64, n = v[1].view.len / 8, nx = v[2].view.len / 8, ny = v[3].view.len / 8;
    if (v[0].view.len != 64 * rows || nx < 1 || ny < 1) {
        PyErr_SetString(PyExc_ValueError, "grid_slots: quad of 4 x 2 per glyph, and edges each way");
        goto done;
    }
    for (int i = 4; i < 7; i++)
        if (v[i].view.len / 8 != n) { PyErr_Format(PyExc_ValueError, "grid_slots: %s: one per glyph", names[i]); goto done; }
    const double *quad = v[0].view.buf, *xs = v[2].view.buf, *ys = v[3].view.buf;
    const int64_t *glyphs = v[1].view.buf;
    int64_t *inside = v[4].view.buf, *row = v[5].view.buf, *col = v[6].view.buf;
    if (any_not_finite(xs, nx) || any_not_finite(ys, ny)) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    Py_ssize_t count = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t g = glyphs[k];
        if (g < 0 || g >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
        Py_ssize_t r, c;
        if (!slot_of(quad + 8 * g, xs, nx, ys, ny, &r, &c)) continue;
        inside[count] = k;
        row[count] = r;
        col[count] = c;
        count++;
    }
    result = PyLong_FromSsize_t(count);
done:
    for (int i = 0; i < 7; i++) release(&v[i]);
    return result;
}

/* ---- word_counts -------------------------------------------------------- */

/* str.isspace: at least one character, every one of them white space. */
static int is_blank(PyObject *text) {
    if (!PyUnicode_Check(text)) return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text);
    if (n == 0) return 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!Py_UNICODE_ISSPACE(PyUnicode_READ(kind, data, i))) return 0;
    return 1;
}

/* The words of one cell, glyphs[start..end) (glyph table rows), by
 * gridfind._word_counts' rule: its glyphs read row by row (rounded origin y
 * descending, rint as np.round rounds), then by origin x, ties by position;
 * a word starts at a glyph more than 0.25 x its height past the own end of
 * the glyph before it, more than 1 before it, or blank (str.isspace of its
 * text in `texts`, the text column, any sequence). The count; 0 when a text
 * is no str (the reference decides), -1 on an error set. `keys` and `buf`
 * hold end - start keys, `bounds` one more. */
static int64_t cell_words(const double *origin, const double *own_end, const double *height, PyObject *texts,
                          const int64_t *glyphs, Py_ssize_t start, Py_ssize_t end, Key *keys, Key *buf,
                          Py_ssize_t *bounds) {
    for (Py_ssize_t k = start; k < end; k++)
        keys[k - start] = (Key){-rint(origin[2 * glyphs[k] + 1]), origin[2 * glyphs[k]], k};
    sort_keys(keys, end - start, buf, bounds);
    int64_t words = 1;
    for (Py_ssize_t i = 1; i < end - start; i++) {
        int64_t prev = glyphs[keys[i - 1].at], g = glyphs[keys[i].at];
        PyObject *text = PySequence_GetItem(texts, (Py_ssize_t)g);
        if (!text) return -1;
        int blank = is_blank(text);
        Py_DECREF(text);
        if (blank < 0) return 0;
        double gap = origin[2 * g] - own_end[2 * prev];
        if (gap > 0.25 * height[g] || gap < -1 || blank) words++;
    }
    return words;
}

/* word_counts(origin, own_end, height, texts, glyphs, starts, out) -> True,
 * or None when a value is not finite, a cell is empty or a text is no str.
 *
 * The cells are runs of `glyphs` (glyph table rows) from `starts` (the
 * first 0, increasing); `texts` is the glyph table's text column (any
 * sequence, indexed by row). out[c] = the words of cell c (cell_words). */
static PyObject *grids_word_counts(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *origin_obj, *end_obj, *height_obj, *texts, *glyphs_obj, *starts_obj, *out_obj;
    if (!PyArg_ParseTuple(args, "OOOOOOO", &origin_obj, &end_obj, &height_obj, &texts, &glyphs_obj, &starts_obj,
                          &out_obj))
        return NULL;
    View vo = {0}, ve = {0}, vh = {0}, vg = {0}, vs = {0}, vc = {0};
    PyObject *result = NULL;
    Key *keys = NULL, *buf = NULL;
    Py_ssize_t *bounds = NULL;
    if (get_view(origin_obj, &vo, "d", 8, 0, "origin") < 0 || get_view(end_obj, &ve, "d", 8, 0, "own_end") < 0 ||
        get_view(height_obj, &vh, "d", 8, 0, "height") < 0 || get_view(glyphs_obj, &vg, "l", 8, 0, "glyphs") < 0 ||
        get_view(starts_obj, &vs, "l", 8, 0, "starts") < 0 || get_view(out_obj, &vc, "l", 8, 1, "out") < 0)
        goto done;
    Py_ssize_t rows = vh.view.len / 8, n = vg.view.len / 8, cells = vs.view.len / 8;
    if (vo.view.len / 8 != 2 * rows || ve.view.len / 8 != 2 * rows || vc.view.len / 8 != cells) {
        PyErr_SetString(PyExc_ValueError, "word_counts: mismatched lengths");
        goto done;
    }
    const double *origin = vo.view.buf, *own_end = ve.view.buf, *height = vh.view.buf;
    const int64_t *glyphs = vg.view.buf, *starts = vs.view.buf;
    int64_t *out = vc.view.buf;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t g = glyphs[k];
        if (g < 0 || g >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
        if (!isfinite(origin[2 * g]) || !isfinite(origin[2 * g + 1]) || !isfinite(own_end[2 * g]) || !isfinite(height[g]))
            goto decline;
    }
    for (Py_ssize_t c = 0; c < cells; c++) {
        Py_ssize_t end = c + 1 < cells ? (Py_ssize_t)starts[c + 1] : n;
        if ((c == 0 && starts[0] != 0) || starts[c] >= end) goto decline; /* an empty cell: the reference decides */
    }
    size_t count = n ? (size_t)n : 1;
    keys = PyMem_Malloc(count * sizeof(Key));
    buf = PyMem_Malloc(count * sizeof(Key));
    bounds = PyMem_Malloc((count + 1) * sizeof(Py_ssize_t));
    if (!keys || !buf || !bounds) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t c = 0; c < cells; c++) {
        Py_ssize_t start = (Py_ssize_t)starts[c], end = c + 1 < cells ? (Py_ssize_t)starts[c + 1] : n;
        int64_t words = cell_words(origin, own_end, height, texts, glyphs, start, end, keys, buf, bounds);
        if (words < 0) goto done;
        if (words == 0) goto decline; /* not a str: the reference decides */
        out[c] = words;
    }
    result = Py_True;
    Py_INCREF(result);
    goto done;
decline:
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(keys);
    PyMem_Free(buf);
    PyMem_Free(bounds);
    release(&vo); release(&ve); release(&vh); release(&vg); release(&vs); release(&vc);
    return result;
}

/* ---- aligned_grids ------------------------------------------------------ */

/* One run of text lines (gridfind._aligned_cells): its pieces, their
 * columns and cells, and what is measured of them. Every array is sized by
 * the run's pieces (np) or glyphs (ng). */
typedef struct {
    Py_ssize_t np, ng, n_cols, n_cells;
    int64_t *piece_row, *piece_col, *piece_cell;  /* per piece of the run */
    int64_t *cell_row, *cell_col, *cell_pieces, *cell_start, *cell_words;  /* per cell (cell_start: n_cells + 1) */
    double *cell_x0, *cell_x1, *starts;  /* per cell; per column, where it starts */
    int64_t *grouped;  /* the run's pieces, cell after cell */
    Key *keys, *buf;
    Py_ssize_t *bounds;
} Run;

/* What grids_aligned_grids reads: the glyph table's columns and the page's
 * text lines (gridfind._TextLines). */
typedef struct {
    const double *origin, *own_end, *height;  /* glyph table columns, `rows` rows */
    PyObject *texts;  /* the text column */
    Py_ssize_t rows, n, pieces, lines;
    const int64_t *glyphs, *piece_start, *piece_end, *line_piece;  /* n, pieces, pieces, lines + 1 */
    const double *x0, *x1, *y, *line_height;  /* pieces, pieces, lines, lines */
} Page;

/* gridfind._columns: the pieces by (x0, x1, position); a column starts at a
 * piece whose x0 lies past the greatest x1 before it. */
static void run_columns(Run *r, const double *x0, const double *x1) {
    for (Py_ssize_t p = 0; p < r->np; p++) r->keys[p] = (Key){x0[p], x1[p], p};
    sort_keys(r->keys, r->np, r->buf, r->bounds);
    double reach = 0.0;
    r->n_cols = 0;
    for (Py_ssize_t k = 0; k < r->np; k++) {
        const Key *key = &r->keys[k];
        if (k == 0 || key->a > reach) r->starts[r->n_cols++] = key->a;
        reach = k == 0 || key->b > reach ? key->b : reach;
    }
}

/* Each piece's column (np.searchsorted(starts, x0, "right") - 1) and cell:
 * a row's pieces in one column, the cells of a row in the order the row
 * first reaches them (rows follow one another in the pieces: a stable sort
 * by first reach is this); then the pieces grouped cell after cell. */
static void run_cells(Run *r, const double *x0, const double *x1, int64_t *cell_at_col) {
    for (Py_ssize_t c = 0; c < r->n_cols; c++) cell_at_col[c] = -1;
    r->n_cells = 0;
    Py_ssize_t row_first_cell = 0;
    for (Py_ssize_t p = 0; p < r->np; p++) {
        if (p && r->piece_row[p] != r->piece_row[p - 1]) {
            for (Py_ssize_t c = row_first_cell; c < r->n_cells; c++) cell_at_col[r->cell_col[c]] = -1;
            row_first_cell = r->n_cells;
        }
        Py_ssize_t lo = 0, hi = r->n_cols; /* starts <= x0: starts[0] is the least x0, so lo >= 1 */
        while (lo < hi) {
            Py_ssize_t mid = lo + (hi - lo) / 2;
            if (r->starts[mid] <= x0[p]) lo = mid + 1; else hi = mid;
        }
        int64_t col = lo - 1, cell = cell_at_col[col];
        if (cell < 0) {
            cell = cell_at_col[col] = r->n_cells++;
            r->cell_row[cell] = r->piece_row[p];
            r->cell_col[cell] = col;
            r->cell_pieces[cell] = 0;
            r->cell_x0[cell] = x0[p];
            r->cell_x1[cell] = x1[p];
        }
        r->piece_col[p] = col;
        r->piece_cell[p] = cell;
        r->cell_pieces[cell]++;
        if (x0[p] < r->cell_x0[cell]) r->cell_x0[cell] = x0[p];
        if (x1[p] > r->cell_x1[cell]) r->cell_x1[cell] = x1[p];
    }
    /* Counting sort of the pieces by cell, stable. */
    int64_t *next = cell_at_col; /* free again: n_cells <= np slots are needed, it holds np */
    int64_t at = 0;
    for (Py_ssize_t c = 0; c < r->n_cells; c++) { next[c] = at; at += r->cell_pieces[c]; }
    for (Py_ssize_t p = 0; p < r->np; p++) r->grouped[next[r->piece_cell[p]]++] = p;
}

/* The cells' glyphs written to `out` cell after cell from `at` (each cell's
 * pieces in order; a cell's start and end are positions in `out`), and each
 * cell's words as grids_word_counts counts them (`texts`: the glyph table's
 * text column, any sequence). 1 done; 0 when a value is not finite or a text
 * is no str (the reference decides); -1 on an error set. */
static int run_words(Run *r, const Page *page, const int64_t *piece_start, const int64_t *piece_end, int64_t *out,
                     Py_ssize_t at) {
    const double *origin = page->origin, *own_end = page->own_end, *height = page->height;
    Py_ssize_t written = at;
    for (Py_ssize_t c = 0, q = 0; c < r->n_cells; c++) {
        r->cell_start[c] = written;
        for (int64_t k = 0; k < r->cell_pieces[c]; k++, q++) {
            int64_t p = r->grouped[q];
            for (int64_t i = piece_start[p]; i < piece_end[p]; i++) {
                int64_t g = page->glyphs[i];
                if (g < 0 || g >= page->rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); return -1; }
                if (!isfinite(origin[2 * g]) || !isfinite(origin[2 * g + 1]) || !isfinite(own_end[2 * g]) ||
                    !isfinite(height[g]))
                    return 0;
                out[written++] = g;
            }
        }
    }
    r->cell_start[r->n_cells] = written;
    for (Py_ssize_t c = 0; c < r->n_cells; c++) {
        int64_t words = cell_words(origin, own_end, height, page->texts, out, r->cell_start[c], r->cell_start[c + 1],
                                   r->keys, r->buf, r->bounds);
        if (words <= 0) return (int)words;
        r->cell_words[c] = words;
    }
    return 1;
}

/* Greatest x1 less least x0 of the columns present[lo..hi] (gridfind._extent). */
static double columns_extent(const int64_t *present, Py_ssize_t lo, Py_ssize_t hi, const double *least,
                             const double *greatest) {
    double x0 = least[present[lo]], x1 = greatest[present[lo]];
    for (Py_ssize_t k = lo + 1; k <= hi; k++) {
        if (least[present[k]] < x0) x0 = least[present[k]];
        if (greatest[present[k]] > x1) x1 = greatest[present[k]];
    }
    return x1 - x0;
}

/* gridfind._column_totals and _kept_columns, then _aligned_cells' two tests
 * (the kept cells' mean words, every kept column in half of the `n_rows`
 * rows): 1 and the first and last column kept, or 0 when the run is no grid.
 * `work` holds 5 x n_cols items. */
static int run_kept(const Run *r, Py_ssize_t n_rows, double max_words, double two_column_max_words, int64_t *work,
                    int64_t *low_col, int64_t *high_col) {
    Py_ssize_t n = 0;
    for (Py_ssize_t c = 0; c < r->n_cells; c++) n = r->cell_col[c] + 1 > n ? r->cell_col[c] + 1 : n;
    int64_t *cells = work, *words = work + n, *present = work + 2 * n;
    double *least = (double *)(work + 3 * n), *greatest = (double *)(work + 4 * n);
    for (Py_ssize_t k = 0; k < n; k++) { cells[k] = 0; words[k] = 0; least[k] = INFINITY; greatest[k] = -INFINITY; }
    for (Py_ssize_t c = 0; c < r->n_cells; c++) {
        int64_t k = r->cell_col[c];
        cells[k]++;
        words[k] += r->cell_words[c];
        if (r->cell_x0[c] < least[k]) least[k] = r->cell_x0[c];
        if (r->cell_x1[c] > greatest[k]) greatest[k] = r->cell_x1[c];
    }
    Py_ssize_t n_present = 0;
    for (Py_ssize_t k = 0; k < n; k++) if (cells[k]) present[n_present++] = k;
    Py_ssize_t low = 0, high = n_present - 1;
    while (present[high] - present[low] + 1 > 2) {
        int dropped = 0;
        for (int side = 0; side < 2 && !dropped; side++) {
            Py_ssize_t edge = side ? high : low, rest_lo = side ? low : low + 1, rest_hi = side ? high - 1 : high;
            int64_t column = present[edge];
            if ((double)words[column] / (double)cells[column] <= max_words) continue;
            if (columns_extent(present, edge, edge, least, greatest) <
                columns_extent(present, rest_lo, rest_hi, least, greatest))
                continue;
            low = rest_lo; high = rest_hi; dropped = 1;
        }
        if (!dropped) break;
    }
    *low_col = present[low];
    *high_col = present[high];
    int64_t total_words = 0, total_cells = 0;
    for (int64_t k = *low_col; k <= *high_col; k++) { total_words += words[k]; total_cells += cells[k]; }
    double limit = *high_col + 1 - *low_col == 2 ? two_column_max_words : max_words;
    if ((double)total_words / (double)total_cells > limit) return 0;
    for (int64_t k = *low_col; k <= *high_col; k++)
        if (2 * cells[k] < n_rows) return 0;
    return 1;
}

/* The page's lines checked: every piece offset in range and increasing,
 * the pieces consecutive runs of the glyphs. 1 fine, -1 error set. */
static int page_check(const Page *page) {
    for (Py_ssize_t l = 0; l <= page->lines; l++)
        if (page->line_piece[l] < 0 || page->line_piece[l] > page->pieces ||
            (l && page->line_piece[l] < page->line_piece[l - 1])) {
            PyErr_SetString(PyExc_ValueError, "line_piece: increasing piece offsets");
            return -1;
        }
    for (Py_ssize_t p = 0; p < page->pieces; p++)
        if (page->piece_start[p] < 0 || page->piece_end[p] > page->n || page->piece_start[p] > page->piece_end[p] ||
            (p && page->piece_start[p] != page->piece_end[p - 1])) {
            PyErr_SetString(PyExc_ValueError, "pieces: consecutive runs of the glyphs");
            return -1;
        }
    return 1;
}

static void run_free(Run *r, int64_t *work) {
    PyMem_Free(r->piece_row); PyMem_Free(r->piece_col); PyMem_Free(r->piece_cell);
    PyMem_Free(r->cell_row); PyMem_Free(r->cell_col); PyMem_Free(r->cell_pieces);
    PyMem_Free(r->cell_start); PyMem_Free(r->cell_words); PyMem_Free(r->grouped);
    PyMem_Free(r->cell_x0); PyMem_Free(r->cell_x1); PyMem_Free(r->starts);
    PyMem_Free(r->keys); PyMem_Free(r->buf); PyMem_Free(r->bounds);
    PyMem_Free(work);
}

/* The workspace of runs of at most np pieces and ng glyphs (zeroed Run
 * first); `work`: 5 x np items (run_cells' column map, run_kept's totals).
 * Not zeroed: run_grid writes every item before it reads it. 0 when out of
 * memory. */
static int run_alloc(Run *r, size_t np, size_t ng, int64_t **work) {
    size_t big = (np > ng ? np : ng) + 1;
    np += 1;
    r->piece_row = PyMem_Malloc(np * 8); r->piece_col = PyMem_Malloc(np * 8); r->piece_cell = PyMem_Malloc(np * 8);
    r->cell_row = PyMem_Malloc(np * 8); r->cell_col = PyMem_Malloc(np * 8); r->cell_pieces = PyMem_Malloc(np * 8);
    r->cell_start = PyMem_Malloc((np + 1) * 8); r->cell_words = PyMem_Malloc(np * 8); r->grouped = PyMem_Malloc(np * 8);
    r->cell_x0 = PyMem_Malloc(np * 8); r->cell_x1 = PyMem_Malloc(np * 8); r->starts = PyMem_Malloc(np * 8);
    r->keys = PyMem_Malloc(big * sizeof(Key)); r->buf = PyMem_Malloc(big * sizeof(Key));
    r->bounds = PyMem_Malloc((big + 1) * sizeof(Py_ssize_t));
    *work = PyMem_Malloc(np * 5 * 8);
    return r->piece_row && r->piece_col && r->piece_cell && r->cell_row && r->cell_col && r->cell_pieces &&
           r->cell_start && r->cell_words && r->grouped && r->cell_x0 && r->cell_x1 && r->starts && r->keys &&
           r->buf && r->bounds && *work;
}

/* gridfind._aligned_cells of the page's lines first..end-1 (a run), its
 * kept cells appended to out_cells (5 items each: grid, row, column less
 * the first kept one, start and end of its glyphs in out_glyphs, where the
 * run's glyphs are written at their own positions). The cells kept (0: no
 * grid), 0 also with *declined set (a value not finite, an empty piece, a
 * text no str: the reference decides the page), -1 on an error set. */
static Py_ssize_t run_grid(Run *r, const Page *page, Py_ssize_t first, Py_ssize_t end, const double *limits,
                           int64_t *work, int64_t grid, int64_t *out_cells, int64_t *out_glyphs, int *declined) {
    int64_t p0 = page->line_piece[first], p1 = page->line_piece[end];
    const double *x0 = page->x0 + p0, *x1 = page->x1 + p0;
    r->np = p1 - p0;
    for (Py_ssize_t p = 0; p < r->np; p++)
        if (page->piece_start[p0 + p] == page->piece_end[p0 + p] || !isfinite(x0[p]) || !isfinite(x1[p])) {
            *declined = 1;
            return 0;
        }
    for (Py_ssize_t l = first; l < end; l++)
        for (int64_t p = page->line_piece[l]; p < page->line_piece[l + 1]; p++) r->piece_row[p - p0] = l - first;
    run_columns(r, x0, x1);
    if (r->np == 0 || r->n_cols < 2) return 0;
    run_cells(r, x0, x1, work);
    int words = run_words(r, page, page->piece_start + p0, page->piece_end + p0, out_glyphs, page->piece_start[p0]);
    if (words <= 0) {
        *declined = words == 0;
        return words;
    }
    int64_t low, high;
    if (!run_kept(r, end - first, limits[0], limits[1], work, &low, &high)) return 0;
    Py_ssize_t kept = 0;
    for (Py_ssize_t c = 0; c < r->n_cells; c++) {
        if (r->cell_col[c] < low || r->cell_col[c] > high) continue;
        int64_t *cell = out_cells + 5 * kept++;
        cell[0] = grid; cell[1] = r->cell_row[c]; cell[2] = r->cell_col[c] - low;
        cell[3] = r->cell_start[c]; cell[4] = r->cell_start[c + 1];
    }
    return kept;
}

/* Lines `l` and `l + 1` are one run's: both cut in several pieces, at most
 * max_row_gap x the upper one's height apart (gridfind.aligned_grids). */
static int joined(const Page *page, Py_ssize_t l, double max_row_gap) {
    return page->line_piece[l + 1] - page->line_piece[l] >= 2 && page->line_piece[l + 2] - page->line_piece[l + 1] >= 2 &&
           page->y[l] - page->y[l + 1] <= max_row_gap * page->line_height[l];
}

/* Every run of the page (lines of several pieces, each joined to the next)
 * of at least min_rows lines judged by run_grid. The cells written, or -1
 * on an error set (*declined as run_grid sets it). */
static Py_ssize_t page_grids(const Page *page, Py_ssize_t min_rows, double max_row_gap, const double *limits,
                             int64_t *out_cells, int64_t *out_glyphs, int *declined) {
    Run r;
    memset(&r, 0, sizeof r);
    int64_t *work = NULL;
    Py_ssize_t total = 0, grids = 0;
    for (Py_ssize_t l = 0; total >= 0 && !*declined && l < page->lines;) {
        if (page->line_piece[l + 1] - page->line_piece[l] < 2) { l++; continue; }
        Py_ssize_t first = l;
        while (l + 1 < page->lines && joined(page, l, max_row_gap)) l++;
        Py_ssize_t end = ++l;
        if (end - first < min_rows) continue;
        /* The workspace at the first run judged: most pages have none. */
        if (!work && !run_alloc(&r, (size_t)page->pieces, (size_t)page->n, &work)) {
            PyErr_NoMemory();
            total = -1;
            break;
        }
        Py_ssize_t kept = run_grid(&r, page, first, end, limits, work, grids, out_cells + 5 * total, out_glyphs, declined);
        total = kept < 0 ? -1 : total + kept;
        grids += kept > 0;
    }
    run_free(&r, work);
    return total;
}

/* aligned_grids(origin, own_end, height, texts, glyphs, piece_start,
 * piece_end, piece_x0, piece_x1, line_piece, line_y, line_height, min_rows,
 * max_row_gap, max_words, two_column_max_words, out_cells, out_glyphs)
 * -> cells, or None.
 *
 * gridfind.aligned_grids over the page's text lines (gridfind._TextLines:
 * `glyphs` in line order, each piece a run of it, each line a run of
 * pieces) and the glyph table's origin, own_end, height and text column
 * (`texts`, any sequence): its runs of lines, and of each run
 * (gridfind._aligned_cells) the pieces' columns, a row's pieces in one
 * column one cell, the cells of a row in the order it first reaches them,
 * each cell's words (grids_word_counts' rule), the columns kept and the two
 * tests on them. Out: per kept cell, grid after grid and in cell order, its
 * grid (0, 1, ...), row, column less the first kept one, and the start and
 * end of its glyphs in out_glyphs (5 items each; out_cells holds 5 x the
 * pieces, out_glyphs the glyphs). None when a value is not finite, a piece
 * is empty or a text is no str: the reference reads the page. */
static PyObject *grids_aligned_grids(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[13];
    Page page;
    Py_ssize_t min_rows;
    double max_row_gap, limits[2];
    if (!PyArg_ParseTuple(args, "OOOOOOOOOOOOndddOO", &objs[0], &objs[1], &objs[2], &page.texts, &objs[3], &objs[4],
                          &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &objs[10], &min_rows, &max_row_gap,
                          &limits[0], &limits[1], &objs[11], &objs[12]))
        return NULL;
    static const char *fmts[13] = {"d", "d", "d", "l", "l", "l", "d", "d", "l", "d", "d", "l", "l"};
    static const char *names[13] = {"origin", "own_end", "height", "glyphs", "piece_start", "piece_end", "piece_x0",
                                    "piece_x1", "line_piece", "line_y", "line_height", "out_cells", "out_glyphs"};
    View v[13];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    for (int i = 0; i < 13; i++)
        if (get_view(objs[i], &v[i], fmts[i], 8, i >= 11, names[i]) < 0) goto done;
    page.rows = v[2].view.len / 8; page.n = v[3].view.len / 8; page.pieces = v[4].view.len / 8;
    page.lines = v[8].view.len / 8 - 1;
    if (v[0].view.len / 8 != 2 * page.rows || v[1].view.len / 8 != 2 * page.rows || v[5].view.len / 8 != page.pieces ||
        v[6].view.len / 8 != page.pieces || v[7].view.len / 8 != page.pieces || page.lines < 0 ||
        v[9].view.len / 8 != page.lines || v[10].view.len / 8 != page.lines || v[11].view.len / 8 != 5 * page.pieces ||
        v[12].view.len / 8 != page.n) {
        PyErr_SetString(PyExc_ValueError, "aligned_grids: mismatched lengths");
        goto done;
    }
    page.origin = v[0].view.buf; page.own_end = v[1].view.buf; page.height = v[2].view.buf;
    page.glyphs = v[3].view.buf; page.piece_start = v[4].view.buf; page.piece_end = v[5].view.buf;
    page.x0 = v[6].view.buf; page.x1 = v[7].view.buf; page.line_piece = v[8].view.buf;
    page.y = v[9].view.buf; page.line_height = v[10].view.buf;
    if (page_check(&page) < 0) goto done;
    int declined = 0;
    Py_ssize_t cells = page_grids(&page, min_rows, max_row_gap, limits, v[11].view.buf, v[12].view.buf, &declined);
    if (cells < 0) goto done;
    result = declined ? Py_None : PyLong_FromSsize_t(cells);
    if (declined) Py_INCREF(result);
done:
    for (int i = 0; i < 13; i++) release(&v[i]);
    return result;
}

/* page_aligned_grids(origin, own_end, height, quad, direction, texts,
 * glyphs, gap, min_rows, max_row_gap, max_words, two_column_max_words)
 * -> (cells, glyphs), or None.
 *
 * gridfind.aligned_grids in one call: the text lines of the candidate
 * `glyphs` (lines_of, text_lines' rule) and their runs' grids (page_grids,
 * aligned_grids' rule), without the lines going to Python and back. Out:
 * two bytearrays of int64, the cells (5 each, as aligned_grids writes them)
 * and the glyphs they point into. None when either step declines (a value
 * not finite, a text no str): the reference reads the page. */
/* grids_page_aligned_grids' work over the `total` candidates: the cells
 * (5 each, as aligned_grids writes them) into `cells` (5 x (total + 1)
 * items) and the glyphs they point into into `held` (total + 1 items,
 * zeroed: a glyph in no grid stays 0), *upright the glyphs held. The cells
 * written; -2 when a step declines (a value not finite, a text no str: the
 * reference reads the page); -1 on an error set. */
static Py_ssize_t aligned_found(const double *origin, const double *own_end, const double *height, const double *quad,
                                const double *direction, PyObject *texts, Py_ssize_t rows, const int64_t *candidates,
                                Py_ssize_t total, double gap, Py_ssize_t min_rows, double max_row_gap,
                                const double *limits, int64_t *cells, int64_t *held, Py_ssize_t *upright) {
    Lines lines = {0};
    int64_t *piece_end = NULL;
    Py_ssize_t found = -1;
    size_t count = (size_t)total + 1;
    lines.glyphs = PyMem_Malloc(count * 8); lines.piece_start = PyMem_Malloc(count * 8);
    lines.line_piece = PyMem_Malloc((count + 1) * 8); lines.x0 = PyMem_Malloc(count * 8);
    lines.x1 = PyMem_Malloc(count * 8); lines.y = PyMem_Malloc(count * 8); lines.height = PyMem_Malloc(count * 8);
    piece_end = PyMem_Malloc(count * 8);
    if (!lines.glyphs || !lines.piece_start || !lines.line_piece || !lines.x0 || !lines.x1 || !lines.y ||
        !lines.height || !piece_end) {
        PyErr_NoMemory();
        goto done;
    }
    int status = lines_of(origin, height, quad, direction, rows, candidates, total, gap, 0, &lines);
    if (status < 0) goto done;
    int declined = status == 0;
    found = 0;
    if (!declined && lines.lines) {
        for (Py_ssize_t p = 0; p < lines.pieces; p++)
            piece_end[p] = p + 1 < lines.pieces ? lines.piece_start[p + 1] : lines.upright;
        Page page = {origin, own_end, height, texts, rows, lines.upright, lines.pieces, lines.lines, lines.glyphs,
                     lines.piece_start, piece_end, lines.line_piece, lines.x0, lines.x1, lines.y, lines.height};
        found = page_grids(&page, min_rows, max_row_gap, limits, cells, held, &declined);
    }
    if (found >= 0 && declined) found = -2;
    *upright = lines.upright;
done:
    PyMem_Free(lines.glyphs); PyMem_Free(lines.piece_start); PyMem_Free(lines.line_piece); PyMem_Free(lines.x0);
    PyMem_Free(lines.x1); PyMem_Free(lines.y); PyMem_Free(lines.height); PyMem_Free(piece_end);
    return found;
}

static PyObject *grids_page_aligned_grids(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[6], *texts;
    Py_ssize_t min_rows;
    double gap, max_row_gap, limits[2];
    if (!PyArg_ParseTuple(args, "OOOOOOOdnddd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &texts, &objs[5],
                          &gap, &min_rows, &max_row_gap, &limits[0], &limits[1]))
        return NULL;
    static const char *names[6] = {"origin", "own_end", "height", "quad", "direction", "glyphs"};
    View v[6];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *cells = NULL, *held = NULL;
    for (int i = 0; i < 6; i++)
        if (get_view(objs[i], &v[i], i == 5 ? "l" : "d", 8, 0, names[i]) < 0) goto done;
    Py_ssize_t rows = v[2].view.len / 8, total = v[5].view.len / 8;
    if (v[0].view.len / 8 != 2 * rows || v[1].view.len / 8 != 2 * rows || v[3].view.len / 8 != 8 * rows ||
        v[4].view.len / 8 != 2 * rows) {
        PyErr_SetString(PyExc_ValueError, "origin, own_end, height, quad and direction: one row per glyph");
        goto done;
    }
    size_t count = (size_t)total + 1;
    cells = PyMem_Malloc(5 * count * 8); held = PyMem_Calloc(count, 8);
    if (!cells || !held) { PyErr_NoMemory(); goto done; }
    Py_ssize_t upright = 0;
    Py_ssize_t found = aligned_found(v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf, v[4].view.buf, texts,
                                     rows, v[5].view.buf, total, gap, min_rows, max_row_gap, limits, cells, held, &upright);
    if (found == -1) goto done;
    if (found == -2) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    PyObject *out_cells = PyByteArray_FromStringAndSize((const char *)cells, 5 * found * 8);
    PyObject *out_glyphs = out_cells ? PyByteArray_FromStringAndSize((const char *)held, upright * 8) : NULL;
    if (out_glyphs) result = PyTuple_Pack(2, out_cells, out_glyphs);
    Py_XDECREF(out_cells);
    Py_XDECREF(out_glyphs);
done:
    PyMem_Free(cells); PyMem_Free(held);
    for (int i = 0; i < 6; i++) release(&v[i]);
    return result;
}

/* ---- band_glyphs -------------------------------------------------------- */

/* Is row g a band glyph of an upright page (band_glyphs below)? */
static inline int in_band(const double *quad, const double *direction, const signed char *wmode, int64_t g,
                          double top, double bottom, double same) {
    const double *q = quad + 8 * g;
    /* The centre first: it rejects most of a page (the tests have no side effects). */
    double centre = (q[1] + q[5]) * 0.5;
    if (!(centre >= top || centre <= bottom)) return 0;
    if (!isfinite(q[0] + q[4])) return 0;
    return direction[2 * g] >= same && isfinite(direction[2 * g + 1]) && wmode[g] == 0;
}

/* band_glyphs(quad, direction, wmode, glyphs, top, bottom, same, out) -> count.
 * running._band_glyphs on an upright page (across the lines is y, along
 * them x): of `glyphs` (glyph table rows, in order), those whose box centre
 * y, (quad[0].y + quad[2].y) * 0.5, is at least `top` or at most `bottom`
 * where quad[0].x + quad[2].x is finite (NaN, which passes neither, where
 * it is not), whose direction's x is at least `same` with a finite y, and
 * whose wmode is 0; written to `out` (as long as `glyphs`) in order. */
static PyObject *grids_band_glyphs(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *quad_obj, *dir_obj, *wmode_obj, *glyphs_obj, *out_obj;
    double top, bottom, same;
    if (!PyArg_ParseTuple(args, "OOOOdddO", &quad_obj, &dir_obj, &wmode_obj, &glyphs_obj, &top, &bottom, &same, &out_obj))
        return NULL;
    View vq = {0}, vd = {0}, vw = {0}, vg = {0}, vo = {0};
    PyObject *result = NULL;
    if (get_view(quad_obj, &vq, "d", 8, 0, "quad") < 0 || get_view(dir_obj, &vd, "d", 8, 0, "direction") < 0 ||
        get_view(wmode_obj, &vw, "b", 1, 0, "wmode") < 0 || get_view(glyphs_obj, &vg, "l", 8, 0, "glyphs") < 0 ||
        get_view(out_obj, &vo, "l", 8, 1, "out") < 0)
        goto done;
    Py_ssize_t rows = vw.view.len, n = vg.view.len / 8;
    if (vq.view.len / 8 != 8 * rows || vd.view.len / 8 != 2 * rows || vo.view.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "band_glyphs: mismatched lengths");
        goto done;
    }
    const double *quad = vq.view.buf, *direction = vd.view.buf;
    const signed char *wmode = vw.view.buf;
    const int64_t *glyphs = vg.view.buf;
    int64_t *out = vo.view.buf;
    Py_ssize_t count = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        int64_t g = glyphs[k];
        if (g < 0 || g >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
        if (in_band(quad, direction, wmode, g, top, bottom, same)) out[count++] = g;
    }
    result = PyLong_FromSsize_t(count);
done:
    release(&vq); release(&vd); release(&vw); release(&vg); release(&vo);
    return result;
}

/* ---- band_segments ------------------------------------------------------ */

/* Is row g written along exactly (1, 0) with finite measures (band_segments)? */
static inline int segment_ready(const double *origin, const double *own_end, const double *height,
                                const double *direction, int64_t g) {
    return direction[2 * g] == 1.0 && direction[2 * g + 1] == 0.0 && isfinite(origin[2 * g]) &&
           isfinite(origin[2 * g + 1]) && isfinite(own_end[2 * g]) && isfinite(own_end[2 * g + 1]) &&
           isfinite(height[g]);
}

/* band_segments' rules for glyph g after glyph p; `ratios`: line break,
 * word space, segment gap, segment back. */
static inline void segment_flags(const double *origin, const double *own_end, const double *height, int64_t p,
                                 int64_t g, const double *ratios, char *start, char *space) {
    double hp = height[p], hg = height[g];
    double larger = hp > hg ? hp : hg, smaller = hp < hg ? hp : hg;
    /* The reference's dot products with p's direction (1, 0) and its normal (-0, 1). */
    double across = (origin[2 * g] - origin[2 * p]) * -0.0 + (origin[2 * g + 1] - origin[2 * p + 1]) * 1.0;
    double gap = (origin[2 * g] - own_end[2 * p]) * 1.0 + (origin[2 * g + 1] - own_end[2 * p + 1]) * 0.0;
    int line_break = fabs(across) > ratios[0] * larger;
    *start = line_break || gap > ratios[2] * smaller || gap < -ratios[3] * larger;
    *space = gap > ratios[1] * hg;
}

/* band_segments(origin, own_end, height, direction, glyphs, line_break_ratio,
 * word_space_ratio, segment_gap, segment_back, out_start, out_space) -> True,
 * or None when a glyph's direction is not exactly (1, 0) or a value is not
 * finite (the reference decides those).
 *
 * running._segments' rules for consecutive glyphs p, g of `glyphs`: along
 * (1, 0) the move across the line is the y move and the gap along it the x
 * gap from p's own end to g's origin, each product of the reference's dot
 * products exact (a coordinate times 1 or 0), so computed as it computes
 * them. A segment starts at g (out_start, bool) at a line break (|move
 * across| > line_break_ratio x the larger height), or where the gap exceeds
 * segment_gap x the smaller height or falls below -segment_back x the larger
 * (geometric.unit_breaks); a space goes before g (out_space) where the gap
 * exceeds word_space_ratio x g's height. The first glyph starts a segment. */
static PyObject *grids_band_segments(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *origin_obj, *end_obj, *height_obj, *dir_obj, *glyphs_obj, *start_obj, *space_obj;
    double line_ratio, space_ratio, segment_gap, segment_back;
    if (!PyArg_ParseTuple(args, "OOOOOddddOO", &origin_obj, &end_obj, &height_obj, &dir_obj, &glyphs_obj, &line_ratio,
                          &space_ratio, &segment_gap, &segment_back, &start_obj, &space_obj))
        return NULL;
    View vo = {0}, ve = {0}, vh = {0}, vd = {0}, vg = {0}, vs = {0}, vp = {0};
    PyObject *result = NULL;
    if (get_view(origin_obj, &vo, "d", 8, 0, "origin") < 0 || get_view(end_obj, &ve, "d", 8, 0, "own_end") < 0 ||
        get_view(height_obj, &vh, "d", 8, 0, "height") < 0 || get_view(dir_obj, &vd, "d", 8, 0, "direction") < 0 ||
        get_view(glyphs_obj, &vg, "l", 8, 0, "glyphs") < 0 || get_view(start_obj, &vs, "?", 1, 1, "out_start") < 0 ||
        get_view(space_obj, &vp, "?", 1, 1, "out_space") < 0)
        goto done;
    Py_ssize_t rows = vh.view.len / 8, n = vg.view.len / 8;
    if (vo.view.len / 8 != 2 * rows || ve.view.len / 8 != 2 * rows || vd.view.len / 8 != 2 * rows ||
        vs.view.len != n || vp.view.len != n) {
        PyErr_SetString(PyExc_ValueError, "band_segments: mismatched lengths");
        goto done;
    }
    const double *origin = vo.view.buf, *own_end = ve.view.buf, *height = vh.view.buf, *direction = vd.view.buf;
    const int64_t *glyphs = vg.view.buf;
    char *start = vs.view.buf, *space = vp.view.buf;
    int along_x = 1; /* every glyph written along exactly (1, 0), with finite measures */
    for (Py_ssize_t k = 0; k < n && along_x; k++) {
        int64_t g = glyphs[k];
        if (g < 0 || g >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
        along_x = segment_ready(origin, own_end, height, direction, g);
    }
    const double ratios[4] = {line_ratio, space_ratio, segment_gap, segment_back};
    for (Py_ssize_t k = 0; k < n && along_x; k++) {
        start[k] = k == 0;
        space[k] = 0;
        if (k) segment_flags(origin, own_end, height, glyphs[k - 1], glyphs[k], ratios, &start[k], &space[k]);
    }
    result = along_x ? Py_True : Py_None;
    Py_INCREF(result);
done:
    release(&vo); release(&ve); release(&vh); release(&vd); release(&vg); release(&vs); release(&vp);
    return result;
}

/* ---- band_lines --------------------------------------------------------- */

/* The band glyphs' segment texts: per segment its glyphs' texts, each after
 * a space where one goes (running._segments' pieces, joined). A new list, or
 * NULL on an error set. */
static PyObject *segment_texts(PyObject *texts, const int64_t *glyphs, const char *start, const char *space,
                               Py_ssize_t n) {
    PyObject *out = PyList_New(0), *pieces = NULL, *blank = PyUnicode_FromString(" "), *empty = PyUnicode_New(0, 0);
    if (!out || !blank || !empty) goto fail;
    for (Py_ssize_t k = 0; k <= n; k++) {
        if (k == n || start[k]) {
            if (pieces) {
                PyObject *text = PyUnicode_Join(empty, pieces);
                Py_CLEAR(pieces);
                if (!text || PyList_Append(out, text) < 0) { Py_XDECREF(text); goto fail; }
                Py_DECREF(text);
            }
            if (k == n) break;
            if (!(pieces = PyList_New(0))) goto fail;
        }
        PyObject *text = PySequence_GetItem(texts, (Py_ssize_t)glyphs[k]);
        int bad = !text || (space[k] && PyList_Append(pieces, blank) < 0) || PyList_Append(pieces, text) < 0;
        Py_XDECREF(text);
        if (bad) goto fail;
    }
    Py_DECREF(blank);
    Py_DECREF(empty);
    return out;
fail:
    Py_XDECREF(out); Py_XDECREF(pieces); Py_XDECREF(blank); Py_XDECREF(empty);
    return NULL;
}

/* Per segment (starting at glyphs[first[s]]), its position across the
 * lines, (quad[0].x + quad[2].x) * -0.0 + (quad[0].y + quad[2].y) * 0.5
 * as the reference's product with up / 2 = (-0, 0.5) sums it, and its row:
 * segments in position order (a stable sort), a new row where the step
 * exceeds half the height of the segment's first glyph. */
static void segment_rows(const double *quad, const double *height, const int64_t *first, Py_ssize_t m,
                         double *position, int64_t *row, Key *keys, Key *buf, Py_ssize_t *bounds) {
    for (Py_ssize_t s = 0; s < m; s++) {
        const double *q = quad + 8 * first[s];
        position[s] = (q[0] + q[4]) * -0.0 + (q[1] + q[5]) * 0.5;
        keys[s] = (Key){position[s], 0.0, s};
    }
    sort_keys(keys, m, buf, bounds);
    int64_t r = 0;
    for (Py_ssize_t k = 0; k < m; k++) {
        if (k && position[keys[k].at] - position[keys[k - 1].at] > 0.5 * height[first[keys[k].at]]) r++;
        row[keys[k].at] = r;
    }
}

/* A page's columns as the band kernels read them (band_page_columns). */
typedef struct {
    const char *visible;
    const double *quad, *direction, *origin, *own_end, *height;
    const signed char *wmode;
    Py_ssize_t rows;
} BandPage;

/* The views of band_lines' seven columns (visible, quad, direction, wmode,
 * origin, own_end, height: one row per glyph) and its texts (one per
 * glyph), into `page`; -1 with an error set where one does not fit. */
static int band_page_columns(PyObject **objs, PyObject *texts, View *v, BandPage *page, const char *kernel) {
    static const char *fmts[7] = {"?", "d", "d", "b", "d", "d", "d"};
    static const char *names[7] = {"visible", "quad", "direction", "wmode", "origin", "own_end", "height"};
    static const Py_ssize_t widths[7] = {1, 8, 2, 1, 2, 2, 1};
    for (int i = 0; i < 7; i++)
        if (get_view(objs[i], &v[i], fmts[i], fmts[i][0] == 'd' ? 8 : 1, 0, names[i]) < 0) return -1;
    Py_ssize_t rows = v[0].view.len;
    for (int i = 1; i < 7; i++)
        if (v[i].view.len / v[i].view.itemsize != widths[i] * rows) {
            PyErr_Format(PyExc_ValueError, "%s: %s: one row per glyph", kernel, names[i]);
            return -1;
        }
    Py_ssize_t n_texts = PySequence_Size(texts);
    if (n_texts < 0) return -1;
    if (n_texts != rows) { PyErr_Format(PyExc_ValueError, "%s: texts: one per glyph", kernel); return -1; }
    *page = (BandPage){v[0].view.buf, v[1].view.buf, v[2].view.buf, v[4].view.buf, v[5].view.buf, v[6].view.buf,
                       v[3].view.buf, rows};
    return 0;
}

/* A page's band glyphs and their segments (band_collect): glyphs (in
 * order), per glyph its segment (line) and start and space flags, per
 * segment its first glyph, position across the lines (at) and row. */
typedef struct {
    int64_t *glyphs, *first, *line, *row;
    double *at;
    char *start, *space;
    Py_ssize_t n, m;
    int64_t *work;
    Key *keys;
    Py_ssize_t *bounds;
    double ratios[4]; /* line break, word space, segment gap, segment back */
} Bands;

static void bands_free(Bands *b) {
    PyMem_Free(b->work);
    PyMem_Free(b->keys);
    PyMem_Free(b->bounds);
}

/* band_lines' reading of the page into `b`: 1 read; 2 when a glyph's
 * direction x is not above `upright`; 0 where the reference decides (a band
 * glyph's text no str, a band glyph not written along exactly (1, 0) with
 * finite measures, a position not finite); -1 on an error set. `limits`:
 * top, bottom, same; `ratios`: line break, word space, segment gap, back. */
static int band_collect(const BandPage *p, PyObject *texts, const double *limits, double upright, const double *ratios,
                        Bands *b) {
    size_t count = p->rows ? (size_t)p->rows : 1;
    /* glyphs, first glyph of each segment, line, row: int64; positions; start and space flags. */
    b->work = PyMem_Malloc(4 * count * sizeof(int64_t) + count * sizeof(double) + 2 * count);
    b->keys = PyMem_Malloc(2 * count * sizeof(Key));
    b->bounds = PyMem_Malloc((count + 1) * sizeof(Py_ssize_t));
    if (!b->work || !b->keys || !b->bounds) { PyErr_NoMemory(); return -1; }
    b->glyphs = b->work;
    b->first = b->glyphs + count;
    b->line = b->first + count;
    b->row = b->line + count;
    b->at = (double *)(b->row + count);
    b->start = (char *)(b->at + count);
    b->space = b->start + count;
    /* One pass over the rows: every direction checked (2 at the first one
     * not upright, before any text is read), the band glyphs kept. */
    Py_ssize_t in_bands = 0;
    for (Py_ssize_t g = 0; g < p->rows; g++) {
        if (!(p->direction[2 * g] > upright)) return 2;
        if (p->visible[g] && in_band(p->quad, p->direction, p->wmode, g, limits[0], limits[1], limits[2]))
            b->glyphs[in_bands++] = g;
    }
    Py_ssize_t n = 0;
    for (Py_ssize_t k = 0; k < in_bands; k++) {
        int64_t g = b->glyphs[k];
        PyObject *text = PySequence_GetItem(texts, g);
        if (!text) return -1;
        int is_str = PyUnicode_Check(text), inked = is_str && PyUnicode_GET_LENGTH(text) > 0;
        Py_DECREF(text);
        if (!is_str) return 0;
        if (inked) b->glyphs[n++] = g;
    }
    Py_ssize_t m = 0;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (!segment_ready(p->origin, p->own_end, p->height, p->direction, b->glyphs[k])) return 0;
        b->start[k] = k == 0;
        b->space[k] = 0;
        if (k) segment_flags(p->origin, p->own_end, p->height, b->glyphs[k - 1], b->glyphs[k], ratios, &b->start[k], &b->space[k]);
        if (b->start[k]) b->first[m++] = b->glyphs[k];
        b->line[k] = m - 1;
    }
    segment_rows(p->quad, p->height, b->first, m, b->at, b->row, b->keys, b->keys + count, b->bounds);
    for (Py_ssize_t s = 0; s < m; s++)
        if (!isfinite(b->at[s])) return 0;
    b->n = n, b->m = m;
    return 1;
}

/* The arguments band_lines and band_keys share (band_keys one more, the
 * page's middle, where `middle` is given), the page's columns and its band
 * segments (band_collect) read into `v`, `page`, `texts` and `b`: as
 * band_collect answers, -1 on an error set. */
static int band_read(PyObject *args, const char *kernel, double *middle, View *v, BandPage *page, PyObject **texts,
                     Bands *b) {
    PyObject *objs[7];
    double limits[3], upright, ratios[4];
    const char *format = middle ? "OOOOOOOOddddddddd" : "OOOOOOOOdddddddd";
    if (!PyArg_ParseTuple(args, format, &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5], &objs[6], texts,
                          &limits[0], &limits[1], &limits[2], &upright, &ratios[0], &ratios[1], &ratios[2], &ratios[3],
                          middle))
        return -1;
    if (band_page_columns(objs, *texts, v, page, kernel) < 0) return -1;
    memcpy(b->ratios, ratios, sizeof ratios);
    return band_collect(page, *texts, limits, upright, ratios, b);
}

/* band_lines(visible, quad, direction, wmode, origin, own_end, height, texts,
 * top, bottom, same, upright, line_ratio, space_ratio, segment_gap,
 * segment_back) -> (glyphs, line, position, row, segment texts); False when
 * a glyph's direction x is not above `upright` (reading_direction's
 * shortcut for a page of upright glyphs does not hold: the caller finds the
 * page's direction, and passes -inf where it is (1, 0)); None where the
 * reference decides: a band glyph's text no str, a band glyph not written
 * along exactly (1, 0) with finite measures (band_segments), a position not
 * finite.
 *
 * running.band_lines up to its keys, on a page read along (1, 0), in one call: the
 * visible glyphs in the bands (band_glyphs) with a non-empty text, in
 * order; their segments and spaces (band_segments); per segment its text
 * (segment_texts) and its row (segment_rows). glyphs, line (per glyph, its
 * segment), position and row are bytes of int64 / float64 items. */
static PyObject *grids_band_lines(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *texts = NULL;
    View v[7];
    memset(v, 0, sizeof v);
    BandPage page;
    Bands b;
    memset(&b, 0, sizeof b);
    PyObject *result = NULL, *segments = NULL;
    int read = band_read(args, "band_lines", NULL, v, &page, &texts, &b);
    if (read < 0) goto done;
    if (read != 1) {
        result = read == 2 ? Py_False : Py_None;
        Py_INCREF(result);
        goto done;
    }
    if (!(segments = segment_texts(texts, b.glyphs, b.start, b.space, b.n))) goto done;
    result = Py_BuildValue("(y#y#y#y#O)", (const char *)b.glyphs, (Py_ssize_t)(b.n * 8), (const char *)b.line,
                           (Py_ssize_t)(b.n * 8), (const char *)b.at, (Py_ssize_t)(b.m * 8), (const char *)b.row,
                           (Py_ssize_t)(b.m * 8), segments);
done:
    Py_XDECREF(segments);
    bands_free(&b);
    for (int i = 0; i < 7; i++) release(&v[i]);
    return result;
}

/* ---- band_joins --------------------------------------------------------- */

typedef struct { int64_t row; double key; Py_ssize_t index; } SegmentKey;

static int cmp_segment_key(const void *a, const void *b) {
    const SegmentKey *x = a, *y = b;
    if (x->row != y->row) return x->row < y->row ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Does running._pieces_joined join any two of the m segments (first and
 * last glyph of each, and its row)? band_joins' test below: 1 yes, 0 no,
 * -1 where a value it reads is not finite (the reference decides). `keys`
 * holds m items. */
static int segments_join(const double *origin, const double *own_end, const double *direction, const double *height,
                         const int64_t *first, const int64_t *last, const int64_t *row, Py_ssize_t m,
                         double segment_gap, double segment_back, SegmentKey *keys) {
    for (Py_ssize_t s = 0; s < m; s++) {
        int64_t a = first[s], b = last[s];
        const double values[8] = {origin[2 * a], origin[2 * a + 1], direction[2 * a], direction[2 * a + 1],
                                  own_end[2 * b], own_end[2 * b + 1], height[a], height[b]};
        for (int c = 0; c < 8; c++)
            if (!isfinite(values[c])) return -1;
        keys[s].row = row[s];
        keys[s].key = origin[2 * a] * direction[2 * a] + origin[2 * a + 1] * direction[2 * a + 1];
        keys[s].index = s;
    }
    qsort(keys, (size_t)m, sizeof(SegmentKey), cmp_segment_key);
    for (Py_ssize_t k = 0; k + 1 < m; k++) {
        if (keys[k].row != keys[k + 1].row) continue;
        Py_ssize_t p = keys[k].index, q = keys[k + 1].index;
        int64_t a = first[p], b = last[p], c = first[q];
        double gap = (origin[2 * c] - own_end[2 * b]) * direction[2 * a] + (origin[2 * c + 1] - own_end[2 * b + 1]) * direction[2 * a + 1];
        double smaller = height[b] < height[c] ? height[b] : height[c], larger = height[b] > height[c] ? height[b] : height[c];
        if (!(gap > segment_gap * smaller || gap < -segment_back * larger)) return 1;
    }
    return 0;
}

/* band_joins(origin, own_end, direction, height, glyphs, line, row,
 * segment_gap, segment_back) -> True, False or None.
 * Does running._pieces_joined join any two segments? Its test up to
 * joined.any(), no more: the segments (`line`: per band glyph of `glyphs`,
 * its segment, numbered in order from 0; `row`: per segment, its row) by row
 * and then along their first glyph's direction (np.lexsort, stable), and per
 * two of one row next to each other whether the gap from the first's last
 * glyph's own end to the second's origin, along the first's direction,
 * makes no new unit (geometric.unit_breaks with no line break): the sums
 * of products as numpy sums two columns, x then y. None (the reference
 * decides) where a value it reads is not finite or the segments are not
 * numbered in order. */
static PyObject *grids_band_joins(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[7];
    double segment_gap, segment_back;
    if (!PyArg_ParseTuple(args, "OOOOOOOdd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5], &objs[6],
                          &segment_gap, &segment_back))
        return NULL;
    static const char *fmts[7] = {"d", "d", "d", "d", "l", "l", "l"};
    static const char *names[7] = {"origin", "own_end", "direction", "height", "glyphs", "line", "row"};
    View v[7];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *ends = NULL;
    SegmentKey *keys = NULL;
    for (int i = 0; i < 7; i++)
        if (get_view(objs[i], &v[i], fmts[i], 8, 0, names[i]) < 0) goto done;
    Py_ssize_t rows = v[3].view.len / 8, n = v[4].view.len / 8, m = v[6].view.len / 8;
    if (v[0].view.len / 8 != 2 * rows || v[1].view.len / 8 != 2 * rows || v[2].view.len / 8 != 2 * rows ||
        v[5].view.len / 8 != n) {
        PyErr_SetString(PyExc_ValueError, "band_joins: columns differ in length");
        goto done;
    }
    const double *origin = v[0].view.buf, *own_end = v[1].view.buf, *direction = v[2].view.buf, *height = v[3].view.buf;
    const int64_t *glyphs = v[4].view.buf, *line = v[5].view.buf, *row = v[6].view.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (glyphs[k] < 0 || glyphs[k] >= rows) { PyErr_SetString(PyExc_IndexError, "band_joins: glyph out of range"); goto done; }
    size_t count = m ? (size_t)m : 1;
    ends = PyMem_Malloc(2 * count * sizeof(int64_t));
    keys = PyMem_Malloc(count * sizeof(SegmentKey));
    if (!ends || !keys) { PyErr_NoMemory(); goto done; }
    int64_t *first = ends, *last = ends + count;
    /* Segments numbered 0, 1, ... in order, each at least one glyph: where
     * np.searchsorted(line, arange(m + 1)) finds their first and last. */
    if (n == 0 || m == 0 || line[0] != 0 || line[n - 1] != m - 1) goto decline;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (k && line[k] != line[k - 1] && line[k] != line[k - 1] + 1) goto decline;
        if (!k || line[k] != line[k - 1]) first[line[k]] = glyphs[k];
        last[line[k]] = glyphs[k];
    }
    int joins = segments_join(origin, own_end, direction, height, first, last, row, m, segment_gap, segment_back, keys);
    if (joins < 0) goto decline;
    result = joins ? Py_True : Py_False;
    Py_INCREF(result);
    goto done;
decline:
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(ends);
    PyMem_Free(keys);
    for (int i = 0; i < 7; i++) release(&v[i]);
    return result;
}

/* ---- band_keys ---------------------------------------------------------- */

/* Code points of one key being written (segment_key), grown as needed. */
typedef struct { Py_UCS4 *data; Py_ssize_t len, cap; } Chars;

static int chars_put(Chars *c, Py_UCS4 ch) {
    if (c->len == c->cap) {
        Py_ssize_t cap = c->cap ? 2 * c->cap : 64;
        Py_UCS4 *data = PyMem_Realloc(c->data, (size_t)cap * sizeof(Py_UCS4));
        if (!data) { PyErr_NoMemory(); return -1; }
        c->data = data;
        c->cap = cap;
    }
    c->data[c->len++] = ch;
    return 0;
}

/* running.masked_key of one segment's text, glyphs[lo..hi) of `texts` (each
 * a str) with a space before each glyph flagged in `space`, written without
 * the text itself: a run of digits (str.isdecimal, which is what the regex
 * \d matches in a str) as one "#", a run of white space (str.isspace, where
 * str.split() cuts) as one space and none at either end, and the whole
 * casefolded last: A-Z lowered where the key is ASCII (all casefold does
 * there), str.casefold called where it is not. A new str, or NULL on an
 * error set. */
static PyObject *segment_key(PyObject *texts, const int64_t *glyphs, const char *space, Py_ssize_t lo, Py_ssize_t hi,
                             Chars *out) {
    int gap = 0, digits = 0;
    Py_UCS4 widest = 0;
    out->len = 0;
    for (Py_ssize_t k = lo; k < hi; k++) {
        if (space[k]) {
            gap = gap || out->len > 0;
            digits = 0;
        }
        PyObject *text = PySequence_GetItem(texts, (Py_ssize_t)glyphs[k]);
        if (!text) return NULL;
        if (!PyUnicode_Check(text)) {
            Py_DECREF(text);
            PyErr_SetString(PyExc_TypeError, "band_keys: a text changed under the kernel");
            return NULL;
        }
        int kind = PyUnicode_KIND(text);
        const void *data = PyUnicode_DATA(text);
        Py_ssize_t size = PyUnicode_GET_LENGTH(text);
        for (Py_ssize_t i = 0; i < size; i++) {
            Py_UCS4 ch = PyUnicode_READ(kind, data, i);
            if (Py_UNICODE_ISSPACE(ch)) {
                gap = gap || out->len > 0;
                digits = 0;
                continue;
            }
            int digit = Py_UNICODE_ISDECIMAL(ch);
            if (digit && digits) continue;
            if ((gap && chars_put(out, ' ') < 0) || chars_put(out, digit ? '#' : ch) < 0) { Py_DECREF(text); return NULL; }
            gap = 0;
            digits = digit;
            if (!digit && ch > widest) widest = ch;
        }
        Py_DECREF(text);
    }
    if (widest < 128) {
        for (Py_ssize_t i = 0; i < out->len; i++)
            if (out->data[i] >= 'A' && out->data[i] <= 'Z') out->data[i] += 'a' - 'A';
        return PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out->data, out->len);
    }
    PyObject *key = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, out->data, out->len);
    if (!key) return NULL;
    PyObject *folded = PyObject_CallMethod(key, "casefold", NULL);
    Py_DECREF(key);
    return folded;
}

/* Per segment, its key (segment_key) in `keys` (a list), and whether it is
 * a candidate in `keep` (running._candidates): a key not empty and met once
 * in its band (in the top band where its position `at` is above `middle`).
 * The count of candidates, or -1 on an error set. */
static Py_ssize_t band_candidates(PyObject *texts, const Bands *b, double middle, PyObject *keys, char *keep) {
    PyObject *bands[2] = {PyDict_New(), PyDict_New()}; /* per band, key -> met twice */
    Chars chars = {NULL, 0, 0};
    Py_ssize_t kept = -1;
    if (!bands[0] || !bands[1]) goto done;
    for (Py_ssize_t s = 0, k = 0; s < b->m; s++) {
        Py_ssize_t lo = k;
        for (k++; k < b->n && b->line[k] == s; k++) {}
        PyObject *key = segment_key(texts, b->glyphs, b->space, lo, k, &chars);
        if (!key || PyList_Append(keys, key) < 0) { Py_XDECREF(key); goto done; }
        Py_DECREF(key);
        if (!PyUnicode_GET_LENGTH(key)) continue;
        PyObject *band = bands[b->at[s] > middle], *met = PyDict_GetItemWithError(band, key);
        if ((!met && PyErr_Occurred()) || PyDict_SetItem(band, key, met ? Py_True : Py_False) < 0) goto done;
    }
    kept = 0;
    for (Py_ssize_t s = 0; s < b->m; s++) {
        PyObject *key = PyList_GET_ITEM(keys, s);
        keep[s] = PyUnicode_GET_LENGTH(key) > 0 && PyDict_GetItem(bands[b->at[s] > middle], key) == Py_False;
        kept += keep[s];
    }
done:
    Py_XDECREF(bands[0]);
    Py_XDECREF(bands[1]);
    PyMem_Free(chars.data);
    return kept;
}

/* Does any segment of `b` join the next on its row (segments_join), where
 * two share a row? 1 yes, 0 no, -1 where the reference decides, -2 on an
 * error set. */
static int band_pieces_join(const BandPage *p, const Bands *b, const double *ratios) {
    int64_t rows = 0;
    for (Py_ssize_t s = 0; s < b->m; s++)
        if (b->row[s] + 1 > rows) rows = b->row[s] + 1;
    if (rows == b->m) return 0; /* each segment a row of its own */
    int64_t *last = PyMem_Malloc((size_t)b->m * sizeof(int64_t));
    SegmentKey *keys = PyMem_Malloc((size_t)b->m * sizeof(SegmentKey));
    int joins = -2;
    if (!last || !keys) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t k = 0; k < b->n; k++) last[b->line[k]] = b->glyphs[k];
    joins = segments_join(p->origin, p->own_end, p->direction, p->height, b->first, last, b->row, b->m, ratios[2],
                          ratios[3], keys);
done:
    PyMem_Free(last);
    PyMem_Free(keys);
    return joins;
}

/* The candidate lines of `b` as band_keys answers them: (keys, data, g),
 * data the int64 bytes of BandLines' glyphs and line (g each), row (one per
 * key) and row_size (one per row). NULL on an error set. */
static PyObject *band_lines_kept(const Bands *b, PyObject *keys, const char *keep, Py_ssize_t kept) {
    int64_t rows = 0;
    for (Py_ssize_t s = 0; s < b->m; s++)
        if (b->row[s] + 1 > rows) rows = b->row[s] + 1;
    Py_ssize_t g = 0;
    for (Py_ssize_t k = 0; k < b->n; k++) g += keep[b->line[k]];
    PyObject *out_keys = PyTuple_New(kept);
    PyObject *data = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((2 * g + kept + rows) * 8));
    if (!out_keys || !data) { Py_XDECREF(out_keys); Py_XDECREF(data); return NULL; }
    int64_t *glyphs = (int64_t *)PyBytes_AS_STRING(data), *line = glyphs + g, *row = line + g, *row_size = row + kept;
    memset(row_size, 0, (size_t)rows * sizeof(int64_t));
    for (Py_ssize_t s = 0, c = 0; s < b->m; s++) {
        PyObject *key = PyList_GET_ITEM(keys, s);
        row_size[b->row[s]] += PyUnicode_GET_LENGTH(key) > 0; /* a row's inked segments, candidates or not */
        if (!keep[s]) continue;
        Py_INCREF(key);
        PyTuple_SET_ITEM(out_keys, c, key);
        row[c++] = b->row[s];
    }
    int64_t renumbered = -1, previous = -1;
    for (Py_ssize_t k = 0, j = 0; k < b->n; k++) {
        if (!keep[b->line[k]]) continue;
        if (b->line[k] != previous) renumbered++, previous = b->line[k];
        glyphs[j] = b->glyphs[k];
        line[j++] = renumbered;
    }
    return Py_BuildValue("(NNn)", out_keys, data, g);
}

/* band_keys(visible, quad, direction, wmode, origin, own_end, height, texts,
 * top, bottom, same, upright, line_ratio, space_ratio, segment_gap,
 * segment_back, middle) -> (keys, data, g), () or False or None.
 *
 * running.band_lines whole on a page read along (1, 0), in one call: the
 * band glyphs and their segments as band_lines reads them (band_collect),
 * and where no two pieces of a row join (band_pieces_join) each segment's
 * masked key (segment_key), the candidates (band_candidates) and the
 * BandLines of them (band_lines_kept); () where there are none. False and
 * None as band_lines answers them, and None too where pieces of a row join
 * (running._pieces_joined joins them, from band_lines' segments). */
static PyObject *grids_band_keys(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *texts = NULL;
    double middle;
    View v[7];
    memset(v, 0, sizeof v);
    BandPage page;
    Bands b;
    memset(&b, 0, sizeof b);
    PyObject *result = NULL, *keys = NULL;
    char *keep = NULL;
    int read = band_read(args, "band_keys", &middle, v, &page, &texts, &b);
    if (read < 0) goto done;
    if (read == 1 && b.n == 0) {
        result = PyTuple_New(0);
        goto done;
    }
    int joins = read == 1 ? band_pieces_join(&page, &b, b.ratios) : 0;
    if (joins == -2) goto done;
    if (read != 1 || joins) {
        result = read == 2 ? Py_False : Py_None;
        Py_INCREF(result);
        goto done;
    }
    keys = PyList_New(0);
    keep = PyMem_Malloc((size_t)b.m);
    if (!keys || !keep) { PyErr_NoMemory(); goto done; }
    Py_ssize_t kept = band_candidates(texts, &b, middle, keys, keep);
    if (kept < 0) goto done;
    result = kept ? band_lines_kept(&b, keys, keep, kept) : PyTuple_New(0);
done:
    Py_XDECREF(keys);
    PyMem_Free(keep);
    bands_free(&b);
    for (int i = 0; i < 7; i++) release(&v[i]);
    return result;
}

/* ---- band_mask ---------------------------------------------------------- */

/* Is any glyph of `texts` (any sequence) visible, not flagged in `mask` and
 * of a text not blank (running.leaves_text)? 1 yes, 0 no, -1 where a text
 * is no str (the reference decides), -2 on an error set. */
static int text_elsewhere(const char *visible, const char *mask, PyObject *texts, Py_ssize_t size) {
    for (Py_ssize_t g = 0; g < size; g++) {
        if (!visible[g] || mask[g]) continue;
        PyObject *text = PySequence_GetItem(texts, g);
        if (!text) return -2;
        int blank = is_blank(text), inked = PyUnicode_Check(text) && PyUnicode_GET_LENGTH(text) > 0;
        Py_DECREF(text);
        if (blank < 0) return -1;
        if (inked && !blank) return 1;
    }
    return 0;
}

/* band_mask(keys, running, glyphs, line, row, row_size, head_parts, visible,
 * texts, out) -> True, False or None.
 * running.running_mask in one call: per candidate line of a page's
 * BandLines (keys; glyphs and line: per glyph, its line; row: per line;
 * row_size: per row), is it running: its key in the set `running`, and its
 * row a running head's (at most head_parts segments, or at least half of
 * them running: BandLines.mask); its glyphs flagged in `out` (bool, one per
 * glyph of the table, all False on entry). True when some are flagged and
 * the page keeps text elsewhere; False, `out` all False again, when none
 * are or they would be all of its text (leaves_text); None where a text is
 * no str (the reference decides). */
static PyObject *grids_band_mask(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *keys, *running, *objs[4], *visible_obj, *texts, *out_obj;
    Py_ssize_t head_parts;
    if (!PyArg_ParseTuple(args, "O!OOOOOnOOO", &PyTuple_Type, &keys, &running, &objs[0], &objs[1], &objs[2], &objs[3],
                          &head_parts, &visible_obj, &texts, &out_obj))
        return NULL;
    static const char *names[4] = {"glyphs", "line", "row", "row_size"};
    View v[6];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    int64_t *running_in_row = NULL;
    char *runs = NULL;
    for (int i = 0; i < 4; i++)
        if (get_view(objs[i], &v[i], "l", 8, 0, names[i]) < 0) goto done;
    if (get_view(visible_obj, &v[4], "?", 1, 0, "visible") < 0 || get_view(out_obj, &v[5], "?", 1, 1, "out") < 0) goto done;
    Py_ssize_t n = v[0].view.len / 8, lines = PyTuple_GET_SIZE(keys), rows = v[3].view.len / 8, size = v[4].view.len;
    Py_ssize_t n_texts = PySequence_Size(texts);
    if (n_texts < 0) goto done;
    if (v[1].view.len / 8 != n || v[2].view.len / 8 != lines || v[5].view.len != size || n_texts != size) {
        PyErr_SetString(PyExc_ValueError, "band_mask: mismatched lengths");
        goto done;
    }
    const int64_t *glyphs = v[0].view.buf, *line = v[1].view.buf, *row = v[2].view.buf, *row_size = v[3].view.buf;
    const char *visible = v[4].view.buf;
    char *out = v[5].view.buf;
    for (Py_ssize_t k = 0; k < n; k++)
        if (glyphs[k] < 0 || glyphs[k] >= size || line[k] < 0 || line[k] >= lines) {
            PyErr_SetString(PyExc_IndexError, "band_mask: glyph or line out of range");
            goto done;
        }
    for (Py_ssize_t l = 0; l < lines; l++)
        if (row[l] < 0 || row[l] >= rows) { PyErr_SetString(PyExc_IndexError, "band_mask: row out of range"); goto done; }
    running_in_row = PyMem_Calloc(rows ? (size_t)rows : 1, sizeof(int64_t));
    runs = PyMem_Malloc(lines ? (size_t)lines : 1);
    if (!running_in_row || !runs) { PyErr_NoMemory(); goto done; }
    for (Py_ssize_t l = 0; l < lines; l++) {
        int in = PySequence_Contains(running, PyTuple_GET_ITEM(keys, l));
        if (in < 0) goto done;
        runs[l] = (char)in;
        running_in_row[row[l]] += in;
    }
    for (Py_ssize_t l = 0; l < lines; l++) {
        int64_t parts = row_size[row[l]];
        runs[l] = runs[l] && (parts <= head_parts || 2 * running_in_row[row[l]] >= parts);
    }
    int marked = 0;
    for (Py_ssize_t k = 0; k < n; k++)
        if (runs[line[k]]) {
            out[glyphs[k]] = 1;
            marked = 1;
        }
    int elsewhere = marked ? text_elsewhere(visible, out, texts, size) : 0;
    if (elsewhere == -2) goto done;
    if (elsewhere <= 0 && marked) memset(out, 0, (size_t)size);
    result = elsewhere < 0 ? Py_None : elsewhere ? Py_True : Py_False;
    Py_INCREF(result);
done:
    PyMem_Free(running_in_row);
    PyMem_Free(runs);
    for (int i = 0; i < 6; i++) release(&v[i]);
    return result;
}

/* ---- rules -------------------------------------------------------------- */

/* np.minimum and np.maximum of two doubles: a NaN of either is the answer. */
static inline double np_minimum(double a, double b) { return isnan(a) ? a : isnan(b) ? b : a < b ? a : b; }
static inline double np_maximum(double a, double b) { return isnan(a) ? a : isnan(b) ? b : a > b ? a : b; }

/* grids_rules' passes over the n path pieces: the rules into H and V
 * (3n x 3 each), their counts out. */
static void rules_of(const double *X0, const double *Y0, const double *X1, const double *Y1, const unsigned char *kind,
                     Py_ssize_t n, int line, int rect, double thickness, double min_length, double *H, double *V,
                     Py_ssize_t *n_h, Py_ssize_t *n_v) {
    Py_ssize_t nh = 0, nv = 0;
    /* Pass 0: thin pieces; pass 1: boxes' low edges; pass 2: their high edges. */
    for (int pass = 0; pass < 3; pass++) {
        for (Py_ssize_t k = 0; k < n; k++) {
            double lo_x = np_minimum(X0[k], X1[k]), hi_x = np_maximum(X0[k], X1[k]);
            double lo_y = np_minimum(Y0[k], Y1[k]), hi_y = np_maximum(Y0[k], Y1[k]);
            double width = hi_x - lo_x, height = hi_y - lo_y;
            int is_line = kind[k] == line, is_rect = kind[k] == rect;
            if (pass == 0) {
                if ((is_line || is_rect) && height <= thickness && width >= min_length) {
                    double *h = H + 3 * nh++;
                    h[0] = (lo_y + hi_y) / 2; h[1] = lo_x; h[2] = hi_x;
                }
                if ((is_line || is_rect) && width <= thickness && height >= min_length) {
                    double *r = V + 3 * nv++;
                    r[0] = (lo_x + hi_x) / 2; r[1] = lo_y; r[2] = hi_y;
                }
            } else if (is_rect && width > thickness && height > thickness) {
                double *h = H + 3 * nh++, *r = V + 3 * nv++;
                h[0] = pass == 1 ? lo_y : hi_y; h[1] = lo_x; h[2] = hi_x;
                r[0] = pass == 1 ? lo_x : hi_x; r[1] = lo_y; r[2] = hi_y;
            }
        }
    }
    *n_h = nh;
    *n_v = nv;
}

/* rules(x0, y0, x1, y1, kind, line, rect, thickness, min_length, out_h, out_v) -> (n_h, n_v).
 * gridfind._rules over the path table's columns (kind uint8): a LINE or RECT
 * piece at most `thickness` thick and at least `min_length` long is a rule
 * through its middle; a RECT thicker both ways gives its two edges each way.
 * Horizontal rules (y, x0, x1) go to out_h, vertical ones (x, y0, y1) to
 * out_v (each 3n x 3 float64), in the reference's order: the thin pieces,
 * then every box's low edge, then every box's high edge, each in path order. */
static PyObject *grids_rules(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[7];
    int line, rect;
    double thickness, min_length;
    if (!PyArg_ParseTuple(args, "OOOOOiiddOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &line, &rect,
                          &thickness, &min_length, &objs[5], &objs[6]))
        return NULL;
    static const char *fmts[7] = {"d", "d", "d", "d", "B", "d", "d"};
    static const char *names[7] = {"x0", "y0", "x1", "y1", "kind", "out_h", "out_v"};
    static const Py_ssize_t sizes[7] = {8, 8, 8, 8, 1, 8, 8};
    View v[7];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    for (int i = 0; i < 7; i++)
        if (get_view(objs[i], &v[i], fmts[i], sizes[i], i >= 5, names[i]) < 0) goto done;
    Py_ssize_t n = v[4].view.len;
    for (int i = 0; i < 7; i++) {
        Py_ssize_t want = i < 4 ? 8 * n : i == 4 ? n : 8 * 9 * n;
        if (v[i].view.len != want) { PyErr_Format(PyExc_ValueError, "%s: wrong length", names[i]); goto done; }
    }
    const double *X0 = v[0].view.buf, *Y0 = v[1].view.buf, *X1 = v[2].view.buf, *Y1 = v[3].view.buf;
    const unsigned char *kind = v[4].view.buf;
    double *H = v[5].view.buf, *V = v[6].view.buf;
    Py_ssize_t nh, nv;
    rules_of(X0, Y0, X1, Y1, kind, n, line, rect, thickness, min_length, H, V, &nh, &nv);
    result = Py_BuildValue("(nn)", nh, nv);
done:
    for (int i = 0; i < 7; i++) release(&v[i]);
    return result;
}

/* ---- ruled_grids -------------------------------------------------------- */

/* A growable run of int64 (the kernel's output). 0 when out of memory. */
typedef struct { int64_t *data; Py_ssize_t len, cap; } Vec;

static int vec_grow(Vec *v, Py_ssize_t more) {
    if (v->len + more <= v->cap) return 1;
    Py_ssize_t cap = v->cap ? v->cap : 64;
    while (cap < v->len + more) {
        if (cap > PY_SSIZE_T_MAX / 16) return 0;
        cap *= 2;
    }
    int64_t *data = PyMem_Realloc(v->data, (size_t)cap * sizeof(int64_t));
    if (!data) return 0;
    v->data = data;
    v->cap = cap;
    return 1;
}

/* gridfind._edges of n finite values (reordered here): in order (ties by
 * position, as Python's stable sort), grouped where neighbours lie at most
 * `t` apart, each group's mean (np.mean: 0.0 plus the pairwise sum, over
 * the count; Python's sum of one or two values is the same) into `out`
 * ascending. The count out. keys, buf: n keys; bounds n + 1. */
static Py_ssize_t edges_of(double *values, Py_ssize_t n, double t, double *out, Key *keys, Key *buf,
                           Py_ssize_t *bounds) {
    for (Py_ssize_t k = 0; k < n; k++) keys[k] = (Key){values[k], 0.0, k};
    sort_keys(keys, n, buf, bounds);
    for (Py_ssize_t k = 0; k < n; k++) values[k] = keys[k].a;
    Py_ssize_t count = 0, start = 0;
    for (Py_ssize_t end = 1; end <= n; end++) {
        if (end < n && values[end] - values[end - 1] <= t) continue;
        out[count++] = (0.0 + pairwise_sum(values + start, end - start)) / (double)(end - start);
        start = end;
    }
    return count;
}

/* What every grid of a page reads: the glyph table's columns and the candidate glyphs. */
typedef struct {
    const double *quad, *origin, *own_end, *height;
    PyObject *texts;
    const int64_t *glyphs;
    Py_ssize_t n;
    double t, max_words, max_spanning;
} Ruled;

/* A grid's workspace, sized by its slots, cells and glyphs. */
typedef struct {
    double *xs, *ys, *mid;
    Py_ssize_t nx, ny;
    char *right, *below;
    int64_t *parent, *cell_of_slot, *spans, *count, *start, *held, *cell_row, *cell_col, *new_cell;
    int64_t *used_rows, *used_cols, *inside, *slot;
    Key *keys, *buf;
    Py_ssize_t *bounds;
    size_t key_room; /* keys and buf hold key_room + 1 items, bounds key_room + 2 */
} Grid;

static void grid_free(Grid *g) {
    PyMem_Free(g->xs); PyMem_Free(g->ys); PyMem_Free(g->mid); PyMem_Free(g->right); PyMem_Free(g->below);
    PyMem_Free(g->parent); PyMem_Free(g->cell_of_slot); PyMem_Free(g->spans); PyMem_Free(g->count);
    PyMem_Free(g->start); PyMem_Free(g->held); PyMem_Free(g->cell_row); PyMem_Free(g->cell_col);
    PyMem_Free(g->new_cell); PyMem_Free(g->used_rows); PyMem_Free(g->used_cols); PyMem_Free(g->inside);
    PyMem_Free(g->slot); PyMem_Free(g->keys); PyMem_Free(g->buf); PyMem_Free(g->bounds);
    memset(g, 0, sizeof *g);
}

/* gridfind._grid_edges of rules hs (nh) and vs (nv): g->xs ascending and
 * g->ys descending (top first); 0 when not three edges each way. `work`
 * holds nh + nv + 2 doubles; the keys as many. */
static int grid_edges(Grid *g, const double *hs, Py_ssize_t nh, const double *vs, Py_ssize_t nv, double t, double *work) {
    double lo = hs[1], hi = hs[2];
    for (Py_ssize_t k = 0; k < nv; k++) work[k] = vs[3 * k];
    for (Py_ssize_t k = 1; k < nh; k++) { lo = hs[3 * k + 1] < lo ? hs[3 * k + 1] : lo; hi = hs[3 * k + 2] > hi ? hs[3 * k + 2] : hi; }
    work[nv] = lo;
    work[nv + 1] = hi;
    g->nx = edges_of(work, nv + 2, t, g->xs, g->keys, g->buf, g->bounds);
    if (g->nx < 3) return 0;
    lo = vs[1]; hi = vs[2];
    for (Py_ssize_t k = 0; k < nh; k++) work[k] = hs[3 * k];
    for (Py_ssize_t k = 1; k < nv; k++) { lo = vs[3 * k + 1] < lo ? vs[3 * k + 1] : lo; hi = vs[3 * k + 2] > hi ? vs[3 * k + 2] : hi; }
    work[nh] = lo;
    work[nh + 1] = hi;
    g->ny = edges_of(work, nh + 2, t, g->ys, g->keys, g->buf, g->bounds);
    for (Py_ssize_t i = 0, j = g->ny - 1; i < j; i++, j--) {
        double y = g->ys[i]; g->ys[i] = g->ys[j]; g->ys[j] = y;
    }
    return g->ny >= 3;
}

/* gridfind._rules_across into `across` (zeroed; item i x si + e x se): a
 * rule of `rules` (m) on edge e (within t) that reaches middle i. */
static void rules_across(const double *rules, Py_ssize_t m, const double *edges, Py_ssize_t n_edges,
                         const double *middles, Py_ssize_t n_mid, double t, char *across, Py_ssize_t si, Py_ssize_t se) {
    for (Py_ssize_t k = 0; k < m; k++) {
        const double *r = rules + 3 * k;
        for (Py_ssize_t e = 0; e < n_edges; e++) {
            if (!(fabs(r[0] - edges[e]) <= t)) continue;
            for (Py_ssize_t i = 0; i < n_mid; i++)
                if (r[1] - t <= middles[i] && r[2] + t >= middles[i]) across[i * si + e * se] = 1;
        }
    }
}

/* The slots of the glyphs (g->inside: positions in page->glyphs; g->slot:
 * row x n_cols + column), and the cells (slot_spans) with each cell's
 * glyphs, in their order, in g->held from g->start. The glyphs in slots. */
static Py_ssize_t grid_slots_and_cells(Grid *g, const Ruled *page, const double *hs, Py_ssize_t nh, const double *vs,
                                       Py_ssize_t nv, Py_ssize_t *n_cells) {
    Py_ssize_t n_rows = g->ny - 1, n_cols = g->nx - 1, inside = 0;
    for (Py_ssize_t k = 0; k < page->n; k++) {
        Py_ssize_t r, c;
        if (!slot_of(page->quad + 8 * page->glyphs[k], g->xs, g->nx, g->ys, g->ny, &r, &c)) continue;
        g->inside[inside] = k;
        g->slot[inside++] = r * n_cols + c;
    }
    if (inside < 2) return inside;
    for (Py_ssize_t i = 0; i < n_rows; i++) g->mid[i] = (g->ys[i] + g->ys[i + 1]) / 2;
    rules_across(vs, nv, g->xs + 1, n_cols - 1, g->mid, n_rows, page->t, g->right, n_cols - 1, 1);
    for (Py_ssize_t c = 0; c < n_cols; c++) g->mid[c] = (g->xs[c] + g->xs[c + 1]) / 2;
    rules_across(hs, nh, g->ys + 1, n_rows - 1, g->mid, n_cols, page->t, g->below, 1, n_cols);
    Py_ssize_t cells = slot_spans(g->right, g->below, n_rows, n_cols, g->parent, g->cell_of_slot, g->spans);
    for (Py_ssize_t k = 0; k < cells; k++) g->count[k] = 0;
    for (Py_ssize_t k = 0; k < inside; k++) g->count[g->cell_of_slot[g->slot[k]]]++;
    g->start[0] = 0;
    for (Py_ssize_t k = 0; k < cells; k++) g->start[k + 1] = g->start[k] + g->count[k];
    for (Py_ssize_t k = 0; k < cells; k++) g->new_cell[k] = g->start[k]; /* the next free place of each cell */
    for (Py_ssize_t k = 0; k < inside; k++) g->held[g->new_cell[g->cell_of_slot[g->slot[k]]]++] = page->glyphs[g->inside[k]];
    *n_cells = cells;
    return inside;
}

/* gridfind._compress's renumbering: the used rows and columns (those of the
 * cells with glyphs) numbered in g->used_rows and g->used_cols (-1 unused),
 * and each cell that keeps one of each written over g->spans from the
 * start (its new row, column and spans; g->new_cell its cell). The cells
 * kept, or 0 when fewer than two rows or columns hold a cell's first slot. */
static Py_ssize_t grid_compress(Grid *g, Py_ssize_t cells) {
    Py_ssize_t n_rows = g->ny - 1, n_cols = g->nx - 1, text_rows = 0, text_cols = 0;
    for (Py_ssize_t r = 0; r < n_rows; r++) g->used_rows[r] = 0;
    for (Py_ssize_t c = 0; c < n_cols; c++) g->used_cols[c] = 0;
    for (Py_ssize_t k = 0; k < cells; k++) {
        if (!g->count[k]) continue;
        const int64_t *s = g->spans + 4 * k;
        for (int64_t r = s[0]; r < s[0] + s[2]; r++) g->used_rows[r] |= 1;
        for (int64_t c = s[1]; c < s[1] + s[3]; c++) g->used_cols[c] |= 1;
        g->used_rows[s[0]] |= 2;
        g->used_cols[s[1]] |= 2;
    }
    for (Py_ssize_t r = 0, at = 0; r < n_rows; r++) {
        text_rows += (g->used_rows[r] & 2) != 0;
        g->used_rows[r] = g->used_rows[r] ? at++ : -1;
    }
    for (Py_ssize_t c = 0, at = 0; c < n_cols; c++) {
        text_cols += (g->used_cols[c] & 2) != 0;
        g->used_cols[c] = g->used_cols[c] ? at++ : -1;
    }
    if (text_rows < 2 || text_cols < 2) return 0;
    Py_ssize_t kept = 0;
    for (Py_ssize_t k = 0; k < cells; k++) {
        int64_t s[4], first_row = -1, first_col = -1, rows = 0, cols = 0;
        memcpy(s, g->spans + 4 * k, sizeof s);
        for (int64_t r = s[0]; r < s[0] + s[2]; r++)
            if (g->used_rows[r] >= 0) { first_row = first_row < 0 ? g->used_rows[r] : first_row; rows++; }
        for (int64_t c = s[1]; c < s[1] + s[3]; c++)
            if (g->used_cols[c] >= 0) { first_col = first_col < 0 ? g->used_cols[c] : first_col; cols++; }
        if (!rows || !cols) continue;
        int64_t *out = g->spans + 4 * kept;
        out[0] = first_row; out[1] = first_col; out[2] = rows; out[3] = cols;
        g->new_cell[kept++] = k;
    }
    return kept;
}

/* gridfind._compress's two tests on the `kept` cells: the mean words of the
 * cells with glyphs at most page->max_words, and at most max_spanning of
 * them across columns. 1 passed, 0 not, -2 declined (a value not finite or
 * a text no str: the reference decides), -1 on an error set. */
static int grid_tests(Grid *g, const Ruled *page, Py_ssize_t cells, Py_ssize_t kept) {
    int64_t words = 0, filled = 0, spanning = 0;
    for (Py_ssize_t k = 0; k < g->start[cells]; k++) {
        int64_t q = g->held[k];
        if (!isfinite(page->origin[2 * q]) || !isfinite(page->origin[2 * q + 1]) || !isfinite(page->own_end[2 * q]) ||
            !isfinite(page->height[q]))
            return -2;
    }
    for (Py_ssize_t k = 0; k < cells; k++) {
        if (!g->count[k]) continue;
        int64_t w = cell_words(page->origin, page->own_end, page->height, page->texts, g->held, g->start[k],
                               g->start[k + 1], g->keys, g->buf, g->bounds);
        if (w <= 0) return w < 0 ? -1 : -2;
        words += w;
        filled++;
    }
    if ((double)words / (double)filled > page->max_words) return 0;
    for (Py_ssize_t o = 0; o < kept; o++) spanning += g->count[g->new_cell[o]] && g->spans[4 * o + 3] > 1;
    return !((double)spanning > page->max_spanning * (double)filled);
}

/* Room for a grid of rules hs (nh) and vs (nv) over page->n glyphs: the
 * edges first (grid_alloc_slots the rest). 0 when out of memory. */
static int grid_alloc(Grid *g, Py_ssize_t nh, Py_ssize_t nv, Py_ssize_t n) {
    size_t e = (size_t)(nh + nv + 2), big = e > (size_t)n ? e : (size_t)n;
    g->xs = PyMem_Malloc(e * 8); g->ys = PyMem_Malloc(e * 8); g->mid = PyMem_Malloc(e * 8);
    g->keys = PyMem_Malloc((big + 1) * sizeof(Key)); g->buf = PyMem_Malloc((big + 1) * sizeof(Key));
    g->bounds = PyMem_Malloc((big + 2) * sizeof(Py_ssize_t));
    g->key_room = big;
    g->inside = PyMem_Malloc(((size_t)n + 1) * 8); g->slot = PyMem_Malloc(((size_t)n + 1) * 8);
    g->held = PyMem_Malloc(((size_t)n + 1) * 8);
    return g->xs && g->ys && g->mid && g->keys && g->buf && g->bounds && g->inside && g->slot && g->held;
}

static int grid_alloc_slots(Grid *g) {
    size_t n_rows = (size_t)(g->ny - 1), n_cols = (size_t)(g->nx - 1);
    if (n_rows > (size_t)PY_SSIZE_T_MAX / 64 / n_cols) return 0;
    size_t slots = n_rows * n_cols;
    g->right = PyMem_Calloc(slots + 1, 1); g->below = PyMem_Calloc(slots + 1, 1);
    g->parent = PyMem_Malloc(2 * slots * 8); g->cell_of_slot = PyMem_Malloc(slots * 8);
    g->spans = PyMem_Malloc(4 * slots * 8); g->count = PyMem_Malloc(slots * 8);
    g->start = PyMem_Malloc((slots + 1) * 8); g->new_cell = PyMem_Malloc(slots * 8);
    g->used_rows = PyMem_Malloc(n_rows * 8); g->used_cols = PyMem_Malloc(n_cols * 8);
    /* ruled_grid sorts the kept cells in keys: up to one per slot, more than
     * the edges and glyphs grid_alloc made room for (k glyphs on a diagonal
     * keep k * k cells). */
    if (slots > g->key_room) {
        Key *keys = PyMem_Realloc(g->keys, (slots + 1) * sizeof(Key)), *buf;
        if (keys) g->keys = keys;
        buf = keys ? PyMem_Realloc(g->buf, (slots + 1) * sizeof(Key)) : NULL;
        if (buf) g->buf = buf;
        Py_ssize_t *bounds = buf ? PyMem_Realloc(g->bounds, (slots + 2) * sizeof(Py_ssize_t)) : NULL;
        if (!bounds) return 0;
        g->bounds = bounds;
        g->key_room = slots;
    }
    return g->right && g->below && g->parent && g->cell_of_slot && g->spans && g->count && g->start && g->new_cell &&
           g->used_rows && g->used_cols;
}

/* gridfind._grid_edges, _grid_cells and _compress of one set of rules: its
 * cells, sorted by (row, column), appended to `cells` (7 items each: grid,
 * row, column, row span, column span, start and end of its glyphs in
 * `glyphs`, where the grid's glyphs are appended). 1 a grid, 0 none, -2
 * declined, -1 on an error set. */
static int ruled_grid(const Ruled *page, const double *hs, Py_ssize_t nh, const double *vs, Py_ssize_t nv,
                      int64_t grid, Vec *cells, Vec *glyphs) {
    Grid g;
    memset(&g, 0, sizeof g);
    int status = -1;
    Py_ssize_t n_cells = 0, kept;
    if (!grid_alloc(&g, nh, nv, page->n)) goto nomemory;
    status = 0;
    if (!grid_edges(&g, hs, nh, vs, nv, page->t, g.mid)) goto done;
    if (!grid_alloc_slots(&g)) goto nomemory;
    if (grid_slots_and_cells(&g, page, hs, nh, vs, nv, &n_cells) < 2) goto done;
    if (!(kept = grid_compress(&g, n_cells))) goto done;
    if ((status = grid_tests(&g, page, n_cells, kept)) <= 0) goto done;
    for (Py_ssize_t o = 0; o < kept; o++) g.keys[o] = (Key){(double)g.spans[4 * o], (double)g.spans[4 * o + 1], o};
    sort_keys(g.keys, kept, g.buf, g.bounds);
    Py_ssize_t base = glyphs->len, held = g.start[n_cells];
    if (!vec_grow(glyphs, held) || !vec_grow(cells, 7 * kept)) goto nomemory;
    memcpy(glyphs->data + base, g.held, (size_t)held * 8);
    glyphs->len += held;
    for (Py_ssize_t i = 0; i < kept; i++) {
        Py_ssize_t o = g.keys[i].at;
        int64_t k = g.new_cell[o], *out = cells->data + cells->len;
        out[0] = grid; memcpy(out + 1, g.spans + 4 * o, 4 * 8);
        out[5] = base + g.start[k]; out[6] = base + g.start[k + 1];
        cells->len += 7;
    }
    status = 1;
    goto done;
nomemory:
    PyErr_NoMemory();
    status = -1;
done:
    grid_free(&g);
    return status;
}

/* The page's rules (rules_of), merged along their lines (merge_rules) into
 * m and their counts; 0 when a rule is not finite (the reference decides),
 * -1 when out of memory. `m` holds 2 x 3n x 3 doubles. */
static int page_rules(const double **cols, const unsigned char *kind, Py_ssize_t n, int line, int rect,
                      double thickness, double min_length, double t, double *m, Py_ssize_t *nh, Py_ssize_t *nv) {
    double *raw = PyMem_Malloc(2 * 9 * (size_t)n * 8);
    Key *keys = PyMem_Malloc(3 * (size_t)n * sizeof(Key)), *buf = PyMem_Malloc(3 * (size_t)n * sizeof(Key));
    Py_ssize_t *bounds = PyMem_Malloc((3 * (size_t)n + 1) * sizeof(Py_ssize_t));
    int status = -1;
    if (!raw || !keys || !buf || !bounds) goto done;
    double *H = raw, *V = raw + 9 * n;
    Py_ssize_t rh, rv;
    rules_of(cols[0], cols[1], cols[2], cols[3], kind, n, line, rect, thickness, min_length, H, V, &rh, &rv);
    status = 0;
    if (any_not_finite(H, 3 * rh) || any_not_finite(V, 3 * rv)) goto done;
    /* gridfind._merge_collinear leaves one rule as it is. */
    *nh = rh < 2 ? rh : merge_rules(H, rh, t, m, keys, buf, bounds);
    if (rh < 2) memcpy(m, H, (size_t)(3 * rh) * 8);
    *nv = rv < 2 ? rv : merge_rules(V, rv, t, m + 9 * n, keys, buf, bounds);
    if (rv < 2) memcpy(m + 9 * n, V, (size_t)(3 * rv) * 8);
    status = 1;
done:
    PyMem_Free(raw); PyMem_Free(keys); PyMem_Free(buf); PyMem_Free(bounds);
    return status;
}

/* gridfind.ruled_grids after its first test, of the merged rules H (nh) and
 * V (nv): every set of crossing rules with two of each, in the order of its
 * root, read by ruled_grid. 1 done, -2 declined, -1 on an error set. */
static int page_grids_of_rules(const Ruled *page, const double *H, Py_ssize_t nh, const double *V, Py_ssize_t nv,
                               Vec *cells, Vec *glyphs) {
    size_t total = (size_t)(nh + nv);
    int64_t *parent = PyMem_Malloc(total * 8), *h_count = PyMem_Calloc(total, 8), *v_count = PyMem_Calloc(total, 8);
    double *hs = PyMem_Malloc(3 * (size_t)nh * 8), *vs = PyMem_Malloc(3 * (size_t)nv * 8);
    int status = 1;
    int64_t grid = 0;
    if (!parent || !h_count || !v_count || !hs || !vs) { PyErr_NoMemory(); status = -1; goto done; }
    join_crossings(H, nh, V, nv, page->t, parent);
    for (Py_ssize_t k = 0; k < nh; k++) h_count[parent[k]]++;
    for (Py_ssize_t k = 0; k < nv; k++) v_count[parent[nh + k]]++;
    for (Py_ssize_t root = 0; root < (Py_ssize_t)total && status > 0; root++) {
        if (h_count[root] < 2 || v_count[root] < 2) continue;
        Py_ssize_t mh = 0, mv = 0;
        for (Py_ssize_t k = 0; k < nh; k++)
            if (parent[k] == root) memcpy(hs + 3 * mh++, H + 3 * k, 3 * 8);
        for (Py_ssize_t k = 0; k < nv; k++)
            if (parent[nh + k] == root) memcpy(vs + 3 * mv++, V + 3 * k, 3 * 8);
        int found = ruled_grid(page, hs, mh, vs, mv, grid, cells, glyphs);
        if (found < 0) status = found;
        grid += found > 0;
    }
done:
    PyMem_Free(parent); PyMem_Free(h_count); PyMem_Free(v_count); PyMem_Free(hs); PyMem_Free(vs);
    return status;
}

/* What ruled_found reads of the path table (its columns x0, y0, x1, y1 and
 * kind, n pieces) and the rules' parameters. */
typedef struct {
    const double **cols;
    const unsigned char *kind;
    Py_ssize_t n;
    int line, rect;
    double thickness, min_length;
    Py_ssize_t max_pairs;
} RulesAsked;

/* grids_ruled_grids' work past its checks: the page's rules, merged, and
 * the grids of their crossing sets into `cells` and `glyphs`. 1 done, 0 or
 * -2 declined (a rule or a counted glyph's value not finite, a text no
 * str), -1 on an error set. */
static int ruled_found(const Ruled *page, const RulesAsked *asked, Vec *cells, Vec *glyphs) {
    Py_ssize_t n = asked->n, nh = 0, nv = 0;
    if (n > PY_SSIZE_T_MAX / 256) { PyErr_NoMemory(); return -1; }
    double *merged = NULL;
    int status = 1;
    if (n) {
        if (!(merged = PyMem_Malloc(2 * 9 * (size_t)n * 8))) { PyErr_NoMemory(); return -1; }
        status = page_rules(asked->cols, asked->kind, n, asked->line, asked->rect, asked->thickness, asked->min_length,
                            page->t, merged, &nh, &nv);
        if (status < 0) { PyErr_NoMemory(); goto done; }
    }
    if (status > 0 && nh && nv && nh <= asked->max_pairs / nv)
        status = page_grids_of_rules(page, merged, nh, merged + 9 * n, nv, cells, glyphs);
done:
    PyMem_Free(merged);
    return status;
}

/* ruled_grids(x0, y0, x1, y1, kind, line, rect, thickness, min_length,
 * tolerance, max_pairs, max_words, max_spanning, quad, origin, own_end,
 * height, texts, glyphs) -> (cells, glyphs), or None.
 *
 * gridfind.ruled_grids in one call, over the path table's columns (kind
 * uint8) and the glyph table's (`texts`: its text column, any sequence)
 * for the candidate `glyphs`: the rules (rules_of), merged along their lines,
 * the sets of crossing rules, and of each set with two rules each way its
 * edges (gridfind._edges: means as np.mean sums), the glyphs' slots, the
 * slots joined into cells where no rule parts them, and gridfind._compress.
 * Out: two bytearrays of int64, the cells (7 each: grid 0, 1, ..., row,
 * column, row span, column span, start and end in the second) grid after
 * grid, each grid's sorted by (row, column), and their glyphs. None when a
 * rule or a counted glyph's value is not finite or a text is no str: the
 * reference reads the page. */
static PyObject *grids_ruled_grids(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[10];
    Ruled page;
    int line, rect;
    double thickness, min_length;
    Py_ssize_t max_pairs;
    if (!PyArg_ParseTuple(args, "OOOOOiidddnddOOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &line, &rect,
                          &thickness, &min_length, &page.t, &max_pairs, &page.max_words, &page.max_spanning, &objs[5],
                          &objs[6], &objs[7], &objs[8], &page.texts, &objs[9]))
        return NULL;
    static const char *fmts[10] = {"d", "d", "d", "d", "B", "d", "d", "d", "d", "l"};
    static const char *names[10] = {"x0", "y0", "x1", "y1", "kind", "quad", "origin", "own_end", "height", "glyphs"};
    View v[10];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    Vec cells = {0}, glyphs = {0};
    for (int i = 0; i < 10; i++)
        if (get_view(objs[i], &v[i], fmts[i], i == 4 ? 1 : 8, 0, names[i]) < 0) goto done;
    Py_ssize_t n = v[4].view.len, rows = v[8].view.len / 8;
    for (int i = 0; i < 4; i++)
        if (v[i].view.len != 8 * n) { PyErr_Format(PyExc_ValueError, "%s: one per path piece", names[i]); goto done; }
    if (v[5].view.len != 64 * rows || v[6].view.len != 16 * rows || v[7].view.len != 16 * rows) {
        PyErr_SetString(PyExc_ValueError, "quad, origin, own_end and height: one row per glyph");
        goto done;
    }
    page.quad = v[5].view.buf; page.origin = v[6].view.buf; page.own_end = v[7].view.buf; page.height = v[8].view.buf;
    page.glyphs = v[9].view.buf;
    page.n = v[9].view.len / 8;
    for (Py_ssize_t k = 0; k < page.n; k++)
        if (page.glyphs[k] < 0 || page.glyphs[k] >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
    const double *cols[4] = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
    RulesAsked asked = {cols, v[4].view.buf, n, line, rect, thickness, min_length, max_pairs};
    int status = ruled_found(&page, &asked, &cells, &glyphs);
    if (status == -1) goto done;
    if (status <= 0) {
        result = Py_None;
        Py_INCREF(result);
        goto done;
    }
    PyObject *out_cells = PyByteArray_FromStringAndSize((const char *)cells.data, cells.len * 8);
    PyObject *out_glyphs = out_cells ? PyByteArray_FromStringAndSize((const char *)glyphs.data, glyphs.len * 8) : NULL;
    if (out_glyphs) result = PyTuple_Pack(2, out_cells, out_glyphs);
    Py_XDECREF(out_cells);
    Py_XDECREF(out_glyphs);
done:
    PyMem_Free(cells.data);
    PyMem_Free(glyphs.data);
    for (int i = 0; i < 10; i++) release(&v[i]);
    return result;
}

/* ---- find_grids --------------------------------------------------------- */

/* find_grids(x0, y0, x1, y1, kind, line, rect, thickness, min_length,
 * tolerance, max_pairs, ruled_max_words, max_spanning, quad, origin,
 * own_end, height, direction, texts, text_rows, artifact, gap, min_rows,
 * max_row_gap, max_words, two_column_max_words) -> (ruled cells, ruled
 * glyphs, aligned cells, aligned glyphs), () or None.
 *
 * gridfind._grids_found in one call: the page's candidate glyphs (its text
 * rows, `text_rows`, less those flagged in `artifact`), their ruled grids
 * (ruled_grids' work; the path table's columns first, its parameters as
 * ruled_grids takes them), and the aligned grids (page_aligned_grids'
 * work, its parameters as it takes them) of the candidates no ruled grid
 * holds. Out: the two kernels' bytearrays, ruled first; () when neither
 * finds a grid (most pages: nothing goes back to Python to be read); None
 * when either declines (a value not finite, a text no str): the reference
 * reads the page. */
static PyObject *grids_find_grids(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[12];
    Ruled page;
    int line, rect;
    double thickness, min_length, gap, max_row_gap, limits[2];
    Py_ssize_t max_pairs, min_rows;
    if (!PyArg_ParseTuple(args, "OOOOOiidddnddOOOOOOOOdnddd", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &line,
                          &rect, &thickness, &min_length, &page.t, &max_pairs, &page.max_words, &page.max_spanning,
                          &objs[5], &objs[6], &objs[7], &objs[8], &objs[9], &page.texts, &objs[10], &objs[11], &gap,
                          &min_rows, &max_row_gap, &limits[0], &limits[1]))
        return NULL;
    static const char *fmts[12] = {"d", "d", "d", "d", "B", "d", "d", "d", "d", "d", "l", "?"};
    static const char *names[12] = {"x0", "y0", "x1", "y1", "kind", "quad", "origin", "own_end", "height",
                                    "direction", "text_rows", "artifact"};
    View v[12];
    memset(v, 0, sizeof v);
    PyObject *result = NULL;
    Vec cells = {0}, glyphs = {0};
    int64_t *candidates = NULL, *aligned = NULL, *held = NULL;
    char *taken = NULL;
    for (int i = 0; i < 12; i++)
        if (get_view(objs[i], &v[i], fmts[i], i == 4 || i == 11 ? 1 : 8, 0, names[i]) < 0) goto done;
    Py_ssize_t n = v[4].view.len, rows = v[8].view.len / 8, total = v[10].view.len / 8;
    for (int i = 0; i < 4; i++)
        if (v[i].view.len != 8 * n) { PyErr_Format(PyExc_ValueError, "%s: one per path piece", names[i]); goto done; }
    if (v[5].view.len != 64 * rows || v[6].view.len != 16 * rows || v[7].view.len != 16 * rows ||
        v[9].view.len != 16 * rows || v[11].view.len != rows) {
        PyErr_SetString(PyExc_ValueError, "quad, origin, own_end, height, direction and artifact: one row per glyph");
        goto done;
    }
    const int64_t *text_rows = v[10].view.buf;
    const char *artifact = v[11].view.buf;
    if (!(candidates = PyMem_Malloc(((size_t)total + 1) * 8))) { PyErr_NoMemory(); goto done; }
    Py_ssize_t m = 0;
    for (Py_ssize_t k = 0; k < total; k++) {
        int64_t g = text_rows[k];
        if (g < 0 || g >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
        if (!artifact[g]) candidates[m++] = g;
    }
    page.quad = v[5].view.buf; page.origin = v[6].view.buf; page.own_end = v[7].view.buf; page.height = v[8].view.buf;
    page.glyphs = candidates;
    page.n = m;
    int status = 1;
    if (n) {  /* gridfind._ruled_grid_columns: no paths, no ruled grid */
        const double *cols[4] = {v[0].view.buf, v[1].view.buf, v[2].view.buf, v[3].view.buf};
        RulesAsked asked = {cols, v[4].view.buf, n, line, rect, thickness, min_length, max_pairs};
        status = ruled_found(&page, &asked, &cells, &glyphs);
    }
    if (status == -1) goto done;
    if (status <= 0) goto declined;
    if (glyphs.len) {  /* the glyphs of ruled grids are no candidates for aligned ones */
        if (!(taken = PyMem_Calloc((size_t)rows + 1, 1))) { PyErr_NoMemory(); goto done; }
        for (Py_ssize_t k = 0; k < glyphs.len; k++) taken[glyphs.data[k]] = 1;
        Py_ssize_t kept = 0;
        for (Py_ssize_t k = 0; k < m; k++)
            if (!taken[candidates[k]]) candidates[kept++] = candidates[k];
        m = kept;
    }
    /* `held`: only the kept cells' glyphs are read back (compacted below), not zeroed. */
    aligned = PyMem_Malloc(5 * ((size_t)m + 1) * 8);
    held = PyMem_Malloc(2 * ((size_t)m + 1) * 8);
    if (!aligned || !held) { PyErr_NoMemory(); goto done; }
    Py_ssize_t upright = 0; /* unused: the kept glyphs go back */
    Py_ssize_t found = aligned_found(page.origin, page.own_end, page.height, page.quad, v[9].view.buf, page.texts, rows,
                                     candidates, m, gap, min_rows, max_row_gap, limits, aligned, held, &upright);
    if (found == -1) goto done;
    if (found == -2) goto declined;
    if (!found && !cells.len) {
        result = PyTuple_New(0);
        goto done;
    }
    int64_t *kept = held + m + 1; /* the kept cells' glyphs, cell after cell */
    Py_ssize_t kept_glyphs = 0;
    for (Py_ssize_t c = 0; c < found; c++) {
        int64_t *cell = aligned + 5 * c, size = cell[4] - cell[3];
        memcpy(kept + kept_glyphs, held + cell[3], (size_t)size * 8);
        cell[3] = kept_glyphs;
        kept_glyphs += size;
        cell[4] = kept_glyphs;
    }
    PyObject *parts[4] = {
        PyByteArray_FromStringAndSize((const char *)cells.data, cells.len * 8),
        PyByteArray_FromStringAndSize((const char *)glyphs.data, glyphs.len * 8),
        PyByteArray_FromStringAndSize((const char *)aligned, 5 * found * 8),
        PyByteArray_FromStringAndSize((const char *)kept, kept_glyphs * 8),
    };
    if (parts[0] && parts[1] && parts[2] && parts[3]) result = PyTuple_Pack(4, parts[0], parts[1], parts[2], parts[3]);
    for (int i = 0; i < 4; i++) Py_XDECREF(parts[i]);
    goto done;
declined:
    result = Py_None;
    Py_INCREF(result);
done:
    PyMem_Free(cells.data); PyMem_Free(glyphs.data);
    PyMem_Free(candidates); PyMem_Free(taken); PyMem_Free(aligned); PyMem_Free(held);
    for (int i = 0; i < 12; i++) release(&v[i]);
    return result;
}

/* ---- cell_boxes --------------------------------------------------------- */

/* gridfind.rounded_like_python of one value: rint(v x 1000) / 1000 where
 * that is round(v, 3), else round(v, 3) itself (a new float, NULL on an
 * error set). */
static PyObject *rounded_like_python(double v) {
    double scaled = v * 1000.0, magnitude = fabs(scaled);
    int hard = !(magnitude < 4503599627370496.0); /* 2**52, and every value not finite */
    if (!hard) {
        double frac = fabs(scaled - trunc(scaled)), spacing = nextafter(magnitude, INFINITY) - magnitude;
        hard = fabs(frac - 0.5) <= 4 * spacing;
    }
    if (!hard) return PyFloat_FromDouble(rint(scaled) / 1000.0);
    PyObject *value = PyFloat_FromDouble(v);
    if (!value) return NULL;
    PyObject *out = PyObject_CallMethod(value, "__round__", "i", 3);
    Py_DECREF(value);
    return out;
}

/* cell_boxes(quad, glyphs, starts, position, char_start, char_end)
 * -> (boxes, first, last).
 *
 * gridfind._table's reductions per cell, a cell being a run of `glyphs`
 * (glyph table rows) from `starts` (the first 0, increasing, each run not
 * empty): its box, the least x and y and the greatest x and y of its
 * glyphs' quad corners (NaN where one is NaN, as np.minimum and
 * np.maximum reduce), each rounded as round(v, 3) (rounded_like_python), a
 * tuple; the least char_start and the greatest char_end of its glyphs the
 * page reading placed (`position`, per glyph table row, >= 0; the int64
 * maximum and -1 when it placed none). Lists, one item per cell. */
static PyObject *grids_cell_boxes(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[6];
    if (!PyArg_ParseTuple(args, "OOOOOO", &objs[0], &objs[1], &objs[2], &objs[3], &objs[4], &objs[5])) return NULL;
    static const char *fmts[6] = {"d", "l", "l", "l", "l", "l"};
    static const char *names[6] = {"quad", "glyphs", "starts", "position", "char_start", "char_end"};
    View v[6];
    memset(v, 0, sizeof v);
    PyObject *boxes = NULL, *firsts = NULL, *lasts = NULL, *result = NULL;
    for (int i = 0; i < 6; i++)
        if (get_view(objs[i], &v[i], fmts[i], 8, 0, names[i]) < 0) goto done;
    Py_ssize_t rows = v[3].view.len / 8, n = v[1].view.len / 8, cells = v[2].view.len / 8;
    Py_ssize_t emitted = v[4].view.len / 8;
    if (v[0].view.len / 8 != 8 * rows || v[5].view.len / 8 != emitted) {
        PyErr_SetString(PyExc_ValueError, "cell_boxes: quad and position: one row per glyph; char_start and char_end alike");
        goto done;
    }
    const double *quad = v[0].view.buf;
    const int64_t *glyphs = v[1].view.buf, *starts = v[2].view.buf, *position = v[3].view.buf;
    const int64_t *char_start = v[4].view.buf, *char_end = v[5].view.buf;
    for (Py_ssize_t c = 0; c < cells; c++) {
        Py_ssize_t end = c + 1 < cells ? starts[c + 1] : n;
        if (starts[c] < 0 || starts[c] >= end || end > n) {
            PyErr_SetString(PyExc_ValueError, "cell_boxes: starts must increase from 0 within the glyphs");
            goto done;
        }
    }
    if (cells && starts[0] != 0) { PyErr_SetString(PyExc_ValueError, "cell_boxes: the first start is 0"); goto done; }
    for (Py_ssize_t k = 0; k < n; k++) {
        if (glyphs[k] < 0 || glyphs[k] >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
        int64_t at = position[glyphs[k]];
        if (at >= emitted) { PyErr_SetString(PyExc_IndexError, "position out of range"); goto done; }
    }
    if (!(boxes = PyList_New(cells)) || !(firsts = PyList_New(cells)) || !(lasts = PyList_New(cells))) goto done;
    for (Py_ssize_t c = 0; c < cells; c++) {
        Py_ssize_t end = c + 1 < cells ? starts[c + 1] : n;
        double box[4] = {INFINITY, INFINITY, -INFINITY, -INFINITY};
        int64_t first = INT64_MAX, last = -1;
        for (Py_ssize_t k = starts[c]; k < end; k++) {
            const double *q = quad + 8 * glyphs[k];
            double x0 = np_minimum(np_minimum(q[0], q[2]), np_minimum(q[4], q[6]));
            double y0 = np_minimum(np_minimum(q[1], q[3]), np_minimum(q[5], q[7]));
            double x1 = np_maximum(np_maximum(q[0], q[2]), np_maximum(q[4], q[6]));
            double y1 = np_maximum(np_maximum(q[1], q[3]), np_maximum(q[5], q[7]));
            if (k == starts[c]) {
                box[0] = x0; box[1] = y0; box[2] = x1; box[3] = y1;
            } else {
                box[0] = np_minimum(box[0], x0); box[1] = np_minimum(box[1], y0);
                box[2] = np_maximum(box[2], x1); box[3] = np_maximum(box[3], y1);
            }
            int64_t at = position[glyphs[k]];
            if (at >= 0) {
                if (char_start[at] < first) first = char_start[at];
                if (char_end[at] > last) last = char_end[at];
            }
        }
        PyObject *rounded[4] = {NULL, NULL, NULL, NULL};
        for (int i = 0; i < 4; i++)
            if (!(rounded[i] = rounded_like_python(box[i]))) break;
        PyObject *tuple = rounded[3] ? PyTuple_Pack(4, rounded[0], rounded[1], rounded[2], rounded[3]) : NULL;
        for (int i = 0; i < 4; i++) Py_XDECREF(rounded[i]);
        if (!tuple) goto done;
        PyList_SET_ITEM(boxes, c, tuple);
        PyObject *f = PyLong_FromLongLong(first), *l = PyLong_FromLongLong(last);
        if (!f || !l) { Py_XDECREF(f); Py_XDECREF(l); goto done; }
        PyList_SET_ITEM(firsts, c, f);
        PyList_SET_ITEM(lasts, c, l);
    }
    result = PyTuple_Pack(3, boxes, firsts, lasts);
done:
    Py_XDECREF(boxes); Py_XDECREF(firsts); Py_XDECREF(lasts);
    for (int i = 0; i < 6; i++) release(&v[i]);
    return result;
}

/* ---- cell_mcids --------------------------------------------------------- */

/* cell_mcids(mcid, glyphs, starts) -> list of tuples.
 *
 * gridfind._cell_mcids: per cell, a run of `glyphs` (glyph table rows) from
 * `starts` (the first 0, increasing, within the glyphs), the MCIDs (`mcid`,
 * per glyph table row) of its glyphs other than -1 (glyphs.NO_MCID), each
 * once, in the order they first come: a tuple of ints. */
static PyObject *grids_cell_mcids(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "OOO", &objs[0], &objs[1], &objs[2])) return NULL;
    static const char *names[3] = {"mcid", "glyphs", "starts"};
    View v[3];
    memset(v, 0, sizeof v);
    PyObject *result = NULL, *list = NULL;
    int64_t *seen = NULL;
    for (int i = 0; i < 3; i++)
        if (get_view(objs[i], &v[i], "l", 8, 0, names[i]) < 0) goto done;
    Py_ssize_t rows = v[0].view.len / 8, n = v[1].view.len / 8, cells = v[2].view.len / 8;
    const int64_t *mcid = v[0].view.buf, *glyphs = v[1].view.buf, *starts = v[2].view.buf;
    for (Py_ssize_t c = 0; c < cells; c++) {
        Py_ssize_t end = c + 1 < cells ? starts[c + 1] : n;
        if (starts[c] < 0 || starts[c] > end || end > n || (c == 0 && starts[0] != 0)) {
            PyErr_SetString(PyExc_ValueError, "cell_mcids: starts must increase from 0 within the glyphs");
            goto done;
        }
    }
    for (Py_ssize_t k = 0; k < n; k++)
        if (glyphs[k] < 0 || glyphs[k] >= rows) { PyErr_SetString(PyExc_IndexError, "glyph index out of range"); goto done; }
    if (!(seen = PyMem_Malloc(((size_t)n + 1) * 8)) || !(list = PyList_New(cells))) {
        if (!seen) PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t c = 0; c < cells; c++) {
        Py_ssize_t end = c + 1 < cells ? starts[c + 1] : n, distinct = 0;
        for (Py_ssize_t k = starts[c]; k < end; k++) {
            int64_t m = mcid[glyphs[k]], j = 0;
            if (m == -1) continue;
            while (j < distinct && seen[j] != m) j++; /* a cell holds a few MCIDs */
            if (j == distinct) seen[distinct++] = m;
        }
        PyObject *tuple = PyTuple_New(distinct);
        if (!tuple) goto done;
        for (Py_ssize_t j = 0; j < distinct; j++) {
            PyObject *value = PyLong_FromLongLong(seen[j]);
            if (!value) { Py_DECREF(tuple); goto done; }
            PyTuple_SET_ITEM(tuple, j, value);
        }
        PyList_SET_ITEM(list, c, tuple);
    }
    result = list;
    list = NULL;
done:
    Py_XDECREF(list);
    PyMem_Free(seen);
    for (int i = 0; i < 3; i++) release(&v[i]);
    return result;
}

static PyMethodDef module_methods[] = {
    {"text_lines", (PyCFunction)grids_text_lines, METH_VARARGS, "Glyphs into lines and pieces (gridfind._lines)."},
    {"merge_collinear", (PyCFunction)grids_merge_collinear, METH_VARARGS, "Touching rules on one line joined."},
    {"rule_components", (PyCFunction)grids_rule_components, METH_VARARGS, "Connected sets of crossing rules."},
    {"grid_slots", (PyCFunction)grids_grid_slots, METH_VARARGS, "The slot of a ruled grid each glyph's centre lies in."},
    {"grid_spans", (PyCFunction)grids_grid_spans, METH_VARARGS, "A ruled grid's slots joined into cells."},
    {"word_counts", (PyCFunction)grids_word_counts, METH_VARARGS, "Words of each cell of a grid."},
    {"aligned_grids", (PyCFunction)grids_aligned_grids, METH_VARARGS, "Grids of runs of aligned text lines."},
    {"page_aligned_grids", (PyCFunction)grids_page_aligned_grids, METH_VARARGS, "Text lines and their aligned grids, in one call."},
    {"rules", (PyCFunction)grids_rules, METH_VARARGS, "Horizontal and vertical rules of the path table."},
    {"band_glyphs", (PyCFunction)grids_band_glyphs, METH_VARARGS, "Glyphs in the top or bottom band of an upright page."},
    {"band_segments", (PyCFunction)grids_band_segments, METH_VARARGS, "Segment starts and spaces of band lines."},
    {"ruled_grids", (PyCFunction)grids_ruled_grids, METH_VARARGS, "Grids of crossing rules with their cells, in one call."},
    {"find_grids", (PyCFunction)grids_find_grids, METH_VARARGS, "A page's ruled and aligned grids, in one call."},
    {"cell_mcids", (PyCFunction)grids_cell_mcids, METH_VARARGS, "Each detected cell's MCIDs, each once."},
    {"cell_boxes", (PyCFunction)grids_cell_boxes, METH_VARARGS, "Each detected cell's rounded box and text span."},
    {"band_lines", (PyCFunction)grids_band_lines, METH_VARARGS, "Band glyphs to segment texts and rows, upright pages."},
    {"band_joins", (PyCFunction)grids_band_joins, METH_VARARGS, "Does any band segment join the next one on its row?"},
    {"band_keys", (PyCFunction)grids_band_keys, METH_VARARGS, "running.band_lines whole: the candidate lines of the bands."},
    {"band_mask", (PyCFunction)grids_band_mask, METH_VARARGS, "running.running_mask: the glyphs of a page's running lines."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef grids_module = {
    PyModuleDef_HEAD_INIT, "_grids", "Compiled kernels of table detection (ragprep.extract.gridfind).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__grids(void) { return PyModule_Create(&grids_module); }
