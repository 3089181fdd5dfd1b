/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where Zoltan 13.2's own RCB and HSFC fail on one rank only, leaving the
 * other ranks inside Zoltan for ever (soak finding S2, docs/reliability.md).
 * The bounds are measured, not derived: ctest/soak/zp_hsfc_probe.c runs
 * Zoltan's HSFC on random problems on one rank, where a failure is an
 * error code instead of a hang, and checks that it never failed within
 * them.  Pure C: no MPI, no Zoltan (the collective form is in zp_native.c).
 */
#include <math.h>
#include <string.h>

#include "zp_context.h"

/* The heaviest object may weigh at most this share of the smallest part's
 * load.  HSFC failed on 0 of 10199 random problems within it and on 1 of
 * 5625 between it and one part's load (three seeds of the probe, 20000
 * problems each, no part of size zero). */
#define ZP_CUTS_GRAIN 0.5

double zp_native_grain(const char *method, int parts, int ranks)
{
  int hsfc = method != NULL && strcmp(method, "HSFC") == 0;
  int rcb = method != NULL && strcmp(method, "RCB") == 0;
  /* RCB's failure is in the serial cuts of a rank that holds several
   * parts and that its parallel cuts left without objects. */
  return hsfc || (rcb && parts > ranks) ? ZP_CUTS_GRAIN : INFINITY;
}

const char *zp_native_bounds(const char *method, int parts, int ranks, double heavy, double total,
                             double smallest_share, int zero_part)
{
  double grain = zp_native_grain(method, parts, ranks);
  if (isinf(grain)) return NULL;
  if (zero_part) return "a part has size zero";
  /* HSFC fails on the ranks that hold objects when every weight is zero
   * (finding S2): a rank without objects then waits. */
  if (!(total > 0.0)) return "every weight is zero";
  if (smallest_share > 0.0 && heavy > grain * smallest_share * total)
    return "an object outweighs half the smallest part";
  return NULL;
}
