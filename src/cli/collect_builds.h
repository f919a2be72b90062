/* collect_builds.h — what `augur collect` says and keeps about the builds
 * of a program whose problem size is compiled in (one build per size):
 * before the program runs, whether the database holds runs of another
 * build of it and whether `augur model` can model them together; after the
 * run is stored, the build's structure, by which `augur model` matches the
 * builds (the file may be replaced by the next size's build). */
#ifndef AUGUR_COLLECT_BUILDS_H
#define AUGUR_COLLECT_BUILDS_H

#include <stddef.h>
#include <stdint.h>

/* Compare the ELF file at `program` (as collect will run it) with the
 * programs of the runs in the database at db_path (nothing when it does not
 * exist).  Another build of the same sources (the same path, or the same
 * source files) gets a notice in notice[nlen] ("" when there is nothing to
 * say): that models will be matched by source location, or why they cannot
 * be (other flags, no debug information).  -1 with a message naming the
 * difference and the fix when runs of a program at the same path were
 * built from other sources. */
int collect_check_build(const char *db_path, const char *program, char *notice, size_t nlen, char *err,
                        size_t errlen);

/* Store the structure of the program of run `run_id` unless stored, when
 * its file is still the build that ran.  A failure is a warning on stderr:
 * the run is stored. */
void collect_store_structure(const char *db_path, int64_t run_id);

#endif
