/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The capacity model of the layer (Stellner and Trinitis; Watts, Rieffel and Taylor): each rank's relative
 * speed, from a file, a parameter, a benchmark or measurements, optionally
 * divided by the external load of its host, turned into part sizes for
 * every method, ours (through the context's part sizes) and Zoltan's own
 * (through Zoltan_LB_Set_Part_Sizes around the real call).  With CAPACITY
 * unset nothing here runs: native calls go to Zoltan untouched.
 *
 * The arithmetic is in capacity/capacity_core.c; this file reads the
 * parameters, does the collectives and keeps the measurements per struct.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capacity_core.h"
#include "zp_hooks.h"
#include "zp_partition_internal.h"

/* Sources of a rank's capacity, in the order of zp_capacity_modes. */
enum { CAP_UNIFORM = 0, CAP_STATIC, CAP_VALUE, CAP_BENCHMARK, CAP_MEASURED };
#define cap_modes zp_capacity_modes

/* Largest capacity file read (a line per rank of a large machine fits). */
#define CAP_FILE_MAX (4u << 20)
/* Largest load-average file read. */
#define CAP_LOADAVG_MAX 4096
/* The environment variable CAPACITY_VALUE=ENV reads (zp_internal.h). */
#define CAP_ENV ZP_CAPACITY_ENV

/* The settings of one call. */
typedef struct cap_settings {
  int mode;                 /* CAP_* */
  int loadavg;              /* CAPACITY_LOADAVG */
  const char *file;         /* CAPACITY_FILE */
  double value;             /* CAPACITY_VALUE, valid unless value_env */
  int value_env;            /* 1: CAPACITY_VALUE = ENV */
  double bench_seconds;     /* CAPACITY_BENCHMARK_SECONDS */
  double smoothing;         /* CAPACITY_SMOOTHING */
  double deadband;          /* CAPACITY_DEADBAND */
  const char *loadavg_file; /* CAPACITY_LOADAVG_FILE */
  int mem_dim;              /* CAPACITY_MEMORY_DIM, -1 = no memory limits */
} cap_settings;

static int cap_mode_of(const zp_params *p)
{
  const char *v = NULL;
  int i;
  if (zp_param_string(p, "CAPACITY", &v) != ZOLTAN_OK || v == NULL) return CAP_UNIFORM;
  for (i = 0; cap_modes[i] != NULL; i++)
    if (strcmp(cap_modes[i], v) == 0) return i;
  return CAP_UNIFORM;
}

static int cap_loadavg_on(const zp_params *p)
{
  int v = 0;
  return zp_param_int(p, "CAPACITY_LOADAVG", &v, NULL) == ZOLTAN_OK && v == 1;
}

static int cap_mem_dim(const zp_params *p)
{
  int v = -1;
  return zp_param_int(p, "CAPACITY_MEMORY_DIM", &v, NULL) == ZOLTAN_OK ? v : -1;
}

int zp_capacity_active(const zp_record *r)
{
  return r != NULL && (cap_mode_of(r->params) != CAP_UNIFORM || cap_loadavg_on(r->params) ||
                       cap_mem_dim(r->params) >= 0);
}

void zp_capacity_key(const zp_record *r, int key[3])
{
  key[0] = cap_mode_of(r->params);
  key[1] = cap_loadavg_on(r->params);
  key[2] = cap_mem_dim(r->params);
}

static void cap_read_settings(const zp_record *r, cap_settings *s)
{
  memset(s, 0, sizeof *s);
  s->mode = cap_mode_of(r->params);
  s->loadavg = cap_loadavg_on(r->params);
  zp_param_string(r->params, "CAPACITY_FILE", &s->file);
  zp_param_double(r->params, "CAPACITY_VALUE", &s->value, &s->value_env);
  zp_param_double(r->params, "CAPACITY_BENCHMARK_SECONDS", &s->bench_seconds, NULL);
  zp_param_double(r->params, "CAPACITY_SMOOTHING", &s->smoothing, NULL);
  zp_param_double(r->params, "CAPACITY_DEADBAND", &s->deadband, NULL);
  zp_param_string(r->params, "CAPACITY_LOADAVG_FILE", &s->loadavg_file);
  s->mem_dim = cap_mem_dim(r->params);
}

/* Reads a whole file (at most max bytes) into a NUL-terminated buffer;
 * NULL with msg on failure. */
static char *cap_slurp(const char *path, size_t max, char *msg, size_t cap)
{
  FILE *f = fopen(path, "r");
  char *buf;
  size_t n;
  if (f == NULL) {
    snprintf(msg, cap, "%s cannot be opened", path);
    return NULL;
  }
  buf = malloc(max + 1);
  if (buf == NULL) {
    fclose(f);
    snprintf(msg, cap, "out of memory reading %s", path);
    return NULL;
  }
  n = fread(buf, 1, max, f);
  if (ferror(f) || (n == max && fgetc(f) != EOF)) {
    snprintf(msg, cap, ferror(f) ? "%s cannot be read" : "%s is larger than %zu bytes", path, max);
    fclose(f);
    free(buf);
    return NULL;
  }
  fclose(f);
  buf[n] = '\0';
  if (strlen(buf) != n) {
    snprintf(msg, cap, "%s holds a NUL byte: not a text file", path);
    free(buf);
    return NULL;
  }
  return buf;
}

/* Every rank's host name, nranks rows of MPI_MAX_PROCESSOR_NAME bytes, and
 * pointers to them.  Collective. */
static int cap_hosts(const zp_record *r, char **names, const char ***rows)
{
  char mine[MPI_MAX_PROCESSOR_NAME];
  int len = 0, i;
  memset(mine, 0, sizeof mine);
  MPI_Get_processor_name(mine, &len);
  *names = malloc((size_t)r->size * MPI_MAX_PROCESSOR_NAME);
  *rows = malloc((size_t)r->size * sizeof **rows);
  if (*names == NULL || *rows == NULL) {
    /* Still join the collective so that no rank waits. */
    MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, mine, 0, MPI_CHAR, r->comm);
    return ZOLTAN_MEMERR;
  }
  MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, *names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
                r->comm);
  for (i = 0; i < r->size; i++) {
    (*names)[(size_t)(i + 1) * MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    (*rows)[i] = *names + (size_t)i * MPI_MAX_PROCESSOR_NAME;
  }
  return ZOLTAN_OK;
}

/* STATIC (and memory limits): rank 0 reads the file and sends its text,
 * every rank looks itself up (its speed in *mine, its memory, -1 for none,
 * in *mem).  A syntax error is found by every rank alike and printed once; a
 * rank that no line covers prints its own error.  Collective. */
static int cap_static(zp_context *c, const cap_settings *s, double *mine, double *mem)
{
  zp_record *r = c->r;
  char msg[512] = "", *text = NULL, *names = NULL;
  const char **hosts = NULL;
  long len = 0;
  int ierr = ZOLTAN_OK, rc, nbad = 0;

  if (r->rank == 0) {
    if (s->file[0] == '\0')
      snprintf(msg, sizeof msg, "%s needs CAPACITY_FILE",
               s->mode == CAP_STATIC ? "CAPACITY = STATIC" : "CAPACITY_MEMORY_DIM");
    else
      text = cap_slurp(s->file, CAP_FILE_MAX, msg, sizeof msg);
    len = text != NULL ? (long)strlen(text) : -1;
  }
  MPI_Bcast(&len, 1, MPI_LONG, 0, r->comm);
  if (len < 0) {
    if (r->rank == 0) zp_error(c->yo, "CAPACITY_FILE: %s", msg);
    return ZOLTAN_FATAL;
  }
  if (r->rank != 0) text = malloc((size_t)len + 1);
  ierr = zp_agree(c, text != NULL ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr < 0) goto End;
  MPI_Bcast(text, (int)len + 1, MPI_CHAR, 0, r->comm);
  ierr = zp_agree(c, cap_hosts(r, &names, &hosts));
  if (ierr < 0) goto End;
  rc = capacity_file_lookup(text, s->file, r->rank, r->size, hosts[r->rank], hosts, mine, mem, msg,
                            sizeof msg);
  ierr = rc == CAPACITY_OK       ? ZOLTAN_OK
         : rc == CAPACITY_WARN   ? ZOLTAN_WARN
         : rc == CAPACITY_ENOMEM ? ZOLTAN_MEMERR
                                 : ZOLTAN_FATAL;
  nbad = ierr < 0;
  MPI_Allreduce(MPI_IN_PLACE, &nbad, 1, MPI_INT, MPI_SUM, r->comm);
  /* The same message on every rank is printed once; a rank's own problem
   * by that rank. */
  if (ierr < 0 && (nbad < r->size || r->rank == 0)) zp_error(c->yo, "CAPACITY_FILE %s", msg);
  if (ierr == ZOLTAN_WARN && r->rank == 0) zp_warn(c->yo, "CAPACITY_FILE %s", msg);
  if (ierr == ZOLTAN_WARN) ierr = ZOLTAN_OK;
  ierr = zp_agree(c, ierr);
End:
  free(text);
  free(names);
  free(hosts);
  return ierr;
}

/* VALUE: the parameter, or the environment variable.  Local. */
static int cap_value(const zp_context *c, const cap_settings *s, double *mine)
{
  const char *env;
  char *end;
  if (!s->value_env) {
    *mine = s->value;
    return ZOLTAN_OK;
  }
  env = getenv(CAP_ENV);
  if (env == NULL || env[0] == '\0') {
    zp_error(c->yo, "CAPACITY = VALUE: set CAPACITY_VALUE or the environment variable %s", CAP_ENV);
    return ZOLTAN_FATAL;
  }
  *mine = strtod(env, &end);
  while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  if (*end != '\0' || end == env || !(*mine > 0.0) || !isfinite(*mine)) {
    zp_error(c->yo, "%s = '%s' is not a finite number > 0", CAP_ENV, env);
    return ZOLTAN_FATAL;
  }
  return ZOLTAN_OK;
}

/* BENCHMARK: kernel rounds per second, measured once per struct with every
 * rank running at the same time (so that ranks sharing a core see it).
 * Collective. */
static double cap_benchmark(zp_record *r, const cap_settings *s)
{
  double t0, elapsed;
  long rounds = 0;
  volatile double sink = 0.0;
  if (r->cap.have_bench) return r->cap.bench;
  MPI_Barrier(r->comm);
  t0 = MPI_Wtime();
  do {
    sink += capacity_kernel(8);
    rounds += 8;
    elapsed = MPI_Wtime() - t0;
  } while (elapsed < s->bench_seconds);
  (void)sink;
  r->cap.bench = (double)rounds / elapsed;
  r->cap.have_bench = 1;
  return r->cap.bench;
}

/* MEASURED: the work this rank reported per second of its step times since
 * the last balance (the trigger's records), smoothed.  Until every rank has
 * a measurement, every rank gets 1.  Collective. */
static double cap_measured(zp_record *r, const cap_settings *s)
{
  double work = 0.0, seconds = 0.0;
  int have;
  if (r->history.rank_work != NULL &&
      r->history.rank_work(r->history.arg, &work, &seconds) == ZOLTAN_OK && work > 0.0 &&
      seconds > 0.0 && isfinite(work / seconds)) {
    r->cap.measured = capacity_smooth(r->cap.have_measured ? r->cap.measured : 0.0, work / seconds,
                                      s->smoothing, s->deadband);
    r->cap.have_measured = 1;
  }
  have = r->cap.have_measured;
  MPI_Allreduce(MPI_IN_PLACE, &have, 1, MPI_INT, MPI_MIN, r->comm);
  return have ? r->cap.measured : 1.0;
}

/* FNV-1a of a string, to find the ranks that share a load-average source. */
static uint64_t cap_hash(const char *s, uint64_t h)
{
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
  return h;
}

/* The load-average file of this rank: "%r" replaced by the rank. */
static void cap_loadavg_path(const char *pattern, int rank, char *out, size_t cap)
{
  size_t n = 0;
  for (; *pattern && n + 12 < cap; pattern++) {
    if (pattern[0] == '%' && pattern[1] == 'r') {
      n += (size_t)snprintf(out + n, cap - n, "%d", rank);
      pattern++;
    } else {
      out[n++] = *pattern;
    }
  }
  out[n] = '\0';
}

/* CAPACITY_LOADAVG: the factor 1 / (1 + external load per rank), with the
 * ranks reading the same file on the same host counted as ours.
 * Collective. */
static int cap_loadavg(zp_context *c, const cap_settings *s, double *factor)
{
  zp_record *r = c->r;
  char path[1024], msg[256], host[MPI_MAX_PROCESSOR_NAME], *text;
  uint64_t key, *keys = malloc((size_t)r->size * sizeof *keys);
  double avg = 0.0;
  int len = 0, ierr = ZOLTAN_OK, sharing = 0, i;

  cap_loadavg_path(s->loadavg_file, r->rank, path, sizeof path);
  memset(host, 0, sizeof host);
  MPI_Get_processor_name(host, &len);
  key = cap_hash(path, cap_hash(host, 0xcbf29ce484222325ULL));
  if (keys == NULL) ierr = ZOLTAN_MEMERR;
  text = cap_slurp(path, CAP_LOADAVG_MAX, msg, sizeof msg);
  if (ierr == ZOLTAN_OK && text == NULL) {
    zp_error(c->yo, "CAPACITY_LOADAVG_FILE: %s", msg);
    ierr = ZOLTAN_FATAL;
  } else if (ierr == ZOLTAN_OK && capacity_parse_loadavg(text, &avg, msg, sizeof msg) != 0) {
    zp_error(c->yo, "CAPACITY_LOADAVG_FILE %s: %s", path, msg);
    ierr = ZOLTAN_FATAL;
  }
  free(text);
  ierr = zp_agree(c, ierr);
  if (ierr >= 0) {
    MPI_Allgather(&key, 1, MPI_UINT64_T, keys, 1, MPI_UINT64_T, r->comm);
    for (i = 0; i < r->size; i++) sharing += keys[i] == key;
    *factor = capacity_loadavg_factor(avg, sharing);
  }
  free(keys);
  return ierr;
}

/* Prints the capacities on the debug rank (DEBUG_LEVEL >= 1). */
static void cap_print(const zp_context *c, const cap_settings *s, const double *caps)
{
  int i, n = c->r->size < 16 ? c->r->size : 16;
  if (c->debug_level < ZP_DEBUG_PARAMS || c->r->rank != c->debug_proc) return;
  printf("ZOLTAN capacities (CAPACITY = %s%s), relative to their mean:", cap_modes[s->mode],
         s->loadavg ? ", divided by the load average" : "");
  for (i = 0; i < n; i++) printf(" %.4g", caps[i]);
  printf("%s\n", n < c->r->size ? " ..." : "");
  fflush(stdout);
}

/* Every rank's capacity into caps (normalised to mean 1); *active is 0 when
 * speeds play no part.  *mem receives this rank's memory capacity from the
 * file when memory limits are on (-1: none).  Collective; the outcome is
 * agreed. */
static int cap_rank_caps(zp_context *c, const cap_settings *s, double *caps, int *active,
                         double *mem)
{
  zp_record *r = c->r;
  double mine = 1.0, factor = 1.0, sum = 0.0, file_speed = 1.0;
  int ierr = ZOLTAN_OK, i;
  *mem = -1.0;
  if (s->mode == CAP_STATIC || s->mem_dim >= 0) {
    ierr = cap_static(c, s, &file_speed, mem);
    if (ierr < 0) return ierr;
  }
  *active = s->mode != CAP_UNIFORM || s->loadavg;
  if (!*active) return ZOLTAN_OK;
  switch (s->mode) {
  case CAP_STATIC:
    mine = file_speed;
    break;
  case CAP_VALUE:
    ierr = zp_agree(c, cap_value(c, s, &mine));
    break;
  case CAP_BENCHMARK:
    mine = cap_benchmark(r, s);
    break;
  case CAP_MEASURED:
    mine = cap_measured(r, s);
    break;
  default:
    break;
  }
  if (ierr < 0) return ierr;
  MPI_Allgather(&mine, 1, MPI_DOUBLE, caps, 1, MPI_DOUBLE, r->comm);
  for (i = 0; i < r->size; i++) sum += caps[i];
  r->cap.last = mine * r->size / sum;
  r->cap.have_last = 1;
  if (s->loadavg) {
    ierr = cap_loadavg(c, s, &factor);
    if (ierr < 0) return ierr;
    mine *= factor;
    MPI_Allgather(&mine, 1, MPI_DOUBLE, caps, 1, MPI_DOUBLE, r->comm);
    for (sum = 0.0, i = 0; i < r->size; i++) sum += caps[i];
  }
  for (i = 0; i < r->size; i++) caps[i] *= r->size / sum;
  cap_print(c, s, caps);
  return ZOLTAN_OK;
}

/* Memory limits: every rank's memory into part limits (c->mem_limit,
 * INFINITY for none).  Collective (one allgather); local checks only. */
static int cap_memory_limits(zp_context *c, const cap_settings *s, double mem)
{
  double *rank_mem = NULL;
  int i, rc;
  if (s->mem_dim >= c->wdim) {
    if (c->r->rank == 0)
      zp_error(c->yo,
               "CAPACITY_MEMORY_DIM = %d names no weight: objects have %d weight%s (OBJ_WEIGHT_DIM "
               "= %d), numbered from 0",
               s->mem_dim, c->wdim, c->wdim == 1 ? "" : "s", c->obj_wgt_dim);
    return ZOLTAN_FATAL;
  }
  rank_mem = malloc((size_t)c->r->size * sizeof *rank_mem);
  c->mem_limit = malloc((size_t)c->nparts * sizeof *c->mem_limit);
  if (rank_mem == NULL || c->mem_limit == NULL) {
    free(rank_mem);
    return ZOLTAN_MEMERR;
  }
  MPI_Allgather(&mem, 1, MPI_DOUBLE, rank_mem, 1, MPI_DOUBLE, c->r->comm);
  for (i = 0; i < c->r->size; i++)
    if (!(rank_mem[i] > 0.0)) rank_mem[i] = INFINITY;
  rc = capacity_part_weights(c->r->size, rank_mem, c->nparts, c->pdist, c->single_proc,
                             c->mem_limit);
  free(rank_mem);
  if (rc < 0) {
    zp_error(c->yo, "internal error placing memory capacities (code %d)", rc);
    return ZOLTAN_FATAL;
  }
  c->mem_dim = s->mem_dim;
  return ZOLTAN_OK;
}

/* Whether the settings of zp_capacity_key are the same on every rank: from
 * zp_read_settings' reduction when it ran, else by a reduction of its own.
 * Collective unless c->settings_read. */
static int cap_settings_same(const zp_context *c)
{
  int key[3], mm[6], k;
  if (c->settings_read) return c->cap_same;
  zp_capacity_key(c->r, key);
  for (k = 0; k < 3; k++) {
    mm[2 * k] = key[k];
    mm[2 * k + 1] = -key[k];
  }
  MPI_Allreduce(MPI_IN_PLACE, mm, 6, MPI_INT, MPI_MAX, c->r->comm);
  return mm[0] == -mm[1] && mm[2] == -mm[3] && mm[4] == -mm[5];
}

int zp_capacity_apply(zp_context *c)
{
  double *caps = NULL, *part_cap = NULL, mem = -1.0;
  int active = 0, ierr = ZOLTAN_OK, rc;
  cap_settings s;
  cap_read_settings(c->r, &s);
  if (!cap_settings_same(c)) {
    if (c->r->rank == 0)
      zp_error(c->yo, "CAPACITY, CAPACITY_LOADAVG and CAPACITY_MEMORY_DIM must be the same on "
                      "every rank");
    return ZOLTAN_FATAL;
  }
  /* Uniform capacities without memory limits (the settings are the same on
   * every rank): nothing to compose, and no collective. */
  if (s.mode == CAP_UNIFORM && !s.loadavg && s.mem_dim < 0) return ZOLTAN_OK;
  caps = malloc((size_t)c->r->size * sizeof *caps);
  part_cap = malloc((size_t)c->nparts * sizeof *part_cap);
  ierr = zp_agree(c, caps && part_cap ? ZOLTAN_OK : ZOLTAN_MEMERR);
  if (ierr >= 0) ierr = cap_rank_caps(c, &s, caps, &active, &mem);
  if (ierr >= 0 && active) {
    rc = capacity_part_weights(c->r->size, caps, c->nparts, c->pdist, c->single_proc, part_cap);
    if (rc == CAPACITY_OK) rc = capacity_compose(c->nparts, c->wdim, part_cap, c->part_sizes);
    if (rc < 0) zp_error(c->yo, "internal error composing capacities (code %d)", rc);
    ierr = rc < 0 ? ZOLTAN_FATAL : ZOLTAN_OK;
    c->sizes_set = 1;
  }
  if (ierr >= 0 && s.mem_dim >= 0) ierr = zp_agree(c, cap_memory_limits(c, &s, mem));
  free(caps);
  free(part_cap);
  return ierr;
}

int zp_capacity_of(struct Zoltan_Struct *zz, double *capacity)
{
  const zp_record *r = zp_record_find(zz);
  if (r == NULL || capacity == NULL || !zp_capacity_active(r) || !r->cap.have_last)
    return ZOLTAN_WARN;
  *capacity = r->cap.last;
  return ZOLTAN_OK;
}
