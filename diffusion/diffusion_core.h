/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DIFFUSION_CORE_H
#define DIFFUSION_CORE_H

/*
 * DIFFUSION: load balancing without a root, by implicit heterogeneous heat
 * diffusion over a graph of ranks (Watts, Rieffel and Taylor, and
 * Heirich and Taylor's implicit scheme).  Pure C on plain arrays: no MPI, no
 * Zoltan, no I/O.  The adapter (diffusion_zoltan.c) runs the per-rank
 * functions on every MPI rank and exchanges values with the neighbours; the
 * simulator (diffusion_simulate) runs the same functions for many virtual
 * ranks in one process, counting the messages instead of sending them.
 *
 * The model.  Rank i holds load L_i and has capacity C_i > 0; its
 * utilization is u_i = L_i / C_i.  Two neighbouring ranks are joined by a
 * link of weight w_ij = C_i C_j / (C_i + C_j), so that the flow a step sends
 * over the link, a w_ij (u_i - u_j), is the heterogeneous transfer of the
 * seed's dimension exchange, a (C_j L_i - C_i L_j) / (C_i + C_j).  One outer
 * round is one implicit (backward Euler) step of the diffusion: the new
 * utilizations solve
 *
 *     C_i u_i + a sum_j w_ij (u_i - u_j) = L_i           for every rank i,
 *
 * which is stable for every step length a (explicit steps are not).  The
 * system is solved by Jacobi sweeps, u_i <- (L_i + a sum_j w_ij u_j) /
 * (C_i + a sum_j w_ij), each sweep one exchange of u with the neighbours;
 * a sweep contracts the error by at most rho = max_i a W_i / (C_i + a W_i)
 * (W_i = sum_j w_ij), so m = ceil(ln(accuracy) / ln(rho)) sweeps reach an
 * accuracy (the m of the seed's figure 1; diffusion_plan says which).  The round's flows are then
 * computed from the last exchanged values on both ends of each link, so the
 * two ends agree bit for bit (f_ji = -f_ij), and the loads are updated as
 * L_i <- L_i - sum_j f_ij: the total load is conserved whatever the Jacobi
 * error.  Rounds repeat until the efficiency U_avg / U_max reaches the
 * target.  The accumulated flow of each link is the load the call transfers
 * over it; the sum of gradient flows is a gradient flow, so the transfers
 * have no cycles.
 *
 * Task selection (diffusion_select) then decides which of a rank's own
 * objects travel to each neighbour: Watts et al.'s 0-1 knapsack with a transfer
 * cost (edges cut plus a cost per object moved), solved greedily by cost
 * per unit of load, each object taken only when it brings the amount sent
 * closer to the link's quota, so that no link overshoots by more than half
 * an object.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes. */
#define DIFFUSION_OK     0  /* done */
#define DIFFUSION_WARN   1  /* done, but the efficiency target was not reached */
#define DIFFUSION_EINVAL -1 /* an argument is invalid */
#define DIFFUSION_ENOMEM -2 /* memory allocation failed */

/* Most Jacobi sweeps per round, whatever the accuracy asks. */
#define DIFFUSION_MAX_SWEEPS 200

/*
 * diffusion_link_weights - the weights w_ij of one rank's links and their
 * sum.  Not collective.
 *   c_self  this rank's capacity, finite and > 0
 *   nnbr    number of neighbours, >= 0
 *   c_nbr   their capacities, finite and > 0 (NULL when nnbr == 0)
 *   w       out: nnbr link weights, C_i C_j / (C_i + C_j), computed so that
 *           both ends of a link get the same bits
 *   wsum    out: their sum
 * Returns DIFFUSION_OK or DIFFUSION_EINVAL.
 */
int diffusion_link_weights(double c_self, int nnbr, const double *c_nbr, double *w, double *wsum);

/*
 * diffusion_plan - the step length and the Jacobi sweeps of every round.
 * Not collective; every rank calls it with the same inputs.
 *   alpha     the step length asked for, > 0
 *   kmax      the largest W_i / C_i over ranks (W_i: rank i's link weight
 *             sum), >= 0
 *   accuracy  the wanted accuracy of a round's flows, in (0, 1)
 *   alpha_out out: the step length used
 *   sweeps    out: the sweeps per round, in [1, DIFFUSION_MAX_SWEEPS]
 * A sweep contracts the error of the implicit system by at most
 * rho = a kmax / (1 + a kmax).  The flows multiply the utilizations' error
 * by up to a kmax, so the system is solved to accuracy / (1 + a kmax):
 * implicit steps are stable for any step length only when the system is
 * solved, and flows from a loosely solved system with a long step diverge.
 * When that needs more than DIFFUSION_MAX_SWEEPS sweeps, alpha is halved
 * until it does not.
 */
void diffusion_plan(double alpha, double kmax, double accuracy, double *alpha_out, int *sweeps);

/*
 * diffusion_jacobi - one Jacobi sweep on one rank: returns
 * (load + alpha sum_j w_j u_nbr_j) / (c_self + alpha wsum).  Not collective.
 *   load    the rank's load at the start of the round (>= 0)
 *   u_nbr   the neighbours' current utilizations (nnbr values)
 */
double diffusion_jacobi(double load, double c_self, double alpha, int nnbr, const double *w,
                        double wsum, const double *u_nbr);

/*
 * diffusion_round_flows - the flows of one round on one rank, from the
 * utilizations both ends of each link hold after the last sweep: flow_j =
 * alpha w_j (u_self - u_nbr_j), positive when this rank sends.  Adds each
 * flow to acc (nnbr values) and subtracts their sum from *load.  Not
 * collective.
 */
void diffusion_round_flows(double alpha, int nnbr, const double *w, double u_self,
                           const double *u_nbr, double *acc, double *load);

/*
 * diffusion_select - which local objects travel to which neighbour: seed
 * 003's 0-1 knapsack with a transfer cost, solved greedily.  Not
 * collective.
 *   n          local objects
 *   s          their loads (finite, >= 0)
 *   nnbr       neighbours
 *   quota      load to send to each neighbour; values <= 0 send nothing.
 *              The quotas are scaled down together when they add up to
 *              more than the rank's load (a rank can only send what it
 *              has; load that must pass through it travels at a later
 *              call).
 *   cost       n * nnbr locality costs, object-major: how much moving the
 *              object to that neighbour adds to the edge cut (the weight of
 *              its edges at home minus that of its edges to the neighbour;
 *              negative when the move shortens the cut), or NULL for none
 *   move_cost  the cost of moving any object, in the units of cost (>= 0)
 *   dest       out: n values, -1 (stays) or the neighbour's index
 *   sent       out: nnbr loads sent (may be NULL)
 * Neighbours are served by decreasing quota (ties: lower index).  For
 * each, the objects not yet taken are tried by increasing cost per unit of
 * load, (cost + move_cost) / load (ties: heavier first, then lower index),
 * the greedy order of a fractional knapsack that covers the quota at the
 * least cost; an object is taken when it fits in what is missing, and at
 * the end the lightest object left is taken when that brings the sent load
 * closer to the quota: a link overshoots by less than half of one object,
 * at most once, and falls short only by less than half of the lightest
 * object left behind (or when the objects run out).  Objects of load 0 never move.  The answer depends
 * only on the inputs.  Cost O(nnbr n log n).  Returns DIFFUSION_OK,
 * DIFFUSION_EINVAL or DIFFUSION_ENOMEM.
 */
int diffusion_select(size_t n, const double *s, int nnbr, const double *quota, const double *cost,
                     double move_cost, int *dest, double *sent);

/*
 * diffusion_box_neighbours - the ranks whose bounding boxes, each widened by
 * margin on every side, overlap rank self's: the neighbourhood of
 * DIFFUSION_NEIGHBORS=GEOMETRY.  Not collective; every rank computes it from
 * the same boxes, so the relation is symmetric.
 *   nranks  boxes
 *   dim     coordinates per point, 1..3
 *   boxes   nranks * 2 * dim values: the lows, then the highs; a box whose
 *           low exceeds its high in some coordinate is empty (a rank
 *           without objects) and touches nothing
 *   margin  >= 0, typically the spacing of the objects
 *   self    this rank
 *   out     out: the neighbour ranks, increasing (room for nranks - 1)
 * Returns their number, or -1 on invalid arguments.
 */
int diffusion_box_neighbours(int nranks, int dim, const double *boxes, double margin, int self,
                             int *out);

/*
 * The generalised dimension exchange (Watts et al., DIFFUSION_SCHEME=GDE): the
 * links are coloured so that no rank has two links of one colour; a round
 * visits the colours in turn, and over each link of the current colour the
 * two ranks move their utilizations towards each other.
 *
 * diffusion_gde_transfer - the load rank i sends to its partner j in one
 * step: lambda (C_j L_i - C_i L_j) / (C_i + C_j), negative when it receives;
 * the partner computes the exact negation.  lambda in (0, 1] (1 equalises
 * the pair's utilizations).  Not collective.
 */
double diffusion_gde_transfer(double li, double ci, double lj, double cj, double lambda);

/* Topologies with a colouring known in advance. */
typedef enum diffusion_topology {
  DIFFUSION_HYPERCUBE = 0, /* rank r and r xor 2^k: colour k */
  DIFFUSION_RING = 1       /* r and r + 1 (mod P): colour r mod 2, and 2 for
                              the link that closes a ring of odd length */
} diffusion_topology;

/*
 * diffusion_gde_colours - the number of colours of the topology on nranks
 * ranks (0 for one rank).  diffusion_gde_partner - rank's partner over the
 * link of colour c, or -1 when it has none of that colour.  Not collective.
 */
int diffusion_gde_colours(diffusion_topology t, int nranks);
int diffusion_gde_partner(diffusion_topology t, int nranks, int rank, int c);

/*
 * GDE on any rank graph (DIFFUSION_NEIGHBORS = GRAPH or GEOMETRY): the link
 * between ranks a and b gets colour (a + b) mod nranks.  Two links of one
 * rank a differ in colour, since a + b = a + b' (mod nranks) only when
 * b = b', so this is a proper colouring of any graph, found without a root
 * and without a message; it uses up to nranks colours, but a rank takes part
 * only in the colours of its own links.  Each rank handles its links in
 * increasing colour: both ends see the same colour, so every exchange waits
 * only on exchanges of smaller colours, which cannot deadlock, and the loads
 * evolve exactly as when every colour is a synchronous step in turn.
 *
 * diffusion_gde_link_colour - the colour of the link (a, b), a != b, both in
 * [0, nranks).  diffusion_gde_link_order - the neighbours' indices 0..nnbr-1
 * in increasing colour of their links with rank self (order: nnbr entries).
 * Not collective.
 */
int diffusion_gde_link_colour(int a, int b, int nranks);
void diffusion_gde_link_order(int self, int nnbr, const int *nbr, int nranks, int *order);

/* A graph of virtual ranks for the simulator: compressed rows, symmetric,
 * no self-loops, no repeated links. */
typedef struct diffusion_graph {
  int nranks;          /* number of ranks, >= 1 */
  const size_t *start; /* nranks + 1 offsets into adj */
  const int *adj;      /* neighbour ranks */
} diffusion_graph;

/* Options of the diffusion iteration (the adapter reads them from
 * parameters). */
typedef struct diffusion_options {
  double alpha;      /* step length a of the implicit step, > 0 (lowered by
                        diffusion_plan when the sweeps would not suffice) */
  double efficiency; /* stop when U_avg / U_max >= this, in (0, 1] */
  double accuracy;   /* Jacobi accuracy per round, in (0, 1) */
  int max_rounds;    /* most outer rounds, >= 1 */
} diffusion_options;

/*
 * diffusion_default_options - alpha 10, efficiency 0.98, accuracy 0.02
 * (1 - efficiency, as the seed sets it), at most 200 rounds.  Not
 * collective.
 */
void diffusion_default_options(diffusion_options *opt);

/* What a diffusion run cost and reached (simulator and adapter). */
typedef struct diffusion_stats {
  int rounds;            /* outer rounds */
  int sweeps;            /* Jacobi sweeps per round */
  long exchanges;        /* neighbour exchanges of one value (all rounds) */
  long reductions;       /* global reductions of one value */
  double eff_before;     /* U_avg / U_max at the start */
  double eff_after;      /* U_avg / U_max of the diffused loads */
  size_t max_degree;     /* most neighbours of one rank */
  double max_rank_bytes; /* bytes received by the busiest rank, 8 per value */
} diffusion_stats;

/*
 * diffusion_simulate - run the diffusion for every rank of g in one process
 * with the per-rank functions above, as the adapter runs them over MPI, and
 * return the transfer over each link.  Not collective.
 *   cap    nranks capacities (finite, > 0)
 *   load   nranks loads (finite, >= 0); out: the diffused loads
 *   opt    options, or NULL for the defaults
 *   flow   out: one value per adj entry, the load rank r sends over
 *          adj[k] (negative: receives); flow of (r, q) = -flow of (q, r)
 *   phi    out: nranks potentials (the sum over rounds of each rank's
 *          solved utilization; flows run from higher to lower), or NULL
 *   st     statistics, or NULL
 * Returns DIFFUSION_OK, DIFFUSION_WARN (max_rounds reached below the
 * target efficiency; the flows so far are returned), DIFFUSION_EINVAL or
 * DIFFUSION_ENOMEM.
 */
int diffusion_simulate(const diffusion_graph *g, const double *cap, double *load,
                       const diffusion_options *opt, double *flow, double *phi,
                       diffusion_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* DIFFUSION_CORE_H */
