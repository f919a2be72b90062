/* db_regions.c — what of a run was counted, in words, from the regions of
 * its main process (processes.regions, docs/database.md) and its phase
 * (runs.phase); whether its histograms were sampled (runs.sample_rd); and
 * the intervals of a run (db.h). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"

/* Append the keys of JSON object `o` to s as "a, b", each with its count. */
static void list_patterns(FILE *s, json_t *o)
{
    const char *key;
    json_t *v;
    int first = 1;
    json_object_foreach(o, key, v)
    {
        fprintf(s, "%s%s (%lld call%s)", first ? "" : ", ", key, (long long)json_integer_value(v),
                json_integer_value(v) == 1 ? "" : "s");
        first = 0;
    }
}

const char *db_sampled_sentence(double sample_rd, char *buf, size_t len)
{
    if (sample_rd <= 0 || sample_rd >= 1)
        snprintf(buf, len, "%s", "");
    else /* the rate is T / 2^24 (docs/algorithms-rd.md, "Sampling"): 3 digits show what was asked */
        snprintf(buf, len,
                 "reuse distances sampled at rate %.3g (augur collect --sample-rd): the histograms are scaled "
                 "estimates",
                 sample_rd);
    return buf;
}

char *db_counted_sentence(const char *regions, const char *phase, int64_t parent_id)
{
    json_t *o = regions ? json_loads(regions, 0, NULL) : NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *s = open_memstream(&text, &len);
    if (!s) {
        json_decref(o);
        return NULL;
    }
    const char *sep = "";
    if (phase) {
        fprintf(s, "phase %s of run %lld (its intervals closed there)", phase, (long long)parent_id);
        sep = "; ";
    }
    if (o) {
        if (!json_is_true(json_object_get(o, "instr_at_start"))) {
            fprintf(s, "%sonly between the program's START and STOP_INSTRUMENTATION requests", sep);
            sep = "; ";
        } else if (json_integer_value(json_object_get(o, "stops")) > 0) {
            fprintf(s, "%sfrom the start, but not from the program's STOP_INSTRUMENTATION requests to the next START",
                    sep);
            sep = "; ";
        }
        json_t *fns = json_object_get(o, "region_functions");
        if (json_object_size(fns)) {
            fprintf(s, "%sonly inside calls of ", sep);
            list_patterns(s, fns);
            sep = "; ";
        }
        if (json_integer_value(json_object_get(o, "zeros")) > 0) {
            fprintf(s, "%sfrom the program's last ZERO_STATS", sep);
            sep = "; ";
        }
        fns = json_object_get(o, "interval_functions");
        if (json_object_size(fns)) {
            fprintf(s, "%snot inside calls of ", sep);
            list_patterns(s, fns);
            fprintf(s, ", which end intervals");
        }
    }
    fclose(s);
    json_decref(o);
    return text;
}

static int fill_interval(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_interval *v = elem;
    *v = (db_interval){.run_id = sqlite3_column_int64(st, 0),
                       .phase = db_column_strdup(st, 1),
                       .first = db_column_u64(st, 2),
                       .count = db_column_u64(st, 3),
                       .closed_by = db_column_strdup(st, 4),
                       .instructions = db_column_u64(st, 6),
                       .accesses = db_column_u64(st, 7)};
    if (sqlite3_column_type(st, 5) != SQLITE_NULL)
        v->function = db_column_strdup(st, 5);
    return v->phase && v->closed_by ? 0 : -1;
}

int db_run_intervals(db *d, int64_t run_id, db_interval **out, size_t *n, char *err, size_t errlen)
{
    static const char sql[] =
        "SELECT r.id, r.phase, i.first, i.count, i.closed_by, f.name,"
        " (SELECT ifnull(sum(x.executions), 0) FROM processes q JOIN instructions x ON x.process_id = q.id WHERE q.run_id = r.id),"
        " (SELECT ifnull(sum(x.reads + x.writes), 0) FROM processes q JOIN instructions x ON x.process_id = q.id"
        "  WHERE q.run_id = r.id)"
        " FROM runs r JOIN processes p ON p.run_id = r.id AND p.position ="
        "  (SELECT min(position) FROM processes WHERE run_id = r.id)"
        " JOIN intervals i ON i.process_id = p.id LEFT JOIN functions f ON f.id = i.function_id"
        " WHERE r.parent_id = ?1 ORDER BY r.id";
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_interval, NULL};
    *out = NULL;
    *n = 0;
    return db_query_rows(d, sql, run_id, 0, &a, "read the intervals", err, errlen);
}

void db_intervals_free(db_interval *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].phase);
        free(v[i].closed_by);
        free(v[i].function);
    }
    free(v);
}
