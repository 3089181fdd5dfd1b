/* SPDX-License-Identifier: BSD-3-Clause */
/* The advisor behind LB_METHOD=AUTO (advisor_core.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "advisor_core.h"

/* Growth above this relative rate per step counts as growth (R6). */
#define ADVISOR_GROWTH_MIN 0.005
/* A share of the growth above this in the top tenth is concentrated (R6). */
#define ADVISOR_CONC_MIN 0.5

/* Appends one formatted line to the notes (cut when full). */
static void note(advisor_choice *c, const char *fmt, ...)
{
  size_t used = strlen(c->notes);
  va_list ap;
  if (used + 2 >= sizeof c->notes) return;
  va_start(ap, fmt);
  vsnprintf(c->notes + used, sizeof c->notes - used - 1, fmt, ap);
  va_end(ap);
  used = strlen(c->notes);
  c->notes[used] = '\n';
  c->notes[used + 1] = '\0';
}

static void add(advisor_choice *c, const char *name)
{
  size_t i;
  for (i = 0; i < c->ncand; i++)
    if (strcmp(c->cand[i], name) == 0) return;
  if (c->ncand < ADVISOR_MAX_CANDIDATES)
    snprintf(c->cand[c->ncand++], ADVISOR_NAME_MAX, "%s", name);
}

void advisor_traits_from_sums(const advisor_sums *s, int parts, advisor_traits *t)
{
  double sum = s->sum;
  memset(t, 0, sizeof *t);
  t->objects = s->objects;
  t->parts = parts;
  t->ranks = s->ranks;
  t->has_geom = s->has_geom;
  t->has_graph = s->has_graph;
  if (s->objects > 0 && sum > 0.0) {
    double mean = sum / s->objects, var = s->sq / s->objects - mean * mean;
    t->weight_cv = sqrt(var > 0.0 ? var : 0.0) / mean;
    t->grain = s->heavy / (sum / parts);
    t->comm_ratio = s->ew / 2.0 / sum;
  }
  /* The current parts' max/avg. */
  if (s->load != NULL && sum > 0.0) {
    double worst = 0.0;
    for (int p = 0; p < parts; p++)
      if (s->load[p] > worst) worst = s->load[p];
    t->imbalance = worst / (sum / parts);
  }
}

void advisor_traits_measure(const loaddb_dump *d, int parts, advisor_traits *t)
{
  size_t i, n = d->nobj;
  advisor_sums s;
  double *load = parts > 0 ? calloc((size_t)parts, sizeof *load) : NULL;
  memset(&s, 0, sizeof s);
  s.objects = (double)n;
  s.ranks = d->ranks;
  s.has_geom = d->gdim > 0;
  s.has_graph = d->nedges > 0;
  for (i = 0; i < n; i++) {
    double w = d->wgts[i * (size_t)d->wdim];
    s.sum += w;
    s.sq += w * w;
    if (w > s.heavy) s.heavy = w;
    /* Objects outside the known parts count in no part, as a method sees
     * them. */
    if (load != NULL && d->cur_part[i] >= 0 && d->cur_part[i] < parts) load[d->cur_part[i]] += w;
  }
  for (i = 0; i < d->nedges; i++) s.ew += d->edim > 0 ? d->ewgts[i * (size_t)d->edim] : 1.0;
  s.load = load;
  advisor_traits_from_sums(&s, parts, t);
  free(load);
}

static int cmp_desc(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x < y) - (x > y);
}

void advisor_growth(size_t n, const double *old_load, const double *new_load, long steps,
                    double *scratch, advisor_traits *t)
{
  size_t i, top = n / 10 > 0 ? n / 10 : 1;
  double old_sum = 0.0, new_sum = 0.0, pos = 0.0, top_pos = 0.0;
  t->has_growth = 0;
  t->growth = t->growth_conc = 0.0;
  if (n == 0 || steps < 1) return;
  for (i = 0; i < n; i++) {
    old_sum += old_load[i];
    new_sum += new_load[i];
    scratch[i] = new_load[i] - old_load[i];
    if (scratch[i] > 0.0) pos += scratch[i];
  }
  if (!(old_sum > 0.0)) return;
  qsort(scratch, n, sizeof *scratch, cmp_desc);
  for (i = 0; i < top && scratch[i] > 0.0; i++) top_pos += scratch[i];
  t->has_growth = 1;
  t->growth = (new_sum - old_sum) / old_sum / (double)steps;
  t->growth_conc = pos > 0.0 ? top_pos / pos : 0.0;
}

void advisor_candidates(const advisor_traits *t, double comm_threshold, double comm_cost,
                        advisor_choice *c)
{
  memset(c, 0, sizeof *c);
  c->pick = -1;
  if (t->objects < 2.0 * t->parts) {
    note(c, "R1 %.0f objects for %d parts (fewer than 2 per part): GREEDY only", t->objects,
         t->parts);
    add(c, "GREEDY");
    return;
  }
  note(c,
       "R2 load-only methods: GREEDYREFINE, GREEDY, REFINE (weight spread %.3f, heaviest "
       "object %.3f of a part, current max/avg %.4f)",
       t->weight_cv, t->grain, t->imbalance);
  add(c, "GREEDYREFINE");
  add(c, "GREEDY");
  add(c, "REFINE");
  if (t->has_geom && t->rcb_out == NULL && t->hsfc_out == NULL) {
    note(c, "R3 coordinates: RCB, HSFC");
    add(c, "RCB");
    add(c, "HSFC");
  } else if (t->has_geom && (t->rcb_out == NULL || t->hsfc_out == NULL)) {
    /* Zoltan's method would fail on some ranks only, and the others wait. */
    note(c, "R3 coordinates: %s (not %s: %s, where Zoltan's %s can fail on one rank)",
         t->rcb_out == NULL ? "RCB" : "HSFC", t->rcb_out == NULL ? "HSFC" : "RCB",
         t->rcb_out == NULL ? t->hsfc_out : t->rcb_out, t->rcb_out == NULL ? "HSFC" : "RCB");
    add(c, t->rcb_out == NULL ? "RCB" : "HSFC");
  } else if (t->has_geom) {
    note(c, "R3 not fired: %s, where Zoltan's RCB and HSFC can fail on one rank", t->hsfc_out);
  }
  if (t->has_graph && t->comm_ratio >= comm_threshold && comm_cost > 0.0) {
    /* SCOTCHLB told the step's own price of communication searches the
     * balance ratio and polishes for that step (SCOTCHLB_COMM_COST). */
    char spec[ADVISOR_NAME_MAX];
    snprintf(spec, sizeof spec, "SCOTCHLB:SCOTCHLB_COMM_COST=%.9g", comm_cost);
    note(c,
         "R4 edges weigh %.4f of the load (>= AUTOLB_COMM_THRESHOLD %g): SCOTCHLB, and with "
         "SCOTCHLB_COMM_COST=%g (AUTOLB_COMM_COST)",
         t->comm_ratio, comm_threshold, comm_cost);
    add(c, "SCOTCHLB");
    add(c, spec);
  } else if (t->has_graph && t->comm_ratio >= comm_threshold) {
    note(c,
         "R4 edges weigh %.4f of the load (>= AUTOLB_COMM_THRESHOLD %g): SCOTCHLB, and with "
         "IMBALANCE_TOL=1.01",
         t->comm_ratio, comm_threshold);
    add(c, "SCOTCHLB");
    add(c, "SCOTCHLB:IMBALANCE_TOL=1.01");
  } else if (t->has_graph) {
    note(c, "R4 not fired: edges weigh %.4f of the load (< AUTOLB_COMM_THRESHOLD %g)",
         t->comm_ratio, comm_threshold);
  }
}

int advisor_pick(const advisor_traits *t, const loaddb_eval *ev, const int *ok, double slack,
                 advisor_choice *c)
{
  size_t i;
  int best = -1, pick = -1;
  for (i = 0; i < c->ncand; i++)
    if (ok[i] && (best < 0 || ev[i].step < ev[best].step)) best = (int)i;
  c->method[0] = '\0';
  if (best >= 0) {
    for (i = 0; i < c->ncand; i++)
      if (ok[i] && ev[i].step <= ev[best].step * (1.0 + slack) &&
          (pick < 0 || ev[i].moved_w < ev[pick].moved_w))
        pick = (int)i;
    note(c,
         "R5 smallest modelled step %s %.6g; within %g%% of it, %s moves the least weight "
         "(%.6g, step %.6g)",
         c->cand[best], ev[best].step, 100.0 * slack, c->cand[pick], ev[pick].moved_w,
         ev[pick].step);
    snprintf(c->method, sizeof c->method, "%s", c->cand[pick]);
  } else {
    note(c, "R5 no candidate gave a valid answer");
  }
  c->pick = pick;
  if (t->has_growth && t->growth > ADVISOR_GROWTH_MIN && t->growth_conc > ADVISOR_CONC_MIN) {
    snprintf(c->policy, sizeof c->policy, "ULBA");
    note(c,
         "R6 load grows %.2f%%/step, %.0f%% of it in a tenth of the objects: policy ULBA "
         "(consider LB_METHOD=ULBA)",
         100.0 * t->growth, 100.0 * t->growth_conc);
  } else {
    snprintf(c->policy, sizeof c->policy, "ZHAI");
    if (t->has_growth)
      note(c, "R6 load grows %.2f%%/step, %.0f%% of it in a tenth of the objects: policy ZHAI",
           100.0 * t->growth, 100.0 * t->growth_conc);
    else
      note(c, "R6 no load history: policy ZHAI");
  }
  return pick;
}

/* ---- hints files ---------------------------------------------------------- */

int advisor_hints_write(FILE *f, const advisor_hints *h)
{
  const advisor_traits *t = &h->traits;
  fprintf(f,
          "ZPHINTS %d\n# written by LB_METHOD=AUTO (zoltan_plugins); docs/loaddb.md\n"
          "objects %.17g\nparts %d\nranks %d\nimbalance %.17g\nweight_cv %.17g\ngrain %.17g\n"
          "geometry %d\ngraph %d\ncomm_ratio %.17g\ngrowth_measured %d\ngrowth %.17g\n"
          "growth_concentration %.17g\nmethod %s\npolicy %s\nend\n",
          ADVISOR_HINTS_VERSION, t->objects, t->parts, t->ranks, t->imbalance, t->weight_cv,
          t->grain, t->has_geom, t->has_graph, t->comm_ratio, t->has_growth, t->growth,
          t->growth_conc, h->method, h->policy);
  return ferror(f) ? -1 : 0;
}

/* The keys of a hints file, in the order written. */
enum {
  K_OBJ,
  K_PARTS,
  K_RANKS,
  K_IMB,
  K_CV,
  K_GRAIN,
  K_GEOM,
  K_GRAPH,
  K_COMM,
  K_GM,
  K_GROWTH,
  K_CONC,
  K_METHOD,
  K_POLICY,
  K_COUNT
};
static const char *const hint_keys[K_COUNT] = {
    "objects",  "parts", "ranks",      "imbalance",       "weight_cv", "grain",
    "geometry", "graph", "comm_ratio", "growth_measured", "growth",    "growth_concentration",
    "method",   "policy"};
/* Numeric ranges of the keys (words for the last two). */
static const double hint_lo[K_COUNT] = {0, 1, 1, 0, 0, 0, 0, 0, 0, 0, -1e9, 0, 0, 0};
static const double hint_hi[K_COUNT] = {
    1e18, 2147483647.0, 2147483647.0, 1e18, 1e18, 1e18, 1, 1, 1e18, 1, 1e9, 1, 0, 0};

static int hfail(char *msg, size_t cap, long line, const char *fmt, const char *a, const char *b)
{
  int n = snprintf(msg, cap, "line %ld: ", line);
  if (n >= 0 && (size_t)n < cap) snprintf(msg + n, cap - (size_t)n, fmt, a, b);
  return -1;
}

static int valid_word(const char *w)
{
  size_t i, n = strlen(w);
  if (n == 0 || n >= ADVISOR_NAME_MAX) return 0;
  for (i = 0; i < n; i++)
    if (!isalnum((unsigned char)w[i]) && strchr("_-:=.", w[i]) == NULL) return 0;
  return 1;
}

/* Stores value v of key k into h. */
static void hint_store(advisor_hints *h, int k, double v, const char *word)
{
  advisor_traits *t = &h->traits;
  switch (k) {
  case K_OBJ:
    t->objects = v;
    break;
  case K_PARTS:
    t->parts = (int)v;
    break;
  case K_RANKS:
    t->ranks = (int)v;
    break;
  case K_IMB:
    t->imbalance = v;
    break;
  case K_CV:
    t->weight_cv = v;
    break;
  case K_GRAIN:
    t->grain = v;
    break;
  case K_GEOM:
    t->has_geom = (int)v;
    break;
  case K_GRAPH:
    t->has_graph = (int)v;
    break;
  case K_COMM:
    t->comm_ratio = v;
    break;
  case K_GM:
    t->has_growth = (int)v;
    break;
  case K_GROWTH:
    t->growth = v;
    break;
  case K_CONC:
    t->growth_conc = v;
    break;
  case K_METHOD:
    snprintf(h->method, sizeof h->method, "%s", word);
    break;
  default:
    snprintf(h->policy, sizeof h->policy, "%s", word);
    break;
  }
}

/* One "key value" line into h; seen marks keys already given. */
static int hint_line(const char *line, long lineno, advisor_hints *h, int *seen, char *msg,
                     size_t cap)
{
  char key[32], val[64], extra[8], *end;
  int k, n = sscanf(line, "%31s %63s %7s", key, val, extra);
  double v = 0.0;
  if (n != 2) return hfail(msg, cap, lineno, "expected 'KEY VALUE', found '%s'%s", line, "");
  for (k = 0; k < K_COUNT && strcmp(hint_keys[k], key) != 0; k++) continue;
  if (k == K_COUNT) return hfail(msg, cap, lineno, "unknown key '%s'%s", key, "");
  if (seen[k]) return hfail(msg, cap, lineno, "key '%s' given twice%s", key, "");
  seen[k] = 1;
  if (k >= K_METHOD) {
    if (!valid_word(val)) return hfail(msg, cap, lineno, "%s '%s' is not a name", key, val);
  } else {
    errno = 0;
    v = strtod(val, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v) || v < hint_lo[k] || v > hint_hi[k] ||
        ((k == K_PARTS || k == K_RANKS || k == K_GEOM || k == K_GRAPH || k == K_GM) &&
         v != floor(v)))
      return hfail(msg, cap, lineno, "%s = '%s' is out of range or not a number", key, val);
  }
  hint_store(h, k, v, val);
  return 0;
}

int advisor_hints_parse(const char *text, size_t len, advisor_hints *h, char *msg, size_t cap)
{
  size_t pos = 0;
  long lineno = 0;
  int seen[K_COUNT] = {0}, state = 0, k; /* state: 0 before ZPHINTS, 1 inside, 2 after end */
  memset(h, 0, sizeof *h);
  if (cap > 0) msg[0] = '\0';
  while (pos < len && state < 2) {
    char line[128];
    size_t end = pos, n;
    const char *p;
    while (end < len && text[end] != '\n') end++;
    n = end - pos;
    lineno++;
    if (n >= sizeof line) return hfail(msg, cap, lineno, "line too long%s%s", "", "");
    memcpy(line, text + pos, n);
    line[n] = '\0';
    pos = end + 1;
    if (strlen(line) != n) return hfail(msg, cap, lineno, "holds a NUL byte%s%s", "", "");
    if (n > 0 && line[n - 1] == '\r') line[n - 1] = '\0';
    for (p = line; *p == ' ' || *p == '\t'; p++) continue;
    if (*p == '\0' || *p == '#') continue;
    if (state == 0) {
      int ver = 0;
      char tail[4];
      if (sscanf(p, "ZPHINTS %d %3s", &ver, tail) != 1)
        return hfail(msg, cap, lineno, "expected 'ZPHINTS %s', found '%s'", "1", p);
      if (ver != ADVISOR_HINTS_VERSION)
        return hfail(msg, cap, lineno, "version '%s'; this reader knows version %s", p + 8, "1");
      state = 1;
    } else if (strcmp(p, "end") == 0) {
      state = 2;
    } else if (hint_line(p, lineno, h, seen, msg, cap) != 0) {
      return -1;
    }
  }
  if (state == 0) return hfail(msg, cap, lineno, "no 'ZPHINTS' line%s%s", "", "");
  if (state == 1) return hfail(msg, cap, lineno, "'end' missing (truncated file?)%s%s", "", "");
  for (k = 0; k < K_COUNT; k++)
    if (!seen[k]) return hfail(msg, cap, lineno, "key '%s' missing%s", hint_keys[k], "");
  return 0;
}

int advisor_hints_apply(const advisor_hints *h, const advisor_traits *now, char *note, size_t cap)
{
  const advisor_traits *was = &h->traits;
  int geo = strcmp(h->method, "RCB") == 0 || strcmp(h->method, "HSFC") == 0;
  int graph = strncmp(h->method, "SCOTCHLB", 8) == 0;
  if (geo && !now->has_geom) {
    snprintf(note, cap, "hints: %s needs coordinates, which this problem has not; not used",
             h->method);
    return 0;
  }
  if (graph && !now->has_graph) {
    snprintf(note, cap, "hints: %s needs a graph, which this problem has not; not used", h->method);
    return 0;
  }
  if ((strcmp(h->method, "HSFC") == 0 && now->hsfc_out != NULL) ||
      (strcmp(h->method, "RCB") == 0 && now->rcb_out != NULL)) {
    snprintf(note, cap,
             "hints: %s is not run where %s (Zoltan's %s can fail on one rank and the others "
             "wait); not used",
             h->method, strcmp(h->method, "HSFC") == 0 ? now->hsfc_out : now->rcb_out, h->method);
    return 0;
  }
  if (was->objects != now->objects || was->parts != now->parts || was->ranks != now->ranks)
    snprintf(note, cap,
             "hints from %.0f objects, %d parts, %d ranks (now %.0f, %d, %d): method %s used, "
             "the rest is re-measured at the next evaluation",
             was->objects, was->parts, was->ranks, now->objects, now->parts, now->ranks, h->method);
  else
    snprintf(note, cap, "hints from the same problem size: method %s, policy %s", h->method,
             h->policy);
  return 1;
}
