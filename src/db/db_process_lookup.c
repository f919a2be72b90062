/* db_process_lookup.c — is a profile's process already stored?  `augur
 * import` asks before storing, so that profiles kept by `collect
 * --keep-profiles` and imported into the same database, or imported twice,
 * are refused instead of counted twice. */
#include <stdio.h>
#include <stdlib.h>

#include "db/db_internal.h"

#define DOING "look for an earlier copy of a process"

/* A process is the same when everything its profile says of it agrees: pid,
 * parent, executable, arguments, threads and instructions executed.  pids
 * are reused, but not with the same parent and the same count of work. */
static const char same_process_sql[] =
    "SELECT p.run_id FROM processes p WHERE p.pid = ?1 AND p.ppid = ?2 AND p.exe = ?3 AND p.args = ?4 "
    "AND p.threads = ?5 AND (SELECT total(executions) FROM instructions i WHERE i.process_id = p.id) = ?6 "
    "ORDER BY p.run_id LIMIT 1";

/* Executions over every instruction of the profile, as SQL's total() sums
 * them (a double: exact below 2^53, and compared with the same rounding). */
static double total_executions(const profile *p)
{
    double sum = 0;
    for (size_t i = 0; i < p->ninstrs; i++)
        sum += (double)p->instrs[i].execs;
    return sum;
}

int db_process_stored(db *d, const profile *p, int64_t *run_id, char *err, size_t errlen)
{
    char *args = db_json_strings(p->argv, (size_t)p->argc);
    sqlite3_stmt *st = NULL;
    if (!args) {
        snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, DOING);
        return -1;
    }
    int rc = db_prepare(d, same_process_sql, &st, DOING, err, errlen);
    if (rc == 0) {
        sqlite3_bind_int64(st, 1, p->pid);
        sqlite3_bind_int64(st, 2, p->ppid);
        db_bind_text(st, 3, p->exe ? p->exe : "");
        db_bind_text(st, 4, args);
        sqlite3_bind_int64(st, 5, p->threads);
        sqlite3_bind_double(st, 6, total_executions(p));
        int step = sqlite3_step(st);
        if (step == SQLITE_ROW)
            *run_id = sqlite3_column_int64(st, 0);
        rc = step == SQLITE_ROW ? 0 : step == SQLITE_DONE ? DB_NOT_FOUND : db_fail(d, DOING, err, errlen);
        sqlite3_finalize(st);
    }
    free(args);
    return rc;
}
