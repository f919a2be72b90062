/* cmd_import.c — `augur import`: store raw profiles kept by
 * `augur collect --keep-profiles` (or copied from another machine) as a run,
 * the profiles of its intervals as the runs of its phases, as collect does.
 *
 * Every profile is read and verified before anything is written, so a
 * corrupt or truncated file leaves the database as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/runs.h"
#include "db/db.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: augur import [--db FILE] [--param NAME=VALUE]... [--interval-by index|callsite]\n"
            "                    PROFILE...\n\n"
            "Stores raw profiles (augur.<pid>.prof, docs/profile-format.md) as one run: the first\n"
            "process's PROFILE is the main process, the others its children.  The profiles of\n"
            "intervals (augur.<pid>.<mark>.i<N>.prof, augur collect --interval-functions) are stored\n"
            "as the run's interval runs, one per phase, as collect stores them.  The run's command is\n"
            "the main profile's executable and arguments; it is 'partial' if the main process did\n"
            "not exit normally.  Its start and finish times are the time of the import.  A file given\n"
            "twice, two profiles of one process, a process already in the database, or an interval's\n"
            "profile without its process's are refused (nothing is stored), so that no process is\n"
            "counted twice.\n\n"
            "options:\n"
            "  --db FILE            experiment database (default: $AUGUR_DB or ./augur.db)\n"
            "  --param NAME=VALUE   a numeric run parameter; repeat for more\n"
            "  --interval-by index|callsite  how the intervals were collected, which names their\n"
            "                       phases (default: callsite when a profile sums several intervals,\n"
            "                       as only callsite writes, else index; give callsite for a run\n"
            "                       collected so whose call sites each closed one interval)\n"
            "  -h, --help           this text\n\n"
            "example:\n"
            "  augur collect --keep-profiles prof/ -- ./app 100\n"
            "  augur import --db other.db --param N=100 prof/augur-collect-*/augur.*.prof\n");
}

/* argv of the run: the main profile's executable and arguments. */
static char **command_of(const profile *p)
{
    char **argv = calloc((size_t)p->argc + 2, sizeof *argv);
    argv[0] = p->exe;
    for (int i = 0; i < p->argc; i++)
        argv[i + 1] = p->argv[i];
    return argv;
}

/* 0 when no file is named twice (by any spelling: same device and inode),
 * else -1 with a message naming it. */
static int check_repeated_files(char **files, int nfiles, char *err, size_t errlen)
{
    struct stat a, b;
    for (int i = 0; i < nfiles; i++) {
        if (stat(files[i], &a) != 0)
            continue; /* reading it names the problem */
        for (int j = i + 1; j < nfiles; j++)
            if (stat(files[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
                snprintf(err, errlen, "%s is given twice (as PROFILE %d and %d); give each profile once", files[i],
                         i + 1, j + 1);
                return -1;
            }
    }
    return 0;
}

/* 0 when no two profiles of the set are of one process (a copy of a file
 * under another name), else -1 with a message naming both. */
static int check_repeated_pids(const process_set *s, char **files, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = i + 1; j < s->n; j++)
            if (s->procs[i]->pid == s->procs[j]->pid) {
                snprintf(err, errlen, "%s and %s are profiles of the same process (pid %lld); give it once",
                         files[i], files[j], (long long)s->procs[i]->pid);
                return -1;
            }
    return 0;
}

/* 0 when no profile's process is in the database at db_path already (or
 * there is no database yet), else -1 with a message naming the run. */
static int check_not_stored(const char *db_path, const process_set *s, char **files, char *err, size_t errlen)
{
    db *d;
    int64_t run = 0;
    int rc = DB_NOT_FOUND;
    if (access(db_path, F_OK) != 0)
        return 0;
    if (db_open(db_path, 0, &d, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < s->n && rc == DB_NOT_FOUND; i++) {
        rc = db_process_stored(d, s->procs[i], &run, err, errlen);
        if (rc == 0)
            snprintf(err, errlen, "%s: its process (pid %lld) is already stored in %s as part of run %lld; "
                     "importing it again would count it twice (give another --db to keep a second copy)",
                     files[i], (long long)s->procs[i]->pid, db_path, (long long)run);
    }
    db_close(d);
    return rc == DB_NOT_FOUND ? 0 : -1;
}

/* 0 when every interval profile of s is of a process whose own profile
 * is in s, and no interval of a process is given twice (a copy under
 * another name), else -1 with a message naming it. */
static int check_intervals(const process_set *s, char *err, size_t errlen)
{
    for (size_t i = 0; i < s->nintervals; i++) {
        const profile *iv = s->intervals[i];
        size_t p = 0;
        while (p < s->n && s->procs[p]->pid != iv->pid)
            p++;
        if (p == s->n) {
            snprintf(err, errlen, "the profile of interval %llu of process %lld is given without the process's own "
                     "profile (augur.%lld.<mark>.prof, without .i<N>): give that too",
                     (unsigned long long)iv->interval.index, (long long)iv->pid, (long long)iv->pid);
            return -1;
        }
        for (size_t j = i + 1; j < s->nintervals; j++)
            if (s->intervals[j]->pid == iv->pid && s->intervals[j]->interval.index == iv->interval.index) {
                snprintf(err, errlen, "two profiles of interval %llu of process %lld are given (a copy of a file); "
                         "give it once", (unsigned long long)iv->interval.index, (long long)iv->pid);
                return -1;
            }
    }
    return 0;
}

/* Warn of each process that closed intervals none of whose profiles were
 * given: the run is stored without its phases. */
static void warn_missing_intervals(const process_set *s, char **files)
{
    for (size_t p = 0; p < s->n; p++) {
        const prof_regions *g = &s->procs[p]->regions;
        uint64_t closed = g->dumps;
        for (int k = 0; k < g->ninterval_fns; k++)
            closed += g->interval_fns[k].entries;
        size_t given = 0;
        for (size_t i = 0; i < s->nintervals; i++)
            given += s->intervals[i]->pid == s->procs[p]->pid;
        if (closed && !given)
            fprintf(stderr, "augur import: warning: %s: its process (pid %lld) closed %llu intervals, but no profile "
                    "of them (augur.%lld.<mark>.i<N>.prof) is given: the run is stored without its phases\n",
                    files[p], (long long)s->procs[p]->pid, (unsigned long long)closed, (long long)s->procs[p]->pid);
    }
}

/* Read and verify every file into s, then refuse repeated or stored
 * processes and intervals without their process; `by` is --interval-by
 * (NULL when not given).  proc_files[k] gets the file of s->procs[k].
 * Returns 0, or an exit status after printing why. */
static int read_profiles(const char *db_path, char **files, int nfiles, const char *by, process_set *s,
                         char **proc_files)
{
    char err[1024];
    if (check_repeated_files(files, nfiles, err, sizeof err) != 0) {
        fprintf(stderr, "augur import: %s\n  Nothing was stored.\n", err);
        return 2;
    }
    for (int i = 0; i < nfiles; i++) {
        size_t before = s->n;
        if (process_set_add_file(s, files[i], err, sizeof err) != 0) {
            fprintf(stderr, "augur import: %s\n  Nothing was stored.\n", err);
            return EXIT_AUGUR_FAILED;
        }
        if (s->n > before)
            proc_files[before] = files[i];
    }
    if (check_repeated_pids(s, proc_files, err, sizeof err) != 0 || check_intervals(s, err, sizeof err) != 0 ||
        check_not_stored(db_path, s, proc_files, err, sizeof err) != 0) {
        fprintf(stderr, "augur import: %s\n  Nothing was stored.\n", err);
        return EXIT_AUGUR_FAILED;
    }
    if (process_set_interval_by(s, by, err, sizeof err) != 0) {
        fprintf(stderr, "augur import: %s\n  Nothing was stored.\n", err);
        return 2;
    }
    warn_missing_intervals(s, proc_files);
    return 0;
}

static int import_files(const char *db_path, const run_params *params, const char *by, char **files, int nfiles)
{
    char started[32];
    iso_now(started, sizeof started);
    process_set *s = calloc(1, sizeof *s);
    char **proc_files = calloc((size_t)nfiles, sizeof *proc_files);
    if (!s || !proc_files) {
        fprintf(stderr, "augur import: out of memory\n  Nothing was stored.\n");
        free(s), free(proc_files);
        return EXIT_AUGUR_FAILED;
    }
    int bad = read_profiles(db_path, files, nfiles, by, s, proc_files);
    free(proc_files);
    if (bad) {
        process_set_free(s);
        free(s);
        return bad;
    }
    const profile *main_proc = s->procs[0];
    char detail[64];
    exit_detail(main_proc->exit_code, detail, sizeof detail);
    run_outcome outcome = {
        .started = started,
        .status = main_proc->has_exit ? "complete" : "partial",
        .detail = main_proc->has_exit ? detail : "the main process did not exit normally (no exit line)",
        .exit_code = main_proc->has_exit ? main_proc->exit_code : 0,
    };
    char **argv = command_of(main_proc);
    int rc = store_run(db_path, argv, params, &outcome, s, "import", NULL);
    free(argv);
    process_set_free(s);
    free(s);
    return rc;
}

/* Is `a` an option of import's that takes a value? */
static int takes_value(const char *a)
{
    return !strcmp(a, "--db") || !strcmp(a, "--param") || !strcmp(a, "--interval-by");
}

int cmd_import(int argc, char **argv)
{
    const char *db_path = default_db_path(), *by = NULL;
    run_params params = {0};
    char err[512];
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            run_params_free(&params);
            return 0;
        }
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!takes_value(a) || i + 1 >= argc) {
            fprintf(stderr, "augur import: %s '%s' (see augur import --help)\n",
                    takes_value(a) ? "missing value for" : "unknown option", a);
            run_params_free(&params);
            return 2;
        }
        const char *value = argv[++i];
        if (!strcmp(a, "--db")) {
            db_path = value;
        } else if (!strcmp(a, "--interval-by")) {
            by = value;
            if (strcmp(by, "index") && strcmp(by, "callsite")) {
                fprintf(stderr, "augur import: --interval-by '%s': give index or callsite\n", by);
                run_params_free(&params);
                return 2;
            }
        } else if (run_params_add(&params, value, err, sizeof err) != 0) {
            fprintf(stderr, "augur import: %s\n", err);
            run_params_free(&params);
            return 2;
        }
    }
    int rc;
    if (i >= argc) {
        fprintf(stderr, "augur import: no profiles given (augur import [--db FILE] PROFILE...)\n");
        rc = 2;
    } else {
        rc = import_files(db_path, &params, by, argv + i, argc - i);
    }
    run_params_free(&params);
    return rc;
}
