/* collect_builds.c — `augur collect` and the builds of a program whose
 * problem size is compiled in (collect_builds.h): the program about to run
 * compared with the programs of the runs in the database by their
 * compilation units (builds.h), and the structure of a run's build stored
 * while its file is still the build that ran. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "binary/buildid.h"
#include "cli/collect_builds.h"
#include "cli/structure_store.h"
#include "modelset/builds.h"
#include "report/report.h"

/* The runs of one earlier build and its compilation units. */
typedef struct earlier {
    const char *path, *build_id; /* borrowed from the run rows */
    int64_t *runs;
    size_t nruns;
    st_unit *units;
    size_t nunits;
    int known; /* its units could be read */
} earlier;

/* The compilation units of an earlier build: stored with its structure,
 * else read from its file while it is still that build; e->known says
 * whether either worked. */
static int units_of(db *d, earlier *e, char *err, size_t errlen)
{
    int64_t id;
    int rc = *e->build_id ? db_binary_of_build(d, e->build_id, &id, err, errlen) : DB_NOT_FOUND;
    if (rc < 0)
        return -1;
    if (rc == 0) {
        db_binary b;
        if (db_get_binary(d, id, &b, err, errlen) != 0 ||
            db_binary_units(d, id, &e->units, &e->nunits, err, errlen) != 0) {
            db_binary_free(&b);
            return -1;
        }
        e->known = e->nunits > 0 || !b.has_dwarf; /* none with DWARF: stored before schema 9 */
        db_binary_free(&b);
        if (e->known)
            return 0;
    }
    if (!elf_is_build(e->path, e->build_id))
        return 0;
    e->known = 1;
    return st_read_units(e->path, &e->units, &e->nunits, err, errlen);
}

/* The runs' builds other than (path, build_id), with their runs. */
static earlier *earlier_builds(const db_run_program *p, size_t n, const char *path, const char *build_id,
                               size_t *nout)
{
    earlier *e = calloc(n + 1, sizeof *e);
    *nout = 0;
    for (size_t i = 0; e && i < n; i++) {
        if (!p[i].path || (*build_id ? !strcmp(p[i].build_id, build_id) : !strcmp(p[i].path, path)))
            continue; /* unknown, or this very build (maybe a copy at another path) */
        size_t k = 0;
        while (k < *nout && (strcmp(e[k].path, p[i].path) || strcmp(e[k].build_id, p[i].build_id)))
            k++;
        if (k == *nout)
            e[(*nout)++] = (earlier){.path = p[i].path, .build_id = p[i].build_id,
                                     .runs = malloc((n + 1) * sizeof *e[k].runs)};
        if (!e[k].runs)
            return e; /* out of memory: the caller sees a build without runs */
        e[k].runs[e[k].nruns++] = p[i].run_id;
    }
    return e;
}

static void earlier_free(earlier *e, size_t n)
{
    for (size_t i = 0; e && i < n; i++) {
        free(e[i].runs);
        st_units_free(e[i].units, e[i].nunits);
    }
    free(e);
}

/* "run 3" or "runs 1-4, 6": ids ascending. */
static void runs_text(const int64_t *ids, size_t n, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "run%s ", n == 1 ? "" : "s");
    for (size_t i = 0; i < n && used < len;) {
        size_t j = i;
        while (j + 1 < n && ids[j + 1] == ids[j] + 1)
            j++;
        int w = j > i ? snprintf(buf + used, len - used, "%s%lld-%lld", i ? ", " : "", (long long)ids[i],
                                 (long long)ids[j])
                      : snprintf(buf + used, len - used, "%s%lld", i ? ", " : "", (long long)ids[i]);
        used += w > 0 ? (size_t)w : 0;
        i = j + 1;
    }
}

/* What an earlier build is to the program about to run. */
typedef struct verdict {
    int related;  /* the same path, or the same source files */
    int known;    /* its sources could be compared */
    build_difference diff;
} verdict;

/* Compare the program (canonical path `real`, units u[0..nu)) with an
 * earlier build. */
static verdict judge(const char *real, const st_unit *u, size_t nu, const earlier *e)
{
    verdict v = {.known = e->known, .diff = {.verdict = BUILD_NO_DEBUG}};
    if (e->known)
        build_compare_units(u, nu, e->units, e->nunits, &v.diff);
    v.related = !strcmp(real, e->path) ||
                (e->known && v.diff.verdict != BUILD_OTHER_SOURCES && v.diff.verdict != BUILD_NO_DEBUG);
    return v;
}

static int same_verdict(const verdict *a, const verdict *b)
{
    return a->known == b->known && a->diff.verdict == b->diff.verdict && a->diff.a_empty == b->diff.a_empty &&
           !strcmp(a->diff.a, b->diff.a) && !strcmp(a->diff.b, b->diff.b) && !strcmp(a->diff.file, b->diff.file);
}

static int by_id(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* The line of the notice for the related builds with verdict v (their runs
 * in `runs`, their files' names in `names`); -1 with err for other sources
 * at the same path, which is refused. */
static int say(const char *program, const verdict *v, const char *runs, const char *names, char *notice,
               size_t nlen, char *err, size_t errlen)
{
    char line[2048];
    const build_difference *d = &v->diff;
    if (!v->known)
        snprintf(line, sizeof line,
                 "%s is another build of the program of %s (%s), whose sources cannot be compared: they were not "
                 "stored (an older augur collected them) and the file was replaced; augur model cannot model the "
                 "builds together",
                 program, runs, names);
    else if (d->verdict == BUILD_SAME)
        snprintf(line, sizeof line,
                 "%s is another build of the program of %s (%s): the same sources and flags (-D/-U aside); augur "
                 "model will model their runs together, matching the builds by source location (function, file, "
                 "line, loop)",
                 program, runs, names);
    else if (d->verdict == BUILD_OTHER_FLAGS)
        snprintf(line, sizeof line,
                 "%s is another build of the sources of %s (%s), compiled with other flags (%s here, %s there, "
                 "compiling %s): augur model models builds together only when they differ in -D/-U alone; give it "
                 "the runs of one build with --runs",
                 program, runs, names, d->a, d->b, d->file);
    else if (d->verdict == BUILD_NO_DEBUG)
        snprintf(line, sizeof line,
                 "%s is another build of the program of %s (%s), and %s no debug information: augur model matches "
                 "builds by source location, which needs every build compiled with -g",
                 program, runs, names, d->a_empty ? "it has" : "that build has");
    else {
        snprintf(err, errlen,
                 "%s is built from other sources than the program at that path of %s (source files %s only here, "
                 "%s only there): a database holds one program per path; collect into another database (--db), or "
                 "give this program another path; nothing was run",
                 program, runs, d->a, d->b);
        return -1;
    }
    size_t used = strlen(notice);
    snprintf(notice + used, nlen - used, "%s%s", used ? "\n" : "", line);
    return 0;
}

/* One line of the notice per verdict, over the related builds with it. */
static int say_all(const char *program, const verdict *v, const earlier *e, size_t n, char *notice, size_t nlen,
                   char *err, size_t errlen)
{
    int64_t *ids = NULL;
    unsigned char *done = calloc(n + 1, 1);
    size_t total = 0;
    for (size_t k = 0; k < n; k++)
        total += e[k].nruns;
    ids = malloc((total + 1) * sizeof *ids);
    int rc = ids && done ? 0 : (snprintf(err, errlen, "out of memory"), -1);
    for (size_t k = 0; rc == 0 && k < n; k++) {
        if (!v[k].related || done[k])
            continue;
        size_t nids = 0;
        char names[512] = "", runs[512];
        for (size_t j = k; j < n; j++) {
            if (!v[j].related || done[j] || !same_verdict(&v[k], &v[j]))
                continue;
            done[j] = 1;
            memcpy(ids + nids, e[j].runs, e[j].nruns * sizeof *ids);
            nids += e[j].nruns;
            int named = 0; /* builds replaced at one path share a name */
            for (size_t i = k; i < j; i++)
                named |= done[i] && v[i].related && same_verdict(&v[k], &v[i]) && !strcmp(e[i].path, e[j].path);
            size_t used = strlen(names);
            if (!named)
                snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "", report_base_name(e[j].path));
        }
        qsort(ids, nids, sizeof *ids, by_id);
        runs_text(ids, nids, runs, sizeof runs);
        rc = say(program, &v[k], runs, names, notice, nlen, err, errlen);
    }
    free(ids), free(done);
    return rc;
}

int collect_check_build(const char *db_path, const char *program, char *notice, size_t nlen, char *err,
                        size_t errlen)
{
    notice[0] = '\0';
    char real[PATH_MAX], build_id[BUILD_ID_HEX_MAX];
    if (access(db_path, F_OK) != 0 || !realpath(program, real))
        return 0; /* no runs yet; a program that cannot be resolved is launch's to report */
    elf_build_id(real, build_id, sizeof build_id);
    db *d;
    if (db_open(db_path, 0, &d, err, errlen) != 0)
        return -1;
    db_run_program *p = NULL;
    size_t np = 0, ne = 0, nu = 0;
    earlier *e = NULL;
    st_unit *u = NULL;
    verdict *v = NULL;
    int rc = db_run_programs(d, &p, &np, err, errlen);
    if (rc == 0 && (!(e = earlier_builds(p, np, real, build_id, &ne)) || !(v = calloc(ne + 1, sizeof *v))))
        rc = (snprintf(err, errlen, "out of memory"), -1);
    if (rc == 0 && ne)
        rc = st_read_units(real, &u, &nu, err, errlen);
    for (size_t k = 0; rc == 0 && k < ne; k++)
        if ((rc = units_of(d, &e[k], err, errlen)) == 0)
            v[k] = judge(real, u, nu, &e[k]);
    if (rc == 0)
        rc = say_all(program, v, e, ne, notice, nlen, err, errlen);
    free(v);
    st_units_free(u, nu);
    earlier_free(e, ne);
    db_run_programs_free(p, np);
    db_close(d);
    return rc;
}

void collect_store_structure(const char *db_path, int64_t run_id)
{
    char err[1024];
    db *d;
    if (db_open(db_path, 0, &d, err, sizeof err) != 0) {
        fprintf(stderr, "augur collect: warning: the program's structure was not stored: %s\n", err);
        return;
    }
    db_run_module *m = NULL;
    size_t n = 0;
    int rc = db_run_modules(d, run_id, &m, &n, err, sizeof err);
    int64_t id;
    if (rc == 0 && n && m[0].is_program && elf_is_build(m[0].path, m[0].build_id) &&
        (rc = db_binary_of_build(d, m[0].build_id, &id, err, sizeof err)) == DB_NOT_FOUND) {
        int analysed;
        rc = structure_ensure(d, m[0].path, NULL, &id, &analysed, NULL, err, sizeof err);
    }
    if (rc != 0)
        fprintf(stderr, "augur collect: warning: the structure of the program was not stored (%s): augur model "
                        "analyses it later if the file is still this build\n", err);
    db_run_modules_free(m, n);
    db_close(d);
}
