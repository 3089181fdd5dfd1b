/* SPDX-License-Identifier: BSD-3-Clause */
#include "zpt_app.h"

#include <stdlib.h>
#include <string.h>

void zpt_app_init(zpt_app *a)
{
  memset(a, 0, sizeof *a);
  MPI_Comm_rank(MPI_COMM_WORLD, &a->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &a->size);
  a->f.num_obj_err_rank = a->f.obj_list_err_rank = a->f.parts_err_rank = -1;
}

void zpt_app_push(zpt_app *a, zpt_obj o)
{
  if (a->n == a->cap) {
    a->cap = a->cap ? 2 * a->cap : 64;
    a->o = realloc(a->o, (size_t)a->cap * sizeof *a->o);
    /* Test code: nothing sensible is left to check without memory. */
    if (a->o == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  }
  a->o[a->n++] = o;
}

void zpt_app_compact(zpt_app *a)
{
  int i, k = 0;
  for (i = 0; i < a->n; i++)
    if (!a->o[i].gone) a->o[k++] = a->o[i];
  a->n = k;
}

static int cb_num_obj(void *d, int *ierr)
{
  zpt_app *a = d;
  *ierr = a->f.num_obj_err_rank == a->rank ? ZOLTAN_FATAL : ZOLTAN_OK;
  if (a->f.num_obj_negative && a->rank == a->size - 1) return -5;
  return a->n;
}

void zpt_cb_obj_list(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                     float *w, int *ierr)
{
  zpt_app *a = d;
  int i, k;
  (void)ngid;
  (void)nlid;
  for (i = 0; i < a->n; i++) {
    gids[i] = a->o[i].gid;
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i * wdim] = (float)a->o[i].w;
    if (wdim > 1) w[i * wdim + 1] = a->w2 != NULL ? (float)a->w2(a->o[i].gid) : 1.0f;
    for (k = 2; k < wdim; k++) w[i * wdim + k] = zpt_weight_extra(a->o[i].gid, k);
  }
  *ierr = a->f.obj_list_err_rank == a->rank ? ZOLTAN_FATAL : ZOLTAN_OK;
}

static void cb_parts(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  zpt_app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)gids;
  for (i = 0; i < n; i++) parts[i] = a->o[lids[i]].part;
  *ierr = a->f.parts_err_rank == a->rank ? ZOLTAN_FATAL : ZOLTAN_OK;
}

static int cb_size(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr)
{
  (void)d;
  (void)ngid;
  (void)nlid;
  (void)gid;
  (void)lid;
  *ierr = ZOLTAN_OK;
  return (int)sizeof(zpt_obj);
}

/* The destination part travels in the buffer: Zoltan's unpack callback
 * does not receive it. */
static void cb_pack(void *d, int ngid, int nlid, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                    int dest_part, int size, char *buf, int *ierr)
{
  zpt_app *a = d;
  zpt_obj o = a->o[*lid];
  (void)ngid;
  (void)nlid;
  (void)size;
  *ierr = ZOLTAN_OK;
  if (o.gid != *gid || o.gone) {
    a->bad_packs++;
    *ierr = ZOLTAN_FATAL;
  }
  o.part = dest_part;
  memcpy(buf, &o, sizeof o);
  a->o[*lid].gone = 1;
}

static void cb_unpack(void *d, int ngid, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr)
{
  zpt_app *a = d;
  zpt_obj o;
  (void)ngid;
  (void)size;
  memcpy(&o, buf, sizeof o);
  *ierr = ZOLTAN_OK;
  if (o.gid != *gid) {
    a->bad_packs++;
    *ierr = ZOLTAN_FATAL;
  }
  o.gone = 0;
  zpt_app_push(a, o);
}

/* Objects whose part changes on the same rank are not packed: take their
 * new part from the export list. */
static void cb_post(void *d, int ngid, int nlid, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il,
                    int *ip, int *ipa, int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep,
                    int *epa, int *ierr)
{
  zpt_app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)nimp;
  (void)ig;
  (void)il;
  (void)ip;
  (void)ipa;
  (void)eg;
  for (i = 0; i < nexp; i++)
    if (ep[i] == a->rank && epa) a->o[el[i]].part = epa[i];
  *ierr = ZOLTAN_OK;
}

int zpt_cb_num_geom_1(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 1;
}

int zpt_cb_num_geom_2(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom(void *d, int ngid, int nlid, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                    int dim, double *x, int *ierr)
{
  zpt_app *a = d;
  int i;
  (void)ngid;
  (void)nlid;
  (void)lids;
  for (i = 0; i < n; i++) a->coords(gids[i], &x[(size_t)i * dim]);
  *ierr = ZOLTAN_OK;
}

void zpt_register_geometry(struct Zoltan_Struct *zz, zpt_app *a)
{
  Zoltan_Set_Num_Geom_Fn(zz, zpt_cb_num_geom_2, a);
  Zoltan_Set_Geom_Multi_Fn(zz, cb_geom, a);
}

void *zpt_gather_sorted(const void *mine, int n, size_t size,
                        int (*cmp)(const void *, const void *), int *total)
{
  int nranks, i, tot = 0, bytes = n * (int)size, *cnt, *dsp;
  char *all;
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  cnt = malloc((size_t)nranks * sizeof *cnt);
  dsp = malloc((size_t)nranks * sizeof *dsp);
  if (cnt == NULL || dsp == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Allgather(&bytes, 1, MPI_INT, cnt, 1, MPI_INT, MPI_COMM_WORLD);
  for (i = 0; i < nranks; i++) {
    dsp[i] = tot;
    tot += cnt[i];
  }
  /* One byte more, so that an empty gather is still a valid allocation. */
  all = malloc((size_t)tot + 1);
  if (all == NULL) MPI_Abort(MPI_COMM_WORLD, 3);
  MPI_Allgatherv(mine, bytes, MPI_BYTE, all, cnt, dsp, MPI_BYTE, MPI_COMM_WORLD);
  *total = tot / (int)size;
  qsort(all, (size_t)*total, size, cmp);
  free(cnt);
  free(dsp);
  return all;
}

void zpt_register(struct Zoltan_Struct *zz, zpt_app *a)
{
  Zoltan_Set_Num_Obj_Fn(zz, cb_num_obj, a);
  Zoltan_Set_Obj_List_Fn(zz, zpt_cb_obj_list, a);
  Zoltan_Set_Part_Multi_Fn(zz, cb_parts, a);
  Zoltan_Set_Obj_Size_Fn(zz, cb_size, a);
  Zoltan_Set_Pack_Obj_Fn(zz, cb_pack, a);
  Zoltan_Set_Unpack_Obj_Fn(zz, cb_unpack, a);
  Zoltan_Set_Post_Migrate_PP_Fn(zz, cb_post, a);
}
