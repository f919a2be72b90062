/* structure_store.h — getting a binary's static structure into the
 * experiment database once, shared by `augur structure` and the scope view
 * of `augur report`. */
#ifndef AUGUR_STRUCTURE_STORE_H
#define AUGUR_STRUCTURE_STORE_H

#include <stdint.h>

#include "db/db.h"

/* The id of the stored structure of the ELF file at `path`: found by its
 * build-id, or analysed now (with the indirect-jump targets runs in the
 * database saw) and stored.  *analysed says which.  -1 with a message
 * naming the file when it cannot be analysed or stored. */
int structure_ensure(db *d, const char *path, int64_t *binary_id, int *analysed, char *err, size_t errlen);

#endif
