/* predict_perf_print.c — what `augur predict --machine` shows: misses per
 * level, the program's time, the loops and functions with their time and
 * bound, as text tables or as members added to the prediction's JSON
 * (docs/performance-model.md, "Output"). */
#include <stdlib.h>
#include <string.h>

#include "predict/predict_perf.h"
#include "util/json_util.h"

/* ---- text ---------------------------------------------------------------------------- */

static int by_loop_time(const void *pa, const void *pb)
{
    const predict_loop *a = *(predict_loop *const *)pa, *b = *(predict_loop *const *)pb;
    return a->cost.time.cycles < b->cost.time.cycles ? 1 : a->cost.time.cycles > b->cost.time.cycles ? -1 : 0;
}

/* Memory cycles and cycles are a model's: shown to 4 significant digits,
 * as whole cycles. */
#define CYCLE_DIGITS 4
/* Times: the decimals that give the largest of a column 4 significant
 * digits, the same for every row (numfmt_decimals). */
#define TIME_DIGITS 4

/* Cycles as whole cycles to CYCLE_DIGITS significant digits, into buf
 * (NUMFMT_LEN bytes); returns buf. */
static const char *cycles_text(double cycles, num_style numbers, char *buf)
{
    return numfmt_fixed(numfmt_round_sig(cycles, CYCLE_DIGITS), 0, numbers, buf);
}

/* A time in seconds on its own (not in a column) to TIME_DIGITS
 * significant digits, in fixed notation, into buf; returns buf. */
static const char *seconds_text(double seconds, num_style numbers, char *buf)
{
    return numfmt_fixed(seconds, numfmt_decimals(seconds, TIME_DIGITS), numbers, buf);
}

static void write_levels(const predict_perf *pp, num_style numbers, FILE *out)
{
    char a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN], r[NUMFMT_RANGE_LEN];
    fprintf(out, "\nMachine %s: %.3g GHz\n", pp->m->name, pp->m->clock_ghz);
    fprintf(out, "  %-24s %20s%s\n", "level", "misses", pp->ranged ? "  range" : "");
    for (size_t i = 0; i < pp->nlevels; i++) {
        double lo = pp->ranged ? pp->misses_low[i] : 0, hi = pp->ranged ? pp->misses_high[i] : 0;
        fprintf(out, "  %-24s %20s", pp->levels[i].name, numfmt_fixed(numfmt_shown(pp->misses[i], lo, hi), 0, numbers, a));
        if (pp->ranged)
            fprintf(out, "  %s", numfmt_range(lo, hi, numbers, r));
        fputc('\n', out);
    }
    for (size_t j = 0; j < pp->ntlbs; j++)
        fprintf(out, "  %-24s %20s\n", pp->tlbs[j].name, numfmt_fixed(pp->tlb_misses[j], 0, numbers, a));
    fprintf(out, "Predicted time: %s s (%s cycles)\n", seconds_text(pp->seconds, numbers, a),
            cycles_text(pp->cycles, numbers, b));
    double hz = pp->m->clock_ghz * 1e9;
    fprintf(out, "  of which page faults: %s s (%s first touches of 4 KiB pages at %g ns)\n",
            seconds_text(pp->fault_cycles / hz, numbers, a), numfmt_fixed(pp->page_faults, 0, numbers, c),
            pp->m->page_fault_ns);
    /* each costs the refill plus its branch's wait for its condition, less
     * the queued work the core does meanwhile: their mean, 3 digits */
    double each = pp->mispredicts > 0 ? pp->mispredict_cycles / pp->mispredicts : pp->m->branch_mispredict_cycles;
    fprintf(out, "  of which branch mispredictions: %s s (%s in loops at %s cycles each: %g to refill, the rest "
            "waiting for the condition, less overlap)\n",
            seconds_text(pp->mispredict_cycles / hz, numbers, a), numfmt_fixed(pp->mispredicts, 0, numbers, c),
            numfmt_fixed(each, numfmt_decimals(each, 3), numbers, b), pp->m->branch_mispredict_cycles);
}

static void write_loops(const predict_perf *pp, const predict_output *o, FILE *out)
{
    predict_loop **order = malloc((pp->nloops + 1) * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < pp->nloops; i++)
        order[i] = &pp->loops[i];
    qsort(order, pp->nloops, sizeof *order, by_loop_time);
    size_t shown = o->top && o->top < pp->nloops ? o->top : pp->nloops;
    /* Most time first: the first row's time sets the column's decimals. */
    int decimals = numfmt_decimals(shown ? order[0]->cost.time.seconds : 0, TIME_DIGITS);
    fprintf(out, "\nLoops (most time first; cycles per iteration on the core, memory cycles in all):\n");
    fprintf(out, "  %-34s %-16s %16s %10s %16s %-18s %12s\n", "loop", "function", "iterations", "core c/it",
            "memory cyc", "bound", "time s");
    for (size_t i = 0; i < shown; i++) {
        const predict_loop *L = order[i];
        char label[64], bound[32], name[17]; /* the function column's 16 characters */
        char it[NUMFMT_LEN], mem[NUMFMT_LEN], t[NUMFMT_LEN];
        snprintf(label, sizeof label, "%s:%u", report_base_name(L->s->file) ?: "?", L->s->line);
        fprintf(out, "  %-34s %-16s %16s %10.2f %16s %-18s %12s\n", label,
                L->function ? st_short_name(L->function, 16, name, sizeof name) : "?",
                numfmt_fixed(L->cost.time.iterations, 0, o->numbers, it), L->cost.core.cycles,
                cycles_text(L->cost.time.mem_cycles, o->numbers, mem),
                perf_bound_name(pp->m, L->cost.time.bound, bound, sizeof bound),
                numfmt_fixed(L->cost.time.seconds, decimals, o->numbers, t));
    }
    free(order);
}

static void write_functions(const prediction *p, const predict_perf *pp, const predict_output *o, FILE *out)
{
    size_t ranked = report_ranked_functions(&p->rep), shown = o->top && o->top < ranked ? o->top : ranked;
    double longest = 0;
    for (size_t k = 0; k < shown; k++)
        longest = pp->functions[k].seconds > longest ? pp->functions[k].seconds : longest;
    int decimals = numfmt_decimals(longest, TIME_DIGITS);
    fprintf(out, "\nFunctions (time of their loops and other code):\n  %-32s %16s %12s %-18s", "function",
            "cycles", "time s", "bound");
    for (size_t i = 0; i < pp->nlevels; i++)
        fprintf(out, " %14s", pp->levels[i].name);
    fputc('\n', out);
    for (size_t k = 0; k < shown; k++) {
        const predict_function_perf *f = &pp->functions[k];
        char bound[32], name[33], cyc[NUMFMT_LEN], t[NUMFMT_LEN], m[NUMFMT_LEN]; /* the function column's 32 */
        const char *fn = p->rep.functions[k].function;
        fprintf(out, "  %-32s %16s %12s %-18s", fn ? st_short_name(fn, 32, name, sizeof name) : "?",
                cycles_text(f->cycles, o->numbers, cyc), numfmt_fixed(f->seconds, decimals, o->numbers, t),
                perf_bound_name(pp->m, f->bound, bound, sizeof bound));
        for (size_t i = 0; i < pp->nlevels; i++)
            fprintf(out, " %14s", numfmt_fixed(f->misses[i], 0, o->numbers, m));
        fputc('\n', out);
    }
}

int predict_perf_write_text(const prediction *p, const predict_perf *pp, const predict_output *o, FILE *out)
{
    write_levels(pp, o->numbers, out);
    write_loops(pp, o, out);
    write_functions(p, pp, o, out);
    return ferror(out) ? -1 : 0;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static json_t *misses_json(const predict_perf *pp, const double *cache)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < pp->nlevels; i++)
        json_object_set_new(o, pp->levels[i].name, json_real(cache[i]));
    return o;
}

static json_t *tlb_json(const predict_perf *pp, const double *tlb)
{
    json_t *o = json_object();
    for (size_t j = 0; o && j < pp->ntlbs; j++)
        json_object_set_new(o, pp->tlbs[j].name, json_real(tlb[j]));
    return o;
}

/* {"L1": [low, high], ...}: the levels' miss ranges. */
static json_t *ranges_json(const predict_perf *pp, const double *low, const double *high)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < pp->nlevels; i++)
        json_object_set_new(o, pp->levels[i].name, json_pack("[f, f]", low[i], high[i]));
    return o;
}

/* "misses_range" into o, for a prediction (a measured run has none). */
static int set_ranges(json_t *o, const predict_perf *pp, const double *low, const double *high)
{
    return pp->ranged ? json_object_set_new(o, "misses_range", ranges_json(pp, low, high)) : 0;
}

/* misses, tlb_misses, cycles, time_seconds, bound into o. */
static int set_time(json_t *o, const predict_perf *pp, const double *cache, const double *tlb, double cycles,
                    double seconds, int bound)
{
    char name[32];
    return json_object_set_new(o, "misses", misses_json(pp, cache)) ||
                   json_object_set_new(o, "tlb_misses", tlb_json(pp, tlb)) ||
                   json_object_set_new(o, "cycles", json_real(cycles)) ||
                   json_object_set_new(o, "time_seconds", json_real(seconds)) ||
                   json_object_set_new(o, "bound", json_string(perf_bound_name(pp->m, bound, name, sizeof name)))
               ? -1
               : 0;
}

/* The penalty terms of a total or function: page_faults,
 * page_fault_seconds, mispredicts, mispredict_seconds. */
static int set_penalties(json_t *o, const predict_perf *pp, double faults, double fault_cycles, double mispredicts,
                         double mispredict_cycles)
{
    double hz = pp->m->clock_ghz * 1e9;
    return json_object_set_new(o, "page_faults", json_real(faults)) ||
                   json_object_set_new(o, "page_fault_seconds", json_real(fault_cycles / hz)) ||
                   json_object_set_new(o, "mispredicts", json_real(mispredicts)) ||
                   json_object_set_new(o, "mispredict_seconds", json_real(mispredict_cycles / hz))
               ? -1
               : 0;
}

/* Every term of a loop's cost. */
static json_t *terms_json(const predict_perf *pp, const predict_cost *c, double mispredicts)
{
    json_t *bw = json_object();
    for (size_t i = 0; bw && i < pp->nlevels; i++)
        json_object_set_new(bw, pp->levels[i].name, json_real(c->mem.bw_cycles[i]));
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:o, s:f, s:f, s:f, s:i, s:f, s:f, s:f, s:f}",
                     "core_cycles_per_iteration", c->core.cycles, "issue", c->core.issue, "ports", c->core.resource,
                     "recurrence", c->core.recurrence, "core_cycles", c->time.core_cycles, "latency_cycles",
                     c->mem.latency_cycles, "overlap", c->mem.overlap, "bandwidth_cycles", bw ? bw : json_null(),
                     "tlb_cycles", c->mem.tlb_cycles, "memory_cycles", c->mem.cycles, "iterations",
                     c->time.iterations, "dependent", c->traffic.dependent, "page_faults",
                     c->traffic.page_faults, "page_fault_cycles", c->time.fault_cycles, "mispredicts", mispredicts,
                     "mispredict_cycles", c->time.mispredict_cycles);
}

static int add_loops(const predict_perf *pp, json_t *scopes)
{
    size_t i;
    json_t *s;
    json_array_foreach(scopes, i, s)
    {
        json_int_t id = json_integer_value(json_object_get(s, "scope"));
        for (size_t k = 0; k < pp->nloops; k++) {
            const predict_loop *L = &pp->loops[k];
            if (L->scope != id)
                continue;
            const predict_cost *c = &L->cost;
            if (set_time(s, pp, c->traffic.misses, c->traffic.tlb_misses, c->time.cycles, c->time.seconds,
                         c->time.bound) != 0 ||
                json_object_set_new(s, "terms", terms_json(pp, c, L->mispredicts)) != 0)
                return -1;
        }
    }
    return 0;
}

int predict_perf_json(const prediction *p, const predict_perf *pp, json_t *doc)
{
    json_t *total = json_object_get(doc, "total"), *functions = json_object_get(doc, "functions");
    int worst = 0;
    for (size_t k = 1; k < p->rep.nfunctions; k++)
        if (pp->functions[k].cycles > pp->functions[worst].cycles)
            worst = (int)k;
    int bound = p->rep.nfunctions ? pp->functions[worst].bound : PERF_TIME_ISSUE;
    if (!total || set_time(total, pp, pp->misses, pp->tlb_misses, pp->cycles, pp->seconds, bound) != 0 ||
        set_ranges(total, pp, pp->misses_low, pp->misses_high) != 0 ||
        set_penalties(total, pp, pp->page_faults, pp->fault_cycles, pp->mispredicts, pp->mispredict_cycles) != 0)
        return -1;
    size_t i;
    json_t *f;
    json_array_foreach(functions, i, f)
    {
        const predict_function_perf *fp = &pp->functions[i];
        if (set_time(f, pp, fp->misses, fp->tlb_misses, fp->cycles, fp->seconds, fp->bound) != 0 ||
            set_ranges(f, pp, fp->misses_low, fp->misses_high) != 0 ||
            set_penalties(f, pp, fp->page_faults, fp->fault_cycles, fp->mispredicts, fp->mispredict_cycles) != 0)
            return -1;
    }
    /* the hidden start-up rows (last in rep.functions) are part of the total: their time too */
    json_t *startup = json_object_get(doc, "startup");
    double startup_cycles = 0, startup_seconds = 0;
    for (size_t k = report_ranked_functions(&p->rep); k < p->rep.nfunctions; k++)
        startup_cycles += pp->functions[k].cycles, startup_seconds += pp->functions[k].seconds;
    if (json_is_object(startup) && (json_object_set_new(startup, "cycles", json_real(startup_cycles)) != 0 ||
                                    json_object_set_new(startup, "time_seconds", json_real(startup_seconds)) != 0))
        return -1;
    json_t *machine = json_pack("{s:s, s:f}", "name", pp->m->name, "clock_ghz", pp->m->clock_ghz);
    if (!machine || json_object_set_new(doc, "machine", machine) != 0)
        return -1;
    json_t *scopes = json_object_get(doc, "scopes");
    return scopes ? add_loops(pp, scopes) : 0;
}

json_t *prediction_json(const prediction *p, const predict_perf *pp, size_t top)
{
    json_t *j = report_json(&p->rep, top), *scopes = predict_scopes_json(p);
    int rc = j && scopes && json_object_set_new(j, "scopes", scopes) == 0 && predict_errors_json(p, j) == 0 &&
                     json_object_set_new(j, "static", predict_static_json(p)) == 0 &&
                     json_object_set_new(j, "mpi", predict_mpi_json(p)) == 0
                 ? 0
                 : -1;
    if (!j)
        json_decref(scopes);
    if (rc == 0 && pp)
        rc = predict_perf_json(p, pp, j);
    if (rc != 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

int prediction_write(const prediction *p, const predict_perf *pp, const predict_output *o, FILE *out)
{
    if (!o->json)
        return report_write_text(&p->rep, o->top, o->numbers, out) != 0 ||
                       predict_write_errors_text(p, o, out) != 0 || predict_write_scopes_text(p, o, out) != 0 ||
                       predict_write_static_text(p, out) != 0 ||
                       (pp && predict_perf_write_text(p, pp, o, out) != 0) || predict_write_mpi_text(p, o->numbers, out) != 0
                   ? -1
                   : 0;
    json_t *j = prediction_json(p, pp, o->top);
    int rc = j && json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(j);
    return rc;
}
