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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_entry.h"

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
ZP_API size_t ZP_ENTRY(Zoltan_Serialize_Size)(ZZ const *zz);
ZP_API int ZP_ENTRY(Zoltan_Serialize)(ZZ const *zz, size_t bufsize, char *buf);
ZP_API int ZP_ENTRY(Zoltan_Deserialize)(ZZ *zz, size_t bufsize, char *buf);
ZP_API int ZP_ENTRY(Zoltan_Migrate)(ZZ *zz, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip,
                                    int *ipa, int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep,
                                    int *epa);

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

/* ---- knowing which method runs ----------------------------------------- */

/*
 * Zoltan announces every LB_METHOD it accepts at DEBUG_LEVEL >= 1 (its
 * default) on the debug processor.  The layer gives Zoltan its default
 * method (RCB) behind our own, and that announcement would be the only trace
 * of the call and name the method that does *not* run; so Zoltan's is
 * silenced and the layer prints the line for ours, in the same form.
 */
static void zp_native_default_quietly(zp_record *r)
{
  const char *level = zp_record_native_get(r, "DEBUG_LEVEL", -1);
  zp_real_set_param_vec(r->zz, "DEBUG_LEVEL", "0", -1);
  zp_real_set_param_vec(r->zz, "LB_METHOD", "RCB", -1);
  /* Zoltan's default level is 1 (ZOLTAN_DEBUG_PARAMS). */
  zp_real_set_param_vec(r->zz, "DEBUG_LEVEL", level != NULL ? level : "1", -1);
}

static void zp_announce_method(const zp_record *r, const char *name)
{
  if (r->rank == zp_record_native_int(r, "DEBUG_PROCESSOR", 0) &&
      zp_record_native_int(r, "DEBUG_LEVEL", 1) >= 1) {
    printf("ZOLTAN Load balancing method = %s (zoltan_plugins %s)\n", name, zp_version());
    fflush(stdout);
  }
}

/*
 * ZOLTAN_PLUGINS_VERBOSE=1 in the environment: rank 0 of each struct prints
 * one line on stderr when a balance runs a method other than the one it
 * last named (so once per struct in the usual run), whatever DEBUG_LEVEL the
 * application set.  It is the way to know that the library is loaded and
 * which method really ran, ours or Zoltan's.
 */
static void zp_report_method(zp_record *r, const char *entry)
{
  const char *v = getenv("ZOLTAN_PLUGINS_VERBOSE"), *name, *kind;
  if (r == NULL || r->busy != 0 || v == NULL || v[0] == '\0' || strcmp(v, "0") == 0) return;
  if (r->method != NULL) {
    name = r->method->name;
    kind = "zoltan_plugins method";
  } else {
    name = zp_record_native_get(r, "LB_METHOD", -1);
    if (name == NULL) name = "RCB";
    kind = "Zoltan's own method";
  }
  if (strcmp(r->reported, name) == 0) return;
  snprintf(r->reported, sizeof r->reported, "%s", name);
  if (r->rank != 0) return;
  fprintf(stderr, "zoltan_plugins %s: Zoltan struct %u (%d rank%s): %s runs LB_METHOD=%s (%s%s)\n",
          zp_version(), r->serial, r->size, r->size == 1 ? "" : "s", entry, name, kind,
          zp_capacity_active(r) ? ", capacity model on" : "");
  fflush(stderr);
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
      if (zp_record_native_get(r, "LB_METHOD", -1) == NULL) zp_native_default_quietly(r);
      r->method = m;
      zp_announce_method(r, m->name);
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
    /* File paths keep their case (cval fitted, so the trimmed value fits). */
    if (ref.def->flags & ZP_PARAM_KEEP_CASE) zp_trim_string(val, cval, sizeof cval);
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
  zp_report_method(r, "Zoltan_LB_Partition");
  if (r != NULL && r->method != NULL && r->busy == 0) {
    r->busy++;
    ierr = zp_dispatch(r, 0, &a);
    r->busy--;
  } else if (r != NULL && r->busy == 0 && zp_layer_active(r)) {
    r->busy++;
    ierr = zp_layer_native(r, zp_record_native_get(r, "LB_METHOD", -1), 0, &a);
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
  zp_report_method(r, "Zoltan_LB_Balance");
  if (r != NULL && r->method != NULL && r->busy == 0) {
    int *import_to_part = NULL, *export_to_part = NULL;
    zp_lb_args a = {changes,           num_gid_entries,   num_lid_entries,  num_import,
                    import_global_ids, import_local_ids,  import_procs,     &import_to_part,
                    num_export,        export_global_ids, export_local_ids, export_procs,
                    &export_to_part};
    r->busy++;
    ierr = zp_dispatch(r, 1, &a);
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
    ierr = (r != NULL && r->busy == 1 && zp_layer_active(r))
               ? zp_layer_native(r, zp_record_native_get(r, "LB_METHOD", -1), 1, &a)
               : zp_real_lb_balance(zz, &a);
    if (r) r->busy--;
  }
  zp_notify(r, MPI_Wtime() - t0, ierr);
  return ierr;
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

/* ---- migration ---------------------------------------------------------- */

/* Zoltan_Migrate, whoever calls it (the application, Zoltan's own
 * AUTO_MIGRATE, our methods' AUTO_MIGRATE), goes through the guard when it
 * is on (zp_guard_migrate.c), once: the guard's own call reaches Zoltan. */
int ZP_ENTRY(Zoltan_Migrate)(ZZ *zz, int nimp, ZOLTAN_ID_PTR ig, ZOLTAN_ID_PTR il, int *ip,
                             int *ipa, int nexp, ZOLTAN_ID_PTR eg, ZOLTAN_ID_PTR el, int *ep,
                             int *epa)
{
  zp_record *r = zp_record_find(zz);
  int ierr;
  if (r == NULL || r->migrating || !zp_guard_on(r))
    return zp_real_migrate(zz, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa);
  r->migrating = 1;
  ierr = zp_guard_migrate(r, nimp, ig, il, ip, ipa, nexp, eg, el, ep, epa);
  r->migrating = 0;
  return ierr;
}
