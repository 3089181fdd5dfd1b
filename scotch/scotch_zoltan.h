/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SCOTCH_ZOLTAN_H
#define SCOTCH_ZOLTAN_H

/*
 * scotchlb_register - register LB_METHOD=SCOTCHLB with the plugin layer.
 * Not collective; called once per process by the layer's built-in method
 * table.  Returns ZOLTAN_OK or the code of zp_register_method.
 */
int scotchlb_register(void);

#endif /* SCOTCH_ZOLTAN_H */
