/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hypergraph input: MatrixMarket (.mtx), MatrixMarket+ (.mtxp) and the
 * hypergraph format (.hg), read and distributed the way Zoltan's zdrive
 * does it, because the objects' order and the pins each rank supplies decide
 * what PHG computes.
 *
 * .mtx and .hg: rank 0 reads the file; the vertices are distributed like a
 * Chaco graph (zdrive_dist_graph: linear, cyclic, file, "initial procs"),
 * and whole hyperedges go to ranks by the same "initial distribution" rule
 * (linear: floor(h * P / nhedges) in single precision, as zdrive; cyclic;
 * owner: the owner of the hyperedge's first pin; file falls back to linear).
 * For .mtx the hyperedges are the rows, the vertices the columns ("objects =
 * rows" swaps them), pins are sorted by (row, column), and a square matrix
 * also yields a graph: the off-diagonal entries are the edges (weights are
 * the values), the diagonal entries the vertex weights.  IDs are 1-based.
 *
 * .mtxp: every pin, vertex and hyperedge weight line names a rank.  Vertices
 * are kept in file order by the "initial distribution" rule (linear: earlier
 * ranks take the larger share; cyclic: vertex % P; file: the written rank),
 * pins by the "initial pins" rule (rows: row % P, the default; columns:
 * column % P, handed to Zoltan vertex-compressed; linear, cyclic, file,
 * zero); each rank's lists are sorted by ID with pins in file order.  As in
 * zdrive, IDs of .mtxp input stay 0-based.
 *
 * Reading errors name the file and the line and stop every rank.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zdrive.h"

/* A line reader that counts lines, for error messages. */
typedef struct mm_reader {
  FILE *f;          /* the open file */
  const char *name; /* its name */
  char *line;       /* current line (getline buffer) */
  size_t cap;       /* size of that buffer */
  int lineno;       /* 1-based number of the current line */
} mm_reader;

/* Reads the next line; returns 0 at end of file. */
static int rd_next(mm_reader *r)
{
  if (getline(&r->line, &r->cap, r->f) < 0) return 0;
  r->lineno++;
  return 1;
}

/* First non-blank character of s. */
static const char *skip_blanks(const char *s)
{
  while (*s && isspace((unsigned char)*s)) s++;
  return s;
}

/* Reads the next data line (not blank, not a '%' comment); 0 at end of file. */
static int rd_data(mm_reader *r)
{
  while (rd_next(r)) {
    const char *s = skip_blanks(r->line);
    if (*s && *s != '%') return 1;
  }
  return 0;
}

/*
 * Parses up to max numbers of a line into v.  Returns how many were read, or
 * -1 - (index of the bad token) when a token is not a number; *bad points at
 * that token.
 */
static int parse_numbers(const char *s, double *v, int max, const char **bad)
{
  int n = 0;
  char *end;
  for (;;) {
    s = skip_blanks(s);
    if (!*s || n == max) return n;
    errno = 0;
    v[n] = strtod(s, &end);
    if (end == s || errno == ERANGE || (*end && !isspace((unsigned char)*end))) {
      *bad = s;
      return -1 - n;
    }
    n++;
    s = end;
  }
}

/*
 * True when x is an integer value in [lo, hi].  The range is checked before
 * the conversion, because converting a value that a long cannot hold (1e300,
 * inf, nan) is undefined behaviour.
 */
static int int_in(double x, double lo, double hi)
{
  return x >= lo && x <= hi && x == (double)(long)x;
}

/* Most rows, columns, vertices or hyperedges a file may declare (zdrive.h). */
#define MM_MAX_COUNT ZDRIVE_MAX_COUNT

/* First chunk of an array that grows as lines are read. */
#define MM_FIRST_CAP 4096

/*
 * Makes room for need elements of size elsize in *p (capacity *cap, grown
 * by doubling), so that a header promising a billion pins in a short file
 * allocates little.  Returns 0, or -1 when out of memory (*p unchanged).
 */
static int mm_grow(void **p, long *cap, long need, size_t elsize)
{
  long c = *cap > 0 ? *cap : MM_FIRST_CAP;
  void *np;
  if (need <= *cap) return 0;
  while (c < need) c *= 2;
  np = realloc(*p, (size_t)c * elsize);
  if (!np) return -1;
  *p = np;
  *cap = c;
  return 0;
}

/* Copies the bad token (up to a blank) into out for a message. */
static void token_text(const char *bad, char *out, size_t len)
{
  size_t i = 0;
  while (bad[i] && !isspace((unsigned char)bad[i]) && i + 1 < len) {
    out[i] = bad[i];
    i++;
  }
  out[i] = '\0';
}

/* ---- whole hypergraph on rank 0 (.mtx, .hg) ------------------------------ */

/* A hypergraph as rank 0 reads it, with 0-based vertex numbers in pins. */
typedef struct whole_hg {
  int nvtx;     /* vertices */
  int nedges;   /* hyperedges */
  int base;     /* smallest ID of the file (IDs given to Zoltan are index + base) */
  int ewgt_dim; /* weights per hyperedge */
  int *hindex;  /* nedges+1 offsets into hvertex */
  int *hvertex; /* 0-based vertex of each pin */
  float *ewgt;  /* nedges*ewgt_dim */
} whole_hg;

static void free_whole(whole_hg *h)
{
  free(h->hindex);
  free(h->hvertex);
  free(h->ewgt);
  memset(h, 0, sizeof(*h));
}

/* One nonzero of a .mtx file and its position in the file (a total order for qsort). */
typedef struct mm_entry {
  int i, j; /* 0-based row-like (hyperedge) and column-like (vertex) index */
  float v;  /* value (1 for pattern matrices) */
  int k;    /* entry number in the file */
} mm_entry;

/* Orders nonzeros by hyperedge, then vertex, then file position. */
static int cmp_entry(const void *a, const void *b)
{
  const mm_entry *x = a, *y = b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  return (x->k > y->k) - (x->k < y->k);
}

/* The size of a .mtx file and whether it holds only the pattern. */
typedef struct mtx_size {
  long M, N, nz; /* rows, columns, nonzeros */
  int pattern;   /* 1: 'pattern' field, no values */
} mtx_size;

/* The banner line and the size line of a .mtx file.  Returns 0, or 1 with
 * st naming file and line. */
static int mtx_header(mm_reader *r, const zdrive_deck *deck, mtx_size *z, zdrive_status *st)
{
  double x[4];
  const char *bad = NULL;
  char tok[5][64];
  if (!rd_next(r) ||
      sscanf(r->line, "%63s %63s %63s %63s %63s", tok[0], tok[1], tok[2], tok[3], tok[4]) != 5 ||
      strcmp(tok[0], "%%MatrixMarket") != 0) {
    zdrive_set_error(st, r->name, r->lineno ? r->lineno : 1,
                     "bad header: the first line must be "
                     "'%%%%MatrixMarket matrix coordinate <field> <symmetry>'");
    return 1;
  }
  for (int n = 1; n < 5; n++)
    for (int k = 0; tok[n][k]; k++) tok[n][k] = (char)tolower((unsigned char)tok[n][k]);
  if (strcmp(tok[1], "matrix") || strcmp(tok[2], "coordinate")) {
    zdrive_set_error(st, r->name, r->lineno,
                     "bad header: only 'matrix coordinate' files are read "
                     "(found '%s %s')",
                     tok[1], tok[2]);
    return 1;
  }
  if (strcmp(tok[3], "real") && strcmp(tok[3], "integer") && strcmp(tok[3], "pattern")) {
    zdrive_set_error(st, r->name, r->lineno,
                     "bad header: field '%s' is not real, integer or "
                     "pattern",
                     tok[3]);
    return 1;
  }
  z->pattern = !strcmp(tok[3], "pattern");
  if (!rd_data(r)) {
    zdrive_set_error(st, r->name, r->lineno,
                     "file truncated: no size line 'rows columns nonzeros'");
    return 1;
  }
  if (parse_numbers(r->line, x, 4, &bad) != 3 || !int_in(x[0], 1, 1e9) || !int_in(x[1], 1, 1e9) ||
      !int_in(x[2], 0, 1e9)) {
    zdrive_set_error(st, r->name, r->lineno,
                     "bad size line: expected 'rows columns nonzeros' "
                     "(positive integers)");
    return 1;
  }
  z->M = (long)x[0];
  z->N = (long)x[1];
  z->nz = (long)x[2];
  if (z->M > MM_MAX_COUNT || z->N > MM_MAX_COUNT) {
    zdrive_set_error(st, r->name, r->lineno,
                     "a %ld x %ld matrix is too large: at most %d rows "
                     "and columns are supported",
                     z->M, z->N, MM_MAX_COUNT);
    return 1;
  }
  if (deck->matrix_obj == ZDRIVE_OBJ_NONZEROS) {
    zdrive_set_error(st, deck->deck_name, 0,
                     "objects = nonzeros is not supported for "
                     "MatrixMarket input (zdrive reads rows or columns only)");
    return 1;
  }
  return 0;
}

/* The z->nz entries of a .mtx file into *ent (0-based, i and j swapped
 * when the objects are the rows), sorted by cmp_entry.  Returns 0, or 1
 * with st naming file and line. */
static int mtx_entries(mm_reader *r, const zdrive_deck *deck, const mtx_size *z, mm_entry **ent,
                       zdrive_status *st)
{
  long ent_cap = 0, k;
  double x[4];
  const char *bad = NULL;
  char badtok[64];
  for (k = 0; k < z->nz; k++) {
    int n;
    mm_entry *e;
    if (!rd_data(r)) {
      zdrive_set_error(st, r->name, r->lineno, "file truncated: %ld of %ld nonzeros read", k,
                       z->nz);
      return 1;
    }
    if (mm_grow((void **)ent, &ent_cap, k + 1, sizeof(**ent))) {
      zdrive_set_error(st, r->name, r->lineno, "out of memory for %ld nonzeros", z->nz);
      return 1;
    }
    n = parse_numbers(r->line, x, 4, &bad);
    if (n < 0) {
      token_text(bad, badtok, sizeof(badtok));
      zdrive_set_error(st, r->name, r->lineno, "bad number '%s'", badtok);
      return 1;
    }
    if (n < (z->pattern ? 2 : 3) || n > 3) {
      zdrive_set_error(st, r->name, r->lineno, "expected 'row column%s'",
                       z->pattern ? "" : " value");
      return 1;
    }
    if (!int_in(x[0], 1, (double)z->M) || !int_in(x[1], 1, (double)z->N)) {
      zdrive_set_error(st, r->name, r->lineno, "entry (%g, %g) is outside the %ld x %ld matrix",
                       x[0], x[1], z->M, z->N);
      return 1;
    }
    e = &(*ent)[k];
    e->i = (int)x[0] - 1;
    e->j = (int)x[1] - 1;
    e->v = z->pattern ? 1.0f : (float)x[2];
    e->k = (int)k;
    if (deck->matrix_obj == ZDRIVE_OBJ_ROWS) {
      int t = e->i;
      e->i = e->j;
      e->j = t;
    }
  }
  if (rd_data(r)) {
    zdrive_set_error(st, r->name, r->lineno, "more nonzeros than the %ld of the size line", z->nz);
    return 1;
  }
  if (z->nz > 0) qsort(*ent, (size_t)z->nz, sizeof(**ent), cmp_entry);
  return 0;
}

/* The hypergraph of the sorted entries: hyperedges are the rows (columns
 * with objects = rows), pins sorted.  Returns 0, or 1 out of memory. */
static int mtx_hypergraph(const zdrive_deck *deck, const mtx_size *z, const mm_entry *ent,
                          whole_hg *h)
{
  h->base = 1;
  h->nvtx = (int)(deck->matrix_obj == ZDRIVE_OBJ_ROWS ? z->M : z->N);
  h->nedges = (int)(deck->matrix_obj == ZDRIVE_OBJ_ROWS ? z->N : z->M);
  h->hindex = calloc((size_t)h->nedges + 1, sizeof(int));
  h->hvertex = malloc((size_t)(z->nz > 0 ? z->nz : 1) * sizeof(int));
  h->ewgt = malloc(sizeof(float)); /* a matrix gives its hyperedges no weights */
  if (!h->hindex || !h->hvertex || !h->ewgt) return 1;
  for (long k = 0; k < z->nz; k++) {
    h->hindex[ent[k].i + 1]++;
    h->hvertex[k] = ent[k].j;
  }
  for (int n = 0; n < h->nedges; n++) h->hindex[n + 1] += h->hindex[n];
  return 0;
}

/* The graph of the sorted entries of a matrix with nvtx objects: a square
 * matrix is also a graph (zdrive assumes it symmetric), its diagonal the
 * vertex weights; another has unit vertex weights and no edges.  Returns 0,
 * or 1 out of memory. */
static int mtx_graph(const mtx_size *z, const mm_entry *ent, int nvtx, zdrive_graph *g)
{
  int *cnt = NULL, rc = 1;
  g->nvtx = nvtx;
  g->start = calloc((size_t)g->nvtx + 1, sizeof(int));
  if (!g->start) return 1;
  if (z->M != z->N) {
    g->vwgt = malloc((size_t)(g->nvtx > 0 ? g->nvtx : 1) * sizeof(float));
    g->ewgt = malloc(sizeof(float));
    if (!g->vwgt || !g->ewgt) return 1;
    for (int n = 0; n < g->nvtx; n++) g->vwgt[n] = 1.0f;
    return 0;
  }
  g->vwgt_dim = 1;
  g->ewgt_dim = 1;
  g->vwgt = calloc((size_t)g->nvtx, sizeof(float));
  cnt = calloc((size_t)g->nvtx + 1, sizeof(int));
  if (!g->vwgt || !cnt) goto end;
  for (long k = 0; k < z->nz; k++)
    if (ent[k].i != ent[k].j) g->start[ent[k].i + 1]++;
  for (int n = 0; n < g->nvtx; n++) g->start[n + 1] += g->start[n];
  g->nadj = g->start[g->nvtx];
  g->adj = malloc((size_t)(g->nadj > 0 ? g->nadj : 1) * sizeof(int));
  g->ewgt = malloc((size_t)(g->nadj > 0 ? g->nadj : 1) * sizeof(float));
  if (!g->adj || !g->ewgt) goto end;
  for (long k = 0; k < z->nz; k++) {
    int v = ent[k].i;
    if (v == ent[k].j) {
      g->vwgt[v] = ent[k].v;
    } else {
      int at = g->start[v] + cnt[v]++;
      g->adj[at] = ent[k].j + 1;
      g->ewgt[at] = ent[k].v;
    }
  }
  rc = 0;
end:
  free(cnt);
  return rc;
}

/*
 * Reads a .mtx file on rank 0 into the hypergraph h and (square matrices)
 * the graph g.  Returns 0, or 1 with st naming file and line.
 */
static int read_mtx(const zdrive_deck *deck, const char *fname, whole_hg *h, zdrive_graph *g,
                    zdrive_status *st)
{
  mm_reader r = {0};
  mm_entry *ent = NULL;
  mtx_size z = {0, 0, 0, 0};
  int rc = 1;
  r.name = fname;
  r.f = fopen(fname, "r");
  if (!r.f) {
    zdrive_set_error(st, fname, 0, "cannot open the MatrixMarket file: %s", strerror(errno));
    return 1;
  }
  if (mtx_header(&r, deck, &z, st) || mtx_entries(&r, deck, &z, &ent, st)) goto cleanup;
  if (mtx_hypergraph(deck, &z, ent, h) || mtx_graph(&z, ent, h->nvtx, g)) {
    zdrive_set_error(st, fname, 0, "out of memory");
    goto cleanup;
  }
  rc = 0;
cleanup:
  free(ent);
  free(r.line);
  fclose(r.f);
  return rc;
}

/* The header line of a .hg file (IBM or PaToH form, see read_hg) into h's
 * base, nvtx, nedges and ewgt_dim, *vdim and *npins.  Returns 0, or 1 with
 * st naming file and line. */
static int hg_header(mm_reader *r, whole_hg *h, int *vdim, int *npins, zdrive_status *st)
{
  double x[6];
  const char *bad = NULL;
  int n, code;
  if (!rd_data(r)) {
    zdrive_set_error(st, r->name, r->lineno, "file truncated: no header line");
    return 1;
  }
  n = parse_numbers(r->line, x, 6, &bad);
  if (n >= 3 && x[0] > 1) {
    /* IBM format; the fourth number is two digits VE. */
    if (n > 4 || !int_in(x[0], 1, 1e9) || !int_in(x[1], 0, 1e9) || !int_in(x[2], 0, 1e9) ||
        (n >= 4 && !int_in(x[3], 0, 99))) {
      zdrive_set_error(st, r->name, r->lineno,
                       "bad header: expected 'vertices hyperedges pins "
                       "[VE]'");
      return 1;
    }
    code = n >= 4 ? (int)x[3] : 0;
    h->base = 1;
    h->nvtx = (int)x[0];
    h->nedges = (int)x[1];
    *npins = (int)x[2];
    *vdim = code / 10;
    h->ewgt_dim = code % 10;
  } else if (n >= 4 && int_in(x[0], 0, 1) && int_in(x[1], 0, 1e9) && int_in(x[2], 0, 1e9) &&
             int_in(x[3], 0, 1e9)) {
    /* PaToH format: base first; code 1 vertex, 2 edge, 3 both weights. */
    if (n >= 5 && !int_in(x[4], 0, 3)) {
      zdrive_set_error(st, r->name, r->lineno, "bad header: PaToH weight code %g is not 0..3",
                       x[4]);
      return 1;
    }
    if (n >= 6 && !int_in(x[5], 0, 1e9)) {
      zdrive_set_error(st, r->name, r->lineno,
                       "bad header: PaToH vertex weight count %g is not "
                       "a non-negative integer",
                       x[5]);
      return 1;
    }
    code = n >= 5 ? (int)x[4] : 0;
    h->base = (int)x[0];
    h->nvtx = (int)x[1];
    h->nedges = (int)x[2];
    *npins = (int)x[3];
    *vdim = (code & 1) ? (n >= 6 ? (int)x[5] : 1) : 0;
    h->ewgt_dim = (code & 2) ? 1 : 0;
  } else {
    zdrive_set_error(st, r->name, r->lineno,
                     "bad header: expected 'vertices hyperedges pins "
                     "[VE]' or PaToH's 'base vertices hyperedges pins [code]'");
    return 1;
  }
  if (*vdim > ZDRIVE_MAX_WGTS) {
    zdrive_set_error(st, r->name, r->lineno, "%d vertex weights; at most %d are supported", *vdim,
                     ZDRIVE_MAX_WGTS);
    return 1;
  }
  if (h->nvtx > MM_MAX_COUNT || h->nedges > MM_MAX_COUNT) {
    zdrive_set_error(st, r->name, r->lineno,
                     "%d vertices and %d hyperedges: at most %d of each "
                     "are supported",
                     h->nvtx, h->nedges, MM_MAX_COUNT);
    return 1;
  }
  return 0;
}

/* The numbers of the current line into *vals (grown to fit; *cap entries).
 * Returns how many, or -1 with st set (a bad number or no memory). */
static int hg_line_numbers(mm_reader *r, double **vals, int *cap, zdrive_status *st)
{
  const char *bad = NULL;
  char badtok[64];
  int n = 0;
  /* Count the tokens first so that long hyperedges fit. */
  for (int k = 0; r->line[k]; k++)
    n += !isspace((unsigned char)r->line[k]) && (k == 0 || isspace((unsigned char)r->line[k - 1]));
  if (n > *cap) {
    double *nv = realloc(*vals, (size_t)n * sizeof(double));
    if (!nv) {
      zdrive_set_error(st, r->name, 0, "out of memory");
      return -1;
    }
    *vals = nv;
    *cap = n;
  }
  n = parse_numbers(r->line, *vals, *cap, &bad);
  if (n < 0) {
    token_text(bad, badtok, sizeof(badtok));
    zdrive_set_error(st, r->name, r->lineno, "bad number '%s'", badtok);
  }
  return n;
}

/* The hyperedge lines of a .hg file: each hyperedge's ewgt_dim weights,
 * then its pins, npins in all.  Returns 0, or 1 with st set. */
static int hg_edges(mm_reader *r, whole_hg *h, int npins, zdrive_status *st)
{
  double *vals = NULL;
  long pin_cap = MM_FIRST_CAP;
  int cap = 0, pin = 0, rc = 1;
  for (int e = 0; e < h->nedges; e++) {
    int n, k;
    if (!rd_data(r)) {
      zdrive_set_error(st, r->name, r->lineno, "file truncated: %d of %d hyperedges read", e,
                       h->nedges);
      goto end;
    }
    n = hg_line_numbers(r, &vals, &cap, st);
    if (n < 0) goto end;
    if (n < h->ewgt_dim) {
      zdrive_set_error(st, r->name, r->lineno, "hyperedge %d needs %d weights", e + h->base,
                       h->ewgt_dim);
      goto end;
    }
    for (k = 0; k < h->ewgt_dim; k++) {
      if (vals[k] < 0) {
        zdrive_set_error(st, r->name, r->lineno, "negative weight %g", vals[k]);
        goto end;
      }
      h->ewgt[(size_t)e * h->ewgt_dim + k] = (float)vals[k];
    }
    for (k = h->ewgt_dim; k < n; k++) {
      if (!int_in(vals[k], h->base, h->nvtx - 1 + h->base)) {
        zdrive_set_error(st, r->name, r->lineno, "pin %g is not a vertex (%d..%d)", vals[k],
                         h->base, h->nvtx - 1 + h->base);
        goto end;
      }
      if (pin == npins) {
        zdrive_set_error(st, r->name, r->lineno, "more pins than the %d of the header", npins);
        goto end;
      }
      if (mm_grow((void **)&h->hvertex, &pin_cap, pin + 1L, sizeof(int))) {
        zdrive_set_error(st, r->name, r->lineno, "out of memory for %d pins", npins);
        goto end;
      }
      h->hvertex[pin++] = (int)vals[k] - h->base;
    }
    h->hindex[e + 1] = pin;
  }
  if (pin != npins) {
    zdrive_set_error(st, r->name, r->lineno, "the header says %d pins, the hyperedges hold %d",
                     npins, pin);
    goto end;
  }
  rc = 0;
end:
  free(vals);
  return rc;
}

/* The vertex weight lines that follow the hyperedges (g->vwgt_dim each;
 * unit weights when there are none).  Returns 0, or 1 with st set. */
static int hg_vertex_weights(mm_reader *r, const whole_hg *h, zdrive_graph *g, zdrive_status *st)
{
  int vdim = g->vwgt_dim;
  for (int n = 0; n < h->nvtx; n++) {
    double x[6];
    const char *bad = NULL;
    char badtok[64];
    int k = 0;
    if (!vdim) {
      g->vwgt[n] = 1.0f;
      continue;
    }
    if (!rd_data(r) || (k = parse_numbers(r->line, x, 6, &bad)) != vdim) {
      if (k < 0) {
        token_text(bad, badtok, sizeof(badtok));
        zdrive_set_error(st, r->name, r->lineno, "bad number '%s'", badtok);
      } else {
        zdrive_set_error(st, r->name, r->lineno,
                         "file truncated or short: vertex %d needs %d "
                         "weights",
                         n + h->base, vdim);
      }
      return 1;
    }
    for (k = 0; k < vdim; k++) {
      if (x[k] < 0) {
        zdrive_set_error(st, r->name, r->lineno, "negative weight %g", x[k]);
        return 1;
      }
      g->vwgt[(size_t)n * vdim + k] = (float)x[k];
    }
  }
  return 0;
}

/*
 * Reads a .hg file on rank 0: the IBM format "nvtx nedges npins [VE]" (V, E
 * digits: vertex and hyperedge weight counts; 1-based) or PaToH's "base nvtx
 * nedges npins [code [vwgt_dim]]".  Each hyperedge line holds its weights,
 * then its vertices; vertex weights follow the hyperedges.  Returns 0, or 1
 * with st naming file and line.
 */
static int read_hg(const char *fname, whole_hg *h, zdrive_graph *g, zdrive_status *st)
{
  mm_reader r = {0};
  int vdim = 0, npins = 0, rc = 1;
  r.name = fname;
  r.f = fopen(fname, "r");
  if (!r.f) {
    zdrive_set_error(st, fname, 0, "cannot open the hypergraph file: %s", strerror(errno));
    return 1;
  }
  if (hg_header(&r, h, &vdim, &npins, st)) goto cleanup;
  h->hindex = calloc((size_t)h->nedges + 1, sizeof(int));
  h->hvertex = malloc((size_t)MM_FIRST_CAP * sizeof(int));
  h->ewgt =
      malloc((size_t)(h->nedges * h->ewgt_dim > 0 ? h->nedges * h->ewgt_dim : 1) * sizeof(float));
  g->nvtx = h->nvtx;
  g->vwgt_dim = vdim;
  g->start = calloc((size_t)g->nvtx + 1, sizeof(int));
  g->vwgt = malloc((size_t)(g->nvtx > 0 ? g->nvtx : 1) * (vdim ? vdim : 1) * sizeof(float));
  g->ewgt = malloc(sizeof(float));
  if (!h->hindex || !h->hvertex || !h->ewgt || !g->start || !g->vwgt || !g->ewgt) {
    zdrive_set_error(st, fname, 0, "out of memory");
    goto cleanup;
  }
  if (hg_edges(&r, h, npins, st) || hg_vertex_weights(&r, h, g, st)) goto cleanup;
  if (rd_data(&r)) {
    zdrive_set_error(st, fname, r.lineno, "the file is longer than its header says");
    goto cleanup;
  }
  rc = 0;
cleanup:
  free(r.line);
  fclose(r.f);
  return rc;
}

/*
 * zdrive_read_hypergraph - collective: reads <file name>.mtx (file type
 * matrixmarket) or <file name>.hg (hypergraph) on rank 0, distributes the
 * vertices as zdrive's chaco_dist_graph and the hyperedges as zdrive's
 * dist_hyperedges (see the file comment).  Returns 0, or 1 on every rank
 * with st set (file and line).
 */
int zdrive_read_hypergraph(const zdrive_deck *deck, zdrive_mesh *mesh, MPI_Comm comm,
                           zdrive_status *st)
{
  whole_hg h;
  zdrive_graph g;
  char fname[ZDRIVE_PATH + 16];
  int rank, nranks, err = 0, *owner = NULL, hdr[5], e, i, ndist, rc = 1, n, np;

  memset(&h, 0, sizeof(h));
  memset(&g, 0, sizeof(g));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  if (rank == 0) {
    if (deck->file_type == ZDRIVE_FILE_MM) {
      snprintf(fname, sizeof(fname), "%s.mtx", deck->file_name);
      err = read_mtx(deck, fname, &h, &g, st);
    } else {
      snprintf(fname, sizeof(fname), "%s.hg", deck->file_name);
      err = read_hg(fname, &h, &g, st);
    }
    if (!err && deck->init_dist == ZDRIVE_DIST_FILE) {
      zdrive_set_error(st, deck->deck_name, 0,
                       "initial distribution = file is not supported "
                       "for %s input (no .assign reader for hypergraphs)",
                       deck->file_type == ZDRIVE_FILE_MM ? "matrixmarket" : "hypergraph");
      err = 1;
    }
  }
  if (zdrive_dist_graph(deck, &g, err, mesh, &owner, comm, st)) goto cleanup;

  /* Every rank gets the whole hypergraph and keeps its hyperedges. */
  if (rank == 0) {
    hdr[0] = h.nvtx;
    hdr[1] = h.nedges;
    hdr[2] = h.base;
    hdr[3] = h.ewgt_dim;
    hdr[4] = h.hindex[h.nedges];
  }
  MPI_Bcast(hdr, 5, MPI_INT, 0, comm);
  if (rank != 0) {
    h.nvtx = hdr[0];
    h.nedges = hdr[1];
    h.base = hdr[2];
    h.ewgt_dim = hdr[3];
    h.hindex = malloc(((size_t)h.nedges + 1) * sizeof(int));
    h.hvertex = malloc((size_t)(hdr[4] > 0 ? hdr[4] : 1) * sizeof(int));
    h.ewgt =
        malloc((size_t)(h.nedges * h.ewgt_dim > 0 ? h.nedges * h.ewgt_dim : 1) * sizeof(float));
  }
  err = !h.hindex || !h.hvertex || !h.ewgt;
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, comm);
  if (err) {
    zdrive_set_error(st, deck->file_name, 0, "out of memory");
    goto cleanup;
  }
  MPI_Bcast(h.hindex, h.nedges + 1, MPI_INT, 0, comm);
  MPI_Bcast(h.hvertex, hdr[4], MPI_INT, 0, comm);
  if (h.ewgt_dim) MPI_Bcast(h.ewgt, h.nedges * h.ewgt_dim, MPI_FLOAT, 0, comm);

  ndist = deck->init_procs > 0 && deck->init_procs <= nranks ? deck->init_procs : nranks;
  mesh->gid_base = h.base;
  for (i = 0; i < mesh->num_elems; i++)
    mesh->elems[i].gid = mesh->elems[i].gid - 1 + (ZOLTAN_ID_TYPE)h.base;
  mesh->is_hypergraph = 1;
  mesh->hg_format = ZOLTAN_COMPRESSED_EDGE;
  mesh->hewgt_dim = h.ewgt_dim;
  mesh->list_gid = malloc((size_t)(h.nedges > 0 ? h.nedges : 1) * sizeof(ZOLTAN_ID_TYPE));
  mesh->list_start = malloc(((size_t)h.nedges + 1) * sizeof(int));
  mesh->pin_gid = malloc((size_t)(hdr[4] > 0 ? hdr[4] : 1) * sizeof(ZOLTAN_ID_TYPE));
  mesh->hewgts =
      malloc((size_t)(h.nedges * h.ewgt_dim > 0 ? h.nedges * h.ewgt_dim : 1) * sizeof(float));
  if (!mesh->list_gid || !mesh->list_start || !mesh->pin_gid || !mesh->hewgts) {
    zdrive_set_error(st, deck->file_name, 0, "out of memory");
    goto cleanup;
  }
  mesh->list_start[0] = 0;
  for (n = 0, np = 0, e = 0; e < h.nedges; e++) {
    int p, k;
    if (deck->init_dist == ZDRIVE_DIST_CYCLIC)
      p = e % ndist;
    else if (deck->init_dist == ZDRIVE_DIST_OWNER)
      p = h.hindex[e + 1] > h.hindex[e] ? owner[h.hvertex[h.hindex[e]]] : 0;
    else /* linear, in single precision as zdrive computes it */
      p = (int)((float)e * (float)ndist / (float)h.nedges);
    if (p != rank) continue;
    mesh->list_gid[n] = (ZOLTAN_ID_TYPE)(e + h.base);
    for (k = 0; k < h.ewgt_dim; k++)
      mesh->hewgts[(size_t)n * h.ewgt_dim + k] = h.ewgt[(size_t)e * h.ewgt_dim + k];
    for (k = h.hindex[e]; k < h.hindex[e + 1]; k++)
      mesh->pin_gid[np++] = (ZOLTAN_ID_TYPE)(h.hvertex[k] + h.base);
    mesh->list_start[++n] = np;
  }
  mesh->nlists = n;
  /* zdrive reports a weight entry for every local hyperedge, weighted or not. */
  mesh->nhewgts = n;
  mesh->hewgt_gid = malloc((size_t)(n > 0 ? n : 1) * sizeof(ZOLTAN_ID_TYPE));
  if (!mesh->hewgt_gid) {
    zdrive_set_error(st, deck->file_name, 0, "out of memory");
    goto cleanup;
  }
  memcpy(mesh->hewgt_gid, mesh->list_gid, (size_t)n * sizeof(ZOLTAN_ID_TYPE));
  rc = 0;
cleanup:
  free(owner);
  free_whole(&h);
  zdrive_free_graph(&g);
  return rc;
}

/* ---- MatrixMarket+ (.mtxp) ------------------------------------------------ */

/* The sections of a .mtxp file, named by the comment lines before them. */
enum { SEC_NONE, SEC_PINS, SEC_VTX, SEC_EWGT };

/* Whole .mtxp file as rank 0 reads it (1-based IDs as written). */
typedef struct mtxp_data {
  int hdr[8];  /* nedges nvtx npins nprocs vdim numew edim, then #vertex lines */
  int *pin;    /* 3 per pin line: edge, vertex, rank */
  int *vtx;    /* 2 per vertex line: vertex, rank */
  float *vwgt; /* vdim per vertex line */
  int *ew;     /* 2 per hyperedge weight line: edge, rank */
  float *ewgt; /* edim per hyperedge weight line */
} mtxp_data;

static void free_mtxp(mtxp_data *d)
{
  free(d->pin);
  free(d->vtx);
  free(d->vwgt);
  free(d->ew);
  free(d->ewgt);
  memset(d, 0, sizeof(*d));
}

/*
 * Parses "id w1 .. wdim rank" (or "edge vertex value rank" for pins) of
 * line r into x; nx numbers are expected.  Returns 0, or 1 with st set.
 */
static int mtxp_line(mm_reader *r, double *x, int nx, const char *what, zdrive_status *st)
{
  const char *bad = NULL;
  char badtok[64];
  int n = parse_numbers(r->line, x, nx + 1, &bad);
  if (n < 0) {
    token_text(bad, badtok, sizeof(badtok));
    zdrive_set_error(st, r->name, r->lineno, "bad number '%s'", badtok);
    return 1;
  }
  if (n != nx) {
    zdrive_set_error(st, r->name, r->lineno, "expected \"%s\" (%d numbers), found %d", what, nx, n);
    return 1;
  }
  return 0;
}

/* What read_mtxp has read so far. */
typedef struct mtxp_count {
  int npin, nv, ne;                  /* pins, vertex lines, edge weight lines */
  long pin_cap, ew_cap, ewgt_cap;    /* room in d->pin, d->ew, d->ewgt */
  double x[2 + 2 * ZDRIVE_MAX_WGTS]; /* the numbers of the current line */
} mtxp_count;

/* The size line: the seven values of d->hdr, checked, and the vertex
 * arrays (bounded by the column count).  Returns 0, or 1 with st set. */
static int mtxp_size(mm_reader *r, mtxp_data *d, mtxp_count *c, zdrive_status *st)
{
  int *h = d->hdr, k;
  if (mtxp_line(r, c->x, 7,
                "edges vertices pins procs vertex-weight-dim edge-weight-count "
                "edge-weight-dim",
                st))
    return 1;
  for (k = 0; k < 7; k++)
    if (!int_in(c->x[k], k == 3 ? 1 : 0, 1e9)) {
      zdrive_set_error(st, r->name, r->lineno,
                       "bad header: value %d (%g) must be a "
                       "non-negative integer%s",
                       k + 1, c->x[k], k == 3 ? " > 0" : "");
      return 1;
    }
  for (k = 0; k < 7; k++) h[k] = (int)c->x[k];
  if (h[4] > ZDRIVE_MAX_WGTS || h[6] > ZDRIVE_MAX_WGTS) {
    zdrive_set_error(st, r->name, r->lineno,
                     "at most %d weights per vertex or edge are "
                     "supported",
                     ZDRIVE_MAX_WGTS);
    return 1;
  }
  if (h[0] > MM_MAX_COUNT || h[1] > MM_MAX_COUNT) {
    zdrive_set_error(st, r->name, r->lineno,
                     "%d rows and %d columns: at most %d of each are "
                     "supported",
                     h[0], h[1], MM_MAX_COUNT);
    return 1;
  }
  /* Vertex lines are bounded by the column count; pins and hyperedge
   * weight lines, bounded only by the header, grow as they are read. */
  d->vtx = malloc((size_t)(h[1] > 0 ? h[1] : 1) * 2 * sizeof(int));
  d->vwgt = malloc((size_t)(h[1] > 0 ? h[1] : 1) * (h[4] ? h[4] : 1) * sizeof(float));
  if (!d->vtx || !d->vwgt) {
    zdrive_set_error(st, r->name, 0, "out of memory");
    return 1;
  }
  return 0;
}

/* A line of the pin section: "edge vertex value process". */
static int mtxp_pin(mm_reader *r, mtxp_data *d, mtxp_count *c, zdrive_status *st)
{
  const int *h = d->hdr;
  const double *x = c->x;
  if (mtxp_line(r, c->x, 4, "edge vertex value process", st)) return 1;
  if (c->npin == h[2]) {
    zdrive_set_error(st, r->name, r->lineno, "more pins than the %d of the header", h[2]);
    return 1;
  }
  if (mm_grow((void **)&d->pin, &c->pin_cap, 3L * (c->npin + 1), sizeof(int))) {
    zdrive_set_error(st, r->name, r->lineno, "out of memory for %d pins", h[2]);
    return 1;
  }
  if (!int_in(x[0], 1, h[0]) || !int_in(x[1], 1, h[1]) || !int_in(x[3], 0, h[3] - 1)) {
    zdrive_set_error(st, r->name, r->lineno,
                     "pin (%g, %g) on process %g is out of range "
                     "(edges 1..%d, vertices 1..%d, processes 0..%d)",
                     x[0], x[1], x[3], h[0], h[1], h[3] - 1);
    return 1;
  }
  d->pin[3 * c->npin] = (int)x[0];
  d->pin[3 * c->npin + 1] = (int)x[1];
  d->pin[3 * c->npin + 2] = (int)x[3];
  c->npin++;
  return 0;
}

/* A line of the vertex weight section: "vertex {weights} process". */
static int mtxp_vertex(mm_reader *r, mtxp_data *d, mtxp_count *c, zdrive_status *st)
{
  const int *h = d->hdr;
  const double *x = c->x;
  if (mtxp_line(r, c->x, 2 + h[4], "vertex {weights} process", st)) return 1;
  if (c->nv == h[1]) {
    zdrive_set_error(st, r->name, r->lineno, "more vertex lines than the %d vertices", h[1]);
    return 1;
  }
  if (!int_in(x[0], 1, h[1]) || !int_in(x[1 + h[4]], 0, h[3] - 1)) {
    zdrive_set_error(st, r->name, r->lineno,
                     "vertex %g on process %g is out of range "
                     "(vertices 1..%d, processes 0..%d)",
                     x[0], x[1 + h[4]], h[1], h[3] - 1);
    return 1;
  }
  d->vtx[2 * c->nv] = (int)x[0];
  d->vtx[2 * c->nv + 1] = (int)x[1 + h[4]];
  for (int k = 0; k < h[4]; k++) d->vwgt[(size_t)c->nv * h[4] + k] = (float)x[1 + k];
  c->nv++;
  return 0;
}

/* A line of the edge weight section: "edge {weights} process". */
static int mtxp_edge_weight(mm_reader *r, mtxp_data *d, mtxp_count *c, zdrive_status *st)
{
  const int *h = d->hdr;
  const double *x = c->x;
  if (mtxp_line(r, c->x, 2 + h[6], "edge {weights} process", st)) return 1;
  if (c->ne == h[5]) {
    zdrive_set_error(st, r->name, r->lineno,
                     "more edge weight lines than the %d of the "
                     "header",
                     h[5]);
    return 1;
  }
  if (mm_grow((void **)&d->ew, &c->ew_cap, 2L * (c->ne + 1), sizeof(int)) ||
      mm_grow((void **)&d->ewgt, &c->ewgt_cap, (c->ne + 1L) * (h[6] ? h[6] : 1), sizeof(float))) {
    zdrive_set_error(st, r->name, r->lineno, "out of memory for %d edge weight lines", h[5]);
    return 1;
  }
  if (!int_in(x[0], 1, h[0]) || !int_in(x[1 + h[6]], 0, h[3] - 1)) {
    zdrive_set_error(st, r->name, r->lineno,
                     "edge %g on process %g is out of range "
                     "(edges 1..%d, processes 0..%d)",
                     x[0], x[1 + h[6]], h[0], h[3] - 1);
    return 1;
  }
  d->ew[2 * c->ne] = (int)x[0];
  d->ew[2 * c->ne + 1] = (int)x[1 + h[6]];
  for (int k = 0; k < h[6]; k++) d->ewgt[(size_t)c->ne * h[6] + k] = (float)x[1 + k];
  c->ne++;
  return 0;
}

/* After the last line: the counts the header promised, and the arrays
 * handed on (and tested for NULL) even when they are empty. */
static int mtxp_finish(mm_reader *r, mtxp_data *d, mtxp_count *c, int have_hdr, zdrive_status *st)
{
  int *h = d->hdr;
  if (!have_hdr) {
    zdrive_set_error(st, r->name, r->lineno, "file truncated: no size line");
    return 1;
  }
  if (c->npin != h[2]) {
    zdrive_set_error(st, r->name, r->lineno, "file truncated: %d of the header's %d pins read",
                     c->npin, h[2]);
    return 1;
  }
  if (c->ne != h[5]) {
    zdrive_set_error(st, r->name, r->lineno,
                     "file truncated: %d of the header's %d edge "
                     "weight lines read",
                     c->ne, h[5]);
    return 1;
  }
  if (mm_grow((void **)&d->pin, &c->pin_cap, 1, sizeof(int)) ||
      mm_grow((void **)&d->ew, &c->ew_cap, 1, sizeof(int)) ||
      mm_grow((void **)&d->ewgt, &c->ewgt_cap, 1, sizeof(float))) {
    zdrive_set_error(st, r->name, 0, "out of memory");
    return 1;
  }
  h[7] = c->nv;
  return 0;
}

/* Reads a .mtxp file on rank 0 into d.  Returns 0, or 1 with st naming file and line. */
static int read_mtxp(const char *fname, mtxp_data *d, zdrive_status *st)
{
  mm_reader r = {0};
  mtxp_count c = {0};
  int sec = SEC_NONE, have_hdr = 0, rc = 1;
  r.name = fname;
  r.f = fopen(fname, "r");
  if (!r.f) {
    zdrive_set_error(st, fname, 0, "cannot open the MatrixMarket+ file: %s", strerror(errno));
    return 1;
  }
  if (!rd_next(&r) || strncmp(r.line, "%%MatrixMarket+", 15) != 0) {
    zdrive_set_error(st, fname, r.lineno ? r.lineno : 1,
                     "bad header: the first line must "
                     "start with '%%%%MatrixMarket+'");
    goto cleanup;
  }
  while (rd_next(&r)) {
    const char *s = skip_blanks(r.line);
    int bad;
    if (!*s) continue;
    if (*s == '%') {
      /* zdrive finds the sections by these words of their comment lines. */
      if (strstr(s, "Edge and Vertex IDs"))
        sec = SEC_PINS;
      else if (strstr(s, "Vertex weights"))
        sec = SEC_VTX;
      else if (strstr(s, "Edge weights"))
        sec = SEC_EWGT;
      continue;
    }
    if (!have_hdr) {
      bad = mtxp_size(&r, d, &c, st);
      have_hdr = 1;
      sec = SEC_NONE;
    } else if (sec == SEC_PINS) {
      bad = mtxp_pin(&r, d, &c, st);
    } else if (sec == SEC_VTX) {
      bad = mtxp_vertex(&r, d, &c, st);
    } else if (sec == SEC_EWGT) {
      bad = mtxp_edge_weight(&r, d, &c, st);
    } else {
      zdrive_set_error(st, fname, r.lineno,
                       "data line outside the pin, vertex and edge "
                       "weight sections");
      bad = 1;
    }
    if (bad) goto cleanup;
  }
  if (mtxp_finish(&r, d, &c, have_hdr, st)) goto cleanup;
  rc = 0;
cleanup:
  free(r.line);
  fclose(r.f);
  return rc;
}

/* Orders (list ID, position) pairs by ID, then position. */
static int cmp_pair(const void *a, const void *b)
{
  const int *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return (x[1] > y[1]) - (x[1] < y[1]);
}

/* First and last index of rank's contiguous share of n items over p ranks (larger shares first). */
static void share_of(int n, int p, int rank, int *lo, int *hi)
{
  int s = n / p, extra = n - p * s, mine = rank < extra ? s + 1 : s;
  *lo = rank * mine + (rank >= extra ? extra : 0);
  *hi = *lo + mine - 1;
}

/*
 * zdrive_read_mtxp - collective: reads <file name>.mtxp on rank 0 and keeps
 * on each rank its vertices (file order) and its pins, as zdrive's
 * process_mtxp_file.  Returns 0, or 1 on every rank with st set.
 */
/* Rank 0 reads the .mtxp file (or refuses the deck) and every rank gets
 * its whole content.  Returns 0, 1 with st set on every rank (a reading
 * error), or 2 (out of memory somewhere). */
static int mtxp_share(const zdrive_deck *deck, mtxp_data *d, MPI_Comm comm, zdrive_status *st)
{
  char fname[ZDRIVE_PATH + 16];
  int rank, err = 0, *h = d->hdr, vdim, edim;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    snprintf(fname, sizeof(fname), "%s.mtxp", deck->file_name);
    if (deck->init_dist == ZDRIVE_DIST_OWNER) {
      zdrive_set_error(st, deck->deck_name, 0,
                       "initial distribution = owner is not supported "
                       "for matrixmarket+ input (use linear, cyclic or file)");
      err = 1;
    } else if (deck->matrix_obj != ZDRIVE_OBJ_COLUMNS) {
      zdrive_set_error(st, deck->deck_name, 0,
                       "matrixmarket+ input supports objects = "
                       "columns only (as zdrive)");
      err = 1;
    } else {
      err = read_mtxp(fname, d, st);
    }
  }
  MPI_Bcast(&err, 1, MPI_INT, 0, comm);
  if (err) {
    MPI_Bcast(st->text, (int)sizeof(st->text), MPI_CHAR, 0, comm);
    return 1;
  }
  MPI_Bcast(h, 8, MPI_INT, 0, comm);
  vdim = h[4];
  edim = h[6];
  if (rank != 0) {
    d->pin = malloc((size_t)(h[2] > 0 ? h[2] : 1) * 3 * sizeof(int));
    d->vtx = malloc((size_t)(h[7] > 0 ? h[7] : 1) * 2 * sizeof(int));
    d->vwgt = malloc((size_t)(h[7] > 0 ? h[7] : 1) * (vdim ? vdim : 1) * sizeof(float));
    d->ew = malloc((size_t)(h[5] > 0 ? h[5] : 1) * 2 * sizeof(int));
    d->ewgt = malloc((size_t)(h[5] > 0 ? h[5] : 1) * (edim ? edim : 1) * sizeof(float));
  }
  err = !d->pin || !d->vtx || !d->vwgt || !d->ew || !d->ewgt;
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_MAX, comm);
  if (err) return 2;
  MPI_Bcast(d->pin, 3 * h[2], MPI_INT, 0, comm);
  MPI_Bcast(d->vtx, 2 * h[7], MPI_INT, 0, comm);
  if (vdim) MPI_Bcast(d->vwgt, vdim * h[7], MPI_FLOAT, 0, comm);
  MPI_Bcast(d->ew, 2 * h[5], MPI_INT, 0, comm);
  if (edim) MPI_Bcast(d->ewgt, edim * h[5], MPI_FLOAT, 0, comm);
  return 0;
}

/* This rank's vertices by the deck's initial distribution, in file order.
 * Returns 0, or 1 out of memory. */
static int mtxp_my_vertices(const zdrive_deck *deck, const mtxp_data *d, zdrive_mesh *mesh)
{
  const int *h = d->hdr;
  int rank = mesh->rank, vdim = h[4], vlo = -1, vhi = -2, n = 0;
  int ndist =
      deck->init_procs > 0 && deck->init_procs < mesh->nranks ? deck->init_procs : mesh->nranks;
  if (deck->init_dist == ZDRIVE_DIST_LINEAR && rank < ndist)
    share_of(h[1], ndist, rank, &vlo, &vhi);
  mesh->elem_cap = h[7] + 5;
  mesh->elems = calloc((size_t)mesh->elem_cap, sizeof(zdrive_elem));
  if (!mesh->elems) return 1;
  for (int i = 0; i < h[7]; i++) {
    int v = d->vtx[2 * i] - 1, p = d->vtx[2 * i + 1], mine;
    zdrive_elem *e;
    if (rank >= ndist)
      mine = 0;
    else if (ndist == 1)
      mine = 1;
    else if (deck->init_dist == ZDRIVE_DIST_FILE)
      mine = p % ndist == rank;
    else if (deck->init_dist == ZDRIVE_DIST_CYCLIC)
      mine = v % ndist == rank;
    else
      mine = v >= vlo && v <= vhi;
    if (!mine) continue;
    e = &mesh->elems[n++];
    e->gid = (ZOLTAN_ID_TYPE)v;
    e->part = rank;
    e->perm = e->iperm = -1;
    e->fixed_part = -1;
    /* Without weights in the file zdrive's objects weigh 0 (never asked for then). */
    for (int k = 0; k < vdim; k++) e->wgt[k] = d->vwgt[(size_t)i * vdim + k];
  }
  mesh->num_elems = n;
  return 0;
}

/* Whether pin line i (edge eid, vertex vid, process p) is this rank's by
 * the deck's initial pin distribution (plo..phi: its linear share). */
static int mtxp_pin_is_mine(const zdrive_deck *deck, const zdrive_mesh *mesh, int i, int eid,
                            int vid, int p, int plo, int phi)
{
  int rank = mesh->rank, nranks = mesh->nranks;
  if (nranks == 1) return 1;
  switch (deck->init_pins) {
  case ZDRIVE_PINS_ZERO:
    return rank == 0;
  case ZDRIVE_PINS_FILE:
    return p % nranks == rank;
  case ZDRIVE_PINS_CYCLIC:
    return i % nranks == rank;
  case ZDRIVE_PINS_LINEAR:
    return i >= plo && i <= phi;
  case ZDRIVE_PINS_COL:
    return vid % nranks == rank;
  default:
    return eid % nranks == rank;
  }
}

/* This rank's pins as (list ID, other ID) in file order, then grouped by
 * list into the mesh's compressed lists.  Returns 0, or 1 out of memory. */
static int mtxp_my_pins(const zdrive_deck *deck, const mtxp_data *d, zdrive_mesh *mesh)
{
  const int *h = d->hdr;
  int n = 0, plo = -1, phi = -2, rc = 1, by_col = deck->init_pins == ZDRIVE_PINS_COL;
  int *pairs = malloc((size_t)(h[2] > 0 ? h[2] : 1) * 2 * sizeof(int));
  if (deck->init_pins == ZDRIVE_PINS_LINEAR) share_of(h[2], mesh->nranks, mesh->rank, &plo, &phi);
  mesh->pin_gid = malloc((size_t)(h[2] > 0 ? h[2] : 1) * sizeof(ZOLTAN_ID_TYPE));
  if (!pairs || !mesh->pin_gid) goto end;
  for (int i = 0; i < h[2]; i++) {
    int eid = d->pin[3 * i] - 1, vid = d->pin[3 * i + 1] - 1, p = d->pin[3 * i + 2];
    if (!mtxp_pin_is_mine(deck, mesh, i, eid, vid, p, plo, phi)) continue;
    pairs[2 * n] = by_col ? vid : eid;
    pairs[2 * n + 1] = i;
    n++;
  }
  qsort(pairs, (size_t)n, 2 * sizeof(int), cmp_pair);
  mesh->hg_format = by_col ? ZOLTAN_COMPRESSED_VERTEX : ZOLTAN_COMPRESSED_EDGE;
  mesh->list_gid = malloc((size_t)(n > 0 ? n : 1) * sizeof(ZOLTAN_ID_TYPE));
  mesh->list_start = malloc(((size_t)n + 1) * sizeof(int));
  if (!mesh->list_gid || !mesh->list_start) goto end;
  mesh->nlists = 0;
  mesh->list_start[0] = 0;
  for (int i = 0; i < n; i++) {
    int line = pairs[2 * i + 1];
    if (i == 0 || pairs[2 * i] != pairs[2 * i - 2]) {
      if (i > 0) mesh->list_start[mesh->nlists] = i;
      mesh->list_gid[mesh->nlists++] = (ZOLTAN_ID_TYPE)pairs[2 * i];
    }
    mesh->pin_gid[i] = (ZOLTAN_ID_TYPE)(by_col ? d->pin[3 * line] - 1 : d->pin[3 * line + 1] - 1);
  }
  mesh->list_start[mesh->nlists] = n;
  rc = 0;
end:
  free(pairs);
  return rc;
}

/* This rank's hyperedge weights: a line belongs to rank (its rank % P).
 * Returns 0, or 1 out of memory. */
static int mtxp_my_edge_weights(const mtxp_data *d, zdrive_mesh *mesh)
{
  const int *h = d->hdr;
  int n = 0, edim = h[6], rank = mesh->rank, nranks = mesh->nranks;
  for (int i = 0; i < h[5]; i++) n += d->ew[2 * i + 1] % nranks == rank;
  mesh->hewgt_gid = malloc((size_t)(n > 0 ? n : 1) * sizeof(ZOLTAN_ID_TYPE));
  mesh->hewgts = malloc((size_t)(n * edim > 0 ? n * edim : 1) * sizeof(float));
  if (!mesh->hewgt_gid || !mesh->hewgts) return 1;
  n = 0;
  for (int i = 0; i < h[5]; i++) {
    if (d->ew[2 * i + 1] % nranks != rank) continue;
    mesh->hewgt_gid[n] = (ZOLTAN_ID_TYPE)(d->ew[2 * i] - 1);
    for (int k = 0; k < edim; k++)
      mesh->hewgts[(size_t)n * edim + k] = d->ewgt[(size_t)i * edim + k];
    n++;
  }
  mesh->nhewgts = n;
  return 0;
}

int zdrive_read_mtxp(const zdrive_deck *deck, zdrive_mesh *mesh, MPI_Comm comm, zdrive_status *st)
{
  mtxp_data d;
  int rank, nranks, rc = 1, err;
  memset(&d, 0, sizeof(d));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  err = mtxp_share(deck, &d, comm, st);
  if (err == 1) goto cleanup;
  if (err == 0) {
    mesh->rank = rank;
    mesh->nranks = nranks;
    mesh->gnvtx = d.hdr[1];
    mesh->gid_base = 0;
    mesh->vwgt_dim = d.hdr[4];
    mesh->is_hypergraph = 1;
    mesh->hewgt_dim = d.hdr[6];
    err = mtxp_my_vertices(deck, &d, mesh) || mtxp_my_pins(deck, &d, mesh) ||
          mtxp_my_edge_weights(&d, mesh);
  }
  if (err) {
    zdrive_set_error(st, deck->file_name, 0, "out of memory on rank %d", rank);
    goto cleanup;
  }
  rc = 0;
cleanup:
  free_mtxp(&d);
  return rc;
}
