/* SPDX-License-Identifier: BSD-3-Clause */
#include "capacity_core.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest key or number we look at; longer tokens are errors. */
#define TOKEN_MAX 256

/* Kinds of key, in order of precedence. */
enum { KEY_RANK = 0, KEY_HOST = 1, KEY_ANY = 2, KEY_KINDS = 3 };

/* Copies the next blank-separated token of *p (stopping at '#' or the end
 * of the line) into tok; returns its length, 0 when none, -1 when too long. */
static int next_token(const char **p, char *tok)
{
  const char *s = *p;
  size_t n = 0;
  while (*s == ' ' || *s == '\t' || *s == '\r') s++;
  if (*s == '\0' || *s == '\n' || *s == '#') {
    *p = s;
    return 0;
  }
  while (*s && !isspace((unsigned char)*s) && *s != '#') {
    if (n + 1 >= TOKEN_MAX) return -1;
    tok[n++] = *s++;
  }
  tok[n] = '\0';
  *p = s;
  return (int)n;
}

static int all_digits(const char *s)
{
  if (*s == '\0') return 0;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

static int host_known(const char *name, const char *const *hosts, int nranks)
{
  int i;
  if (hosts == NULL) return 1;
  for (i = 0; i < nranks; i++)
    if (hosts[i] != NULL && strcmp(hosts[i], name) == 0) return 1;
  return 0;
}

/* One parsed line: its key and speed, or an error in msg. */
typedef struct entry {
  int kind;  /* KEY_* */
  long rank; /* for KEY_RANK */
  char key[TOKEN_MAX];
  double speed;
  double memory; /* the optional third field; -1 when absent */
} entry;

static int parse_line(const char *line, const char *fname, int lineno, entry *e, char *msg,
                      size_t cap)
{
  char tok[TOKEN_MAX], *end;
  const char *p = line;
  int n = next_token(&p, e->key);
  if (n == 0) return 0; /* blank or comment */
  if (n < 0) {
    snprintf(msg, cap, "%s:%d: key longer than %d characters", fname, lineno, TOKEN_MAX - 1);
    return CAPACITY_EINVAL;
  }
  if (strcmp(e->key, "*") == 0) {
    e->kind = KEY_ANY;
  } else if (all_digits(e->key)) {
    errno = 0;
    e->rank = strtol(e->key, &end, 10);
    if (errno == ERANGE || e->rank > 1000000000L) {
      snprintf(msg, cap, "%s:%d: rank number %s is out of range", fname, lineno, e->key);
      return CAPACITY_EINVAL;
    }
    e->kind = KEY_RANK;
  } else {
    e->kind = KEY_HOST;
  }
  n = next_token(&p, tok);
  if (n <= 0) {
    snprintf(msg, cap, "%s:%d: '%s' has no speed (expected 'KEY SPEED [MEMORY]')", fname, lineno,
             e->key);
    return CAPACITY_EINVAL;
  }
  errno = 0;
  e->speed = strtod(tok, &end);
  if (*end != '\0' || end == tok) {
    snprintf(msg, cap, "%s:%d: speed '%s' of %s is not a number", fname, lineno, tok, e->key);
    return CAPACITY_EINVAL;
  }
  if (!(e->speed > 0.0) || !isfinite(e->speed)) {
    snprintf(msg, cap, "%s:%d: speed %s of %s must be a finite number > 0", fname, lineno, tok,
             e->key);
    return CAPACITY_EINVAL;
  }
  /* The optional memory capacity (Watts et al.'s second limit), in the units
   * of the application's memory weight. */
  e->memory = -1.0;
  n = next_token(&p, tok);
  if (n > 0) {
    e->memory = strtod(tok, &end);
    if (*end != '\0' || end == tok) {
      snprintf(msg, cap, "%s:%d: memory '%s' of %s is not a number", fname, lineno, tok, e->key);
      return CAPACITY_EINVAL;
    }
    if (!(e->memory > 0.0) || !isfinite(e->memory)) {
      snprintf(msg, cap, "%s:%d: memory %s of %s must be a finite number > 0", fname, lineno, tok,
               e->key);
      return CAPACITY_EINVAL;
    }
    n = next_token(&p, tok);
  }
  if (n != 0) {
    snprintf(msg, cap,
             "%s:%d: unexpected '%s' after the memory of %s (expected 'KEY SPEED [MEMORY]')", fname,
             lineno, n > 0 ? tok : "...", e->key);
    return CAPACITY_EINVAL;
  }
  return 1;
}

/* A key seen earlier in the file, to refuse duplicates. */
typedef struct seen_key {
  char key[TOKEN_MAX];
  int line;
} seen_key;

int capacity_file_lookup(const char *text, const char *fname, int rank, int nranks,
                         const char *host, const char *const *hosts, double *speed, double *memory,
                         char *msg, size_t msg_cap)
{
  const char *line = text;
  double found[KEY_KINDS], found_mem[KEY_KINDS];
  int have[KEY_KINDS] = {0, 0, 0}, lineno = 0, rc = CAPACITY_OK, k;
  seen_key *seen = NULL;
  size_t nseen = 0, capseen = 0, i;
  entry e;

  if (text == NULL || fname == NULL || host == NULL || speed == NULL || msg == NULL || rank < 0 ||
      rank >= nranks) {
    if (msg != NULL && msg_cap > 0) snprintf(msg, msg_cap, "capacity_file_lookup: bad arguments");
    return CAPACITY_EINVAL;
  }
  msg[0] = '\0';
  while (*line) {
    const char *nl = strchr(line, '\n');
    int got;
    lineno++;
    got = parse_line(line, fname, lineno, &e, msg, msg_cap);
    if (got < 0) {
      rc = got;
      goto done;
    }
    if (got > 0) {
      for (i = 0; i < nseen; i++) {
        if (strcmp(seen[i].key, e.key) == 0) {
          snprintf(msg, msg_cap, "%s:%d: %s is listed twice (first on line %d)", fname, lineno,
                   e.key, seen[i].line);
          rc = CAPACITY_EINVAL;
          goto done;
        }
      }
      if (nseen == capseen) {
        size_t nc = capseen ? 2 * capseen : 16;
        seen_key *g = realloc(seen, nc * sizeof *g);
        if (g == NULL) {
          rc = CAPACITY_ENOMEM;
          goto done;
        }
        seen = g;
        capseen = nc;
      }
      strcpy(seen[nseen].key, e.key);
      seen[nseen++].line = lineno;
      if (e.kind == KEY_RANK && e.rank >= nranks) {
        if (rc == CAPACITY_OK)
          snprintf(msg, msg_cap, "%s:%d: rank %ld is not in this run of %d ranks; line ignored",
                   fname, lineno, e.rank, nranks);
        rc = CAPACITY_WARN;
      } else if (e.kind == KEY_HOST && !host_known(e.key, hosts, nranks)) {
        if (rc == CAPACITY_OK)
          snprintf(msg, msg_cap, "%s:%d: no rank of this run is on host %s; line ignored", fname,
                   lineno, e.key);
        rc = CAPACITY_WARN;
      } else if ((e.kind == KEY_RANK && e.rank == rank) ||
                 (e.kind == KEY_HOST && strcmp(e.key, host) == 0) || e.kind == KEY_ANY) {
        found[e.kind] = e.speed;
        found_mem[e.kind] = e.memory;
        have[e.kind] = 1;
      }
    }
    if (nl == NULL) break;
    line = nl + 1;
  }
  for (k = 0; k < KEY_KINDS; k++) {
    if (have[k]) {
      *speed = found[k];
      if (memory != NULL) *memory = found_mem[k];
      goto done;
    }
  }
  snprintf(msg, msg_cap, "%s: no line for rank %d (host %s) and no '*' line", fname, rank, host);
  rc = CAPACITY_EINVAL;
done:
  free(seen);
  return rc;
}

int capacity_parse_loadavg(const char *text, double *avg, char *msg, size_t msg_cap)
{
  char tok[TOKEN_MAX], *end;
  const char *p = text;
  int n;
  if (text == NULL || avg == NULL) return CAPACITY_EINVAL;
  while (*p == '\n') p++;
  n = next_token(&p, tok);
  if (n <= 0) {
    snprintf(msg, msg_cap, "no number (expected the format of /proc/loadavg)");
    return CAPACITY_EINVAL;
  }
  *avg = strtod(tok, &end);
  if (*end != '\0' || !(*avg >= 0.0) || !isfinite(*avg)) {
    snprintf(msg, msg_cap, "first field '%s' is not a load average (a finite number >= 0)", tok);
    return CAPACITY_EINVAL;
  }
  return CAPACITY_OK;
}

double capacity_loadavg_factor(double avg, int sharing)
{
  double k = sharing < 1 ? 1.0 : (double)sharing, external;
  if (!(avg >= 0.0)) avg = 0.0;
  external = avg > k ? (avg - k) / k : 0.0;
  return 1.0 / (1.0 + external);
}

double capacity_smooth(double prev, double sample, double weight, double deadband)
{
  double next;
  if (!(prev > 0.0)) return sample;
  next = weight * sample + (1.0 - weight) * prev;
  if (fabs(next - prev) < deadband * prev) return prev;
  return next;
}

int capacity_part_weights(int nranks, const double *rank_cap, int nparts, const int *pdist,
                          int single_proc, double *part_cap)
{
  int *parts_on = NULL, p, q;
  if (nranks < 1 || nparts < 1 || rank_cap == NULL || part_cap == NULL) return CAPACITY_EINVAL;
  if (pdist == NULL) {
    if (nparts != nranks) return CAPACITY_EINVAL;
    for (p = 0; p < nparts; p++) part_cap[p] = rank_cap[p];
    return CAPACITY_OK;
  }
  if (!single_proc) {
    for (p = 0; p < nparts; p++) {
      if (pdist[p] < 0 || pdist[p + 1] > nranks || pdist[p + 1] < pdist[p]) return CAPACITY_EINVAL;
      part_cap[p] = 0.0;
      for (q = pdist[p]; q < pdist[p + 1]; q++) part_cap[p] += rank_cap[q];
    }
    return CAPACITY_OK;
  }
  parts_on = calloc((size_t)nranks, sizeof *parts_on);
  if (parts_on == NULL) return CAPACITY_ENOMEM;
  for (p = 0; p < nparts; p++) {
    if (pdist[p] < 0 || pdist[p] >= nranks) {
      free(parts_on);
      return CAPACITY_EINVAL;
    }
    parts_on[pdist[p]]++;
  }
  for (p = 0; p < nparts; p++) part_cap[p] = rank_cap[pdist[p]] / parts_on[pdist[p]];
  free(parts_on);
  return CAPACITY_OK;
}

int capacity_compose(int nparts, int wdim, const double *part_cap, double *sizes)
{
  int p, d, rc = CAPACITY_OK;
  if (nparts < 1 || wdim < 1 || part_cap == NULL || sizes == NULL) return CAPACITY_EINVAL;
  for (d = 0; d < wdim; d++) {
    double s = 0.0;
    for (p = 0; p < nparts; p++) s += sizes[(size_t)p * wdim + d] * part_cap[p];
    if (!(s > 0.0)) {
      rc = CAPACITY_WARN;
      continue;
    }
    for (p = 0; p < nparts; p++) sizes[(size_t)p * wdim + d] *= part_cap[p] / s;
  }
  return rc;
}

double capacity_kernel(long rounds)
{
  /* 4096 doubles (32 KiB, within every L1/L2 cache): the kernel measures the
   * core's arithmetic speed, which is what differs between machines and
   * what a competing process takes away, more than memory bandwidth. */
  enum { N = 4096 };
  double buf[N];
  double acc = 0.0;
  long r;
  int i;
  for (i = 0; i < N; i++) buf[i] = 1.0 + (double)i / N;
  for (r = 0; r < rounds; r++) {
    for (i = 0; i < N; i++) {
      buf[i] = buf[i] * 0.999999 + 1e-6 * buf[(i + 1) % N];
      acc += buf[i];
    }
  }
  return acc;
}
