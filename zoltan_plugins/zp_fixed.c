/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixed objects (ZOLTAN_NUM_FIXED_OBJ_FN and ZOLTAN_FIXED_OBJ_LIST_FN): an
 * object the application fixes to a part must end in that part, whatever
 * the method.  Zoltan's PHG honours them itself; for the layer's methods
 * the framework puts every fixed object of this rank in its part after the
 * method has answered.  The method's balance of the other objects is not
 * re-planned around them (docs/plugin_layer.md says so).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"
#include "zp_partition_internal.h"

int zp_fixed_local(const zp_context *c, int *new_part, long *applied)
{
  ZOLTAN_VOID_FN *nfn = NULL, *lfn = NULL;
  void *ndata = NULL, *ldata = NULL;
  int ierr = ZOLTAN_OK, nfix, i, *parts = NULL;
  ZOLTAN_ID_TYPE *gids = NULL;
  char g[ZP_GID_TEXT];
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_NUM_FIXED_OBJ_FN_TYPE, &nfn, &ndata);
  Zoltan_Get_Fn(c->r->zz, ZOLTAN_FIXED_OBJ_LIST_FN_TYPE, &lfn, &ldata);
  if (nfn == NULL || lfn == NULL) return ZOLTAN_OK;
  nfix = ((ZOLTAN_NUM_FIXED_OBJ_FN *)nfn)(ndata, &ierr);
  if ((ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) || nfix < 0) {
    zp_error(c->yo, "ZOLTAN_NUM_FIXED_OBJ_FN returned error code %d (%d objects)", ierr, nfix);
    return ZOLTAN_FATAL;
  }
  if (nfix == 0) return ZOLTAN_OK;
  gids = malloc((size_t)nfix * c->ngid * sizeof *gids);
  parts = malloc((size_t)nfix * sizeof *parts);
  if (!gids || !parts) {
    ierr = ZOLTAN_MEMERR;
    goto End;
  }
  ierr = ZOLTAN_OK;
  ((ZOLTAN_FIXED_OBJ_LIST_FN *)lfn)(ldata, nfix, c->ngid, gids, parts, &ierr);
  if (ierr != ZOLTAN_OK && ierr != ZOLTAN_WARN) {
    zp_error(c->yo, "ZOLTAN_FIXED_OBJ_LIST_FN returned error code %d", ierr);
    ierr = ZOLTAN_FATAL;
    goto End;
  }
  ierr = ZOLTAN_OK;
  for (i = 0; i < nfix && ierr == ZOLTAN_OK; i++) {
    long k = zp_ctx_find_local(c, gids + (size_t)i * c->ngid); /* the one ID map */
    if (k < -1) {
      ierr = ZOLTAN_MEMERR;
      break;
    }
    if (k < 0 || parts[i] < 0 || parts[i] >= c->nparts) {
      zp_format_gid(gids + (size_t)i * c->ngid, c->ngid, g, sizeof g);
      if (k < 0)
        zp_error(c->yo, "ZOLTAN_FIXED_OBJ_LIST_FN fixes object %s, which is not on this rank", g);
      else
        zp_error(c->yo, "ZOLTAN_FIXED_OBJ_LIST_FN fixes object %s to part %d, outside [0, %d)", g,
                 parts[i], c->nparts);
      ierr = ZOLTAN_FATAL;
      break;
    }
    new_part[k] = parts[i];
    (*applied)++;
  }
End:
  free(gids);
  free(parts);
  return ierr;
}

void zp_fixed_report(const zp_context *c, long applied)
{
  long all = 0;
  if (c->debug_level < 1) return;
  MPI_Reduce(&applied, &all, 1, MPI_LONG, MPI_SUM, c->debug_proc, c->r->comm);
  if (all > 0 && c->r->rank == c->debug_proc)
    printf("%s: %ld fixed objects kept in their parts (ZOLTAN_FIXED_OBJ_LIST_FN)\n", c->yo, all);
}
