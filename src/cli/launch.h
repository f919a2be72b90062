/* launch.h — running a program under one of augur's Valgrind tools (the
 * collector of `augur collect`, memspy of `augur memspy`).
 *
 * Find the program and the tool, run Valgrind with the program's
 * stdin/stdout/stderr untouched (or its stdout sent to stderr, on request)
 * and Valgrind's own messages sent to log files, wait, and explain
 * failures that Valgrind only reports in its log (undecodable instructions
 * such as AVX-512).
 */
#ifndef AUGUR_LAUNCH_H
#define AUGUR_LAUNCH_H

#include <stddef.h>
#include <stdio.h>

typedef struct launch_request {
    char **argv;           /* PROGRAM ARGS..., NULL-terminated */
    const char *out_dir;   /* the run's private folder (run_dir.h), where Valgrind writes
                              its logs (valgrind.<pid>.log) and vgdb its pipes */
    const char *tool;      /* "augur", "memspy": vglib/<tool>-amd64-linux */
    char **tool_args;      /* the tool's own options, NULL-terminated */
    int trace_children;    /* follow child processes */
    const char *activity;  /* "collecting": what the progress line says */
    int stdout_to_stderr;  /* the program's stdout goes to augur's stderr, so that
                              a report augur writes to stdout is not mixed with it */
    const char *progress_marker; /* NULL, or what starts the tool's progress lines in
                                    its logs ("memspy: progress: "), each a count and
                                    its unit: the latest of every log (process),
                                    summed, is shown with the periodic "still
                                    running" line */
    const char *preload;   /* NULL, or a library for the program's LD_PRELOAD (before
                              any the user set): augur's MPI wrapper */
    const int *pass_fds;   /* descriptors of augur's, close-on-exec, that Valgrind
                              inherits at the same numbers (the channel to collect's
                              consumer, rdpipe.h); npass_fds of them */
    int npass_fds;
    void (*forked)(void *ctx); /* NULL, or called in augur once Valgrind's process is
                                  forked (or could not be), before the wait: where augur
                                  closes its copies of pass_fds */
    void *forked_ctx;
} launch_request;

typedef struct launch_result {
    int pid;       /* of the main process (the Valgrind process) */
    int exited;    /* 1: exited with exit_code; 0: killed by term_signal */
    int exit_code;
    int term_signal;
} launch_result;

/* Resolve `name` as execvp would (PATH search when it has no '/').  On
 * success returns 0 and the path in `path`; on failure returns 127 (not
 * found) or 126 (not an executable file) with a message in err. */
int find_program(const char *name, char *path, size_t pathlen, char *err, size_t errlen);

/* The folder holding augur's Valgrind tool `tool` (VALGRIND_LIB), or NULL
 * with a message in err when the tool is not built or installed. */
const char *find_tool_dir(const char *tool, char *err, size_t errlen);

/* Seconds between the "still running" lines launch_tool prints on a
 * terminal: AUGUR_PROGRESS_SECONDS (1 to 3600) or 30.  Silent: launch_tool
 * and launch_print_command each warn on stderr about a value set but bad. */
int launch_progress_seconds(void);

/* Run the request and wait for it, as a job of augur (supervise.h: the
 * signals augur receives, stops, the terminal).  The program's environment
 * is augur's, with OMP_WAIT_POLICY=passive added unless OMP_WAIT_POLICY,
 * GOMP_SPINCOUNT or KMP_BLOCKTIME is set (OpenMP threads spinning at a
 * barrier under Valgrind only inflate the counts).  Returns 0 when the program ran
 * (whatever its exit status), -1 with a message in err when Valgrind could
 * not be run. */
int launch_tool(const launch_request *rq, const char *tool_dir, launch_result *res,
                     char *err, size_t errlen);

/* Write the command launch_tool would run for rq, as one shell line
 * ([OMP_WAIT_POLICY=passive] VALGRIND_LIB=tool_dir valgrind ...), to out.
 * -1 when out of memory. */
int launch_print_command(FILE *out, const launch_request *rq, const char *tool_dir);

/* After a run that ended with SIGILL: if Valgrind's logs in out_dir show an
 * instruction it could not decode, write an explanation with the fix into
 * err and return 1; else return 0. */
int diagnose_undecodable(const char *out_dir, char *err, size_t errlen);

/* The last lines of Valgrind's logs in out_dir, for error messages. */
void valgrind_log_tail(const char *out_dir, char *buf, size_t buflen);

#endif
