/* structure_store.h — getting a binary's static structure into the
 * experiment database once, shared by `augur structure` and the scope view
 * of `augur report`. */
#ifndef AUGUR_STRUCTURE_STORE_H
#define AUGUR_STRUCTURE_STORE_H

#include <stdint.h>

#include "db/db.h"

/* Seconds spent, when a binary was analysed. */
typedef struct structure_timing {
    double analyse, store;
} structure_timing;

/* The id of the stored structure of the ELF file at `path`: found by its
 * build-id, or analysed now (with the indirect-jump targets runs in the
 * database saw) and stored under its canonical path (realpath).  *analysed
 * says which; `timing` (may be NULL) receives the time of each step.  While
 * it analyses and stores, a terminal on stderr shows a line with `label`
 * (NULL: the path), the step and the functions done; a pipe shows nothing.
 * -1 with a message naming the file when it cannot be analysed or stored. */
int structure_ensure(db *d, const char *path, const char *label, int64_t *binary_id, int *analysed,
                     structure_timing *timing, char *err, size_t errlen);

struct scope_tree;

/* Load into *t the scope tree of the module at `path` that a run executed
 * with `build_id`, analysing the file now if it never was (`label` as
 * structure_ensure's); the tree's binary.path is `path`, whatever path the
 * build was analysed at.  Returns 1, loading nothing, when the file is
 * gone, has no build-id or was rebuilt since the run (its build-id is
 * another): its analysis would not be of the code that ran.  -1 with a
 * message on failure. */
int structure_tree_if_current(db *d, const char *path, const char *build_id, const char *label,
                              struct scope_tree *t, char *err, size_t errlen);

/* As structure_tree_if_current, but a build whose file is gone or was
 * rebuilt is loaded from the structure stored for its build-id (`augur
 * collect` stores it while the file is that build); 1 when neither is
 * there. */
int structure_tree_of_build(db *d, const char *path, const char *build_id, const char *label,
                            struct scope_tree *t, char *err, size_t errlen);

#endif
