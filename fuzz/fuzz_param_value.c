/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the parameter-value path of the plugin layer:
 * zp_clean_string, zp_parse_int, zp_parse_double, zp_check_value and the
 * stored-value round trip zp_params_set -> zp_param_int/double/string.
 *
 * Input layout: byte 0 picks a row of a test method's parameter table,
 * byte 1 the capacity given to zp_clean_string, byte 2 the capacity of the
 * message buffer; the rest is the raw value as an application would pass it
 * to Zoltan_Set_Param.
 *
 * Besides the sanitizers' checks, it asserts properties that could fail:
 *  - a cleaned string fits its capacity, has no surrounding white space and
 *    no lower-case letter;
 *  - a successful zp_parse_int / zp_parse_double agrees with strtol/strtod;
 *  - a value zp_check_value accepts lies inside the row's range (or is one of
 *    its words), and once stored it reads back through zp_param_* as the
 *    same number;
 *  - messages are NUL-terminated inside their buffer.
 */
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zp_internal.h"

/* The harness links the registry without the built-in methods: an empty
 * table. */
static const zp_builtin fz_no_builtins[] = {{NULL, NULL, NULL}};
const zp_builtin *zp_builtin_table(void) { return fz_no_builtins; }

static const char *const fz_words[] = {"AUTO", "NONE", NULL};
static const char *const fz_choices[] = {"TIME", "WEIGHT", "A_LONG_CHOICE_WORD", NULL};

/* One row of every shape the registry supports. */
static const zp_param_def fz_params[] = {
    {"FUZZ_INT", ZP_PARAM_INT, "4", 1.0, 1000.0, 0, NULL, "closed int range"},
    {"FUZZ_INT_OPEN", ZP_PARAM_INT, "0", -5.0, 5.0, ZP_PARAM_MIN_OPEN | ZP_PARAM_MAX_OPEN, NULL,
     "open int range"},
    {"FUZZ_INT_FREE", ZP_PARAM_INT, "0", 0.0, 0.0, ZP_PARAM_NO_MIN | ZP_PARAM_NO_MAX, fz_words,
     "any int or word"},
    {"FUZZ_DBL", ZP_PARAM_DOUBLE, "0.5", 0.0, 1.0, ZP_PARAM_MAX_OPEN, fz_words,
     "[0, 1) or AUTO/NONE"},
    {"FUZZ_DBL_MIN", ZP_PARAM_DOUBLE, "1.0", 1.0, 0.0, ZP_PARAM_NO_MAX, NULL, ">= 1"},
    {"FUZZ_DBL_NEG", ZP_PARAM_DOUBLE, "-1", 0.0, -1e-300, ZP_PARAM_NO_MIN | ZP_PARAM_MAX_OPEN, NULL,
     "< -1e-300"},
    {"FUZZ_STR", ZP_PARAM_STRING, "TIME", 0.0, 0.0, 0, fz_choices, "one of the words"},
    {"FUZZ_STR_ANY", ZP_PARAM_STRING, "X", 0.0, 0.0, 0, NULL, "any word"},
};
#define FZ_NPARAMS (sizeof fz_params / sizeof fz_params[0])

static int fz_partition(const zp_problem *pb, void *state, int *new_part)
{
  (void)pb;
  (void)state;
  (void)new_part;
  return ZOLTAN_OK;
}

/* Designated initialisers: the fields this harness does not need stay zero
 * even when zp_method grows. */
static const zp_method fz_method = {.abi = ZP_METHOD_ABI,
                                    .name = "FUZZ",
                                    .summary = "parameter fuzzing",
                                    .params = fz_params,
                                    .num_params = FZ_NPARAMS,
                                    .partition_serial = fz_partition};

static int fz_is_word(const char *const *w, const char *v)
{
  for (; w != NULL && *w != NULL; w++)
    if (strcmp(*w, v) == 0) return 1;
  return 0;
}

static void fz_check_clean(const char *clean, size_t cap)
{
  size_t n = strlen(clean), i;
  assert(n + 1 <= cap);
  assert(n == 0 || (!isspace((unsigned char)clean[0]) && !isspace((unsigned char)clean[n - 1])));
  for (i = 0; i < n; i++) assert(!islower((unsigned char)clean[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static int registered = 0;
  static zp_params *params = NULL;
  char raw[1024], clean[ZP_VALUE_MAX], small[ZP_VALUE_MAX], msg[512];
  const zp_param_def *def;
  size_t n, cap, msg_cap;
  int iv, rc;
  double dv;

  if (!registered) {
    registered = 1;
    assert(zp_register_method(&fz_method) == ZOLTAN_OK);
    params = zp_params_create();
    assert(params != NULL);
  }
  if (size < 3) return 0;
  def = &fz_params[data[0] % FZ_NPARAMS];
  cap = 1 + data[1] % sizeof small;
  msg_cap = 1 + data[2] % sizeof msg;
  n = size - 3 < sizeof raw - 1 ? size - 3 : sizeof raw - 1;
  memcpy(raw, data + 3, n);
  raw[n] = '\0'; /* Zoltan_Set_Param takes C strings: stop at the first NUL. */

  /* Cleaning at an arbitrary capacity either fails or yields a clean word. */
  if (zp_clean_string(raw, small, cap) == 0) fz_check_clean(small, cap);
  if (zp_clean_string(raw, clean, sizeof clean) != 0) return 0;
  fz_check_clean(clean, sizeof clean);

  /* The parsers agree with the C library on what they accept. */
  if (zp_parse_int(clean, &iv) == 0 && clean[0] != 'T' && clean[0] != 'F') {
    char *end;
    long l = strtol(clean, &end, 10);
    assert(*end == '\0' && l == iv);
  }
  if (zp_parse_double(clean, &dv) == 0) {
    char *end;
    double d = strtod(clean, &end);
    assert(*end == '\0' && isfinite(dv) && (d == dv || (isnan(d) && isnan(dv))));
  }

  /* Checking: the message stays inside its buffer on every outcome. */
  memset(msg, 'x', sizeof msg);
  rc = zp_check_value(def, clean, msg, msg_cap);
  if (rc != ZOLTAN_OK) {
    assert(memchr(msg, '\0', msg_cap) != NULL);
    return 0;
  }

  /* Accepted: inside the range, or one of the row's words. */
  if (def->type != ZP_PARAM_STRING && !fz_is_word(def->choices, clean)) {
    double v = 0.0;
    if (def->type == ZP_PARAM_INT) {
      assert(zp_parse_int(clean, &iv) == 0);
      v = iv;
    } else {
      assert(zp_parse_double(clean, &v) == 0);
    }
    if (!(def->flags & ZP_PARAM_NO_MIN))
      assert(v > def->min || (v == def->min && !(def->flags & ZP_PARAM_MIN_OPEN)));
    if (!(def->flags & ZP_PARAM_NO_MAX))
      assert(v < def->max || (v == def->max && !(def->flags & ZP_PARAM_MAX_OPEN)));
  }
  if (def->type == ZP_PARAM_STRING && def->choices != NULL) assert(fz_is_word(def->choices, clean));

  /* Stored, an accepted value reads back as what was checked. */
  assert(zp_params_set(params, def->name, clean) == ZOLTAN_OK);
  if (def->type == ZP_PARAM_INT) {
    int kw = -1, want = 0;
    assert(zp_param_int(params, def->name, &iv, &kw) == ZOLTAN_OK);
    assert(kw == fz_is_word(def->choices, clean));
    if (!kw) assert(zp_parse_int(clean, &want) == 0 && want == iv);
  } else if (def->type == ZP_PARAM_DOUBLE) {
    int kw = -1;
    double want = 0.0;
    assert(zp_param_double(params, def->name, &dv, &kw) == ZOLTAN_OK);
    assert(kw == fz_is_word(def->choices, clean));
    if (!kw) assert(zp_parse_double(clean, &want) == 0 && want == dv);
  } else {
    const char *s = NULL;
    assert(zp_param_string(params, def->name, &s) == ZOLTAN_OK && strcmp(s, clean) == 0);
  }
  /* DEFAULT forgets it again: the table default reads back. */
  assert(zp_params_set(params, def->name, NULL) == ZOLTAN_OK);
  return 0;
}
