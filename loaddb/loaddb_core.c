/* SPDX-License-Identifier: BSD-3-Clause */
/* The load database's arithmetic (loaddb_core.h). */
#include <math.h>

#include "loaddb_core.h"

int loaddb_smooth(size_t n, const double *sum, const unsigned *count, double *load)
{
  size_t i;
  for (i = 0; i < n; i++) {
    if (!isfinite(sum[i]) || sum[i] < 0.0) return LOADDB_EINVAL;
    load[i] = count[i] > 0 ? sum[i] / (double)count[i] : 0.0;
  }
  return LOADDB_OK;
}

void loaddb_local_totals(size_t n, const double *load, const unsigned *count, const double *cb,
                         size_t cb_stride, loaddb_totals *out)
{
  size_t i;
  out->measured = out->count = out->callback = out->unmeasured = 0.0;
  for (i = 0; i < n; i++) {
    if (count[i] > 0) {
      out->measured += load[i];
      out->count += 1.0;
      out->callback += cb[i * cb_stride];
    } else {
      out->unmeasured += 1.0;
    }
  }
}

int loaddb_weights(int mode, size_t n, const double *load, const unsigned *count, double *w,
                   size_t stride, const loaddb_totals *global)
{
  size_t i;
  double fill = 0.0, scale = 1.0;
  int have_fill = 0;
  if (mode != LOADDB_MEASURED && mode != LOADDB_BOTH) return LOADDB_EINVAL;
  if (mode == LOADDB_MEASURED && global->count > 0.0) {
    fill = global->measured / global->count;
    have_fill = 1;
  }
  /* Callback weights that sum to zero say nothing about the units. */
  if (mode == LOADDB_BOTH && global->callback > 0.0 && global->count > 0.0)
    scale = global->measured / global->callback;
  for (i = 0; i < n; i++) {
    double *x = &w[i * stride];
    if (count[i] > 0)
      *x = load[i];
    else if (mode == LOADDB_MEASURED && have_fill)
      *x = fill;
    else if (mode == LOADDB_BOTH)
      *x *= scale;
  }
  return LOADDB_OK;
}
