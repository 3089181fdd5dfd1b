/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trigger attached to a Zoltan_Struct: it observes the balancing calls
 * (their cost), follows LB_METHOD=AUTO's policy advice, and provides the
 * load history to methods (zp_history.h).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

/* Called by the plugin layer after each balancing call on the struct. */
static void observed_balance(void *arg, double seconds, int ierr)
{
  adaptive_trigger *t = arg;
  /* A failed call did not rebalance anything. */
  if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) return;
  t->event = 1;
  if (isfinite(seconds) && seconds >= 0.0) {
    t->observed_cost += seconds;
    t->observed = 1;
  }
}

/* The advice of LB_METHOD=AUTO on the attached struct (zp_history.h): with
 * ADAPTIVE_POLICY=AUTO the decision logic switches to the policy it names,
 * keeping its history; otherwise the advice is ignored.  Every rank gets
 * the same word, so the ranks stay in agreement (adaptive_fingerprint). */
void adaptive_accept_policy(void *arg, const char *word)
{
  adaptive_trigger *t = arg;
  adaptive_config cfg = t->cfg;
  adaptive_policy_id id;
  if (!t->policy_auto || adaptive_policy_parse(word, &id) != ADAPTIVE_OK || id == cfg.policy)
    return;
  cfg.policy = id;
  if (adaptive_state_configure(&t->core, &cfg) != ADAPTIVE_OK) return;
  t->cfg = cfg;
  if (t->debug_level >= 1 && t->rank == 0)
    printf("ADAPTIVE policy %s, as LB_METHOD=AUTO advised (ADAPTIVE_POLICY=AUTO)\n",
           adaptive_policy_name(id));
}

/* The history provider of the attached struct (zp_history.h): what a method
 * such as ULBA reads without knowing the trigger. */
static int provide_object_loads(void *arg, size_t back, zp_object_loads *out)
{
  return adaptive_object_history(arg, back, &out->step, &out->num_obj, &out->num_gid_entries,
                                 &out->gids, &out->loads);
}

static int provide_comm(void *arg, size_t back, zp_comm_volumes *out)
{
  return adaptive_comm_history(arg, back, &out->step, &out->num_pairs, &out->num_gid_entries,
                               &out->pairs, &out->volumes);
}

static long provide_step_times(void *arg, zp_step_times *out, size_t max)
{
  const adaptive_trigger *t = arg;
  /* As adaptive_history: nothing since a balance that is still pending. */
  size_t n = t->event ? 0 : t->hist.count, skip = n > max ? n - max : 0, i;
  for (i = skip; i < n; i++) {
    const adaptive_record *r = adaptive_ring_get(&t->hist, i);
    out[i - skip].step = r->step;
    out[i - skip].t_max = r->t_max;
    out[i - skip].t_avg = r->t_avg;
    out[i - skip].t_min = r->t_min;
  }
  return (long)n;
}

/* The trigger's running balance cost (adaptive_balance_cost), read here so
 * that the observer does not depend on the trigger's file. */
static double provide_balance_cost(void *arg)
{
  const adaptive_trigger *t = arg;
  return t->core.cost_count == 0 ? -1.0 : t->core.cost;
}

static int provide_rank_work(void *arg, double *work, double *seconds)
{
  const adaptive_trigger *t = arg;
  size_t n = t->event ? 0 : t->hist.count, i;
  int any = 0;
  *work = *seconds = 0.0;
  for (i = 0; i < n; i++) {
    const adaptive_record *r = adaptive_ring_get(&t->hist, i);
    if (isnan(r->my_load)) continue;
    *work += r->my_load;
    *seconds += r->my_time;
    any = 1;
  }
  return any ? ZOLTAN_OK : ZOLTAN_WARN;
}

/* Stops observing and providing for the attached struct, if any; what
 * another component attached to it since is left alone. */
void adaptive_detach(adaptive_trigger *t)
{
  if (t->zz) {
    if (zp_observer_of(t->zz, ADAPTIVE_TAG) == (void *)t) zp_observe(t->zz, NULL);
    zp_history_detach(t->zz, t);
  }
  t->zz = NULL;
}

int adaptive_attach(adaptive_trigger *t, struct Zoltan_Struct *zz)
{
  zp_observer obs;
  zp_history_provider hp;
  int rc;
  if (!t) {
    zp_error("adaptive_attach", "trigger is NULL");
    return ZOLTAN_FATAL;
  }
  adaptive_detach(t);
  if (!zz) return ZOLTAN_OK;
  obs.tag = ADAPTIVE_TAG;
  obs.arg = t;
  obs.after_balance = observed_balance;
  rc = zp_observe(zz, &obs);
  if (rc != ZOLTAN_OK) return rc;
  memset(&hp, 0, sizeof hp);
  hp.tag = ADAPTIVE_TAG;
  hp.arg = t;
  hp.object_loads = provide_object_loads;
  hp.comm_volumes = provide_comm;
  hp.step_times = provide_step_times;
  hp.balance_cost = provide_balance_cost;
  hp.rank_work = provide_rank_work;
  hp.advise_policy = adaptive_accept_policy;
  rc = zp_history_attach(zz, &hp);
  if (rc != ZOLTAN_OK) {
    zp_observe(zz, NULL);
    return rc;
  }
  t->zz = zz;
  return ZOLTAN_OK;
}
