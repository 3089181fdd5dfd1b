/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
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

/* Prefixes no method may use: the adaptive trigger's ADAPTIVE_* parameters
 * are set with adaptive_set_param, not through this registry, and a method
 * parameter of that name would look like a trigger setting; CAPACITY* are
 * the layer's own (zp_capacity.c). */
static const char *const zp_reserved_prefixes[] = {"ADAPTIVE_", "CAPACITY", NULL};

/* The methods shipped with the library (zp_builtin.c), registered on first
 * use; the flag is set first because zp_register_method comes back here.
 * A built-in that fails to register, or leaves out a name its CMake call
 * announces, is a defect of this library: reported, and fatal in debug
 * and test builds. */
void zp_builtin_init(void)
{
  static int started = 0;
  const zp_builtin *b;
  if (started) return;
  started = 1;
  for (b = zp_builtin_table(); b->name != NULL; b++) {
    const char *const *m;
    int rc = b->register_fn();
    if (rc != ZOLTAN_OK) zp_error("zp_builtin_init", "built-in %s failed (code %d)", b->name, rc);
    assert(rc == ZOLTAN_OK);
    for (m = b->methods; *m != NULL; m++) {
      if (zp_find_method(*m) == NULL)
        zp_error("zp_builtin_init", "built-in %s did not register LB_METHOD %s", b->name, *m);
      assert(zp_find_method(*m) != NULL);
    }
  }
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

/* Looks clean_name up among m's parameters. */
static int zp_find_param_in(const zp_method *m, const char *clean_name, zp_param_ref *ref)
{
  size_t j;
  for (j = 0; j < m->num_params; j++) {
    if (strcmp(m->params[j].name, clean_name) == 0) {
      if (ref) {
        ref->method = m;
        ref->def = &m->params[j];
      }
      return 1;
    }
  }
  return 0;
}

int zp_find_param(const char *clean_name, zp_param_ref *ref)
{
  size_t i;
  zp_builtin_init();
  /* The layer's own parameters first, then every method's. */
  for (i = 0; zp_layer_param_group(i) != NULL; i++)
    if (zp_find_param_in(zp_layer_param_group(i), clean_name, ref)) return 1;
  for (i = 0; i < zp_num_methods; i++)
    if (zp_find_param_in(zp_methods[i], clean_name, ref)) return 1;
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
    snprintf(lo, sizeof lo, "%c%.15g", (def->flags & ZP_PARAM_MIN_OPEN) ? '(' : '[', def->min);
  if (def->flags & ZP_PARAM_NO_MAX)
    snprintf(hi, sizeof hi, "+inf)");
  else
    snprintf(hi, sizeof hi, "%.15g%c", def->max, (def->flags & ZP_PARAM_MAX_OPEN) ? ')' : ']');
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

void zp_param_allowed(const zp_param_def *def, char *buf, size_t cap)
{
  size_t i, used;
  if (buf == NULL || cap == 0) return;
  buf[0] = '\0';
  if (def == NULL) return;
  if (def->type == ZP_PARAM_STRING) {
    zp_format_choices(def, buf, cap);
    if (buf[0] == '\0')
      snprintf(buf, cap, "%s", (def->flags & ZP_PARAM_KEEP_CASE) ? "a file path" : "any word");
    return;
  }
  zp_format_range(def, buf, cap);
  used = strlen(buf);
  for (i = 0; def->choices != NULL && def->choices[i] != NULL && used + 1 < cap; i++) {
    int n = snprintf(buf + used, cap - used, " or %s", def->choices[i]);
    if (n < 0 || (size_t)n >= cap - used) break;
    used += (size_t)n;
  }
}

int zp_check_value(const zp_param_def *def, const char *clean_value, char *msg, size_t msg_cap)
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
      snprintf(msg, msg_cap, "%s = %s is not an integer (expected an integer in %s)", def->name,
               clean_value, range);
      return ZOLTAN_FATAL;
    }
    v = iv;
  } else {
    if (zp_parse_double(clean_value, &v) != 0) {
      snprintf(msg, msg_cap, "%s = %s is not a finite number (expected a number in %s)", def->name,
               clean_value, range);
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

/* Writes the prefix of m's parameter names into buf (param_prefix, or the
 * name and '_'); returns 0, or -1 when param_prefix is malformed. */
static int zp_method_prefix(const zp_method *m, char *buf, size_t cap)
{
  size_t n;
  if (m->param_prefix == NULL) {
    snprintf(buf, cap, "%s_", m->name);
    return 0;
  }
  n = strlen(m->param_prefix);
  if (!zp_valid_name(m->param_prefix) || m->param_prefix[n - 1] != '_' || n + 1 >= cap) return -1;
  memcpy(buf, m->param_prefix, n + 1);
  return 0;
}

/* The fields of a description other than its parameter table: name,
 * partition functions, state functions.  Returns ZOLTAN_OK or ZOLTAN_FATAL
 * after a message that names the field. */
static int zp_check_description(const zp_method *m)
{
  static const char *yo = "zp_register_method";
  size_t i;
  if (!zp_valid_name(m->name)) {
    zp_error(yo, "method name '%s' must be 1-%d upper-case letters, digits or '_'",
             m->name ? m->name : "(null)", ZP_NAME_MAX - 1);
    return ZOLTAN_FATAL;
  }
  if (zp_is_native_method(m->name)) {
    zp_error(yo, "method name %s is a native Zoltan method", m->name);
    return ZOLTAN_FATAL;
  }
  if (m->partition_serial == NULL && m->partition_parallel == NULL) {
    zp_error(yo, "method %s must set partition_serial, partition_parallel or both", m->name);
    return ZOLTAN_FATAL;
  }
  if ((m->partition_serial != NULL && m->partition_parallel != NULL) != (m->use_parallel != NULL)) {
    zp_error(yo,
             "method %s must set use_parallel exactly when it sets both partition_serial and "
             "partition_parallel",
             m->name);
    return ZOLTAN_FATAL;
  }
  if (m->partition_sorted != NULL && m->partition_serial == NULL) {
    zp_error(yo, "method %s sets partition_sorted without partition_serial", m->name);
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
  return ZOLTAN_OK;
}

/* Refuses parameter names that are malformed or Zoltan's own.  Checked
 * before the prefix, so that the message names the parameter a method tried
 * to take over whatever its prefix. */
static int zp_check_param_names(const zp_method *m)
{
  static const char *yo = "zp_register_method";
  size_t j;
  for (j = 0; j < m->num_params; j++) {
    const zp_param_def *d = &m->params[j];
    if (!zp_valid_name(d->name)) {
      zp_error(yo, "method %s: invalid parameter name '%s'", m->name, d->name ? d->name : "(null)");
      return ZOLTAN_FATAL;
    }
    if (zp_is_native_param(d->name)) {
      zp_error(yo,
               "method %s: parameter %s is a Zoltan parameter; a method may not take it "
               "over (Zoltan would no longer see it)",
               m->name, d->name);
      return ZOLTAN_FATAL;
    }
  }
  return ZOLTAN_OK;
}

/* Writes the method's parameter prefix into prefix (cap bytes) and refuses
 * one that is malformed, begins a Zoltan parameter name or is reserved. */
static int zp_check_prefix(const zp_method *m, char *prefix, size_t cap)
{
  static const char *yo = "zp_register_method";
  const char *taken;
  size_t i;
  if (zp_method_prefix(m, prefix, cap) != 0) {
    zp_error(yo,
             "method %s: param_prefix '%s' must be upper-case letters, digits or '_', "
             "ending in '_'",
             m->name, m->param_prefix);
    return ZOLTAN_FATAL;
  }
  /* A method without parameters cannot take anything over. */
  if (m->num_params == 0) return ZOLTAN_OK;
  taken = zp_native_param_with_prefix(prefix);
  if (taken != NULL) {
    zp_error(yo,
             "method %s: parameter prefix %s is used by Zoltan's parameter %s; choose "
             "another name or param_prefix",
             m->name, prefix, taken);
    return ZOLTAN_FATAL;
  }
  for (i = 0; zp_reserved_prefixes[i] != NULL; i++) {
    if (strncmp(prefix, zp_reserved_prefixes[i], strlen(zp_reserved_prefixes[i])) == 0) {
      zp_error(yo,
               "method %s: parameter prefix %s is reserved (adaptive trigger or capacity model)",
               m->name, prefix);
      return ZOLTAN_FATAL;
    }
  }
  return ZOLTAN_OK;
}

/* Checks row j of m's parameter table: the prefix, the type, uniqueness
 * across methods and within the table, and a valid default. */
static int zp_check_param_row(const zp_method *m, size_t j, const char *prefix)
{
  static const char *yo = "zp_register_method";
  const zp_param_def *d = &m->params[j];
  char dflt[ZP_VALUE_MAX], msg[512];
  zp_param_ref other;
  size_t k;
  if (strncmp(d->name, prefix, strlen(prefix)) != 0 || strlen(d->name) == strlen(prefix)) {
    zp_error(yo,
             "method %s: parameter %s does not start with the method's prefix %s "
             "(set param_prefix for another prefix)",
             m->name, d->name, prefix);
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
  return ZOLTAN_OK;
}

int zp_register_method(const zp_method *m)
{
  static const char *yo = "zp_register_method";
  static int sorted_checked = 0;
  char prefix[ZP_NAME_MAX + 1];
  size_t j;

  zp_builtin_init();
  if (!sorted_checked) {
    sorted_checked = 1;
    if (!zp_native_params_sorted()) {
      zp_error(yo, "internal error: the table of Zoltan's parameter names is not sorted");
      assert(0);
    }
  }
  if (m == NULL) {
    zp_error(yo, "method description is NULL");
    return ZOLTAN_FATAL;
  }
  /* First, before any other field is trusted: a description built against
   * another zp_method.h may have a different layout. */
  if (m->abi != ZP_METHOD_ABI) {
    zp_error(yo,
             "method %s: abi = %u but this library needs ZP_METHOD_ABI = %u; set "
             ".abi = ZP_METHOD_ABI and rebuild the method against this library's zp_method.h",
             m->name ? m->name : "(null)", m->abi, ZP_METHOD_ABI);
    return ZOLTAN_FATAL;
  }
  if (zp_check_description(m) != ZOLTAN_OK || zp_check_param_names(m) != ZOLTAN_OK ||
      zp_check_prefix(m, prefix, sizeof prefix) != ZOLTAN_OK)
    return ZOLTAN_FATAL;
  for (j = 0; j < m->num_params; j++)
    if (zp_check_param_row(m, j, prefix) != ZOLTAN_OK) return ZOLTAN_FATAL;
  if (zp_num_methods == ZP_MAX_METHODS) {
    zp_error(yo, "too many methods (at most %d)", ZP_MAX_METHODS);
    return ZOLTAN_FATAL;
  }
  zp_methods[zp_num_methods++] = m;
  return ZOLTAN_OK;
}
