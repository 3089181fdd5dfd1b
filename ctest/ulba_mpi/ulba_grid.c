/* SPDX-License-Identifier: BSD-3-Clause */
/* dup, dup2 and fileno are POSIX. */
#define _POSIX_C_SOURCE 200809L
#include "ulba_grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int grid_fails;

void grid_begin(int *argc, char ***argv, int *rank, int *size)
{
  float ver;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  if (Zoltan_Initialize(*argc, *argv, &ver) != ZOLTAN_OK) {
    fprintf(stderr, "Zoltan_Initialize failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

int grid_end(const char *label)
{
  int rank, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&grid_fails, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d failed checks\n", label, all);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}

static int cb_num(void *d, int *ierr)
{
  grid_app *a = d;
  *ierr = ZOLTAN_OK;
  return a->n;
}

static void cb_list(void *d, int ng, int nl, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int wdim,
                    float *w, int *ierr)
{
  grid_app *a = d;
  (void)ng;
  (void)nl;
  for (int i = 0; i < a->n; i++) {
    gids[i] = a->o[i].gid;
    lids[i] = (ZOLTAN_ID_TYPE)i;
    if (wdim > 0) w[i] = (float)a->o[i].w;
  }
  *ierr = ZOLTAN_OK;
}

static int cb_dim(void *d, int *ierr)
{
  (void)d;
  *ierr = ZOLTAN_OK;
  return 2;
}

static void cb_geom(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int dim,
                    double *x, int *ierr)
{
  grid_app *a = d;
  (void)ng;
  (void)nl;
  (void)gids;
  for (int i = 0; i < n; i++) {
    x[(size_t)i * dim] = a->o[lids[i]].x;
    x[(size_t)i * dim + 1] = a->o[lids[i]].y;
  }
  *ierr = ZOLTAN_OK;
}

static void cb_parts(void *d, int ng, int nl, int n, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids,
                     int *parts, int *ierr)
{
  grid_app *a = d;
  (void)ng;
  (void)nl;
  (void)gids;
  for (int i = 0; i < n; i++) parts[i] = a->o[lids[i]].part;
  *ierr = ZOLTAN_OK;
}

void grid_track_parts(struct Zoltan_Struct *zz, grid_app *a)
{
  Zoltan_Set_Part_Multi_Fn(zz, cb_parts, a);
}

static int cb_size(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int *ierr)
{
  (void)d;
  (void)ng;
  (void)nl;
  (void)g;
  (void)l;
  *ierr = ZOLTAN_OK;
  return (int)sizeof(grid_obj);
}

static void cb_pack(void *d, int ng, int nl, ZOLTAN_ID_PTR g, ZOLTAN_ID_PTR l, int dest, int size,
                    char *buf, int *ierr)
{
  grid_app *a = d;
  (void)ng;
  (void)nl;
  (void)g;
  (void)dest;
  (void)size;
  memcpy(buf, &a->o[*l], sizeof(grid_obj));
  a->o[*l].gone = 1;
  *ierr = ZOLTAN_OK;
}

static void cb_unpack(void *d, int ng, ZOLTAN_ID_PTR g, int size, char *buf, int *ierr)
{
  grid_app *a = d;
  (void)ng;
  (void)g;
  (void)size;
  if (a->n == a->cap) {
    int cap = 2 * a->cap + 16;
    grid_obj *o = realloc(a->o, (size_t)cap * sizeof *o);
    if (o == NULL) {
      *ierr = ZOLTAN_MEMERR;
      return;
    }
    a->o = o;
    a->cap = cap;
  }
  memcpy(&a->o[a->n], buf, sizeof(grid_obj));
  a->o[a->n].gone = 0;
  a->n++;
  *ierr = ZOLTAN_OK;
}

void grid_compact(grid_app *a)
{
  int k = 0;
  for (int i = 0; i < a->n; i++)
    if (!a->o[i].gone) a->o[k++] = a->o[i];
  a->n = k;
}

void grid_make(grid_app *a, int rank, int size, int total, int side)
{
  int first = (int)((long)rank * total / size), last = (int)((long)(rank + 1) * total / size);
  a->n = last - first;
  a->cap = a->n + 1;
  a->o = calloc((size_t)a->cap, sizeof(grid_obj));
  for (int k = 0; k < a->n; k++) {
    int g = first + k, ix = g % side, iy = g / side;
    grid_obj *o = &a->o[k];
    o->gid = (ZOLTAN_ID_TYPE)(g + 1);
    o->x = (ix + 0.5) / side;
    o->y = (iy + 0.5) / side;
    o->w = 1.0;
    o->grows = ix < 4 && iy < 4;
    o->part = rank;
  }
}

void grid_jitter(grid_app *a, double amount)
{
  for (int i = 0; i < a->n; i++) {
    /* Knuth's multiplicative hash spreads consecutive GIDs. */
    unsigned h = (unsigned)a->o[i].gid * 2654435761u;
    a->o[i].x += ((h % 1000u) / 1000.0 - 0.5) * amount;
    a->o[i].y += (((h / 1000u) % 1000u) / 1000.0 - 0.5) * amount;
  }
}

struct Zoltan_Struct *grid_zz(grid_app *a, const char *method)
{
  struct Zoltan_Struct *zz = Zoltan_Create(MPI_COMM_WORLD);
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "LB_METHOD", method);
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  Zoltan_Set_Param(zz, "IMBALANCE_TOL", "1.01");
  Zoltan_Set_Param(zz, "RETURN_LISTS", "ALL");
  Zoltan_Set_Num_Obj_Fn(zz, cb_num, a);
  Zoltan_Set_Obj_List_Fn(zz, cb_list, a);
  Zoltan_Set_Num_Geom_Fn(zz, cb_dim, a);
  Zoltan_Set_Geom_Multi_Fn(zz, cb_geom, a);
  Zoltan_Set_Obj_Size_Fn(zz, cb_size, a);
  Zoltan_Set_Pack_Obj_Fn(zz, cb_pack, a);
  Zoltan_Set_Unpack_Obj_Fn(zz, cb_unpack, a);
  return zz;
}

int grid_partition(struct Zoltan_Struct *zz)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg,
                               &el, &ep, &epa);
  if (rc == ZOLTAN_OK || rc == ZOLTAN_WARN) {
    Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
    Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  }
  return rc;
}

int grid_parts_of(struct Zoltan_Struct *zz, const grid_app *a, int *part)
{
  int changes, ngid, nlid, nimp, nexp, *ip, *ipa, *ep, *epa;
  ZOLTAN_ID_PTR ig, il, eg, el;
  int rc;
  Zoltan_Set_Param(zz, "RETURN_LISTS", "PARTS");
  rc = Zoltan_LB_Partition(zz, &changes, &ngid, &nlid, &nimp, &ig, &il, &ip, &ipa, &nexp, &eg, &el,
                           &ep, &epa);
  if (rc != ZOLTAN_OK) return rc;
  for (int i = 0; i < a->n; i++) part[i] = -1;
  for (int k = 0; k < nexp; k++) part[el[k]] = epa[k];
  Zoltan_LB_Free_Part(&ig, &il, &ip, &ipa);
  Zoltan_LB_Free_Part(&eg, &el, &ep, &epa);
  return rc;
}

void grid_check_conservation(const grid_app *a, int total, double total_w)
{
  long n = a->n, all_n = 0;
  double s[3] = {0, 0, 0}, all[3];
  double M = (double)total;
  for (int i = 0; i < a->n; i++) {
    double g = (double)a->o[i].gid;
    s[0] += g;
    s[1] += g * g;
    s[2] += a->o[i].w;
  }
  MPI_Allreduce(&n, &all_n, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(s, all, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  GRID_CHECK(all_n == (long)M, "object count %ld, expected %.0f", all_n, M);
  /* Sum and sum of squares of 1..M identify the set when the count is right
   * and no GID is outside 1..M (a duplicate must then miss another GID). */
  GRID_CHECK(all[0] == M * (M + 1) / 2, "GID sum %.0f, expected %.0f", all[0], M * (M + 1) / 2);
  GRID_CHECK(all[1] == M * (M + 1) * (2 * M + 1) / 6, "GID square sum differs");
  GRID_CHECK(fabs(all[2] - total_w) <= 1e-9 * (total_w > 0 ? total_w : 1.0),
             "total weight %g, expected %g", all[2], total_w);
  for (int i = 0; i < a->n; i++)
    GRID_CHECK(a->o[i].gid >= 1 && a->o[i].gid <= (ZOLTAN_ID_TYPE)total, "GID %u out of range",
               (unsigned)a->o[i].gid);
}

int capture_begin(grid_capture *c, int fd)
{
  fflush(fd == 1 ? stdout : stderr);
  c->fd = fd;
  c->f = tmpfile();
  if (c->f == NULL) return -1;
  c->saved = dup(fd);
  dup2(fileno(c->f), fd);
  return 0;
}

char *capture_end(grid_capture *c)
{
  long len;
  char *text;
  fflush(c->fd == 1 ? stdout : stderr);
  dup2(c->saved, c->fd);
  close(c->saved);
  fseek(c->f, 0, SEEK_END);
  len = ftell(c->f);
  rewind(c->f);
  text = malloc((size_t)(len > 0 ? len : 0) + 1);
  if (text != NULL) {
    size_t k = fread(text, 1, (size_t)(len > 0 ? len : 0), c->f);
    text[k] = '\0';
    fputs(text, c->fd == 1 ? stdout : stderr);
    fflush(c->fd == 1 ? stdout : stderr);
  }
  fclose(c->f);
  return text;
}
