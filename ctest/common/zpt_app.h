/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZPT_APP_H
#define ZPT_APP_H

/*
 * The object store shared by the MPI test programs (zp_testapp, zp_soak,
 * zp_badinput, ulba_growth): one weight per object, the part the
 * application believes the object is in, and the Zoltan callbacks that
 * list, pack and unpack the objects, with optional injected callback
 * failures; optional 2-D coordinates given as a function of the GID; and
 * the gather of per-object records that the programs check globally.
 * Test code only.
 */

#include <mpi.h>

#include <zoltan.h>

/* One application object; it travels whole in a migration. */
typedef struct zpt_obj {
  ZOLTAN_ID_TYPE gid; /* global ID */
  double w;           /* weight (Zoltan receives it as a float) */
  int part;           /* part the application believes it is in */
  int gone;           /* 1 after it was packed for another rank */
} zpt_obj;

/* Callback failures to inject (-1 / 0: none). */
typedef struct zpt_fault {
  int num_obj_err_rank;  /* rank whose NUM_OBJ callback fails */
  int num_obj_negative;  /* NUM_OBJ returns -5 on the last rank */
  int obj_list_err_rank; /* rank whose OBJ_LIST callback fails */
  int parts_err_rank;    /* rank whose PART_MULTI callback fails */
} zpt_fault;

/* Coordinates of an object as a function of its GID alone, so that they
 * travel with the object without being stored. */
typedef void zpt_coords_fn(ZOLTAN_ID_TYPE gid, double xy[2]);
/* The second weight of an object (with OBJ_WEIGHT_DIM = 2), e.g. the
 * memory it needs, as a function of its GID. */
typedef double zpt_weight2_fn(ZOLTAN_ID_TYPE gid);

/* Weight k >= 2 of an object, when OBJ_WEIGHT_DIM asks for more than two:
 * 1 + (gid + k) mod 4, so that every column is positive and differs from
 * the others. */
static inline float zpt_weight_extra(ZOLTAN_ID_TYPE gid, int k)
{
  return (float)(1 + (gid + (ZOLTAN_ID_TYPE)k) % 4);
}

/* The local objects of one rank. */
typedef struct zpt_app {
  zpt_obj *o;            /* objects, in local-ID order */
  int n, cap;            /* used and allocated entries */
  int rank, size;        /* position in MPI_COMM_WORLD */
  zpt_fault f;           /* injected failures */
  int bad_packs;         /* packs or unpacks whose GID did not match */
  zpt_coords_fn *coords; /* coordinates for zpt_register_geometry, or NULL */
  zpt_weight2_fn *w2;    /* second weight, or NULL (then 1) */
} zpt_app;

/* Empty store for this rank, no faults. */
void zpt_app_init(zpt_app *a);
/* Append an object (aborts the test on memory exhaustion). */
void zpt_app_push(zpt_app *a, zpt_obj o);
/* Drop the objects packed away by the last migration. */
void zpt_app_compact(zpt_app *a);
/* Register NUM_OBJ, OBJ_LIST, PART_MULTI, OBJ_SIZE, PACK, UNPACK and
 * POST_MIGRATE_PP on zz for the store a. */
void zpt_register(struct Zoltan_Struct *zz, zpt_app *a);
/* The OBJ_LIST callback alone (for programs that register FIRST/NEXT). */
ZOLTAN_OBJ_LIST_FN zpt_cb_obj_list;
/* NUM_GEOM callbacks of 1-D and 2-D applications: they ignore their data
 * pointer and always succeed. */
ZOLTAN_NUM_GEOM_FN zpt_cb_num_geom_1;
ZOLTAN_NUM_GEOM_FN zpt_cb_num_geom_2;
/* Register NUM_GEOM (2) and GEOM_MULTI on zz, answering with a->coords. */
void zpt_register_geometry(struct Zoltan_Struct *zz, zpt_app *a);

/*
 * zpt_gather_sorted - the n records of size bytes of every rank, on every
 * rank, sorted with cmp.  Collective on MPI_COMM_WORLD.  Returns an array of
 * *total records to free with free() (aborts the test on memory exhaustion).
 */
void *zpt_gather_sorted(const void *mine, int n, size_t size,
                        int (*cmp)(const void *, const void *), int *total);

#endif
