/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The cell application of the heterogeneous-machine benchmarks
 * (bench_hetero: modelled step times; bench_competitor: real processes and
 * wall time): cells of 0.5-1.5 particles on a 2-D grid with coordinates,
 * the Zoltan callbacks, and one balance with migration.
 */
#include "hetero_app.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_rng.h"

/* ---- the application's Zoltan callbacks --------------------------------- */

static int cb_num_obj(void *d, int *ierr)
{
  *ierr = ZOLTAN_OK;
  return ((ha_app *)d)->n;
}

static void cb_obj_list(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int wdim,
                        float *w, int *ierr)
{
  ha_app *a = d;
  int i;
  (void)ng;
  (void)nl;
  for (i = 0; i < a->n; i++) {
    g[i] = a->c[i].gid;
    l[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = (float)(a->c[i].work / a->weight_div);
  }
  *ierr = ZOLTAN_OK;
}

static int cb_num_geom(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom_multi(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int dim,
                          double *xy, int *ierr)
{
  ha_app *a = d;
  int i;
  (void)ng;
  (void)nl;
  (void)l;
  (void)dim;
  for (i = 0; i < n; i++) {
    long k = (long)g[i] - 1;
    xy[2 * i] = (double)(k % a->side) + 0.5;
    xy[2 * i + 1] = (double)(k / a->side) + 0.5;
  }
  *ierr = ZOLTAN_OK;
}

static int cb_obj_size(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int *ierr)
{
  (void)d;
  (void)ng;
  (void)nl;
  (void)g;
  (void)l;
  *ierr = ZOLTAN_OK;
  return (int)sizeof(ha_cell);
}

static void cb_pack(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int dest, int size,
                    char *buf, int *ierr)
{
  ha_app *a = d;
  (void)ng;
  (void)nl;
  (void)g;
  (void)dest;
  (void)size;
  memcpy(buf, &a->c[*l], sizeof(ha_cell));
  a->c[*l].gid = 0; /* gone */
  *ierr = ZOLTAN_OK;
}

static void cb_unpack(void *d, int ng, ZOLTAN_ID_PTR g, int size, char *buf, int *ierr)
{
  ha_app *a = d;
  (void)ng;
  (void)g;
  (void)size;
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 1024;
    a->c = realloc(a->c, (size_t)a->cap * sizeof *a->c);
    if (a->c == NULL) {
      *ierr = ZOLTAN_MEMERR;
      return;
    }
  }
  memcpy(&a->c[a->n++], buf, sizeof(ha_cell));
  *ierr = ZOLTAN_OK;
}

/* Drop the cells packed away. */
static void compact(ha_app *a)
{
  int i, k = 0;
  for (i = 0; i < a->n; i++)
    if (a->c[i].gid != 0) a->c[k++] = a->c[i];
  a->n = k;
}

/* Work of a cell: 0.5 .. 1.5 particles' worth, from its GID alone. */
double ha_cell_work(ZOLTAN_ID_TYPE gid)
{
  return 0.5 + zp_unit_double(zp_mix64(0x5eedULL * 977 + (uint64_t)gid));
}

double ha_local_work(const ha_app *a)
{
  double w = 0.0;
  int i;
  for (i = 0; i < a->n; i++) w += a->c[i].work;
  return w;
}

/* Equal cell counts per rank, by GID blocks (the seeds' uniform start). */
void ha_initial_cells(ha_app *a, int cells)
{
  long first = (long)cells * a->rank / a->size, last = (long)cells * (a->rank + 1) / a->size, k;
  a->n = 0;
  a->cap = (int)(last - first) + 16;
  a->c = malloc((size_t)a->cap * sizeof *a->c);
  for (k = first; k < last; k++) {
    a->c[a->n].gid = (ZOLTAN_ID_TYPE)(k + 1);
    a->c[a->n].work = ha_cell_work((ZOLTAN_ID_TYPE)(k + 1));
    a->n++;
  }
}

struct Zoltan_Struct *ha_make_zz(ha_app *a)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", "RCB");
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "AUTO_MIGRATE", "TRUE");
  Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.02");
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, a);
  Zoltan_Set_Obj_List_Fn(zz, cb_obj_list, a);
  Zoltan_Set_Num_Geom_Fn(zz, cb_num_geom, a);
  Zoltan_Set_Geom_Multi_Fn(zz, cb_geom_multi, a);
  Zoltan_Set_Obj_Size_Fn(zz, cb_obj_size, a);
  Zoltan_Set_Pack_Obj_Fn(zz, cb_pack, a);
  Zoltan_Set_Unpack_Obj_Fn(zz, cb_unpack, a);
  return zz;
}

/* Balance once; returns the number of cells moved (all ranks). */
long ha_balance(struct Zoltan_Struct *zz, ha_app *a)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa;
  ZOLTAN_ID_PTR ig, il, eg, el;
  long moved;
  int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                               &el, &ep, &epa);
  if (rc != ZOLTAN_OK && rc != ZOLTAN_WARN) {
    if (a->rank == 0) fprintf(stderr, "Zoltan_LB_Partition failed (%d)\n", rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  compact(a);
  moved = nexp > 0 ? nexp : 0;
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  return moved;
}
