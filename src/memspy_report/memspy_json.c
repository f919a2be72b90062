/* memspy_json.c — the MemSpy report as one JSON document for programs;
 * every field is documented in docs/memspy.md, "Report".  Counts are
 * whole-run estimates rounded to integers (exact without sampling). */
#include <math.h>
#include <stdlib.h>

#include "memspy_report/memspy_report.h"
#include "util/json_util.h"

static json_t *count(double v)
{
    return json_integer((json_int_t)llround(v));
}

/* {"cold": n, "capacity": n, ...} of level k, scaled; unsplit misses
 * (shadow sampling) apportioned to capacity and conflict. */
static json_t *causes_json(const memspy_report *rep, const mr_misses *m, unsigned k)
{
    mr_split sp = mr_split_of(m, &rep->total.lv[k]);
    json_t *o = json_object();
    for (int c = 0; c < MS_UNSPLIT; c++) {
        double v = mr_split_cause(&sp, m, (enum ms_cause)c);
        json_object_set_new(o, ms_cause_name((enum ms_cause)c), count(v * rep->scale.factor));
    }
    return o;
}

/* Under shadow sampling, how level k's capacity/conflict split of m was
 * estimated: {"unsplit", "sampled", "capacity_share", "interval",
 * "from"}; NULL when the run split every miss. */
static json_t *split_json(const memspy_report *rep, const mr_misses *m, unsigned k)
{
    if (rep->total.lv[k].cause[MS_UNSPLIT] == 0)
        return NULL;
    mr_split sp = mr_split_of(m, &rep->total.lv[k]);
    return json_pack("{s:o, s:I, s:f, s:[f,f], s:s}", "unsplit", count(mr_scaled(&rep->scale, m->cause[MS_UNSPLIT])),
                     "sampled", (json_int_t)sp.share.n, "capacity_share", sp.share.p, "interval", sp.share.lo,
                     sp.share.hi, "from", sp.share.from_level ? "level" : "object");
}

static json_t *level_json(const memspy_report *rep, const mr_stats *s, unsigned k)
{
    mr_estimate e = mr_stats_misses(rep, s, k);
    json_t *o = json_pack("{s:s, s:o, s:[o,o], s:o, s:o, s:o}", "name", rep->raw->level[k].name, "misses",
                          count(e.est), "bounds", count(e.lo), count(e.hi), "unknown",
                          count(mr_scaled(&rep->scale, s->lv[k].unknown)), "unknown_hits",
                          count(mr_scaled(&rep->scale, s->lv[k].unknown_hits)), "causes",
                          causes_json(rep, &s->lv[k], k));
    json_t *split = split_json(rep, &s->lv[k], k);
    if (split)
        json_object_set_new(o, "split", split);
    return o;
}

/* The members every bin has: references, misses and causes at the first
 * level, every level, stall cycles and share. */
static json_t *stats_json(const memspy_report *rep, const mr_stats *s, json_t *o)
{
    json_t *levels = json_array();
    for (unsigned k = 0; k < rep->raw->nlevels; k++)
        json_array_append_new(levels, level_json(rep, s, k));
    json_object_set_new(o, "references", count(mr_stats_refs(rep, s, s->refs)));
    json_object_set_new(o, "reads", count(mr_stats_refs(rep, s, s->reads)));
    json_object_set_new(o, "writes", count(mr_stats_refs(rep, s, s->writes)));
    json_object_set_new(o, "misses", count(mr_stats_misses(rep, s, 0).est));
    json_object_set_new(o, "causes", causes_json(rep, &s->lv[0], 0));
    json_object_set_new(o, "levels", levels);
    json_object_set_new(o, "stall_cycles", json_real(s->stall));
    json_object_set_new(o, "stall_percent", json_real(rep->total.stall > 0 ? 100 * s->stall / rep->total.stall : 0));
    return o;
}

/* One allocation frame: a frame of no symbol is named as in the text
 * (MODULE+0xOFF), with "symbol": false. */
static json_t *loc_json(const memspy_raw *r, const mr_loc *l)
{
    char fn[1024];
    mr_frame_function(r, l, fn, sizeof fn);
    return json_pack("{s:o, s:b, s:o, s:i}", "function", json_string_lossy(fn), "symbol", l->fn >= 0, "file",
                     json_string_lossy(l->file >= 0 ? r->files[l->file] : NULL), "line", (json_int_t)l->line);
}

/* [{"level": "L1", "by": name, "by_id": id, "count": n, "self": bool}, ...]:
 * level by level, most replacements first.  by, e: scratch of nobjs. */
static json_t *replaced_json(const memspy_report *rep, uint32_t o, uint64_t *by, mr_evictor *e)
{
    const memspy_raw *r = rep->raw;
    json_t *a = json_array();
    for (unsigned k = 0; by && e && k < r->nlevels; k++) {
        uint64_t total;
        size_t n = mr_evictors(r, k, o, by, e, &total);
        for (size_t i = 0; i < n; i++) {
            uint32_t j = e[i].obj;
            json_array_append_new(a, json_pack("{s:s, s:o, s:I, s:o, s:b}", "level", r->level[k].name, "by",
                                               json_string_lossy(r->objs[j].name), "by_id", (json_int_t)j, "count",
                                               count(mr_scaled(&rep->scale, e[i].count)), "self", j == o));
        }
    }
    return a;
}

static json_t *data_json(const memspy_report *rep)
{
    const memspy_raw *r = rep->raw;
    json_t *a = json_array();
    uint64_t *by = calloc(r->nobjs ? r->nobjs : 1, sizeof *by);
    mr_evictor *e = calloc(r->nobjs ? r->nobjs : 1, sizeof *e);
    for (size_t i = 0; i < r->nobjs; i++) {
        uint32_t o = rep->data_rank[i];
        const mr_obj *obj = &r->objs[o];
        if (mr_data_hidden(rep, o))
            continue;
        json_t *sites = json_array();
        for (uint32_t s = 0; s < obj->nsites; s++)
            json_array_append_new(sites, loc_json(r, &r->sites[obj->first_site + s]));
        json_t *j = json_pack("{s:I, s:o, s:s, s:o, s:I, s:o, s:o}", "id", (json_int_t)o, "name", json_string_lossy(obj->name), "kind",
                              mr_kind_name(obj->kind), "size", mr_size_known(obj) ? json_integer((json_int_t)obj->size) : json_null(), "blocks",
                              (json_int_t)obj->count, "allocation", sites, "replaced_by", replaced_json(rep, o, by, e));
        json_array_append_new(a, stats_json(rep, &rep->data[o], j));
    }
    free(by);
    free(e);
    return a;
}

static json_t *code_json(const memspy_report *rep)
{
    static const char *const kinds[] = {"function", "loop", "line"};
    json_t *a = json_array();
    for (size_t i = 0; i < rep->ncode; i++) {
        const mr_code_obj *c = &rep->code[rep->code_rank[i]];
        if (mr_code_hidden(rep, rep->code_rank[i]))
            continue;
        json_t *j = json_pack("{s:s, s:o, s:o, s:o}", "kind", kinds[c->kind], "name", json_string_lossy(c->name),
                              "function", json_string_lossy(c->function), "file", json_string_lossy(c->file));
        json_array_append_new(a, stats_json(rep, &c->s, j));
    }
    return a;
}

static json_t *pairs_json(const memspy_report *rep)
{
    json_t *a = json_array();
    for (size_t i = 0; i < rep->npairs; i++) {
        const mr_pair_stats *p = &rep->pairs[rep->pair_rank[i]];
        if (mr_code_hidden(rep, p->function))
            continue;
        json_t *j = json_pack("{s:o, s:o, s:I}", "function", json_string_lossy(rep->code[p->function].name),
                              "data_object", json_string_lossy(rep->raw->objs[p->obj].name), "data_object_id",
                              (json_int_t)p->obj);
        json_array_append_new(a, stats_json(rep, &p->s, j));
    }
    return a;
}

static json_t *machine_json(const memspy_report *rep, const mr_header *h)
{
    const memspy_raw *r = rep->raw;
    json_t *levels = json_array();
    for (unsigned k = 0; k < r->nlevels; k++) {
        const mr_level *l = &r->level[k];
        json_array_append_new(levels, json_pack("{s:s, s:I, s:i, s:i, s:i, s:f}", "name", l->name, "size",
                                                (json_int_t)l->size, "line", l->line, "ways", l->ways, "shared_by",
                                                l->shared_by, "latency_cycles", rep->costs.lat[k]));
    }
    return json_pack("{s:s, s:o, s:f, s:f, s:f, s:o}", "name", h->machine, "why", json_string_lossy(h->why),
                     "clock_ghz", h->clock_ghz, "memory_latency_ns", h->mem_latency_ns, "memory_latency_cycles",
                     rep->costs.lat[r->nlevels], "levels", levels);
}

static json_t *sampling_json(const memspy_report *rep)
{
    static const char *const kinds[] = {"none", "time", "sets"};
    const memspy_raw *r = rep->raw;
    const mr_scale *s = &rep->scale;
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o}", "kind", kinds[r->sampling], "on",
                     (json_int_t)r->on, "off", (json_int_t)r->off, "sets", (json_int_t)r->sets, "simulated",
                     (json_int_t)s->simulated, "skipped", (json_int_t)r->skipped, "ratio",
                     s->total ? (double)s->simulated / (double)s->total : 1.0, "scale", s->factor, "regions",
                     r->regions >= 0 ? json_integer(r->regions) : json_null());
}

static json_t *total_json(const memspy_report *rep)
{
    const memspy_raw *r = rep->raw;
    json_t *misses = json_object(), *bounds = json_object();
    for (unsigned k = 0; k < r->nlevels; k++) {
        mr_estimate e = mr_stats_misses(rep, &rep->total, k);
        json_object_set_new(misses, r->level[k].name, count(e.est));
        json_object_set_new(bounds, r->level[k].name, json_pack("[o,o]", count(e.lo), count(e.hi)));
    }
    json_t *t = stats_json(rep, &rep->total, json_object());
    json_object_set_new(t, "misses", misses);
    json_object_set_new(t, "bounds", bounds);
    return t;
}

/* "startup": the start-up and loader code's references, misses and stall,
 * how many functions and data objects it is, and whether the lists leave
 * them out. */
static json_t *startup_json(const memspy_report *rep)
{
    return stats_json(rep, &rep->startup,
                      json_pack("{s:b, s:I, s:I}", "hidden", rep->hide_startup, "functions",
                                (json_int_t)rep->startup_functions, "data_objects", (json_int_t)rep->startup_data));
}

/* The tool's warnings, then the report's notes on the run (mr_notes_of). */
static json_t *warnings_json(const memspy_report *rep)
{
    json_t *a = json_string_array(rep->raw->warnings, rep->raw->nwarnings);
    mr_notes notes;
    mr_notes_of(rep, &notes);
    for (size_t i = 0; a && i < notes.n; i++)
        json_array_append_new(a, json_string(notes.text[i]));
    return a;
}

int memspy_write_json(const memspy_report *rep, const mr_header *h, FILE *out)
{
    const memspy_raw *r = rep->raw;
    json_t *doc = json_pack("{s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "program",
                            json_string_lossy(r->exe), "args", json_string_array(r->argv, (size_t)r->argc),
                            "pid", (json_int_t)r->pid, "exit_code", r->has_exit ? json_integer(r->exit_code) : json_null(),
                            "exec", r->exec_path ? json_string_lossy(r->exec_path) : json_null(),
                            "signal", h->term_signal > 0 ? json_integer(h->term_signal) : json_null(),
                            "machine", machine_json(rep, h), "threads", r->threads, "warnings", warnings_json(rep), "sampling", sampling_json(rep),
                            "total", total_json(rep), "pairs", pairs_json(rep), "data_objects", data_json(rep),
                            "code_objects", code_json(rep));
    if (doc && json_object_set_new(doc, "startup", startup_json(rep)) != 0)
        json_decref(doc), doc = NULL;
    if (!doc)
        return -1;
    int rc = json_dumpf(doc, out, JSON_INDENT(2)) != 0 || fputc('\n', out) == EOF ? -1 : 0;
    json_decref(doc);
    return rc;
}
