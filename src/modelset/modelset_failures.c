/* modelset_failures.c — the series `augur model` could not model, each
 * named for people with the fitter's reason, for the warning that lists
 * them (docs/models.md, "Series that cannot be modeled"): a count by its
 * metric and subject ("instructions of function work (prog)"), a
 * reuse-distance group by its first member's line and its block size. */
#define _GNU_SOURCE /* asprintf */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelset/modelset.h"
#include "util/array.h"

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "?";
}

/* Record one failure: f takes `what` (a malloc'ed string, NULL when it
 * could not be made) with a copy of why.  -1 when memory runs out. */
static int add_failure(ms_fitter *f, char *what, const char *why)
{
    ms_failure *grown = what ? array_grow(f->failures, f->nfailures, &f->failures_cap, sizeof *grown) : NULL;
    char *reason = grown ? strdup(why) : NULL;
    if (!reason) {
        free(what);
        snprintf(f->err, f->errlen, "out of memory");
        return -1;
    }
    f->failures = grown;
    f->failures[f->nfailures++] = (ms_failure){what, reason};
    return 0;
}

/* What a count model's subject is, for people: "the program's total",
 * "function F (MODULE)", "line FILE:LINE in F", "block at 0xADDR of F
 * (MODULE)", "loop at FILE:LINE", "KIND NAME (FILE:LINE)". */
static char *subject_text(const db_model_subject *s)
{
    char *t = NULL;
    const char *fn = s->function ? s->function : "(unknown)";
    int rc;
    if (!strcmp(s->kind, "function"))
        rc = asprintf(&t, "function %s (%s)", fn, base_name(s->module));
    else if (!strcmp(s->kind, "line"))
        rc = asprintf(&t, "line %s:%u in %s", base_name(s->file), s->line, fn);
    else if (!strcmp(s->kind, "block"))
        rc = asprintf(&t, "block at %#" PRIx64 " of %s (%s)", s->addr, fn, base_name(s->module));
    else if (!strcmp(s->kind, "scope") && s->scope_kind && !strcmp(s->scope_kind, "loop"))
        rc = asprintf(&t, "%s", fn);
    else if (!strcmp(s->kind, "scope"))
        rc = asprintf(&t, "%s %s (%s:%u)", s->scope_kind ? s->scope_kind : "scope", fn, base_name(s->file), s->line);
    else
        rc = asprintf(&t, "the program's %s", s->kind);
    return rc < 0 ? NULL : t;
}

int ms_fail_count(ms_fitter *f, const db_model_subject *s, const char *metric, const char *why)
{
    char *subject = subject_text(s), *what = NULL;
    if (subject && asprintf(&what, "%s of %s", metric, subject) < 0)
        what = NULL;
    free(subject);
    return add_failure(f, what, why);
}

int ms_fail_group(ms_fitter *f, uint32_t block_size, const size_t *locs, size_t nlocs, const char *why)
{
    const ms_series *s = f->series;
    size_t l = locs[0];
    char *where = NULL, *what = NULL;
    int rc = s->file[l] && s->locs[l].line
                 ? asprintf(&where, "%s:%u in %s", base_name(s->file[l]), s->locs[l].line,
                            s->function[l] ? s->function[l] : "(unknown)")
                 : asprintf(&where, "%s (%s)", s->function[l] ? s->function[l] : "(unknown)", base_name(s->module[l]));
    if (rc < 0)
        where = NULL;
    else if (asprintf(&what, "misses of the reuse-distance group of %s (%zu instruction%s, %u-byte blocks)", where,
                      nlocs, nlocs == 1 ? "" : "s", block_size) < 0)
        what = NULL;
    free(where);
    return add_failure(f, what, why);
}

void ms_failures_free(ms_failure *failures, size_t n)
{
    for (size_t i = 0; failures && i < n; i++) {
        free(failures[i].what);
        free(failures[i].why);
    }
    free(failures);
}
