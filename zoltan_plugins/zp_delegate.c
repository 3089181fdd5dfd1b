/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Delegation (zp_method.delegate): a method that keeps a choice between
 * calls (AUTO) lets the chosen method answer a call in its place, at the
 * chosen method's own cost, before anything is gathered for the delegating
 * method.  Also zp_ctx_run_base_setting, the base run with one setting
 * changed that such a method tries its candidates with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

/* Longest delegation spec, "METHOD:PARAMETER=VALUE", NUL included. */
#define ZP_SPEC_MAX 128

/* How a delegated call runs. */
enum {
  ZP_DELEGATE_NONE = 0,  /* the delegating method runs as usual */
  ZP_DELEGATE_OURS = 1,  /* our centralised method, as if selected */
  ZP_DELEGATE_NATIVE = 2 /* Zoltan's method, straight to Zoltan */
};

/* What a delegated call needs to know about the method it runs. */
typedef struct zp_delegation {
  char method[ZP_SPEC_MAX]; /* the method's name, without its setting */
  const zp_method *m;       /* ours, or NULL for Zoltan's */
  zp_params *params;        /* for "METHOD:NAME=VALUE", a copy of the
                               struct's parameters with the setting made;
                               else NULL */
  int has_obj;              /* 1 when this rank has objects */
} zp_delegation;

/* 1 when some fixed-object callback is registered on this rank. */
static int zp_has_fixed(const zp_record *r)
{
  ZOLTAN_VOID_FN *nfn = NULL, *lfn = NULL;
  void *d = NULL;
  Zoltan_Get_Fn(r->zz, ZOLTAN_NUM_FIXED_OBJ_FN_TYPE, &nfn, &d);
  Zoltan_Get_Fn(r->zz, ZOLTAN_FIXED_OBJ_LIST_FN_TYPE, &lfn, &d);
  return nfn != NULL || lfn != NULL;
}

/* This rank's object count from the application's ZOLTAN_NUM_OBJ_FN, or -1
 * when it has none or the callback fails (the full call then reports it). */
static int zp_num_local_objects(const zp_record *r)
{
  ZOLTAN_VOID_FN *fn = NULL;
  void *d = NULL;
  int ierr = ZOLTAN_OK, n;
  Zoltan_Get_Fn(r->zz, ZOLTAN_NUM_OBJ_FN_TYPE, &fn, &d);
  if (fn == NULL) return -1;
  n = ((ZOLTAN_NUM_OBJ_FN *)fn)(d, &ierr);
  return ierr == ZOLTAN_OK && n >= 0 ? n : -1;
}

/* Local: how this rank can run spec in the method's place, with k filled
 * for it, or ZP_DELEGATE_NONE.  The method runs as usual in every case
 * where a delegated call would answer or report otherwise than running
 * spec as a base method: an IMBALANCE_TOL setting (the context holds that
 * tolerance), a method that cannot be a base, and for Zoltan's methods
 * whatever the layer adds to a base run of them: fixed objects, a dump (it
 * names the delegating method), candidate lists, and a problem without
 * objects (never handed to Zoltan: k->has_obj says whether this rank has
 * some, zp_delegate_agree whether any rank has). */
static int zp_delegate_kind(const zp_record *r, const char *spec, zp_delegation *k)
{
  const char *colon = strchr(spec, ':'), *eq = colon != NULL ? strchr(colon, '=') : NULL;
  const char *rl = zp_record_native_get(r, "RETURN_LISTS", -1);
  char name[ZP_SPEC_MAX];
  int n;
  snprintf(k->method, sizeof k->method, "%.*s",
           colon != NULL ? (int)(colon - spec) : (int)strlen(spec), spec);
  k->m = zp_find_method(k->method);
  if (colon != NULL) {
    if (eq == NULL || k->m == NULL) return ZP_DELEGATE_NONE;
    snprintf(name, sizeof name, "%.*s", (int)(eq - colon - 1), colon + 1);
    if (strcmp(name, "IMBALANCE_TOL") == 0) return ZP_DELEGATE_NONE;
    k->params = zp_params_clone(r->params);
    if (k->params == NULL || zp_params_set(k->params, name, eq + 1) != ZOLTAN_OK)
      return ZP_DELEGATE_NONE;
  }
  if (k->m != NULL)
    return k->m->partition_serial != NULL && k->m != r->method ? ZP_DELEGATE_OURS
                                                               : ZP_DELEGATE_NONE;
  if (!zp_is_native_method(k->method) || zp_dump_active(r) || zp_has_fixed(r) ||
      (rl != NULL && strcmp(rl, "CANDIDATE_LISTS") == 0))
    return ZP_DELEGATE_NONE;
  n = zp_num_local_objects(r);
  k->has_obj = n > 0;
  return n >= 0 ? ZP_DELEGATE_NATIVE : ZP_DELEGATE_NONE;
}

/* The kind every rank takes: the local one when all ranks found the same
 * (and, for Zoltan's method, some rank has objects), else
 * ZP_DELEGATE_NONE.  Collective (one small reduction). */
static int zp_delegate_agree(const zp_record *r, int kind, const zp_delegation *k)
{
  int mine[3], all[3];
  mine[0] = kind;
  mine[1] = -kind;
  mine[2] = k->has_obj;
  MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, r->comm);
  if (all[0] != -all[1] || (kind == ZP_DELEGATE_NATIVE && all[2] == 0)) return ZP_DELEGATE_NONE;
  return kind;
}

/* Our method, run by zp_partition as if the application had selected it,
 * with what a base run gives it: a state created for this call alone, the
 * centralised function always, and the spec's own setting.  It keeps the
 * delegating method's name and parameter table, so that messages and the
 * DEBUG_LEVEL listing read as in a call of that method.  Collective. */
static int zp_delegate_ours(zp_record *r, const zp_delegation *k, int is_balance, zp_lb_args *a)
{
  zp_method view = *k->m;
  const zp_method *saved_method = r->method, *saved_owner = r->state_owner;
  void *saved_state = r->state;
  zp_params *saved_params = r->params;
  int ierr;
  view.name = saved_method->name;
  view.summary = saved_method->summary;
  view.params = saved_method->params;
  view.num_params = saved_method->num_params;
  view.param_prefix = saved_method->param_prefix;
  view.partition_parallel = NULL;
  view.use_parallel = NULL;
  view.delegate = NULL;
  view.delegated = NULL;
  r->method = &view;
  r->state = NULL;
  r->state_owner = NULL;
  if (k->params != NULL) r->params = k->params;
  ierr = zp_partition(r, is_balance, a);
  if (r->state_owner == &view && r->state != NULL && view.destroy != NULL) view.destroy(r->state);
  r->params = saved_params;
  r->method = saved_method;
  r->state = saved_state;
  r->state_owner = saved_owner;
  return ierr;
}

/* Zoltan's method, run by Zoltan on the application's struct as if
 * LB_METHOD named it (through zp_layer_native when the guard, the capacity
 * model, measured weights or a dump are on, as for a native method
 * selected directly); LB_METHOD is put back afterwards.  At DEBUG_LEVEL >=
 * 1 the delegating method's parameters are listed first, as in its own
 * call.  Collective. */
static int zp_delegate_native(zp_record *r, const zp_delegation *k, int is_balance, zp_lb_args *a)
{
  const char *v;
  int ierr;
  if (zp_record_native_int(r, "DEBUG_LEVEL", 1) >= ZP_DEBUG_PARAMS &&
      r->rank == zp_record_native_int(r, "DEBUG_PROCESSOR", 0))
    zp_params_print(r->params, r->method);
  ierr = zp_real_set_param_vec(r->zz, "LB_METHOD", k->method, -1);
  if (ierr == ZOLTAN_OK) {
    if (zp_layer_active(r))
      ierr = zp_layer_native(r, k->method, is_balance, a);
    else
      ierr = is_balance ? zp_real_lb_balance(r->zz, a) : zp_real_lb_partition(r->zz, a);
  }
  v = zp_record_native_get(r, "LB_METHOD", -1);
  zp_real_set_param_vec(r->zz, "LB_METHOD", v != NULL ? v : "RCB", -1);
  return ierr;
}

int zp_dispatch(zp_record *r, int is_balance, zp_lb_args *a)
{
  const zp_method *m = r->method;
  char spec[ZP_SPEC_MAX] = "";
  zp_delegation k;
  int kind = ZP_DELEGATE_NONE, ierr;
  memset(&k, 0, sizeof k);
  /* The state exists from the method's first call on; before it, and for
   * a method that does not delegate, the call runs as usual. */
  if (m != NULL && m->delegate != NULL && r->state_owner == m && r->state != NULL &&
      m->delegate(r->params, r->state, spec, sizeof spec) == 1 && spec[0] != '\0')
    kind = zp_delegate_kind(r, spec, &k);
  if (m != NULL && m->delegate != NULL && r->state_owner == m && r->state != NULL)
    kind = zp_delegate_agree(r, kind, &k);
  /* Outside the bounds where Zoltan's method never failed, it may fail on
   * one rank and hang the others: the delegating method's own call runs,
   * whose base run refuses it (zp_native_bounds). */
  if (kind == ZP_DELEGATE_NATIVE && !zp_native_within_bounds(r, k.method, is_balance))
    kind = ZP_DELEGATE_NONE;
  if (kind == ZP_DELEGATE_NONE) {
    zp_params_destroy(k.params);
    return zp_partition(r, is_balance, a);
  }
  ierr = kind == ZP_DELEGATE_OURS ? zp_delegate_ours(r, &k, is_balance, a)
                                  : zp_delegate_native(r, &k, is_balance, a);
  zp_params_destroy(k.params);
  /* Zoltan's method fails on some inputs that a base run of it handles
   * (every weight zero: the base run hides the weights, and HSFC's search
   * then has something to cut).  Where it failed on some rank and returned
   * on every rank, the call starts again as a call of the delegating
   * method, which reaches the same method as a base run. */
  if (kind == ZP_DELEGATE_NATIVE && zp_agree_code(r->comm, ierr) < 0) {
    Zoltan_LB_Free_Part(a->import_gids, a->import_lids, a->import_procs, a->import_to_part);
    Zoltan_LB_Free_Part(a->export_gids, a->export_lids, a->export_procs, a->export_to_part);
    *a->num_import = *a->num_export = -1;
    *a->changes = 0;
    return zp_partition(r, is_balance, a);
  }
  if (ierr >= 0 && m->delegated != NULL) m->delegated(r->state);
  return ierr;
}

int zp_ctx_run_base_setting(zp_context *c, const char *method, const char *name, const char *value,
                            const double *part_sizes, int *new_part)
{
  zp_params *saved = c->r->params, *mine;
  int ierr;
  if (name == NULL) return zp_ctx_run_base(c, method, part_sizes, new_part);
  /* IMBALANCE_TOL is Zoltan's: the context holds it for our methods. */
  if (strcmp(name, "IMBALANCE_TOL") == 0) {
    double keep = c->tol[0], v = value != NULL ? atof(value) : 0.0;
    if (v >= 1.0 && v < keep) c->tol[0] = v;
    ierr = zp_ctx_run_base(c, method, part_sizes, new_part);
    c->tol[0] = keep;
    return ierr;
  }
  mine = zp_params_clone(saved);
  ierr = mine != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if (ierr >= 0 && (value == NULL || zp_params_set(mine, name, value) != ZOLTAN_OK)) {
    zp_error(c->yo, "base method %s: the setting %s=%s is refused", method, name,
             value != NULL ? value : "(none)");
    ierr = ZOLTAN_FATAL;
  }
  ierr = zp_agree(c, ierr);
  if (ierr >= 0) {
    c->r->params = mine;
    ierr = zp_ctx_run_base(c, method, part_sizes, new_part);
    c->r->params = saved;
  }
  zp_params_destroy(mine);
  return ierr;
}
