/* SPDX-License-Identifier: BSD-3-Clause */
/* cmocka tests of the load database's core and dump format (loaddb/). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loaddb_core.h"
#include "loaddb_dump.h"

static void smoothing_is_the_mean_of_the_reports(void **state)
{
  const double sum[] = {6.0, 0.0, 5.0, 2.5};
  const unsigned count[] = {3, 0, 1, 2};
  double load[4];
  const double bad[] = {1.0, NAN};
  const double neg[] = {-1.0};
  (void)state;
  assert_int_equal(loaddb_smooth(4, sum, count, load), LOADDB_OK);
  assert_true(load[0] == 2.0 && load[1] == 0.0 && load[2] == 5.0 && load[3] == 1.25);
  assert_int_equal(loaddb_smooth(2, bad, count, load), LOADDB_EINVAL);
  assert_int_equal(loaddb_smooth(1, neg, count, load), LOADDB_EINVAL);
}

static void totals_split_measured_and_unmeasured(void **state)
{
  const double load[] = {2.0, 0.0, 4.0};
  const unsigned count[] = {1, 0, 2};
  const double cb[] = {1.0, 9.0, 3.0, 9.0, 5.0, 9.0}; /* stride 2 */
  loaddb_totals t;
  (void)state;
  loaddb_local_totals(3, load, count, cb, 2, &t);
  assert_true(t.measured == 6.0 && t.count == 2.0 && t.callback == 6.0 && t.unmeasured == 1.0);
}

static void measured_gives_unmeasured_objects_the_mean(void **state)
{
  const double load[] = {2.0, 0.0, 4.0};
  const unsigned count[] = {1, 0, 2};
  double w[] = {7.0, 7.0, 7.0};
  const loaddb_totals g = {.measured = 12.0, .count = 4.0, .callback = 8.0, .unmeasured = 1.0};
  (void)state;
  assert_int_equal(loaddb_weights(LOADDB_MEASURED, 3, load, count, w, 1, &g), LOADDB_OK);
  assert_true(w[0] == 2.0 && w[1] == 3.0 && w[2] == 4.0);
}

static void both_scales_callback_weights_into_measured_units(void **state)
{
  const double load[] = {2.0, 0.0, 4.0};
  const unsigned count[] = {1, 0, 2};
  double w[] = {1.0, 0.5, 1.0, 0.5, 1.0, 0.5}; /* stride 2: the second column is untouched */
  const loaddb_totals g = {.measured = 12.0, .count = 4.0, .callback = 8.0, .unmeasured = 1.0};
  (void)state;
  assert_int_equal(loaddb_weights(LOADDB_BOTH, 3, load, count, w, 2, &g), LOADDB_OK);
  assert_true(w[0] == 2.0 && w[2] == 1.5 && w[4] == 4.0);
  assert_true(w[1] == 0.5 && w[3] == 0.5 && w[5] == 0.5);
}

static void nothing_measured_keeps_the_callbacks(void **state)
{
  const double load[] = {0.0, 0.0};
  const unsigned count[] = {0, 0};
  double w[] = {3.0, 5.0};
  const loaddb_totals g = {0};
  (void)state;
  assert_int_equal(loaddb_weights(LOADDB_MEASURED, 2, load, count, w, 1, &g), LOADDB_OK);
  assert_true(w[0] == 3.0 && w[1] == 5.0);
  assert_int_equal(loaddb_weights(LOADDB_BOTH, 2, load, count, w, 1, &g), LOADDB_OK);
  assert_true(w[0] == 3.0 && w[1] == 5.0);
  assert_int_equal(loaddb_weights(LOADDB_CALLBACK, 2, load, count, w, 1, &g), LOADDB_EINVAL);
  assert_int_equal(loaddb_weights(7, 2, load, count, w, 1, &g), LOADDB_EINVAL);
}

/* A dump with two-entry IDs, two weights, coordinates, edge weights and
 * parameters, written and read back. */
static const char sample[] = "ZPDUMP 1\n"
                             "# a comment\n"
                             "balance 3 method GREEDY ranks 2 parts 2 ngid 2 wdim 2 gdim 2 edim 1 "
                             "objects 3 edges 4\n"
                             "tol 1.1000000000000001 1.2\n"
                             "sizes 1 0.25 0.5 0.75 0.5\n"
                             "param IMBALANCE_TOL 0 1.1\n"
                             "param GREEDY_ORDER -1 weight then id\n"
                             "o 0 1 0 0 1.5 2 0.125 -3 1\n"
                             "e 0 2 1\n"
                             "o 0 2 1 1 0.1 0 1 1 2\n"
                             "e 0 1 1\n"
                             "e 7 0 2.5\n"
                             "\n"
                             "o 7 0 1 -1 3 3 0 0 1\n"
                             "e 0 2 2.5\n"
                             "end\n";

static char *write_to_string(const loaddb_dump *d, size_t *len)
{
  FILE *f = tmpfile();
  char *text;
  long n;
  assert_non_null(f);
  assert_int_equal(loaddb_dump_write(f, d), 0);
  n = ftell(f);
  assert_true(n > 0);
  rewind(f);
  text = malloc((size_t)n + 1);
  assert_non_null(text);
  assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
  text[n] = '\0';
  fclose(f);
  *len = (size_t)n;
  return text;
}

static void dump_reads_every_field(void **state)
{
  loaddb_dump d;
  char msg[256];
  size_t pos = 0;
  (void)state;
  assert_int_equal(loaddb_dump_parse(sample, strlen(sample), &pos, &d, msg, sizeof msg),
                   LOADDB_DUMP_OK);
  assert_int_equal(d.seq, 3);
  assert_string_equal(d.method, "GREEDY");
  assert_int_equal(d.ranks, 2);
  assert_int_equal(d.parts, 2);
  assert_int_equal(d.nobj, 3);
  assert_int_equal(d.nedges, 4);
  assert_true(d.tol[0] == 1.1 && d.tol[1] == 1.2);
  assert_int_equal(d.sizes_set, 1);
  assert_true(d.sizes[3] == 0.5);
  assert_int_equal(d.nparams, 2);
  assert_string_equal(d.params[1].value, "weight then id");
  assert_int_equal(d.params[1].index, -1);
  assert_int_equal(d.gids[5], 0);
  assert_int_equal(d.gids[4], 7);
  assert_int_equal(d.cur_part[2], -1);
  assert_true(d.coords[1] == -3.0 && d.wgts[1] == 2.0);
  assert_int_equal(d.adj_start[1], 1);
  assert_int_equal(d.adj_start[2], 3);
  assert_int_equal(d.adj_start[3], 4);
  assert_int_equal(d.nbr[5], 0);
  assert_true(d.ewgts[2] == 2.5);
  assert_int_equal(pos, strlen(sample));
  /* Nothing left: END, and a second parse leaves pos alone. */
  loaddb_dump_free(&d);
  assert_int_equal(loaddb_dump_parse(sample, strlen(sample), &pos, &d, msg, sizeof msg),
                   LOADDB_DUMP_END);
  loaddb_dump_free(&d);
}

static int same_doubles(const double *a, const double *b, size_t n)
{
  return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static void dump_round_trip_is_exact(void **state)
{
  loaddb_dump a, b;
  char msg[256], *text, *both;
  size_t pos = 0, len = 0, k;
  (void)state;
  assert_int_equal(loaddb_dump_parse(sample, strlen(sample), &pos, &a, msg, sizeof msg),
                   LOADDB_DUMP_OK);
  /* Values that print with many digits must come back to the same bits. */
  a.wgts[0] = 1.0 / 3.0;
  a.coords[0] = -2.0e-300;
  text = write_to_string(&a, &len);
  /* Two dumps in one file: the sequence zp_lbsim replays. */
  both = malloc(2 * len + 1);
  assert_non_null(both);
  memcpy(both, text, len);
  memcpy(both + len, text, len + 1);
  pos = 0;
  for (k = 0; k < 2; k++) {
    assert_int_equal(loaddb_dump_parse(both, 2 * len, &pos, &b, msg, sizeof msg), LOADDB_DUMP_OK);
    assert_int_equal(b.nobj, a.nobj);
    assert_int_equal(b.nedges, a.nedges);
    assert_int_equal(b.nparams, a.nparams);
    assert_memory_equal(b.gids, a.gids, a.nobj * 2 * sizeof *a.gids);
    assert_memory_equal(b.procs, a.procs, a.nobj * sizeof *a.procs);
    assert_memory_equal(b.cur_part, a.cur_part, a.nobj * sizeof *a.cur_part);
    assert_true(same_doubles(b.wgts, a.wgts, a.nobj * 2));
    assert_true(same_doubles(b.coords, a.coords, a.nobj * 2));
    assert_true(same_doubles(b.sizes, a.sizes, 4));
    assert_true(same_doubles(b.tol, a.tol, 2));
    assert_true(same_doubles(b.ewgts, a.ewgts, a.nedges));
    assert_memory_equal(b.nbr, a.nbr, a.nedges * 2 * sizeof *a.nbr);
    assert_memory_equal(b.adj_start, a.adj_start, (a.nobj + 1) * sizeof *a.adj_start);
    assert_memory_equal(b.params, a.params, a.nparams * sizeof *a.params);
    loaddb_dump_free(&b);
  }
  assert_int_equal(pos, 2 * len);
  free(both);
  free(text);
  loaddb_dump_free(&a);
}

/* Replaces the first occurrence of from in sample by to. */
static char *edit(const char *from, const char *to)
{
  const char *at = strstr(sample, from);
  size_t head, n;
  char *s;
  assert_non_null(at);
  head = (size_t)(at - sample);
  n = strlen(sample) - strlen(from) + strlen(to);
  s = malloc(n + 1);
  assert_non_null(s);
  memcpy(s, sample, head);
  strcpy(s + head, to);
  strcat(s, at + strlen(from));
  return s;
}

static void malformed_dumps_are_named_by_line_and_value(void **state)
{
  static const struct {
    const char *from, *to, *expect;
  } cases[] = {
      {"ZPDUMP 1", "ZPDUMP 2", "line 1: version 2"},
      {"objects 3", "objects 4", "line 16: expected 'o', found 'end'"},
      {"edges 4", "edges 5", "4 edges listed, the header says 5"},
      {"o 0 2 1", "o 0 0 1", "line 10: global IDs must increase"},
      {"1.5 2 0.125", "nan 2 0.125", "line 8: weight = 'nan' is not a finite number"},
      {"1.5 2 0.125", "-1 2 0.125", "line 8: weight = '-1' is not a finite number >= 0"},
      {"e 7 0 2.5", "e 9 0 2.5", "neighbour 9, which is no object"},
      {"ranks 2", "ranks x", "line 3: ranks = 'x' is not an integer"},
      {"o 7 0 1 -1", "o 7 0 2 -1", "line 14: rank = '2' is not an integer in [0, 1]"},
      {"o 7 0 1 -1", "o 7 0 1 2", "line 14: part = '2' is not an integer in [-1, 1]"},
      {"tol 1.1000000000000001", "tol 0.5", "line 4: tolerance 0.5 is below 1"},
      {"sizes 1 0.25 0.5 0.75 0.5", "sizes 1 0.25 0.5 0.75", "line 5: part size is missing"},
      {"0.1 0 1 1 2\n", "0.1 0 1 1 2 9\n", "line 10: unexpected '9'"},
      {"end\n", "", "'end' missing"},
      {"e 0 2 2.5\n", "", "line 15: expected 'e', found 'end'"},
      {"gdim 2", "gdim 4", "gdim = '4' is not an integer in [0, 3]"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *text = edit(cases[i].from, cases[i].to), msg[256];
    loaddb_dump d;
    size_t pos = 0;
    int rc = loaddb_dump_parse(text, strlen(text), &pos, &d, msg, sizeof msg);
    (void)state;
    if (rc != LOADDB_DUMP_EINVAL || strstr(msg, cases[i].expect) == NULL)
      fail_msg("case %zu: rc %d, message '%s', expected '%s'", i, rc, msg, cases[i].expect);
    loaddb_dump_free(&d);
    free(text);
  }
}

static void truncated_dumps_never_read_past_the_text(void **state)
{
  size_t cut, n = strlen(sample);
  (void)state;
  /* Every prefix that stops before "end" is an error, never a dump. */
  for (cut = 1; cut + 4 < n; cut++) {
    char *text = malloc(cut), msg[256];
    loaddb_dump d;
    size_t pos = 0;
    int rc;
    assert_non_null(text);
    memcpy(text, sample, cut);
    rc = loaddb_dump_parse(text, cut, &pos, &d, msg, sizeof msg);
    if (rc != LOADDB_DUMP_EINVAL) fail_msg("prefix of %zu bytes: rc %d", cut, rc);
    assert_true(msg[0] != '\0');
    loaddb_dump_free(&d);
    free(text);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(smoothing_is_the_mean_of_the_reports),
      cmocka_unit_test(totals_split_measured_and_unmeasured),
      cmocka_unit_test(measured_gives_unmeasured_objects_the_mean),
      cmocka_unit_test(both_scales_callback_weights_into_measured_units),
      cmocka_unit_test(nothing_measured_keeps_the_callbacks),
      cmocka_unit_test(dump_reads_every_field),
      cmocka_unit_test(dump_round_trip_is_exact),
      cmocka_unit_test(malformed_dumps_are_named_by_line_and_value),
      cmocka_unit_test(truncated_dumps_never_read_past_the_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
