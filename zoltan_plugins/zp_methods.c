/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zp_methods: lists the methods built into libzoltan_plugins and their
 * parameters, then the layer's own (the capacity model).  With --markdown it prints the parameter tables of
 * docs/parameters.md; with --names only the parameter names (used by the
 * test that keeps the docs complete); with --man its man page (troff), with
 * --man-section only the methods and parameters part that the driver's page
 * includes too; with --version the library's version.
 * Needs no MPI run.
 */
#include <stdio.h>
#include <string.h>

#include "zp_method.h"

static const char *type_name(zp_param_type t)
{
  return t == ZP_PARAM_INT ? "int" : t == ZP_PARAM_DOUBLE ? "double" : "string";
}

/* Prints text for troff: a backslash is doubled (\\e), and a line that
 * would start with a control character is protected with \\&. */
static void troff(const char *text)
{
  const char *c;
  if (text[0] == '.' || text[0] == '\'') fputs("\\&", stdout);
  for (c = text; *c; c++) {
    if (*c == '\\')
      fputs("\\e", stdout);
    else
      putchar(*c);
  }
}

/* The heading of a group of the layer's own parameters. */
static const char *layer_title(const zp_method *m)
{
  if (strcmp(m->name, "CAPACITY") == 0) return "the capacity model";
  if (strcmp(m->name, "GUARD") == 0) return "the guard of Zoltan's own methods";
  if (strcmp(m->name, "HIERARCHY") == 0) return "hierarchical balancing";
  return "the load database";
}

/* One method (or the layer's parameters) as a man page subsection. */
static void print_method_man(const zp_method *m, int layer)
{
  size_t j;
  if (layer)
    printf(".SS Every LB_METHOD: %s\n", layer_title(m));
  else
    printf(".SS %s\n", m->name);
  troff(m->summary);
  printf(".\n");
  if (m->num_params == 0) printf(".PP\nNo parameters of its own.\n");
  for (j = 0; j < m->num_params; j++) {
    const zp_param_def *d = &m->params[j];
    char r[256];
    zp_param_allowed(d, r, sizeof r);
    printf(".TP\n.B %s\n", d->name);
    printf("%s, default ", type_name(d->type));
    troff(d->default_value[0] ? d->default_value : "(empty)");
    printf(", range ");
    troff(r);
    printf(".\n");
    troff(d->help);
    printf("\n");
  }
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
      printf("### Every LB_METHOD: %s\n\n%s.\n\n", layer_title(m), m->summary);
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

/* The man page's section of methods and parameters, from the same registry
 * as docs/parameters.md, so that the two cannot disagree. */
static void print_man_section(void)
{
  size_t i, n = zp_method_count();
  printf(".SH METHODS AND PARAMETERS\n");
  printf("Set with Zoltan_Set_Param (or a zdrive deck's \\fIZoltan Parameters\\fR line). "
         "Values are case-insensitive except file names; DEFAULT restores the default.\n");
  for (i = 0; i < n; i++) print_method_man(zp_method_at(i), 0);
  for (i = 0; zp_layer_param_group(i) != NULL; i++) print_method_man(zp_layer_param_group(i), 1);
}

/* The whole zp_methods(1) page. */
static void print_man_page(void)
{
  printf(".TH ZP_METHODS 1 \"\" \"zoltan_plugins %s\" \"zoltan_plugins\"\n", zp_version());
  printf(".SH NAME\nzp_methods \\- list the load-balancing methods of zoltan_plugins and their "
         "parameters\n");
  printf(".SH SYNOPSIS\n.B zp_methods\n[\\fB\\-\\-markdown\\fR | \\fB\\-\\-names\\fR | "
         "\\fB\\-\\-man\\fR | \\fB\\-\\-version\\fR]\n");
  printf(".SH DESCRIPTION\nzoltan_plugins adds load-balancing methods to Trilinos Zoltan. An "
         "application selects one with Zoltan's own LB_METHOD parameter once the library is "
         "linked ahead of Zoltan or preloaded (LD_PRELOAD). \\fBzp_methods\\fR prints the methods "
         "built into the library, with the type, default, range and meaning of each parameter. "
         "It needs no MPI run.\n");
  printf(".SH OPTIONS\n.TP\n.B \\-\\-markdown\nThe tables of docs/parameters.md.\n"
         ".TP\n.B \\-\\-names\nOnly the method and parameter names, one per line.\n"
         ".TP\n.B \\-\\-man\nThis page, in troff.\n"
         ".TP\n.B \\-\\-man\\-section\nOnly its METHODS AND PARAMETERS section (other pages "
         "include it).\n"
         ".TP\n.B \\-\\-version\nThe library's version.\n");
  print_man_section();
  printf(".SH ENVIRONMENT\n"
         ".TP\n.B ZOLTAN_PLUGINS_LB_METHOD\nReplaces every LB_METHOD the application sets.\n"
         ".TP\n.B ZOLTAN_PLUGINS_PARAMS\nNAME=VALUE,NAME=VALUE applied to every new Zoltan "
         "struct.\n"
         ".TP\n.B ZOLTAN_PLUGINS_VERBOSE\nWhen set (and not 0), rank 0 prints one line per struct "
         "naming the method that ran.\n");
  printf(".SH SEE ALSO\n.BR zp_zdrive (1),\n.BR zp\\-check (1),\n.BR zp\\-plot (1)\n");
}

int main(int argc, char **argv)
{
  size_t i, n = zp_method_count();
  int md = argc > 1 && strcmp(argv[1], "--markdown") == 0;
  int names = argc > 1 && strcmp(argv[1], "--names") == 0;
  if (argc > 1 && strcmp(argv[1], "--man") == 0) {
    print_man_page();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--man-section") == 0) {
    print_man_section();
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    printf("zp_methods (zoltan_plugins) %s\n", zp_version());
    return 0;
  }
  for (i = 0; i < n; i++) print_method(zp_method_at(i), md, names, 0);
  for (i = 0; zp_layer_param_group(i) != NULL; i++)
    print_method(zp_layer_param_group(i), md, names, 1);
  return 0;
}
