/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ZP_HIER_INTERNAL_H
#define ZP_HIER_INTERNAL_H

/*
 * Hierarchical runs of centralised methods (HIERARCHY), shared by
 * zp_hier.c (the decision and the tree's communicators) and zp_hier_run.c
 * (the run).  docs/hierarchy.md describes the algorithm.
 */

#include "hier_core.h"
#include <string.h>

#include "zp_partition_internal.h"

/* Weights per object whose totals the decision's allreduce carries. */
#define ZP_HIER_SUM_DIMS 8

/* The tag of the answers' exchange (step 6) on the struct's communicator. */
#define ZP_HIER_TAG 7711

typedef struct zp_hier_comms zp_hier_comms;

/* The tree of one struct, kept in its record (zp_record.hier). */
struct zp_hier_comms {
  hier_spec spec;                   /* the shape it was built for */
  int nup;                          /* levels above the bottom groups */
  MPI_Comm group;                   /* this rank's bottom group; rank 0 is its root */
  MPI_Comm up[HIER_MAX_LEVELS + 1]; /* up[j], j = 1..nup: the roots of level j - 1
                                       within one node of level j (rank 0 is
                                       that node's root), MPI_COMM_NULL where
                                       this rank is not such a root */
  int *members;                     /* group root: the group's ranks in the
                                       struct's communicator, ascending */
  int nmembers;                     /* entries of members */
  /* Per level j, on the root of up[j] (else 0 and NULL): built with the
   * communicators, so that a call allocates nothing it could fail on
   * before the records travel. */
  int m[HIER_MAX_LEVELS + 1];        /* children */
  int *roots[HIER_MAX_LEVELS + 1];   /* each child's root in the struct's communicator */
  double *recs[HIER_MAX_LEVELS + 1]; /* 4 * m: the children's records */
  int *cnt[HIER_MAX_LEVELS + 1];     /* m: counts of a gather or scatter */
  int *displ[HIER_MAX_LEVELS + 1];   /* m: its displacements */
  int end[HIER_MAX_LEVELS + 1];      /* one past the last rank of the node's
                                        subtree (its ranks are consecutive) */
  MPI_Comm bottom_roots;             /* every bottom group's root, in group
                                        order (groups of consecutive ranks
                                        only; else MPI_COMM_NULL) */
};

/* Tokens placed at one level's root, kept from step 3 for step 4. */
typedef struct zp_hier_level {
  unsigned char *tok;  /* the tokens received from the children, packed */
  size_t ntok;         /* how many */
  int *child;          /* the child each was placed into, -1 = passed up */
  int m;               /* children */
  double *room;        /* each child's room after the placement */
  unsigned char *open; /* 1 for children that hold parts */
  double *slack;       /* how far above its target each child may go
                         (refining methods), or NULL */
  int *roots;          /* each child's root in the struct's communicator */
  int end;             /* one past the last rank of this node's subtree */
} zp_hier_level;

/* Everything one run holds; the group arrays exist on bottom roots only. */
typedef struct zp_hrun {
  zp_context *c;
  zp_hier_comms *h;
  int ngid, wdim, with_sizes;
  size_t rec;       /* bytes of one token */
  double *total;    /* wdim weight totals over every rank, then the count */
  int gsize, groot; /* size of the bottom group, 1 on its root */
  int *cnt, *displ; /* root: objects of each group member and where they land */
  size_t n;         /* root: objects of the group */
  ZOLTAN_ID_TYPE *gids;
  double *w, *sizes;   /* root: weights (wdim each) and sizes (or NULL) */
  int *parts;          /* root: current parts */
  unsigned char *take; /* root: 1 for a shed object */
  int *answer;         /* root: the new part of each group object */
  int *lp, mq;         /* root: the group's parts, ascending, and their number */
  double room;         /* this rank's subtree: room below its target */
  int open;            /* 1 when the subtree holds a part with a target */
  double slack;        /* this rank's subtree: the tolerance's allowance */
  double target;       /* root: the group's target load (first weight) */
  unsigned char *up;   /* tokens this rank carries to the next level */
  size_t nup;
  int *reply;          /* root: room for the answers to its shed objects */
  int pending;         /* a local error not agreed yet (zp_hier_agree) */
  int with_graph;      /* 1 when the method reads the graph: edges travel
                          within groups (zp_hier_graph.c) */
  int edim;            /* weights per edge that travel */
  int *nedges;         /* root: edges of each group object */
  size_t *estart;      /* root: first edge of each group object */
  ZOLTAN_ID_TYPE *nbr; /* root: neighbour global IDs */
  int *nbrp;           /* root: the rank of each neighbour (as the callbacks
                          gave it) */
  double *ew;          /* root: edim weights per edge, or NULL */
  unsigned char *down; /* tokens received from the level above */
  size_t ndown;
  const double *w0;      /* root: the first weight of each group object */
  size_t *gadj_start;    /* root: the edges among the group's objects (x->n + 1) */
  size_t *gadj;          /*   their other ends */
  int *egroup;           /* root: per edge, the group its other end is in when
                          that is another group, else -1 */
  unsigned char *flowed; /* root: 1 for an object a flow sent (zp_hier_flow.c) */
  size_t nflowed;        /* root: how many */
  double flow_out;       /* root: their load */
  double flow_in;        /* root: the load of the tokens flows brought */
  unsigned char *fin;    /* root: those tokens */
  size_t nfin;
  int *fin_ne;             /* root: the edges each of them brought */
  size_t *fin_es;          /*   where each one's start (nfin + 1 entries) */
  ZOLTAN_ID_TYPE *fin_nbr; /* their neighbours' global IDs */
  double *fin_ew;          /*   their weights, edim each */
  zp_hier_level lev[HIER_MAX_LEVELS + 1];
} zp_hrun;

/* The group's number of global part p (its index in x->lp, the group's
 * parts in ascending order), -1 when the part is another group's.  Local. */
static inline int zp_local_part(const zp_hrun *x, int p)
{
  int lo = 0, hi = x->mq;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (x->lp[mid] < p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < x->mq && x->lp[lo] == p ? lo : -1;
}

/* ---- tokens ------------------------------------------------------------------ */

/* A token: ngid IDs, wdim weights, the size when sizes travel, the rank
 * its edges lead to (near: a graph method's shed, else -1), the rank of
 * the root it came from and its index there. */
static inline size_t zp_tok_bytes(const zp_hrun *x)
{
  size_t b = (size_t)x->ngid * sizeof(ZOLTAN_ID_TYPE) + (size_t)x->wdim * sizeof(double) +
             (x->with_sizes ? sizeof(double) : 0) + 3 * sizeof(int);
  return (b + 7) / 8 * 8;
}

static inline void zp_tok_put(const zp_hrun *x, unsigned char *t, size_t i, int origin, int near)
{
  size_t g = (size_t)x->ngid * sizeof(ZOLTAN_ID_TYPE), wb = (size_t)x->wdim * sizeof(double);
  int idx = (int)i;
  memcpy(t, x->gids + i * x->ngid, g);
  memcpy(t + g, x->w + i * x->wdim, wb);
  if (x->with_sizes) memcpy(t + g + wb, x->sizes + i, sizeof(double));
  memcpy(t + x->rec - 3 * sizeof(int), &near, sizeof(int));
  memcpy(t + x->rec - 2 * sizeof(int), &origin, sizeof(int));
  memcpy(t + x->rec - sizeof(int), &idx, sizeof(int));
}

/* The rank a token's edges lead to, or -1. */
static inline int zp_tok_near(const zp_hrun *x, const unsigned char *t)
{
  int near;
  memcpy(&near, t + x->rec - 3 * sizeof(int), sizeof(int));
  return near;
}

static inline double zp_tok_w0(const zp_hrun *x, const unsigned char *t)
{
  double w;
  memcpy(&w, t + (size_t)x->ngid * sizeof(ZOLTAN_ID_TYPE), sizeof w);
  return w;
}

/* A token's origin and index there; *home is 1 for a token on its way
 * back to where it came from (no group could take it within the
 * tolerance of a refining method: it stays, as the flat method would
 * leave it). */
static inline void zp_tok_origin(const zp_hrun *x, const unsigned char *t, int *origin, int *idx,
                                 int *home)
{
  int i;
  memcpy(origin, t + x->rec - 2 * sizeof(int), sizeof(int));
  memcpy(&i, t + x->rec - sizeof(int), sizeof(int));
  *home = i < 0;
  *idx = i < 0 ? -i - 1 : i;
}

/* Mark a token as on its way home. */
static inline void zp_tok_send_home(const zp_hrun *x, unsigned char *t)
{
  int i;
  memcpy(&i, t + x->rec - sizeof(int), sizeof(int));
  if (i >= 0) i = -i - 1;
  memcpy(t + x->rec - sizeof(int), &i, sizeof(int));
}

/* Root of a bottom group (steps 5 and 6 of zp_hier_run.c, in
 * zp_hier_solve.c): run the method on the group's kept objects and the
 * tokens that reached it, with the group's parts; x->answer receives the
 * kept objects' parts and *tok_part (malloc'd, x->ndown entries) the
 * tokens'.  Local; agreed by the caller. */
int zp_hier_solve(zp_hrun *x, int **tok_part);
/* Step 1b, when x->with_graph: the group's edges on its root
 * (zp_hier_graph.c).  Collective; the outcome is agreed. */
int zp_hier_gather_graph(zp_hrun *x);

/* Root of a bottom group, for a graph method that does not refine: the
 * objects to shed (x->take, *shed their load) peeled from the group's
 * border inwards (hier_select_near, with mode and amount as hier_select),
 * and near[k] for each group object, the rank its edges lead to (-1 for
 * none).  order is scratch of x->n entries.  Returns the number shed, or
 * (size_t)-1 when memory is short.  Local (zp_hier_graph.c). */
size_t zp_hier_graph_shed(zp_hrun *x, const double *w0, double amount, hier_shed_mode mode,
                          size_t *order, int *near, double *shed);

/* Root of a bottom group: the edges among its objects and, per edge, the
 * group the other end is in (x->gadj_start, x->gadj, x->egroup), built
 * once per call.  Local (zp_hier_graph.c). */
int zp_hier_group_csr(zp_hrun *x);

/* 1 when this call routes load between groups along the group graph
 * first (zp_hier_flow.c): a graph method that does not refine, on groups
 * of consecutive ranks.  The same on every rank. */
int zp_hier_flows_on(const zp_hrun *x);

/* With flows, how far above its target a group may stay: half of
 * IMBALANCE_TOL's allowance (1 + (tol - 1) / 2), so that the flows move no
 * more load than the tolerance requires, and the method inside the group
 * keeps the other half for its parts (its tolerance is rescaled to the
 * global one, zp_hier_solve.c).  Local. */
double zp_hier_flow_headroom(const zp_hrun *x);

/* Step 1c, when zp_hier_flows_on: the top of the tree solves the flows of
 * load between neighbouring groups (hier_group_flows) from one record per
 * group and splits them into routes (hier_flow_routes); each group peels
 * the routes that leave from one border as one layer (hier_peel) and sends
 * each route's objects straight to its destination's root (x->flowed,
 * x->fin).  Collective over the struct's communicator; the outcome is
 * agreed. */
int zp_hier_flows(zp_hrun *x);

/* Root of a bottom group, after step 4: the tokens the flows brought
 * (x->fin) join those the tree sent down (x->down); a failure waits in
 * x->pending.  Local (zp_hier_flow.c). */
int zp_hier_join_flows(zp_hrun *x);

/* Step 6: the tokens' parts back to the roots they came from, into their
 * x->answer.  Collective over the struct's communicator. */
int zp_hier_reply(zp_hrun *x, const int *tok_part);

/* The run on the tree h (totals: the weight totals over every rank, then
 * the object count, or NULL to sum them here): every group's objects
 * gathered on its root,
 * surplus shed as tokens, tokens placed level by level, the method run on
 * each group's objects and parts, the tokens' parts sent back.  new_part
 * receives the part of each local object.  Collective; the outcome is
 * agreed. */
int zp_run_hier(zp_context *c, zp_hier_comms *h, const double *totals, int *new_part);

/* Agree on local, together with the error this rank found since the last
 * agreement and kept in x->pending (which is cleared): the steps fold
 * their local failures into the next agreement instead of adding one each.
 * Collective over the struct's communicator.  Inline, so that every step's
 * file uses it without depending on the file that runs the steps. */
static inline int zp_hier_agree(zp_hrun *x, int local)
{
  int mine = local < 0 ? local : x->pending < 0 ? x->pending : local;
  if (mine >= 0 && (local == ZOLTAN_WARN || x->pending == ZOLTAN_WARN)) mine = ZOLTAN_WARN;
  x->pending = ZOLTAN_OK;
  return zp_agree(x->c, mine);
}

/* 1 when HIERARCHY names a shape (NODE or sizes), not AUTO or NONE.  Local. */
int zp_hier_explicit(const zp_context *c);

#endif /* ZP_HIER_INTERNAL_H */
