/* run_dir.h — the private folder a run's Valgrind tool writes into (the
 * profiles, Valgrind's logs and vgdb's pipes of `augur collect` and
 * `augur memspy`).
 *
 * The folder is made new for each run, mode 0700, in a parent folder that
 * no other user can rename things in, so that no one else can plant links
 * or files among the run's files, or swap the folder itself.  It holds an
 * owner file naming the augur process that made it (host, boot, pid and
 * the process's start time): a run killed before it could remove its
 * folder (SIGKILL, a power cut) leaves it behind, and the next run made in
 * the same parent removes it once its owner is gone.
 */
#ifndef AUGUR_RUN_DIR_H
#define AUGUR_RUN_DIR_H

#include <stddef.h>

/* Make the run's folder PARENT/PREFIX-XXXXXX (mkdtemp: new, mode 0700)
 * with its owner file, its path in dir.  PARENT is `parent` resolved, or
 * $TMPDIR (/tmp without it) when parent is NULL; it and each folder above
 * it must belong to the current user or root and, when others may write
 * in them, have the sticky bit (as /tmp): no one else can then rename or
 * replace what augur makes there.  Folders PARENT/PREFIX-* of the current
 * user whose owner ran on this host and has ended are removed first.
 * 0, or -1 with a message naming the folder (called `what`, such as
 * "--keep-profiles folder"), the problem and the fix. */
int run_dir_make(const char *parent, const char *what, const char *prefix, char *dir, size_t len, char *err,
                 size_t errlen);

/* The run is over: keep the folder and its files for the user (removing
 * the owner file, so that no later run takes it for a dead run's), or
 * remove it with every file in it. */
void run_dir_finish(const char *dir, int keep);

#endif
