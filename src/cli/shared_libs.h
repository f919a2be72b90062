/* shared_libs.h — the shared objects a program loads. */
#ifndef AUGUR_SHARED_LIBS_H
#define AUGUR_SHARED_LIBS_H

#include <stddef.h>

/* The absolute paths of the shared objects `program` loads, the dynamic
 * loader included, into a new array of new strings (free each and the
 * array).  A static program has none.  -1 with a message on failure. */
int list_shared_objects(const char *program, char ***paths, size_t *n, char *err, size_t errlen);

#endif
