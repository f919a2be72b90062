/* report_scopes.c — the scope view of `augur report --scopes` (the
 * "filter" of seed 000): for every function, inlined subroutine and loop
 * of the run's binaries, executed instructions per class, memory accesses,
 * floating-point operations with vector lanes counted, and for loops their
 * entries and iterations per entry; inner scopes included, siblings sorted
 * by instructions, scopes under a threshold share of all instructions
 * left out.  Text and JSON (docs/report.md, "Scope view"). */
#define _GNU_SOURCE /* qsort_r */
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/static_check.h"
#include "structure/structure.h"

/* One binary's tree with the run's counts per scope, and its loops
 * against the static model: chk[s] where paired[s]. */
typedef struct counted_tree {
    const scope_tree *t;
    scope_counts *c;
    static_checks st;
    static_loop_check *chk;
    char *paired;
} counted_tree;

/* *to += x, setting *wrapped when the sum passes 2^64 - 1: the database's
 * sums (flops are executions times lanes, summed as REAL past 2^63) are
 * not bounded as db_run_instructions bounds its counts. */
static void add(uint64_t *to, uint64_t x, int *wrapped)
{
    *wrapped |= __builtin_add_overflow(*to, x, to);
}

int report_scope_counts(db *d, int64_t run_id, const scope_tree *t, scope_counts **out, char *err, size_t errlen)
{
    db_scope_count *rows = NULL;
    db_loop_count *loops = NULL;
    size_t nrows = 0, nloops = 0;
    size_t n = t->nscopes;
    scope_counts *c = *out = calloc(n, sizeof *c);
    int rc = c ? 0 : -1, wrapped = 0;
    if (rc == 0)
        rc = db_scope_counts(d, run_id, t->binary.id, &rows, &nrows, err, errlen);
    if (rc == 0)
        rc = db_loop_counts(d, run_id, t->binary.id, &loops, &nloops, err, errlen);
    for (size_t i = 0; rc == 0 && i < nrows; i++) {
        const db_scope_count *r = &rows[i];
        if (r->scope < 0 || (size_t)r->scope >= n || r->cls < 0 || r->cls >= ST_CLASS_COUNT)
            continue;
        scope_counts *sc = &c[r->scope];
        add(&sc->cls[r->cls], r->executions, &wrapped);
        add(&sc->cls_flops[r->cls], r->flops, &wrapped);
        add(&sc->instructions, r->executions, &wrapped);
        add(&sc->flops, r->flops, &wrapped);
        add(&sc->reads, r->reads, &wrapped);
        add(&sc->writes, r->writes, &wrapped);
    }
    for (size_t i = 0; rc == 0 && i < nloops; i++)
        if (loops[i].scope >= 0 && (size_t)loops[i].scope < n) {
            c[loops[i].scope].headers = loops[i].headers;
            c[loops[i].scope].back = loops[i].back;
        }
    for (size_t s = n; rc == 0 && s-- > 1;) { /* children have larger ids */
        scope_counts *in = &c[s], *p = &c[t->scopes[s].parent];
        for (int k = 0; k < ST_CLASS_COUNT; k++) {
            add(&p->cls[k], in->cls[k], &wrapped);
            add(&p->cls_flops[k], in->cls_flops[k], &wrapped);
        }
        add(&p->instructions, in->instructions, &wrapped);
        add(&p->flops, in->flops, &wrapped);
        add(&p->reads, in->reads, &wrapped);
        add(&p->writes, in->writes, &wrapped);
    }
    if (c == NULL)
        snprintf(err, errlen, "out of memory");
    else if (rc == 0 && wrapped) {
        snprintf(err, errlen, "%s: the counts of run %lld's scopes (instructions, flops, reads or writes) add up to "
                 "more than 2^64 - 1: the database is damaged (delete the run and collect it again)",
                 db_path(d), (long long)run_id);
        rc = -1;
    }
    free(rows), free(loops);
    return rc;
}



/* Loop entries: header executions not reached over a back edge. */
static uint64_t entries(const scope_counts *c)
{
    return c->headers > c->back ? c->headers - c->back : 0;
}

typedef struct view {
    counted_tree *trees;
    size_t n;
    db_run run;        /* its parameters are the static formulas' unknowns */
    char **names;      /* the run's parameter names and values */
    double *vals;
    uint64_t total;
    double threshold; /* percent */
    num_style numbers; /* text: counts grouped or plain */
    FILE *out;
} view;

static int shown(const view *v, const scope_counts *c)
{
    return c->instructions > 0 && 100.0 * (double)c->instructions >= v->threshold * (double)v->total;
}

static int by_instructions(const void *a, const void *b, void *ctx)
{
    const scope_counts *c = ctx;
    uint64_t x = c[*(const uint32_t *)a].instructions, y = c[*(const uint32_t *)b].instructions;
    return (x < y) - (x > y);
}

/* The children of s, most instructions first, into a new array. */
static uint32_t *sorted_children(const counted_tree *ct, uint32_t s)
{
    const scope_tree *t = ct->t;
    uint32_t *kids = malloc((t->count[s] ? t->count[s] : 1) * sizeof *kids);
    if (!kids)
        return NULL;
    memcpy(kids, t->child + t->first[s], t->count[s] * sizeof *kids);
    qsort_r(kids, t->count[s], sizeof *kids, by_instructions, ct->c);
    return kids;
}

/* The run's counts of ct and its loops against the static model. */
static int gather(db *d, const view *v, int64_t run_id, counted_tree *ct, char *err, size_t errlen)
{
    size_t n = ct->t->nscopes;
    if (report_scope_counts(d, run_id, ct->t, &ct->c, err, errlen) != 0 ||
        static_checks_load(d, &ct->t->binary, ct->t->scopes, n, &ct->st, err, errlen) != 0)
        return -1;
    ct->chk = calloc(n + 1, sizeof *ct->chk);
    ct->paired = calloc(n + 1, 1);
    if (!ct->chk || !ct->paired)
        return snprintf(err, errlen, "out of memory"), -1;
    for (uint32_t s = 0; ct->st.have && s < n; s++) {
        const scope_counts *c = &ct->c[s];
        int rc = strcmp(ct->t->scopes[s].kind, "loop") ? 1
                 : static_check_loop(&ct->st, s, v->names, v->vals, v->run.nparams, (double)c->headers,
                                     (double)entries(c), &ct->chk[s]);
        if (rc < 0)
            return snprintf(err, errlen, "%s: the static model of %s is damaged: store it again with augur static "
                            "--db", db_path(d), ct->t->binary.path), -1;
        ct->paired[s] = rc == 0;
    }
    return 0;
}

static void counted_tree_free(counted_tree *ct)
{
    for (size_t s = 0; ct->paired && s < ct->t->nscopes; s++)
        if (ct->paired[s])
            static_loop_check_free(&ct->chk[s]);
    free(ct->chk), free(ct->paired), free(ct->c);
    static_checks_free(&ct->st);
}

/* Does loop s of ct disagree with its static loop? */
static int disagrees(const counted_tree *ct, uint32_t s)
{
    return ct->paired[s] && ct->chk[s].known && ct->chk[s].disagrees;
}

/* ---- text ---------------------------------------------------------------- */

static void text_classes(const view *v, const scope_counts *c, int indent)
{
    char n[NUMFMT_LEN];
    fprintf(v->out, "%*s", indent, "");
    for (int k = 0; k < ST_CLASS_COUNT; k++)
        if (c->cls[k])
            fprintf(v->out, " %s=%s", st_class_name((enum st_class)k), numfmt_count(c->cls[k], v->numbers, n));
    fputc('\n', v->out);
}

static int text_scope(const view *v, const counted_tree *ct, uint32_t s, int depth)
{
    const db_scope *sc = &ct->t->scopes[s];
    const scope_counts *c = &ct->c[s];
    if (!shown(v, c))
        return 0;
    char label[600], name[REPORT_NAME_WIDTH + 1];
    st_short_name(sc->name, REPORT_NAME_WIDTH, name, sizeof name); /* C++ signatures: JSON has them whole */
    if (!strcmp(sc->kind, "loop"))
        snprintf(label, sizeof label, "%*s%s", 2 * depth, "", name);
    else
        snprintf(label, sizeof label, "%*s%s %s", 2 * depth, "", sc->kind, name);
    char ins[NUMFMT_LEN], acc[NUMFMT_LEN], flops[NUMFMT_LEN], ent[NUMFMT_LEN];
    fprintf(v->out, "%-48s %16s %6.2f%% %15s %15s", label, numfmt_count(c->instructions, v->numbers, ins),
            100.0 * (double)c->instructions / (double)v->total, numfmt_count(c->reads + c->writes, v->numbers, acc),
            numfmt_count(c->flops, v->numbers, flops));
    if (!strcmp(sc->kind, "loop") && entries(c))
        fprintf(v->out, " %12s %11.1f", numfmt_count(entries(c), v->numbers, ent),
                (double)c->headers / (double)entries(c));
    fputc('\n', v->out);
    text_classes(v, c, 2 * depth + 4);
    if (ct->paired[s])
        static_loop_check_text(v->out, &ct->chk[s], 2 * depth + 4, "measured");
    uint32_t *kids = sorted_children(ct, s);
    if (!kids)
        return -1;
    int rc = 0;
    for (uint32_t k = 0; k < ct->t->count[s] && rc == 0; k++)
        rc = text_scope(v, ct, kids[k], depth + 1);
    free(kids);
    return rc;
}

/* After the tree: every loop (shown or not) whose static and measured
 * iterations disagree, or a line saying they agree. */
static void text_disagreements(const view *v)
{
    size_t compared = 0, flagged = 0;
    for (size_t i = 0; i < v->n; i++) {
        const counted_tree *ct = &v->trees[i];
        for (uint32_t s = 0; s < ct->t->nscopes; s++) {
            compared += ct->paired[s] && ct->chk[s].known;
            if (!disagrees(ct, s))
                continue;
            if (flagged++ == 0)
                fprintf(v->out, "\nStatic and measured iterations disagree by more than %.0f%%:\n",
                        100 * STATIC_CHECK_TOLERANCE);
            fprintf(v->out, "  %-30s", ct->t->scopes[s].name);
            static_loop_check_text(v->out, &ct->chk[s], 1, "measured");
        }
    }
    if (compared && !flagged)
        fprintf(v->out, "\nStatic and measured iterations agree within %.0f%% in the %zu loops compared\n",
                100 * STATIC_CHECK_TOLERANCE, compared);
}

static int write_text(const view *v)
{
    char total[NUMFMT_LEN];
    fprintf(v->out, "Scopes with at least %.2f%% of the %s instructions executed in analysed code\n\n",
            v->threshold, numfmt_count(v->total, v->numbers, total));
    fprintf(v->out, "%-48s %16s %7s %15s %15s %12s %11s\n", "scope", "instructions", "%", "accesses", "flops",
            "entries", "iter/entry");
    for (size_t i = 0; i < v->n; i++)
        if (text_scope(v, &v->trees[i], 0, 0) != 0)
            return -1;
    text_disagreements(v);
    return ferror(v->out) ? -1 : 0;
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *json_counts(const view *v, const scope_counts *c)
{
    json_t *o = json_object(), *cls = json_object(), *cls_flops = json_object();
    for (int k = 0; k < ST_CLASS_COUNT; k++) {
        if (c->cls[k])
            json_object_set_new(cls, st_class_name((enum st_class)k), json_integer((json_int_t)c->cls[k]));
        if (c->cls_flops[k])
            json_object_set_new(cls_flops, st_class_name((enum st_class)k),
                                json_integer((json_int_t)c->cls_flops[k]));
    }
    json_object_set_new(o, "instructions", json_integer((json_int_t)c->instructions));
    json_object_set_new(o, "percent", json_real(v->total ? 100.0 * (double)c->instructions / (double)v->total : 0));
    json_object_set_new(o, "classes", cls);
    json_object_set_new(o, "reads", json_integer((json_int_t)c->reads));
    json_object_set_new(o, "writes", json_integer((json_int_t)c->writes));
    json_object_set_new(o, "accesses", json_integer((json_int_t)(c->reads + c->writes)));
    json_object_set_new(o, "flops", json_integer((json_int_t)c->flops));
    json_object_set_new(o, "class_flops", cls_flops);
    return o;
}

static json_t *json_scope(const view *v, const counted_tree *ct, uint32_t s)
{
    const db_scope *sc = &ct->t->scopes[s];
    const scope_counts *c = &ct->c[s];
    json_t *o = scope_json_identity(sc), *children = json_array();
    json_t *counts = json_counts(v, c);
    json_object_update(o, counts);
    json_decref(counts);
    if (!strcmp(sc->kind, "loop")) {
        uint64_t e = entries(c);
        json_object_set_new(o, "header_executions", json_integer((json_int_t)c->headers));
        json_object_set_new(o, "entries", json_integer((json_int_t)e));
        json_object_set_new(o, "iterations_per_entry", e ? json_real((double)c->headers / (double)e) : json_null());
        if (ct->paired[s])
            json_object_set_new(o, "static", static_loop_check_json(&ct->chk[s], "measured"));
    }
    uint32_t *kids = sorted_children(ct, s);
    for (uint32_t k = 0; kids && k < ct->t->count[s]; k++)
        if (shown(v, &ct->c[kids[k]]))
            json_array_append_new(children, json_scope(v, ct, kids[k]));
    free(kids);
    json_object_set_new(o, "children", children);
    return o;
}

/* Every loop whose static and measured iterations disagree, with its scope's name. */
static json_t *json_disagreements(const view *v)
{
    json_t *a = json_array();
    for (size_t i = 0; i < v->n; i++) {
        const counted_tree *ct = &v->trees[i];
        for (uint32_t s = 0; s < ct->t->nscopes; s++) {
            if (!disagrees(ct, s))
                continue;
            json_t *o = static_loop_check_json(&ct->chk[s], "measured");
            json_object_set_new(o, "scope", json_string(ct->t->scopes[s].name));
            json_array_append_new(a, o);
        }
    }
    return a;
}

static int write_json(const view *v, int64_t run_id)
{
    json_t *root = json_object(), *modules = json_array();
    json_object_set_new(root, "run", json_integer(run_id));
    json_object_set_new(root, "threshold_percent", json_real(v->threshold));
    json_object_set_new(root, "total_instructions", json_integer((json_int_t)v->total));
    for (size_t i = 0; i < v->n; i++)
        json_array_append_new(modules, json_scope(v, &v->trees[i], 0));
    json_object_set_new(root, "scopes", modules);
    json_object_set_new(root, "static_disagreements", json_disagreements(v));
    int rc = json_dumpf(root, v->out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    fputc('\n', v->out);
    json_decref(root);
    return rc != 0 || ferror(v->out) ? -1 : 0;
}

/* The run's parameters as names and values (the static formulas' unknowns). */
static int run_params(db *d, int64_t run_id, view *v, char *err, size_t errlen)
{
    if (db_get_run(d, run_id, &v->run, err, errlen) != 0)
        return -1;
    v->names = calloc(v->run.nparams + 1, sizeof *v->names);
    v->vals = calloc(v->run.nparams + 1, sizeof *v->vals);
    if (!v->names || !v->vals)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t k = 0; k < v->run.nparams; k++) {
        v->names[k] = v->run.params[k].name;
        v->vals[k] = v->run.params[k].value;
    }
    return 0;
}

int report_scopes_write(db *d, int64_t run_id, const scope_tree *trees, size_t n, double threshold, int json,
                        num_style numbers, FILE *out, char *err, size_t errlen)
{
    view v = {.trees = calloc(n ? n : 1, sizeof *v.trees), .n = n, .threshold = threshold, .numbers = numbers,
              .out = out};
    int rc = v.trees ? 0 : -1;
    if (rc == 0)
        rc = run_params(d, run_id, &v, err, errlen);
    for (size_t i = 0; i < n && rc == 0; i++) {
        v.trees[i].t = &trees[i];
        rc = gather(d, &v, run_id, &v.trees[i], err, errlen);
        if (rc == 0)
            v.total += v.trees[i].c[0].instructions;
    }
    if (rc == 0) {
        rc = json ? write_json(&v, run_id) : write_text(&v);
        if (rc != 0)
            snprintf(err, errlen, "cannot write the scope view");
    }
    for (size_t i = 0; v.trees && i < n; i++)
        counted_tree_free(&v.trees[i]);
    free(v.trees);
    free(v.names), free(v.vals);
    db_run_free(&v.run);
    return rc;
}
