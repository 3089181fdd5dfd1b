/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The entry points of Zoltan that the layer stands in front of.
 *
 * Shared build: these functions carry Zoltan's own names and are exported,
 * so an application linked with -lzoltan_plugins ahead of Zoltan, or started
 * with LD_PRELOAD=libzoltan_plugins.so, calls them first.  Zoltan calls its
 * own entry points through the PLT too (HIER, Zoltan_Copy, parameter
 * filtering), so every function here must be re-entrant.
 *
 * Static build (ZP_STATIC_WRAP): the same functions are named __wrap_X, for
 * a link with -Wl,--wrap=X.  Either way the real ones are reached through
 * zp_real.c.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#ifdef ZP_STATIC_WRAP
#define ZP_ENTRY(name) __wrap_##name
#else
#define ZP_ENTRY(name) name
#endif
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"

typedef struct Zoltan_Struct ZZ;

/* The public signatures, declared again for the entry names. */
ZP_API ZZ *ZP_ENTRY(Zoltan_Create)(MPI_Comm communicator);
ZP_API void ZP_ENTRY(Zoltan_Destroy)(ZZ **zz);
ZP_API ZZ *ZP_ENTRY(Zoltan_Copy)(ZZ const *from);
ZP_API int ZP_ENTRY(Zoltan_Copy_To)(ZZ *to, ZZ const *from);
ZP_API int ZP_ENTRY(Zoltan_Set_Param)(ZZ *zz, const char *name, const char *val);
ZP_API int ZP_ENTRY(Zoltan_Set_Param_Vec)(ZZ *zz, const char *name, const char *val, int index);
ZP_API int ZP_ENTRY(Zoltan_LB_Set_Part_Sizes)(ZZ *zz, int global_num, int len, int *part_ids,
                                              int *wgt_idx, float *part_sizes);
ZP_API int ZP_ENTRY(Zoltan_LB_Partition)(
    ZZ *zz, int *changes, int *num_gid_entries, int *num_lid_entries, int *num_import,
    ZOLTAN_ID_PTR *import_global_ids, ZOLTAN_ID_PTR *import_local_ids, int **import_procs,
    int **import_to_part, int *num_export, ZOLTAN_ID_PTR *export_global_ids,
    ZOLTAN_ID_PTR *export_local_ids, int **export_procs, int **export_to_part);
ZP_API int ZP_ENTRY(Zoltan_LB_Balance)(ZZ *zz, int *changes, int *num_gid_entries,
                                       int *num_lid_entries, int *num_import,
                                       ZOLTAN_ID_PTR *import_global_ids,
                                       ZOLTAN_ID_PTR *import_local_ids, int **import_procs,
                                       int *num_export, ZOLTAN_ID_PTR *export_global_ids,
                                       ZOLTAN_ID_PTR *export_local_ids, int **export_procs);
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
ZP_API size_t ZP_ENTRY(Zoltan_Serialize_Size)(ZZ const *zz);
ZP_API int ZP_ENTRY(Zoltan_Serialize)(ZZ const *zz, size_t bufsize, char *buf);
ZP_API int ZP_ENTRY(Zoltan_Deserialize)(ZZ *zz, size_t bufsize, char *buf);

/* ---- environment overrides --------------------------------------------- */

/*
 * ZOLTAN_PLUGINS_LB_METHOD replaces every LB_METHOD the application sets
 * (and the default one), and ZOLTAN_PLUGINS_PARAMS ("NAME=VALUE,NAME=VALUE")
 * is applied to every new struct, so that an unmodified binary that
 * hard-codes LB_METHOD=RCB can be run with our methods under LD_PRELOAD.
 */
static const char *zp_env_method(void)
{
  const char *v = getenv("ZOLTAN_PLUGINS_LB_METHOD");
  return (v != NULL && v[0] != '\0') ? v : NULL;
}

static void zp_apply_env(ZZ *zz)
{
  const char *m = zp_env_method(), *p = getenv("ZOLTAN_PLUGINS_PARAMS");
  if (p != NULL && p[0] != '\0') {
    char *copy = malloc(strlen(p) + 1), *item, *save = NULL;
    if (copy != NULL) {
      strcpy(copy, p);
      for (item = strtok_r(copy, ",", &save); item != NULL; item = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(item, '=');
        if (eq == NULL) {
          zp_warn("ZOLTAN_PLUGINS_PARAMS", "'%s' is not NAME=VALUE; ignored", item);
          continue;
        }
        *eq = '\0';
        ZP_ENTRY(Zoltan_Set_Param_Vec)(zz, item, eq + 1, -1);
      }
      free(copy);
    }
  }
  if (m != NULL) ZP_ENTRY(Zoltan_Set_Param_Vec)(zz, "LB_METHOD", m, -1);
}

/* ---- creation, copies, destruction ------------------------------------- */

ZZ *ZP_ENTRY(Zoltan_Create)(MPI_Comm communicator)
{
  ZZ *zz;
  zp_builtin_init();
  zz = zp_real_create(communicator);
  if (zz != NULL && zp_record_add(zz, communicator) == NULL) {
    /* Without a record our methods cannot work on this struct; native
     * methods still would, but a half-working struct hides the problem. */
    zp_error("Zoltan_Create", "out of memory for the plugin record");
    zp_real_destroy(&zz);
    return NULL;
  }
  if (zz != NULL) zp_apply_env(zz);
  return zz;
}

void ZP_ENTRY(Zoltan_Destroy)(ZZ **zz)
{
  ZZ *key = zz ? *zz : NULL;
  zp_real_destroy(zz);
  if (key) zp_record_remove(key);
}

/* After Zoltan copied from into to, copy our record the same way. */
static int zp_after_copy(ZZ *to, ZZ const *from)
{
  zp_record *fr = zp_record_find(from), *tr = zp_record_find(to);
  if (fr == NULL) {
    if (tr) {
      /* The source is unknown to the layer, so it used native methods only. */
      tr->method = NULL;
    }
    return ZOLTAN_OK;
  }
  if (tr == NULL && (tr = zp_record_add(to, fr->comm)) == NULL) return ZOLTAN_MEMERR;
  return zp_record_copy(tr, fr);
}

ZZ *ZP_ENTRY(Zoltan_Copy)(ZZ const *from)
{
  ZZ *to;
  /* In a shared build Zoltan_Copy calls our Zoltan_Create and Zoltan_Copy_To
   * itself; copying once more here is harmless and covers static links,
   * where those inner calls are not wrapped. */
  to = zp_real_copy(from);
  if (to != NULL && zp_after_copy(to, from) != ZOLTAN_OK) {
    zp_error("Zoltan_Copy", "could not copy the plugin record");
    ZP_ENTRY(Zoltan_Destroy)(&to);
  }
  return to;
}

int ZP_ENTRY(Zoltan_Copy_To)(ZZ *to, ZZ const *from)
{
  int ierr = zp_real_copy_to(to, from);
  if (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN) {
    int e2 = zp_after_copy(to, from);
    if (e2 != ZOLTAN_OK) {
      zp_error("Zoltan_Copy_To", "could not copy the plugin record");
      ierr = e2;
    }
  }
  return ierr;
}

/* ---- parameters --------------------------------------------------------- */

int ZP_ENTRY(Zoltan_Set_Param)(ZZ *zz, const char *name, const char *val)
{
  /* Zoltan's own Zoltan_Set_Param calls Zoltan_Set_Param_Vec through the PLT,
   * which would bring it back here; going straight to the vector form keeps
   * one path for every parameter. */
  return ZP_ENTRY(Zoltan_Set_Param_Vec)(zz, name, val, -1);
}

int ZP_ENTRY(Zoltan_Set_Param_Vec)(ZZ *zz, const char *name, const char *val, int index)
{
  static const char *yo = "Zoltan_Set_Param";
  char cname[ZP_NAME_MAX], cval[ZP_VALUE_MAX], msg[512];
  zp_record *r;
  zp_param_ref ref;
  int ierr;

  zp_builtin_init();
  r = zp_record_find(zz);
  if (r == NULL || name == NULL || val == NULL || zp_clean_string(name, cname, sizeof cname) != 0 ||
      zp_clean_string(val, cval, sizeof cval) != 0)
    return zp_real_set_param_vec(zz, name, val, index);

  if (strcmp(cname, "LB_METHOD") == 0) {
    const zp_method *m;
    const char *forced = zp_env_method();
    if (forced != NULL && zp_clean_string(forced, cval, sizeof cval) != 0) forced = NULL;
    if (forced != NULL) val = forced;
    m = zp_find_method(cval);
    if (m != NULL) {
      if (r->state_owner != NULL && r->state_owner != m && r->state != NULL) {
        r->state_owner->destroy(r->state);
        r->state = NULL;
        r->state_owner = NULL;
      }
      /* Zoltan initialises parts of its struct only when LB_METHOD is set
       * (Zoltan_Serialize copies them); give it its own default once, so
       * that a struct that only ever used our methods is complete. */
      if (zp_record_native_get(r, "LB_METHOD", -1) == NULL)
        zp_real_set_param_vec(zz, "LB_METHOD", "RCB", -1);
      r->method = m;
      return ZOLTAN_OK;
    }
    ierr = zp_real_set_param_vec(zz, name, val, index);
    if (ierr == ZOLTAN_OK) {
      r->method = NULL;
      zp_record_native(r, cname, index, cval);
    }
    return ierr;
  }

  if (zp_find_param(cname, &ref)) {
    if (index != -1) {
      zp_error(yo, "%s: %s is not a vector parameter (index %d given)", ref.method->name, cname,
               index);
      return ZOLTAN_FATAL;
    }
    if (strcmp(cval, "DEFAULT") == 0) return zp_params_set(r->params, cname, NULL);
    if (zp_check_value(ref.def, cval, msg, sizeof msg) != ZOLTAN_OK) {
      zp_error(yo, "%s: %s", ref.method->name, msg);
      return ZOLTAN_FATAL;
    }
    return zp_params_set(r->params, cname, cval);
  }

  ierr = zp_real_set_param_vec(zz, name, val, index);
  if (ierr == ZOLTAN_OK) {
    int e2 = zp_record_native(r, cname, index, cval);
    if (e2 != ZOLTAN_OK) ierr = e2;
  }
  return ierr;
}

int ZP_ENTRY(Zoltan_LB_Set_Part_Sizes)(ZZ *zz, int global_num, int len, int *part_ids, int *wgt_idx,
                                       float *part_sizes)
{
  zp_record *r = zp_record_find(zz);
  int ierr = zp_real_set_part_sizes(zz, global_num, len, part_ids, wgt_idx, part_sizes);
  if (r != NULL && (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN)) {
    int e2 = zp_record_part_sizes(r, global_num, len, part_ids, wgt_idx, part_sizes);
    if (e2 != ZOLTAN_OK) ierr = e2;
  }
  return ierr;
}

/* ---- balancing ---------------------------------------------------------- */

static void zp_notify(zp_record *r, double seconds, int ierr)
{
  if (r != NULL && r->busy == 0 && r->observer.after_balance != NULL)
    r->observer.after_balance(r->observer.arg, seconds, ierr);
}

int ZP_ENTRY(Zoltan_LB_Partition)(ZZ *zz, int *changes, int *num_gid_entries, int *num_lid_entries,
                                  int *num_import, ZOLTAN_ID_PTR *import_global_ids,
                                  ZOLTAN_ID_PTR *import_local_ids, int **import_procs,
                                  int **import_to_part, int *num_export,
                                  ZOLTAN_ID_PTR *export_global_ids, ZOLTAN_ID_PTR *export_local_ids,
                                  int **export_procs, int **export_to_part)
{
  zp_record *r = zp_record_find(zz);
  zp_lb_args a = {changes,          num_gid_entries, num_lid_entries, num_import, import_global_ids,
                  import_local_ids, import_procs,    import_to_part,  num_export, export_global_ids,
                  export_local_ids, export_procs,    export_to_part};
  double t0 = MPI_Wtime();
  int ierr;
  if (r != NULL && r->method != NULL && r->busy == 0) {
    r->busy++;
    ierr = zp_partition(r, 0, &a);
    r->busy--;
  } else {
    if (r) r->busy++;
    ierr = zp_real_lb_partition(zz, &a);
    if (r) r->busy--;
  }
  zp_notify(r, MPI_Wtime() - t0, ierr);
  return ierr;
}

int ZP_ENTRY(Zoltan_LB_Balance)(ZZ *zz, int *changes, int *num_gid_entries, int *num_lid_entries,
                                int *num_import, ZOLTAN_ID_PTR *import_global_ids,
                                ZOLTAN_ID_PTR *import_local_ids, int **import_procs,
                                int *num_export, ZOLTAN_ID_PTR *export_global_ids,
                                ZOLTAN_ID_PTR *export_local_ids, int **export_procs)
{
  zp_record *r = zp_record_find(zz);
  double t0 = MPI_Wtime();
  int ierr;
  if (r != NULL && r->method != NULL && r->busy == 0) {
    int *import_to_part = NULL, *export_to_part = NULL;
    zp_lb_args a = {changes,           num_gid_entries,   num_lid_entries,  num_import,
                    import_global_ids, import_local_ids,  import_procs,     &import_to_part,
                    num_export,        export_global_ids, export_local_ids, export_procs,
                    &export_to_part};
    r->busy++;
    ierr = zp_partition(r, 1, &a);
    r->busy--;
    /* Zoltan_LB_Balance returns no part arrays: free them as Zoltan does. */
    Zoltan_Free((void **)&import_to_part, __FILE__, __LINE__);
    Zoltan_Free((void **)&export_to_part, __FILE__, __LINE__);
  } else {
    zp_lb_args a = {changes,
                    num_gid_entries,
                    num_lid_entries,
                    num_import,
                    import_global_ids,
                    import_local_ids,
                    import_procs,
                    NULL,
                    num_export,
                    export_global_ids,
                    export_local_ids,
                    export_procs,
                    NULL};
    if (r) r->busy++;
    ierr = zp_real_lb_balance(zz, &a);
    if (r) r->busy--;
  }
  zp_notify(r, MPI_Wtime() - t0, ierr);
  return ierr;
}

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

/* ---- serialisation ------------------------------------------------------ */

/* Our data follows Zoltan's bytes: payload, its length (8 bytes), magic. */
static const char zp_magic[8] = {'Z', 'P', 'L', 'U', 'G', 'I', 'N', '1'};
#define ZP_TRAILER 16u

size_t ZP_ENTRY(Zoltan_Serialize_Size)(ZZ const *zz)
{
  zp_record *r = zp_record_find(zz);
  size_t n = zp_real_serialize_size(zz), plen;
  char *payload = NULL;
  if (r == NULL) return n;
  plen = zp_record_payload(r, &payload);
  free(payload);
  return n + plen + ZP_TRAILER;
}

int ZP_ENTRY(Zoltan_Serialize)(ZZ const *zz, size_t bufsize, char *buf)
{
  zp_record *r = zp_record_find(zz);
  size_t n, plen;
  uint64_t len64;
  char *payload = NULL;
  int ierr;
  if (r == NULL) return zp_real_serialize(zz, bufsize, buf);
  n = zp_real_serialize_size(zz);
  plen = zp_record_payload(r, &payload);
  if (payload == NULL) return ZOLTAN_MEMERR;
  if (bufsize < n + plen + ZP_TRAILER) {
    zp_error("Zoltan_Serialize", "buffer of %zu bytes is smaller than Zoltan_Serialize_Size (%zu)",
             bufsize, n + plen + ZP_TRAILER);
    free(payload);
    return ZOLTAN_FATAL;
  }
  ierr = zp_real_serialize(zz, n, buf);
  if (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN) {
    len64 = plen;
    memcpy(buf + n, payload, plen);
    memcpy(buf + n + plen, &len64, 8);
    memcpy(buf + n + plen + 8, zp_magic, 8);
  }
  free(payload);
  return ierr;
}

int ZP_ENTRY(Zoltan_Deserialize)(ZZ *zz, size_t bufsize, char *buf)
{
  zp_record *r = zp_record_find(zz);
  uint64_t plen = 0;
  int ierr;
  if (r != NULL && buf != NULL && bufsize >= ZP_TRAILER &&
      memcmp(buf + bufsize - 8, zp_magic, 8) == 0) {
    memcpy(&plen, buf + bufsize - 16, 8);
    if (plen > bufsize - ZP_TRAILER) {
      zp_error("Zoltan_Deserialize",
               "corrupt plugin trailer (payload of %llu bytes in a %zu-byte buffer)",
               (unsigned long long)plen, bufsize);
      return ZOLTAN_FATAL;
    }
    ierr = zp_real_deserialize(zz, bufsize - ZP_TRAILER - (size_t)plen, buf);
    if (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN) {
      int e2 = zp_record_load_payload(r, buf + bufsize - ZP_TRAILER - plen, (size_t)plen);
      if (e2 != ZOLTAN_OK) ierr = e2;
    }
    return ierr;
  }
  ierr = zp_real_deserialize(zz, bufsize, buf);
  if (r != NULL && (ierr == ZOLTAN_OK || ierr == ZOLTAN_WARN)) {
    /* A buffer from a process without the layer: native settings only. */
    r->method = NULL;
  }
  return ierr;
}

/* ---- observers ---------------------------------------------------------- */

int zp_observe(ZZ *zz, const zp_observer *obs)
{
  zp_record *r = zp_record_find(zz);
  if (r == NULL) {
    zp_error("zp_observe", "Zoltan_Struct %p was not created through the plugin layer", (void *)zz);
    return ZOLTAN_FATAL;
  }
  if (obs == NULL)
    memset(&r->observer, 0, sizeof r->observer);
  else
    r->observer = *obs;
  return ZOLTAN_OK;
}

void *zp_observer_of(ZZ *zz, const char *tag)
{
  zp_record *r = zp_record_find(zz);
  if (r == NULL || r->observer.after_balance == NULL || tag == NULL || r->observer.tag == NULL ||
      strcmp(r->observer.tag, tag) != 0)
    return NULL;
  return r->observer.arg;
}
