/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Chaco input (.graph, .coords, .assign) and the initial distribution.
 *
 * Rank 0 reads the files whole and broadcasts them; every rank then keeps
 * the vertices that the deck's initial distribution gives it, in ascending
 * vertex order, exactly as Zoltan's zdrive does.  That order matters: it is
 * the order in which the objects reach Zoltan, and geometric methods break
 * ties by it.  Every reading error names the file and the line.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "zdrive.h"

/* A line-oriented reader that knows where it is, for error messages. */
typedef struct reader {
  FILE *f;          /* the open file */
  const char *name; /* its name */
  char *line;       /* current line (getline buffer) */
  size_t cap;       /* size of that buffer */
  char *pos;        /* next unread character of the line */
  int lineno;       /* 1-based number of the current line */
} reader;

/* Reads the next line; returns 0 at end of file. */
static int next_line(reader *r)
{
  ssize_t n = getline(&r->line, &r->cap, r->f);
  if (n < 0) return 0;
  r->lineno++;
  r->pos = r->line;
  return 1;
}

/* True when the line holds a Chaco comment ('%' or '#' first after blanks). */
static int comment_line(const char *s)
{
  while (*s && isspace((unsigned char)*s)) s++;
  return *s == '%' || *s == '#';
}

/*
 * Reads the next number of the current line.  Returns 1 and *v on success,
 * 0 at the end of the line (or on a comment line), -1 if the next token is
 * not a number (an error the caller reports).
 */
static int line_double(reader *r, double *v)
{
  char *end;
  if (comment_line(r->line)) return 0;
  while (*r->pos && isspace((unsigned char)*r->pos)) r->pos++;
  if (!*r->pos) return 0;
  errno = 0;
  *v = strtod(r->pos, &end);
  if (end == r->pos || errno == ERANGE || (*end && !isspace((unsigned char)*end))) return -1;
  r->pos = end;
  return 1;
}

/* As line_double for integers (decimal; leading zeros allowed, as in Chaco). */
static int line_int(reader *r, long *v)
{
  char *end;
  if (comment_line(r->line)) return 0;
  while (*r->pos && isspace((unsigned char)*r->pos)) r->pos++;
  if (!*r->pos) return 0;
  errno = 0;
  *v = strtol(r->pos, &end, 10);
  if (end == r->pos || errno == ERANGE || (*end && !isspace((unsigned char)*end))) return -1;
  r->pos = end;
  return 1;
}

/* Whole-file data read by rank 0 and broadcast (shared with the matrix readers). */
typedef zdrive_graph chaco_data;

/* zdrive_free_graph - not collective: frees the arrays of g and zeroes it. */
void zdrive_free_graph(zdrive_graph *g)
{
  free(g->start);
  free(g->adj);
  free(g->vwgt);
  free(g->ewgt);
  free(g->xyz);
  free(g->assign);
  memset(g, 0, sizeof(*g));
}

/* Reports the token at the reader's position as a bad number; returns 1. */
static int bad_number(const reader *r, zdrive_status *st)
{
  zdrive_set_error(st, r->name, r->lineno, "bad number '%.*s'", (int)strcspn(r->pos, " \t\r\n"),
                   r->pos);
  return 1;
}

/* Reads an optional integer that follows on the header line into *v (left
 * as it is when the line ends).  Returns 0, or 1 on a bad number. */
static int header_option(reader *r, int *v, zdrive_status *st)
{
  long x;
  int got = line_int(r, &x);
  if (got < 0) return bad_number(r, st);
  if (got == 1) *v = (int)x;
  return 0;
}

/* The header of a .graph file: the first line holding a number (comments
 * and blanks skipped), "nvtx nedges [fmt [vwgt_dim] [ewgt_dim]]".  Fills
 * d's nvtx and weight dimensions, *ne and *vtxnums.  Returns 0 or 1 (error
 * set). */
static int read_graph_header(reader *r, chaco_data *d, long *ne, int *vtxnums, zdrive_status *st)
{
  long nv = 0, opt = 0;
  int got;
  for (;;) {
    if (!next_line(r)) {
      zdrive_set_error(st, r->name, r->lineno, "no header line (nvtx nedges [fmt])");
      return 1;
    }
    got = line_int(r, &nv);
    if (got < 0) return bad_number(r, st);
    if (got == 1) break;
  }
  if (nv <= 0 || nv > ZDRIVE_MAX_COUNT) {
    zdrive_set_error(st, r->name, r->lineno, "invalid number of vertices %ld (1 to %d)", nv,
                     ZDRIVE_MAX_COUNT);
    return 1;
  }
  got = line_int(r, ne);
  if (got < 0) return bad_number(r, st);
  if (got == 0 || *ne < 0) {
    zdrive_set_error(st, r->name, r->lineno, "invalid or missing number of edges");
    return 1;
  }
  got = line_int(r, &opt);
  if (got < 0) return bad_number(r, st);
  if (opt < 0 || opt > 111 || (opt % 10) > 9) {
    zdrive_set_error(st, r->name, r->lineno, "invalid format code %ld", opt);
    return 1;
  }
  d->nvtx = (int)nv;
  d->ewgt_dim = (int)(opt % 10);
  d->vwgt_dim = (int)((opt / 10) % 10);
  *vtxnums = (int)((opt / 100) % 10);
  /* Optional explicit weight dimensions follow the format code. */
  if (d->vwgt_dim == 1 && header_option(r, &d->vwgt_dim, st)) return 1;
  if (d->ewgt_dim == 1 && header_option(r, &d->ewgt_dim, st)) return 1;
  if (d->vwgt_dim < 0 || d->vwgt_dim > ZDRIVE_MAX_WGTS || d->ewgt_dim < 0 ||
      d->ewgt_dim > ZDRIVE_MAX_WGTS) {
    zdrive_set_error(st, r->name, r->lineno, "weight dimensions %d/%d outside [0, %d]", d->vwgt_dim,
                     d->ewgt_dim, ZDRIVE_MAX_WGTS);
    return 1;
  }
  /* Zoltan's reader takes the header's edge count as an upper bound of the
   * adjacencies that follow (it fails only when more are listed), so a count
   * larger than a simple graph can have is accepted with a warning, as in
   * Zoltan's ch_drake.  A count that does not fit Zoltan's int is refused:
   * Zoltan cannot represent it either. */
  if (*ne > (INT_MAX - 1) / 2) {
    zdrive_set_error(st, r->name, r->lineno, "edge count %ld is too large (at most %d)", *ne,
                     (INT_MAX - 1) / 2);
    return 1;
  }
  if ((double)*ne > (double)nv * ((double)nv - 1.0) / 2.0)
    fprintf(stderr,
            "zdrive: warning: %s:%d: the header's edge count %ld is more than a simple graph on "
            "%ld vertices has; the edges listed are used\n",
            r->name, r->lineno, *ne, nv);
  return 0;
}

/* The adjacencies read so far from a .graph file. */
typedef struct graph_edges {
  long ne;        /* edges the header announces */
  int nadj;       /* adjacencies stored */
  int cap;        /* room in d->adj and d->ewgt */
  int self_edges; /* self edges skipped */
  int dups;       /* repeated edges skipped */
} graph_edges;

/* Reads the vwgt_dim weights of vertex (1-based) from the current line.
 * Returns 0 or 1 (error set). */
static int read_vertex_weights(reader *r, chaco_data *d, int vertex, zdrive_status *st)
{
  for (int k = 0; k < d->vwgt_dim; k++) {
    double w;
    int got = line_double(r, &w);
    if (got < 0) return bad_number(r, st);
    if (got == 0) {
      zdrive_set_error(st, r->name, r->lineno, "not enough weights for vertex %d", vertex);
      return 1;
    }
    if (w < 0) {
      zdrive_set_error(st, r->name, r->lineno, "negative weight %g for vertex %d", w, vertex);
      return 1;
    }
    d->vwgt[(size_t)(vertex - 1) * d->vwgt_dim + k] = (float)w;
  }
  return 0;
}

/* Reads the ewgt_dim weights of edge (vertex, nb) into *ew (the first).
 * Returns 0 or 1 (error set). */
static int read_edge_weights(reader *r, const chaco_data *d, int vertex, long nb, float *ew,
                             zdrive_status *st)
{
  for (int k = 0; k < d->ewgt_dim; k++) {
    double w;
    int got = line_double(r, &w);
    if (got < 0) return bad_number(r, st);
    if (got == 0) {
      zdrive_set_error(st, r->name, r->lineno, "not enough weights for edge (%d,%ld)", vertex, nb);
      return 1;
    }
    if (w < 0) {
      zdrive_set_error(st, r->name, r->lineno, "negative weight %g for edge (%d,%ld)", w, vertex,
                       nb);
      return 1;
    }
    if (k == 0) *ew = (float)w;
  }
  return 0;
}

/* Appends the adjacency nb with weight ew, growing the arrays up to the
 * header's 2 ne.  Returns 0 or 1 (error set). */
static int add_adjacency(reader *r, chaco_data *d, graph_edges *e, long nb, float ew,
                         zdrive_status *st)
{
  if (e->nadj >= 2 * e->ne) {
    zdrive_set_error(st, r->name, r->lineno,
                     "more than %ld adjacencies, but the header says %ld edges", 2 * e->ne, e->ne);
    return 1;
  }
  if (e->nadj == e->cap) {
    long grow = 2L * e->cap < 2 * e->ne + 1 ? 2L * e->cap : 2 * e->ne + 1;
    int *na = realloc(d->adj, (size_t)grow * sizeof(int));
    float *nw = na ? realloc(d->ewgt, (size_t)grow * sizeof(float)) : NULL;
    if (na) d->adj = na;
    if (nw) d->ewgt = nw;
    if (!na || !nw) {
      zdrive_set_error(st, r->name, r->lineno, "out of memory for %ld adjacencies", grow);
      return 1;
    }
    e->cap = (int)grow;
  }
  d->adj[e->nadj] = (int)nb;
  d->ewgt[e->nadj] = ew;
  e->nadj++;
  return 0;
}

/* Reads the neighbours (each with its edge weights) of vertex on the rest of
 * the current line; self and repeated edges are counted and skipped.
 * Returns 0 or 1 (error set). */
static int read_neighbours(reader *r, chaco_data *d, int vertex, graph_edges *e, zdrive_status *st)
{
  for (;;) {
    long nb;
    int skip = 0, got = line_int(r, &nb);
    float ew = 1.0f;
    if (got < 0) return bad_number(r, st);
    if (got == 0) return 0;
    if (nb < 1 || nb > d->nvtx) {
      zdrive_set_error(st, r->name, r->lineno, "neighbour %ld of vertex %d is outside [1, %d]", nb,
                       vertex, d->nvtx);
      return 1;
    }
    if (nb == vertex) {
      skip = 1;
      e->self_edges++;
    } else {
      for (int j = d->start[vertex - 1]; j < e->nadj; j++)
        if (d->adj[j] == nb) {
          skip = 1;
          e->dups++;
          break;
        }
    }
    if (read_edge_weights(r, d, vertex, nb, &ew, st)) return 1;
    if (!skip && add_adjacency(r, d, e, nb, ew, st)) return 1;
  }
}

/* The vertex of the current line: the next one, or with vertex numbers the
 * one the line names (*new_vertex = 0 when it continues the last one).
 * Returns 0, 1 (error set), or 2 at a line without a number after the last
 * vertex. */
static int line_vertex(reader *r, const chaco_data *d, int vtxnums, int *vertex, int *new_vertex,
                       zdrive_status *st)
{
  long x;
  int got;
  *new_vertex = 1;
  if (!vtxnums) {
    ++*vertex;
    return 0;
  }
  got = line_int(r, &x);
  if (got < 0) return bad_number(r, st);
  if (got == 0) {
    if (*vertex == d->nvtx) return 2;
    zdrive_set_error(st, r->name, r->lineno, "no vertex number on this line");
    return 1;
  }
  /* Vertex numbers start at 1: a 0 before the first vertex would continue
   * a vertex that does not exist. */
  if (x < 1 || (x != *vertex && x != *vertex + 1)) {
    zdrive_set_error(st, r->name, r->lineno, "out-of-order vertex number %ld", x);
    return 1;
  }
  *new_vertex = (x != *vertex);
  *vertex = (int)x;
  return 0;
}

/* The vertex lines of a .graph file, after its header: one line per vertex
 * (or several with vertex numbers); comment and blank lines count as vertex
 * lines, as in Chaco's reader.  Returns 0 or 1 (error set); *last is the
 * last vertex read. */
static int read_vertices(reader *r, chaco_data *d, int vtxnums, graph_edges *e, int *last,
                         zdrive_status *st)
{
  int vertex = 0, rc = 0;
  while (d->vwgt_dim || vtxnums || e->ne) {
    int new_vertex, got;
    if (!next_line(r)) break;
    got = line_vertex(r, d, vtxnums, &vertex, &new_vertex, st);
    if (got == 2) break;
    if (got != 0) {
      rc = 1;
      break;
    }
    if (vertex > d->nvtx) {
      double y;
      if (line_double(r, &y) != 0)
        fprintf(stderr, "zdrive: warning: %s:%d: data after the last vertex ignored\n", r->name,
                r->lineno);
      vertex = d->nvtx + 1;
      break;
    }
    if ((d->vwgt_dim && new_vertex && read_vertex_weights(r, d, vertex, st)) ||
        read_neighbours(r, d, vertex, e, st)) {
      rc = 1;
      break;
    }
    d->start[vertex] = e->nadj;
  }
  *last = vertex;
  return rc;
}

/* Reads <name>.graph; see the Chaco user guide for the format. */
static int read_graph(const char *fname, chaco_data *d, zdrive_status *st)
{
  reader r = {0};
  graph_edges e = {0};
  int rc = 1, vtxnums = 0, vertex = 0;
  r.name = fname;
  r.f = fopen(fname, "r");
  if (!r.f) {
    zdrive_set_error(st, fname, 0, "cannot open the Chaco graph file");
    return 1;
  }
  if (read_graph_header(&r, d, &e.ne, &vtxnums, st)) goto cleanup;
  /* The arrays grow as adjacencies are read, so that a header promising
   * millions of edges in a short (corrupt) file allocates nothing much. */
  e.cap = (int)(2 * e.ne + 1 < 4096 ? 2 * e.ne + 1 : 4096);
  d->start = calloc((size_t)d->nvtx + 1, sizeof(int));
  d->adj = malloc((size_t)e.cap * sizeof(int));
  d->ewgt = malloc((size_t)e.cap * sizeof(float));
  d->vwgt = calloc((size_t)d->nvtx * (d->vwgt_dim ? d->vwgt_dim : 1), sizeof(float));
  if (!d->start || !d->adj || !d->ewgt || !d->vwgt) {
    zdrive_set_error(st, fname, r.lineno, "out of memory for %d vertices", d->nvtx);
    goto cleanup;
  }
  if (d->vwgt_dim == 0)
    for (int k = 0; k < d->nvtx; k++) d->vwgt[k] = 1.0f;
  if (read_vertices(&r, d, vtxnums, &e, &vertex, st)) goto cleanup;
  if (vertex > d->nvtx) vertex = d->nvtx;
  /* Vertices past the last line read have no edges. */
  if ((d->vwgt_dim || vtxnums) && vertex < d->nvtx) {
    zdrive_set_error(st, fname, r.lineno, "file ends after vertex %d of %d", vertex, d->nvtx);
    goto cleanup;
  }
  for (int k = vertex; k < d->nvtx; k++) d->start[k + 1] = e.nadj;
  /* Fewer adjacencies than the header announces: Zoltan's reader warns and
   * uses what it read, and so do we (more were refused above). */
  if (e.nadj != 2 * e.ne)
    fprintf(stderr,
            "zdrive: warning: %s:%d: the header says %ld edges (%ld adjacencies) but the file "
            "lists %d adjacencies%s; the adjacencies listed are used\n",
            fname, r.lineno, e.ne, 2 * e.ne, e.nadj, vertex < d->nvtx ? " (file truncated?)" : "");
  if (e.self_edges)
    fprintf(stderr, "zdrive: warning: %s: %d self edges ignored\n", fname, e.self_edges);
  if (e.dups) fprintf(stderr, "zdrive: warning: %s: %d repeated edges ignored\n", fname, e.dups);
  d->nadj = e.nadj;
  rc = 0;
cleanup:
  free(r.line);
  fclose(r.f);
  return rc;
}

/* Reads <name>.coords if it exists; a missing file only means no geometry. */
static int read_coords(const char *fname, chaco_data *d, zdrive_status *st)
{
  reader r = {0};
  int rc = 1, v = 0, k;
  r.name = fname;
  r.f = fopen(fname, "r");
  if (!r.f) {
    fprintf(stderr, "zdrive: warning: cannot open %s; no geometry\n", fname);
    d->ndims = 0;
    return 0;
  }
  d->xyz = calloc((size_t)d->nvtx * 3, sizeof(float));
  if (!d->xyz) {
    zdrive_set_error(st, fname, 0, "out of memory");
    goto cleanup;
  }
  while (v < d->nvtx && next_line(&r)) {
    double c[4];
    int n = 0, got;
    while (n < 4 && (got = line_double(&r, &c[n])) == 1) n++;
    if (n < 4 && got < 0) {
      zdrive_set_error(st, fname, r.lineno, "bad number '%.*s'", (int)strcspn(r.pos, " \t\r\n"),
                       r.pos);
      goto cleanup;
    }
    if (n == 0) continue; /* comment or blank line */
    if (v == 0) {
      if (n > 3) {
        zdrive_set_error(st, fname, r.lineno, "more than 3 coordinates per vertex");
        goto cleanup;
      }
      d->ndims = n;
    } else if (n != d->ndims) {
      zdrive_set_error(st, fname, r.lineno, "vertex %d has %d coordinates, expected %d", v + 1, n,
                       d->ndims);
      goto cleanup;
    }
    for (k = 0; k < n; k++) d->xyz[3 * v + k] = (float)c[k];
    v++;
  }
  if (v < d->nvtx) {
    zdrive_set_error(st, fname, r.lineno, "only %d of %d vertices have coordinates", v, d->nvtx);
    goto cleanup;
  }
  rc = 0;
cleanup:
  free(r.line);
  fclose(r.f);
  return rc;
}

/* Reads <name>.assign: one non-negative part number per vertex. */
static int read_assign(const char *fname, chaco_data *d, zdrive_status *st)
{
  reader r = {0};
  int rc = 1, v = 0;
  r.name = fname;
  r.f = fopen(fname, "r");
  if (!r.f) {
    zdrive_set_error(st, fname, 0,
                     "cannot open the Chaco assignment file "
                     "(needed by 'initial distribution = file')");
    return 1;
  }
  d->assign = malloc((size_t)d->nvtx * sizeof(int));
  if (!d->assign) {
    zdrive_set_error(st, fname, 0, "out of memory");
    goto cleanup;
  }
  while (v < d->nvtx && next_line(&r)) {
    long a;
    int got;
    while (v < d->nvtx && (got = line_int(&r, &a)) == 1) {
      if (a < 0 || a > 32767) {
        zdrive_set_error(st, fname, r.lineno,
                         "assignment %ld of vertex %d is outside "
                         "[0, 32767]",
                         a, v + 1);
        goto cleanup;
      }
      d->assign[v++] = (int)a;
    }
    if (got < 0) {
      zdrive_set_error(st, fname, r.lineno, "bad number '%.*s'", (int)strcspn(r.pos, " \t\r\n"),
                       r.pos);
      goto cleanup;
    }
  }
  if (v < d->nvtx) {
    zdrive_set_error(st, fname, r.lineno, "only %d of %d vertices have an assignment", v, d->nvtx);
    goto cleanup;
  }
  d->has_assign = 1;
  rc = 0;
cleanup:
  free(r.line);
  fclose(r.f);
  return rc;
}

/* Broadcasts the whole problem from rank 0. */
static int bcast_data(chaco_data *d, int rank, MPI_Comm comm)
{
  int hdr[6];
  size_t nv;
  if (rank == 0) {
    hdr[0] = d->nvtx;
    hdr[1] = d->nadj;
    hdr[2] = d->vwgt_dim;
    hdr[3] = d->ewgt_dim;
    hdr[4] = d->ndims;
    hdr[5] = d->has_assign;
  }
  MPI_Bcast(hdr, 6, MPI_INT, 0, comm);
  if (rank != 0) {
    d->nvtx = hdr[0];
    d->nadj = hdr[1];
    d->vwgt_dim = hdr[2];
    d->ewgt_dim = hdr[3];
    d->ndims = hdr[4];
    d->has_assign = hdr[5];
    nv = (size_t)d->nvtx;
    d->start = malloc((nv + 1) * sizeof(int));
    d->adj = malloc(((size_t)d->nadj + 1) * sizeof(int));
    d->ewgt = malloc(((size_t)d->nadj + 1) * sizeof(float));
    d->vwgt = malloc(nv * (d->vwgt_dim ? d->vwgt_dim : 1) * sizeof(float));
    d->xyz = d->ndims ? malloc(nv * 3 * sizeof(float)) : NULL;
    d->assign = d->has_assign ? malloc(nv * sizeof(int)) : NULL;
    if (!d->start || !d->adj || !d->ewgt || !d->vwgt || (d->ndims && !d->xyz) ||
        (d->has_assign && !d->assign))
      return 1;
  }
  nv = (size_t)d->nvtx;
  MPI_Bcast(d->start, (int)nv + 1, MPI_INT, 0, comm);
  MPI_Bcast(d->adj, d->nadj, MPI_INT, 0, comm);
  MPI_Bcast(d->ewgt, d->nadj, MPI_FLOAT, 0, comm);
  MPI_Bcast(d->vwgt, (int)(nv * (d->vwgt_dim ? d->vwgt_dim : 1)), MPI_FLOAT, 0, comm);
  if (d->ndims) MPI_Bcast(d->xyz, (int)(3 * nv), MPI_FLOAT, 0, comm);
  if (d->has_assign) MPI_Bcast(d->assign, (int)nv, MPI_INT, 0, comm);
  return 0;
}

/*
 * Owner rank of each vertex under the deck's initial distribution, and
 * whether assignments are parts only.  Mirrors zdrive: with "file", if some
 * assignment is not a valid rank, the file gives parts and the vertices are
 * spread linearly; "initial procs = k" restricts the objects to ranks < k.
 */
static void owners(const zdrive_deck *deck, const chaco_data *d, int nranks, int *owner)
{
  int ndist = deck->init_procs, dist = deck->init_dist, v, p;
  if (ndist <= 0 || ndist > nranks) ndist = nranks;
  if (d->has_assign) {
    int maxa = 0;
    for (v = 0; v < d->nvtx; v++)
      if (d->assign[v] > maxa) maxa = d->assign[v];
    if (maxa >= nranks) dist = ZDRIVE_DIST_LINEAR;
  }
  switch (dist) {
  case ZDRIVE_DIST_FILE:
    for (v = 0; v < d->nvtx; v++) owner[v] = d->assign[v];
    break;
  case ZDRIVE_DIST_CYCLIC:
    for (v = 0; v < d->nvtx; v++) owner[v] = v % ndist;
    break;
  default: {
    /* Vertices split as evenly as possible, earlier ranks taking fewer. */
    int first = 0, rest = d->nvtx;
    for (p = 0; p < ndist; p++) {
      int n = rest / (ndist - p);
      for (v = first; v < first + n; v++) owner[v] = p;
      first += n;
      rest -= n;
    }
    break;
  }
  }
}

/*
 * zdrive_read_chaco - collective: reads <file name>.graph/.coords/.assign on
 * rank 0 and gives every rank its initial objects in mesh.  Returns 0, or 1
 * on every rank with st holding rank 0's message (file and line).
 */
int zdrive_read_chaco(const zdrive_deck *deck, zdrive_mesh *mesh, MPI_Comm comm, zdrive_status *st)
{
  chaco_data d;
  char fname[ZDRIVE_PATH + 16];
  int rank, err = 0;

  memset(&d, 0, sizeof(d));
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    snprintf(fname, sizeof(fname), "%s.graph", deck->file_name);
    err = read_graph(fname, &d, st);
    if (!err) {
      snprintf(fname, sizeof(fname), "%s.coords", deck->file_name);
      err = read_coords(fname, &d, st);
    }
    if (!err && deck->init_dist == ZDRIVE_DIST_FILE) {
      snprintf(fname, sizeof(fname), "%s.assign", deck->file_name);
      err = read_assign(fname, &d, st);
    }
  }
  return zdrive_dist_graph(deck, &d, err, mesh, NULL, comm, st);
}

/*
 * zdrive_dist_graph - collective: shares rank 0's reading outcome err (with
 * its message in st) and graph g, then keeps in mesh the vertices that the
 * deck's initial distribution gives this rank, in ascending vertex order, as
 * zdrive's chaco_dist_graph does.  Global IDs are the 1-based vertex
 * numbers.  g is freed.  When owner_out is not NULL it receives the owner
 * rank of every vertex (caller frees).  Returns 0, or 1 on every rank with st
 * set.
 */
int zdrive_dist_graph(const zdrive_deck *deck, zdrive_graph *g, int err, zdrive_mesh *mesh,
                      int **owner_out, MPI_Comm comm, zdrive_status *st)
{
  chaco_data d = *g;
  int rank, nranks, v, n, *owner = NULL, rc = 1;

  memset(g, 0, sizeof(*g));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  /* Every rank learns the outcome and the message, so all stop together. */
  MPI_Bcast(&err, 1, MPI_INT, 0, comm);
  if (err) {
    MPI_Bcast(st->text, (int)sizeof(st->text), MPI_CHAR, 0, comm);
    goto cleanup;
  }
  if (bcast_data(&d, rank, comm)) {
    zdrive_set_error(st, deck->file_name, 0, "out of memory on rank %d", rank);
    goto cleanup;
  }
  owner = malloc((size_t)(d.nvtx > 0 ? d.nvtx : 1) * sizeof(int));
  if (!owner) goto cleanup;
  owners(deck, &d, nranks, owner);

  mesh->rank = rank;
  mesh->nranks = nranks;
  mesh->gnvtx = d.nvtx;
  mesh->gid_base = 1;
  mesh->num_dims = d.ndims;
  mesh->vwgt_dim = d.vwgt_dim;
  mesh->ewgt_dim = d.ewgt_dim;
  mesh->has_graph = d.nadj > 0;
  for (n = 0, v = 0; v < d.nvtx; v++) n += owner[v] == rank;
  mesh->elem_cap = n + 5;
  mesh->elems = calloc((size_t)mesh->elem_cap, sizeof(zdrive_elem));
  if (!mesh->elems) goto cleanup;
  for (n = 0, v = 0; v < d.nvtx; v++) {
    zdrive_elem *e;
    int j, k, deg;
    if (owner[v] != rank) continue;
    e = &mesh->elems[n++];
    e->gid = (ZOLTAN_ID_TYPE)(v + 1);
    e->part = d.has_assign ? d.assign[v] : rank;
    e->perm = e->iperm = -1;
    e->fixed_part = -1;
    for (k = 0; k < (d.vwgt_dim ? d.vwgt_dim : 1); k++)
      e->wgt[k] = d.vwgt[(size_t)v * (d.vwgt_dim ? d.vwgt_dim : 1) + k];
    for (k = 0; k < d.ndims; k++) e->coord[k] = d.xyz[3 * v + k];
    deg = d.start[v + 1] - d.start[v];
    e->nadj = deg;
    if (deg) {
      e->adj = malloc((size_t)deg * sizeof(ZOLTAN_ID_TYPE));
      e->adj_proc = malloc((size_t)deg * sizeof(int));
      e->ewgt = d.ewgt_dim ? malloc((size_t)deg * sizeof(float)) : NULL;
      if (!e->adj || !e->adj_proc || (d.ewgt_dim && !e->ewgt)) goto cleanup;
      for (j = 0; j < deg; j++) {
        int nb = d.adj[d.start[v] + j];
        e->adj[j] = (ZOLTAN_ID_TYPE)nb;
        e->adj_proc[j] = owner[nb - 1];
        if (e->ewgt) e->ewgt[j] = d.ewgt[d.start[v] + j];
      }
    }
  }
  mesh->num_elems = n;
  if (owner_out) {
    *owner_out = owner;
    owner = NULL;
  }
  rc = 0;
cleanup:
  if (rc && !st->text[0]) zdrive_set_error(st, deck->file_name, 0, "out of memory");
  free(owner);
  zdrive_free_graph(&d);
  return rc;
}

/* zdrive_free_mesh - not collective: frees the objects of mesh. */
void zdrive_free_mesh(zdrive_mesh *mesh)
{
  int i;
  free(mesh->list_gid);
  free(mesh->list_start);
  free(mesh->pin_gid);
  free(mesh->hewgt_gid);
  free(mesh->hewgts);
  mesh->list_gid = mesh->pin_gid = mesh->hewgt_gid = NULL;
  mesh->list_start = NULL;
  mesh->hewgts = NULL;
  mesh->nlists = mesh->nhewgts = 0;
  if (!mesh->elems) return;
  for (i = 0; i < mesh->num_elems; i++) {
    free(mesh->elems[i].adj);
    free(mesh->elems[i].adj_proc);
    free(mesh->elems[i].ewgt);
  }
  free(mesh->elems);
  free(mesh->slot_gid);
  mesh->elems = NULL;
  mesh->slot_gid = NULL;
  mesh->num_elems = 0;
}
