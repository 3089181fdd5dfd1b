/* SPDX-License-Identifier: BSD-3-Clause */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_bigmem.h"
#include "zp_internal.h"

/* The table of records.  Applications hold few Zoltan structs, so a linear
 * scan is cheaper than hashing.  Zoltan reuses struct addresses after
 * Zoltan_Destroy, so records are removed there and never looked up by a
 * stale key. */
static zp_record **zp_table;
static size_t zp_table_n, zp_table_cap;

zp_record *zp_record_find(const struct Zoltan_Struct *zz)
{
  size_t i;
  if (zz == NULL) return NULL;
  for (i = 0; i < zp_table_n; i++)
    if (zp_table[i]->zz == zz) return zp_table[i];
  return NULL;
}

static void zp_record_free_state(zp_record *r)
{
  if (r->state != NULL && r->state_owner != NULL && r->state_owner->destroy != NULL)
    r->state_owner->destroy(r->state);
  r->state = NULL;
  r->state_owner = NULL;
}

/* ZOLTAN_PLUGINS_HUGE_PAGES of r (1 unless set to 0). */
static int zp_huge_pages(const zp_record *r)
{
  int v = 1, keyword = 0;
  if (zp_param_int(r->params, "ZOLTAN_PLUGINS_HUGE_PAGES", &v, &keyword) != ZOLTAN_OK) return 1;
  return v != 0;
}

void *zp_record_scratch(zp_record *r, int slot, size_t bytes)
{
  if (bytes == 0) bytes = 1;
  if (r->scratch.cap[slot] < bytes) {
    /* Grown with a margin, so that a problem that grows a little from one
     * balance to the next does not reallocate every time.  No realloc: the
     * old contents are never needed, and copying them would fault in the
     * new pages twice. */
    size_t want = bytes + bytes / 8, mapped = 0;
    void *p = zp_bigmem_alloc(want, bytes, zp_huge_pages(r), &mapped);
    if (p == NULL) return NULL;
    zp_bigmem_free(r->scratch.buf[slot], r->scratch.mapped[slot]);
    r->scratch.buf[slot] = p;
    r->scratch.cap[slot] = want;
    r->scratch.mapped[slot] = mapped;
  }
  return r->scratch.buf[slot];
}

/* Free every kept buffer of r (the struct is going away). */
static void zp_record_scratch_release(zp_record *r)
{
  int i;
  for (i = 0; i < ZP_SCR_COUNT; i++) {
    zp_bigmem_free(r->scratch.buf[i], r->scratch.mapped[i]);
    r->scratch.buf[i] = NULL;
    r->scratch.cap[i] = 0;
    r->scratch.mapped[i] = 0;
  }
}

static void zp_record_free(zp_record *r)
{
  int fin = 0;
  if (r == NULL) return;
  zp_record_scratch_release(r);
  zp_hier_release(r);
  zp_record_free_state(r);
  zp_params_destroy(r->params);
  free(r->native);
  free(r->psizes);
  MPI_Finalized(&fin);
  if (!fin && r->comm != MPI_COMM_NULL) MPI_Comm_free(&r->comm);
  free(r);
}

/* Numbers structs for ZOLTAN_PLUGINS_VERBOSE, which names them. */
static unsigned zp_serial_counter;

zp_record *zp_record_add(struct Zoltan_Struct *zz, MPI_Comm comm)
{
  zp_record *r, **grown;
  if (zp_record_find(zz) != NULL) zp_record_remove(zz);
  r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->zz = zz;
  r->serial = ++zp_serial_counter;
  r->comm = MPI_COMM_NULL;
  r->params = zp_params_create();
  if (r->params == NULL || MPI_Comm_dup(comm, &r->comm) != MPI_SUCCESS) goto fail;
  MPI_Comm_rank(r->comm, &r->rank);
  MPI_Comm_size(r->comm, &r->size);
  grown = zp_grow(zp_table, &zp_table_cap, zp_table_n + 1, sizeof *zp_table, 8);
  if (grown == NULL) goto fail;
  zp_table = grown;
  zp_table[zp_table_n++] = r;
  return r;
fail:
  zp_record_free(r);
  return NULL;
}

void zp_record_remove(struct Zoltan_Struct *zz)
{
  size_t i;
  for (i = 0; i < zp_table_n; i++) {
    if (zp_table[i]->zz == zz) {
      zp_record *r = zp_table[i];
      zp_table[i] = zp_table[--zp_table_n];
      zp_record_free(r);
      return;
    }
  }
}

int zp_record_copy(zp_record *dst, const zp_record *src)
{
  zp_params *params = NULL;
  zp_native_param *native = NULL;
  zp_part_size_entry *ps = NULL;
  void *state = NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  int ierr = ZOLTAN_MEMERR;

  if (dst == src) return ZOLTAN_OK;
  params = zp_params_clone(src->params);
  if (params == NULL) goto end;
  if (src->n_native) {
    native = malloc(src->n_native * sizeof *native);
    if (native == NULL) goto end;
    memcpy(native, src->native, src->n_native * sizeof *native);
  }
  if (src->n_psizes) {
    ps = malloc(src->n_psizes * sizeof *ps);
    if (ps == NULL) goto end;
    memcpy(ps, src->psizes, src->n_psizes * sizeof *ps);
  }
  if (src->state != NULL && src->state_owner != NULL) {
    /* A method without copy() starts afresh in the copy: its state is a
     * cache (for example a load history), never needed for correctness. */
    if (src->state_owner->copy != NULL) {
      ierr = src->state_owner->copy(&state, src->state);
      if (ierr != ZOLTAN_OK) goto end;
    }
  }
  /* Zoltan_Copy_To gives the target the source's communicator. */
  if (MPI_Comm_dup(src->comm, &comm) != MPI_SUCCESS) {
    ierr = ZOLTAN_FATAL;
    goto end;
  }
  zp_record_free_state(dst);
  zp_params_destroy(dst->params);
  free(dst->native);
  free(dst->psizes);
  if (dst->comm != MPI_COMM_NULL) MPI_Comm_free(&dst->comm);
  /* The tree was built on the old communicator. */
  zp_hier_release(dst);
  dst->comm = comm;
  dst->rank = src->rank;
  dst->size = src->size;
  dst->method = src->method;
  dst->params = params;
  dst->native = native;
  dst->n_native = dst->cap_native = src->n_native;
  dst->psizes = ps;
  dst->n_psizes = dst->cap_psizes = src->n_psizes;
  dst->state = state;
  dst->state_owner = state ? src->state_owner : NULL;
  /* An observer watches one struct, a history provider measures the
   * application of one struct, and geometry describes the cuts of the last
   * balance of one struct: the copy has none of them. */
  memset(&dst->observer, 0, sizeof dst->observer);
  memset(&dst->history, 0, sizeof dst->history);
  memset(&dst->geometry, 0, sizeof dst->geometry);
  dst->geometry_method = NULL;
  /* Measured capacities belong to the struct that measured them. */
  memset(&dst->cap, 0, sizeof dst->cap);
  return ZOLTAN_OK;
end:
  zp_params_destroy(params);
  free(native);
  free(ps);
  if (state != NULL && src->state_owner->destroy) src->state_owner->destroy(state);
  return ierr;
}

/* Zoltan reads its deprecated spellings of three key parameters as the
 * current names (params/key_params.c): so does the layer, or a deck that
 * says num_global_partitions=9 would get 9 parts from Zoltan's methods and
 * the rank count from ours. */
static const char *zp_canonical_native(const char *name)
{
  if (strcmp(name, "NUM_GLOBAL_PARTITIONS") == 0) return "NUM_GLOBAL_PARTS";
  if (strcmp(name, "NUM_LOCAL_PARTITIONS") == 0) return "NUM_LOCAL_PARTS";
  if (strcmp(name, "COMM_WEIGHT_DIM") == 0) return "EDGE_WEIGHT_DIM";
  return name;
}

int zp_record_native(zp_record *r, const char *clean_name, int index, const char *clean_value)
{
  zp_native_param *grown;
  size_t i;
  clean_name = zp_canonical_native(clean_name);
  if (strlen(clean_name) >= ZP_NAME_MAX || strlen(clean_value) >= ZP_VALUE_MAX) {
    /* Too long to be one of the parameters the layer reads; Zoltan has it. */
    return ZOLTAN_OK;
  }
  if (strcmp(clean_value, "DEFAULT") == 0) {
    /* As in Zoltan, DEFAULT with index -1 forgets every index of the name. */
    size_t k = 0;
    for (i = 0; i < r->n_native; i++) {
      if (strcmp(r->native[i].name, clean_name) == 0 &&
          (index == -1 || r->native[i].index == index))
        continue;
      r->native[k++] = r->native[i];
    }
    r->n_native = k;
    return ZOLTAN_OK;
  }
  for (i = 0; i < r->n_native; i++) {
    if (strcmp(r->native[i].name, clean_name) == 0 && r->native[i].index == index) {
      /* Move it to the end so that "last set wins" holds across indices. */
      zp_native_param p = r->native[i];
      memmove(&r->native[i], &r->native[i + 1], (r->n_native - i - 1) * sizeof p);
      strcpy(p.value, clean_value);
      r->native[r->n_native - 1] = p;
      return ZOLTAN_OK;
    }
  }
  grown = zp_grow(r->native, &r->cap_native, r->n_native + 1, sizeof *r->native, 16);
  if (grown == NULL) return ZOLTAN_MEMERR;
  r->native = grown;
  strcpy(r->native[r->n_native].name, clean_name);
  r->native[r->n_native].index = index;
  strcpy(r->native[r->n_native].value, clean_value);
  r->n_native++;
  return ZOLTAN_OK;
}

const char *zp_record_native_get(const zp_record *r, const char *clean_name, int index)
{
  size_t i = r->n_native;
  while (i-- > 0) {
    const zp_native_param *p = &r->native[i];
    if (strcmp(p->name, clean_name) == 0 && (p->index == -1 || index == -1 || p->index == index))
      return p->value;
  }
  return NULL;
}

int zp_record_native_int(const zp_record *r, const char *name, int dflt)
{
  const char *v = zp_record_native_get(r, name, -1);
  int x;
  if (v == NULL || zp_parse_int(v, &x) != 0) return dflt;
  return x;
}

double zp_record_native_double(const zp_record *r, const char *name, int index, double dflt)
{
  const char *v = zp_record_native_get(r, name, index);
  double x;
  if (v == NULL || zp_parse_double(v, &x) != 0) return dflt;
  return x;
}

int zp_record_part_sizes(zp_record *r, int global_num, int len, const int *part_ids,
                         const int *wgt_idx, const float *sizes)
{
  zp_part_size_entry *grown;
  int i;
  if (len < 0) {
    /* Zoltan clears every recorded size when len is negative. */
    r->n_psizes = 0;
    return ZOLTAN_OK;
  }
  grown = zp_grow(r->psizes, &r->cap_psizes, r->n_psizes + (size_t)len, sizeof *r->psizes, 16);
  if (grown == NULL) return ZOLTAN_MEMERR;
  r->psizes = grown;
  for (i = 0; i < len; i++) {
    zp_part_size_entry *e = &r->psizes[r->n_psizes++];
    e->global_num = global_num;
    e->part_id = part_ids[i];
    e->wgt_idx = wgt_idx ? wgt_idx[i] : 0;
    e->size = sizes[i];
  }
  return ZOLTAN_OK;
}

/*
 * The payload appended to Zoltan_Serialize's buffer is text, one item per
 * line: "M <method>", "P <name>=<value>" for our parameters,
 * "N <index> <name>=<value>" for recorded native parameters, and
 * "S <global> <part> <idx> <size>" for part sizes.
 */
size_t zp_record_payload(const zp_record *r, char **out)
{
  size_t cap = 64, len = 0, i;
  char *s, *params = zp_params_dump(r->params), *line;
  if (params == NULL) return 0;
  cap += strlen(params) * 2 + r->n_native * (ZP_NAME_MAX + ZP_VALUE_MAX + 24) + r->n_psizes * 96;
  s = malloc(cap);
  if (s == NULL) {
    free(params);
    return 0;
  }
  len += (size_t)snprintf(s + len, cap - len, "M %s\n", r->method ? r->method->name : "-");
  for (line = strtok(params, "\n"); line != NULL; line = strtok(NULL, "\n"))
    len += (size_t)snprintf(s + len, cap - len, "P %s\n", line);
  for (i = 0; i < r->n_native; i++)
    len += (size_t)snprintf(s + len, cap - len, "N %d %s=%s\n", r->native[i].index,
                            r->native[i].name, r->native[i].value);
  for (i = 0; i < r->n_psizes; i++)
    len += (size_t)snprintf(s + len, cap - len, "S %d %d %d %.17g\n", r->psizes[i].global_num,
                            r->psizes[i].part_id, r->psizes[i].wgt_idx, r->psizes[i].size);
  free(params);
  *out = s;
  return len;
}

int zp_record_load_payload(zp_record *r, const char *buf, size_t len)
{
  char *text = malloc(len + 1), *line, *save = NULL;
  zp_params *params = zp_params_create();
  int ierr = ZOLTAN_FATAL;
  const zp_method *method = NULL;
  if (text == NULL || params == NULL) {
    ierr = ZOLTAN_MEMERR;
    goto end;
  }
  memcpy(text, buf, len);
  text[len] = '\0';
  r->n_native = 0;
  r->n_psizes = 0;
  for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
    char *eq;
    if (line[0] == 'M' && line[1] == ' ') {
      if (strcmp(line + 2, "-") != 0 && (method = zp_find_method(line + 2)) == NULL) {
        zp_error("Zoltan_Deserialize", "buffer names plugin method %s, which is not registered",
                 line + 2);
        goto end;
      }
    } else if (line[0] == 'P' && line[1] == ' ' && (eq = strchr(line, '=')) != NULL) {
      *eq = '\0';
      if (zp_params_set(params, line + 2, eq + 1) != ZOLTAN_OK) {
        zp_error("Zoltan_Deserialize", "buffer sets unknown plugin parameter %s", line + 2);
        goto end;
      }
    } else if (line[0] == 'N' && line[1] == ' ' && (eq = strchr(line, '=')) != NULL) {
      int index;
      char name[ZP_NAME_MAX];
      *eq = '\0';
      if (sscanf(line + 2, "%d %63s", &index, name) != 2) goto bad;
      if (zp_record_native(r, name, index, eq + 1) != ZOLTAN_OK) goto end;
    } else if (line[0] == 'S' && line[1] == ' ') {
      int g, p, w;
      double sz;
      float f;
      if (sscanf(line + 2, "%d %d %d %lg", &g, &p, &w, &sz) != 4) goto bad;
      f = (float)sz;
      if (zp_record_part_sizes(r, g, 1, &p, &w, &f) != ZOLTAN_OK) goto end;
    } else {
      goto bad;
    }
  }
  zp_params_destroy(r->params);
  r->params = params;
  params = NULL;
  if (r->method != method) zp_record_free_state(r);
  r->method = method;
  ierr = ZOLTAN_OK;
  goto end;
bad:
  zp_error("Zoltan_Deserialize", "malformed plugin data in the buffer");
end:
  zp_params_destroy(params);
  free(text);
  return ierr;
}
