/* runs.h — what `augur collect` and `augur import` share: run parameters,
 * the set of process profiles that makes a run, and storing it.
 */
#ifndef AUGUR_RUNS_H
#define AUGUR_RUNS_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.h"

#define EXIT_AUGUR_FAILED 125 /* as env(1) and timeout(1): augur itself failed */
#define MAX_PARAMS 64
#define MAX_PROCESSES 4096

/* --param NAME=VALUE options, in the order given. */
typedef struct run_params {
    int n;
    char *names[MAX_PARAMS];
    char *values[MAX_PARAMS];
} run_params;

/* Add "NAME=VALUE" (NAME an identifier, VALUE a finite number, NAME new).
 * Returns 0, or -1 with a message naming the problem and the fix. */
int run_params_add(run_params *p, const char *arg, char *err, size_t errlen);
void run_params_free(run_params *p);

/* The profiles of one run's processes, the main process first, and the
 * sums of their instructions' counts, each at most 2^63 - 1 (what the
 * database's sum() over a run holds). */
typedef struct process_set {
    size_t n;
    profile *procs[MAX_PROCESSES];
    uint64_t execs, reads, writes;
    /* the profiles of the processes' intervals (augur.<pid>.<token>.i<K>.prof) */
    size_t nintervals, cap_intervals;
    profile **intervals;
    int by_callsite; /* they are per call site (--interval-by callsite) */
    const char *mpi_launch; /* an MPI rank's: its launch (run_info.mpi_launch), else NULL */
} process_set;

/* Read and verify one profile file and append it: an interval's (it has
 * an interval line) to s->intervals, a process's to s->procs, whose counts
 * must not take the run's sums past 2^63 - 1.  Returns 0 or -1 + err. */
int process_set_add_file(process_set *s, const char *path, char *err, size_t errlen);

/* Set s->by_callsite for the set's interval profiles: `by` is "index",
 * "callsite" or NULL (not given: callsite when a profile sums several
 * intervals, which only --interval-by callsite writes, else index).  -1 +
 * err when "index" is given and a profile sums several intervals. */
int process_set_interval_by(process_set *s, const char *by, char *err, size_t errlen);

/* Read the profiles in dir that the run marked `token` wrote: regular
 * files of the current user named augur.<pid>.<token>.prof, and the
 * intervals' augur.<pid>.<token>.i<K>.prof; another file
 * named as a profile (augur.*.prof) is left out and named on stderr.  The
 * one of main_pid goes first and must exist.  Returns 0 or -1 + err (and
 * leaves the set empty). */
int process_set_read_dir(process_set *s, const char *dir, int main_pid, const char *token, char *err, size_t errlen);

void process_set_free(process_set *s);

/* How the run ended, as stored in the database. */
typedef struct run_outcome {
    const char *started;  /* ISO 8601 UTC */
    const char *status;   /* "complete" or "partial" */
    const char *detail;   /* why partial, or a non-zero exit (exit_detail), or "" */
    int exit_code;        /* the status augur passes on */
} run_outcome;

/* Store the run in the database at db_path (created if missing) in one
 * transaction, its intervals as runs of their phases (db_import_run), and
 * tell the user where it went; *run_id (may be NULL) gets
 * its id.  Returns 0, or EXIT_AUGUR_FAILED after printing the error (the
 * database is unchanged). */
int store_run(const char *db_path, char **argv, const run_params *params, const run_outcome *outcome,
              process_set *s, const char *command_name, int64_t *run_id);

/* The status detail of a process that exited with `code`: "" for 0, else
 * "exited with status N" (so a failed program is told from a good one). */
void exit_detail(int code, char *buf, size_t len);

/* The current time as ISO 8601 UTC, e.g. 2026-11-21T19:42:50Z. */
void iso_now(char *buf, size_t len);

#endif
