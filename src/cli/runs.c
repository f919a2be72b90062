/* runs.c — run parameters, process profile sets, storing a run; see runs.h. */
#define _GNU_SOURCE
#include "cli/runs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/db.h"
#include "report/report.h"
#include "util/array.h"
#include "util/parse.h"
#include "util/rawtext.h"

static int is_identifier(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int ok = c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return 0;
    }
    return len > 0;
}

int run_params_add(run_params *p, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg) {
        snprintf(err, errlen, "--param '%s' is not NAME=VALUE (e.g. --param N=1000)", arg);
        return -1;
    }
    size_t namelen = (size_t)(eq - arg);
    if (!is_identifier(arg, namelen)) {
        snprintf(err, errlen, "--param '%s': the name must be letters, digits and _, not starting with a digit", arg);
        return -1;
    }
    double v;
    if (parse_double(eq + 1, &v) != 0) { /* decimal: strtod took 0x10 and blanks */
        snprintf(err, errlen, "--param '%s': the value must be a decimal number (e.g. N=1000 or eps=1e-6)", arg);
        return -1;
    }
    for (int i = 0; i < p->n; i++) {
        if (strlen(p->names[i]) == namelen && !strncmp(p->names[i], arg, namelen)) {
            snprintf(err, errlen, "--param %.*s is given twice", (int)namelen, arg);
            return -1;
        }
    }
    if (p->n == MAX_PARAMS) {
        snprintf(err, errlen, "more than %d --param options", MAX_PARAMS);
        return -1;
    }
    p->names[p->n] = strndup(arg, namelen);
    p->values[p->n] = strdup(eq + 1);
    p->n++;
    return 0;
}

void run_params_free(run_params *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->names[i]);
        free(p->values[i]);
    }
    p->n = 0;
}

/* Append interval profile p (read from path) to s->intervals, which then
 * owns it; -1 + err when memory runs out. */
static int append_interval(process_set *s, profile *p, const char *path, char *err, size_t errlen)
{
    profile **a = array_grow(s->intervals, s->nintervals, &s->cap_intervals, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory reading %s", path);
        return -1;
    }
    s->intervals = a;
    s->intervals[s->nintervals++] = p;
    return 0;
}

/* Append process profile p (read from path) to s->procs, which then owns
 * it; -1 + err when the set is full or the run's sums would pass 2^63 - 1. */
static int append_process(process_set *s, profile *p, const char *path, char *err, size_t errlen)
{
    if (s->n == MAX_PROCESSES) {
        snprintf(err, errlen, "more than %d processes in one run", MAX_PROCESSES);
        return -1;
    }
    uint64_t execs, reads, writes;
    if (__builtin_add_overflow(s->execs, p->total_execs, &execs) || execs > RAWTEXT_MAX_COUNT ||
        __builtin_add_overflow(s->reads, p->total_reads, &reads) || reads > RAWTEXT_MAX_COUNT ||
        __builtin_add_overflow(s->writes, p->total_writes, &writes) || writes > RAWTEXT_MAX_COUNT) {
        snprintf(err, errlen, "%s: with it the run's processes count more than %llu (2^63 - 1) instructions, reads "
                 "or writes in all, the most a run may have: a profile is damaged (collect the run again)",
                 path, (unsigned long long)RAWTEXT_MAX_COUNT);
        return -1;
    }
    s->execs = execs, s->reads = reads, s->writes = writes;
    s->procs[s->n++] = p;
    return 0;
}

/* What a profile file must be: either (import), or as its name says (collect). */
enum profile_kind { ANY_PROFILE, PROCESS_PROFILE, INTERVAL_PROFILE };

/* Read and verify the profile at path and append it to the processes or
 * the intervals, as its interval line says; one named as the other kind
 * is refused.  0 or -1 + err. */
static int add_profile(process_set *s, const char *path, enum profile_kind want, char *err, size_t errlen)
{
    profile *p = calloc(1, sizeof *p);
    if (!p || profile_read(path, p, err, errlen) != 0) {
        free(p);
        return -1;
    }
    int rc;
    if (want == INTERVAL_PROFILE && !p->interval.is_interval)
        rc = -1, snprintf(err, errlen, "%s is named as an interval's profile but has no interval line: it is damaged",
                          path);
    else if (want == PROCESS_PROFILE && p->interval.is_interval)
        rc = -1, snprintf(err, errlen, "%s is named as a process's profile but is an interval's (%s %llu): it is "
                          "damaged", path, "index", (unsigned long long)p->interval.index);
    else
        rc = (p->interval.is_interval ? append_interval : append_process)(s, p, path, err, errlen);
    if (rc != 0) {
        profile_free(p);
        free(p);
    }
    return rc;
}

int process_set_add_file(process_set *s, const char *path, char *err, size_t errlen)
{
    return add_profile(s, path, ANY_PROFILE, err, errlen);
}

int process_set_interval_by(process_set *s, const char *by, char *err, size_t errlen)
{
    const profile *summed = NULL;
    for (size_t i = 0; i < s->nintervals && !summed; i++)
        if (s->intervals[i]->interval.count > 1)
            summed = s->intervals[i];
    if (summed && by && !strcmp(by, "index")) {
        char phase[256];
        db_phase_key(summed, 1, phase, sizeof phase);
        snprintf(err, errlen, "--interval-by index: the profile of process %lld's interval %llu sums %llu intervals "
                 "(those closed at %s), as only --interval-by callsite writes them: give --interval-by callsite, "
                 "or leave the option out", (long long)summed->pid, (unsigned long long)summed->interval.index,
                 (unsigned long long)summed->interval.count, phase);
        return -1;
    }
    s->by_callsite = by ? !strcmp(by, "callsite") : summed != NULL;
    return 0;
}

/* Is `name` a profile's file name, augur.*.prof? */
static int is_profile_name(const char *name)
{
    size_t len = strlen(name);
    return strncmp(name, "augur.", 6) == 0 && len > 11 && strcmp(name + len - 5, ".prof") == 0;
}

static void move_main_first(process_set *s, int main_pid)
{
    for (size_t i = 0; i < s->n; i++) {
        if (s->procs[i]->pid == main_pid) {
            profile *tmp = s->procs[0];
            s->procs[0] = s->procs[i];
            s->procs[i] = tmp;
            return;
        }
    }
}

/* Is `name` a profile of the run marked `token`: 1 for a process's,
 * augur.<pid>.<token>.prof, 2 for an interval's, augur.<pid>.<token>.i<K>.prof,
 * else 0. */
static int is_run_profile_name(const char *name, const char *token)
{
    if (strncmp(name, "augur.", 6) != 0)
        return 0;
    const char *p = name + 6;
    size_t digits = strspn(p, "0123456789"), len = strlen(token);
    if (digits == 0 || p[digits] != '.')
        return 0;
    p += digits + 1;
    if (strncmp(p, token, len) != 0)
        return 0;
    p += len;
    if (!strcmp(p, ".prof"))
        return 1;
    digits = strncmp(p, ".i", 2) == 0 ? strspn(p + 2, "0123456789") : 0;
    return digits > 0 && !strcmp(p + 2 + digits, ".prof") ? 2 : 0;
}

/* Whether dir/name is a profile the run marked `token` wrote: its name,
 * and a regular file of the current user's.  A profile that is not is
 * named on stderr (someone else's, or planted in the folder). */
static int written_by_run(const char *dir, const char *name, const char *token)
{
    char path[PATH_MAX];
    struct stat st;
    if (!is_profile_name(name))
        return 0; /* Valgrind's logs, vgdb's pipes, a profile being written */
    snprintf(path, sizeof path, "%s/%s", dir, name);
    const char *why = !is_run_profile_name(name, token)                 ? "not named as this run's"
                      : lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ? "not a regular file"
                      : st.st_uid != geteuid()                        ? "another user's"
                                                                      : NULL;
    if (why)
        fprintf(stderr, "augur: left out %s: %s, so not a profile this run wrote\n", path, why);
    return !why;
}

/* qsort order of interval profiles: by process, then interval. */
static int by_process_then_index(const void *a, const void *b)
{
    const profile *x = *(profile *const *)a, *y = *(profile *const *)b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return x->interval.index < y->interval.index ? -1 : x->interval.index > y->interval.index;
}

int process_set_read_dir(process_set *s, const char *dir, int main_pid, const char *token, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "cannot read %s: %s", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!written_by_run(dir, e->d_name, token))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rc = add_profile(s, path, is_run_profile_name(e->d_name, token) == 2 ? INTERVAL_PROFILE : PROCESS_PROFILE,
                         err, errlen);
    }
    closedir(d);
    move_main_first(s, main_pid);
    if (rc == 0 && (s->n == 0 || s->procs[0]->pid != main_pid)) {
        snprintf(err, errlen, "the collector wrote no profile for the program");
        rc = -1;
    }
    if (rc != 0)
        process_set_free(s);
    return rc;
}

void process_set_free(process_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        profile_free(s->procs[i]);
        free(s->procs[i]);
    }
    s->n = 0;
    s->execs = s->reads = s->writes = 0;
    for (size_t i = 0; i < s->nintervals; i++) {
        profile_free(s->intervals[i]);
        free(s->intervals[i]);
    }
    free(s->intervals);
    s->intervals = NULL;
    s->nintervals = s->cap_intervals = 0;
}

void exit_detail(int code, char *buf, size_t len)
{
    if (code == 0)
        snprintf(buf, len, "%s", "");
    else
        snprintf(buf, len, "exited with status %d", code);
}

void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static void print_summary(const char *db_path, int64_t run_id, const process_set *s, const char *status,
                          const char *detail)
{
    uint64_t instrs = s->execs, accesses = s->reads + s->writes; /* each < 2^63: no overflow */
    char rank[64] = "";
    for (size_t i = 0; i < s->n && !rank[0]; i++)
        if (s->procs[i]->mpi.has_mpi) /* the run is the launch's; what is stored here is one rank */
            snprintf(rank, sizeof rank, "MPI rank %llu of %llu, ", (unsigned long long)s->procs[i]->mpi.rank,
                     (unsigned long long)s->procs[i]->mpi.size);
    fprintf(stderr,
            "augur: %srun %lld stored in %s (%s%s%s): %zu process%s, %llu instructions, %llu memory accesses\n",
            rank, (long long)run_id, db_path, status, *detail ? ": " : "", detail, s->n, s->n == 1 ? "" : "es",
            (unsigned long long)instrs, (unsigned long long)accesses);
    fputs("augur: see it with: augur report --db ", stderr);
    report_shell_word(db_path, stderr); /* a path with spaces or quotes still pastes into a shell */
    fprintf(stderr, " --run %lld\n", (long long)run_id);
}

int store_run(const char *db_path, char **argv, const run_params *params, const run_outcome *outcome,
              process_set *s, const char *command_name, int64_t *run_id_out)
{
    char err[1024], finished[32], host[256] = "", cwd[PATH_MAX] = "";
    iso_now(finished, sizeof finished);
    gethostname(host, sizeof host - 1);
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = '\0';
    int argc = 0;
    while (argv[argc])
        argc++;
    run_info ri = {
        .argc = argc,
        .argv = argv,
        .nparams = params->n,
        .param_names = (char **)params->names,
        .param_values = (char **)params->values,
        .started = outcome->started,
        .finished = finished,
        .host = host,
        .cwd = cwd,
        .status = outcome->status,
        .status_detail = outcome->detail,
        .exit_code = outcome->exit_code,
        .intervals = s->intervals,
        .nintervals = s->nintervals,
        .by_callsite = s->by_callsite,
        .mpi_launch = s->mpi_launch,
    };
    if (s->nintervals) /* each process's in the order of their index, as db_import_run wants them */
        qsort(s->intervals, s->nintervals, sizeof *s->intervals, by_process_then_index);
    db *d;
    int64_t run_id;
    int rc = db_open(db_path, 1, &d, err, sizeof err);
    if (rc == 0) {
        rc = db_import_run(d, &ri, s->procs, s->n, &run_id, err, sizeof err);
        db_close(d);
    }
    if (rc != 0) {
        fprintf(stderr, "augur %s: %s\n", command_name, err);
        return EXIT_AUGUR_FAILED;
    }
    print_summary(db_path, run_id, s, ri.status, ri.status_detail);
    if (run_id_out)
        *run_id_out = run_id;
    return 0;
}
