/* numpy's pairwise summation of n contiguous doubles (the add reduction's
 * inner loop, pairwise_sum in numpy's loops_utils): below 8 values one by one
 * from -0.0, up to 128 in eight interleaved partial sums, beyond that the two
 * halves, the first a multiple of 8, summed apart. The kernels that reproduce
 * a numpy sum bit for bit (_layout.c, _grids.c) call this one copy; each adds
 * the reduction's start (numpy's identity or first value) as its reference
 * does. Recursion depth is log2(n / 128), not input-controlled nesting. */
#ifndef RAGPREP_NPSUM_H
#define RAGPREP_NPSUM_H

#include <Python.h>

static double pairwise_sum(const double *a, Py_ssize_t n) {
    if (n < 8) {
        double res = -0.0;
        for (Py_ssize_t i = 0; i < n; i++) res += a[i];
        return res;
    }
    if (n <= 128) {
        double r[8];
        Py_ssize_t i;
        for (int j = 0; j < 8; j++) r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++) r[j] += a[i + j];
        double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += a[i];
        return res;
    }
    Py_ssize_t half = n / 2;
    half -= half % 8;
    return pairwise_sum(a, half) + pairwise_sum(a + half, n - half);
}

#endif
