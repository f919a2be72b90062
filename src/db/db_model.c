/* db_model.c — storing and loading model sets: the count models and the
 * reuse-distance group models `augur model` fits, as rows of model_sets,
 * models, rd_groups, rd_members and rd_parts (docs/database.md, "Models").
 *
 * A model's terms are stored as a JSON array, parameters by name:
 *   [{"coef": 0.5, "factors": [{"param": "N", "exponent": 2, "log": 0}]}, ...]
 * next to its constant, so SQL can read them (json_each) and any program
 * can evaluate them; `formula` is the same model for people.  A model on
 * static terms (method "static") stores each as its formula's form:
 *   [{"coef": 1, "label": "loop at basis.c:19", "static": {"terms": [...]}}, ...] */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db_internal.h"
#include "model/model.h"
#include "util/array.h"

#ifndef AUGUR_VERSION
#define AUGUR_VERSION "unknown"
#endif

#define DOING_STORE "store the models"
#define DOING_READ "read the models"

_Static_assert(DB_MODEL_MAX_PARAMS == MODEL_MAX_PARAMS, "db and model agree on the parameter limit");

static int oom(const db *d, const char *doing, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: cannot %s: out of memory", d->path, doing);
    return -1;
}

/* ---- terms as JSON ------------------------------------------------------- */

/* The JSON text of m's terms (free() it), or NULL when memory runs out. */
static char *terms_json(const model *m, char *const *names)
{
    json_t *a = json_array();
    for (int t = 0; a && t < m->nterms; t++) {
        json_t *f = json_array();
        for (int k = 0; f && k < m->terms[t].nfactors; k++) {
            const model_factor *mf = &m->terms[t].factors[k];
            json_array_append_new(f, json_pack("{s:s, s:f, s:i}", "param", names[mf->param], "exponent",
                                               mf->exponent, "log", mf->log_exponent));
        }
        json_array_append_new(a, json_pack("{s:f, s:o}", "coef", m->terms[t].coef, "factors", f ? f : json_null()));
    }
    for (int k = 0; a && m->st && k < m->st->nterms; k++)
        json_array_append_new(a, json_pack("{s:f, s:s, s:O}", "coef", m->st->coef[k], "label", m->st->labels[k],
                                           "static", m->st->forms[k]));
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

static int param_index(const db_model_set *set, const char *name)
{
    for (int k = 0; k < set->nparams; k++)
        if (!strcmp(set->params[k], name))
            return k;
    return -1;
}

/* The static terms of a MODEL_STATIC model (their forms and labels) into
 * a new m->st; -1 when they are not what terms_json writes. */
static int parse_static_terms(const json_t *a, const db_model_set *set, model *m)
{
    if (!(m->st = model_static_new(set->nparams, set->params)))
        return -1;
    for (size_t k = 0; k < json_array_size(a); k++) {
        json_t *t = json_array_get(a, k), *form = json_object_get(t, "static");
        const char *label = json_string_value(json_object_get(t, "label"));
        int i = json_is_object(form) && label ? model_static_add(m->st, form, label) : -1;
        if (i < 0)
            return -1;
        m->st->coef[i] = json_number_value(json_object_get(t, "coef"));
    }
    return 0;
}

/* Parse terms JSON into m; -1 when it is not what terms_json writes. */
static int parse_terms(const char *text, const db_model_set *set, model *m)
{
    json_t *a = json_loads(text, 0, NULL);
    if (m->method == MODEL_STATIC) {
        int rc = json_is_array(a) && json_array_size(a) <= MODEL_MAX_TERMS ? parse_static_terms(a, set, m) : -1;
        json_decref(a);
        return rc;
    }
    int rc = json_is_array(a) && json_array_size(a) <= MODEL_MAX_TERMS ? 0 : -1;
    for (size_t t = 0; rc == 0 && t < json_array_size(a); t++) {
        json_t *term = json_array_get(a, t), *f = json_object_get(term, "factors");
        model_term *mt = &m->terms[t];
        mt->coef = json_number_value(json_object_get(term, "coef"));
        if (!json_is_array(f) || json_array_size(f) > MODEL_MAX_PARAMS) {
            rc = -1;
            break;
        }
        mt->nfactors = (int)json_array_size(f);
        for (int k = 0; k < mt->nfactors; k++) {
            json_t *fk = json_array_get(f, (size_t)k);
            mt->factors[k].param = param_index(set, json_string_value(json_object_get(fk, "param")) ?: "");
            mt->factors[k].exponent = json_number_value(json_object_get(fk, "exponent"));
            mt->factors[k].log_exponent = (int)json_integer_value(json_object_get(fk, "log"));
            if (mt->factors[k].param < 0)
                rc = -1;
        }
    }
    if (rc == 0)
        m->nterms = (int)json_array_size(a);
    json_decref(a);
    return rc;
}

static enum model_method method_of(const char *name)
{
    for (int k = MODEL_CONSTANT; k <= MODEL_METHOD_LAST; k++)
        if (!strcmp(model_method_name((enum model_method)k), name))
            return (enum model_method)k;
    return MODEL_PMNF;
}

/* ---- the spread column ------------------------------------------------------ */

/* m->spread as the text of models.spread ("0.0172 0.0518 0.1 0.158": at
 * 2x, 4x, 8x and 16x), followed by m->spread_below at the same points when
 * any of it is not 0, into buf; 0 when every value is 0 (the column is
 * then NULL), else 1. */
static int spread_text(const model *m, char *buf, size_t len)
{
    int any = 0, below = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < MODEL_SPREAD_POINTS; i++) {
        any |= m->spread[i] != 0;
        below |= m->spread_below[i] != 0;
    }
    for (int i = 0; i < MODEL_SPREAD_POINTS * (1 + below); i++) {
        double v = i < MODEL_SPREAD_POINTS ? m->spread[i] : m->spread_below[i - MODEL_SPREAD_POINTS];
        int w = snprintf(buf + used, len - used, "%s%.6g", i ? " " : "", v);
        if (w < 0 || (size_t)w >= len - used)
            return 0;
        used += (size_t)w;
    }
    return any || below;
}

/* m->spread and m->spread_below from the text of models.spread (NULL,
 * or no values past the spread's: all 0); values that do not read as
 * finite non-negative numbers are 0. */
static void read_spread(const char *text, model *m)
{
    for (int i = 0; text && i < 2 * MODEL_SPREAD_POINTS; i++) {
        char *end;
        double v = strtod(text, &end);
        if (end == text)
            break;
        v = isfinite(v) && v >= 0 ? v : 0;
        if (i < MODEL_SPREAD_POINTS)
            m->spread[i] = v;
        else
            m->spread_below[i - MODEL_SPREAD_POINTS] = v;
        text = end;
    }
}

/* ---- writing ------------------------------------------------------------- */

enum { W_MODEL, W_GROUP, W_MEMBER, W_PART, NWRITE };
static const char *const write_sql[NWRITE] = {
    "INSERT INTO models (set_id, kind, module, function, file, line, scope, scope_kind, addr, end_addr, metric, "
    "method, formula, constant, terms, fit_smape, cv_smape, fit_max_rel, points, spread) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO rd_groups (set_id, block_size, module, loop, strides, cold_model, touches_model, stride_model, "
    "run_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "INSERT INTO rd_members (group_id, addr, function, file, line, share) VALUES (?, ?, ?, ?, ?, ?)",
    "INSERT INTO rd_parts (group_id, position, kind, distance, u_low, u_high, fraction_model, low_model, "
    "high_model, mean_model) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
};

struct db_model_writer {
    db *d;
    const db_model_set *set;
    sqlite3_stmt *st[NWRITE];
};

/* A JSON array of numbers, as text (free() it). */
static char *json_numbers(const double *v, size_t n, int integers)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; i++)
        json_array_append_new(a, integers ? json_integer((json_int_t)v[i]) : json_real(v[i]));
    char *text = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return text;
}

/* The ranges object {"N": [lo, hi], ...} as text. */
static char *ranges_json(const db_model_set *s)
{
    json_t *o = json_object();
    for (int k = 0; o && k < s->nparams; k++)
        json_object_set_new(o, s->params[k], json_pack("[f, f]", s->lo[k], s->hi[k]));
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

static void now_iso(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int insert_set(db_model_writer *w, db_model_set *set, char *err, size_t errlen)
{
    double bs[PROFILE_MAX_BLOCK_SIZES];
    for (int i = 0; i < set->nblock_sizes; i++)
        bs[i] = set->block_sizes[i];
    char created[32];
    now_iso(created, sizeof created);
    char *params = db_json_strings(set->params, (size_t)set->nparams);
    char *ranges = ranges_json(set), *sizes = json_numbers(bs, (size_t)set->nblock_sizes, 1);
    sqlite3_stmt *st = NULL;
    int rc = params && ranges && sizes ? 0 : oom(w->d, DOING_STORE, err, errlen);
    if (rc == 0)
        rc = db_prepare(w->d,
                        "INSERT INTO model_sets (created, program, params, ranges, runs, basis, block_sizes, "
                        "augur_version, rd_method, builds, unmatched, parent_id, phase) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        &st, DOING_STORE, err, errlen);
    if (rc == 0) {
        const char *text[8] = {created, set->program, params, ranges, set->runs, set->basis, sizes, AUGUR_VERSION};
        for (int i = 0; i < 8; i++)
            sqlite3_bind_text(st, i + 1, text[i], -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 9, DB_RD_METHOD);
        db_bind_text(st, 10, set->builds);
        db_bind_text(st, 11, set->unmatched);
        if (set->parent_id)
            sqlite3_bind_int64(st, 12, set->parent_id);
        else
            sqlite3_bind_null(st, 12);
        db_bind_text(st, 13, set->phase);
        rc = db_step_done(w->d, st, DOING_STORE, err, errlen);
        set->id = sqlite3_last_insert_rowid(w->d->sql);
    }
    sqlite3_finalize(st);
    free(params), free(ranges), free(sizes);
    return rc;
}

void db_model_abort(db_model_writer *w)
{
    if (!w)
        return;
    for (int k = 0; k < NWRITE; k++)
        sqlite3_finalize(w->st[k]);
    sqlite3_exec(w->d->sql, "ROLLBACK", NULL, NULL, NULL);
    free(w);
}

int db_model_begin(db *d, db_model_set *set, db_model_writer **out, char *err, size_t errlen)
{
    *out = NULL;
    db_model_writer *w = calloc(1, sizeof *w);
    if (!w)
        return oom(d, DOING_STORE, err, errlen);
    w->d = d;
    w->set = set;
    if (db_exec(d, "BEGIN IMMEDIATE", DOING_STORE, err, errlen) != 0) {
        free(w);
        return -1;
    }
    int rc = 0;
    for (int k = 0; k < NWRITE && rc == 0; k++)
        rc = db_prepare(d, write_sql[k], &w->st[k], DOING_STORE, err, errlen);
    if (rc == 0)
        rc = insert_set(w, set, err, errlen);
    if (rc != 0) {
        db_model_abort(w);
        return -1;
    }
    *out = w;
    return 0;
}

int db_model_put(db_model_writer *w, const db_model_subject *s, const char *metric, const model *m,
                 int64_t *model_id, char *err, size_t errlen)
{
    char formula[2048];
    model_format(m, (const char *const *)w->set->params, formula, sizeof formula);
    char *terms = terms_json(m, w->set->params);
    if (!terms)
        return oom(w->d, DOING_STORE, err, errlen);
    sqlite3_stmt *st = w->st[W_MODEL];
    sqlite3_bind_int64(st, 1, w->set->id);
    sqlite3_bind_text(st, 2, s->kind, -1, SQLITE_STATIC);
    db_bind_text(st, 3, s->module);
    db_bind_text(st, 4, s->function);
    db_bind_text(st, 5, s->file);
    if (s->line)
        sqlite3_bind_int64(st, 6, s->line);
    else
        sqlite3_bind_null(st, 6);
    if (s->scope >= 0 && s->scope_kind)
        sqlite3_bind_int64(st, 7, s->scope);
    else
        sqlite3_bind_null(st, 7);
    db_bind_text(st, 8, s->scope_kind);
    if (s->end_addr) {
        db_bind_u64(st, 9, s->addr);
        db_bind_u64(st, 10, s->end_addr);
    } else {
        sqlite3_bind_null(st, 9);
        sqlite3_bind_null(st, 10);
    }
    sqlite3_bind_text(st, 11, metric, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 12, model_method_name(m->method), -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 13, formula, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 14, m->constant);
    sqlite3_bind_text(st, 15, terms, -1, SQLITE_STATIC);
    sqlite3_bind_double(st, 16, m->fit_smape);
    sqlite3_bind_double(st, 17, m->cv_smape);
    sqlite3_bind_double(st, 18, m->fit_max_rel);
    sqlite3_bind_int64(st, 19, (int64_t)m->npoints);
    char spread[256];
    if (spread_text(m, spread, sizeof spread))
        sqlite3_bind_text(st, 20, spread, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 20);
    int rc = db_step_done(w->d, st, DOING_STORE, err, errlen);
    sqlite3_clear_bindings(st);
    free(terms);
    if (rc == 0 && model_id)
        *model_id = sqlite3_last_insert_rowid(w->d->sql);
    return rc;
}

/* A model of an rd group's part, stored as a model of kind "rd". */
static int put_rd_model(db_model_writer *w, const char *module, const char *metric, const model *m, int64_t *id,
                        char *err, size_t errlen)
{
    db_model_subject s = {.kind = "rd", .module = module, .scope = -1};
    return db_model_put(w, &s, metric, m, id, err, errlen);
}

static int put_part(db_model_writer *w, int64_t group, int position, const char *kind, const double num[3],
                    const int64_t ids[4], char *err, size_t errlen)
{
    sqlite3_stmt *st = w->st[W_PART];
    sqlite3_bind_int64(st, 1, group);
    sqlite3_bind_int(st, 2, position);
    sqlite3_bind_text(st, 3, kind, -1, SQLITE_STATIC);
    for (int k = 0; k < 3; k++)
        sqlite3_bind_double(st, 4 + k, num[k]);
    for (int k = 0; k < 4; k++)
        db_bind_id(st, 7 + k, ids[k]);
    int rc = db_step_done(w->d, st, DOING_STORE, err, errlen);
    sqlite3_clear_bindings(st);
    return rc;
}

static int put_parts(db_model_writer *w, int64_t group, const char *module, const rd_model *m, char *err,
                     size_t errlen)
{
    int rc = 0, position = 0;
    for (size_t i = 0; rc == 0 && i < m->nlead; i++) {
        int64_t ids[4] = {0};
        double num[3] = {m->lead[i].distance, 0, 0};
        rc = put_rd_model(w, module, "fraction", &m->lead[i].fraction, &ids[0], err, errlen);
        if (rc == 0)
            rc = put_part(w, group, position++, "lead", num, ids, err, errlen);
    }
    for (size_t i = 0; rc == 0 && i < m->nbins; i++) {
        const rd_model_bin *b = &m->bins[i];
        int64_t ids[4] = {0};
        double num[3] = {0, b->u_low, b->u_high};
        rc = put_rd_model(w, module, "low", &b->low, &ids[1], err, errlen);
        if (rc == 0)
            rc = put_rd_model(w, module, "high", &b->high, &ids[2], err, errlen);
        if (rc == 0)
            rc = put_rd_model(w, module, "mean", &b->mean, &ids[3], err, errlen);
        if (rc == 0)
            rc = put_part(w, group, position++, "slice", num, ids, err, errlen);
    }
    return rc;
}

static int put_member(db_model_writer *w, int64_t group, const db_rd_member *mb, char *err, size_t errlen)
{
    sqlite3_stmt *st = w->st[W_MEMBER];
    sqlite3_bind_int64(st, 1, group);
    db_bind_u64(st, 2, mb->addr);
    db_bind_text(st, 3, mb->function);
    db_bind_text(st, 4, mb->file);
    if (mb->line)
        sqlite3_bind_int64(st, 5, mb->line);
    else
        sqlite3_bind_null(st, 5);
    sqlite3_bind_double(st, 6, mb->share);
    int rc = db_step_done(w->d, st, DOING_STORE, err, errlen);
    sqlite3_clear_bindings(st);
    return rc;
}

int db_rd_group_put(db_model_writer *w, const db_rd_group_spec *g, char *err, size_t errlen)
{
    int64_t cold, touches, walk[2] = {0, 0};
    const model *walk_models[2] = {g->stride, g->run};
    static const char *const walk_metrics[2] = {"stride", "run"};
    if (put_rd_model(w, g->module, "cold", &g->m->cold, &cold, err, errlen) != 0 ||
        put_rd_model(w, g->module, "touches", &g->m->touches, &touches, err, errlen) != 0)
        return -1;
    if (g->stride && g->run) /* both or neither */
        for (int k = 0; k < 2; k++)
            if (put_rd_model(w, g->module, walk_metrics[k], walk_models[k], &walk[k], err, errlen) != 0)
                return -1;
    sqlite3_stmt *st = w->st[W_GROUP];
    sqlite3_bind_int64(st, 1, w->set->id);
    sqlite3_bind_int64(st, 2, g->block_size);
    db_bind_text(st, 3, g->module);
    if (g->loop >= 0)
        sqlite3_bind_int64(st, 4, g->loop);
    else
        sqlite3_bind_null(st, 4);
    db_bind_text(st, 5, g->strides);
    sqlite3_bind_int64(st, 6, cold);
    sqlite3_bind_int64(st, 7, touches);
    db_bind_id(st, 8, walk[0]);
    db_bind_id(st, 9, walk[1]);
    int rc = db_step_done(w->d, st, DOING_STORE, err, errlen);
    sqlite3_clear_bindings(st);
    int64_t group = sqlite3_last_insert_rowid(w->d->sql);
    for (size_t i = 0; rc == 0 && i < g->nmembers; i++)
        rc = put_member(w, group, &g->members[i], err, errlen);
    return rc == 0 ? put_parts(w, group, g->module, g->m, err, errlen) : rc;
}

int db_model_commit(db_model_writer *w, char *err, size_t errlen)
{
    for (int k = 0; k < NWRITE; k++) {
        sqlite3_finalize(w->st[k]);
        w->st[k] = NULL;
    }
    if (db_exec(w->d, "COMMIT", DOING_STORE, err, errlen) != 0) {
        db_model_abort(w);
        return -1;
    }
    free(w);
    return 0;
}

/* ---- reading ------------------------------------------------------------- */

void db_model_set_free(db_model_set *s)
{
    free(s->created);
    free(s->program);
    for (int k = 0; k < s->nparams; k++)
        free(s->params[k]);
    free(s->runs);
    free(s->basis);
    free(s->builds);
    free(s->unmatched);
    free(s->phase);
    memset(s, 0, sizeof *s);
}

/* Fill the parameter names, ranges and block sizes of a set from its JSON
 * columns; -1 when they are damaged. */
static int parse_set_json(db_model_set *s, const char *params, const char *ranges, const char *sizes)
{
    json_t *p = json_loads(params ? params : "", 0, NULL), *r = json_loads(ranges ? ranges : "", 0, NULL),
           *b = json_loads(sizes ? sizes : "", 0, NULL);
    int rc = json_is_array(p) && json_array_size(p) <= MODEL_MAX_PARAMS && json_is_object(r) && json_is_array(b) &&
                     json_array_size(b) <= PROFILE_MAX_BLOCK_SIZES
                 ? 0
                 : -1;
    for (size_t k = 0; rc == 0 && k < json_array_size(p); k++) {
        const char *name = json_string_value(json_array_get(p, k));
        json_t *range = json_object_get(r, name ? name : "");
        if (!name || !(s->params[k] = strdup(name)) || !json_is_array(range)) {
            rc = -1;
            break;
        }
        s->nparams = (int)k + 1;
        s->lo[k] = json_number_value(json_array_get(range, 0));
        s->hi[k] = json_number_value(json_array_get(range, 1));
    }
    for (size_t k = 0; rc == 0 && k < json_array_size(b); k++)
        s->block_sizes[s->nblock_sizes++] = (uint32_t)json_integer_value(json_array_get(b, k));
    json_decref(p), json_decref(r), json_decref(b);
    return rc;
}

/* Is text NULL or a JSON array? */
static int array_or_null(const char *text)
{
    json_t *a = text ? json_loads(text, 0, NULL) : NULL;
    int ok = !text || json_is_array(a);
    json_decref(a);
    return ok;
}

/* *id = the newest set of whole runs, 0 when there is none. */
static int query_newest_whole(db *d, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT ifnull(max(id), 0) FROM model_sets WHERE phase IS NULL", &st, DOING_READ, err,
                   errlen) != 0)
        return -1;
    int rc = sqlite3_step(st) == SQLITE_ROW ? 0 : db_fail(d, DOING_READ, err, errlen);
    *id = rc == 0 ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_finalize(st);
    return rc;
}

void db_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int db_model_set_phases(db *d, int64_t set_id, char ***out, size_t *n, char *err, size_t errlen)
{
    *out = NULL, *n = 0;
    size_t cap = 0;
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT phase FROM model_sets WHERE parent_id = ? AND phase IS NOT NULL ORDER BY id", &st,
                   DOING_READ, err, errlen) != 0)
        return -1;
    sqlite3_bind_int64(st, 1, set_id);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        char **a = array_grow(*out, *n, &cap, sizeof **out);
        char *phase = db_column_strdup(st, 0);
        if (!a || !phase) {
            free(phase);
            rc = SQLITE_NOMEM;
            break;
        }
        *out = a;
        a[(*n)++] = phase;
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE)
        return 0;
    db_strings_free(*out, *n);
    *out = NULL, *n = 0;
    return rc == SQLITE_NOMEM ? oom(d, DOING_READ, err, errlen) : db_fail(d, DOING_READ, err, errlen);
}

/* The message of a phase without a model set under set `parent` (which
 * has the phases listed, or none), into err; DB_NOT_FOUND. */
static int no_phase_set(db *d, int64_t parent, const char *phase, char *err, size_t errlen)
{
    char **phases = NULL;
    size_t n = 0;
    int rc = db_model_set_phases(d, parent, &phases, &n, err, errlen);
    if (rc != 0)
        return rc;
    int len = snprintf(err, errlen, "model set %lld has no models of phase '%s': ", (long long)parent, phase);
    if (n == 0)
        snprintf(err + len, errlen - (size_t)len, "its runs had no phases (collect them with --interval-functions, "
                 "then run `augur model --db %s` again)", d->path);
    for (size_t i = 0; i < n && len > 0 && (size_t)len < errlen; i++)
        len += snprintf(err + len, errlen - (size_t)len, "%s'%s'%s", i ? ", " : "its phases with models are ",
                        phases[i], i + 1 < n ? "" : " (give one of them to --phase)");
    db_strings_free(phases, n);
    return DB_NOT_FOUND;
}

int db_model_set_newest(db *d, const char *phase, db_model_set *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *st;
    if (db_prepare(d,
                   "SELECT id, created, program, params, ranges, runs, basis, block_sizes, rd_method, builds, "
                   "unmatched, parent_id, phase FROM model_sets WHERE (?1 IS NULL AND phase IS NULL) OR "
                   "(phase = ?1 AND parent_id = (SELECT max(id) FROM model_sets WHERE phase IS NULL)) "
                   "ORDER BY id DESC LIMIT 1",
                   &st, DOING_READ, err, errlen) != 0)
        return -1;
    db_bind_text(st, 1, phase);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        int64_t parent = 0;
        if (phase && query_newest_whole(d, &parent, err, errlen) != 0)
            return -1;
        if (parent)
            return no_phase_set(d, parent, phase, err, errlen);
        snprintf(err, errlen, "%s has no models: run `augur model --db %s` first (after collecting runs at several "
                              "parameter values)",
                 d->path, d->path);
        return DB_NOT_FOUND;
    }
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return db_fail(d, DOING_READ, err, errlen);
    }
    out->id = sqlite3_column_int64(st, 0);
    if (sqlite3_column_int(st, 8) != DB_RD_METHOD) {
        sqlite3_finalize(st);
        snprintf(err, errlen, "%s: model set %lld was fitted by an older augur, whose reuse-distance models this one "
                              "reads differently: run `augur model --db %s` again",
                 d->path, (long long)out->id, d->path);
        return -1;
    }
    out->created = db_column_strdup(st, 1);
    out->program = db_column_strdup(st, 2);
    out->runs = db_column_strdup(st, 5);
    out->basis = db_column_strdup(st, 6);
    out->builds = db_column_strdup(st, 9);
    out->unmatched = db_column_strdup(st, 10);
    out->parent_id = sqlite3_column_int64(st, 11);
    out->phase = db_column_strdup(st, 12);
    int bad = parse_set_json(out, (const char *)sqlite3_column_text(st, 3), (const char *)sqlite3_column_text(st, 4),
                             (const char *)sqlite3_column_text(st, 7)) ||
              !array_or_null(out->builds) || !array_or_null(out->unmatched);
    sqlite3_finalize(st);
    if (bad || !out->created || !out->program || !out->runs || !out->basis) {
        snprintf(err, errlen, "%s: model set %lld is damaged (unreadable parameters, ranges or builds): run `augur model` "
                              "again",
                 d->path, (long long)out->id);
        return -1;
    }
    return 0;
}

/* Read a model from columns first.. (method, constant, terms, fit_smape,
 * cv_smape, fit_max_rel, points, spread); -1 when the terms are damaged. */
static int read_model(sqlite3_stmt *st, int first, const db_model_set *set, model *m)
{
    memset(m, 0, sizeof *m);
    const char *method = (const char *)sqlite3_column_text(st, first);
    m->method = method_of(method ? method : "");
    m->constant = sqlite3_column_double(st, first + 1);
    const char *terms = (const char *)sqlite3_column_text(st, first + 2);
    m->fit_smape = sqlite3_column_double(st, first + 3);
    m->cv_smape = sqlite3_column_double(st, first + 4);
    m->fit_max_rel = sqlite3_column_double(st, first + 5);
    m->npoints = (size_t)sqlite3_column_int64(st, first + 6);
    read_spread((const char *)sqlite3_column_text(st, first + 7), m);
    return parse_terms(terms ? terms : "", set, m);
}

#define MODEL_COLUMNS "method, constant, terms, fit_smape, cv_smape, fit_max_rel, points, spread"

void db_model_rows_free(db_model_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        db_model_row *r = &rows[i];
        free(r->kind), free(r->module), free(r->function), free(r->file), free(r->scope_kind);
        if (r->m)
            model_static_free(r->m->st);
        free(r->metric), free(r->formula), free(r->m);
    }
    free(rows);
}

/* One row of models into a db_model_row; a model whose terms cannot be
 * read is left NULL for db_models_load to report. */
static int fill_model_row(void *elem, sqlite3_stmt *st, void *ctx)
{
    db_model_row *r = elem;
    r->kind = db_column_strdup(st, 0);
    r->module = db_column_strdup(st, 1);
    r->function = db_column_strdup(st, 2);
    r->file = db_column_strdup(st, 3);
    r->line = (uint32_t)sqlite3_column_int64(st, 4);
    r->scope = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 5);
    r->scope_kind = db_column_strdup(st, 6);
    r->addr = db_column_u64(st, 7);
    r->end_addr = db_column_u64(st, 8);
    r->metric = db_column_strdup(st, 9);
    r->formula = db_column_strdup(st, 10);
    r->m = malloc(sizeof *r->m);
    if (!r->kind || !r->metric || !r->formula || !r->m)
        return -1;
    if (read_model(st, 11, ctx, r->m) != 0) {
        model_static_free(r->m->st);
        free(r->m);
        r->m = NULL;
    }
    return 0;
}

int db_models_load(db *d, const db_model_set *set, db_model_row **out, size_t *n, char *err, size_t errlen)
{
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_model_row, (void *)set};
    if (db_query_rows(d,
                      "SELECT kind, module, function, file, line, scope, scope_kind, addr, end_addr, metric, formula, "
                      MODEL_COLUMNS " FROM models WHERE set_id = ?1 AND kind <> 'rd' ORDER BY id",
                      set->id, 0, &a, DOING_READ, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < *n; i++)
        if (!(*out)[i].m) {
            snprintf(err, errlen, "%s: the terms of a %s model of set %lld are damaged: run `augur model` again",
                     d->path, (*out)[i].metric, (long long)set->id);
            return -1;
        }
    return 0;
}

/* ---- reading rd groups ----------------------------------------------------- */

/* Load model `id` of the set into *m. */
static int load_model_id(db *d, sqlite3_stmt *st, const db_model_set *set, int64_t id, model *m, char *err,
                         size_t errlen)
{
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, id);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && read_model(st, 0, set, m) == 0)
        return 0;
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        snprintf(err, errlen, "%s: model %lld of set %lld is missing or damaged: run `augur model` again", d->path,
                 (long long)id, (long long)set->id);
        return -1;
    }
    return db_fail(d, DOING_READ, err, errlen);
}

static int fill_member(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    struct db_rd_member_row *m = elem;
    m->addr = db_column_u64(st, 0);
    m->function = db_column_strdup(st, 1); /* NULL: unknown */
    m->file = db_column_strdup(st, 2);
    m->line = (uint32_t)sqlite3_column_int64(st, 3);
    m->share = sqlite3_column_double(st, 4);
    return 0;
}

static int load_members(db *d, int64_t group, db_rd_group *g, char *err, size_t errlen)
{
    db_row_array a = {(void **)&g->members, &g->nmembers, 0, sizeof *g->members, fill_member, NULL};
    return db_query_rows(d,
                         "SELECT addr, function, file, line, share FROM rd_members WHERE group_id = ?1 ORDER BY rowid",
                         group, 0, &a, DOING_READ, err, errlen);
}

enum { R_MODEL, R_PARTS, NREAD };
static const char *const read_sql[NREAD] = {
    "SELECT " MODEL_COLUMNS " FROM models WHERE id = ?",
    "SELECT kind, distance, u_low, u_high, fraction_model, low_model, high_model, mean_model FROM rd_parts "
    "WHERE group_id = ? ORDER BY position",
};

typedef struct group_reader {
    db *d;
    const db_model_set *set;
    sqlite3_stmt *st[NREAD];
    char *err;
    size_t errlen;
} group_reader;

static int load_part(group_reader *r, sqlite3_stmt *pt, rd_model *m)
{
    const char *kind = (const char *)sqlite3_column_text(pt, 0);
    if (kind && !strcmp(kind, "lead")) {
        rd_model_lead *l = &m->lead[m->nlead++];
        l->distance = sqlite3_column_double(pt, 1);
        return load_model_id(r->d, r->st[R_MODEL], r->set, sqlite3_column_int64(pt, 4), &l->fraction, r->err,
                             r->errlen);
    }
    rd_model_bin *b = &m->bins[m->nbins++];
    b->u_low = sqlite3_column_double(pt, 2);
    b->u_high = sqlite3_column_double(pt, 3);
    model *parts[3] = {&b->low, &b->high, &b->mean};
    for (int k = 0; k < 3; k++)
        if (load_model_id(r->d, r->st[R_MODEL], r->set, sqlite3_column_int64(pt, 5 + k), parts[k], r->err,
                          r->errlen) != 0)
            return -1;
    return 0;
}

/* The parts of group `id` into m (arrays sized by counting first). */
static int load_parts(group_reader *r, int64_t id, rd_model *m)
{
    sqlite3_stmt *pt = r->st[R_PARTS];
    size_t count = 0;
    sqlite3_reset(pt);
    sqlite3_bind_int64(pt, 1, id);
    while (sqlite3_step(pt) == SQLITE_ROW)
        count++;
    m->lead = calloc(count + 1, sizeof *m->lead);
    m->bins = calloc(count + 1, sizeof *m->bins);
    if (!m->lead || !m->bins)
        return oom(r->d, DOING_READ, r->err, r->errlen);
    sqlite3_reset(pt);
    int rc;
    while ((rc = sqlite3_step(pt)) == SQLITE_ROW)
        if (load_part(r, pt, m) != 0)
            return -1;
    return rc == SQLITE_DONE ? 0 : db_fail(r->d, DOING_READ, r->err, r->errlen);
}

/* The model of column `col` of gs into a new *out, or NULL when it is NULL. */
static int load_optional_model(group_reader *r, sqlite3_stmt *gs, int col, model **out)
{
    *out = NULL;
    if (sqlite3_column_type(gs, col) == SQLITE_NULL)
        return 0;
    if (!(*out = calloc(1, sizeof **out)))
        return oom(r->d, DOING_READ, r->err, r->errlen);
    return load_model_id(r->d, r->st[R_MODEL], r->set, sqlite3_column_int64(gs, col), *out, r->err, r->errlen);
}

static int load_group(group_reader *r, sqlite3_stmt *gs, db_rd_group *g)
{
    int64_t id = sqlite3_column_int64(gs, 0);
    g->block_size = (uint32_t)sqlite3_column_int64(gs, 1);
    g->module = db_column_strdup(gs, 2);
    g->loop = sqlite3_column_type(gs, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(gs, 3);
    g->strides = db_column_strdup(gs, 4);
    if (!(g->m = calloc(1, sizeof *g->m)))
        return oom(r->d, DOING_READ, r->err, r->errlen);
    if (load_model_id(r->d, r->st[R_MODEL], r->set, sqlite3_column_int64(gs, 5), &g->m->cold, r->err,
                      r->errlen) != 0 ||
        load_model_id(r->d, r->st[R_MODEL], r->set, sqlite3_column_int64(gs, 6), &g->m->touches, r->err,
                      r->errlen) != 0 ||
        load_members(r->d, id, g, r->err, r->errlen) != 0 || load_optional_model(r, gs, 7, &g->stride) != 0 ||
        load_optional_model(r, gs, 8, &g->run) != 0)
        return -1;
    if (!g->stride || !g->run) { /* both or neither */
        free(g->stride), free(g->run);
        g->stride = g->run = NULL;
    }
    return load_parts(r, id, g->m);
}

/* The growth bound of the groups' slice edges beyond the set's fitted
 * range (rd_models_bound_growth), per block size: one parameter only. */
static int bound_growth(db *d, const db_model_set *set, db_rd_group *g, size_t n, char *err, size_t errlen)
{
    if (set->nparams != 1 || n == 0)
        return 0;
    rd_model **ms = malloc(n * sizeof *ms);
    if (!ms)
        return oom(d, DOING_READ, err, errlen);
    for (int b = 0; b < set->nblock_sizes; b++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (g[i].block_size == set->block_sizes[b] && g[i].m)
                ms[k++] = g[i].m;
        rd_models_bound_growth(ms, k, set->hi[0]);
    }
    free(ms);
    return 0;
}

int db_rd_groups_load(db *d, const db_model_set *set, db_rd_group **out, size_t *n, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    group_reader r = {.d = d, .set = set, .err = err, .errlen = errlen};
    sqlite3_stmt *gs = NULL;
    int rc = db_prepare(d,
                        "SELECT id, block_size, module, loop, strides, cold_model, touches_model, stride_model, "
                        "run_model FROM rd_groups WHERE set_id = ? ORDER BY id",
                        &gs, DOING_READ, err, errlen);
    for (int k = 0; k < NREAD && rc == 0; k++)
        rc = db_prepare(d, read_sql[k], &r.st[k], DOING_READ, err, errlen);
    size_t cap = 0;
    if (rc == 0)
        sqlite3_bind_int64(gs, 1, set->id);
    int step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(gs)) == SQLITE_ROW) {
        db_rd_group *grown = array_grow(*out, *n, &cap, sizeof **out);
        if (!grown) {
            rc = oom(d, DOING_READ, err, errlen);
            break;
        }
        *out = grown;
        db_rd_group *g = memset(&(*out)[(*n)++], 0, sizeof **out);
        rc = load_group(&r, gs, g);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = db_fail(d, DOING_READ, err, errlen);
    sqlite3_finalize(gs);
    for (int k = 0; k < NREAD; k++)
        sqlite3_finalize(r.st[k]);
    return rc == 0 ? bound_growth(d, set, *out, *n, err, errlen) : rc;
}

void db_rd_groups_free(db_rd_group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++) {
        free(g[i].module), free(g[i].strides), free(g[i].stride), free(g[i].run);
        for (size_t k = 0; k < g[i].nmembers; k++)
            free(g[i].members[k].function), free(g[i].members[k].file);
        free(g[i].members);
        if (g[i].m)
            rd_model_free(g[i].m);
        free(g[i].m);
    }
    free(g);
}

/* ---- what the fitting needs to know about runs and binaries --------------- */

static int fill_id(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    *(int64_t *)elem = sqlite3_column_int64(st, 0);
    return 0;
}

int db_complete_runs(db *d, int64_t **ids, size_t *n, char *err, size_t errlen)
{
    db_row_array a = {(void **)ids, n, 0, sizeof **ids, fill_id, NULL};
    return db_query_rows(d, "SELECT id FROM runs WHERE status = 'complete' AND parent_id IS NULL AND ?1 = ?1 ORDER BY id", 1, 0, &a,
                         DOING_READ, err, errlen);
}

int db_module_id(db *d, const char *path, const char *build_id, int64_t *id, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (db_prepare(d, "SELECT id FROM modules WHERE path = ? AND build_id = ?", &st, DOING_READ, err, errlen) != 0)
        return -1;
    sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, build_id ? build_id : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return 0;
    if (rc != SQLITE_DONE)
        return db_fail(d, DOING_READ, err, errlen);
    snprintf(err, errlen, "%s: no module %s", d->path, path);
    return DB_NOT_FOUND;
}

/* Rows come one per operand; fill_memory_key takes one, and the caller
 * joins the operands of one instruction. */
static int fill_memory_key(void *elem, sqlite3_stmt *st, void *ctx)
{
    (void)ctx;
    db_memory_key *k = elem;
    k->addr = db_column_u64(st, 0);
    k->loop = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
    return (k->strides = db_column_strdup(st, 2)) ? 0 : -1;
}

int db_memory_keys(db *d, int64_t binary_id, db_memory_key **out, size_t *n, char *err, size_t errlen)
{
    db_row_array a = {(void **)out, n, 0, sizeof **out, fill_memory_key, NULL};
    return db_query_rows(d,
                         "SELECT addr, json_extract(loops, '$[0]'), group_concat(strides, ';') FROM "
                         "(SELECT addr, loops, strides FROM memory_operands WHERE binary_id = ?1 "
                         "ORDER BY addr, operand) GROUP BY addr ORDER BY addr",
                         binary_id, 0, &a, DOING_READ, err, errlen);
}

void db_memory_keys_free(db_memory_key *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++)
        free(k[i].strides);
    free(k);
}
