/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef ULBA_ZOLTAN_H
#define ULBA_ZOLTAN_H

/*
 * LB_METHOD=ULBA: the underloading load-balancing approach of Boulmier et
 * al. over any base method (RCB, HSFC, RIB, PHG, GRAPH, GREEDY, ...).
 * Parameters and behaviour: ulba/README.md and docs/parameters.md.
 *
 * This header is installed: ulba_last_model lets the adaptive trigger and
 * applications read the model quantities of the last ULBA balance.
 */

#if !defined(ZP_API)
#if defined(__GNUC__)
#define ZP_API __attribute__((visibility("default")))
#else
#define ZP_API
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

struct Zoltan_Struct;

/* Where the workload increase rates of the last balance came from. */
#define ULBA_SOURCE_NONE 0 /* no rate known yet (first balance): alpha 0 */
#define ULBA_SOURCE_WEIGHTS                                                                        \
  1 /* object weights of successive balancing calls;
                                 rates are per balancing interval */
#define ULBA_SOURCE_TRIGGER                                                                        \
  2 /* per-step object loads of the attached adaptive
                                 trigger; rates are per step */

/* The model quantities of the last ULBA balance of a Zoltan_Struct.  Rates
 * and iteration counts are per balancing interval or per step, see source. */
typedef struct ulba_model_info {
  int source;         /* ULBA_SOURCE_* */
  long num_balances;  /* ULBA balances done on this struct so far */
  double P;           /* number of parts */
  double N;           /* number of overloading parts detected */
  double alpha;       /* alpha used (0 after the 2N >= P fallback or with N = 0) */
  double alpha_param; /* alpha asked for (the AUTO choice when ULBA_ALPHA=AUTO) */
  double a;           /* estimated work added to every part per iteration */
  double m;           /* estimated extra work per overloading part per iteration */
  double W;           /* total weight at the balance (first weight dimension) */
  double C;           /* balance cost used by the model, seconds (NaN if unknown) */
  double omega;       /* speed used by the model, weight units per second */
  double sigma_minus; /* Eq. (8), iterations (NaN when the model is undefined) */
  double sigma_plus;  /* Eq. (12), iterations (NaN when undefined) */
  double tau;         /* Menon's sqrt(2 C omega / m_hat), iterations (NaN when undefined) */
  int small_part;     /* a part that received the underloaded size, -1 if none */
  int base_runs;      /* runs of the base method in the last balance: 1 when the
                         target sizes fit at once, more when the base method
                         renumbered its parts (ULBA_RELABEL) */
} ulba_model_info;

/*
 * ulba_register - register LB_METHOD=ULBA and its parameters with the
 * plugin layer.  Called by the layer itself (generated zp_builtin.h).
 * Not collective.  Returns ZOLTAN_OK or the code of zp_register_method.
 */
int ulba_register(void);

/*
 * ulba_last_model - the model quantities of the last ULBA balance on zz.
 * Not collective (every rank holds the same values).
 * Input:  zz, a Zoltan_Struct created while the plugin layer was loaded.
 * Output: *out.
 * Returns ZOLTAN_OK; ZOLTAN_WARN (out zeroed, source ULBA_SOURCE_NONE) when
 * no ULBA balance has run on zz yet; ZOLTAN_FATAL when an argument is NULL.
 */
ZP_API int ulba_last_model(struct Zoltan_Struct *zz, ulba_model_info *out);

#ifdef __cplusplus
}
#endif

#endif /* ULBA_ZOLTAN_H */
