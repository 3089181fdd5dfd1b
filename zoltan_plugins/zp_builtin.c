/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <stddef.h>

#include "zp_internal.h"
#include "zp_builtin.h"

/* One built-in method folder, from its zp_add_builtin_method() call. */
typedef struct zp_builtin {
  const char *name;           /* NAME of the CMake call, for messages */
  int (*register_fn)(void);   /* REGISTER: registers the methods below */
  const char *const *methods; /* METHODS: LB_METHOD values, NULL-terminated */
} zp_builtin;

/* The generated rows, then a terminator, so that a build without any
 * built-in method still compiles. */
static const zp_builtin zp_builtins[] = {ZP_BUILTIN_ROWS{NULL, NULL, NULL}};

/* The methods shipped with the library, registered on first use of the
 * layer.  The flag is set before registering because zp_register_method
 * itself calls zp_builtin_init.  A built-in that fails to register, or does
 * not register every name its CMake call announces, is a defect of this
 * library: it is reported and stops debug and test builds. */
void zp_builtin_init(void)
{
  static const char *yo = "zp_builtin_init";
  static int started = 0;
  size_t i;
  if (started) return;
  started = 1;
  for (i = 0; zp_builtins[i].name != NULL; i++) {
    const zp_builtin *b = &zp_builtins[i];
    const char *const *m;
    int rc = b->register_fn();
    if (rc != ZOLTAN_OK)
      zp_error(yo, "built-in method %s failed to register (code %d)", b->name, rc);
    assert(rc == ZOLTAN_OK);
    for (m = b->methods; *m != NULL; m++) {
      if (zp_find_method(*m) == NULL)
        zp_error(yo, "built-in %s did not register LB_METHOD %s", b->name, *m);
      assert(zp_find_method(*m) != NULL);
    }
  }
}
