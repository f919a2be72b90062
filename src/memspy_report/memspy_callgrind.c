/* memspy_callgrind.c — the report in callgrind's file format, so that
 * callgrind_annotate and KCachegrind show memspy's counts per function and
 * source line: one event for references, then per cache level one for its
 * misses and one per cause (L1m L1cold L1cap L1conf L1tsh L1fsh L1unspl
 * ..., unspl being shadow sampling's unsplit capacity or conflict), and
 * Stall (cycles).  Counts are whole-run estimates (docs/memspy.md). */
#include <math.h>
#include <stdlib.h>

#include "memspy_report/memspy_report.h"

static const char *const cause_events[MS_NCAUSES] = {"cold", "cap", "conf", "tsh", "fsh", "unspl"};

static void events_line(const memspy_raw *r, FILE *out)
{
    fprintf(out, "events: Ref");
    for (unsigned k = 0; k < r->nlevels; k++) {
        fprintf(out, " %sm", r->level[k].name);
        for (int c = 0; c < MS_NCAUSES; c++)
            fprintf(out, " %s%s", r->level[k].name, cause_events[c]);
    }
    fprintf(out, " Stall\n");
}

static void costs(const memspy_report *rep, const mr_stats *s, FILE *out)
{
    fprintf(out, " %lld", llround(mr_scaled(&rep->scale, s->refs)));
    for (unsigned k = 0; k < rep->raw->nlevels; k++) {
        fprintf(out, " %lld", llround(mr_stats_misses(rep, s, k).est));
        for (int c = 0; c < MS_NCAUSES; c++)
            fprintf(out, " %lld", llround(mr_scaled(&rep->scale, s->lv[k].cause[c])));
    }
    fprintf(out, " %lld\n", llround(s->stall));
}

/* Counts per code location, stall included; NULL when memory runs out. */
static mr_stats *per_code(const memspy_report *rep)
{
    const memspy_raw *r = rep->raw;
    mr_stats *s = calloc(r->ncodes ? r->ncodes : 1, sizeof *s);
    for (size_t i = 0; s && i < r->npairs; i++)
        mr_stats_add(&s[r->pairs[i].code], &r->pairs[i], r->nlevels);
    for (size_t c = 0; s && c < r->ncodes; c++)
        mr_stats_stall(rep, &s[c]);
    return s;
}

int memspy_write_callgrind(const memspy_report *rep, FILE *out)
{
    const memspy_raw *r = rep->raw;
    mr_stats *s = per_code(rep);
    if (!s)
        return -1;
    fprintf(out, "# callgrind format\nversion: 1\ncreator: augur memspy (%s)\npid: %lld\ncmd: %s", r->tool,
            (long long)r->pid, r->exe);
    for (int i = 0; i < r->argc; i++)
        fprintf(out, " %s", r->argv[i]);
    fprintf(out, "\npositions: line\n");
    events_line(r, out);
    int32_t file = -2, fn = -2;
    for (size_t c = 0; c < r->ncodes; c++) {
        const mr_loc *l = &r->codes[c];
        if (s[c].refs == 0)
            continue;
        if (l->file != file || l->fn != fn) { /* a new block; callgrind adds repeated ones */
            fprintf(out, "fl=%s\nfn=%s\n", l->file >= 0 ? r->files[l->file] : "???", l->fn >= 0 ? r->fns[l->fn] : "???");
            file = l->file;
            fn = l->fn;
        }
        fprintf(out, "%u", l->line);
        costs(rep, &s[c], out);
    }
    fprintf(out, "totals:");
    costs(rep, &rep->total, out);
    free(s);
    return ferror(out) ? -1 : 0;
}
