/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REFINE_ZOLTAN_H
#define REFINE_ZOLTAN_H

/*
 * refine_register - register LB_METHOD=REFINE and LB_METHOD=GREEDYREFINE
 * (and their parameters) with the plugin layer.
 * Not collective; call once per process, after nothing else has registered
 * these names.  Returns ZOLTAN_OK or the first failing code of
 * zp_register_method.
 */
int refine_register(void);

#endif /* REFINE_ZOLTAN_H */
