/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef HIER_CORE_H
#define HIER_CORE_H

/*
 * The decisions of hierarchical balancing (HIERARCHY, docs/hierarchy.md),
 * as pure C on plain arrays: no MPI, no Zoltan, no I/O.  The layer's
 * adapter (zoltan_plugins/zp_hier.c) moves the data between the levels of
 * the tree; the virtual-rank simulator (bench/hierarchy) calls the same
 * functions, so that what it measures is what the library does.
 *
 * The tree: ranks form groups (level 0), groups form groups of groups, and
 * so on up to one root.  A group whose load is above its target sheds
 * objects ("tokens") worth the surplus; every level's root places the
 * tokens that reach it into its children's remaining room, passes up what
 * does not fit, and the top places the rest.  Only one record per child and
 * the tokens travel between levels, never a group's other objects.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Deepest tree the layer builds: levels of groups below the top. */
#define HIER_MAX_LEVELS 8

/* A parsed HIERARCHY (or TOPOLOGY) value. */
typedef enum hier_kind {
  HIER_NONE = 0, /* flat: one root sees every object */
  HIER_AUTO = 1, /* flat below HIERARCHY_MIN_RANKS and HIERARCHY_MAX_BYTES */
  HIER_NODE = 2, /* groups of the ranks that share memory */
  HIER_SIZES = 3 /* explicit group sizes, bottom up */
} hier_kind;

typedef struct hier_spec {
  hier_kind kind;            /* what the value asks for */
  int nlevels;               /* HIER_SIZES: entries of size[] */
  int size[HIER_MAX_LEVELS]; /* HIER_SIZES: ranks per group at level 0,
                                  groups per group above, each >= 1 */
} hier_spec;

/*
 * hier_parse - read a HIERARCHY value: NONE, NODE, AUTO or "g1,g2,..."
 * (group sizes from the bottom up, integers >= 1, at most HIER_MAX_LEVELS).
 * With top_down = 1 the list is read as Zoltan's TOPOLOGY ("2,8" = 2 sockets
 * of 8 cores: groups of 8 ranks, then groups of 2 groups) and the words are
 * not accepted.  value is already trimmed and upper-case.  Not collective.
 * Returns 0, or -1 with a reason (for a message that names the value) in
 * why (cap bytes) and *spec unchanged.
 */
int hier_parse(const char *value, int top_down, hier_spec *spec, char *why, size_t cap);

/*
 * hier_check_fit - whether explicit sizes fit nranks ranks: their product
 * may not exceed nranks (a group larger than the communicator cannot be
 * formed) and there may not be more levels than ranks.  Not collective.
 * Returns 0, or -1 with a reason in why.
 */
int hier_check_fit(const hier_spec *spec, int nranks, char *why, size_t cap);

/*
 * hier_auto_sizes - the sizes HIERARCHY=AUTO uses when it turns on for
 * nranks ranks: groups of fan ranks (fan >= 2), then groups of fan groups,
 * while the top would otherwise have more than fan children; fewer than
 * 2 * fan ranks give two groups of about half.  (64 ranks per group: two
 * levels up to 4096 ranks, three up to 262144.)  Returns the number of
 * levels written to size (at most HIER_MAX_LEVELS).  Not collective.
 */
int hier_auto_sizes(int nranks, int fan, int *size);

/* How hier_select meets the amount. */
typedef enum hier_shed_mode {
  HIER_SHED_CLOSE = 0,   /* as close to the amount as it can get */
  HIER_SHED_ALL = 1,     /* every object (a group that holds no part) */
  HIER_SHED_AT_LEAST = 2 /* at least the amount, when the objects allow (a
                             refining method: what stays is then within the
                             tolerance) */
} hier_shed_mode;

/*
 * hier_select - the objects a group sheds: of the n objects with loads w,
 * the heaviest that still fit into amount, in order of decreasing load
 * (ties by index), so that the surplus leaves in as few objects as
 * possible; then, while some is left, the lightest remaining object when
 * taking it brings the shed load closer to amount (HIER_SHED_CLOSE) or
 * whatever its load (HIER_SHED_AT_LEAST).  Objects of zero load never leave
 * (moving them gains nothing), except with HIER_SHED_ALL, which sheds
 * every object.  order is scratch of n entries.
 * Output: take[i] = 1 for a shed object, else 0.  Returns the number shed
 * and *shed their load.  Not collective; deterministic.
 */
size_t hier_select(const double *w, size_t n, double amount, hier_shed_mode mode, size_t *order,
                   unsigned char *take, double *shed);

/*
 * hier_select_refine - the objects a group sheds for a refining method,
 * which moves objects only off parts above their limit, as few as it can.
 * Of the n objects with loads w in the group's parts part[i] (0..m-1, or
 * -1 for an object in none of them), each part above limit[q] sheds at
 * least its excess (hier_select, HIER_SHED_AT_LEAST, so that it ends
 * within its limit), every object in no part is shed, and then, heaviest
 * first, shed objects that fit into the room the group's parts have below
 * their target[q] stay (the method moves them inside the group).  order is
 * scratch of n entries.  Output: take[i]; returns the number shed and
 * *shed their load, or (size_t)-1 when memory is short.  Not collective;
 * deterministic.
 */
size_t hier_select_refine(const double *w, const int *part, size_t n, const double *limit,
                          const double *target, int m, size_t *order, unsigned char *take,
                          double *shed);

/*
 * hier_select_near - hier_select for a graph method: the objects are taken
 * in breadth-first order from the group's border inwards instead of
 * heaviest first.  adj_start (n + 1 entries) and adj hold the edges among
 * the group's n objects (entries >= n are ignored).  near[i] >= 0 marks a
 * border object (one with an edge out of the group: the rank its heaviest
 * such edge leads to); on return every object reached from the border
 * carries the near rank of the border object it was reached from, and the
 * others -1.  Objects with no path to the border come last, in index
 * order.  In that order, each object that fits into what is left of the
 * amount is taken, then the first one left that brings the shed closer to
 * the amount (HIER_SHED_AT_LEAST: any).  mode, amount, take and *shed as
 * hier_select; order is scratch of n entries.  Returns the number shed.  Not collective; deterministic.
 */
size_t hier_select_near(const double *w, size_t n, const size_t *adj_start, const size_t *adj,
                        int *near, double amount, hier_shed_mode mode, size_t *order,
                        unsigned char *take, double *shed);

/*
 * hier_peel - the objects to send over one link between groups, peeled
 * from the border with the neighbour inwards: breadth first from the
 * objects with seed[i] != 0 through the group's edges (adj_start, adj as
 * in hier_select_near), among the objects not taken yet (take[i] == 0),
 * each that fits into what is left of amount is taken, then the first left
 * that brings the shed closer to amount.  take is updated (objects already
 * taken stay taken); *shed receives the load taken now.  queue and seen are
 * scratch of n entries; on return queue begins with the objects in the
 * order they were reached, every object taken now among them.  Returns the
 * number taken now.  Not collective; deterministic.
 */
size_t hier_peel(const double *w, size_t n, const size_t *adj_start, const size_t *adj,
                 const unsigned char *seed, double amount, size_t *queue, unsigned char *seen,
                 unsigned char *take, double *shed);

/*
 * hier_group_flows - the load each link of the group graph carries so that
 * every group ends near its target: the implicit diffusion of
 * diffusion_simulate over the m groups (capacities the targets), until
 * the largest load over target is at most 1 / efficiency (in (0, 1]) times
 * the average, or 1000 rounds.  start (m + 1 entries) and adj: each group's
 * neighbours, symmetric, without repeats; a group with no target or no
 * load keeps no link.  Output flow[k], one per adj entry: the load group q
 * sends to adj[k] (negative: receives).  Returns 0, or -1 when memory is
 * short or the input is not a graph (the flows are then zero).  Not
 * collective; deterministic.
 */
int hier_group_flows(int m, const double *load, const double *target, const size_t *start,
                     const int *adj, double efficiency, double *flow);

/* One route of the flows between groups: group src sends amount of load,
 * peeled from its border with group first, to group dst, hops links away
 * (dst == first when hops is 1). */
typedef struct hier_route {
  int src, first, dst, hops;
  double amount;
} hier_route;

/*
 * hier_flow_routes - how the flows of hier_group_flows travel.  The flows
 * (start, adj, flow as hier_group_flows's output, m groups) are split into
 * paths from a group that sends more than it receives to one that receives
 * more than it sends, following the links of largest flow (a cycle met on
 * the way is cancelled: it changes no group's balance).  A path of h >= 2
 * links of amount a goes straight from its first group to its last when
 * border[k] (the edge weight between the first group and the next one,
 * one value per adj entry) is at most (h - 1) a unit[src], unit being a
 * group's mean edge weight times its objects per unit of load: the layer
 * peeled from that border, sent straight, cuts about its edges once, while
 * sent hop by hop its load moves h times (one moved object costing one mean
 * edge).  Otherwise it becomes h one-link routes.  Output: *routes
 * (malloc'd, caller frees) and *nroutes, one route per (src, first, hops,
 * dst), sorted by src, first, hops, dst; the net load each group sends is the
 * flows'.  Returns 0, or -1 when memory is short or adj names a group
 * outside 0..m-1.  Not collective; deterministic.
 */
int hier_flow_routes(int m, const size_t *start, const int *adj, const double *flow,
                     const double *border, const double *unit, hier_route **routes,
                     size_t *nroutes);

/*
 * hier_place - place n tokens of loads w into m children with room room[c]
 * (target minus load, may be negative), heaviest token first (ties by
 * index) into the child of most room (ties by lowest index), the LPT rule.
 * Only children with open[c] != 0 (they hold parts) take tokens.  A token
 * goes where it brings the child closer to its target (load < 2 room) and,
 * when slack is not NULL, leaves it at most slack[c] above its target (the
 * tolerance of a refining method); otherwise it stays unplaced (child -1)
 * for the level above, unless
 * must = 1 (the top, or tokens sent down to this node), which places every
 * token while some child is open.  room is updated.  order is scratch of
 * n entries, heap of m.  Output: child[k] for each token.  Returns the
 * number placed.  Not collective; deterministic.
 */
size_t hier_place(const double *w, size_t n, double *room, const double *slack,
                  const unsigned char *open, int m, int must, size_t *order, int *heap, int *child);

/*
 * hier_place_near - hier_place where token k names the child it should
 * join, near[k] (-1: none).  First, heaviest first, each token that names
 * an open child goes there when it brings that child closer to its target
 * (and within its slack); the rest are then placed by hier_place's rule.
 * near may be NULL (hier_place).  Not collective; deterministic.
 */
size_t hier_place_near(const double *w, const int *near, size_t n, double *room,
                       const double *slack, const unsigned char *open, int m, int must,
                       size_t *order, int *heap, int *child);

/*
 * hier_room - the room a node reports to its parent: the sum of its
 * children's positive room (open children only).  Not collective.
 */
double hier_room(const double *room, const unsigned char *open, int m);

#ifdef __cplusplus
}
#endif

#endif /* HIER_CORE_H */
