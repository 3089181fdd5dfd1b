/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_METHOD=AUTO: the method chooses a method (Paradise, Krishnan and Kalé).
 *
 * At a decision, the problem is gathered on rank 0 as a dump (zp_dump.c);
 * the advisor (advisor/advisor_core.c) measures its traits and names the
 * candidates worth trying by its rules; every candidate partitions the
 * same objects through zp_ctx_run_base (ours and Zoltan's, exactly as when
 * selected); rank 0 models each answer's step (loaddb_evaluate) and the
 * advisor picks one.  The pick is kept for AUTOLB_REEVALUATE balances, and
 * written with the traits to LB_HINTS_FILE, which the next run reads at
 * its first balance instead of trying the candidates again.
 *
 * Everything that decides is a pure function of the gathered problem, so
 * the choice is the same at any rank count where the candidates' answers
 * are (our centralised methods always; Zoltan's at a given rank count).
 * Wall-clock times never enter the choice.
 *
 * Between re-evaluations a call costs what the kept method's own call
 * costs: zp_dispatch hands it to the layer as if that method were selected
 * (ours through zp_partition, Zoltan's straight to Zoltan), before
 * anything is gathered for AUTO itself (docs/loaddb.md, "What a call of
 * AUTO costs").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advisor_core.h"
#include "loaddb_eval.h"
#include "zp_history.h"
#include "zp_partition_internal.h"

/* Per-Zoltan_Struct state: the current choice. */
typedef struct auto_state {
  char method[ADVISOR_NAME_MAX]; /* the chosen method, "" before the first decision */
  int since;                     /* balances since the decision */
  int hints_tried;               /* 1 once LB_HINTS_FILE was looked at */
} auto_state;

static const zp_param_def auto_params[] = {
    {"AUTOLB_COMM_THRESHOLD", ZP_PARAM_DOUBLE, "0.02", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "rule R4: try SCOTCHLB when the edge weights sum to at least this fraction of the object "
     "weights"},
    {"AUTOLB_STEP_SLACK", ZP_PARAM_DOUBLE, "0.01", 0.0, 1.0, 0, NULL,
     "rule R5: among candidates whose modelled step is within this fraction of the best, the "
     "one that moves the least weight is chosen"},
    {"AUTOLB_COMM_COST", ZP_PARAM_DOUBLE, "1", 0.0, 0.0, ZP_PARAM_NO_MAX, NULL,
     "the modelled cost of one unit of edge weight that leaves a part, in units of object "
     "weight (the step of a part = its load + this x its outgoing edge weight)"},
    {"AUTOLB_REEVALUATE", ZP_PARAM_INT, "10", 1, 1000000, 0, NULL,
     "the candidates are tried again at every this many balances (1 = at every balance); the "
     "choice is kept in between"},
};

static int auto_create(void **out)
{
  *out = calloc(1, sizeof(auto_state));
  return *out != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
}

static void auto_destroy(void *p) { free(p); }

static int auto_copy(void **dst, const void *src)
{
  *dst = malloc(sizeof(auto_state));
  if (*dst == NULL) return ZOLTAN_MEMERR;
  memcpy(*dst, src, sizeof(auto_state));
  return ZOLTAN_OK;
}

/* Prints the advisor's lines on the debug rank at DEBUG_LEVEL >= 1. */
static void auto_explain(const zp_context *c, const char *text)
{
  const char *line = text;
  if (c->debug_level < 1 || c->r->rank != c->debug_proc) return;
  while (*line != '\0') {
    const char *end = strchr(line, '\n');
    int n = end != NULL ? (int)(end - line) : (int)strlen(line);
    printf("ZOLTAN AUTO: %.*s\n", n, line);
    line += n + (end != NULL);
  }
  fflush(stdout);
}

/* The growth of each local object between the oldest and the newest
 * load snapshot the trigger holds, as (old, new) pairs; *n is 0 when
 * there is nothing comparable on this rank.  Local. */
static double *auto_local_growth(const zp_context *c, int *n, long *steps)
{
  zp_object_loads a, b;
  size_t back = 0, k;
  double *pairs;
  *n = 0;
  *steps = 0;
  if (zp_history_object_loads(c->r->zz, 0, &b) != ZOLTAN_OK) return NULL;
  while (zp_history_object_loads(c->r->zz, back + 1, &a) == ZOLTAN_OK) back++;
  if (back == 0 || zp_history_object_loads(c->r->zz, back, &a) != ZOLTAN_OK) return NULL;
  /* The same objects in the same order, or nothing to compare. */
  if (a.num_obj != b.num_obj || a.num_gid_entries != b.num_gid_entries ||
      (a.gids != NULL) != (b.gids != NULL) ||
      (a.gids != NULL &&
       memcmp(a.gids, b.gids, (size_t)a.num_obj * (size_t)a.num_gid_entries * sizeof *a.gids)))
    return NULL;
  pairs = malloc(2 * ((size_t)a.num_obj + 1) * sizeof *pairs);
  if (pairs == NULL) return NULL;
  for (k = 0; k < (size_t)a.num_obj; k++) {
    pairs[2 * k] = a.loads[k];
    pairs[2 * k + 1] = b.loads[k];
  }
  *n = a.num_obj;
  *steps = b.step - a.step;
  return pairs;
}

/* Gathers the growth pairs of every rank on rank 0 and sets the growth
 * traits there.  Collective; a memory error loses the growth only. */
static void auto_growth(const zp_context *c, advisor_traits *t)
{
  int n = 0, P = c->r->size, root = c->r->rank == 0, rank, *counts = NULL, room;
  long steps = 0, range[2], agreed[2];
  double *pairs = auto_local_growth(c, &n, &steps), *all = NULL;
  int cnt = 2 * n;
  size_t tot = 0;
  /* One reduction gives the smallest and the largest step span. */
  range[0] = -steps;
  range[1] = steps;
  MPI_Allreduce(range, agreed, 2, MPI_LONG, MPI_MAX, c->r->comm);
  if (root) counts = malloc(2 * (size_t)P * sizeof *counts);
  room = !root || counts != NULL;
  MPI_Bcast(&room, 1, MPI_INT, 0, c->r->comm);
  if (room) MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, c->r->comm);
  if (room && root) {
    for (rank = 0; rank < P; rank++) {
      counts[P + rank] = (int)tot;
      tot += (size_t)counts[rank];
    }
    all = malloc((tot + 2) * sizeof *all);
  }
  /* Every rank takes part in this broadcast when it took part in the
   * gather above. */
  if (room) {
    room = !root || all != NULL;
    MPI_Bcast(&room, 1, MPI_INT, 0, c->r->comm);
  }
  if (room)
    MPI_Gatherv(pairs, cnt, MPI_DOUBLE, all, counts, counts != NULL ? counts + P : NULL, MPI_DOUBLE,
                0, c->r->comm);
  /* Growth only when every rank compared snapshots the same steps apart. */
  if (room && root && -agreed[0] == agreed[1] && agreed[1] > 0) {
    size_t k, m = tot / 2;
    double *buf = malloc((3 * m + 1) * sizeof *buf);
    if (buf != NULL) {
      for (k = 0; k < m; k++) {
        buf[k] = all[2 * k];
        buf[m + k] = all[2 * k + 1];
      }
      advisor_growth(m, buf, buf + m, agreed[1], buf + 2 * m, t);
      free(buf);
    }
  }
  free(pairs);
  free(all);
  free(counts);
}

/* Root: reads LB_HINTS_FILE.  Returns 1 when its method applies to a
 * problem with traits now (*h filled), 0 when the file does not exist, -1
 * when it is unreadable or malformed; note says why in every case. */
static int auto_read_hints(const char *path, const advisor_traits *now, advisor_hints *h,
                           char *note, size_t cap)
{
  char text[4096], msg[256];
  size_t len;
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(note, cap, "LB_HINTS_FILE '%s' does not exist yet: the candidates are tried", path);
    return 0;
  }
  len = fread(text, 1, sizeof text, f);
  fclose(f);
  if (len == sizeof text) {
    snprintf(note, cap, "LB_HINTS_FILE '%s' is larger than %zu bytes: not a hints file", path,
             sizeof text - 1);
    return -1;
  }
  if (advisor_hints_parse(text, len, h, msg, sizeof msg) != 0) {
    snprintf(note, cap, "LB_HINTS_FILE '%s': %s; the candidates are tried", path, msg);
    return -1;
  }
  return advisor_hints_apply(h, now, note, cap) ? 1 : 0;
}

/* At the first balance: the method of LB_HINTS_FILE, when it applies, into
 * st->method.  Collective. */
static int auto_try_hints(zp_context *c, auto_state *st)
{
  const char *path = NULL;
  struct {
    int rc;
    char method[ADVISOR_NAME_MAX];
    char policy[ADVISOR_NAME_MAX];
    char note[512];
  } msg;
  advisor_traits now;
  advisor_hints h;
  int ierr, n = c->n;
  zp_param_string(c->r->params, "LB_HINTS_FILE", &path);
  if (path == NULL || path[0] == '\0') return ZOLTAN_OK;
  ierr = zp_gather_inputs(c, ZP_WANTS_GEOM | ZP_WANTS_GRAPH, "LB_HINTS_FILE");
  if (ierr < 0) return ierr;
  memset(&now, 0, sizeof now);
  memset(&msg, 0, sizeof msg);
  MPI_Allreduce(&n, &msg.rc, 1, MPI_INT, MPI_SUM, c->r->comm);
  now.objects = msg.rc;
  now.parts = c->nparts;
  now.ranks = c->r->size;
  now.has_geom = c->coords != NULL;
  now.has_graph = c->has_graph;
  if (c->r->rank == 0) {
    msg.rc = auto_read_hints(path, &now, &h, msg.note, sizeof msg.note);
    if (msg.rc == 1) {
      snprintf(msg.method, sizeof msg.method, "%s", h.method);
      snprintf(msg.policy, sizeof msg.policy, "%s", h.policy);
    }
  }
  MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, c->r->comm);
  /* A bad file is the user's to know about; a missing one is the first run. */
  if (msg.rc < 0 && c->r->rank == c->debug_proc) zp_warn(c->yo, "AUTO: %s", msg.note);
  if (msg.rc >= 0) auto_explain(c, msg.note);
  if (msg.rc == 1) {
    snprintf(st->method, sizeof st->method, "%s", msg.method);
    /* The trigger attached to this struct follows the hinted policy when
     * it runs with ADAPTIVE_POLICY=AUTO. */
    zp_history_advise_policy(zp_ctx_zz(c), msg.policy);
  }
  return ZOLTAN_OK;
}

/* Root: writes the hints of a decision (a warning when it cannot). */
static void auto_write_hints(const zp_context *c, const advisor_traits *t, const advisor_choice *ch)
{
  const char *path = NULL;
  advisor_hints h;
  FILE *f;
  zp_param_string(c->r->params, "LB_HINTS_FILE", &path);
  if (path == NULL || path[0] == '\0') return;
  memset(&h, 0, sizeof h);
  h.traits = *t;
  snprintf(h.method, sizeof h.method, "%s", ch->method);
  snprintf(h.policy, sizeof h.policy, "%s", ch->policy);
  f = fopen(path, "w");
  if (f == NULL || advisor_hints_write(f, &h) != 0 || fclose(f) != 0)
    zp_warn(c->yo, "AUTO: LB_HINTS_FILE '%s' could not be written", path);
}

/* Runs candidate spec, "METHOD" or "METHOD:NAME=VALUE", on the same
 * objects: the setting applies to a copy of the parameters that the
 * candidate sees for the length of its run (IMBALANCE_TOL=T: the first
 * tolerance is lowered to T for the run, never raised).  Collective; the outcome is
 * agreed (zp_ctx_run_base agrees, and every rank parses the same spec). */
static int auto_run(zp_context *c, const char *spec, int *out)
{
  char method[ADVISOR_NAME_MAX], name[ADVISOR_NAME_MAX];
  const char *colon = strchr(spec, ':'), *eq = colon != NULL ? strchr(colon, '=') : NULL;
  zp_params *saved = c->r->params, *mine;
  int ierr;
  if (colon == NULL) return zp_ctx_run_base(c, spec, c->part_sizes, out);
  snprintf(method, sizeof method, "%.*s", (int)(colon - spec), spec);
  snprintf(name, sizeof name, "%.*s", eq != NULL ? (int)(eq - colon - 1) : 0, colon + 1);
  /* IMBALANCE_TOL is Zoltan's: the context holds it for our methods. */
  if (eq != NULL && strcmp(name, "IMBALANCE_TOL") == 0) {
    double keep = c->tol[0], v = atof(eq + 1);
    if (v >= 1.0 && v < keep) c->tol[0] = v;
    ierr = zp_ctx_run_base(c, method, c->part_sizes, out);
    c->tol[0] = keep;
    return ierr;
  }
  mine = zp_params_clone(saved);
  ierr = mine != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR;
  if (ierr >= 0 && (eq == NULL || zp_params_set(mine, name, eq + 1) != ZOLTAN_OK)) {
    zp_error(c->yo, "LB_METHOD=AUTO: candidate '%s' is not METHOD:NAME=VALUE", spec);
    ierr = ZOLTAN_FATAL;
  }
  ierr = zp_agree(c, ierr);
  if (ierr >= 0) {
    c->r->params = mine;
    ierr = zp_ctx_run_base(c, method, c->part_sizes, out);
    c->r->params = saved;
  }
  zp_params_destroy(mine);
  return ierr;
}

/* The candidates' answers, evaluated on rank 0 in ID order.  cand holds
 * ncand * n local parts.  Collective. */
static int auto_trials(zp_context *c, const loaddb_dump *d, const size_t *perm,
                       const advisor_choice *ch, int *cand, loaddb_eval *ev, int *ok)
{
  int P = c->r->size, root = c->r->rank == 0, rank, *counts = NULL, *all = NULL, *newp = NULL;
  double cost = 1.0;
  size_t i, j, n = (size_t)c->n, N = root ? d->nobj : 0, *far = NULL;
  int ierr;
  zp_param_double(c->r->params, "AUTOLB_COMM_COST", &cost, NULL);
  if (root) {
    counts = malloc(2 * (size_t)P * sizeof *counts);
    all = malloc((N + 1) * sizeof *all);
    newp = malloc((N + 1) * sizeof *newp);
    /* Every candidate is evaluated on the same graph: its far ends are
     * found once. */
    far = loaddb_edge_index(d);
  }
  ierr = zp_agree(c, root && (!counts || !all || !newp || !far) ? ZOLTAN_MEMERR : ZOLTAN_OK);
  if (ierr >= 0) MPI_Gather(&c->n, 1, MPI_INT, counts, 1, MPI_INT, 0, c->r->comm);
  for (rank = 0; ierr >= 0 && root && rank < P; rank++)
    counts[P + rank] = rank > 0 ? counts[P + rank - 1] + counts[rank - 1] : 0;
  for (i = 0; ierr >= 0 && i < ch->ncand; i++) {
    int *mine = cand + i * n;
    ok[i] = auto_run(c, ch->cand[i], mine) >= 0;
    /* A candidate may fail for want of its inputs, and the others still
     * count; an application callback that failed fails the call. */
    if (!ok[i] && c->cb_failed < 0) ierr = c->cb_failed;
    if (!ok[i]) continue;
    MPI_Gatherv(mine, c->n, MPI_INT, all, counts, counts != NULL ? counts + P : NULL, MPI_INT, 0,
                c->r->comm);
    if (!root) continue;
    for (j = 0; j < N; j++) newp[j] = all[perm[j]];
    ok[i] = loaddb_evaluate_indexed(d, far, newp, c->nparts, cost, &ev[i]) == 0;
  }
  free(far);
  free(counts);
  free(all);
  free(newp);
  return ierr;
}

/* Try the candidates, pick one, keep it.  Collective. */
static int auto_decide(zp_context *c, auto_state *st, int *new_part)
{
  loaddb_dump d;
  size_t *perm = NULL, n = (size_t)c->n;
  advisor_traits t;
  advisor_choice ch;
  loaddb_eval ev[ADVISOR_MAX_CANDIDATES];
  int ok[ADVISOR_MAX_CANDIDATES] = {0}, *cand = NULL, root = c->r->rank == 0, ierr;
  double thr = 0.02, slack = 0.01, cost = 1.0;
  zp_param_double(c->r->params, "AUTOLB_COMM_THRESHOLD", &thr, NULL);
  zp_param_double(c->r->params, "AUTOLB_COMM_COST", &cost, NULL);
  zp_param_double(c->r->params, "AUTOLB_STEP_SLACK", &slack, NULL);
  memset(&t, 0, sizeof t);
  memset(&ch, 0, sizeof ch);
  memset(ev, 0, sizeof ev);
  /* The advisor reads no coordinate, only whether there are some: they
   * stay on their ranks (a third of what would travel on a 2-D mesh). */
  ierr = zp_dump_gather(c, "AUTO", "LB_METHOD=AUTO", 0, &d, &perm);
  if (ierr < 0) return ierr;
  if (root) {
    advisor_traits_measure(&d, c->nparts, &t);
    t.has_geom = c->coords != NULL && c->gdim > 0;
  }
  auto_growth(c, &t);
  if (root) advisor_candidates(&t, thr, cost, &ch);
  MPI_Bcast(&ch, (int)sizeof ch, MPI_BYTE, 0, c->r->comm);
  cand = malloc((ch.ncand * n + 1) * sizeof *cand);
  ierr = zp_agree(c, cand == NULL ? ZOLTAN_MEMERR : ZOLTAN_OK);
  if (ierr >= 0) ierr = auto_trials(c, &d, perm, &ch, cand, ev, ok);
  if (ierr >= 0 && root) {
    advisor_pick(&t, ev, ok, slack, &ch);
    if (ch.pick >= 0) auto_write_hints(c, &t, &ch);
  }
  if (ierr >= 0) MPI_Bcast(&ch, (int)sizeof ch, MPI_BYTE, 0, c->r->comm);
  if (ierr >= 0 && ch.pick < 0) {
    if (c->r->rank == c->debug_proc)
      zp_error(c->yo, "LB_METHOD=AUTO: none of the %zu candidate methods gave an answer", ch.ncand);
    ierr = ZOLTAN_FATAL;
  }
  if (ierr >= 0) {
    memcpy(new_part, cand + (size_t)ch.pick * n, n * sizeof *new_part);
    snprintf(st->method, sizeof st->method, "%s", ch.method);
    st->since = 1;
    auto_explain(c, ch.notes);
    zp_history_advise_policy(zp_ctx_zz(c), ch.policy);
  }
  free(cand);
  free(perm);
  loaddb_dump_free(&d);
  return ierr;
}

static const zp_method auto_method;

/* How a call between re-evaluations runs the kept method. */
enum {
  AUTO_FULL = 0,  /* through auto_partition: a decision, the hints, or a
                      case the fast paths below do not cover */
  AUTO_OURS = 1,  /* our centralised method, as if selected */
  AUTO_NATIVE = 2 /* Zoltan's method, straight to Zoltan */
};

/* What a fast call needs to know about the kept method. */
typedef struct auto_keep {
  char method[ADVISOR_NAME_MAX]; /* the method's name, without its setting */
  const zp_method *m;            /* ours, or NULL for Zoltan's */
  zp_params *params;             /* for a "METHOD:NAME=VALUE" choice, a copy
                                    of the struct's parameters with the
                                    setting made; else NULL */
  int has_obj;                   /* 1 when this rank has objects */
} auto_keep;

/* 1 when some fixed-object callback is registered on this rank. */
static int auto_has_fixed(const zp_record *r)
{
  ZOLTAN_VOID_FN *nfn = NULL, *lfn = NULL;
  void *d = NULL;
  Zoltan_Get_Fn(r->zz, ZOLTAN_NUM_FIXED_OBJ_FN_TYPE, &nfn, &d);
  Zoltan_Get_Fn(r->zz, ZOLTAN_FIXED_OBJ_LIST_FN_TYPE, &lfn, &d);
  return nfn != NULL || lfn != NULL;
}

/* This rank's object count from the application's ZOLTAN_NUM_OBJ_FN, or -1
 * when it has none or the callback fails (the full call then reports it). */
static int auto_num_local(const zp_record *r)
{
  ZOLTAN_VOID_FN *fn = NULL;
  void *d = NULL;
  int ierr = ZOLTAN_OK, n;
  Zoltan_Get_Fn(r->zz, ZOLTAN_NUM_OBJ_FN_TYPE, &fn, &d);
  if (fn == NULL) return -1;
  n = ((ZOLTAN_NUM_OBJ_FN *)fn)(d, &ierr);
  return ierr == ZOLTAN_OK && n >= 0 ? n : -1;
}

/* Local: the fast path the kept choice of st can take on this rank, with k
 * filled for it, or AUTO_FULL.  The full call stays for every case where a
 * fast one would answer or report differently from running the choice as a
 * base method (auto_run): the first balance (hints), a re-evaluation, an
 * IMBALANCE_TOL setting (the context holds that tolerance), a method that
 * cannot be a base, and for Zoltan's methods whatever the layer adds to a
 * base run of them: fixed objects, a dump (it names AUTO), candidate lists
 * (AUTO refuses them), and a problem without objects (never handed to
 * Zoltan: k->has_obj says whether this rank has some, auto_agree_kind
 * whether any rank has). */
static int auto_fast_kind(const zp_record *r, const auto_state *st, auto_keep *k)
{
  const char *colon = strchr(st->method, ':'), *eq = colon != NULL ? strchr(colon, '=') : NULL;
  const char *rl = zp_record_native_get(r, "RETURN_LISTS", -1);
  char name[ADVISOR_NAME_MAX];
  int reeval = 10, n;
  memset(k, 0, sizeof *k);
  zp_param_int(r->params, "AUTOLB_REEVALUATE", &reeval, NULL);
  if (!st->hints_tried || st->method[0] == '\0' || st->since >= reeval) return AUTO_FULL;
  snprintf(k->method, sizeof k->method, "%.*s",
           colon != NULL ? (int)(colon - st->method) : (int)strlen(st->method), st->method);
  k->m = zp_find_method(k->method);
  if (colon != NULL) {
    if (eq == NULL || k->m == NULL) return AUTO_FULL;
    snprintf(name, sizeof name, "%.*s", (int)(eq - colon - 1), colon + 1);
    if (strcmp(name, "IMBALANCE_TOL") == 0) return AUTO_FULL;
    k->params = zp_params_clone(r->params);
    if (k->params == NULL || zp_params_set(k->params, name, eq + 1) != ZOLTAN_OK) return AUTO_FULL;
  }
  if (k->m != NULL)
    return k->m->partition_serial != NULL && k->m != r->method ? AUTO_OURS : AUTO_FULL;
  if (!zp_is_native_method(k->method) || zp_dump_active(r) || auto_has_fixed(r) ||
      (rl != NULL && strcmp(rl, "CANDIDATE_LISTS") == 0))
    return AUTO_FULL;
  n = auto_num_local(r);
  k->has_obj = n > 0;
  return n >= 0 ? AUTO_NATIVE : AUTO_FULL;
}

/* The kind every rank takes: the local one when all ranks found the same
 * (and, for Zoltan's method, some rank has objects), else AUTO_FULL.
 * Collective (one small reduction). */
static int auto_agree_kind(const zp_record *r, int kind, const auto_keep *k)
{
  int mine[3], all[3];
  mine[0] = kind;
  mine[1] = -kind;
  mine[2] = k->has_obj;
  MPI_Allreduce(mine, all, 3, MPI_INT, MPI_MAX, r->comm);
  if (all[0] != -all[1] || (kind == AUTO_NATIVE && all[2] == 0)) return AUTO_FULL;
  return kind;
}

/* Our kept method, run by zp_partition as if the application had selected
 * it, with what a base run gives it: a state created for this call alone
 * (SCOTCHLB counts its calls), the centralised function always, and the
 * choice's own setting.  It keeps AUTO's name and parameter table, so that
 * messages and the DEBUG_LEVEL listing read as in a full call.  Collective. */
static int auto_keep_ours(zp_record *r, const auto_keep *k, int is_balance, zp_lb_args *a)
{
  zp_method view = *k->m;
  const zp_method *saved_method = r->method, *saved_owner = r->state_owner;
  void *saved_state = r->state;
  zp_params *saved_params = r->params;
  int ierr;
  view.name = saved_method->name;
  view.summary = saved_method->summary;
  view.params = saved_method->params;
  view.num_params = saved_method->num_params;
  view.param_prefix = saved_method->param_prefix;
  view.partition_parallel = NULL;
  view.use_parallel = NULL;
  r->method = &view;
  r->state = NULL;
  r->state_owner = NULL;
  if (k->params != NULL) r->params = k->params;
  ierr = zp_partition(r, is_balance, a);
  if (r->state_owner == &view && r->state != NULL && view.destroy != NULL) view.destroy(r->state);
  r->params = saved_params;
  r->method = saved_method;
  r->state = saved_state;
  r->state_owner = saved_owner;
  return ierr;
}

/* Zoltan's kept method, run by Zoltan on the application's struct as if
 * LB_METHOD named it (through zp_layer_native when the guard, the capacity model,
 * measured weights or a dump are on, as for a native method selected
 * directly); LB_METHOD is put back afterwards.  At DEBUG_LEVEL >= 1 AUTO's
 * parameters are listed first, as in a full call.  Collective. */
static int auto_keep_native(zp_record *r, const auto_keep *k, int is_balance, zp_lb_args *a)
{
  const char *v;
  int ierr;
  if (zp_record_native_int(r, "DEBUG_LEVEL", 1) >= ZP_DEBUG_PARAMS &&
      r->rank == zp_record_native_int(r, "DEBUG_PROCESSOR", 0))
    zp_params_print(r->params, r->method);
  ierr = zp_real_set_param_vec(r->zz, "LB_METHOD", k->method, -1);
  if (ierr == ZOLTAN_OK) {
    if (zp_layer_active(r))
      ierr = zp_layer_native(r, k->method, is_balance, a);
    else
      ierr = is_balance ? zp_real_lb_balance(r->zz, a) : zp_real_lb_partition(r->zz, a);
  }
  v = zp_record_native_get(r, "LB_METHOD", -1);
  zp_real_set_param_vec(r->zz, "LB_METHOD", v != NULL ? v : "RCB", -1);
  return ierr;
}

int zp_dispatch(zp_record *r, int is_balance, zp_lb_args *a)
{
  auto_state *st = r->method == &auto_method && r->state_owner == r->method ? r->state : NULL;
  auto_keep k;
  int kind, ierr;
  /* Every rank sees the same state: it changes only in collective calls. */
  if (st == NULL) return zp_partition(r, is_balance, a);
  kind = auto_fast_kind(r, st, &k);
  kind = auto_agree_kind(r, kind, &k);
  if (kind == AUTO_FULL) {
    zp_params_destroy(k.params);
    return zp_partition(r, is_balance, a);
  }
  st->since++;
  ierr = kind == AUTO_OURS ? auto_keep_ours(r, &k, is_balance, a)
                           : auto_keep_native(r, &k, is_balance, a);
  zp_params_destroy(k.params);
  return ierr;
}

static int auto_partition(zp_context *c, void *state, int *new_part)
{
  auto_state *st = state;
  int reeval = 10, ierr;
  zp_param_int(c->r->params, "AUTOLB_REEVALUATE", &reeval, NULL);
  if (!st->hints_tried) {
    st->hints_tried = 1;
    ierr = auto_try_hints(c, st);
    if (ierr < 0) return ierr;
  }
  /* A choice from hints or from the last decision, while it is fresh. */
  if (st->method[0] != '\0' && st->since < reeval) {
    st->since++;
    return auto_run(c, st->method, new_part);
  }
  return auto_decide(c, st, new_part);
}

static const zp_method auto_method = {
    .abi = ZP_METHOD_ABI,
    .name = "AUTO",
    .summary = "tries the methods its rules name on the gathered problem and keeps the one with "
               "the smallest modelled step (Paradise); hints for the next run in LB_HINTS_FILE",
    .params = auto_params,
    .num_params = sizeof(auto_params) / sizeof(auto_params[0]),
    /* Zoltan owns the AUTO_ prefix (AUTO_MIGRATE). */
    .param_prefix = "AUTOLB_",
    .create = auto_create,
    .destroy = auto_destroy,
    .copy = auto_copy,
    .partition_parallel = auto_partition};

int zp_auto_register(void) { return zp_register_method(&auto_method); }
