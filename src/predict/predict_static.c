/* predict_static.c — `augur predict` against the static model: the
 * predicted loops paired with the source loops of the model `augur static
 * --db` stored for the program's build, their iterations from the static
 * formulas at the predicted parameters against the predicted ones, and
 * those more than 1% apart named (docs/static.md, "Static and measured"). */
#include <stdlib.h>
#include <string.h>

#include "predict/predict_internal.h"

/* The comparison of each predicted loop paired in c, into p->statics. */
static int compare(prediction *p, const static_checks *c, char *err, size_t errlen)
{
    p->statics = calloc(p->nscopes + 1, sizeof *p->statics);
    if (!p->statics)
        return snprintf(err, errlen, "out of memory"), -1;
    for (size_t i = 0; i < p->nscopes; i++) {
        const predict_scope *s = &p->scopes[i];
        if (!s->kind || strcmp(s->kind, "loop") || s->scope < 0)
            continue;
        predict_static *x = &p->statics[p->nstatics];
        int rc = static_check_loop(c, (size_t)s->scope, p->set.params, p->x, (size_t)p->set.nparams, s->headers,
                                   s->entries, &x->x);
        if (rc < 0)
            return snprintf(err, errlen, "%s: the static model of the program is damaged: store it again with "
                            "augur static --db", p->set.program), -1;
        if (rc == 0) {
            x->scope = s;
            p->nstatics++;
        }
    }
    return 0;
}

int predict_static_checks(db *d, prediction *p, char *err, size_t errlen)
{
    if (p->nscopes == 0 || p->ntrain == 0)
        return 0;
    int64_t binary_id = 0;
    int rc = predict_program_binary(d, predict_newest_run(p->train_runs, p->ntrain), &binary_id, NULL, err, errlen);
    if (rc != 0)
        return rc == 1 ? 0 : -1;
    db_binary b = {0};
    db_scope *scopes = NULL;
    size_t n = 0;
    rc = db_get_binary(d, binary_id, &b, err, errlen);
    if (rc == 0)
        rc = db_get_scopes(d, binary_id, &scopes, &n, err, errlen);
    if (rc == 0)
        rc = static_checks_load(d, &b, scopes, n, &p->st, err, errlen);
    if (rc == 0 && p->st.have)
        rc = compare(p, &p->st, err, errlen);
    db_scopes_free(scopes, n);
    db_binary_free(&b);
    return rc;
}

void predict_static_free(prediction *p)
{
    for (size_t i = 0; i < p->nstatics; i++)
        static_loop_check_free(&p->statics[i].x);
    free(p->statics);
    static_checks_free(&p->st);
    p->statics = NULL;
    p->nstatics = 0;
}

/* The number of compared loops (with a value) and of those that disagree. */
static void tally(const prediction *p, size_t *compared, size_t *flagged)
{
    *compared = *flagged = 0;
    for (size_t i = 0; i < p->nstatics; i++) {
        *compared += p->statics[i].x.known;
        *flagged += p->statics[i].x.known && p->statics[i].x.disagrees;
    }
}

int predict_write_static_text(const prediction *p, FILE *out)
{
    size_t compared, flagged;
    tally(p, &compared, &flagged);
    if (!p->st.have || compared == 0)
        return 0;
    if (flagged == 0)
        fprintf(out, "\nStatic and predicted iterations agree within %.0f%% in the %zu loops compared\n",
                100 * STATIC_CHECK_TOLERANCE, compared);
    else
        fprintf(out, "\nStatic and predicted iterations disagree by more than %.0f%% (%zu of %zu loops):\n",
                100 * STATIC_CHECK_TOLERANCE, flagged, compared);
    for (size_t i = 0; i < p->nstatics; i++)
        if (p->statics[i].x.known && p->statics[i].x.disagrees) {
            fprintf(out, "  %-30s", p->statics[i].scope->name);
            static_loop_check_text(out, &p->statics[i].x, 1, "predicted");
        }
    return ferror(out) ? -1 : 0;
}

json_t *predict_static_json(const prediction *p)
{
    if (!p->st.have)
        return json_null();
    size_t compared, flagged;
    tally(p, &compared, &flagged);
    json_t *loops = json_array(), *bad = json_array();
    for (size_t i = 0; i < p->nstatics; i++) {
        json_t *o = static_loop_check_json(&p->statics[i].x, "predicted");
        json_object_set_new(o, "scope", json_string(p->statics[i].scope->name));
        if (p->statics[i].x.known && p->statics[i].x.disagrees)
            json_array_append(bad, o);
        json_array_append_new(loops, o);
    }
    return json_pack("{s:I,s:o,s:o}", "compared", (json_int_t)compared, "loops", loops, "disagreements", bad);
}
