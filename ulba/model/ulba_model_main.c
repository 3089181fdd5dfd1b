/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ulba_model: the model study of the ULBA paper (figures 2 and 3) as a
 * command.  It writes CSV files into the output folder and prints the key
 * figures; the gnuplot scripts next to this file turn the CSV files into
 * plots.  See docs/ulba_model.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ulba_study.h"

/* Options of one run. */
typedef struct options {
  long instances;  /* instances per figure-2 run and per percentage of figure 3 */
  uint64_t seed;   /* seed of every random draw */
  const char *out; /* output folder, created if missing */
  long gamma;      /* iterations per application */
  int alphas;      /* alpha grid size of figure 3 */
  int pct_max;     /* largest percentage of overloading PEs in figure 3 */
  int quiet;       /* no progress line */
} options;

static void usage(FILE *f)
{
  fprintf(f, "usage: ulba_model [--instances N] [--seed S] [--out DIR] [--gamma G]\n"
             "                  [--alphas K] [--pct-max M] [--quiet]\n"
             "  --instances N  instances for figure 2 and per percentage of figure 3 (1000)\n"
             "  --seed S       seed of the study's generator (2019)\n"
             "  --out DIR      output folder for the CSV files (.)\n"
             "  --gamma G      iterations per application (100)\n"
             "  --alphas K     alpha grid k/K, k = 0..K-1, of figure 3 (100)\n"
             "  --pct-max M    percentages of overloading PEs 1..M in figure 3 (20)\n"
             "  --quiet        no progress line on stderr\n");
}

static int parse_long(const char *s, long lo, long hi, long *v)
{
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi) return -1;
  *v = x;
  return 0;
}

static int parse_args(int argc, char **argv, options *o)
{
  o->instances = 1000;
  o->seed = 2019;
  o->out = ".";
  o->gamma = ULBA_STUDY_GAMMA;
  o->alphas = 100;
  o->pct_max = 20;
  o->quiet = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    long v;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
      continue;
    }
    if (val == NULL) {
      fprintf(stderr, "ulba_model: option %s needs a value\n", a);
      return -1;
    }
    ++i;
    if (strcmp(a, "--instances") == 0 && parse_long(val, 1, 10000000, &v) == 0) {
      o->instances = v;
    } else if (strcmp(a, "--seed") == 0 && parse_long(val, 0, 2147483647L, &v) == 0) {
      o->seed = (uint64_t)v;
    } else if (strcmp(a, "--out") == 0) {
      o->out = val;
    } else if (strcmp(a, "--gamma") == 0 && parse_long(val, 1, 100000, &v) == 0) {
      o->gamma = v;
    } else if (strcmp(a, "--alphas") == 0 && parse_long(val, 1, 100000, &v) == 0) {
      o->alphas = (int)v;
    } else if (strcmp(a, "--pct-max") == 0 && parse_long(val, 1, 49, &v) == 0) {
      o->pct_max = (int)v;
    } else {
      fprintf(stderr, "ulba_model: bad option or value: %s %s\n", a, val);
      return -1;
    }
  }
  return 0;
}

static FILE *open_out(const char *dir, const char *name)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL) fprintf(stderr, "ulba_model: cannot write %s: %s\n", path, strerror(errno));
  return f;
}

static int compare_double(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

/* Quantile of sorted values by linear interpolation (type 7). */
static double quantile(const double *sorted, long n, double q)
{
  double h = (double)(n - 1) * q;
  long lo = (long)floor(h);
  long hi = lo + 1 < n ? lo + 1 : lo;
  return sorted[lo] + (h - (double)lo) * (sorted[hi] - sorted[lo]);
}

static int write_fig2(const options *o, const ulba_fig2_row *rows, FILE *report)
{
  long n = o->instances;
  FILE *f = open_out(o->out, "fig2_instances.csv");
  if (f == NULL) return -1;
  fprintf(f, "id,P,N,alpha,W0,dW,a,m,C_s,T_sigma_plus_s,T_opt_s,gap_pct,lb_sigma_plus,lb_opt\n");
  double sum = 0.0, best = -INFINITY, worst = INFINITY;
  long exact = 0;
  for (long k = 0; k < n; ++k) {
    const ulba_fig2_row *r = &rows[k];
    const ulba_model *q = &r->inst.model;
    fprintf(f, "%ld,%.0f,%.0f,%.6f,%.6e,%.6e,%.6e,%.6e,%.6e,%.9e,%.9e,%.6f,%ld,%ld\n", k, q->P,
            q->N, r->inst.alpha, q->W, q->a * q->P + q->m * q->N, q->a, q->m, q->C, r->t_sigma,
            r->t_opt, r->gap_pct, r->lb_sigma, r->lb_opt);
    sum += r->gap_pct;
    best = fmax(best, r->gap_pct);
    worst = fmin(worst, r->gap_pct);
    exact += r->gap_pct > -1e-9;
  }
  fclose(f);

  /* Histogram with 0.25% bins from the worst gap up to 0. */
  f = open_out(o->out, "fig2_hist.csv");
  if (f == NULL) return -1;
  const double width = 0.25;
  long nbins = (long)ceil(-worst / width) + 1;
  if (nbins < 1) nbins = 1;
  long *count = calloc((size_t)nbins, sizeof *count);
  if (count == NULL) {
    fclose(f);
    return -1;
  }
  for (long k = 0; k < n; ++k) {
    long b = (long)floor(-rows[k].gap_pct / width);
    if (b < 0) b = 0;
    if (b >= nbins) b = nbins - 1;
    ++count[b];
  }
  fprintf(f, "bin_lo_pct,bin_hi_pct,bin_mid_pct,count,probability\n");
  for (long b = 0; b < nbins; ++b)
    fprintf(f, "%.2f,%.2f,%.3f,%ld,%.6f\n", -(b + 1) * width, -b * width, -(b + 0.5) * width,
            count[b], (double)count[b] / (double)n);
  free(count);
  fclose(f);

  fprintf(report,
          "figure 2 (sigma-plus schedule vs exact optimum, %ld instances):\n"
          "  average gap %.3f%%, best %.3f%%, worst %.3f%%, sigma-plus optimal in %.1f%% of "
          "instances\n",
          n, sum / (double)n, best, worst, 100.0 * (double)exact / (double)n);
  return 0;
}

static int write_fig3(const options *o, const ulba_fig3_row *rows, FILE *report)
{
  long n = o->instances;
  int npct = o->pct_max;
  FILE *f = open_out(o->out, "fig3_instances.csv");
  if (f == NULL) return -1;
  fprintf(f,
          "pct,id,P,N,T_std_s,best_alpha,T_best_s,gain_pct,auto_alpha,auto_gain_pct,dp_gain_pct\n");
  for (long k = 0; k < n * npct; ++k) {
    const ulba_fig3_row *r = &rows[k];
    fprintf(f, "%d,%ld,%.0f,%.0f,%.9e,%.4f,%.9e,%.6f,%.6f,%.6f,%.6f\n", r->pct, k % n,
            r->inst.model.P, r->inst.model.N, r->t_std, r->best_alpha, r->t_best, r->gain_pct,
            r->auto_alpha, r->auto_gain_pct, r->dp_gain_pct);
  }
  fclose(f);

  f = open_out(o->out, "fig3_summary.csv");
  double *g = malloc((size_t)n * sizeof *g);
  if (f == NULL || g == NULL) {
    if (f != NULL) fclose(f);
    free(g);
    return -1;
  }
  fprintf(f, "pct,min,q1,median,q3,max,mean,mean_best_alpha,mean_auto_gain,mean_dp_gain\n");
  double overall_max = -INFINITY, overall_min = INFINITY, worst_auto = INFINITY;
  fprintf(report,
          "figure 3 (gain of ULBA with its best alpha over the standard method, %ld instances per "
          "percentage):\n",
          n);
  for (int p = 0; p < npct; ++p) {
    const ulba_fig3_row *r = &rows[(long)p * n];
    double sum = 0.0, sum_alpha = 0.0, sum_auto = 0.0, sum_dp = 0.0;
    for (long k = 0; k < n; ++k) {
      g[k] = r[k].gain_pct;
      sum += r[k].gain_pct;
      sum_alpha += r[k].best_alpha;
      sum_auto += r[k].auto_gain_pct;
      sum_dp += r[k].dp_gain_pct;
      worst_auto = fmin(worst_auto, r[k].auto_gain_pct - r[k].gain_pct);
    }
    qsort(g, (size_t)n, sizeof *g, compare_double);
    overall_max = fmax(overall_max, g[n - 1]);
    overall_min = fmin(overall_min, g[0]);
    fprintf(f, "%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f\n", r[0].pct, g[0],
            quantile(g, n, 0.25), quantile(g, n, 0.5), quantile(g, n, 0.75), g[n - 1],
            sum / (double)n, sum_alpha / (double)n, sum_auto / (double)n, sum_dp / (double)n);
    fprintf(report,
            "  %2d%%: median %6.2f%%  max %6.2f%%  mean %6.2f%%  mean best alpha %.3f  mean AUTO "
            "gain %6.2f%%  mean gain with optimal schedules %6.2f%%\n",
            r[0].pct, quantile(g, n, 0.5), g[n - 1], sum / (double)n, sum_alpha / (double)n,
            sum_auto / (double)n, sum_dp / (double)n);
  }
  fprintf(report,
          "  overall: max gain %.2f%%, min gain %.4f%%; AUTO minus best grid alpha, worst case "
          "%.4f points\n",
          overall_max, overall_min, worst_auto);
  free(g);
  fclose(f);
  return 0;
}

int main(int argc, char **argv)
{
  options o;
  if (parse_args(argc, argv, &o) != 0) {
    usage(stderr);
    return 2;
  }
  if (mkdir(o.out, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "ulba_model: cannot create %s: %s\n", o.out, strerror(errno));
    return 1;
  }
  int status = 1;
  ulba_fig2_row *rows2 = malloc((size_t)o.instances * sizeof *rows2);
  ulba_fig3_row *rows3 = malloc((size_t)o.instances * (size_t)o.pct_max * sizeof *rows3);
  FILE *report = NULL;
  if (rows2 == NULL || rows3 == NULL) {
    fprintf(stderr, "ulba_model: out of memory\n");
    goto End;
  }
  report = open_out(o.out, "summary.txt");
  if (report == NULL) goto End;

  if (!o.quiet) fprintf(stderr, "ulba_model: figure 2, %ld instances ...\n", o.instances);
  if (ulba_study_fig2(o.seed, o.instances, o.gamma, rows2) != ULBA_OK) {
    fprintf(stderr, "ulba_model: figure 2 failed\n");
    goto End;
  }
  /* One percentage at a time, so that long runs show progress: one line
   * rewritten in place on a terminal, one line per step in a log. */
  const char *lead = isatty(fileno(stderr)) ? "\r" : "";
  const char *tail = isatty(fileno(stderr)) ? "" : "\n";
  for (int p = 1; p <= o.pct_max; ++p) {
    if (!o.quiet)
      fprintf(stderr, "%sulba_model: figure 3, %2d%% of overloading PEs (%d/%d)%s", lead, p, p,
              o.pct_max, tail);
    if (ulba_study_fig3(o.seed, o.instances, p, p, o.alphas, o.gamma,
                        rows3 + (long)(p - 1) * o.instances) != ULBA_OK) {
      fprintf(stderr, "\nulba_model: figure 3 failed\n");
      goto End;
    }
  }
  if (!o.quiet && *tail == '\0') fprintf(stderr, "\n");
  fprintf(report, "ulba_model --instances %ld --seed %llu --gamma %ld --alphas %d --pct-max %d\n",
          o.instances, (unsigned long long)o.seed, o.gamma, o.alphas, o.pct_max);
  if (write_fig2(&o, rows2, report) != 0 || write_fig3(&o, rows3, report) != 0) goto End;
  fflush(report);
  /* Echo the report on stdout. */
  {
    char path[4096];
    snprintf(path, sizeof path, "%s/summary.txt", o.out);
    FILE *in = fopen(path, "r");
    if (in != NULL) {
      char line[1024];
      while (fgets(line, sizeof line, in) != NULL) fputs(line, stdout);
      fclose(in);
    }
  }
  status = 0;
End:
  if (report != NULL) fclose(report);
  free(rows2);
  free(rows3);
  return status;
}
