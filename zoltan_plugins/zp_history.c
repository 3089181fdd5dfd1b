/* SPDX-License-Identifier: BSD-3-Clause */
/* The history provider of a Zoltan_Struct lives in the struct's record, so
 * that it disappears with the struct (Zoltan_Destroy) and is never looked up
 * by a reused address. */
#include <string.h>

#include "zp_history.h"
#include "zp_internal.h"

/* The provider attached to zz, or NULL. */
static const zp_history_provider *provider_of(struct Zoltan_Struct *zz)
{
  const zp_record *r = zp_record_find(zz);
  if (r == NULL) return NULL;
  if (r->history.object_loads == NULL && r->history.step_times == NULL &&
      r->history.balance_cost == NULL && r->history.rank_work == NULL &&
      r->history.comm_volumes == NULL && r->history.advise_policy == NULL)
    return NULL;
  return &r->history;
}

int zp_history_attach(struct Zoltan_Struct *zz, const zp_history_provider *provider)
{
  static const char *yo = "zp_history_attach";
  zp_record *r;
  if (zz == NULL || provider == NULL) {
    zp_error(yo, "NULL argument");
    return ZOLTAN_FATAL;
  }
  if (provider->object_loads == NULL && provider->step_times == NULL &&
      provider->balance_cost == NULL && provider->rank_work == NULL &&
      provider->comm_volumes == NULL && provider->advise_policy == NULL) {
    zp_error(yo, "provider %s gives no history function",
             provider->tag ? provider->tag : "(untagged)");
    return ZOLTAN_FATAL;
  }
  r = zp_record_find(zz);
  if (r == NULL) {
    zp_error(yo, "Zoltan_Struct %p was not created through the plugin layer", (void *)zz);
    return ZOLTAN_FATAL;
  }
  r->history = *provider;
  return ZOLTAN_OK;
}

int zp_history_detach(struct Zoltan_Struct *zz, const void *arg)
{
  zp_record *r = zp_record_find(zz);
  if (r == NULL || provider_of(zz) == NULL || r->history.arg != arg) return ZOLTAN_WARN;
  memset(&r->history, 0, sizeof r->history);
  return ZOLTAN_OK;
}

int zp_history_object_loads(struct Zoltan_Struct *zz, size_t back, zp_object_loads *out)
{
  const zp_history_provider *p = provider_of(zz);
  int ierr;
  if (out == NULL) {
    zp_error("zp_history_object_loads", "out is NULL");
    return ZOLTAN_FATAL;
  }
  memset(out, 0, sizeof *out);
  out->step = -1;
  if (p == NULL || p->object_loads == NULL) return ZOLTAN_WARN;
  ierr = p->object_loads(p->arg, back, out);
  if (ierr != ZOLTAN_OK) {
    /* Whatever the provider left in *out, "nothing held" looks the same to
     * every caller. */
    memset(out, 0, sizeof *out);
    out->step = -1;
    return ZOLTAN_WARN;
  }
  return ZOLTAN_OK;
}

int zp_history_comm_volumes(struct Zoltan_Struct *zz, size_t back, zp_comm_volumes *out)
{
  const zp_history_provider *p = provider_of(zz);
  if (out == NULL) {
    zp_error("zp_history_comm_volumes", "out is NULL");
    return ZOLTAN_FATAL;
  }
  memset(out, 0, sizeof *out);
  out->step = -1;
  if (p == NULL || p->comm_volumes == NULL) return ZOLTAN_WARN;
  if (p->comm_volumes(p->arg, back, out) != ZOLTAN_OK) {
    memset(out, 0, sizeof *out);
    out->step = -1;
    return ZOLTAN_WARN;
  }
  return ZOLTAN_OK;
}

int zp_history_advise_policy(struct Zoltan_Struct *zz, const char *policy)
{
  const zp_history_provider *p = provider_of(zz);
  if (policy == NULL) {
    zp_error("zp_history_advise_policy", "policy is NULL");
    return ZOLTAN_FATAL;
  }
  if (p == NULL || p->advise_policy == NULL) return ZOLTAN_WARN;
  p->advise_policy(p->arg, policy);
  return ZOLTAN_OK;
}

long zp_history_step_times(struct Zoltan_Struct *zz, zp_step_times *out, size_t max)
{
  const zp_history_provider *p = provider_of(zz);
  long n;
  if (out == NULL && max > 0) {
    zp_error("zp_history_step_times", "out is NULL with max = %zu", max);
    return ZOLTAN_FATAL;
  }
  if (p == NULL || p->step_times == NULL) return 0;
  n = p->step_times(p->arg, out, max);
  return n > 0 ? n : 0;
}

double zp_history_balance_cost(struct Zoltan_Struct *zz)
{
  const zp_history_provider *p = provider_of(zz);
  double c;
  if (p == NULL || p->balance_cost == NULL) return -1.0;
  c = p->balance_cost(p->arg);
  /* NaN compares false: it is "unknown" as well. */
  return c >= 0.0 ? c : -1.0;
}
