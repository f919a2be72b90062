/* structure_store.c — the static structure of a binary, from the database
 * when it was analysed before (same build-id), else analysed now and
 * stored, with the indirect-jump targets that earlier runs observed. */
#include "cli/structure_store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binary/buildid.h"
#include "report/report.h"
#include "structure/structure.h"

/* A terminal's progress line while a binary is analysed and stored:
 * "augur: analysing LABEL: 1216/3708 functions", rewritten in place, then
 * "storing", ended by a newline once stored. */
typedef struct progress_line {
    const char *label; /* "libc.so.6 (module 3 of 4)", or the path */
    const char *phase; /* "analysing", "storing" */
} progress_line;

static void show_progress(void *ctx, size_t done, size_t total)
{
    const progress_line *p = ctx;
    fprintf(stderr, "\r\033[Kaugur: %s %s: %zu/%zu functions", p->phase, p->label, done, total); /* \033[K: a shorter line leaves no tail */
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int structure_ensure(db *d, const char *path, const char *label, int64_t *binary_id, int *analysed,
                     structure_timing *timing, char *err, size_t errlen)
{
    structure_timing local;
    if (!timing)
        timing = &local;
    *timing = (structure_timing){0, 0};
    /* Stored under its canonical path, the one runs' modules have (absolute,
     * symbolic links resolved): `./mm`, `bin/mm` and a link to it are one
     * binary, and a run's module finds it by path as by build-id. */
    char real[PATH_MAX];
    if (realpath(path, real))
        path = real;
    char build_id[BUILD_ID_HEX_MAX], key[4200];
    *analysed = 0;
    elf_build_id(path, build_id, sizeof build_id);
    db_binary_key(path, build_id, key, sizeof key);
    int rc = db_find_binary(d, key, binary_id, err, errlen);
    if (rc != DB_NOT_FOUND)
        return rc;
    st_jump_target *seen;
    size_t nseen;
    if (db_indirect_targets(d, build_id, &seen, &nseen, err, errlen) != 0)
        return -1;
    int tty = isatty(STDERR_FILENO);
    progress_line line = {label ? label : path, "analysing"};
    if (tty) /* before the symbols and DWARF are read, which take a while for a large library */
        fprintf(stderr, "augur: analysing %s...", line.label);
    st_options opt = {.extra = seen, .nextra = nseen, .progress = tty ? show_progress : NULL, .progress_ctx = &line};
    st_module *m;
    double t0 = now_seconds();
    rc = st_analyse(path, &opt, &m, err, errlen);
    free(seen);
    if (rc != 0) {
        if (tty)
            fputc('\n', stderr);
        return -1;
    }
    double t1 = now_seconds();
    line.phase = "storing";
    rc = db_store_structure(d, key, m, binary_id, opt.progress, &line, err, errlen);
    if (tty)
        fputc('\n', stderr);
    st_module_free(m);
    timing->analyse = t1 - t0;
    timing->store = now_seconds() - t1;
    *analysed = rc == 0;
    return rc;
}

int structure_tree_if_current(db *d, const char *path, const char *build_id, const char *label, scope_tree *t,
                              char *err, size_t errlen)
{
    if (!elf_is_build(path, build_id))
        return 1;
    int64_t id;
    int analysed;
    if (structure_ensure(d, path, label, &id, &analysed, NULL, err, errlen) != 0 ||
        scope_tree_load(d, id, t, err, errlen) != 0)
        return -1;
    /* The build may have been analysed at another path first (a copy, or a
     * database whose structure was stored as typed): the tree is of the
     * module at `path`, and says so. */
    char *own = strdup(path);
    if (!own) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    free(t->binary.path);
    t->binary.path = own;
    return 0;
}

int structure_tree_of_build(db *d, const char *path, const char *build_id, const char *label, scope_tree *t,
                            char *err, size_t errlen)
{
    int rc = structure_tree_if_current(d, path, build_id, label, t, err, errlen);
    if (rc != 1 || !*build_id)
        return rc;
    int64_t id;
    rc = db_binary_of_build(d, build_id, &id, err, errlen);
    if (rc != 0)
        return rc == DB_NOT_FOUND ? 1 : -1;
    if (scope_tree_load(d, id, t, err, errlen) != 0)
        return -1;
    char *own = strdup(path); /* the tree is of the module at `path`, as above */
    if (!own) {
        scope_tree_free(t);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    free(t->binary.path);
    t->binary.path = own;
    return 0;
}
