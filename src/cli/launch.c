/* launch.c — run a program under one of augur's Valgrind tools; see launch.h. */
#define _GNU_SOURCE
#include "cli/launch.h"
#include "cli/supervise.h"
#include "report/report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 0 if `path` is a regular executable file, else 126 or 127 with a message. */
static int check_executable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "program '%s' not found: %s", path, strerror(errno));
        return 127;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "'%s' is not a regular file, so it cannot be run", path);
        return 126;
    }
    if (access(path, X_OK) != 0) {
        snprintf(err, errlen, "'%s' is not executable (chmod +x '%s' if it is a program)", path, path);
        return 126;
    }
    return 0;
}

int find_program(const char *name, char *path, size_t pathlen, char *err, size_t errlen)
{
    if (strchr(name, '/')) {
        snprintf(path, pathlen, "%s", name);
        return check_executable(path, err, errlen);
    }
    const char *dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    char *copy = strdup(dirs), *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        snprintf(path, pathlen, "%s/%s", *dir ? dir : ".", name);
        if (access(path, X_OK) == 0 && check_executable(path, err, errlen) == 0) {
            free(copy);
            return 0;
        }
    }
    free(copy);
    snprintf(err, errlen, "program '%s' not found in PATH (give a path such as ./%s)", name, name);
    return 127;
}

static int has_tool(const char *dir, const char *tool)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s-amd64-linux", dir, tool);
    return access(path, X_OK) == 0;
}

const char *find_tool_dir(const char *tool, char *err, size_t errlen)
{
    static char found[PATH_MAX];
    const char *env = getenv("AUGUR_VALGRIND_LIB");
    if (env && *env) {
        if (has_tool(env, tool))
            return env;
        snprintf(err, errlen, "AUGUR_VALGRIND_LIB=%s holds no %s-amd64-linux; unset it or point it at a build's vglib/",
                 env, tool);
        return NULL;
    }
    /* Beside the executable first (build tree, or PREFIX/bin -> PREFIX/lib/augur). */
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            const char *candidates[] = {"%s/vglib", "%s/../lib/augur/vglib"};
            for (size_t i = 0; i < 2; i++) {
                snprintf(found, sizeof found, candidates[i], self);
                if (has_tool(found, tool))
                    return found;
            }
        }
    }
    if (has_tool(AUGUR_BUILD_VGLIB, tool))
        return AUGUR_BUILD_VGLIB;
    if (has_tool(AUGUR_INSTALL_VGLIB, tool))
        return AUGUR_INSTALL_VGLIB;
    snprintf(err, errlen,
             "augur's Valgrind tool %s-amd64-linux is not built: run 'cmake --build build' in the augur source tree",
             tool);
    return NULL;
}

/* Valgrind's own options for rq, the words valgrind_argv puts first. */
typedef struct valgrind_opts {
    char tool[64], log[PATH_MAX + 32], vgdb[PATH_MAX + 32];
} valgrind_opts;

/* valgrind's argv for rq, NULL-terminated, its words in rq and v (which
 * must outlive it); free the array alone.  NULL when out of memory. */
static char **valgrind_argv(const launch_request *rq, valgrind_opts *v)
{
    snprintf(v->tool, sizeof v->tool, "--tool=%s", rq->tool);
    snprintf(v->log, sizeof v->log, "--log-file=%s/valgrind.%%p.log", rq->out_dir);
    /* vgdb's pipes, in $TMPDIR by default, go with the logs: a killed run leaves them */
    snprintf(v->vgdb, sizeof v->vgdb, "--vgdb-prefix=%s/vgdb-pipe", rq->out_dir);
    size_t nargs = 0, ntool = 0;
    while (rq->argv[nargs])
        nargs++;
    while (rq->tool_args[ntool])
        ntool++;
    char **argv = calloc(nargs + ntool + 7, sizeof *argv);
    if (!argv)
        return NULL;
    size_t k = 0;
    argv[k++] = "valgrind";
    argv[k++] = v->tool;
    argv[k++] = rq->trace_children ? "--trace-children=yes" : "--trace-children=no";
    argv[k++] = v->log;
    argv[k++] = v->vgdb;
    for (size_t i = 0; i < ntool; i++)
        argv[k++] = rq->tool_args[i];
    for (size_t i = 0; i < nargs; i++)
        argv[k++] = rq->argv[i];
    argv[k] = NULL;
    return argv;
}

/* Whether the program's OpenMP threads are to wait passively: yes unless
 * the user chose a wait policy or a spin count.  OpenMP runtimes (libgomp,
 * libomp) spin at barriers before they sleep; Valgrind runs one thread at
 * a time, so a spinning thread waits for one that cannot run until the
 * spinner's time slice ends.  Those spins are the tool's doing, not the
 * program's work, and they vary from run to run (docs/user-guide.md,
 * "OpenMP": ten times the program's own instructions at small sizes). */
static int omp_passive_wait(void)
{
    return !getenv("OMP_WAIT_POLICY") && !getenv("GOMP_SPINCOUNT") && !getenv("KMP_BLOCKTIME");
}

/* Put `lib` first in LD_PRELOAD, before what the user preloads.  Valgrind
 * passes LD_PRELOAD on to the program, adding its own libraries before it
 * (docs/collector.md, "MPI calls"). */
static void set_preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    char *v = NULL;
    if (old && *old ? asprintf(&v, "%s:%s", lib, old) < 0 : !(v = strdup(lib))) {
        fprintf(stderr, "augur: out of memory starting valgrind\n");
        _exit(125);
    }
    setenv("LD_PRELOAD", v, 1);
    free(v);
}

static void exec_valgrind(const launch_request *rq, const char *tool_dir)
{
    valgrind_opts v;
    char **argv = valgrind_argv(rq, &v);
    if (!argv) {
        fprintf(stderr, "augur: out of memory starting valgrind\n");
        _exit(125);
    }
    setenv("VALGRIND_LIB", tool_dir, 1);
    if (omp_passive_wait())
        setenv("OMP_WAIT_POLICY", "passive", 1);
    if (rq->preload)
        set_preload(rq->preload);
    execvp("valgrind", argv);
    fprintf(stderr, "augur: cannot run valgrind: %s (apt-get install valgrind)\n", strerror(errno));
    _exit(125);
}

/* AUGUR_PROGRESS_SECONDS's value when it is a whole number from 1 to
 * 3600, 0 when it is anything else, -1 when it is unset or empty. */
static int progress_seconds_given(void)
{
    const char *v = getenv("AUGUR_PROGRESS_SECONDS");
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long s = strtol(v, &end, 10);
    return !*end && errno == 0 && s >= 1 && s <= 3600 ? (int)s : 0;
}

int launch_progress_seconds(void)
{
    int s = progress_seconds_given();
    return s > 0 ? s : 30;
}

/* A bad AUGUR_PROGRESS_SECONDS said on stderr.  Called by launch_tool and
 * launch_print_command, the one of them a command calls once, and not by
 * launch_progress_seconds, which a command may call more than once. */
static void warn_bad_progress_seconds(void)
{
    if (progress_seconds_given() == 0)
        fprintf(stderr, "augur: AUGUR_PROGRESS_SECONDS='%s' is not a whole number of seconds from 1 to 3600; "
                        "using %d\n", getenv("AUGUR_PROGRESS_SECONDS"), launch_progress_seconds());
}

/* See launch.h. */
int launch_print_command(FILE *out, const launch_request *rq, const char *tool_dir)
{
    valgrind_opts v;
    char **argv = valgrind_argv(rq, &v);
    if (!argv)
        return -1;
    warn_bad_progress_seconds();
    if (omp_passive_wait())
        fputs("OMP_WAIT_POLICY=passive ", out);
    if (rq->preload) {
        fputs("LD_PRELOAD=", out);
        report_shell_word(rq->preload, out);
        fputc(' ', out);
    }
    fputs("VALGRIND_LIB=", out);
    report_shell_word(tool_dir, out);
    for (char **w = argv; *w; w++) {
        fputc(' ', out);
        report_shell_word(*w, out);
    }
    fputc('\n', out);
    free(argv);
    return 0;
}

/* Calls fn(path, ctx) for each valgrind.*.log in dir. */
static void for_each_log(const char *dir, void (*fn)(const char *path, void *ctx), void *ctx)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, "valgrind.", 9) == 0) {
            char path[PATH_MAX];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            fn(path, ctx);
        }
    }
    closedir(d);
}

/* The progress the tools wrote to the logs in rq->out_dir: the latest
 * line holding rq's progress marker in each log (one per process), their
 * leading counts summed, followed by the rest of such a line ("12 M
 * instructions" over a parent and its children; memspy's one process:
 * its line). */
typedef struct last_progress {
    const char *marker;
    unsigned long long sum;
    char rest[256];
    int found;
} last_progress;

static void find_progress(const char *path, void *ctx)
{
    last_progress *p = ctx;
    FILE *f = fopen(path, "r");
    char line[512];
    const char *latest = NULL;
    char keep[512];
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, p->marker);
        if (at) {
            snprintf(keep, sizeof keep, "%s", at + strlen(p->marker));
            latest = keep;
        }
    }
    if (f)
        fclose(f);
    if (!latest)
        return;
    char *end;
    p->sum += strtoull(latest, &end, 10);
    snprintf(p->rest, sizeof p->rest, "%.*s", (int)strcspn(end, "\n"), end);
    p->found = 1;
}

/* The "still running" line (supervise_wait's tick, ctx the request): how
 * long, and the tools' progress. */
static void say_still_running(void *ctx, long seconds)
{
    const launch_request *rq = ctx;
    last_progress p = {.marker = rq->progress_marker};
    if (rq->progress_marker)
        for_each_log(rq->out_dir, find_progress, &p);
    if (p.found)
        fprintf(stderr, "augur: still %s (%ld s so far; %llu%s)\n", rq->activity, seconds, p.sum, p.rest);
    else
        fprintf(stderr, "augur: still %s (%ld s so far)\n", rq->activity, seconds);
}

int launch_tool(const launch_request *rq, const char *tool_dir, launch_result *res,
                     char *err, size_t errlen)
{
    supervisor s;
    warn_bad_progress_seconds();
    supervise_begin(&s);
    pid_t pid = fork();
    if (pid != 0 && rq->forked)
        rq->forked(rq->forked_ctx);
    if (pid < 0) {
        snprintf(err, errlen, "cannot start a process: %s", strerror(errno));
        supervise_end(&s);
        return -1;
    }
    if (pid == 0) {
        if (supervise_child(&s) != 0)
            _exit(125); /* augur is gone: nothing would read the run */
        for (int i = 0; i < rq->npass_fds; i++)
            fcntl(rq->pass_fds[i], F_SETFD, 0);
        if (rq->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
            fprintf(stderr, "augur: cannot send the program's output to standard error: %s\n", strerror(errno));
            _exit(125);
        }
        exec_valgrind(rq, tool_dir);
    }
    /* On a terminal, a line every so often, so a long run under Valgrind does not look hung. */
    int status = supervise_wait(&s, pid, isatty(STDERR_FILENO) ? launch_progress_seconds() : 0, say_still_running,
                                (void *)rq);
    supervise_end(&s);
    res->pid = (int)pid;
    res->exited = WIFEXITED(status);
    res->exit_code = res->exited ? WEXITSTATUS(status) : 0;
    res->term_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return 0;
}

typedef struct undecodable {
    char bytes[160];
    char where[200];
} undecodable;

static void find_undecodable(const char *path, void *ctx)
{
    undecodable *u = ctx;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    const char *bytes_tag = "unhandled instruction bytes: ";
    const char *where_tag = "Unrecognised instruction at address ";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *p;
        if (!u->bytes[0] && (p = strstr(line, bytes_tag)))
            snprintf(u->bytes, sizeof u->bytes, "%s", p + strlen(bytes_tag));
        if (!u->where[0] && (p = strstr(line, where_tag)))
            snprintf(u->where, sizeof u->where, "%s", p + strlen(where_tag));
    }
    fclose(f);
}

int diagnose_undecodable(const char *out_dir, char *err, size_t errlen)
{
    undecodable u = {{0}, {0}};
    for_each_log(out_dir, find_undecodable, &u);
    if (!u.bytes[0])
        return 0;
    if (strncmp(u.bytes, "0x62", 4) == 0)
        snprintf(err, errlen,
                 "the program uses AVX-512 instructions (bytes %s at %s), which Valgrind 3.19 cannot run.\n"
                 "  Rebuild it for x86-64-v3 or lower, e.g. -march=x86-64-v3 instead of -march=native, and collect again.",
                 u.bytes, u.where[0] ? u.where : "an unknown address");
    else
        snprintf(err, errlen,
                 "Valgrind could not decode an instruction of the program (bytes %s at %s).\n"
                 "  Rebuild it for an older target (-march=x86-64-v3 or lower) and collect again.",
                 u.bytes, u.where[0] ? u.where : "an unknown address");
    return 1;
}

typedef struct tail_buf {
    char *buf;
    size_t len;
} tail_buf;

/* Whether a log line explains a failure: lines without Valgrind's
 * "==PID== " prefix, Valgrind's and augur's messages, and (*refusing set
 * by a "==PID== Bad option" line, a tool's refusal) every line from there
 * on: the reason follows it.  The banner and summary are left out. */
static int worth_showing(const char *line, int *refusing)
{
    const char *body = strstr(line, "== ");
    if (strncmp(line, "==", 2) != 0 || !body)
        return 1;
    *refusing |= strncmp(body + 3, "Bad option", 10) == 0;
    return *refusing || strstr(line, "valgrind:") || strstr(line, "augur:");
}

/* for_each_log's callback: append the last 8 lines worth showing of the
 * log at path to the tail_buf ctx, indented, one per line. */
static void append_tail(const char *path, void *ctx)
{
    tail_buf *t = ctx;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[512];
    char keep[8][512];
    int n = 0, refusing = 0;
    while (fgets(line, sizeof line, f))
        if (worth_showing(line, &refusing))
            snprintf(keep[n++ % 8], sizeof keep[0], "%s", line);
    fclose(f);
    for (int i = n > 8 ? n - 8 : 0; i < n; i++) {
        size_t used = strlen(t->buf), len = strlen(keep[i % 8]);
        const char *end = len && keep[i % 8][len - 1] == '\n' ? "" : "\n"; /* a log's last line may lack one */
        snprintf(t->buf + used, t->len - used, "  %s%s", keep[i % 8], end);
    }
}

void valgrind_log_tail(const char *out_dir, char *buf, size_t buflen)
{
    buf[0] = '\0';
    tail_buf t = {buf, buflen};
    for_each_log(out_dir, append_tail, &t);
}
