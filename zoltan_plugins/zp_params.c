/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"

/* One parameter the application set explicitly. */
typedef struct zp_param_value {
  const zp_param_def *def;  /* the row of the owning method's table */
  char value[ZP_VALUE_MAX]; /* cleaned value, already checked */
} zp_param_value;

struct zp_params {
  zp_param_value *v; /* explicitly set values, in the order first set */
  size_t n, cap;     /* used and allocated entries */
};

zp_params *zp_params_create(void) { return calloc(1, sizeof(zp_params)); }

void zp_params_destroy(zp_params *p)
{
  if (p == NULL) return;
  free(p->v);
  free(p);
}

zp_params *zp_params_clone(const zp_params *p)
{
  zp_params *c = zp_params_create();
  if (c == NULL || p == NULL || p->n == 0) return c;
  c->v = malloc(p->n * sizeof *c->v);
  if (c->v == NULL) {
    free(c);
    return NULL;
  }
  memcpy(c->v, p->v, p->n * sizeof *c->v);
  c->n = c->cap = p->n;
  return c;
}

int zp_params_set(zp_params *p, const char *clean_name, const char *clean_value)
{
  zp_param_ref ref;
  size_t i;
  if (p == NULL || !zp_find_param(clean_name, &ref)) return ZOLTAN_FATAL;
  for (i = 0; i < p->n; i++)
    if (p->v[i].def == ref.def) break;
  if (clean_value == NULL) {
    /* DEFAULT: forget the explicit value. */
    if (i < p->n) {
      memmove(&p->v[i], &p->v[i + 1], (p->n - i - 1) * sizeof *p->v);
      p->n--;
    }
    return ZOLTAN_OK;
  }
  if (strlen(clean_value) >= ZP_VALUE_MAX) return ZOLTAN_FATAL;
  if (i == p->n) {
    zp_param_value *grown = zp_grow(p->v, &p->cap, p->n + 1, sizeof *p->v, 8);
    if (grown == NULL) return ZOLTAN_MEMERR;
    p->v = grown;
    p->v[i].def = ref.def;
    p->n++;
  }
  strcpy(p->v[i].value, clean_value);
  return ZOLTAN_OK;
}

/* The cleaned value of a row: the explicit one, else the table default. */
static const char *zp_params_value(const zp_params *p, const zp_param_def *def, char *buf,
                                   size_t cap)
{
  size_t i;
  for (i = 0; p != NULL && i < p->n; i++)
    if (p->v[i].def == def) return p->v[i].value;
  if ((def->flags & ZP_PARAM_KEEP_CASE) ? zp_trim_string(def->default_value, buf, cap) != 0
                                        : zp_clean_string(def->default_value, buf, cap) != 0)
    return NULL;
  return buf;
}

static int zp_keyword(const zp_param_def *def, const char *v)
{
  size_t i;
  for (i = 0; def->choices != NULL && def->choices[i] != NULL; i++)
    if (strcmp(def->choices[i], v) == 0) return 1;
  return 0;
}

static int zp_lookup(const zp_params *p, const char *name, zp_param_type type,
                     const zp_param_def **def, const char **value, char *buf, size_t cap)
{
  char clean[ZP_NAME_MAX];
  zp_param_ref ref;
  if (name == NULL || zp_clean_string(name, clean, sizeof clean) != 0 ||
      !zp_find_param(clean, &ref)) {
    zp_error("zp_param", "%s is not a registered plugin parameter", name ? name : "(null)");
    return ZOLTAN_FATAL;
  }
  if (ref.def->type != type) {
    zp_error("zp_param", "%s is not of the requested type", clean);
    return ZOLTAN_FATAL;
  }
  *def = ref.def;
  *value = zp_params_value(p, ref.def, buf, cap);
  return *value ? ZOLTAN_OK : ZOLTAN_FATAL;
}

/* A numeric parameter: an int when ivalue is given, else a double.  A
 * keyword of the row gives 0 and sets *is_keyword (when given). */
static int zp_param_number(const zp_params *p, const char *name, zp_param_type type, int *ivalue,
                           double *dvalue, int *is_keyword)
{
  char buf[ZP_VALUE_MAX];
  const zp_param_def *def;
  const char *v;
  int ierr = zp_lookup(p, name, type, &def, &v, buf, sizeof buf), keyword;
  if (ierr != ZOLTAN_OK) return ierr;
  keyword = zp_keyword(def, v);
  if (is_keyword) *is_keyword = keyword;
  if (keyword && ivalue)
    *ivalue = 0;
  else if (keyword)
    *dvalue = 0.0;
  if (keyword) return ZOLTAN_OK;
  if (ivalue) return zp_parse_int(v, ivalue) == 0 ? ZOLTAN_OK : ZOLTAN_FATAL;
  return zp_parse_double(v, dvalue) == 0 ? ZOLTAN_OK : ZOLTAN_FATAL;
}

int zp_param_int(const zp_params *p, const char *name, int *value, int *is_keyword)
{
  return zp_param_number(p, name, ZP_PARAM_INT, value, NULL, is_keyword);
}

int zp_param_double(const zp_params *p, const char *name, double *value, int *is_keyword)
{
  return zp_param_number(p, name, ZP_PARAM_DOUBLE, NULL, value, is_keyword);
}

int zp_param_string(const zp_params *p, const char *name, const char **value)
{
  /* The returned pointer must outlive this call, so string values are
   * answered from the stored entry or from the table's default, which is
   * already upper case by the registry's rule for choices. */
  char clean[ZP_NAME_MAX];
  zp_param_ref ref;
  size_t i;
  if (name == NULL || zp_clean_string(name, clean, sizeof clean) != 0 ||
      !zp_find_param(clean, &ref) || ref.def->type != ZP_PARAM_STRING) {
    zp_error("zp_param", "%s is not a registered string parameter", name ? name : "(null)");
    return ZOLTAN_FATAL;
  }
  for (i = 0; p != NULL && i < p->n; i++) {
    if (p->v[i].def == ref.def) {
      *value = p->v[i].value;
      return ZOLTAN_OK;
    }
  }
  *value = ref.def->default_value;
  return ZOLTAN_OK;
}

char *zp_params_dump(const zp_params *p)
{
  size_t i, len = 1;
  char *s;
  for (i = 0; p && i < p->n; i++) len += strlen(p->v[i].def->name) + strlen(p->v[i].value) + 2;
  s = malloc(len);
  if (s == NULL) return NULL;
  s[0] = '\0';
  for (i = 0; p && i < p->n; i++) {
    strcat(s, p->v[i].def->name);
    strcat(s, "=");
    strcat(s, p->v[i].value);
    strcat(s, "\n");
  }
  return s;
}

void zp_params_print(const zp_params *p, const zp_method *m)
{
  size_t j;
  char buf[ZP_VALUE_MAX];
  printf("ZOLTAN Parameter LB_METHOD = %s (zoltan_plugins)\n", m->name);
  for (j = 0; j < m->num_params; j++) {
    const char *v = zp_params_value(p, &m->params[j], buf, sizeof buf);
    printf("ZOLTAN Parameter %s = %s\n", m->params[j].name, v ? v : "?");
  }
  fflush(stdout);
}

int zp_param_parse(const zp_param_def *def, const char *value, zp_param_parsed *out, char *msg,
                   size_t msg_cap)
{
  zp_param_parsed v;
  char *m = msg_cap > 0 ? msg : NULL;
  if (m != NULL) m[0] = '\0';
  if (def == NULL || def->name == NULL || value == NULL || out == NULL) {
    if (m != NULL) snprintf(m, msg_cap, "zp_param_parse: NULL argument");
    return ZOLTAN_FATAL;
  }
  memset(&v, 0, sizeof v);
  if (zp_clean_string(value, v.clean, sizeof v.clean) != 0) {
    if (m != NULL) snprintf(m, msg_cap, "%s: value is too long", def->name);
    return ZOLTAN_FATAL;
  }
  if (strcmp(v.clean, "DEFAULT") == 0 &&
      (def->default_value == NULL ||
       zp_clean_string(def->default_value, v.clean, sizeof v.clean) != 0)) {
    if (m != NULL) snprintf(m, msg_cap, "%s: the row has no usable default", def->name);
    return ZOLTAN_FATAL;
  }
  /* zp_check_value writes its message only on failure and needs a buffer. */
  {
    char local[512];
    if (zp_check_value(def, v.clean, local, sizeof local) != ZOLTAN_OK) {
      if (m != NULL) snprintf(m, msg_cap, "%s", local);
      return ZOLTAN_FATAL;
    }
  }
  v.is_keyword = zp_keyword(def, v.clean);
  if (!v.is_keyword && def->type == ZP_PARAM_INT) zp_parse_int(v.clean, &v.int_value);
  if (!v.is_keyword && def->type == ZP_PARAM_DOUBLE) zp_parse_double(v.clean, &v.double_value);
  *out = v;
  return ZOLTAN_OK;
}
