/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trigger's ADAPTIVE_* parameters: the table, parsing through the layer's
 * zp_param_parse, and what each setting changes.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

/* ---- parameters ---------------------------------------------------------- */

static const char *const policy_words[] = {
    "ZHAI",  "MENON",     "MENON_CUMULATIVE", "ULBA", "PERIODIC", "ALWAYS",
    "NEVER", "THRESHOLD", "EFFICIENCY",       "AUTO", NULL};
static const char *const index_words[] = {"TIME", "LOADAVG", NULL};
static const char *const util_words[] = {"TIME", "LOAD", NULL};
static const char *const auto_word[] = {"AUTO", NULL};
static const char *const degradation_words[] = {"TOTAL", "IMBALANCE", NULL};

/* Rows with type ZP_PARAM_STRING and choices == NULL are file paths: their
 * values are trimmed but keep their case. */
const zp_param_def adaptive_param_table[P_COUNT] = {
    {"ADAPTIVE_POLICY", ZP_PARAM_STRING, "ZHAI", 0, 0, 0, policy_words,
     "which policy decides when to balance; AUTO = ZHAI until LB_METHOD=AUTO on the attached "
     "struct recommends one (rule R6), then that one"},
    {"ADAPTIVE_PERIOD", ZP_PARAM_INT, "100", 1, 0, ZP_PARAM_NO_MAX, NULL,
     "PERIODIC: balance every this many steps"},
    {"ADAPTIVE_LB_COST", ZP_PARAM_DOUBLE, "AUTO", 0, 0, ZP_PARAM_NO_MAX, auto_word,
     "initial balance cost C in seconds; AUTO = measured at the first balance"},
    {"ADAPTIVE_COST_WEIGHT", ZP_PARAM_DOUBLE, "0", 0, 1, 0, NULL,
     "weight of a new cost in the running average C; 0 = plain mean"},
    {"ADAPTIVE_EFF_MIN", ZP_PARAM_DOUBLE, "0.9", 0, 1, ZP_PARAM_MIN_OPEN, NULL,
     "EFFICIENCY: balance when U_avg/U_max falls below this"},
    {"ADAPTIVE_THRESHOLD", ZP_PARAM_DOUBLE, "0.25", 0, 0, ZP_PARAM_NO_MAX, NULL,
     "THRESHOLD: balance when max - min of the load index exceeds this"},
    {"ADAPTIVE_LOAD_INDEX", ZP_PARAM_STRING, "TIME", 0, 0, 0, index_words,
     "THRESHOLD: load index from step TIME or LOADAVG (1+avenrun)/speed"},
    {"ADAPTIVE_UTILIZATION", ZP_PARAM_STRING, "TIME", 0, 0, 0, util_words,
     "EFFICIENCY: utilization is the step TIME or the reported LOAD / speed"},
    {"ADAPTIVE_SPEED", ZP_PARAM_DOUBLE, "1", 0, 0, ZP_PARAM_MIN_OPEN | ZP_PARAM_NO_MAX, NULL,
     "this rank's speed (capacity) alpha_i; may differ between ranks"},
    {"ADAPTIVE_SETTLE_STEPS", ZP_PARAM_INT, "3", 1, 0, ZP_PARAM_NO_MAX, NULL,
     "THRESHOLD/EFFICIENCY: first measurement this many steps after a balance"},
    {"ADAPTIVE_INTERVAL", ZP_PARAM_INT, "1", 1, 0, ZP_PARAM_NO_MAX, NULL,
     "THRESHOLD/EFFICIENCY: steps between later measurements"},
    {"ADAPTIVE_ULBA_EARLY", ZP_PARAM_INT, "1", 0, 1, 0, NULL,
     "ULBA: 1 = may balance between sigma- and sigma+ on measured degradation"},
    {"ADAPTIVE_ULBA_GUARD", ZP_PARAM_INT, "0", 0, 1, 0, NULL,
     "ULBA: 1 = may balance before sigma- when the degradation exceeds the model's by C"},
    {"ADAPTIVE_DEGRADATION", ZP_PARAM_STRING, "TOTAL", 0, 0, 0, degradation_words,
     "ZHAI, ULBA: accumulate the growth of T_max (TOTAL, Zhai as published) or only of "
     "T_max - T_avg (IMBALANCE, the part a balance removes)"},
    {"ADAPTIVE_HISTORY", ZP_PARAM_INT, "256", 1, 1048576, 0, NULL,
     "step records kept since the last balance (newest)"},
    {"ADAPTIVE_OBJ_HISTORY", ZP_PARAM_INT, "4", 0, 1024, 0, NULL,
     "object-load snapshots kept since the last balance (newest); 0 = none"},
    {"ADAPTIVE_DEBUG_LEVEL", ZP_PARAM_INT, "0", 0, 2, 0, NULL,
     "1: print parameters and balance decisions on rank 0; 2: every step"},
    {"ADAPTIVE_SPEED_FILE", ZP_PARAM_STRING, "", 0, 0, 0, NULL,
     "file of 'host speed' lines ('*' = any host) giving ADAPTIVE_SPEED"},
    {"ADAPTIVE_LOADAVG_FILE", ZP_PARAM_STRING, "/proc/loadavg", 0, 0, 0, NULL,
     "where avenrun (first number) is read for LOADAVG"},
    {"ADAPTIVE_TRACE_FILE", ZP_PARAM_STRING, "", 0, 0, 0, NULL,
     "CSV trace of every decision, written by rank 0; empty = none"},
};

/* Trims white space from both ends into a malloc'd copy. */
char *adaptive_trimmed_copy(const char *s)
{
  size_t b = 0, e = strlen(s);
  char *out;
  while (s[b] && isspace((unsigned char)s[b])) b++;
  while (e > b && isspace((unsigned char)s[e - 1])) e--;
  out = malloc(e - b + 1);
  if (!out) return NULL;
  memcpy(out, s + b, e - b);
  out[e - b] = '\0';
  return out;
}

/* A trimmed, upper-case copy of a parameter name (NULL when out of memory),
 * cleaned as Zoltan cleans names. */
static char *clean_name(const char *s)
{
  char *out = adaptive_trimmed_copy(s), *c;
  for (c = out; c && *c; c++) *c = (char)toupper((unsigned char)*c);
  return out;
}

static int same_nocase(const char *a, const char *b)
{
  while (*a && *b) {
    if (toupper((unsigned char)*a) != toupper((unsigned char)*b)) return 0;
    a++;
    b++;
  }
  return *a == *b;
}

/* Sets one of the path parameters (value already trimmed, or NULL). */
static int set_path(adaptive_trigger *t, int row, char *value)
{
  static const char *yo = "adaptive_set_param";
  char msg[512];
  int rc = ZOLTAN_OK;
  if (row == P_SPEED_FILE) {
    double speed = t->speed;
    if (value && value[0] &&
        adaptive_read_speed_file(value, &speed, msg, sizeof msg) != ZOLTAN_OK) {
      zp_error(yo, "%s", msg);
      free(value);
      return ZOLTAN_FATAL;
    }
    t->speed = value && value[0] ? speed : 1.0;
    free(t->speed_file);
    t->speed_file = value;
  } else if (row == P_LOADAVG_FILE) {
    if (!value || !value[0]) {
      free(value);
      value = adaptive_trimmed_copy(adaptive_param_table[P_LOADAVG_FILE].default_value);
      if (!value) return ZOLTAN_MEMERR;
    }
    free(t->loadavg_file);
    t->loadavg_file = value;
  } else {
    if (value && !value[0]) {
      free(value);
      value = NULL;
    }
    if (adaptive_open_trace(t, value) != ZOLTAN_OK) {
      zp_error(yo, "ADAPTIVE_TRACE_FILE = %s cannot be opened for writing", value);
      rc = ZOLTAN_FATAL;
    }
    free(t->trace_file);
    t->trace_file = value;
  }
  return rc;
}

/* Sets a path parameter (a string row without choices): the value keeps its
 * case, DEFAULT restores the table's default. */
static int set_path_param(adaptive_trigger *t, int row, const char *value)
{
  const zp_param_def *def = &adaptive_param_table[row];
  char *v = adaptive_trimmed_copy(value);
  int rc;
  if (!v) return ZOLTAN_MEMERR;
  if (same_nocase(v, "DEFAULT")) {
    free(v);
    v = adaptive_trimmed_copy(def->default_value);
    if (!v) return ZOLTAN_MEMERR;
  }
  rc = set_path(t, row, v);
  if (rc == ZOLTAN_OK && t->debug_level >= 1 && t->rank == 0)
    printf("ADAPTIVE Parameter %s = %s\n", def->name, value);
  return rc;
}

/* Applies a checked value of a row to cfg (decision settings) or to t (the
 * per-rank settings and the history windows). */
static int apply_param(adaptive_trigger *t, int row, const zp_param_parsed *v, adaptive_config *cfg)
{
  const char *cval = v->clean;
  int iv = v->int_value;
  double dv = v->double_value;
  switch (row) {
  case P_POLICY:
    /* AUTO starts as ZHAI and follows the advice of LB_METHOD=AUTO
     * (adaptive_accept_policy). */
    t->policy_auto = strcmp(cval, "AUTO") == 0;
    if (t->policy_auto)
      cfg->policy = ADAPTIVE_POLICY_ZHAI;
    else
      adaptive_policy_parse(cval, &cfg->policy);
    break;
  case P_PERIOD:
    cfg->period = iv;
    break;
  case P_LB_COST:
    cfg->initial_cost = v->is_keyword ? -1.0 : dv;
    break;
  case P_COST_WEIGHT:
    cfg->cost_weight = dv;
    break;
  case P_EFF_MIN:
    cfg->eff_min = dv;
    break;
  case P_THRESHOLD:
    cfg->threshold = dv;
    break;
  case P_LOAD_INDEX:
    cfg->index_source = strcmp(cval, "LOADAVG") == 0 ? ADAPTIVE_INDEX_LOADAVG : ADAPTIVE_INDEX_TIME;
    break;
  case P_UTILIZATION:
    cfg->util_source = strcmp(cval, "LOAD") == 0 ? ADAPTIVE_UTIL_LOAD : ADAPTIVE_UTIL_TIME;
    break;
  case P_SPEED:
    t->speed = dv;
    break;
  case P_SETTLE_STEPS:
    cfg->settle_steps = iv;
    break;
  case P_INTERVAL:
    cfg->interval = iv;
    break;
  case P_ULBA_EARLY:
    cfg->ulba_early = iv;
    break;
  case P_ULBA_GUARD:
    cfg->ulba_guard = iv;
    break;
  case P_DEGRADATION:
    /* The layer accepted only a word of degradation_words (upper case). */
    adaptive_degradation_parse(cval, &cfg->degradation);
    break;
  case P_HISTORY:
    return adaptive_resize_history(t, iv);
  case P_OBJ_HISTORY:
    return adaptive_resize_objects(t, iv);
  case P_DEBUG_LEVEL:
    t->debug_level = iv;
    break;
  default:
    break;
  }
  return ZOLTAN_OK;
}

int adaptive_set_param(adaptive_trigger *t, const char *name, const char *value)
{
  static const char *yo = "adaptive_set_param";
  char msg[512], *cname;
  const zp_param_def *def = NULL;
  zp_param_parsed v;
  adaptive_config cfg;
  int row, rc;

  if (!t || !name || !value) {
    zp_error(yo, "NULL argument");
    return ZOLTAN_FATAL;
  }
  cname = clean_name(name);
  if (!cname) return ZOLTAN_MEMERR;
  for (row = 0; row < P_COUNT; row++)
    if (strcmp(cname, adaptive_param_table[row].name) == 0) break;
  if (row == P_COUNT) {
    zp_warn(yo, "unknown parameter %s (ignored)", cname);
    free(cname);
    return ZOLTAN_WARN;
  }
  free(cname);
  def = &adaptive_param_table[row];

  if (def->type == ZP_PARAM_STRING && def->choices == NULL) return set_path_param(t, row, value);

  /* The layer checks and parses the value as it does for the parameters of
   * its methods, so that both give the same messages. */
  if (zp_param_parse(def, value, &v, msg, sizeof msg) != ZOLTAN_OK) {
    zp_error(yo, "%s", msg);
    return ZOLTAN_FATAL;
  }
  cfg = t->cfg;
  rc = apply_param(t, row, &v, &cfg);
  if (rc != ZOLTAN_OK) return rc;
  /* The table's ranges are the core's ranges, so this cannot fail; the
   * check keeps the two in step. */
  if (adaptive_state_configure(&t->core, &cfg) != ADAPTIVE_OK) {
    zp_error(yo, "%s = %s rejected by the decision logic", def->name, v.clean);
    return ZOLTAN_FATAL;
  }
  t->cfg = cfg;
  if (t->debug_level >= 1 && t->rank == 0)
    printf("ADAPTIVE Parameter %s = %s\n", def->name, v.clean);
  return ZOLTAN_OK;
}
