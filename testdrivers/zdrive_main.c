/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zdrive - a test driver compatible with Zoltan's zdrive.
 *
 * Usage: mpiexec -n P zdrive [deck]      (deck defaults to "zdrive.inp")
 *
 * See docs/zdrive.md for the deck keys, what is implemented, and the
 * dynamic mode ("dynamic iterations", "dynamic growth").
 *
 * Every error ends the run on all ranks together: the rank that found it
 * shares its message, every rank prints it (naming the file and line), and
 * the exit status is 1.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "zdrive.h"

/*
 * zdrive_set_error - not collective: records "file:line: message" (or
 * "file: message" when line is 0) in st, keeping the first error.
 */
void zdrive_set_error(zdrive_status *st, const char *file, int line, const char *fmt, ...)
{
  char msg[1024];
  va_list ap;
  if (st->text[0]) return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  if (line > 0)
    snprintf(st->text, sizeof(st->text), "%s:%d: %s", file, line, msg);
  else
    snprintf(st->text, sizeof(st->text), "%s: %s", file, msg);
}

/*
 * Collective: returns 1 on every rank if any rank has an error, after
 * copying the message of the lowest such rank into everyone's st.
 */
static int agree_on_error(zdrive_status *st, MPI_Comm comm)
{
  int rank, mine, first;
  MPI_Comm_rank(comm, &rank);
  mine = st->text[0] ? rank : INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return 0;
  MPI_Bcast(st->text, (int)sizeof(st->text), MPI_CHAR, first, comm);
  return 1;
}

/* zdrive's coordinate perturbation between "number of iterations" passes. */
static void perturb(zdrive_mesh *m)
{
  int i, j;
  float twiddle = 0.01f;
  for (i = 0; i < m->num_elems; i++)
    for (j = 0; j < m->num_dims; j++) {
      float tmp = (float)(i % 10) / 10.0f;
      m->elems[i].coord[j] += twiddle * (2.0 * tmp - 1.0);
    }
}

/*
 * The dynamic mode's weight model: a region that grows from the low corner
 * of the bounding box.  At step k of n, objects closer to the corner than
 * k/n of the box diagonal weigh (1 + growth) times their file weight; the
 * others keep it.  Without coordinates the region is the first k/n of the
 * global IDs.  The model is deterministic: no random numbers.
 */
static void grow_weights(zdrive_mesh *m, const float *base, int k, int n, double growth,
                         MPI_Comm comm)
{
  double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, glo[3], ghi[3], diag = 0.0, frac;
  int i, d;
  frac = (double)k / (double)n;
  if (m->num_dims > 0) {
    for (d = 0; d < 3; d++) {
      lo[d] = 1e300;
      hi[d] = -1e300;
    }
    for (i = 0; i < m->num_elems; i++)
      for (d = 0; d < m->num_dims; d++) {
        if (m->elems[i].coord[d] < lo[d]) lo[d] = m->elems[i].coord[d];
        if (m->elems[i].coord[d] > hi[d]) hi[d] = m->elems[i].coord[d];
      }
    MPI_Allreduce(lo, glo, 3, MPI_DOUBLE, MPI_MIN, comm);
    MPI_Allreduce(hi, ghi, 3, MPI_DOUBLE, MPI_MAX, comm);
    for (d = 0; d < m->num_dims; d++) diag += (ghi[d] - glo[d]) * (ghi[d] - glo[d]);
    diag = sqrt(diag);
  }
  for (i = 0; i < m->num_elems; i++) {
    zdrive_elem *e = &m->elems[i];
    int inside;
    if (m->num_dims > 0) {
      double r = 0.0;
      for (d = 0; d < m->num_dims; d++) r += (e->coord[d] - glo[d]) * (e->coord[d] - glo[d]);
      inside = sqrt(r) <= frac * diag;
    } else {
      inside = (double)(e->gid - (ZOLTAN_ID_TYPE)m->gid_base) < frac * (double)m->gnvtx;
    }
    e->wgt[0] = base[e->gid - (ZOLTAN_ID_TYPE)m->gid_base] * (float)(inside ? 1.0 + growth : 1.0);
  }
}

/* Runs the dynamic mode: n rebalances with weights changed before each. */
static int run_dynamic(struct Zoltan_Struct *zz, const zdrive_deck *deck, zdrive_mesh *m,
                       zdrive_status *st)
{
  float *base = NULL, *mine = NULL;
  int i, k, rc = 1;
  MPI_Comm comm = MPI_COMM_WORLD;
  zdrive_deck quiet = *deck;

  /* The file weights, by global ID, are the base of the model. */
  base = calloc((size_t)m->gnvtx, sizeof(float));
  mine = calloc((size_t)m->gnvtx, sizeof(float));
  if (!base || !mine) {
    zdrive_set_error(st, deck->deck_name, 0, "out of memory");
    goto cleanup;
  }
  for (i = 0; i < m->num_elems; i++)
    mine[m->elems[i].gid - (ZOLTAN_ID_TYPE)m->gid_base] = m->elems[i].wgt[0];
  MPI_Allreduce(mine, base, m->gnvtx, MPI_FLOAT, MPI_SUM, comm);
  quiet.debug = 0;
  if (m->rank == 0)
    printf("DYNAMIC: %d iterations, region growth factor %g\n", deck->dyn_iterations,
           deck->dyn_growth);
  for (k = 1; k <= deck->dyn_iterations; k++) {
    double before, after;
    grow_weights(m, base, k, deck->dyn_iterations, deck->dyn_growth, comm);
    before = zdrive_imbalance(m, 0, comm);
    if (zdrive_balance(zz, &quiet, m, deck->method, st)) goto cleanup;
    after = zdrive_imbalance(m, 0, comm);
    {
      long mig = m->mig_objects, gmig;
      double w = m->mig_weight, gw;
      MPI_Allreduce(&mig, &gmig, 1, MPI_LONG, MPI_SUM, comm);
      MPI_Allreduce(&w, &gw, 1, MPI_DOUBLE, MPI_SUM, comm);
      if (m->rank == 0)
        printf("DYNAMIC iteration %d: imbalance before %.4f after %.4f; migrated %ld "
               "objects, weight %g\n",
               k, before, after, gmig, gw);
    }
  }
  rc = 0;
cleanup:
  free(base);
  free(mine);
  return rc;
}

/* The GID width the deck asks for (its last num_gid_entries parameter, 1
 * when none): Zoltan's driver passes it to Zoltan_Order and Zoltan_Color,
 * which refuse IDs narrower than the struct's. */
static int deck_gid_entries(const zdrive_deck *deck, const zdrive_param *params)
{
  int i, n = 1;
  for (i = 0; i < deck->num_params; i++)
    if (!strcasecmp(params[i].name, "num_gid_entries") && atoi(params[i].val) >= 1)
      n = atoi(params[i].val);
  return n;
}

/* The local GIDs, ngid entries each, the driver's number in the last entry
 * and zeros before it (as the query callbacks give them); NULL when memory
 * runs out. */
static ZOLTAN_ID_TYPE *wide_gids(const zdrive_mesh *m, int ngid)
{
  ZOLTAN_ID_TYPE *gids = calloc(((size_t)m->num_elems + 1) * (size_t)ngid, sizeof(ZOLTAN_ID_TYPE));
  int i;
  if (gids == NULL) return NULL;
  for (i = 0; i < m->num_elems; i++) gids[(size_t)i * ngid + ngid - 1] = m->elems[i].gid;
  return gids;
}

/* Ordering (zdrive action 2): Perm and IPerm columns from Zoltan_Order. */
static int run_order(struct Zoltan_Struct *zz, const zdrive_deck *deck, const zdrive_param *params,
                     zdrive_mesh *m, zdrive_status *st)
{
  int ngid = deck_gid_entries(deck, params), i, rc = 1;
  ZOLTAN_ID_TYPE *gids = wide_gids(m, ngid);
  ZOLTAN_ID_TYPE *order = malloc((size_t)(m->num_elems + 1) * sizeof(ZOLTAN_ID_TYPE));
  if (!gids || !order) {
    zdrive_set_error(st, deck->deck_name, 0, "out of memory");
    goto cleanup;
  }
  if (Zoltan_Order(zz, ngid, m->num_elems, gids, order) == ZOLTAN_FATAL) {
    zdrive_set_error(st, deck->deck_name, 0, "Zoltan_Order failed");
    goto cleanup;
  }
  /* zdrive writes the same permutation value in both columns. */
  for (i = 0; i < m->num_elems; i++) m->elems[i].perm = m->elems[i].iperm = (int)order[i];
  rc = 0;
cleanup:
  free(gids);
  free(order);
  return rc;
}

/* Colouring (zdrive action 4): the colour goes into the Perm column. */
static int run_color(struct Zoltan_Struct *zz, const zdrive_deck *deck, const zdrive_param *params,
                     zdrive_mesh *m, zdrive_status *st)
{
  int ngid = deck_gid_entries(deck, params), i, rc = 1;
  ZOLTAN_ID_TYPE *gids = wide_gids(m, ngid);
  int *color = malloc((size_t)(m->num_elems + 1) * sizeof(int));
  if (!gids || !color) {
    zdrive_set_error(st, deck->deck_name, 0, "out of memory");
    goto cleanup;
  }
  if (Zoltan_Color(zz, ngid, m->num_elems, gids, color) == ZOLTAN_FATAL) {
    zdrive_set_error(st, deck->deck_name, 0, "Zoltan_Color failed");
    goto cleanup;
  }
  for (i = 0; i < m->num_elems; i++) m->elems[i].perm = color[i];
  rc = 0;
cleanup:
  free(gids);
  free(color);
  return rc;
}

/* Tells the user, once, which accepted keys have no effect in this driver. */
static void report_unimplemented(const zdrive_deck *d)
{
  if (d->test_ddirectory)
    printf("zdrive: note: 'test ddirectory' is accepted but not implemented (no effect on "
           "the answers)\n");
  if (d->test_no_global_objects)
    printf("zdrive: note: 'test no global objects' is accepted but not implemented\n");
  if (d->test_fixed_objects < 0 || d->test_fixed_objects > 10)
    printf("zdrive: note: 'test fixed objects = %d' is not one of zdrive's cases 1..10: no "
           "object is fixed\n",
           d->test_fixed_objects);
  if (d->test_dynamic_weights != 0.0f)
    printf("zdrive: note: 'test dynamic weights' (zdrive's rand()-based model) is not "
           "implemented; use 'dynamic iterations' instead\n");
  if (d->zoltanparams_file[0])
    printf("zdrive: note: 'zoltanparams file = %s' is not implemented: its parameters are "
           "NOT applied\n",
           d->zoltanparams_file);
  if (!d->test_hg_callbacks && d->file_type == ZDRIVE_FILE_CHACO)
    printf("zdrive: note: 'test hypergraph callbacks' has no effect: Chaco input registers "
           "no hypergraph callbacks\n");
}

int main(int argc, char **argv)
{
  struct Zoltan_Struct *zz = NULL;
  zdrive_deck deck;
  zdrive_param *params = NULL;
  zdrive_mesh mesh;
  zdrive_status st;
  const char *deck_path = "zdrive.inp";
  float version;
  int rank, nranks, iter, failed = 1;
  MPI_Comm comm = MPI_COMM_WORLD;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  memset(&st, 0, sizeof(st));
  memset(&mesh, 0, sizeof(mesh));
  memset(&deck, 0, sizeof(deck));

  if (argc > 2) {
    zdrive_set_error(&st, argv[0], 0, "usage: %s [deck]", argv[0]);
    goto done;
  }
  if (argc == 2) deck_path = argv[1];
  if (Zoltan_Initialize(argc, argv, &version) != ZOLTAN_OK) {
    zdrive_set_error(&st, "Zoltan_Initialize", 0, "failed");
    goto done;
  }
  if (rank == 0) {
    printf("\n\nReading the command file, %s\n", deck_path);
    zdrive_read_deck(deck_path, &deck, &params, &st);
  }
  if (agree_on_error(&st, comm)) goto done;
  zdrive_bcast_deck(&deck, &params, comm);
  if (rank == 0) report_unimplemented(&deck);

  if (deck.file_type == ZDRIVE_FILE_CHACO)
    zdrive_read_chaco(&deck, &mesh, comm, &st);
  else if (deck.file_type == ZDRIVE_FILE_MMPLUS)
    zdrive_read_mtxp(&deck, &mesh, comm, &st);
  else
    zdrive_read_hypergraph(&deck, &mesh, comm, &st);
  if (agree_on_error(&st, comm)) goto done;

  zz = Zoltan_Create(comm);
  if (!zz) zdrive_set_error(&st, "Zoltan_Create", 0, "returned NULL");
  if (agree_on_error(&st, comm)) goto done;
  zdrive_setup_zoltan(zz, &deck, params, &mesh, &st);
  if (!st.text[0] && deck.dyn_iterations > 0) {
    /* Weights must reach the method; a deck may still set its own dimension. */
    int i, has = 0;
    for (i = 0; i < deck.num_params; i++) has |= !strcasecmp(params[i].name, "obj_weight_dim");
    if (!has) Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", "1");
  }
  if (agree_on_error(&st, comm)) goto done;

  for (iter = 1; iter <= deck.iterations; iter++) {
    if (rank == 0) {
      printf("Starting iteration %d\n", iter);
      fflush(stdout);
    }
    if (deck.action & 1) {
      zdrive_balance(zz, &deck, &mesh, deck.method, &st);
      if (agree_on_error(&st, comm)) goto done;
      if (deck.test_drops && !deck.test_no_global_objects) {
        zdrive_test_drops(zz, &deck, &mesh, &st);
        if (agree_on_error(&st, comm)) goto done;
      }
      if (deck.test_rcb_box && !strcasecmp(deck.method, "rcb")) {
        double x0, y0, z0, x1, y1, z1;
        int nd;
        if (Zoltan_RCB_Box(zz, rank, &nd, &x0, &y0, &z0, &x1, &y1, &z1) == ZOLTAN_OK)
          printf("DRIVER %d DIM: %d BOX: (%e,%e,%e) -- (%e,%e,%e)\n", rank, nd, x0, y0, z0, x1, y1,
                 z1);
      }
    }
    if (deck.action & 2) {
      run_order(zz, &deck, params, &mesh, &st);
      if (agree_on_error(&st, comm)) goto done;
    }
    if (deck.action & 4) {
      run_color(zz, &deck, params, &mesh, &st);
      if (agree_on_error(&st, comm)) goto done;
    }
    if (iter < deck.iterations) perturb(&mesh);
  }
  if (deck.dyn_iterations > 0) {
    run_dynamic(zz, &deck, &mesh, &st);
    if (agree_on_error(&st, comm)) goto done;
  }
  if (rank == 0) printf("\nDRIVER: end-of-run statistics\n");
  zdrive_print_stats(&mesh, "final", comm);
  if (deck.text_output) zdrive_write_answers(&deck, &mesh, "out", &st);
  if (agree_on_error(&st, comm)) goto done;
  if (deck.gnuplot) zdrive_write_gnuplot(&deck, &mesh, &st);
  if (agree_on_error(&st, comm)) goto done;
  failed = 0;

done:
  if (failed) {
    fprintf(stderr, "zdrive: error (rank %d): %s\n", rank, st.text);
    fflush(stderr);
  }
  if (zz) Zoltan_Destroy(&zz);
  zdrive_free_mesh(&mesh);
  free(params);
  MPI_Finalize();
  return failed ? 1 : 0;
}
