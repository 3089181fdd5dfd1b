/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_methods: lists the methods built into libzoltan_plugins and their
 * parameters, then the layer's own (the capacity model).  With --markdown it prints the parameter tables of
 * docs/parameters.md; with --names only the parameter names (used by the
 * test that keeps the docs complete); with --version the library's version.
 * Needs no MPI run.
 */
#include <stdio.h>
#include <string.h>

#include "zp_method.h"

static const char *type_name(zp_param_type t)
{
  return t == ZP_PARAM_INT ? "int" : t == ZP_PARAM_DOUBLE ? "double" : "string";
}

/* Prints one method (or the layer's own parameters) in the chosen form. */
static void print_method(const zp_method *m, int md, int names, int layer)
{
  size_t j;
  if (names) {
    if (!layer) printf("%s\n", m->name);
    for (j = 0; j < m->num_params; j++) printf("%s\n", m->params[j].name);
    return;
  }
  if (md) {
    if (layer)
      printf("### Every LB_METHOD: the capacity model\n\n%s.\n\n", m->summary);
    else
      printf("### LB_METHOD=%s\n\n%s.\n\n", m->name, m->summary);
    if (m->num_params == 0) {
      printf("No parameters of its own.\n\n");
      return;
    }
    printf("| name | type | default | range | meaning |\n|---|---|---|---|---|\n");
  } else {
    printf("%s: %s\n", layer ? "(any method)" : m->name, m->summary);
  }
  for (j = 0; j < m->num_params; j++) {
    const zp_param_def *d = &m->params[j];
    char r[256];
    zp_param_allowed(d, r, sizeof r);
    if (md)
      printf("| `%s` | %s | %s | %s | %s |\n", d->name, type_name(d->type),
             d->default_value[0] ? d->default_value : "(empty)", r, d->help);
    else
      printf("  %-26s %-6s default %-8s %s: %s\n", d->name, type_name(d->type),
             d->default_value[0] ? d->default_value : "(empty)", r, d->help);
  }
  if (md) printf("\n");
}

int main(int argc, char **argv)
{
  size_t i, n = zp_method_count();
  int md = argc > 1 && strcmp(argv[1], "--markdown") == 0;
  int names = argc > 1 && strcmp(argv[1], "--names") == 0;
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("zp_methods (zoltan_plugins) %s\n", zp_version());
    return 0;
  }
  for (i = 0; i < n; i++) print_method(zp_method_at(i), md, names, 0);
  print_method(zp_layer_params(), md, names, 1);
  return 0;
}
