/* SPDX-License-Identifier: BSD-3-Clause */
#include "zp_internal.h"
#include "zp_builtin.h"

/* The methods shipped with the library, registered on first use of the
 * layer.  The flag is set before registering because zp_register_method
 * itself calls zp_builtin_init. */
void zp_builtin_init(void)
{
  static int started = 0;
  if (started) return;
  started = 1;
  ZP_BUILTIN_REGISTER_ALL();
}
