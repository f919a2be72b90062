/* match.c — pairing a static model's scopes with a binary's (match.h),
 * and the value of a stored static formula at named values. */
#define _GNU_SOURCE /* qsort_r */
#include "static/match.h"
#include "static/form.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The line a binary loop is named after ("loop at k.c:17"), else its first. */
static long loop_line(const db_scope *s)
{
    const char *colon = strrchr(s->name, ':');
    return colon ? strtol(colon + 1, NULL, 10) : (long)s->first_line;
}

/* A loop of either side: its parent (index among the same side's loops of
 * the function, -1 at the top) and its sort key. */
typedef struct node {
    int id;      /* the scope id or static position */
    int parent;  /* index in the node array, -1 */
    long line, first;
    char path[64]; /* rank at each depth, as bytes + 1 */
} node;

static int by_line(const void *a, const void *b)
{
    const node *x = a, *y = b;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

/* Fill each node's path: its parent's, then its rank among its siblings
 * (nodes sorted by line).  Parents must be filled first: ranks are
 * computed by repeated passes over the (few) loops of one function. */
static void fill_paths(node *v, size_t n)
{
    qsort(v, n, sizeof *v, by_line);
    for (size_t i = 0; i < n; i++)
        v[i].path[0] = 0;
    for (int done = 0; !done;) {
        done = 1;
        for (size_t i = 0; i < n; i++) {
            if (v[i].path[0])
                continue;
            const char *up = "";
            if (v[i].parent >= 0) {
                size_t p = 0;
                while (p < n && v[p].id != v[i].parent)
                    p++;
                if (p == n || !v[p].path[0]) {
                    done = 0;
                    continue;
                }
                up = v[p].path;
            }
            int rank = 1;
            for (size_t k = 0; k < i; k++)
                rank += v[k].parent == v[i].parent;
            if (strlen(up) + 2 < sizeof v[i].path)
                snprintf(v[i].path, sizeof v[i].path, "%s%c", up, rank < 255 ? rank : 255);
            else
                v[i].path[0] = 1; /* deeper than any real nest: paired with nothing alike */
        }
    }
}

/* The binary loops of function scope f reached through loops only, as
 * nodes (parent = parent's scope id, -1 for f). */
static size_t binary_loops(const db_scope *scopes, size_t n, size_t f, node *out)
{
    size_t k = 0;
    for (size_t s = f + 1; s < n; s++) {
        if (strcmp(scopes[s].kind, "loop"))
            continue;
        int64_t p = scopes[s].parent;
        int under = p == (int64_t)f;
        for (size_t j = 0; !under && j < k; j++)
            under = out[j].id == p;
        if (under)
            out[k++] = (node){(int)s, p == (int64_t)f ? -1 : (int)p, loop_line(&scopes[s]), scopes[s].first_line, ""};
    }
    return k;
}

/* The static loops of the function at position fpos (they follow it). */
static size_t static_loops(const db_static_model *m, size_t fpos, node *out)
{
    size_t k = 0;
    for (size_t i = fpos + 1; i < m->nscopes && !strcmp(m->scopes[i].kind, "loop"); i++)
        out[k++] = (node){(int)i, m->scopes[i].parent, m->scopes[i].first_line, m->scopes[i].first_line, ""};
    return k;
}

/* Pair function scope f's loops with the static function's at fpos when
 * both nests have the same paths. */
static int pair_function(const db_static_model *m, size_t fpos, const db_scope *scopes, size_t n, size_t f, int *out)
{
    node *b = calloc(n + 1, sizeof *b), *s = calloc(m->nscopes + 1, sizeof *s);
    if (!b || !s)
        return free(b), free(s), -1;
    size_t nb = binary_loops(scopes, n, f, b), ns = static_loops(m, fpos, s);
    fill_paths(b, nb);
    fill_paths(s, ns);
    int same = nb == ns;
    for (size_t i = 0; same && i < nb; i++) {
        size_t j = 0;
        while (j < ns && strcmp(b[i].path, s[j].path))
            j++;
        same = j < ns;
    }
    for (size_t i = 0; same && i < nb; i++)
        for (size_t j = 0; j < ns; j++)
            if (!strcmp(b[i].path, s[j].path))
                out[b[i].id] = s[j].id;
    free(b), free(s);
    return 0;
}

/* Is binary function `bin` the source function `src`, or a copy GCC made
 * of it (scan.constprop.0, f.isra.0, f.part.0, f.cold: C names have no '.')? */
static int same_function(const char *src, const char *bin)
{
    size_t n = strlen(src);
    return !strncmp(src, bin, n) && (bin[n] == 0 || bin[n] == '.');
}

int sa_match_scopes(const db_static_model *m, const db_scope *scopes, size_t n, int *out)
{
    for (size_t s = 0; s < n; s++)
        out[s] = -1;
    for (size_t f = 0; f < n; f++) {
        if (strcmp(scopes[f].kind, "function"))
            continue;
        for (size_t i = 0; i < m->nscopes; i++)
            if (!strcmp(m->scopes[i].kind, "function") && same_function(m->scopes[i].function, scopes[f].name)) {
                out[f] = (int)i;
                if (pair_function(m, i, scopes, n, f, out) != 0)
                    return -1;
                break;
            }
    }
    return 0;
}

/* Names and values for sa_form_eval. */
typedef struct named {
    char *const *names;
    const double *vals;
    size_t n;
} named;

static int lookup(const char *name, double *v, void *ctx)
{
    const named *x = ctx;
    for (size_t i = 0; i < x->n; i++)
        if (!strcmp(x->names[i], name))
            return *v = x->vals[i], 0;
    return -1;
}

int sa_scope_value(const db_static_scope *s, const char *metric, char *const *names, const double *vals,
                   size_t nnames, double *v, char *missing, size_t missinglen)
{
    json_t *forms = json_loads(s->forms, 0, NULL);
    if (!forms)
        return -1;
    const json_t *f = json_object_get(forms, metric);
    named x = {names, vals, nnames};
    const char *miss = NULL;
    int rc = !f ? 1 : sa_form_eval(f, lookup, &x, v, &miss) == 0 ? 0 : miss ? 1 : -1;
    snprintf(missing, missinglen, "%s", miss ? miss : "");
    json_decref(forms);
    return rc;
}
