/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef GREEDY_ZOLTAN_H
#define GREEDY_ZOLTAN_H

/*
 * greedy_register - register LB_METHOD=GREEDY with the plugin layer.
 * Not collective; call once per process before GREEDY is used (the layer's
 * list of built-in methods does).  Returns the code of zp_register_method.
 */
int greedy_register(void);

#endif /* GREEDY_ZOLTAN_H */
