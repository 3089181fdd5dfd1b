/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"

/* A small fixed table is enough: registration happens a handful of times at
 * start-up, and lookups scan it.  A growing array would add failure paths
 * for no gain. */
#define ZP_MAX_METHODS 64

static const zp_method *zp_methods[ZP_MAX_METHODS];
static size_t zp_num_methods;

/* LB_METHOD values Zoltan 13.2 understands itself (lb_set_method.c); our
 * methods may not take these names, so that native methods always pass
 * through untouched. */
static const char *const zp_native_methods[] = {
  "BLOCK", "CYCLIC", "RANDOM", "RCB", "RIB", "HSFC", "OCTPART", "REFTREE",
  "PARMETIS", "SCOTCH", "GRAPH", "HYPERGRAPH", "PHG", "PATOH", "HIER",
  "ZOLTAN_HIER", "NONE", NULL
};

int zp_is_native_method(const char *clean_name)
{
  size_t i;
  for (i = 0; zp_native_methods[i] != NULL; i++)
    if (strcmp(zp_native_methods[i], clean_name) == 0) return 1;
  return 0;
}

size_t zp_method_count(void)
{
  zp_builtin_init();
  return zp_num_methods;
}

const zp_method *zp_method_at(size_t i)
{
  zp_builtin_init();
  return i < zp_num_methods ? zp_methods[i] : NULL;
}

const zp_method *zp_find_method(const char *name)
{
  char clean[ZP_NAME_MAX];
  size_t i;
  zp_builtin_init();
  if (name == NULL || zp_clean_string(name, clean, sizeof clean) != 0) return NULL;
  for (i = 0; i < zp_num_methods; i++)
    if (strcmp(zp_methods[i]->name, clean) == 0) return zp_methods[i];
  return NULL;
}

int zp_find_param(const char *clean_name, zp_param_ref *ref)
{
  size_t i, j;
  zp_builtin_init();
  for (i = 0; i < zp_num_methods; i++) {
    const zp_method *m = zp_methods[i];
    for (j = 0; j < m->num_params; j++) {
      if (strcmp(m->params[j].name, clean_name) == 0) {
        if (ref) {
          ref->method = m;
          ref->def = &m->params[j];
        }
        return 1;
      }
    }
  }
  return 0;
}

static int zp_is_keyword(const zp_param_def *def, const char *clean_value)
{
  size_t i;
  if (def->choices == NULL) return 0;
  for (i = 0; def->choices[i] != NULL; i++)
    if (strcmp(def->choices[i], clean_value) == 0) return 1;
  return 0;
}

/* Writes the allowed range of a numeric row, e.g. "[0, 1)". */
static void zp_format_range(const zp_param_def *def, char *buf, size_t cap)
{
  char lo[48], hi[48];
  if (def->flags & ZP_PARAM_NO_MIN)
    snprintf(lo, sizeof lo, "(-inf");
  else
    snprintf(lo, sizeof lo, "%c%.17g", (def->flags & ZP_PARAM_MIN_OPEN) ? '(' : '[', def->min);
  if (def->flags & ZP_PARAM_NO_MAX)
    snprintf(hi, sizeof hi, "+inf)");
  else
    snprintf(hi, sizeof hi, "%.17g%c", def->max, (def->flags & ZP_PARAM_MAX_OPEN) ? ')' : ']');
  snprintf(buf, cap, "%s, %s", lo, hi);
}

static void zp_format_choices(const zp_param_def *def, char *buf, size_t cap)
{
  size_t i, used = 0;
  buf[0] = '\0';
  for (i = 0; def->choices != NULL && def->choices[i] != NULL; i++) {
    int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", def->choices[i]);
    if (n < 0 || (size_t)n >= cap - used) break;
    used += (size_t)n;
  }
}

int zp_check_value(const zp_param_def *def, const char *clean_value, char *msg,
                   size_t msg_cap)
{
  char range[128], words[256];
  double v = 0.0;
  int iv = 0;

  if (def->type == ZP_PARAM_STRING) {
    if (def->choices == NULL || zp_is_keyword(def, clean_value)) return ZOLTAN_OK;
    zp_format_choices(def, words, sizeof words);
    snprintf(msg, msg_cap, "%s = %s is not one of: %s", def->name, clean_value, words);
    return ZOLTAN_FATAL;
  }
  if (zp_is_keyword(def, clean_value)) return ZOLTAN_OK;
  zp_format_range(def, range, sizeof range);
  if (def->type == ZP_PARAM_INT) {
    if (zp_parse_int(clean_value, &iv) != 0) {
      snprintf(msg, msg_cap, "%s = %s is not an integer (expected an integer in %s)",
               def->name, clean_value, range);
      return ZOLTAN_FATAL;
    }
    v = iv;
  } else {
    if (zp_parse_double(clean_value, &v) != 0) {
      snprintf(msg, msg_cap, "%s = %s is not a finite number (expected a number in %s)",
               def->name, clean_value, range);
      return ZOLTAN_FATAL;
    }
  }
  if (!(def->flags & ZP_PARAM_NO_MIN)) {
    if (v < def->min || ((def->flags & ZP_PARAM_MIN_OPEN) && v == def->min)) goto out_of_range;
  }
  if (!(def->flags & ZP_PARAM_NO_MAX)) {
    if (v > def->max || ((def->flags & ZP_PARAM_MAX_OPEN) && v == def->max)) goto out_of_range;
  }
  return ZOLTAN_OK;
out_of_range:
  snprintf(msg, msg_cap, "%s = %s is outside %s", def->name, clean_value, range);
  return ZOLTAN_FATAL;
}

static int zp_valid_name(const char *s)
{
  size_t i, n;
  if (s == NULL) return 0;
  n = strlen(s);
  if (n == 0 || n >= ZP_NAME_MAX) return 0;
  for (i = 0; i < n; i++)
    if (!(isupper((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '_')) return 0;
  return 1;
}

int zp_register_method(const zp_method *m)
{
  static const char *yo = "zp_register_method";
  char msg[512];
  size_t i, j;

  zp_builtin_init();
  if (m == NULL) {
    zp_error(yo, "method description is NULL");
    return ZOLTAN_FATAL;
  }
  if (!zp_valid_name(m->name)) {
    zp_error(yo, "method name '%s' must be 1-%d upper-case letters, digits or '_'",
             m->name ? m->name : "(null)", ZP_NAME_MAX - 1);
    return ZOLTAN_FATAL;
  }
  if (zp_is_native_method(m->name)) {
    zp_error(yo, "method name %s is a native Zoltan method", m->name);
    return ZOLTAN_FATAL;
  }
  if ((m->partition_serial == NULL) == (m->partition_parallel == NULL)) {
    zp_error(yo, "method %s must set exactly one of partition_serial and partition_parallel",
             m->name);
    return ZOLTAN_FATAL;
  }
  if ((m->create == NULL) != (m->destroy == NULL)) {
    zp_error(yo, "method %s must set both create and destroy, or neither", m->name);
    return ZOLTAN_FATAL;
  }
  if (m->num_params > 0 && m->params == NULL) {
    zp_error(yo, "method %s declares %zu parameters but no table", m->name, m->num_params);
    return ZOLTAN_FATAL;
  }
  for (i = 0; i < zp_num_methods; i++) {
    if (strcmp(zp_methods[i]->name, m->name) == 0) {
      zp_error(yo, "method %s is already registered", m->name);
      return ZOLTAN_FATAL;
    }
  }
  for (j = 0; j < m->num_params; j++) {
    const zp_param_def *d = &m->params[j];
    char dflt[ZP_VALUE_MAX];
    zp_param_ref other;
    size_t k;
    if (!zp_valid_name(d->name) || strcmp(d->name, "LB_METHOD") == 0) {
      zp_error(yo, "method %s: invalid parameter name '%s'", m->name, d->name ? d->name : "(null)");
      return ZOLTAN_FATAL;
    }
    if (d->type != ZP_PARAM_INT && d->type != ZP_PARAM_DOUBLE && d->type != ZP_PARAM_STRING) {
      zp_error(yo, "method %s: parameter %s has an unknown type %d", m->name, d->name, (int)d->type);
      return ZOLTAN_FATAL;
    }
    if (zp_find_param(d->name, &other)) {
      zp_error(yo, "method %s: parameter %s is already defined by method %s", m->name, d->name,
               other.method->name);
      return ZOLTAN_FATAL;
    }
    for (k = 0; k < j; k++) {
      if (strcmp(m->params[k].name, d->name) == 0) {
        zp_error(yo, "method %s: parameter %s appears twice", m->name, d->name);
        return ZOLTAN_FATAL;
      }
    }
    if (d->default_value == NULL || zp_clean_string(d->default_value, dflt, sizeof dflt) != 0 ||
        zp_check_value(d, dflt, msg, sizeof msg) != ZOLTAN_OK) {
      zp_error(yo, "method %s: default of %s is invalid", m->name, d->name);
      return ZOLTAN_FATAL;
    }
  }
  if (zp_num_methods == ZP_MAX_METHODS) {
    zp_error(yo, "too many methods (at most %d)", ZP_MAX_METHODS);
    return ZOLTAN_FATAL;
  }
  zp_methods[zp_num_methods++] = m;
  return ZOLTAN_OK;
}
