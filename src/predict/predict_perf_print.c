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

static void write_levels(const predict_perf *pp, FILE *out)
{
    fprintf(out, "\nMachine %s: %.3g GHz\n", pp->m->name, pp->m->clock_ghz);
    fprintf(out, "  %-24s %16s\n", "level", "misses");
    for (size_t i = 0; i < pp->nlevels; i++)
        fprintf(out, "  %-24s %16.0f\n", pp->levels[i].name, pp->misses[i]);
    for (size_t j = 0; j < pp->ntlbs; j++)
        fprintf(out, "  %-24s %16.0f\n", pp->tlbs[j].name, pp->tlb_misses[j]);
    fprintf(out, "Predicted time: %.6g s (%.6g cycles)\n", pp->seconds, pp->cycles);
    double hz = pp->m->clock_ghz * 1e9;
    fprintf(out, "  of which page faults: %.6g s (%.0f first touches of 4 KiB pages at %g ns)\n",
            pp->fault_cycles / hz, pp->page_faults, pp->m->page_fault_ns);
    fprintf(out, "  of which branch mispredictions: %.6g s (%.0f in loops at %g cycles)\n",
            pp->mispredict_cycles / hz, pp->mispredicts, pp->m->branch_mispredict_cycles);
}

static void write_loops(const predict_perf *pp, size_t top, FILE *out)
{
    predict_loop **order = malloc((pp->nloops + 1) * sizeof *order);
    if (!order)
        return;
    for (size_t i = 0; i < pp->nloops; i++)
        order[i] = &pp->loops[i];
    qsort(order, pp->nloops, sizeof *order, by_loop_time);
    size_t shown = top && top < pp->nloops ? top : pp->nloops;
    fprintf(out, "\nLoops (most time first; cycles per iteration on the core, memory cycles in all):\n");
    fprintf(out, "  %-34s %-16s %14s %10s %14s %-18s %12s\n", "loop", "function", "iterations", "core c/it",
            "memory cyc", "bound", "time s");
    for (size_t i = 0; i < shown; i++) {
        const predict_loop *L = order[i];
        char label[64], bound[32], name[17]; /* the function column's 16 characters */
        snprintf(label, sizeof label, "%s:%u", report_base_name(L->s->file) ?: "?", L->s->line);
        fprintf(out, "  %-34s %-16s %14.0f %10.3g %14.4g %-18s %12.4g\n", label,
                L->function ? st_short_name(L->function, 16, name, sizeof name) : "?",
                L->cost.time.iterations, L->cost.core.cycles, L->cost.time.mem_cycles,
                perf_bound_name(pp->m, L->cost.time.bound, bound, sizeof bound), L->cost.time.seconds);
    }
    free(order);
}

static void write_functions(const prediction *p, const predict_perf *pp, size_t top, FILE *out)
{
    size_t shown = top && top < p->rep.nfunctions ? top : p->rep.nfunctions;
    fprintf(out, "\nFunctions (time of their loops and other code):\n  %-32s %14s %12s %-18s", "function",
            "cycles", "time s", "bound");
    for (size_t i = 0; i < pp->nlevels; i++)
        fprintf(out, " %12s", pp->levels[i].name);
    fputc('\n', out);
    for (size_t k = 0; k < shown; k++) {
        const predict_function_perf *f = &pp->functions[k];
        char bound[32], name[33]; /* the function column's 32 characters */
        const char *fn = p->rep.functions[k].function;
        fprintf(out, "  %-32s %14.4g %12.4g %-18s", fn ? st_short_name(fn, 32, name, sizeof name) : "?", f->cycles, f->seconds,
                perf_bound_name(pp->m, f->bound, bound, sizeof bound));
        for (size_t i = 0; i < pp->nlevels; i++)
            fprintf(out, " %12.0f", f->misses[i]);
        fputc('\n', out);
    }
}

int predict_perf_write_text(const prediction *p, const predict_perf *pp, size_t top, FILE *out)
{
    write_levels(pp, out);
    write_loops(pp, top, out);
    write_functions(p, pp, top, out);
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
        set_penalties(total, pp, pp->page_faults, pp->fault_cycles, pp->mispredicts, pp->mispredict_cycles) != 0)
        return -1;
    size_t i;
    json_t *f;
    json_array_foreach(functions, i, f)
    {
        const predict_function_perf *fp = &pp->functions[i];
        if (set_time(f, pp, fp->misses, fp->tlb_misses, fp->cycles, fp->seconds, fp->bound) != 0 ||
            set_penalties(f, pp, fp->page_faults, fp->fault_cycles, fp->mispredicts, fp->mispredict_cycles) != 0)
            return -1;
    }
    json_t *machine = json_pack("{s:s, s:f}", "name", pp->m->name, "clock_ghz", pp->m->clock_ghz);
    if (!machine || json_object_set_new(doc, "machine", machine) != 0)
        return -1;
    json_t *scopes = json_object_get(doc, "scopes");
    return scopes ? add_loops(pp, scopes) : 0;
}

int prediction_write(const prediction *p, const predict_perf *pp, int json, size_t top, FILE *out)
{
    if (!json)
        return report_write_text(&p->rep, top, out) != 0 || predict_write_errors_text(p, top, out) != 0 ||
                       predict_write_scopes_text(p, top, out) != 0 ||
                       (pp && predict_perf_write_text(p, pp, top, out) != 0)
                   ? -1
                   : 0;
    json_t *j = report_json(&p->rep, top), *scopes = predict_scopes_json(p);
    int rc = j && scopes && json_object_set_new(j, "scopes", scopes) == 0 && predict_errors_json(p, j) == 0 ? 0 : -1;
    if (rc == 0 && pp)
        rc = predict_perf_json(p, pp, j);
    if (rc == 0)
        rc = json_dumpf(j, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(j);
    return rc;
}
