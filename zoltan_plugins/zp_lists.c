/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The answer of Zoltan_LB_Partition for our methods: export lists of the
 * objects whose rank or part changes (as Zoltan's methods list them),
 * import lists from Zoltan_Invert_Lists, every RETURN_LISTS value,
 * AUTO_MIGRATE through Zoltan_Migrate, and the DEBUG_LEVEL output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "zp_partition_internal.h"

/* One import or export list, in Zoltan's allocator. */
typedef struct zp_list {
  int n;              /* entries */
  ZOLTAN_ID_PTR gids; /* n * ngid global IDs */
  ZOLTAN_ID_PTR lids; /* n * nlid local IDs, NULL when nlid == 0 */
  int *procs;         /* source (import) or destination (export) rank */
  int *parts;         /* destination part */
} zp_list;

static void *zp_zmalloc(size_t bytes)
{
  /* Arrays handed to the application are freed by Zoltan_LB_Free_Part, so
   * they must come from Zoltan's allocator (its memory debugging knows them). */
  return Zoltan_Malloc(bytes ? bytes : 1, (char *)__FILE__, __LINE__);
}

static void zp_free_list(zp_list *l)
{
  Zoltan_LB_Free_Part(&l->gids, &l->lids, &l->procs, &l->parts);
  l->n = 0;
}

/* The chosen local objects (sel == NULL: all of them, count == n) with
 * their new ranks and parts. */
static int zp_make_list(const zp_context *c, const unsigned char *sel, int count, const int *procs,
                        const int *parts, zp_list *l)
{
  int i, k;
  /* One entry more than listed: the loop below writes every object at the
   * next free entry and moves on only past a listed one. */
  size_t room = (size_t)count + 1;
  l->n = count;
  l->gids = zp_zmalloc(room * c->ngid * sizeof *l->gids);
  l->lids = c->nlid ? zp_zmalloc(room * c->nlid * sizeof *l->lids) : NULL;
  l->procs = zp_zmalloc(room * sizeof *l->procs);
  l->parts = zp_zmalloc(room * sizeof *l->parts);
  if (l->gids == NULL || (c->nlid && l->lids == NULL) || l->procs == NULL || l->parts == NULL)
    return ZOLTAN_MEMERR;
  if (c->ngid == 1 && c->nlid <= 1) {
    /* One ID entry each (the common case): no call of memcpy per object,
     * and no branch on whether it is listed, which a method that moves
     * objects at random (GREEDY) makes unpredictable. */
    for (i = 0, k = 0; i < c->n; i++) {
      l->gids[k] = c->gids[i];
      if (c->nlid) l->lids[k] = c->lids[i];
      l->procs[k] = procs[i];
      l->parts[k] = parts[i];
      k += sel != NULL ? sel[i] : 1;
    }
    return ZOLTAN_OK;
  }
  for (i = 0, k = 0; i < c->n; i++) {
    if (sel != NULL && !sel[i]) continue;
    memcpy(l->gids + (size_t)k * c->ngid, c->gids + (size_t)i * c->ngid,
           (size_t)c->ngid * sizeof *l->gids);
    if (c->nlid)
      memcpy(l->lids + (size_t)k * c->nlid, c->lids + (size_t)i * c->nlid,
             (size_t)c->nlid * sizeof *l->lids);
    l->procs[k] = procs[i];
    l->parts[k] = parts[i];
    k++;
  }
  return ZOLTAN_OK;
}

/* Hand a list over to the application's import or export arguments. */
static void zp_give_import(zp_list *l, zp_lb_args *a)
{
  *a->num_import = l->n;
  *a->import_gids = l->gids;
  *a->import_lids = l->lids;
  *a->import_procs = l->procs;
  *a->import_to_part = l->parts;
  memset(l, 0, sizeof *l);
}

static void zp_give_export(zp_list *l, zp_lb_args *a)
{
  *a->num_export = l->n;
  *a->export_gids = l->gids;
  *a->export_lids = l->lids;
  *a->export_procs = l->procs;
  *a->export_to_part = l->parts;
  memset(l, 0, sizeof *l);
}

int zp_wants_imports(const zp_context *c)
{
  return c->return_lists == ZP_RL_IMPORT || c->return_lists == ZP_RL_ALL || c->auto_migrate;
}

void zp_base_lists_free(zp_base_lists *b)
{
  if (b == NULL) return;
  Zoltan_LB_Free_Part(&b->ig, &b->il, &b->ip, &b->ipa);
  Zoltan_LB_Free_Part(&b->eg, &b->el, &b->ep, &b->epa);
  free(b->answer);
  free(b->moved);
  free(b);
}

/* Take over the kept lists of a base run as this answer's (the caller
 * checked that they say it). */
static void zp_take_base_lists(zp_base_lists *b, zp_list *imp, zp_list *exp)
{
  zp_list e = {b->nexp, b->eg, b->el, b->ep, b->epa};
  *exp = e;
  b->eg = b->el = NULL;
  b->ep = b->epa = NULL;
  if (b->nimp >= 0) {
    zp_list i = {b->nimp, b->ig, b->il, b->ip, b->ipa};
    *imp = i;
    b->ig = b->il = NULL;
    b->ip = b->ipa = NULL;
  }
}

void zp_discard_answer(zp_lb_args *a)
{
  Zoltan_LB_Free_Part(a->import_gids, a->import_lids, a->import_procs, a->import_to_part);
  Zoltan_LB_Free_Part(a->export_gids, a->export_lids, a->export_procs, a->export_to_part);
  *a->num_import = *a->num_export = 0;
  *a->changes = 0;
}

/* ---- debug output ---------------------------------------------------------- */

void zp_format_gid(const ZOLTAN_ID_TYPE *g, int ngid, char *buf, size_t cap)
{
  size_t used = 0;
  int k;
  buf[0] = '\0';
  for (k = 0; k < ngid && used + 24 < cap; k++)
    used += (size_t)snprintf(buf + used, cap - used, k ? ".%lu" : "%lu", (unsigned long)g[k]);
}

/* Max, min and average of a time over ranks, as Zoltan prints them. */
static void zp_print_stats(const zp_context *c, double t, const char *label)
{
  double mx, mn, sum;
  MPI_Allreduce(&t, &mx, 1, MPI_DOUBLE, MPI_MAX, c->r->comm);
  MPI_Allreduce(&t, &mn, 1, MPI_DOUBLE, MPI_MIN, c->r->comm);
  MPI_Allreduce(&t, &sum, 1, MPI_DOUBLE, MPI_SUM, c->r->comm);
  if (c->r->rank == c->debug_proc) {
    double avg = sum / c->r->size;
    printf("%s Max: %g  Min: %g  Avg: %g  Imbal: %g\n", label, mx, mn, avg,
           avg > 0 ? mx / avg : 1.0);
    fflush(stdout);
  }
}

/* Every rank's lists, in rank order, as Zoltan prints them. */
static void zp_print_lists(const zp_context *c, const zp_lb_args *a)
{
  int i, rank;
  char g[ZP_GID_TEXT];
  for (rank = 0; rank < c->r->size; rank++) {
    MPI_Barrier(c->r->comm);
    if (rank != c->r->rank) continue;
    printf("ZOLTAN: Objects to be imported to Proc %d\n", c->r->rank);
    for (i = 0; i < *a->num_import; i++) {
      zp_format_gid(*a->import_gids + (size_t)i * c->ngid, c->ngid, g, sizeof g);
      printf("    Obj: %s  To part: %4d  From processor: %4d\n", g, (*a->import_to_part)[i],
             (*a->import_procs)[i]);
    }
    printf("ZOLTAN: Objects to be exported from Proc %d\n", c->r->rank);
    for (i = 0; i < *a->num_export; i++) {
      zp_format_gid(*a->export_gids + (size_t)i * c->ngid, c->ngid, g, sizeof g);
      printf("    Obj: %s  To part: %4d  To processor: %4d\n", g, (*a->export_to_part)[i],
             (*a->export_procs)[i]);
    }
    fflush(stdout);
  }
  MPI_Barrier(c->r->comm);
}

/* ---- the answer ------------------------------------------------------------ */

/* The complete list of the local objects as the export list (PARTS).
 * Collective. */
static int zp_give_parts(const zp_context *c, const int *new_proc, const int *new_part,
                         zp_lb_args *a, int *warn)
{
  zp_list all = {0, NULL, NULL, NULL, NULL};
  int ierr = zp_agree_step(c, zp_make_list(c, NULL, c->n, new_proc, new_part, &all), warn);
  if (ierr >= 0) zp_give_export(&all, a);
  zp_free_list(&all);
  return ierr;
}

/* Move the lists the application asked for (RETURN_LISTS) into a; the
 * others stay behind to be freed.  Collective (PARTS builds a list). */
static int zp_hand_over(const zp_context *c, zp_list *imp, zp_list *exp, const int *new_proc,
                        const int *new_part, zp_lb_args *a, int *warn)
{
  int ierr = ZOLTAN_OK;
  switch (c->return_lists) {
  case ZP_RL_NONE:
    *a->num_import = *a->num_export = -1;
    break;
  case ZP_RL_IMPORT:
    zp_give_import(imp, a);
    *a->num_export = -1;
    break;
  case ZP_RL_EXPORT:
    zp_give_export(exp, a);
    *a->num_import = -1;
    break;
  case ZP_RL_PARTS:
    ierr = zp_give_parts(c, new_proc, new_part, a, warn);
    *a->num_import = -1;
    break;
  default: /* ALL */
    zp_give_import(imp, a);
    zp_give_export(exp, a);
    break;
  }
  return ierr;
}

/* Export, invert, migrate, hand over, print: the objects change.  With
 * base (every rank alike), a base run's kept lists say this answer: they
 * are the lists, in Zoltan's order, and nothing is built or inverted. */
static int zp_answer_changes(const zp_context *c, const unsigned char *sel, int nexp,
                             const int *new_proc, const int *new_part, double t_part, zp_lb_args *a,
                             int *warn, zp_base_lists *base)
{
  zp_list exp = {0, NULL, NULL, NULL, NULL}, imp = {0, NULL, NULL, NULL, NULL};
  double t_mig = 0.0;
  int ierr = ZOLTAN_OK;
  if (base != NULL)
    zp_take_base_lists(base, &imp, &exp);
  else
    ierr = zp_agree_step(c, zp_make_list(c, sel, nexp, new_proc, new_part, &exp), warn);
  if (ierr >= 0 && base == NULL && zp_wants_imports(c))
    ierr =
        zp_agree_step(c,
                      Zoltan_Invert_Lists(c->r->zz, exp.n, exp.gids, exp.lids, exp.procs, exp.parts,
                                          &imp.n, &imp.gids, &imp.lids, &imp.procs, &imp.parts),
                      warn);
  if (ierr >= 0 && c->auto_migrate) {
    double t0 = MPI_Wtime();
    int e = Zoltan_Migrate(c->r->zz, imp.n, imp.gids, imp.lids, imp.procs, imp.parts, exp.n,
                           exp.gids, exp.lids, exp.procs, exp.parts);
    if (e < 0) zp_error(c->yo, "Error in auto-migration; %d returned from Zoltan_Migrate", e);
    ierr = zp_agree_step(c, e, warn);
    t_mig = MPI_Wtime() - t0;
  }
  if (ierr >= 0) ierr = zp_hand_over(c, &imp, &exp, new_proc, new_part, a, warn);
  if (ierr >= 0) {
    *a->changes = 1;
    if (c->debug_level >= ZP_DEBUG_LIST && *a->num_import >= 0 && *a->num_export >= 0)
      zp_print_lists(c, a);
    if (c->debug_level >= ZP_DEBUG_ZTIME) {
      if (c->r->rank == c->debug_proc) printf("ZOLTAN Times:  \n");
      zp_print_stats(c, t_part, "ZOLTAN     Partition:     ");
      if (c->auto_migrate) zp_print_stats(c, t_mig, "ZOLTAN     Migrate: ");
    }
  }
  zp_free_list(&exp);
  zp_free_list(&imp);
  return ierr;
}

/* 1 when the kept lists of a base run may say this answer, as far as the
 * settings tell: there are kept lists, the application does not ask for a
 * complete list, and the imports are there when it wants them.  Whether
 * they do also needs the same parts and the same objects listed, which
 * zp_answer compares in its pass over the objects.  Not collective. */
static int zp_base_lists_may_say(const zp_context *c)
{
  const zp_base_lists *b = c->base_lists;
  return b != NULL && (!zp_wants_imports(c) || b->nimp >= 0) && c->return_lists != ZP_RL_PARTS;
}

int zp_answer(const zp_context *c, const int *new_part, double t_part, zp_lb_args *a, int *warn)
{
  /* When part p is simply on rank p, the new ranks are the new parts and
   * need no array of their own. */
  int *new_proc = c->pdist == NULL ? NULL : malloc(((size_t)c->n + 1) * sizeof *new_proc);
  /* One byte per object: whether it is listed. */
  unsigned char *sel = malloc((size_t)c->n + 1);
  const int *procs = c->pdist == NULL ? new_part : new_proc;
  int i, nexp = 0, most = 0, mine[4], all[4],
         ierr = (c->pdist == NULL || new_proc) && sel ? c->pending : ZOLTAN_MEMERR;
  /* A rank without the memory, or with an error of the step before
   * (c->pending), lists nothing and joins the one reduction below, which
   * agrees on its code too. */
  if (ierr < 0) {
    mine[1] = 1;
    goto Reduce;
  }
  for (i = 0; new_proc != NULL && i < c->n; i++) /* A part on one rank needs no call per object. */
    new_proc[i] = c->single_proc ? c->pdist[new_part[i]]
                                 : zp_part_to_proc(c, new_part[i], c->gids + (size_t)i * c->ngid);
  if (zp_base_lists_may_say(c)) {
    /* One pass: the objects to list, and whether the kept lists say them
     * with the same parts (the answer may have changed after the base run:
     * relabelled parts, fixed objects). */
    const zp_base_lists *b = c->base_lists;
    unsigned differ = 0;
    for (i = 0; i < c->n; i++) {
      sel[i] = (unsigned char)(procs[i] != c->r->rank || new_part[i] != c->in_parts[i]);
      nexp += sel[i];
      differ |= (unsigned)(new_part[i] != b->answer[i]) |
                (unsigned)(sel[i] != ((b->moved[i / 8] >> (i % 8)) & 1));
    }
    mine[1] = differ != 0 || b->nexp != nexp;
  } else {
    for (i = 0; i < c->n; i++) {
      /* Zoltan lists an object when its rank or its part changes. */
      sel[i] = (unsigned char)(procs[i] != c->r->rank || new_part[i] != c->in_parts[i]);
      nexp += sel[i];
    }
    mine[1] = 1;
  }
Reduce:
  mine[0] = nexp;
  /* The largest -code is the worst error, the largest code the strongest
   * warning (zp_agree_code's reading). */
  mine[2] = -ierr;
  mine[3] = ierr;
  if (MPI_Allreduce(mine, all, 4, MPI_INT, MPI_MAX, c->r->comm) != MPI_SUCCESS) {
    ierr = ZOLTAN_FATAL;
    goto End;
  }
  if (all[2] > 0) {
    ierr = -all[2];
    goto End;
  }
  zp_fixed_report(c, c->fixed_applied);
  most = all[0];
  if (most > 0) {
    ierr = zp_answer_changes(c, sel, nexp, procs, new_part, t_part, a, warn,
                             all[1] == 0 ? c->base_lists : NULL);
  } else if (c->return_lists == ZP_RL_PARTS) {
    /* A complete list even when nothing changes, as Zoltan gives. */
    ierr = zp_give_parts(c, procs, new_part, a, warn);
  } else if (c->return_lists == ZP_RL_NONE) {
    /* Zoltan's methods build no list when none is asked for, so Zoltan
     * never learns that nothing changed: it returns -1 for both counts and
     * reports changes, whatever the answer. */
    *a->num_import = *a->num_export = -1;
    *a->changes = 1;
  }
End:
  free(new_proc);
  free(sel);
  return ierr;
}
