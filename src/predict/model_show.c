/* model_show.c — `augur model --show`: the newest model set's formulas for
 * people, with how each was found and its errors: the program's totals,
 * the program's functions and every scope of the program; or only the
 * functions (of any module) and scopes whose name contains a given text. */
#include <string.h>

#include "predict/predict.h"

/* "exact", or the fit and cross-validation errors, in percent to two
 * decimals as predict's error tables show them (not 1.13e-06%); then,
 * when the runs leave other forms plausible, how far they part at 4x. */
static void print_quality(const model *m, FILE *out)
{
    char fit[NUMFMT_LEN], cv[NUMFMT_LEN];
    if (model_unconfirmed(m))
        fprintf(out, "  [exact through %zu runs, unconfirmed: one more run would confirm it", m->npoints);
    else if (m->method == MODEL_EXACT || m->method == MODEL_CONSTANT)
        fprintf(out, "  [%s", model_method_name(m->method));
    else
        fprintf(out, "  [%s; fit error %s%%, cross-validation error %s%%", model_method_name(m->method),
                numfmt_fixed(m->fit_smape, 2, NUM_PLAIN, fit), numfmt_fixed(m->cv_smape, 2, NUM_PLAIN, cv));
    char pct[NUMFMT_LEN];
    double spread = 100 * m->spread[1];
    if (spread >= 0.1) /* two digits, no exponent */
        fprintf(out, "; other forms that fit differ by %s%% at 4x",
                numfmt_fixed(numfmt_round_sig(spread, 2), spread >= 10 ? 0 : 1, NUM_PLAIN, pct));
    fputc(']', out);
}

static void print_model(const db_model_row *r, FILE *out)
{
    fprintf(out, "    %-18s = %s", r->metric, r->formula);
    print_quality(r->m, out);
    fputc('\n', out);
}

/* Does the row's subject differ from the previous row's? */
static int new_subject(const db_model_row *rows, size_t i)
{
    if (i == 0)
        return 1;
    const db_model_row *a = &rows[i - 1], *b = &rows[i];
    return strcmp(a->kind, b->kind) || a->scope != b->scope || strcmp(a->function ?: "", b->function ?: "") ||
           strcmp(a->module ?: "", b->module ?: "");
}

static void print_subject(const db_model_row *r, FILE *out)
{
    if (!strcmp(r->kind, "total"))
        fputs("\nprogram total\n", out);
    else if (!strcmp(r->kind, "function"))
        fprintf(out, "\nfunction %s (%s)\n", r->function ?: "(unknown)",
                report_base_name(r->module) ?: "(unknown)");
    else if (!strcmp(r->scope_kind ?: "", "loop"))
        fprintf(out, "\nscope %lld: %s\n", (long long)r->scope, r->function ?: "loop");
    else
        fprintf(out, "\nscope %lld: %s %s (%s:%u)\n", (long long)r->scope, r->scope_kind ?: "scope",
                r->function ?: "?", report_base_name(r->file) ?: "?",
                r->line);
}

/* Lines and blocks are too many to show; without a filter, only the
 * program's own functions (library functions are in the database). */
static int wanted(const db_model_row *r, const db_model_set *set, const char *scope_filter)
{
    if (!strcmp(r->kind, "line") || !strcmp(r->kind, "block"))
        return 0;
    if (!scope_filter)
        return strcmp(r->kind, "function") || (r->module && !strcmp(r->module, set->program));
    return strcmp(r->kind, "total") && r->function && strstr(r->function, scope_filter);
}

int model_show(db *d, const char *scope_filter, FILE *out, char *err, size_t errlen)
{
    db_model_set set;
    if (db_model_set_newest(d, &set, err, errlen) != 0)
        return -1;
    db_model_row *rows = NULL;
    size_t n = 0;
    int rc = db_models_load(d, &set, &rows, &n, err, errlen);
    if (rc == 0) {
        fprintf(out, "Model set %lld of %s, fitted %s on runs %s\n  parameters:", (long long)set.id, set.program,
                set.created, set.runs);
        for (int k = 0; k < set.nparams; k++)
            fprintf(out, " %s in [%g, %g]", set.params[k], set.lo[k], set.hi[k]);
        fputc('\n', out);
        size_t shown = 0;
        for (size_t i = 0; i < n; i++) {
            if (!wanted(&rows[i], &set, scope_filter))
                continue;
            if (new_subject(rows, i) || shown == 0)
                print_subject(&rows[i], out);
            print_model(&rows[i], out);
            shown++;
        }
        if (scope_filter && shown == 0)
            fprintf(out, "\nno function or scope named like \"%s\" has models\n", scope_filter);
        fputs("\nNot shown: library functions (--scope NAME shows them), lines, blocks and reuse-distance "
              "groups:\nsee the tables models and rd_groups (docs/database.md) and docs/models.md.\n",
              out);
    }
    db_model_rows_free(rows, n);
    db_model_set_free(&set);
    return rc;
}
