/* db_exe.c — which of a process's loaded modules is its executable.  A
 * profile's `exe` is the path the program was started by, as typed
 * (`./stencil`, relative to the directory it was started in); module paths
 * are absolute, the kernel's name of the mapped file (symbolic links
 * resolved; `augur collect` runs a bare name found in PATH by that path).
 * The two are joined by resolving `exe` against that directory,
 * never by guessing from names: no match means "unknown". */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "util/srcpath.h"

#define DOING "identify the program"

int db_exe_join(const char *exe, const char *cwd, char *out, size_t cap)
{
    if (!exe || !*exe || cap < 2 || (exe[0] != '/' && (!cwd || cwd[0] != '/')))
        return -1;
    /* The same normalization as source paths (util/srcpath.h): ".", empty
     * and "name/.." components folded. */
    return srcpath_join(out, cap, cwd, exe) == (size_t)-1 ? -1 : 0;
}

/* The index of the path equal to `p` in paths[0..n), or -1. */
static long find_path(const char *p, const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (paths[i] && !strcmp(paths[i], p))
            return (long)i;
    return -1;
}

long db_exe_module(const char *exe, const char *cwd, const char *const *paths, size_t n)
{
    char joined[PATH_MAX], real[PATH_MAX];
    if (db_exe_join(exe, cwd, joined, sizeof joined) != 0)
        return -1;
    long i = find_path(joined, paths, n);
    /* Through symbolic links (a file that still exists): the kernel's name. */
    if (i < 0 && realpath(joined, real))
        i = find_path(real, paths, n);
    return i;
}

int db_program_unknown(int64_t run_id, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "cannot tell which module run %lld ran as its program: the executable it was started by is none of the "
             "modules it loaded (a script, or a file moved since; `sqlite3 DB 'select exe from processes'` shows "
             "it): collect the compiled program itself, by its path",
             (long long)run_id);
    return -1;
}

/* The first process of a run: its id, stored executable module (0 when
 * NULL), exe and the run's directory (new strings). */
typedef struct first_process {
    int64_t id, exe_module;
    char *exe, *cwd;
} first_process;

static int fill_first_process(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    first_process *p = elem;
    p->id = sqlite3_column_int64(st, 0);
    p->exe_module = sqlite3_column_int64(st, 1); /* NULL reads as 0, never a module id */
    p->exe = db_column_strdup(st, 2);
    p->cwd = db_column_strdup(st, 3);
    return p->exe && p->cwd ? 0 : -1;
}

/* A module of a process: id and path (a new string). */
typedef struct process_module {
    int64_t id;
    char *path;
} process_module;

static int fill_process_module(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    process_module *m = elem;
    m->id = sqlite3_column_int64(st, 0);
    m->path = db_column_strdup(st, 1);
    return m->path ? 0 : -1;
}

/* The module of process `p` that db_exe_module resolves its exe to, into
 * *id (0 when none); for runs stored before exe_module_id existed. */
static int resolve_now(db *d, const first_process *p, int64_t *id, char *err, size_t errlen)
{
    static const char sql[] = "SELECT m.id, m.path FROM process_modules pm JOIN modules m ON m.id = pm.module_id"
                              " WHERE pm.process_id = ?1 ORDER BY m.id";
    process_module *m = NULL;
    size_t n = 0;
    db_row_array a = {(void **)&m, &n, 0, sizeof *m, fill_process_module, NULL};
    int rc = db_query_rows(d, sql, p->id, 0, &a, DOING, err, errlen);
    const char **paths = rc == 0 ? malloc((n + 1) * sizeof *paths) : NULL;
    if (rc == 0 && !paths) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING);
        rc = -1;
    }
    for (size_t i = 0; paths && i < n; i++)
        paths[i] = m[i].path;
    long exe = paths ? db_exe_module(p->exe, p->cwd, paths, n) : -1;
    *id = exe >= 0 ? m[exe].id : 0;
    for (size_t i = 0; m && i < n; i++)
        free(m[i].path);
    free(m), free(paths);
    return rc;
}

int db_run_program_id(db *d, int64_t run_id, int64_t *id, char *err, size_t errlen)
{
    static const char sql[] = "SELECT p.id, p.exe_module_id, p.exe, r.cwd FROM processes p"
                              " JOIN runs r ON r.id = p.run_id WHERE p.run_id = ?1 ORDER BY p.position LIMIT 1";
    first_process *p = NULL;
    size_t n = 0;
    db_row_array a = {(void **)&p, &n, 0, sizeof *p, fill_first_process, NULL};
    *id = 0;
    int rc = db_query_rows(d, sql, run_id, 0, &a, DOING, err, errlen);
    if (rc == 0 && n == 1)
        rc = p->exe_module ? (*id = p->exe_module, 0) : resolve_now(d, p, id, err, errlen);
    for (size_t i = 0; p && i < n; i++)
        free(p[i].exe), free(p[i].cwd);
    free(p);
    return rc;
}

static int fill_run_id(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    ((db_run_program *)elem)->run_id = sqlite3_column_int64(st, 0);
    return 0;
}

static int fill_module_names(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_run_program *p = elem;
    p->path = db_column_strdup(st, 0);
    p->build_id = db_column_strdup(st, 1);
    return p->path && p->build_id ? 0 : -1;
}

/* p's module id, path and build-id (left 0 and NULL when its program is
 * not identified). */
static int name_program(db *d, db_run_program *p, char *err, size_t errlen)
{
    if (db_run_program_id(d, p->run_id, &p->module_id, err, errlen) != 0)
        return -1;
    if (!p->module_id)
        return 0;
    db_run_program *row = NULL;
    size_t n = 0;
    db_row_array a = {(void **)&row, &n, 0, sizeof *row, fill_module_names, NULL};
    int rc = db_query_rows(d, "SELECT path, build_id FROM modules WHERE id = ?1", p->module_id, 0, &a, DOING, err,
                           errlen);
    if (rc == 0 && n == 1)
        p->path = row->path, p->build_id = row->build_id;
    else if (n == 1)
        free(row->path), free(row->build_id);
    free(row);
    return rc;
}

int db_run_programs(db *d, db_run_program **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_run_id, NULL};
    int rc = db_query_rows(d, "SELECT id FROM runs WHERE id >= ?1 AND parent_id IS NULL ORDER BY id", 0, 0, &a, DOING, err, errlen);
    for (size_t i = 0; rc == 0 && i < *n; i++)
        rc = name_program(d, &(*out)[i], err, errlen);
    return rc;
}

void db_run_programs_free(db_run_program *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++)
        free(p[i].path), free(p[i].build_id);
    free(p);
}
