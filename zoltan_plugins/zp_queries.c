/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zoltan's point and box queries in front of Zoltan: under a plugin method
 * they answer from the cuts a geometric base method kept (renumbered by the
 * method's part map), or refuse with a message when there are none; native
 * methods reach Zoltan unchanged.  Split from zp_interpose.c, whose entry
 * point conventions (ZP_ENTRY, the static --wrap build) they share.
 */
#include <stdlib.h>
#include <string.h>

#include "zp_entry.h"

/* The public signatures, declared again for the entry names. */
ZP_API int ZP_ENTRY(Zoltan_LB_Point_Assign)(ZZ *zz, double *coords, int *proc);
ZP_API int ZP_ENTRY(Zoltan_LB_Point_PP_Assign)(ZZ *zz, double *coords, int *proc, int *part);
ZP_API int ZP_ENTRY(Zoltan_LB_Box_Assign)(ZZ *zz, double xmin, double ymin, double zmin,
                                          double xmax, double ymax, double zmax, int *procs,
                                          int *numprocs);
ZP_API int ZP_ENTRY(Zoltan_LB_Box_PP_Assign)(ZZ *zz, double xmin, double ymin, double zmin,
                                             double xmax, double ymax, double zmax, int *procs,
                                             int *numprocs, int *parts, int *numparts);
ZP_API int ZP_ENTRY(Zoltan_RCB_Box)(ZZ *zz, int part, int *ndim, double *xmin, double *ymin,
                                    double *zmin, double *xmax, double *ymax, double *zmax);

/* ---- geometric queries -------------------------------------------------- */

/*
 * Native methods answer from their own cuts.  Our methods keep none, but one
 * that partitions through RCB, RIB or HSFC may hand the layer a struct that
 * kept the base method's cuts and the map from the base method's parts to
 * its own (zp_set_geometry); the queries then answer from that struct and
 * renumber.  Otherwise they are refused clearly, instead of letting Zoltan
 * answer from the cuts of an earlier native method.
 */

/* Zoltan maps parts to ranks with these two functions in its own point and
 * box queries.  libzoltan exports them but no installed header declares
 * them (as for Zoltan_Hash); using them gives the ranks Zoltan would give. */
extern int Zoltan_LB_Part_To_Proc(ZZ *zz, int part, ZOLTAN_ID_PTR gid);
extern int Zoltan_LB_Proc_To_Part(ZZ *zz, int proc, int *nparts, int *fpart);

/* The struct the queries of zz go to, and in *g the geometry to renumber
 * with (NULL: answer natively); NULL (with a message) when there is none. */
static ZZ *zp_query_target(ZZ *zz, const char *yo, const zp_geometry **g)
{
  const zp_record *r = zp_record_find(zz);
  *g = NULL;
  if (r == NULL || r->method == NULL) return zz;
  if (r->geometry.cuts != NULL && r->geometry_method == r->method) {
    *g = &r->geometry;
    return r->geometry.cuts;
  }
  zp_error(yo,
           "LB_METHOD %s keeps no geometric decomposition to answer from; point and box "
           "queries need RCB, RIB or HSFC with KEEP_CUTS=1, selected or run underneath "
           "by a plugin method that keeps their cuts",
           r->method->name);
  return NULL;
}

/* The part the method gave to what the base method put in part q. */
static int zp_mapped_part(const zp_geometry *g, int q, const char *yo)
{
  if (q < 0 || q >= g->num_parts) {
    zp_error(yo, "the base method's cuts answered part %d, outside [0, %d)", q, g->num_parts);
    return -1;
  }
  return g->part_map[q];
}

/* Renumber a list of the base method's parts, and replace procs (when not
 * NULL) by the ranks, among nproc, that hold the renumbered parts, in
 * increasing order. */
static int zp_map_parts(const zp_geometry *g, const char *yo, int *parts, int nparts, int nproc,
                        int *procs, int *nprocs)
{
  int i, k, ierr = ZOLTAN_OK;
  char *mark = calloc((size_t)g->num_parts + 1, 1);
  if (mark == NULL) return ZOLTAN_MEMERR;
  for (i = 0; i < nparts; i++) {
    parts[i] = zp_mapped_part(g, parts[i], yo);
    if (parts[i] < 0) {
      ierr = ZOLTAN_FATAL;
      goto end;
    }
    mark[parts[i]] = 1;
  }
  if (procs != NULL) {
    *nprocs = 0;
    for (k = 0; k < nproc; k++) {
      int np = 0, fp = -1, hit = 0;
      if (Zoltan_LB_Proc_To_Part(g->cuts, k, &np, &fp) != ZOLTAN_OK) continue;
      for (i = fp; np > 0 && i < fp + np && i < g->num_parts; i++) hit |= mark[i];
      if (hit) procs[(*nprocs)++] = k;
    }
  }
end:
  free(mark);
  return ierr;
}

int ZP_ENTRY(Zoltan_LB_Point_Assign)(ZZ *zz, double *coords, int *proc)
{
  static const char *yo = "Zoltan_LB_Point_Assign";
  const zp_geometry *g;
  ZZ *target = zp_query_target(zz, yo, &g);
  int ierr, p;
  if (target == NULL) return ZOLTAN_FATAL;
  ierr = zp_real_point_assign(target, coords, proc);
  /* Zoltan refuses this query unless each rank holds exactly the part of
   * its own number, so the base method's rank is its part. */
  if (g == NULL || (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN)) return ierr;
  p = zp_mapped_part(g, *proc, yo);
  if (p < 0) return ZOLTAN_FATAL;
  *proc = Zoltan_LB_Part_To_Proc(target, p, NULL);
  return ierr;
}

int ZP_ENTRY(Zoltan_LB_Point_PP_Assign)(ZZ *zz, double *coords, int *proc, int *part)
{
  static const char *yo = "Zoltan_LB_Point_PP_Assign";
  const zp_geometry *g;
  ZZ *target = zp_query_target(zz, yo, &g);
  int ierr, q = -1, qproc = -1, p;
  if (target == NULL) return ZOLTAN_FATAL;
  if (g == NULL) return zp_real_point_pp_assign(target, coords, proc, part);
  ierr = zp_real_point_pp_assign(target, coords, &qproc, &q);
  if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) return ierr;
  p = zp_mapped_part(g, q, yo);
  if (p < 0) return ZOLTAN_FATAL;
  if (part != NULL) *part = p;
  if (proc != NULL) *proc = Zoltan_LB_Part_To_Proc(target, p, NULL);
  return ierr;
}

int ZP_ENTRY(Zoltan_LB_Box_Assign)(ZZ *zz, double xmin, double ymin, double zmin, double xmax,
                                   double ymax, double zmax, int *procs, int *numprocs)
{
  static const char *yo = "Zoltan_LB_Box_Assign";
  const zp_geometry *g;
  ZZ *target = zp_query_target(zz, yo, &g);
  const double lo[3] = {xmin, ymin, zmin}, hi[3] = {xmax, ymax, zmax};
  int ierr;
  if (target == NULL) return ZOLTAN_FATAL;
  ierr = zp_real_box_assign(target, lo, hi, procs, numprocs);
  /* As for Zoltan_LB_Point_Assign, the ranks Zoltan lists are the base
   * method's parts. */
  if (g == NULL || (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN)) return ierr;
  {
    int e2 = zp_map_parts(g, yo, procs, *numprocs, 0, NULL, NULL);
    return e2 != ZOLTAN_OK ? e2 : ierr;
  }
}

int ZP_ENTRY(Zoltan_LB_Box_PP_Assign)(ZZ *zz, double xmin, double ymin, double zmin, double xmax,
                                      double ymax, double zmax, int *procs, int *numprocs,
                                      int *parts, int *numparts)
{
  static const char *yo = "Zoltan_LB_Box_PP_Assign";
  const zp_geometry *g;
  ZZ *target = zp_query_target(zz, yo, &g);
  const double lo[3] = {xmin, ymin, zmin}, hi[3] = {xmax, ymax, zmax};
  int ierr, nq = 0, nbase = 0, *q;
  if (target == NULL) return ZOLTAN_FATAL;
  if (g == NULL) return zp_real_box_pp_assign(target, lo, hi, procs, numprocs, parts, numparts);
  /* The ranks follow from the renumbered parts, so ask for the parts even
   * when the caller wants only the ranks. */
  q = malloc((size_t)g->num_parts * sizeof *q);
  if (q == NULL) return ZOLTAN_MEMERR;
  ierr = zp_real_box_pp_assign(target, lo, hi, NULL, &nbase, q, &nq);
  if (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN) {
    int e2 = zp_map_parts(g, yo, q, nq, zp_record_find(zz)->size, procs, numprocs);
    if (e2 == ZOLTAN_OK && parts != NULL) memcpy(parts, q, (size_t)nq * sizeof *q);
    if (e2 == ZOLTAN_OK && numparts != NULL) *numparts = nq;
    if (e2 != ZOLTAN_OK) ierr = e2;
  }
  free(q);
  return ierr;
}

int ZP_ENTRY(Zoltan_RCB_Box)(ZZ *zz, int part, int *ndim, double *xmin, double *ymin, double *zmin,
                             double *xmax, double *ymax, double *zmax)
{
  static const char *yo = "Zoltan_RCB_Box";
  const zp_geometry *g;
  ZZ *target = zp_query_target(zz, yo, &g);
  int q;
  if (target == NULL) return ZOLTAN_FATAL;
  /* The box of our part is the box of the base part mapped onto it. */
  for (q = 0; g != NULL && q < g->num_parts && g->part_map[q] != part; q++)
    ;
  if (g != NULL && q == g->num_parts) {
    zp_error(yo, "part %d is outside [0, %d)", part, g->num_parts);
    return ZOLTAN_FATAL;
  }
  return zp_real_rcb_box(target, g != NULL ? q : part, ndim, xmin, ymin, zmin, xmax, ymax, zmax);
}

int zp_geometry_wanted(ZZ *zz)
{
  const zp_record *r = zp_record_find(zz);
  return r != NULL && zp_record_native_int(r, "KEEP_CUTS", 0) != 0;
}

int zp_set_geometry(ZZ *zz, const zp_geometry *geometry)
{
  static const char *yo = "zp_set_geometry";
  zp_record *r = zp_record_find(zz);
  char *seen;
  int q, ok = 1;
  if (r == NULL || r->method == NULL || geometry == NULL || geometry->cuts == NULL ||
      geometry->part_map == NULL || geometry->num_parts < 1) {
    zp_error(yo, "needs a struct of the layer with a plugin method selected, and cuts with a "
                 "part map of at least one part");
    return ZOLTAN_FATAL;
  }
  seen = calloc((size_t)geometry->num_parts, 1);
  if (seen == NULL) return ZOLTAN_MEMERR;
  for (q = 0; q < geometry->num_parts && ok; q++) {
    int p = geometry->part_map[q];
    ok = p >= 0 && p < geometry->num_parts && !seen[p];
    if (ok) seen[p] = 1;
  }
  free(seen);
  if (!ok) {
    zp_error(yo, "the part map of %s is not a permutation of 0..%d", r->method->name,
             geometry->num_parts - 1);
    return ZOLTAN_FATAL;
  }
  r->geometry = *geometry;
  r->geometry_method = r->method;
  return ZOLTAN_OK;
}

int zp_clear_geometry(ZZ *zz, const ZZ *cuts)
{
  zp_record *r = zp_record_find(zz);
  if (r == NULL || r->geometry.cuts == NULL || (cuts != NULL && r->geometry.cuts != cuts))
    return ZOLTAN_WARN;
  memset(&r->geometry, 0, sizeof r->geometry);
  r->geometry_method = NULL;
  return ZOLTAN_OK;
}
