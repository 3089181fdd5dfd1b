/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The real Zoltan entry points behind the ones the layer stands in front
 * of.  Both the interposed entry points (zp_interpose.c) and the partition
 * path (native base methods, parameter restores) call Zoltan through these
 * functions, so neither depends on the other to reach Zoltan.
 *
 * Shared build: the next definition after ours, found with
 * dlsym(RTLD_NEXT).  Static build (ZP_STATIC_WRAP): __real_X, which the
 * linker provides for -Wl,--wrap=X.
 */
#ifndef ZP_STATIC_WRAP
#define _GNU_SOURCE 1
#include <dlfcn.h>
#endif

#include "zp_internal.h"

typedef struct Zoltan_Struct ZZ;

typedef ZZ *create_fn(MPI_Comm);
typedef void destroy_fn(ZZ **);
typedef ZZ *copy_fn(ZZ const *);
typedef int copy_to_fn(ZZ *, ZZ const *);
typedef int set_param_vec_fn(ZZ *, const char *, const char *, int);
typedef int set_part_sizes_fn(ZZ *, int, int, int *, int *, float *);
typedef int partition_fn(ZZ *, int *, int *, int *, int *, ZOLTAN_ID_PTR *, ZOLTAN_ID_PTR *, int **,
                         int **, int *, ZOLTAN_ID_PTR *, ZOLTAN_ID_PTR *, int **, int **);
typedef int balance_fn(ZZ *, int *, int *, int *, int *, ZOLTAN_ID_PTR *, ZOLTAN_ID_PTR *, int **,
                       int *, ZOLTAN_ID_PTR *, ZOLTAN_ID_PTR *, int **);
typedef int point_fn(ZZ *, double *, int *);
typedef int point_pp_fn(ZZ *, double *, int *, int *);
typedef int box_fn(ZZ *, double, double, double, double, double, double, int *, int *);
typedef int box_pp_fn(ZZ *, double, double, double, double, double, double, int *, int *, int *,
                      int *);
typedef int rcb_box_fn(ZZ *, int, int *, double *, double *, double *, double *, double *,
                       double *);
typedef size_t ser_size_fn(ZZ const *);
typedef int ser_fn(ZZ const *, size_t, char *);
typedef int deser_fn(ZZ *, size_t, char *);
typedef int migrate_fn(ZZ *, int, ZOLTAN_ID_PTR, ZOLTAN_ID_PTR, int *, int *, int, ZOLTAN_ID_PTR,
                       ZOLTAN_ID_PTR, int *, int *);

#ifdef ZP_STATIC_WRAP
#define ZP_REAL(type, name) (&__real_##name)
extern create_fn __real_Zoltan_Create;
extern destroy_fn __real_Zoltan_Destroy;
extern copy_fn __real_Zoltan_Copy;
extern copy_to_fn __real_Zoltan_Copy_To;
extern set_param_vec_fn __real_Zoltan_Set_Param_Vec;
extern set_part_sizes_fn __real_Zoltan_LB_Set_Part_Sizes;
extern partition_fn __real_Zoltan_LB_Partition;
extern balance_fn __real_Zoltan_LB_Balance;
extern point_fn __real_Zoltan_LB_Point_Assign;
extern point_pp_fn __real_Zoltan_LB_Point_PP_Assign;
extern box_fn __real_Zoltan_LB_Box_Assign;
extern box_pp_fn __real_Zoltan_LB_Box_PP_Assign;
extern rcb_box_fn __real_Zoltan_RCB_Box;
extern ser_size_fn __real_Zoltan_Serialize_Size;
extern ser_fn __real_Zoltan_Serialize;
extern deser_fn __real_Zoltan_Deserialize;
extern migrate_fn __real_Zoltan_Migrate;
#else
#define ZP_REAL(type, name) ((type *)zp_real_symbol(#name))

/* The next definition of a Zoltan symbol after ours.  dlsym is cheap after
 * the first call, but balancing calls are rare enough that caching would
 * only add state; Set_Param is the frequent one and it is cheap as well. */
static void *zp_real_symbol(const char *name)
{
  void *p = dlsym(RTLD_NEXT, name);
  if (p == NULL)
    zp_error("zoltan_plugins",
             "cannot find the real %s (is Zoltan linked after libzoltan_plugins?)", name);
  return p;
}
#endif

ZZ *zp_real_create(MPI_Comm comm)
{
  create_fn *f = ZP_REAL(create_fn, Zoltan_Create);
  return f ? f(comm) : NULL;
}

void zp_real_destroy(ZZ **zz)
{
  destroy_fn *f = ZP_REAL(destroy_fn, Zoltan_Destroy);
  if (f) f(zz);
}

ZZ *zp_real_copy(ZZ const *from)
{
  copy_fn *f = ZP_REAL(copy_fn, Zoltan_Copy);
  return f ? f(from) : NULL;
}

int zp_real_copy_to(ZZ *to, ZZ const *from)
{
  copy_to_fn *f = ZP_REAL(copy_to_fn, Zoltan_Copy_To);
  return f ? f(to, from) : ZOLTAN_FATAL;
}

int zp_real_set_param_vec(ZZ *zz, const char *name, const char *val, int index)
{
  set_param_vec_fn *f = ZP_REAL(set_param_vec_fn, Zoltan_Set_Param_Vec);
  return f ? f(zz, name, val, index) : ZOLTAN_FATAL;
}

int zp_real_set_part_sizes(ZZ *zz, int global_num, int len, int *part_ids, int *wgt_idx,
                           float *sizes)
{
  set_part_sizes_fn *f = ZP_REAL(set_part_sizes_fn, Zoltan_LB_Set_Part_Sizes);
  return f ? f(zz, global_num, len, part_ids, wgt_idx, sizes) : ZOLTAN_FATAL;
}

int zp_real_lb_partition(ZZ *zz, zp_lb_args *a)
{
  partition_fn *f = ZP_REAL(partition_fn, Zoltan_LB_Partition);
  if (f == NULL) return ZOLTAN_FATAL;
  return f(zz, a->changes, a->num_gid_entries, a->num_lid_entries, a->num_import, a->import_gids,
           a->import_lids, a->import_procs, a->import_to_part, a->num_export, a->export_gids,
           a->export_lids, a->export_procs, a->export_to_part);
}

int zp_real_lb_balance(ZZ *zz, zp_lb_args *a)
{
  balance_fn *f = ZP_REAL(balance_fn, Zoltan_LB_Balance);
  if (f == NULL) return ZOLTAN_FATAL;
  return f(zz, a->changes, a->num_gid_entries, a->num_lid_entries, a->num_import, a->import_gids,
           a->import_lids, a->import_procs, a->num_export, a->export_gids, a->export_lids,
           a->export_procs);
}

int zp_real_point_assign(ZZ *zz, double *coords, int *proc)
{
  point_fn *f = ZP_REAL(point_fn, Zoltan_LB_Point_Assign);
  return f ? f(zz, coords, proc) : ZOLTAN_FATAL;
}

int zp_real_point_pp_assign(ZZ *zz, double *coords, int *proc, int *part)
{
  point_pp_fn *f = ZP_REAL(point_pp_fn, Zoltan_LB_Point_PP_Assign);
  return f ? f(zz, coords, proc, part) : ZOLTAN_FATAL;
}

int zp_real_box_assign(ZZ *zz, const double lo[3], const double hi[3], int *procs, int *numprocs)
{
  box_fn *f = ZP_REAL(box_fn, Zoltan_LB_Box_Assign);
  return f ? f(zz, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], procs, numprocs) : ZOLTAN_FATAL;
}

int zp_real_box_pp_assign(ZZ *zz, const double lo[3], const double hi[3], int *procs, int *numprocs,
                          int *parts, int *numparts)
{
  box_pp_fn *f = ZP_REAL(box_pp_fn, Zoltan_LB_Box_PP_Assign);
  return f ? f(zz, lo[0], lo[1], lo[2], hi[0], hi[1], hi[2], procs, numprocs, parts, numparts)
           : ZOLTAN_FATAL;
}

int zp_real_rcb_box(ZZ *zz, int part, int *ndim, double *xmin, double *ymin, double *zmin,
                    double *xmax, double *ymax, double *zmax)
{
  rcb_box_fn *f = ZP_REAL(rcb_box_fn, Zoltan_RCB_Box);
  return f ? f(zz, part, ndim, xmin, ymin, zmin, xmax, ymax, zmax) : ZOLTAN_FATAL;
}

size_t zp_real_serialize_size(ZZ const *zz)
{
  ser_size_fn *f = ZP_REAL(ser_size_fn, Zoltan_Serialize_Size);
  return f ? f(zz) : 0;
}

int zp_real_serialize(ZZ const *zz, size_t bufsize, char *buf)
{
  ser_fn *f = ZP_REAL(ser_fn, Zoltan_Serialize);
  return f ? f(zz, bufsize, buf) : ZOLTAN_FATAL;
}

int zp_real_deserialize(ZZ *zz, size_t bufsize, char *buf)
{
  deser_fn *f = ZP_REAL(deser_fn, Zoltan_Deserialize);
  return f ? f(zz, bufsize, buf) : ZOLTAN_FATAL;
}

int zp_real_migrate(ZZ *zz, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip, int *ipa,
                    int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep, int *epa)
{
  migrate_fn *f = ZP_REAL(migrate_fn, Zoltan_Migrate);
  return f ? f(zz, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa) : ZOLTAN_FATAL;
}
