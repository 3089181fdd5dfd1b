/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reading of zdrive input decks.
 *
 * A deck is a list of "key = value" lines.  As in Zoltan's zdrive, each line
 * is lower-cased before it is parsed (only the file name keeps its case),
 * lines starting with '#' and empty lines are skipped, and unknown keys are
 * reported but not fatal.  Unlike zdrive, a malformed value is an error that
 * names the deck and the line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "zdrive.h"

/* Removes leading and trailing white space in place and returns s. */
static char *trim(char *s)
{
  char *e;
  while (*s && isspace((unsigned char)*s)) s++;
  e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
  return s;
}

/* Collapses runs of white space to one blank, so "test  drops" == "test drops". */
static void collapse(char *s)
{
  char *w = s;
  int blank = 0;
  for (; *s; s++) {
    if (isspace((unsigned char)*s)) {
      blank = 1;
      continue;
    }
    if (blank && w != s) *w++ = ' ';
    blank = 0;
    *w++ = *s;
  }
  *w = '\0';
}

/* Parses a whole decimal integer; returns 0 on success. */
static int parse_int(const char *s, int *out)
{
  char *end;
  long v;
  errno = 0;
  v = strtol(s, &end, 10);
  if (end == s || errno != 0 || v < -2147483647L || v > 2147483647L) return 1;
  while (*end && isspace((unsigned char)*end)) end++;
  if (*end) return 1;
  *out = (int)v;
  return 0;
}

/* Parses a whole floating-point number; returns 0 on success. */
static int parse_double(const char *s, double *out)
{
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  if (end == s || errno != 0) return 1;
  while (*end && isspace((unsigned char)*end)) end++;
  return *end != '\0';
}

/*
 * Scans "name = value" pairs separated by commas or white space, the way
 * zdrive's option lists are written ("a=1, b = 2").  On return *name and
 * *val point into the buffer (NUL-terminated) and *pos past the pair.
 * Returns 1 when a pair was found, 0 at the end, -1 on a malformed pair.
 */
static int next_pair(char *buf, size_t *pos, char **name, char **val)
{
  char *p = buf + *pos, *n, *v;
  while (*p && (isspace((unsigned char)*p) || *p == ',')) p++;
  if (!*p) return 0;
  n = p;
  while (*p && *p != '=' && *p != ',') p++;
  if (*p != '=') return -1;
  *p++ = '\0';
  while (*p && isspace((unsigned char)*p)) p++;
  v = p;
  /* A value ends at a comma or a blank: "a=1 b=2" is two pairs, as in zdrive. */
  while (*p && *p != ',' && !isspace((unsigned char)*p)) p++;
  if (*p) *p++ = '\0';
  *pos = (size_t)(p - buf);
  *name = trim(n);
  collapse(*name);
  *val = v;
  return (**name && **val) ? 1 : -1;
}

/* Appends one parameter to the growing list. */
static int add_param(zdrive_param **params, int *n, int *cap, const char *name, const char *val,
                     int index, int line)
{
  zdrive_param *p;
  if (*n == *cap) {
    int ncap = *cap ? 2 * *cap : 16;
    p = realloc(*params, (size_t)ncap * sizeof(*p));
    if (!p) return 1;
    *params = p;
    *cap = ncap;
  }
  p = &(*params)[*n];
  memset(p, 0, sizeof(*p));
  strncpy(p->name, name, sizeof(p->name) - 1);
  strncpy(p->val, val, sizeof(p->val) - 1);
  p->index = index;
  p->line = line;
  (*n)++;
  return 0;
}

/* Sets the defaults zdrive uses before reading a deck. */
static void deck_defaults(zdrive_deck *d)
{
  memset(d, 0, sizeof(*d));
  strcpy(d->pfile_root, ".");
  d->file_type = ZDRIVE_FILE_NONE;
  d->init_dist = ZDRIVE_DIST_LINEAR;
  d->init_procs = -1;
  d->matrix_obj = ZDRIVE_OBJ_COLUMNS;
  d->iterations = 1;
  d->action = 1;
  d->debug = 1;
  d->text_output = 1;
  d->test_graph_callbacks = 1;
  d->test_hg_callbacks = 1;
  d->dyn_growth = 1.0;
}

/* Parses the value of "file type": the type, then "initial ..." / "objects" options. */
static int parse_file_type(char *value, zdrive_deck *d, const char *path, int lineno,
                           zdrive_status *st)
{
  char *comma = strchr(value, ','), *type, *name, *val;
  size_t pos = 0;
  int r;
  char rest[ZDRIVE_LINE];

  rest[0] = '\0';
  if (comma) {
    *comma = '\0';
    strncpy(rest, comma + 1, sizeof(rest) - 1);
    rest[sizeof(rest) - 1] = '\0';
  }
  type = trim(value);
  if (!strcmp(type, "chaco") || !strcmp(type, "graph")) {
    d->file_type = ZDRIVE_FILE_CHACO;
  } else if (!strcmp(type, "matrixmarket")) {
    d->file_type = ZDRIVE_FILE_MM;
  } else if (!strcmp(type, "matrixmarket+")) {
    d->file_type = ZDRIVE_FILE_MMPLUS;
  } else if (!strcmp(type, "hypergraph")) {
    d->file_type = ZDRIVE_FILE_HG;
  } else {
    zdrive_set_error(st, path, lineno,
                     "file type '%s' is not supported (chaco, graph, matrixmarket, "
                     "matrixmarket+, hypergraph)",
                     type);
    return 1;
  }
  d->init_dist = ZDRIVE_DIST_LINEAR;
  d->init_procs = -1;
  d->init_pins = ZDRIVE_PINS_ROW;
  d->matrix_obj = ZDRIVE_OBJ_COLUMNS;
  while ((r = next_pair(rest, &pos, &name, &val)) == 1) {
    if (!strcmp(name, "initial distribution")) {
      if (!strcmp(val, "linear") || !strcmp(val, "block"))
        d->init_dist = ZDRIVE_DIST_LINEAR;
      else if (!strcmp(val, "cyclic"))
        d->init_dist = ZDRIVE_DIST_CYCLIC;
      else if (!strcmp(val, "file"))
        d->init_dist = ZDRIVE_DIST_FILE;
      else if (!strcmp(val, "owner"))
        d->init_dist = ZDRIVE_DIST_OWNER;
      else {
        zdrive_set_error(st, path, lineno,
                         "bad initial distribution '%s' "
                         "(linear, block, cyclic, file, owner)",
                         val);
        return 1;
      }
    } else if (!strcmp(name, "initial procs")) {
      if (parse_int(val, &d->init_procs)) {
        zdrive_set_error(st, path, lineno, "initial procs '%s' is not an integer", val);
        return 1;
      }
    } else if (!strcmp(name, "initial pins") && d->file_type != ZDRIVE_FILE_CHACO) {
      if (!strcmp(val, "row") || !strcmp(val, "rows"))
        d->init_pins = ZDRIVE_PINS_ROW;
      else if (!strcmp(val, "col") || !strcmp(val, "cols") || !strcmp(val, "column") ||
               !strcmp(val, "columns"))
        d->init_pins = ZDRIVE_PINS_COL;
      else if (!strcmp(val, "linear") || !strcmp(val, "block"))
        d->init_pins = ZDRIVE_PINS_LINEAR;
      else if (!strcmp(val, "cyclic"))
        d->init_pins = ZDRIVE_PINS_CYCLIC;
      else if (!strcmp(val, "file"))
        d->init_pins = ZDRIVE_PINS_FILE;
      else if (!strcmp(val, "zero"))
        d->init_pins = ZDRIVE_PINS_ZERO;
      else {
        zdrive_set_error(st, path, lineno,
                         "bad initial pins '%s' "
                         "(rows, columns, linear, block, cyclic, file, zero)",
                         val);
        return 1;
      }
    } else if (!strcmp(name, "initial read") && d->file_type != ZDRIVE_FILE_CHACO) {
      /* zdrive's chunked reader only changes how rank 0 reads; nothing to do. */
    } else if (!strcmp(name, "objects") && d->file_type != ZDRIVE_FILE_CHACO) {
      if (!strcmp(val, "rows"))
        d->matrix_obj = ZDRIVE_OBJ_ROWS;
      else if (!strcmp(val, "columns"))
        d->matrix_obj = ZDRIVE_OBJ_COLUMNS;
      else if (!strcmp(val, "nonzeros"))
        d->matrix_obj = ZDRIVE_OBJ_NONZEROS;
      else {
        zdrive_set_error(st, path, lineno, "bad objects '%s' (rows, columns, nonzeros)", val);
        return 1;
      }
    } else {
      zdrive_set_error(st, path, lineno, "unknown file type option '%s'", name);
      return 1;
    }
  }
  if (r < 0) {
    zdrive_set_error(st, path, lineno, "file type options must be 'name = value'");
    return 1;
  }
  return 0;
}

/* Integer-valued keys: deck key (normalised), field. */
struct int_key {
  const char *key;
  size_t offset;
};

#define IKEY(k, f)                                                                                 \
  {                                                                                                \
    k, offsetof(zdrive_deck, f)                                                                    \
  }
static const struct int_key int_keys[] = {
    IKEY("text output", text_output),
    IKEY("gnuplot output", gnuplot),
    IKEY("plot partitions", plot_partition),
    IKEY("plot partition", plot_partition),
    IKEY("number of iterations", iterations),
    IKEY("zdrive action", action),
    IKEY("zdrive debug level", debug),
    IKEY("test drops", test_drops),
    IKEY("test rcb box", test_rcb_box),
    IKEY("test local partitions", test_local_parts),
    IKEY("test local partition", test_local_parts),
    IKEY("test multi callbacks", test_multi_callbacks),
    IKEY("test multi callback", test_multi_callbacks),
    IKEY("test graph callbacks", test_graph_callbacks),
    IKEY("test graph callback", test_graph_callbacks),
    IKEY("test hypergraph callbacks", test_hg_callbacks),
    IKEY("test hypergraph callback", test_hg_callbacks),
    IKEY("test no global objects", test_no_global_objects),
    IKEY("test ddirectory", test_ddirectory),
    IKEY("test fixed objects", test_fixed_objects),
    IKEY("test fixed object", test_fixed_objects),
    IKEY("test generate files", test_gen_files),
    IKEY("test generate file", test_gen_files),
    IKEY("dynamic iterations", dyn_iterations),
};

/* One "key = value" line of a deck being read. */
typedef struct deck_line {
  const char *path; /* the deck */
  int lineno;       /* the line's number */
  char *key;        /* the key, lower case, blanks collapsed */
  char *value;      /* the value, lower case, trimmed */
  char *orig;       /* the whole line as written (case kept) */
  char *eq;         /* the first '=' of the lower-case line (its value follows) */
  int *cap;         /* room in the parameter list */
} deck_line;

/* "zoltan parameter(s) = NAME = VALUE NAME = VALUE ...".  Returns 0 or 1. */
static int key_zoltan_params(const deck_line *l, zdrive_deck *deck, zdrive_param **params,
                             zdrive_status *st)
{
  /* Key and value split at the first '=', so re-read the whole value. */
  char buf[ZDRIVE_LINE], *n, *v;
  size_t pos = 0;
  int r;
  strncpy(buf, l->value, sizeof(buf) - 1);
  buf[sizeof(buf) - 1] = '\0';
  while ((r = next_pair(buf, &pos, &n, &v)) == 1)
    if (add_param(params, &deck->num_params, l->cap, n, v, -1, l->lineno)) {
      zdrive_set_error(st, l->path, l->lineno, "out of memory");
      return 1;
    }
  if (r < 0) {
    zdrive_set_error(st, l->path, l->lineno, "Zoltan parameters must be 'name = value'");
    return 1;
  }
  return 0;
}

/* "zoltan vector parameter = NAME = v0 v1 ...".  Returns 0 or 1. */
static int key_vector_param(const deck_line *l, zdrive_deck *deck, zdrive_param **params,
                            zdrive_status *st)
{
  char *eq2 = strchr(l->value, '='), *tok, *name;
  int idx = 0;
  if (!eq2) {
    zdrive_set_error(st, l->path, l->lineno, "vector parameter needs 'NAME = v0, v1, ...'");
    return 1;
  }
  *eq2 = '\0';
  name = trim(l->value);
  for (tok = strtok(eq2 + 1, " ,\t(){}="); tok; tok = strtok(NULL, " ,\t(){}="))
    if (add_param(params, &deck->num_params, l->cap, name, tok, idx++, l->lineno)) {
      zdrive_set_error(st, l->path, l->lineno, "out of memory");
      return 1;
    }
  return 0;
}

/* "parallel disk info" and "parallel file location".  Returns 0 or 1. */
static int key_parallel_files(const deck_line *l, zdrive_deck *deck, zdrive_status *st)
{
  char *n, *v, buf[ZDRIVE_LINE];
  size_t pos = 0;
  if (!strcmp(l->key, "parallel disk info")) {
    /* Only "number=N" is meaningful for us; N > 0 means striped disks. */
    strncpy(buf, l->eq + 1, sizeof(buf) - 1);
    buf[sizeof(buf) - 1] = '\0';
    if (next_pair(buf, &pos, &n, &v) != 1 || strcmp(n, "number") ||
        parse_int(v, &deck->num_disks) || deck->num_disks < 0) {
      zdrive_set_error(st, l->path, l->lineno,
                       "parallel disk info must start with 'number = N' (N >= 0)");
      return 1;
    }
    return 0;
  }
  strncpy(buf, strchr(l->orig, '=') + 1, sizeof(buf) - 1);
  buf[sizeof(buf) - 1] = '\0';
  while (next_pair(buf, &pos, &n, &v) == 1) {
    for (size_t k = 0; n[k]; k++) n[k] = (char)tolower((unsigned char)n[k]);
    if (!strcmp(n, "root")) strncpy(deck->pfile_root, v, sizeof(deck->pfile_root) - 1);
    /* "subdir" only matters with several disks, which we reject. */
  }
  return 0;
}

/* The keys with a number of their own syntax: "test dynamic weights",
 * "dynamic growth" and "test null ...".  Returns 0 or 1. */
static int key_numbers(const deck_line *l, zdrive_deck *deck, zdrive_status *st)
{
  int v;
  if (!strcmp(l->key, "test dynamic weights")) {
    double x;
    if (parse_double(l->value, &x)) {
      zdrive_set_error(st, l->path, l->lineno, "'%s' needs a number, got '%s'", l->key, l->value);
      return 1;
    }
    deck->test_dynamic_weights = (float)x;
    return 0;
  }
  if (!strcmp(l->key, "dynamic growth")) {
    if (parse_double(l->value, &deck->dyn_growth) || deck->dyn_growth < 0.0) {
      zdrive_set_error(st, l->path, l->lineno, "dynamic growth needs a number >= 0, got '%s'",
                       l->value);
      return 1;
    }
    return 0;
  }
  if (parse_int(l->value, &v)) {
    zdrive_set_error(st, l->path, l->lineno, "'%s' needs an integer, got '%s'", l->key, l->value);
    return 1;
  }
  if (v == 1 && strstr(l->key, "export"))
    deck->test_null_lists = ZDRIVE_NULL_EXPORT;
  else if (v == 1 && strstr(l->key, "import"))
    deck->test_null_lists = ZDRIVE_NULL_IMPORT;
  return 0;
}

/* Applies one "key = value" line to the deck.  Returns 0, or 1 with st
 * set; unknown keys are a warning, as in zdrive. */
static int apply_line(const deck_line *l, zdrive_deck *deck, zdrive_param **params,
                      zdrive_status *st)
{
  const char *key = l->key;
  for (size_t i = 0; i < sizeof(int_keys) / sizeof(int_keys[0]); i++)
    if (!strcmp(key, int_keys[i].key)) {
      if (parse_int(l->value, (int *)((char *)deck + int_keys[i].offset))) {
        zdrive_set_error(st, l->path, l->lineno, "'%s' needs an integer, got '%s'", key, l->value);
        return 1;
      }
      return 0;
    }
  if (!strcmp(key, "decomposition method")) {
    if (!*l->value || strchr(l->value, ' ')) {
      zdrive_set_error(st, l->path, l->lineno, "decomposition method needs one word");
      return 1;
    }
    strncpy(deck->method, l->value, sizeof(deck->method) - 1);
    deck->method_line = l->lineno;
  } else if (!strcmp(key, "file name")) {
    /* The file name keeps its case: take it from the original line. */
    char *o = trim(strchr(l->orig, '=') + 1);
    if (!*o) {
      zdrive_set_error(st, l->path, l->lineno, "file name is empty");
      return 1;
    }
    o[strcspn(o, " \t")] = '\0';
    strncpy(deck->file_name, o, sizeof(deck->file_name) - 1);
  } else if (!strcmp(key, "file type")) {
    return parse_file_type(l->value, deck, l->path, l->lineno, st);
  } else if (!strncmp(key, "zoltan parameter", 16) && (!key[16] || !strcmp(key + 16, "s"))) {
    return key_zoltan_params(l, deck, params, st);
  } else if (!strcmp(key, "zoltan vector parameters") || !strcmp(key, "zoltan vector parameter") ||
             !strcmp(key, "zoltan parameter vectors") || !strcmp(key, "zoltan parameter vector")) {
    return key_vector_param(l, deck, params, st);
  } else if (!strcmp(key, "zoltanparams file")) {
    strncpy(deck->zoltanparams_file, l->value, sizeof(deck->zoltanparams_file) - 1);
  } else if (!strcmp(key, "parallel disk info") || !strcmp(key, "parallel file location")) {
    return key_parallel_files(l, deck, st);
  } else if (!strcmp(key, "test dynamic weights") || !strcmp(key, "dynamic growth") ||
             !strncmp(key, "test null", 9)) {
    return key_numbers(l, deck, st);
  } else {
    fprintf(stderr, "zdrive: warning: %s:%d: ignoring unknown key '%s'\n", l->path, l->lineno, key);
  }
  return 0;
}

/* What a whole deck must name: a file, a method, a file type we read, and
 * no striped input.  Returns 0 or 1 (lineno: the deck's last line). */
static int check_deck(const zdrive_deck *deck, const char *path, int lineno, zdrive_status *st)
{
  if (!deck->file_name[0]) {
    zdrive_set_error(st, path, lineno, "the deck names no 'file name'");
    return 1;
  }
  if (!deck->method[0]) {
    zdrive_set_error(st, path, lineno, "the deck names no 'decomposition method'");
    return 1;
  }
  if (deck->file_type == ZDRIVE_FILE_NONE) {
    /* zdrive defaults to Nemesis, which needs Exodus; we cannot read it. */
    zdrive_set_error(st, path, lineno,
                     "the deck names no 'file type' "
                     "(Nemesis, zdrive's default, is not supported)");
    return 1;
  }
  if (deck->num_disks > 0) {
    zdrive_set_error(st, path, lineno,
                     "parallel disk info number > 0 (striped input) "
                     "is not implemented");
    return 1;
  }
  return 0;
}

/*
 * zdrive_read_deck - reads a deck on one rank (not collective).
 * Input: path of the deck.  Output: *deck filled, *params a malloc'ed list of
 * deck->num_params Zoltan parameters (caller frees).  Returns 0, or 1 with
 * st naming the deck and the line of the first error.
 */
int zdrive_read_deck(const char *path, zdrive_deck *deck, zdrive_param **params, zdrive_status *st)
{
  FILE *f = NULL;
  char line[ZDRIVE_LINE], orig[ZDRIVE_LINE];
  int lineno = 0, cap = 0, rc = 1;

  deck_defaults(deck);
  *params = NULL;
  strncpy(deck->deck_name, path, sizeof(deck->deck_name) - 1);
  f = fopen(path, "r");
  if (!f) {
    zdrive_set_error(st, path, 0, "cannot open the input deck");
    goto cleanup;
  }
  while (fgets(line, sizeof(line), f)) {
    deck_line l = {path, ++lineno, NULL, NULL, orig, NULL, &cap};
    if (!strchr(line, '\n') && !feof(f)) {
      zdrive_set_error(st, path, lineno, "line longer than %d characters", ZDRIVE_LINE - 2);
      goto cleanup;
    }
    strcpy(orig, line);
    for (size_t i = 0; line[i]; i++) line[i] = (char)tolower((unsigned char)line[i]);
    if (line[0] == '#' || trim(line)[0] == '\0') continue;
    l.eq = strchr(line, '=');
    if (!l.eq) {
      fprintf(stderr, "zdrive: warning: %s:%d: ignoring line without '=': %s\n", path, lineno,
              trim(line));
      continue;
    }
    *l.eq = '\0';
    l.key = trim(line);
    collapse(l.key);
    l.value = trim(l.eq + 1);
    if (apply_line(&l, deck, params, st)) goto cleanup;
  }
  if (check_deck(deck, path, lineno, st)) goto cleanup;
  rc = 0;
cleanup:
  if (f) fclose(f);
  if (rc) {
    free(*params);
    *params = NULL;
  }
  return rc;
}

/*
 * zdrive_bcast_deck - collective: rank 0's deck and parameters to all ranks.
 * On ranks other than 0, *params is allocated here (caller frees).
 */
void zdrive_bcast_deck(zdrive_deck *deck, zdrive_param **params, MPI_Comm comm)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Bcast(deck, (int)sizeof(*deck), MPI_BYTE, 0, comm);
  if (rank != 0)
    *params = deck->num_params ? malloc((size_t)deck->num_params * sizeof(**params)) : NULL;
  if (deck->num_params)
    MPI_Bcast(*params, (int)(deck->num_params * sizeof(**params)), MPI_BYTE, 0, comm);
}

/*
 * zdrive_echo_deck - not collective: copies every deck line that is not a
 * comment ('#' first) nor empty to out, byte for byte, as zdrive does at the
 * top of rank 0's answer file.  Returns 0, or 1 if the deck cannot be read.
 */
int zdrive_echo_deck(FILE *out, const char *path)
{
  char line[ZDRIVE_LINE];
  FILE *f = fopen(path, "r");
  if (!f) return 1;
  while (fgets(line, sizeof(line), f))
    if (line[0] != '#' && line[0] != '\n') fputs(line, out);
  fclose(f);
  return 0;
}
