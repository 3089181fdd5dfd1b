/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef DIFFUSION_ZOLTAN_H
#define DIFFUSION_ZOLTAN_H

/*
 * diffusion_register - register LB_METHOD=DIFFUSION with the plugin layer.
 * Not collective; called once per process by the layer's built-in
 * registration.  Returns ZOLTAN_OK or ZOLTAN_FATAL (see zp_register_method).
 */
int diffusion_register(void);

#endif /* DIFFUSION_ZOLTAN_H */
