/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The trigger's files: per-rank speeds (ADAPTIVE_SPEED_FILE), the load
 * average (ADAPTIVE_LOADAVG_FILE) and the decision trace
 * (ADAPTIVE_TRACE_FILE).
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adaptive_internal.h"

/* Reads this rank's speed from a file of "host speed" lines. */
int adaptive_read_speed_file(const char *path, double *speed, char *msg, size_t cap)
{
  char host[MPI_MAX_PROCESSOR_NAME], line[512], name[256];
  int len = 0, found = 0;
  double v;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(msg, cap, "ADAPTIVE_SPEED_FILE = %s cannot be opened", path);
    return ZOLTAN_FATAL;
  }
  MPI_Get_processor_name(host, &len);
  while (!found && fgets(line, sizeof line, f)) {
    char *hash = strchr(line, '#');
    if (hash) *hash = '\0';
    if (sscanf(line, "%255s %lf", name, &v) != 2) continue;
    if (strcmp(name, host) == 0 || strcmp(name, "*") == 0) found = 1;
  }
  fclose(f);
  if (!found) {
    snprintf(msg, cap, "ADAPTIVE_SPEED_FILE = %s has no line for host %s (nor '*')", path, host);
    return ZOLTAN_FATAL;
  }
  if (!(v > 0.0) || !isfinite(v)) {
    snprintf(msg, cap, "ADAPTIVE_SPEED_FILE = %s gives speed %g for host %s, outside (0, inf)",
             path, v, host);
    return ZOLTAN_FATAL;
  }
  *speed = v;
  return ZOLTAN_OK;
}

/* Opens (path != NULL) or closes the trace; rank 0 only writes it. */
int adaptive_open_trace(adaptive_trigger *t, const char *path)
{
  if (t->trace) fclose(t->trace);
  t->trace = NULL;
  if (!path || t->rank != 0) return ZOLTAN_OK;
  t->trace = fopen(path, "w");
  if (!t->trace) return ZOLTAN_FATAL;
  fprintf(t->trace, "step,since,t_max,t_avg,t_min,median,reference,degradation,cost,"
                    "overhead,m_hat,tau,imbalance,sigma_minus,sigma_plus,spread,eff,"
                    "measured,decision,policy\n");
  return ZOLTAN_OK;
}

/* The first number of the load-average file (avenrun over one minute). */
int adaptive_read_avenrun(const char *path, double *avenrun)
{
  FILE *f = fopen(path, "r");
  int ok;
  if (!f) return -1;
  ok = fscanf(f, "%lf", avenrun) == 1 && isfinite(*avenrun) && *avenrun >= 0.0;
  fclose(f);
  return ok ? 0 : -1;
}

void adaptive_write_trace(adaptive_trigger *t, const adaptive_step *st,
                          const adaptive_quantities *q)
{
  if (!t->trace) return;
  fprintf(t->trace,
          "%ld,%ld,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,%.9g,"
          "%d,%d,%s\n",
          t->step, q->since, st->t_max, st->t_avg, st->t_min, q->median, q->reference,
          q->degradation, q->cost, q->overhead, q->m_hat, q->tau, q->imbalance, q->sigma_minus,
          q->sigma_plus, q->spread, q->eff, q->measured, q->decision,
          adaptive_policy_name(t->cfg.policy));
  fflush(t->trace);
}
