/* memspy_notes.c — what a report says about the run itself, beyond the
 * tool's warnings, when its counts alone would mislead a reader
 * (docs/memspy.md, "Report"): the regions of interest its counts cover,
 * a time-sampled run shorter than one sample
 * (nothing was skipped: the counts are exact, not estimates), and a run so
 * short that the dynamic loader's own work makes much of the stall.  The
 * text prints them under the header, JSON appends them to `warnings`. */
#include <stdio.h>
#include <string.h>

#include "binary/startup.h"
#include "memspy_report/memspy_report.h"
#include "report/report.h"

/* Whether module m of r is the dynamic loader (ld-linux-x86-64.so.2). */
static int is_loader(const memspy_raw *r, int32_t m)
{
    return m >= 0 && startup_is_loader(r->module_paths[m]);
}

double mr_loader_stall(const memspy_report *rep, const char **module)
{
    const memspy_raw *r = rep->raw;
    mr_stats s = {0};
    *module = NULL;
    for (size_t i = 0; i < r->npairs; i++) {
        int32_t m = r->codes[r->pairs[i].code].module;
        if (!is_loader(r, m))
            continue;
        mr_stats_add(&s, &r->pairs[i], r->nlevels);
        *module = report_base_name(r->module_paths[m]);
    }
    mr_stats_stall(rep, &s); /* linear in the misses: the pairs' stall summed */
    return s.stall;
}

int mr_short_sample(const memspy_report *rep)
{
    const memspy_raw *r = rep->raw;
    return r->sampling == MR_SAMPLE_TIME && r->sets <= 1 && r->skipped == 0;
}

/* The note on regions of interest (the run's `regions N`) into text[0..len). */
static void regions_note(const memspy_raw *r, char *text, size_t len)
{
    if (r->regions == 0)
        snprintf(text, len, "nothing was simulated: the instrumentation was off from the start "
                            "(--instr-at-start=no) and the program never asked for it "
                            "(CALLGRIND_START_INSTRUMENTATION or CACHEGRIND_START_INSTRUMENTATION)");
    else
        snprintf(text, len, "the counts cover %lld region%s of interest only, where the instrumentation was on "
                            "(--instr-at-start, START/STOP_INSTRUMENTATION requests); the caches kept their "
                            "contents across the gaps",
                 (long long)r->regions, r->regions == 1 ? "" : "s");
}

void mr_notes_of(const memspy_report *rep, mr_notes *out)
{
    out->n = 0;
    if (rep->raw->regions >= 0)
        regions_note(rep->raw, out->text[out->n++], sizeof out->text[0]);
    if (mr_short_sample(rep))
        snprintf(out->text[out->n++], sizeof out->text[0],
                 "the run was shorter than one sample: everything was simulated, the counts are exact");
    const char *loader;
    double stall = mr_loader_stall(rep, &loader);
    double share = rep->total.stall > 0 ? 100 * stall / rep->total.stall : 0;
    if (loader && share > MR_LOADER_SHARE)
        snprintf(out->text[out->n++], sizeof out->text[0],
                 "the dynamic loader (%s) makes %.0f%% of the stall: the run is short; give the program a larger "
                 "input",
                 loader, share);
}
