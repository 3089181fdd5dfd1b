/* SPDX-License-Identifier: BSD-3-Clause */
/* The load dump format (loaddb_dump.h, docs/loaddb.md). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_dump.h"

/* Limits that keep a malformed header from asking for absurd memory. */
#define DUMP_LINE_MAX 4096
#define DUMP_DIM_MAX  64
#define DUMP_GID_MAX  16

/* The reader's position and its last line. */
typedef struct reader {
  const char *text;        /* the whole text */
  size_t len;              /* its length */
  size_t pos;              /* where the next line starts */
  long lineno;             /* number of the line in buf (from 1) */
  char buf[DUMP_LINE_MAX]; /* the current line, NUL-terminated */
  char *cur;               /* next unread character of buf */
  char *msg;               /* where errors go */
  size_t cap;              /* room in msg */
} reader;

static int fail(reader *r, const char *fmt, ...)
{
  va_list ap;
  int n = snprintf(r->msg, r->cap, "line %ld: ", r->lineno);
  if (n < 0 || (size_t)n >= r->cap) return LOADDB_DUMP_EINVAL;
  va_start(ap, fmt);
  vsnprintf(r->msg + n, r->cap - (size_t)n, fmt, ap);
  va_end(ap);
  return LOADDB_DUMP_EINVAL;
}

/* The next line that is neither blank nor a comment; 0 at the end of the
 * text, 1 with buf filled, LOADDB_DUMP_EINVAL for a line too long or a NUL. */
static int next_line(reader *r)
{
  for (;;) {
    size_t start = r->pos, end = start, n;
    char *p;
    if (start >= r->len) return 0;
    while (end < r->len && r->text[end] != '\n') end++;
    r->pos = end < r->len ? end + 1 : end;
    r->lineno++;
    n = end - start;
    if (n >= sizeof r->buf) return fail(r, "longer than %d characters", DUMP_LINE_MAX - 1);
    memcpy(r->buf, r->text + start, n);
    r->buf[n] = '\0';
    if (strlen(r->buf) != n) return fail(r, "holds a NUL byte");
    for (p = r->buf; *p == ' ' || *p == '\t' || *p == '\r'; p++) continue;
    if (*p == '\0' || *p == '#') continue;
    r->cur = p;
    return 1;
  }
}

/* The next word of the line into w (cap bytes); 0 when there is none. */
static int word(reader *r, char *w, size_t cap)
{
  size_t n = 0;
  while (*r->cur == ' ' || *r->cur == '\t' || *r->cur == '\r') r->cur++;
  while (*r->cur != '\0' && *r->cur != ' ' && *r->cur != '\t' && *r->cur != '\r') {
    if (n + 1 < cap) w[n++] = *r->cur;
    r->cur++;
  }
  w[n] = '\0';
  return n > 0;
}

static int expect_word(reader *r, const char *want)
{
  char w[LOADDB_DUMP_NAME_MAX];
  if (!word(r, w, sizeof w) || strcmp(w, want) != 0)
    return fail(r, "expected '%s', found '%s'", want, w);
  return 0;
}

static int read_long(reader *r, const char *what, long lo, long hi, long *out)
{
  char w[48], *end;
  long v;
  if (!word(r, w, sizeof w)) return fail(r, "%s is missing", what);
  errno = 0;
  v = strtol(w, &end, 10);
  if (*end != '\0' || errno != 0 || v < lo || v > hi)
    return fail(r, "%s = '%s' is not an integer in [%ld, %ld]", what, w, lo, hi);
  *out = v;
  return 0;
}

static int read_int(reader *r, const char *what, long lo, long hi, int *out)
{
  long v = 0;
  int e = read_long(r, what, lo, hi, &v);
  *out = (int)v;
  return e;
}

static int read_id(reader *r, const char *what, unsigned long *out)
{
  char w[48], *end;
  if (!word(r, w, sizeof w) || w[0] == '-') return fail(r, "%s '%s' is not an ID", what, w);
  errno = 0;
  *out = strtoul(w, &end, 10);
  if (*end != '\0' || errno != 0) return fail(r, "%s '%s' is not an ID", what, w);
  return 0;
}

/* A finite number, >= 0 when nonneg. */
static int read_double(reader *r, const char *what, int nonneg, double *out)
{
  char w[64], *end;
  if (!word(r, w, sizeof w)) return fail(r, "%s is missing", what);
  *out = strtod(w, &end);
  if (*end != '\0' || !isfinite(*out) || (nonneg && *out < 0.0))
    return fail(r, "%s = '%s' is not a finite number%s", what, w, nonneg ? " >= 0" : "");
  return 0;
}

static int line_done(reader *r)
{
  char w[64];
  if (word(r, w, sizeof w)) return fail(r, "unexpected '%s' at the end of the line", w);
  return 0;
}

/* Everything the header line announces, allocated. */
static int alloc_dump(reader *r, loaddb_dump *d)
{
  size_t n = d->nobj, m = d->nedges;
  d->tol = calloc((size_t)d->wdim, sizeof *d->tol);
  d->sizes = calloc((size_t)d->parts * (size_t)d->wdim, sizeof *d->sizes);
  d->gids = calloc(n * (size_t)d->ngid + 1, sizeof *d->gids);
  d->procs = calloc(n + 1, sizeof *d->procs);
  d->cur_part = calloc(n + 1, sizeof *d->cur_part);
  d->wgts = calloc(n * (size_t)d->wdim + 1, sizeof *d->wgts);
  d->coords = d->gdim > 0 ? calloc(n * (size_t)d->gdim, sizeof *d->coords) : NULL;
  d->adj_start = calloc(n + 1, sizeof *d->adj_start);
  d->nbr = calloc(m * (size_t)d->ngid + 1, sizeof *d->nbr);
  d->ewgts = d->edim > 0 ? calloc(m * (size_t)d->edim + 1, sizeof *d->ewgts) : NULL;
  if (!d->tol || !d->sizes || !d->gids || !d->procs || !d->cur_part || !d->wgts ||
      (d->gdim > 0 && n > 0 && !d->coords) || !d->adj_start || !d->nbr ||
      (d->edim > 0 && !d->ewgts)) {
    (void)r;
    return LOADDB_DUMP_ENOMEM;
  }
  return 0;
}

static int parse_header(reader *r, loaddb_dump *d)
{
  long nobj = 0, nedges = 0, limit = (long)(r->len < 0x7fffffffL ? r->len : 0x7fffffffL);
  int e = expect_word(r, "balance");
  if (!e) e = read_long(r, "balance number", 0, 0x7fffffffL, &d->seq);
  if (!e) e = expect_word(r, "method");
  if (!e && !word(r, d->method, sizeof d->method)) e = fail(r, "the method name is missing");
  if (!e) e = expect_word(r, "ranks");
  if (!e) e = read_int(r, "ranks", 1, 0x7fffffffL, &d->ranks);
  if (!e) e = expect_word(r, "parts");
  if (!e) e = read_int(r, "parts", 1, limit + 1, &d->parts);
  if (!e) e = expect_word(r, "ngid");
  if (!e) e = read_int(r, "ngid", 1, DUMP_GID_MAX, &d->ngid);
  if (!e) e = expect_word(r, "wdim");
  if (!e) e = read_int(r, "wdim", 1, DUMP_DIM_MAX, &d->wdim);
  if (!e) e = expect_word(r, "gdim");
  if (!e) e = read_int(r, "gdim", 0, 3, &d->gdim);
  if (!e) e = expect_word(r, "edim");
  if (!e) e = read_int(r, "edim", 0, DUMP_DIM_MAX, &d->edim);
  if (!e) e = expect_word(r, "objects");
  /* Every object and edge takes at least two characters of the text. */
  if (!e) e = read_long(r, "objects", 0, limit / 2, &nobj);
  if (!e) e = expect_word(r, "edges");
  if (!e) e = read_long(r, "edges", 0, limit / 2, &nedges);
  if (!e) e = line_done(r);
  if (e) return e;
  if ((long)d->parts * d->wdim > limit + 1)
    return fail(r, "parts * wdim = %ld is larger than the file", (long)d->parts * d->wdim);
  d->nobj = (size_t)nobj;
  d->nedges = (size_t)nedges;
  return alloc_dump(r, d);
}

static int parse_tol_sizes(reader *r, loaddb_dump *d)
{
  size_t i, ns = (size_t)d->parts * (size_t)d->wdim;
  int e = next_line(r) == 1 ? expect_word(r, "tol") : fail(r, "'tol' line missing");
  for (i = 0; !e && i < (size_t)d->wdim; i++) {
    e = read_double(r, "tolerance", 1, &d->tol[i]);
    if (!e && d->tol[i] < 1.0) e = fail(r, "tolerance %g is below 1", d->tol[i]);
  }
  if (!e) e = line_done(r);
  if (!e) e = next_line(r) == 1 ? expect_word(r, "sizes") : fail(r, "'sizes' line missing");
  if (!e) e = read_int(r, "sizes flag", 0, 1, &d->sizes_set);
  for (i = 0; !e && i < ns; i++) e = read_double(r, "part size", 1, &d->sizes[i]);
  return e ? e : line_done(r);
}

/* "param NAME INDEX VALUE" lines; leaves the first other line in buf. */
static int parse_params(reader *r, loaddb_dump *d, int *have_line)
{
  size_t cap = 0;
  int e = 0;
  for (;;) {
    char w[16];
    char *save;
    loaddb_param *p;
    *have_line = next_line(r);
    if (*have_line != 1) return *have_line < 0 ? *have_line : 0;
    save = r->cur;
    if (!word(r, w, sizeof w) || strcmp(w, "param") != 0) {
      r->cur = save;
      return 0;
    }
    if (d->nparams == cap) {
      loaddb_param *g = realloc(d->params, (cap ? 2 * cap : 8) * sizeof *g);
      if (g == NULL) return LOADDB_DUMP_ENOMEM;
      d->params = g;
      cap = cap ? 2 * cap : 8;
    }
    p = &d->params[d->nparams];
    memset(p, 0, sizeof *p);
    if (!word(r, p->name, sizeof p->name)) return fail(r, "parameter name missing");
    e = read_int(r, "parameter index", -1, 0x7fffffffL, &p->index);
    if (e) return e;
    while (*r->cur == ' ' || *r->cur == '\t') r->cur++;
    if (strlen(r->cur) >= sizeof p->value) return fail(r, "parameter value too long");
    strcpy(p->value, r->cur);
    d->nparams++;
  }
}

/* Compares two IDs of ngid entries. */
static int id_cmp(const unsigned long *a, const unsigned long *b, int ngid)
{
  int k;
  for (k = 0; k < ngid; k++)
    if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
  return 0;
}

static int parse_object(reader *r, loaddb_dump *d, size_t i, size_t *edge)
{
  size_t k, q;
  long ne = 0;
  int e = expect_word(r, "o");
  unsigned long *g = d->gids + i * (size_t)d->ngid;
  for (k = 0; !e && k < (size_t)d->ngid; k++) e = read_id(r, "global ID", &g[k]);
  if (!e && i > 0 && id_cmp(g - d->ngid, g, d->ngid) >= 0)
    e = fail(r, "global IDs must increase (each object once, in ID order)");
  if (!e) e = read_int(r, "rank", 0, d->ranks - 1, &d->procs[i]);
  if (!e) e = read_int(r, "part", -1, d->parts - 1, &d->cur_part[i]);
  for (k = 0; !e && k < (size_t)d->wdim; k++)
    e = read_double(r, "weight", 1, &d->wgts[i * (size_t)d->wdim + k]);
  for (k = 0; !e && k < (size_t)d->gdim; k++)
    e = read_double(r, "coordinate", 0, &d->coords[i * (size_t)d->gdim + k]);
  if (!e) e = read_long(r, "edge count", 0, (long)(d->nedges - *edge), &ne);
  if (!e) e = line_done(r);
  d->adj_start[i] = *edge;
  for (q = 0; !e && q < (size_t)ne; q++, (*edge)++) {
    e = next_line(r) == 1 ? expect_word(r, "e") : fail(r, "edge line missing");
    for (k = 0; !e && k < (size_t)d->ngid; k++)
      e = read_id(r, "neighbour ID", &d->nbr[*edge * (size_t)d->ngid + k]);
    for (k = 0; !e && k < (size_t)d->edim; k++)
      e = read_double(r, "edge weight", 1, &d->ewgts[*edge * (size_t)d->edim + k]);
    if (!e) e = line_done(r);
  }
  return e;
}

/* Every neighbour must be an object of the dump (binary search by ID). */
static int check_neighbours(reader *r, const loaddb_dump *d)
{
  size_t q;
  for (q = 0; q < d->nedges; q++) {
    const unsigned long *key = d->nbr + q * (size_t)d->ngid;
    size_t lo = 0, hi = d->nobj;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      int c = id_cmp(d->gids + mid * (size_t)d->ngid, key, d->ngid);
      if (c == 0) break;
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo >= hi) return fail(r, "edge %zu names neighbour %lu, which is no object", q, key[0]);
  }
  return 0;
}

int loaddb_dump_parse(const char *text, size_t len, size_t *pos, loaddb_dump *out, char *msg,
                      size_t cap)
{
  reader r;
  size_t i, edge = 0;
  long version = 0;
  int e, have;
  memset(out, 0, sizeof *out);
  if (msg != NULL && cap > 0) msg[0] = '\0';
  if (text == NULL || pos == NULL || msg == NULL || cap == 0) return LOADDB_DUMP_EINVAL;
  memset(&r, 0, sizeof r);
  r.text = text;
  r.len = len;
  r.msg = msg;
  r.cap = cap;
  /* Line numbers count from the start of the text, so lines before *pos
   * are counted first. */
  for (i = 0; i < *pos && i < len; i++)
    if (text[i] == '\n') r.lineno++;
  r.pos = *pos;
  have = next_line(&r);
  if (have <= 0) return have;
  e = expect_word(&r, "ZPDUMP");
  if (!e) e = read_long(&r, "version", 0, 0x7fffffffL, &version);
  if (!e && version != LOADDB_DUMP_VERSION)
    e = fail(&r, "version %ld; this reader knows version %d", version, LOADDB_DUMP_VERSION);
  if (!e) e = line_done(&r);
  if (!e) e = next_line(&r) == 1 ? parse_header(&r, out) : fail(&r, "'balance' line missing");
  if (!e) e = parse_tol_sizes(&r, out);
  if (!e) e = parse_params(&r, out, &have);
  for (i = 0; !e && i < out->nobj; i++) {
    if (i > 0) have = next_line(&r);
    e = have == 1 ? parse_object(&r, out, i, &edge)
                  : fail(&r, "object %zu of %zu missing", i + 1, out->nobj);
  }
  if (!e) out->adj_start[out->nobj] = edge;
  if (!e && edge != out->nedges)
    e = fail(&r, "%zu edges listed, the header says %zu", edge, out->nedges);
  if (!e && out->nobj > 0) have = next_line(&r);
  if (!e) e = have == 1 ? expect_word(&r, "end") : fail(&r, "'end' missing");
  if (!e) e = line_done(&r);
  if (!e) e = check_neighbours(&r, out);
  *pos = r.pos;
  return e ? e : LOADDB_DUMP_OK;
}

void loaddb_dump_free(loaddb_dump *d)
{
  if (d == NULL) return;
  free(d->tol);
  free(d->sizes);
  free(d->params);
  free(d->gids);
  free(d->procs);
  free(d->cur_part);
  free(d->wgts);
  free(d->coords);
  free(d->adj_start);
  free(d->nbr);
  free(d->ewgts);
  memset(d, 0, sizeof *d);
}

int loaddb_dump_write(FILE *f, const loaddb_dump *d)
{
  size_t i, k, q, ns = (size_t)d->parts * (size_t)d->wdim;
  fprintf(f,
          "ZPDUMP %d\nbalance %ld method %s ranks %d parts %d ngid %d wdim %d gdim %d edim %d "
          "objects %zu edges %zu\ntol",
          LOADDB_DUMP_VERSION, d->seq, d->method, d->ranks, d->parts, d->ngid, d->wdim, d->gdim,
          d->edim, d->nobj, d->nedges);
  for (k = 0; k < (size_t)d->wdim; k++) fprintf(f, " %.17g", d->tol[k]);
  fprintf(f, "\nsizes %d", d->sizes_set);
  for (k = 0; k < ns; k++) fprintf(f, " %.17g", d->sizes[k]);
  fprintf(f, "\n");
  for (k = 0; k < d->nparams; k++)
    fprintf(f, "param %s %d %s\n", d->params[k].name, d->params[k].index, d->params[k].value);
  for (i = 0; i < d->nobj; i++) {
    fprintf(f, "o");
    for (k = 0; k < (size_t)d->ngid; k++) fprintf(f, " %lu", d->gids[i * (size_t)d->ngid + k]);
    fprintf(f, " %d %d", d->procs[i], d->cur_part[i]);
    for (k = 0; k < (size_t)d->wdim; k++) fprintf(f, " %.17g", d->wgts[i * (size_t)d->wdim + k]);
    for (k = 0; k < (size_t)d->gdim; k++) fprintf(f, " %.17g", d->coords[i * (size_t)d->gdim + k]);
    fprintf(f, " %zu\n", d->adj_start[i + 1] - d->adj_start[i]);
    for (q = d->adj_start[i]; q < d->adj_start[i + 1]; q++) {
      fprintf(f, "e");
      for (k = 0; k < (size_t)d->ngid; k++) fprintf(f, " %lu", d->nbr[q * (size_t)d->ngid + k]);
      for (k = 0; k < (size_t)d->edim; k++) fprintf(f, " %.17g", d->ewgts[q * (size_t)d->edim + k]);
      fprintf(f, "\n");
    }
  }
  fprintf(f, "end\n");
  return ferror(f) ? -1 : 0;
}
