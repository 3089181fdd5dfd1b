/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A downstream program that uses the installed headers the way the docs
 * say: every header under <zoltan_plugins/...>, plus the umbrella under its
 * first name.  It registers a method of its own, checks that the built-in
 * methods are there, and runs the adaptive trigger once.  Exits 0 when all
 * of that works.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <zoltan.h>
#include <zoltan_plugins.h> /* the umbrella's first name still works */
#include <zoltan_plugins/adaptive_trigger.h>
#include <zoltan_plugins/adaptive_types.h>
#include <zoltan_plugins/ulba_zoltan.h>
#include <zoltan_plugins/zoltan_plugins.h>
#include <zoltan_plugins/zp_context.h>
#include <zoltan_plugins/zp_hooks.h>
#include <zoltan_plugins/zp_method.h>

static int mine_partition(const zp_problem *pb, void *state, int *new_part)
{
  size_t k;
  (void)state;
  for (k = 0; k < pb->num_obj; k++) new_part[k] = 0;
  return ZOLTAN_OK;
}

static const zp_param_def mine_params[] = {
    {"MINE_LEVEL", ZP_PARAM_INT, "1", 0, 9, 0, NULL, "an unused knob"}};

static const zp_method mine = {.abi = ZP_METHOD_ABI,
                               .name = "MINE",
                               .summary = "everything to part 0",
                               .params = mine_params,
                               .num_params = 1,
                               .partition_serial = mine_partition};

int main(int argc, char **argv)
{
  static const char *const builtins[] = {"GREEDY", "REFINE", "GREEDYREFINE", "ULBA"};
  adaptive_trigger *t;
  float ver;
  int fail = 0, rank;
  size_t i;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Zoltan_Initialize(argc, argv, &ver);
  if (zp_register_method(&mine) != ZOLTAN_OK) {
    fprintf(stderr, "headers_consumer: MINE was refused\n");
    fail = 1;
  }
  for (i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
    if (zp_find_method(builtins[i]) == NULL) {
      fprintf(stderr, "headers_consumer: built-in method %s is missing\n", builtins[i]);
      fail = 1;
    }
  }
  t = adaptive_create(MPI_COMM_WORLD);
  if (t == NULL || adaptive_set_param(t, "ADAPTIVE_POLICY", "PERIODIC") != ZOLTAN_OK ||
      adaptive_should_balance(t, 0.01) < 0) {
    fprintf(stderr, "headers_consumer: the adaptive trigger failed\n");
    fail = 1;
  }
  adaptive_destroy(&t);
  {
    /* The installed header and library come from one build. */
    char hv[32];
    snprintf(hv, sizeof hv, "%d.%d.%d", ZOLTAN_PLUGINS_VERSION_MAJOR, ZOLTAN_PLUGINS_VERSION_MINOR,
             ZOLTAN_PLUGINS_VERSION_PATCH);
    if (strcmp(hv, zp_version()) != 0) {
      fprintf(stderr, "headers_consumer: header version %s, library %s\n", hv, zp_version());
      fail = 1;
    }
  }
  if (rank == 0 && !fail)
    printf("headers_consumer: %zu methods, ZP_METHOD_ABI %u\n", zp_method_count(), ZP_METHOD_ABI);
  MPI_Finalize();
  return fail;
}
