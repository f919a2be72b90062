/* scope_tree.c — the scope tree of stored binaries, linked for walking:
 * children in address order and static instruction counts with inner
 * scopes included.  Shared by `augur structure` (structure_print.c) and
 * the scope view of `augur report` (report_scopes.c). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

static int by_entry(const void *a, const void *b, void *ctx)
{
    const db_scope *scopes = ctx;
    const db_scope *x = &scopes[*(const uint32_t *)a], *y = &scopes[*(const uint32_t *)b];
    return (x->entry_addr > y->entry_addr) - (x->entry_addr < y->entry_addr);
}

/* Children lists: child[first[s] .. first[s] + count[s]) of every scope. */
static int link_children(scope_tree *t)
{
    size_t n = t->nscopes;
    t->first = calloc(n + 1, sizeof *t->first);
    t->count = calloc(n, sizeof *t->count);
    t->child = malloc((n ? n : 1) * sizeof *t->child);
    t->inclusive = calloc(n, sizeof *t->inclusive);
    if (!t->first || !t->count || !t->child || !t->inclusive)
        return -1;
    for (size_t s = 1; s < n; s++)
        t->count[t->scopes[s].parent]++;
    for (size_t s = 0; s < n; s++)
        t->first[s + 1] = t->first[s] + t->count[s];
    uint32_t *fill = calloc(n ? n : 1, sizeof *fill);
    if (!fill)
        return -1;
    for (size_t s = 1; s < n; s++) {
        int64_t p = t->scopes[s].parent;
        t->child[t->first[p] + fill[p]++] = (uint32_t)s;
    }
    free(fill);
    for (size_t s = 0; s < n; s++)
        qsort_r(t->child + t->first[s], t->count[s], sizeof *t->child, by_entry, t->scopes);
    for (size_t s = n; s-- > 0;) { /* children have larger ids */
        t->inclusive[s] += t->scopes[s].instructions;
        if (s > 0)
            t->inclusive[t->scopes[s].parent] += t->inclusive[s];
    }
    return 0;
}

int scope_tree_load(db *d, int64_t binary_id, scope_tree *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int rc = db_get_binary(d, binary_id, &t->binary, err, errlen);
    if (rc == 0)
        rc = db_get_scopes(d, binary_id, &t->scopes, &t->nscopes, err, errlen);
    if (rc == 0 && t->nscopes == 0) {
        snprintf(err, errlen, "%s: the stored structure of %s has no scopes", db_path(d), t->binary.path);
        rc = -1;
    }
    for (size_t s = 1; rc == 0 && s < t->nscopes; s++)
        if (t->scopes[s].id != (int64_t)s || t->scopes[s].parent < 0 || t->scopes[s].parent >= (int64_t)s) {
            snprintf(err, errlen, "%s: the stored structure of %s is damaged (scope %zu)", db_path(d),
                     t->binary.path, s);
            rc = -1;
        }
    if (rc == 0 && link_children(t) != 0) {
        snprintf(err, errlen, "%s: out of memory", db_path(d));
        rc = -1;
    }
    if (rc != 0)
        scope_tree_free(t);
    return rc;
}

void scope_tree_free(scope_tree *t)
{
    db_binary_free(&t->binary);
    db_scopes_free(t->scopes, t->nscopes);
    free(t->first), free(t->count), free(t->child), free(t->inclusive);
    memset(t, 0, sizeof *t);
}

json_t *scope_json_identity(const db_scope *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(s->kind));
    json_object_set_new(o, "name", json_string(s->name));
    json_object_set_new(o, "file", s->file ? json_string(s->file) : json_null());
    json_object_set_new(o, "lines", s->first_line ? json_pack("[II]", (json_int_t)s->first_line,
                                                               (json_int_t)s->last_line)
                                                  : json_null());
    return o;
}
