/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LB_METHOD=AUTO: the method chooses a method (Paradise, Krishnan and Kalé).
 *
 * At a decision, the problem's traits are measured where the objects lie
 * (advisor_eval.c: reproducible sums over the ranks, nothing gathered);
 * the advisor (advisor/advisor_core.c) names the candidates worth trying
 * by its rules; every candidate partitions the same objects through
 * zp_ctx_run_base (ours and Zoltan's, exactly as when selected); each
 * answer's step is modelled where the objects lie too (the figures of
 * loaddb_evaluate) and the advisor picks one.  The pick is kept for AUTOLB_REEVALUATE balances, and
 * written with the traits to LB_HINTS_FILE, which the next run reads at
 * its first balance instead of trying the candidates again.
 *
 * Everything that decides is a pure function of the problem (the sums are
 * exact over any split of the objects), so the choice is the same at any
 * rank count where the candidates' answers are (our centralised methods
 * always; Zoltan's at a given rank count).
 * Wall-clock times never enter the choice.
 *
 * Between re-evaluations a call costs what the kept method's own call
 * costs: AUTO delegates it (zp_method.delegate), and the layer runs the
 * kept method as if it were selected, before anything is gathered for AUTO
 * itself (docs/loaddb.md, "What a call of AUTO costs").  The adapter uses
 * the method API only (zp_method.h, zp_context.h, zp_history.h), as a
 * method outside this library would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advisor_core.h"
#include "advisor_eval.h"
#include "loaddb_eval.h"
#include "zp_context.h"
#include "zp_history.h"
#include "zp_method.h"

/* Per-Zoltan_Struct state: the current choice. */
typedef struct auto_state {
  char method[ADVISOR_NAME_MAX]; /* the chosen method, "" before the first decision */
  int since;                     /* balances since the decision */
  int hints_tried;               /* 1 once LB_HINTS_FILE was looked at */
} auto_state;

/* This rank in the struct's communicator, and the number of ranks in
 * *size when size is not NULL. */
static int auto_rank(const zp_context *c, int *size)
{
  int rank = 0;
  MPI_Comm_rank(zp_ctx_comm(c), &rank);
  if (size != NULL) MPI_Comm_size(zp_ctx_comm(c), size);
  return rank;
}

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
  if (zp_ctx_debug_level(c) < 1 || auto_rank(c, NULL) != zp_ctx_debug_proc(c)) return;
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
  if (zp_history_object_loads(zp_ctx_zz(c), 0, &b) != ZOLTAN_OK) return NULL;
  while (zp_history_object_loads(zp_ctx_zz(c), back + 1, &a) == ZOLTAN_OK) back++;
  if (back == 0 || zp_history_object_loads(zp_ctx_zz(c), back, &a) != ZOLTAN_OK) return NULL;
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
  int n = 0, P = 1, root = auto_rank(c, &P) == 0, rank, *counts = NULL, room;
  long steps = 0, range[2], agreed[2];
  double *pairs = auto_local_growth(c, &n, &steps), *all = NULL;
  int cnt = 2 * n;
  size_t tot = 0;
  /* One reduction gives the smallest and the largest step span. */
  range[0] = -steps;
  range[1] = steps;
  MPI_Allreduce(range, agreed, 2, MPI_LONG, MPI_MAX, zp_ctx_comm(c));
  if (root) counts = malloc(2 * (size_t)P * sizeof *counts);
  room = !root || counts != NULL;
  MPI_Bcast(&room, 1, MPI_INT, 0, zp_ctx_comm(c));
  if (room) MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, zp_ctx_comm(c));
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
    MPI_Bcast(&room, 1, MPI_INT, 0, zp_ctx_comm(c));
  }
  if (room)
    MPI_Gatherv(pairs, cnt, MPI_DOUBLE, all, counts, counts != NULL ? counts + P : NULL, MPI_DOUBLE,
                0, zp_ctx_comm(c));
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
  int ierr, n = zp_ctx_num_local(c);
  zp_param_string(zp_ctx_params(c), "LB_HINTS_FILE", &path);
  if (path == NULL || path[0] == '\0') return ZOLTAN_OK;
  ierr = zp_ctx_gather_inputs(c, ZP_WANTS_GEOM | ZP_WANTS_GRAPH, "LB_HINTS_FILE");
  if (ierr < 0) return ierr;
  memset(&now, 0, sizeof now);
  memset(&msg, 0, sizeof msg);
  MPI_Allreduce(&n, &msg.rc, 1, MPI_INT, MPI_SUM, zp_ctx_comm(c));
  now.objects = msg.rc;
  now.parts = zp_ctx_num_parts(c);
  auto_rank(c, &now.ranks);
  now.has_geom = (zp_ctx_inputs(c) & ZP_WANTS_GEOM) != 0;
  now.has_graph = (zp_ctx_inputs(c) & ZP_WANTS_GRAPH) != 0;
  /* Whether a hinted RCB or HSFC may run on these objects and sizes. */
  now.hsfc_out = zp_ctx_native_bounds(c, "HSFC");
  now.rcb_out = zp_ctx_native_bounds(c, "RCB");
  if (auto_rank(c, NULL) == 0) {
    msg.rc = auto_read_hints(path, &now, &h, msg.note, sizeof msg.note);
    if (msg.rc == 1) {
      snprintf(msg.method, sizeof msg.method, "%s", h.method);
      snprintf(msg.policy, sizeof msg.policy, "%s", h.policy);
    }
  }
  MPI_Bcast(&msg, (int)sizeof msg, MPI_BYTE, 0, zp_ctx_comm(c));
  /* A bad file is the user's to know about; a missing one is the first run. */
  if (msg.rc < 0 && auto_rank(c, NULL) == zp_ctx_debug_proc(c))
    zp_warn(zp_ctx_where(c), "AUTO: %s", msg.note);
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
  zp_param_string(zp_ctx_params(c), "LB_HINTS_FILE", &path);
  if (path == NULL || path[0] == '\0') return;
  memset(&h, 0, sizeof h);
  h.traits = *t;
  snprintf(h.method, sizeof h.method, "%s", ch->method);
  snprintf(h.policy, sizeof h.policy, "%s", ch->policy);
  f = fopen(path, "w");
  if (f == NULL || advisor_hints_write(f, &h) != 0 || fclose(f) != 0)
    zp_warn(zp_ctx_where(c), "AUTO: LB_HINTS_FILE '%s' could not be written", path);
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
  if (colon == NULL) return zp_ctx_run_base(c, spec, zp_ctx_part_sizes(c), out);
  if (eq == NULL) {
    zp_error(zp_ctx_where(c), "LB_METHOD=AUTO: candidate '%s' is not METHOD:NAME=VALUE", spec);
    return ZOLTAN_FATAL;
  }
  snprintf(method, sizeof method, "%.*s", (int)(colon - spec), spec);
  snprintf(name, sizeof name, "%.*s", (int)(eq - colon - 1), colon + 1);
  return zp_ctx_run_base_setting(c, method, name, eq + 1, zp_ctx_part_sizes(c), out);
}

/* The candidates' answers, evaluated where the objects lie
 * (advisor_dist_evaluate).  cand holds ncand * n local parts.  Collective. */
static int auto_trials(zp_context *c, const advisor_far *far, const advisor_choice *ch, int *cand,
                       loaddb_eval *ev, int *ok)
{
  double cost = 1.0;
  size_t i, n = (size_t)zp_ctx_num_local(c);
  int ierr = ZOLTAN_OK;
  zp_param_double(zp_ctx_params(c), "AUTOLB_COMM_COST", &cost, NULL);
  for (i = 0; ierr >= 0 && i < ch->ncand; i++) {
    int *mine = cand + i * n;
    ok[i] = auto_run(c, ch->cand[i], mine) >= 0;
    /* A candidate may fail for want of its inputs, and the others still
     * count; an application callback that failed fails the call. */
    if (!ok[i] && zp_ctx_callback_error(c) < 0) ierr = zp_ctx_callback_error(c);
    if (!ok[i]) continue;
    ierr = advisor_dist_evaluate(c, far, mine, cost, &ev[i], &ok[i]);
  }
  return ierr;
}

/* Try the candidates, pick one, keep it.  Collective. */
static int auto_decide(zp_context *c, auto_state *st, int *new_part)
{
  size_t n = (size_t)zp_ctx_num_local(c);
  advisor_traits t;
  advisor_choice ch;
  advisor_far *far = NULL;
  loaddb_eval ev[ADVISOR_MAX_CANDIDATES];
  int ok[ADVISOR_MAX_CANDIDATES] = {0}, *cand = NULL, root = auto_rank(c, NULL) == 0, ierr;
  double thr = 0.02, slack = 0.01, cost = 1.0;
  const char *hsfc_out, *rcb_out;
  zp_param_double(zp_ctx_params(c), "AUTOLB_COMM_THRESHOLD", &thr, NULL);
  zp_param_double(zp_ctx_params(c), "AUTOLB_COMM_COST", &cost, NULL);
  zp_param_double(zp_ctx_params(c), "AUTOLB_STEP_SLACK", &slack, NULL);
  memset(&t, 0, sizeof t);
  memset(&ch, 0, sizeof ch);
  memset(ev, 0, sizeof ev);
  /* The advisor reads no coordinate, only whether there are some, and the
   * graph where the application registered one: nothing is gathered. */
  ierr = zp_ctx_gather_inputs(c, ZP_WANTS_GEOM | ZP_WANTS_GRAPH, "LB_METHOD=AUTO");
  if (ierr >= 0) ierr = advisor_far_plan(c, &far);
  if (ierr >= 0) ierr = advisor_dist_traits(c, far, &t);
  if (ierr < 0) goto End;
  /* Rule R3 runs Zoltan's RCB and HSFC only where they cannot fail on
   * some ranks only (collective: every rank asks). */
  hsfc_out = zp_ctx_native_bounds(c, "HSFC");
  rcb_out = zp_ctx_native_bounds(c, "RCB");
  t.hsfc_out = hsfc_out;
  t.rcb_out = rcb_out;
  auto_growth(c, &t);
  if (root) advisor_candidates(&t, thr, cost, &ch);
  MPI_Bcast(&ch, (int)sizeof ch, MPI_BYTE, 0, zp_ctx_comm(c));
  cand = malloc((ch.ncand * n + 1) * sizeof *cand);
  ierr = zp_agree_code(zp_ctx_comm(c), cand == NULL ? ZOLTAN_MEMERR : ZOLTAN_OK);
  if (ierr >= 0) ierr = auto_trials(c, far, &ch, cand, ev, ok);
  if (ierr >= 0 && root) {
    advisor_pick(&t, ev, ok, slack, &ch);
    if (ch.pick >= 0) auto_write_hints(c, &t, &ch);
  }
  if (ierr >= 0) MPI_Bcast(&ch, (int)sizeof ch, MPI_BYTE, 0, zp_ctx_comm(c));
  if (ierr >= 0 && ch.pick < 0) {
    if (auto_rank(c, NULL) == zp_ctx_debug_proc(c))
      zp_error(zp_ctx_where(c), "LB_METHOD=AUTO: none of the %zu candidate methods gave an answer",
               ch.ncand);
    ierr = ZOLTAN_FATAL;
  }
  if (ierr >= 0) {
    memcpy(new_part, cand + (size_t)ch.pick * n, n * sizeof *new_part);
    snprintf(st->method, sizeof st->method, "%s", ch.method);
    st->since = 1;
    auto_explain(c, ch.notes);
    zp_history_advise_policy(zp_ctx_zz(c), ch.policy);
  }
End:
  free(cand);
  advisor_far_free(far);
  return ierr;
}

/* Delegation (zp_method.delegate): between re-evaluations, once the hints
 * were looked at, the kept choice answers the call in AUTO's place, at its
 * own cost; the layer runs AUTO itself where that could differ. */
static int auto_delegate(const zp_params *params, const void *state, char *spec, size_t cap)
{
  const auto_state *st = state;
  int reeval = 10;
  zp_param_int(params, "AUTOLB_REEVALUATE", &reeval, NULL);
  if (!st->hints_tried || st->method[0] == '\0' || st->since >= reeval) return 0;
  snprintf(spec, cap, "%s", st->method);
  return 1;
}

/* A delegated call counts as a balance with the kept choice. */
static void auto_delegated(void *state) { ((auto_state *)state)->since++; }

static int auto_partition(zp_context *c, void *state, int *new_part)
{
  auto_state *st = state;
  int reeval = 10, ierr;
  zp_param_int(zp_ctx_params(c), "AUTOLB_REEVALUATE", &reeval, NULL);
  if (!st->hints_tried) {
    st->hints_tried = 1;
    ierr = auto_try_hints(c, st);
    if (ierr < 0) return ierr;
  }
  /* A choice from hints or from the last decision, while it is fresh. */
  /* A kept Zoltan RCB or HSFC that this call's objects put outside
   * zp_native_bounds would be refused: the candidates are tried again, as
   * when the kept method fails for another reason than an application
   * callback (which fails the call). */
  if (st->method[0] != '\0' && st->since < reeval && zp_ctx_native_bounds(c, st->method) == NULL) {
    st->since++;
    ierr = auto_run(c, st->method, new_part);
    if (ierr >= 0 || zp_ctx_callback_error(c) < 0) return ierr;
  }
  return auto_decide(c, st, new_part);
}

static const zp_method auto_method = {
    .abi = ZP_METHOD_ABI,
    .name = "AUTO",
    .summary = "tries the methods its rules name on the problem and keeps the one with "
               "the smallest modelled step (Paradise); hints for the next run in LB_HINTS_FILE",
    .params = auto_params,
    .num_params = sizeof(auto_params) / sizeof(auto_params[0]),
    /* Zoltan owns the AUTO_ prefix (AUTO_MIGRATE). */
    .param_prefix = "AUTOLB_",
    .create = auto_create,
    .destroy = auto_destroy,
    .copy = auto_copy,
    .partition_parallel = auto_partition,
    .delegate = auto_delegate,
    .delegated = auto_delegated};

int advisor_register(void) { return zp_register_method(&auto_method); }
