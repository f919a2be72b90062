/* memspy_text.c — the MemSpy report for people (docs/memspy.md, "Report"):
 * the program, its warnings and the notes on the run, machine and
 * sampling; overall statistics; then (function,
 * data object) pairs, data objects and code objects ranked by stall
 * cycles with their share; for each data object its miss causes and who
 * replaced its lines (self- or cross-interference). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "memspy_report/memspy_report.h"
#include "report/report.h"
#include "util/numfmt.h"

/* The widths of the count columns, grouped numbers included: references
 * and stall up to 10^13 - 1, misses up to 10^11 - 1. */
#define REFS_WIDTH 18
#define MISS_WIDTH 15

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* v rounded to a whole number, in a new buffer of the caller's. */
static const char *whole(double v, num_style numbers, char *buf)
{
    return numfmt_fixed(v, 0, numbers, buf);
}

static void header(const memspy_report *rep, const mr_header *h, num_style numbers, FILE *out)
{
    const memspy_raw *r = rep->raw;
    fputs("memspy report: ", out);
    report_shell_word(r->exe, out);
    for (int i = 0; i < r->argc; i++) {
        fputc(' ', out);
        report_shell_word(r->argv[i], out);
    }
    fprintf(out, "\n  pid %" PRId64 ", %u thread%s, ", r->pid, r->threads, r->threads == 1 ? "" : "s");
    char sig[48];
    if (r->has_exit)
        fprintf(out, "exit %d\n", r->exit_code);
    else if (r->exec_path)
        fprintf(out, "exec'd %s\n", r->exec_path);
    else if (h->term_signal > 0)
        fprintf(out, "killed by %s\n", report_signal_text(h->term_signal, sig, sizeof sig));
    else
        fprintf(out, "killed by a signal\n");
    for (size_t i = 0; i < r->nwarnings; i++)
        fprintf(out, "  warning: %s\n", r->warnings[i]);
    mr_notes notes;
    mr_notes_of(rep, &notes);
    for (size_t i = 0; i < notes.n; i++)
        report_print_wrapped(out, "  note:", notes.text[i], REPORT_WRAP_COLUMN);
    fprintf(out, "machine: %s%s%s%s\n", h->machine, h->why ? " (" : "", h->why ? h->why : "", h->why ? ")" : "");
    for (unsigned k = 0; k < r->nlevels; k++) {
        const mr_level *l = &r->level[k];
        char kib[NUMFMT_LEN];
        fprintf(out, "  %-4s %9s KiB %3u-way %u-byte lines, %s, %.0f cycles\n", l->name,
                numfmt_count(l->size / 1024, numbers, kib), l->ways, l->line,
                l->shared_by == 1 ? "private" : "shared", rep->costs.lat[k]);
    }
    fprintf(out, "  memory %.0f ns = %.1f cycles at %.2f GHz\n", h->mem_latency_ns, rep->costs.lat[r->nlevels],
            h->clock_ghz);
}

static void sampling(const memspy_report *rep, num_style numbers, FILE *out)
{
    const memspy_raw *r = rep->raw;
    const mr_scale *s = &rep->scale;
    double ratio = s->total ? (double)s->simulated / (double)s->total : 1.0;
    char on[NUMFMT_LEN], off[NUMFMT_LEN], sets[NUMFMT_LEN];
    numfmt_count(r->on, numbers, on);
    numfmt_count(r->off, numbers, off);
    if (r->sampling == MR_SAMPLE_NONE)
        fprintf(out, "sampling: none (every reference %ssimulated)\n", r->regions >= 0 ? "of the regions " : "");
    else if (r->sampling == MR_SAMPLE_TIME && mr_short_sample(rep)) /* the header's note says so */
        fprintf(out, "sampling: time, %s references on, %s off: ratio %.3f\n", on, off, ratio);
    else if (r->sampling == MR_SAMPLE_TIME)
        fprintf(out,
                "sampling: time, %s references on, %s off%s: ratio %.3f, counts scaled by %.2f;\n"
                "  misses are estimates [bounds]: in each sample, the first touch of a line in a set not yet primed is unknown\n",
                on, off, r->sets > 1 ? ", in the sampled sets" : "", ratio, s->factor);
    else
        fprintf(out,
                "sampling: sets, 1 set in %s: ratio %.3f, counts scaled by %.2f;\n"
                "  misses are estimates [95%% interval, %s]\n",
                numfmt_count(r->sets, numbers, sets), ratio, s->factor,
                s->groups ? "from the spread of 16 random groups of the sampled lines" : "binomial");
}

/* The line saying how much of the stall the hidden start-up and loader
 * code makes; nothing when it is shown or there is none. */
static void startup_line(const memspy_report *rep, num_style numbers, FILE *out)
{
    if (!rep->hide_startup || rep->startup_functions == 0)
        return;
    char n[NUMFMT_LEN];
    fprintf(out, "  start-up and loader: %.1f%% of stall in %s functions", pct(rep->startup.stall, rep->total.stall),
            numfmt_count(rep->startup_functions, numbers, n));
    if (rep->startup_data)
        fprintf(out, " and %s data objects only they use", numfmt_count(rep->startup_data, numbers, n));
    fputs(", hidden below; --show-startup lists them\n", out);
}

static void overall(const memspy_report *rep, num_style numbers, FILE *out)
{
    const memspy_raw *r = rep->raw;
    const mr_stats *t = &rep->total;
    double refs = mr_stats_refs(rep, t, t->refs);
    char a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN];
    fprintf(out, "\nOverall\n  references   %*s  (reads %s, writes %s)\n", REFS_WIDTH, whole(refs, numbers, a),
            whole(mr_stats_refs(rep, t, t->reads), numbers, b), whole(mr_stats_refs(rep, t, t->writes), numbers, c));
    for (unsigned k = 0; k < r->nlevels; k++) {
        mr_estimate e = mr_stats_misses(rep, t, k);
        fprintf(out, "  %-4s misses  %*s  %6.3f%% of references", r->level[k].name, REFS_WIDTH,
                whole(e.est, numbers, a), pct(e.est, refs));
        if (e.lo != e.hi)
            fprintf(out, "  [%s, %s]", whole(e.lo, numbers, b), whole(e.hi, numbers, c));
        fputc('\n', out);
    }
    fprintf(out, "  stall cycles %*s\n", REFS_WIDTH, whole(t->stall, numbers, a));
    startup_line(rep, numbers, out);
}

static void miss_columns(const memspy_report *rep, const mr_stats *s, num_style numbers, FILE *out)
{
    char m[NUMFMT_LEN];
    for (unsigned k = 0; k < rep->raw->nlevels; k++)
        fprintf(out, " %*s", MISS_WIDTH, whole(mr_stats_misses(rep, s, k).est, numbers, m));
}

static void columns_title(const memspy_report *rep, const char *first, FILE *out)
{
    fprintf(out, "  %6s %*s", "stall%", REFS_WIDTH, "stall");
    for (unsigned k = 0; k < rep->raw->nlevels; k++)
        fprintf(out, " %*s miss", MISS_WIDTH - 5, rep->raw->level[k].name);
    fprintf(out, "  %s\n", first);
}

static void stall_columns(const memspy_report *rep, const mr_stats *s, num_style numbers, FILE *out)
{
    char stall[NUMFMT_LEN];
    fprintf(out, "  %5.1f%% %*s", pct(s->stall, rep->total.stall), REFS_WIDTH, whole(s->stall, numbers, stall));
    miss_columns(rep, s, numbers, out);
}

/* What a list left out: "(N more WHAT, P% of stall; --top 0 shows all)",
 * nothing when N is 0, so that a reader knows the rows shown are not all. */
static void more_rows(const memspy_report *rep, size_t n, double stall, const char *what, num_style numbers,
                      FILE *out)
{
    char count[NUMFMT_LEN];
    if (n)
        fprintf(out, "  (%s more %s, %.1f%% of stall; --top 0 shows all)\n", numfmt_count(n, numbers, count), what,
                pct(stall, rep->total.stall));
}

/* Whether the next row of a list is past --top: rows are counted in *shown,
 * the others' count and stall in *more and *rest. */
static int past_top(const memspy_report *rep, size_t *shown, size_t *more, double *rest, double stall)
{
    if (rep->top && *shown == rep->top) {
        ++*more, *rest += stall;
        return 1;
    }
    ++*shown;
    return 0;
}

static void pairs(const memspy_report *rep, num_style numbers, FILE *out)
{
    double rest = 0;
    size_t shown = 0, more = 0;
    fprintf(out, "\n(Function, data object) pairs by stall\n");
    columns_title(rep, "function / data object", out);
    for (size_t i = 0; i < rep->npairs; i++) {
        const mr_pair_stats *p = &rep->pairs[rep->pair_rank[i]];
        if (mr_code_hidden(rep, p->function) || past_top(rep, &shown, &more, &rest, p->s.stall))
            continue;
        stall_columns(rep, &p->s, numbers, out);
        fprintf(out, "  %s / %s\n", rep->code[p->function].name, rep->raw->objs[p->obj].name);
    }
    more_rows(rep, more, rest, "pairs", numbers, out);
}

/* "cold 10.0%, conflict 90.0%": the causes at level k, nonzero only. */
static void causes(const memspy_report *rep, const mr_stats *s, unsigned k, num_style numbers, FILE *out)
{
    const mr_misses *m = &s->lv[k];
    mr_split sp = mr_split_of(m, &rep->total.lv[k]);
    fprintf(out, "      %s causes:", rep->raw->level[k].name);
    for (int c = 0; c < MS_UNSPLIT; c++) {
        double v = mr_split_cause(&sp, m, (enum ms_cause)c);
        if (v > 0)
            fprintf(out, " %s %.1f%%", ms_cause_name((enum ms_cause)c), pct(v, (double)m->miss));
    }
    if (m->unknown)
        fprintf(out, " (unknown %.1f%%)", pct((double)m->unknown, (double)m->miss));
    char n[NUMFMT_LEN];
    if (m->cause[MS_UNSPLIT])
        fprintf(out, " (capacity share estimated on %s sampled misses%s: %.1f%% [%.1f, %.1f])",
                numfmt_count(sp.share.n, numbers, n), sp.share.from_level ? " of the level" : "", 100 * sp.share.p,
                100 * sp.share.lo, 100 * sp.share.hi);
    fputc('\n', out);
}

/* ", NAME P%" of a replacer with `count` of `total` replacements, or
 * nothing when P rounds to 0.0% (JSON keeps every count); returns whether
 * it was written.  `first` drops the comma. */
static int share(const char *name, uint64_t count, uint64_t total, int first, FILE *out)
{
    char p[32];
    snprintf(p, sizeof p, "%.1f", pct((double)count, (double)total));
    if (count == 0 || strcmp(p, "0.0") == 0)
        return 0;
    fprintf(out, "%s %s %s%%", first ? "" : ",", name, p);
    return 1;
}

/* Who replaced object o's lines at level k: self first, then the others
 * by count, at most three; shares that round to 0.0% are left out.  by,
 * e: scratch of nobjs (mr_evictors). */
static void replaced_by(const memspy_report *rep, uint32_t o, unsigned k, uint64_t *by, mr_evictor *e, FILE *out)
{
    const memspy_raw *r = rep->raw;
    uint64_t total;
    size_t n = mr_evictors(r, k, o, by, e, &total);
    if (total == 0)
        return;
    fprintf(out, "      %s replaced by:", r->level[k].name);
    int shown = share("self", by[o], total, 1, out), others = 0;
    for (size_t i = 0; i < n && others < 3; i++) {
        if (e[i].obj == o)
            continue;
        if (!share(r->objs[e[i].obj].name, e[i].count, total, !shown, out))
            break; /* the largest left rounds to 0.0%: so do the rest */
        shown++, others++;
    }
    if (!shown)
        fprintf(out, " %zu objects, each under 0.05%%", n);
    fputc('\n', out);
}

static void allocation(const memspy_raw *r, const mr_obj *o, FILE *out)
{
    if (o->nsites == 0)
        return;
    fprintf(out, "      allocated at:");
    for (uint32_t i = 0; i < o->nsites; i++) {
        const mr_loc *s = &r->sites[o->first_site + i];
        char fn[1024];
        mr_frame_function(r, s, fn, sizeof fn);
        fprintf(out, "%s %s", i ? " <-" : "", fn);
        if (s->file >= 0)
            fprintf(out, " (%s:%u)", report_base_name(r->files[s->file]), s->line);
    }
    fputc('\n', out);
}

/* One data object's row, its allocation stack, and per level with misses
 * its causes and who replaced its lines (by, e: scratch of nobjs, or NULL). */
static void data_object(const memspy_report *rep, uint32_t o, uint64_t *by, mr_evictor *e, num_style numbers,
                        FILE *out)
{
    const memspy_raw *r = rep->raw;
    const mr_obj *obj = &r->objs[o];
    char n[NUMFMT_LEN];
    stall_columns(rep, &rep->data[o], numbers, out);
    fprintf(out, "  %s (%s, ", obj->name, mr_kind_name(obj->kind));
    if (mr_size_known(obj))
        fputs(numfmt_count(obj->size, numbers, n), out);
    else
        fputc('-', out);
    fprintf(out, ", %s)\n", numfmt_count(obj->count, numbers, n));
    allocation(r, obj, out);
    for (unsigned k = 0; k < r->nlevels; k++)
        if (rep->data[o].lv[k].miss) {
            causes(rep, &rep->data[o], k, numbers, out);
            if (by && e)
                replaced_by(rep, o, k, by, e, out);
        }
}

static void data_objects(const memspy_report *rep, num_style numbers, FILE *out)
{
    const memspy_raw *r = rep->raw;
    uint64_t *by = calloc(r->nobjs ? r->nobjs : 1, sizeof *by);
    mr_evictor *e = calloc(r->nobjs ? r->nobjs : 1, sizeof *e);
    double rest = 0;
    size_t shown = 0, more = 0;
    fprintf(out, "\nData objects by stall\n");
    columns_title(rep, "data object (kind, bytes, blocks)", out);
    for (size_t i = 0; i < r->nobjs; i++) {
        uint32_t o = rep->data_rank[i];
        if (!mr_data_hidden(rep, o) && !past_top(rep, &shown, &more, &rest, rep->data[o].stall))
            data_object(rep, o, by, e, numbers, out);
    }
    more_rows(rep, more, rest, "data objects", numbers, out);
    free(by);
    free(e);
}

/* The list of code objects of one kind; `what` names them in the line
 * saying how many were left out ("functions"). */
static void code_objects(const memspy_report *rep, enum mr_code_kind kind, const char *title, const char *what,
                         num_style numbers, FILE *out)
{
    fprintf(out, "\n%s by stall\n", title);
    columns_title(rep, kind == MR_FUNCTION ? "function" : "where (function)", out);
    size_t shown = 0, more = 0;
    double rest = 0;
    for (size_t i = 0; i < rep->ncode; i++) {
        const mr_code_obj *c = &rep->code[rep->code_rank[i]];
        if (c->kind != kind || mr_code_hidden(rep, rep->code_rank[i]) ||
            past_top(rep, &shown, &more, &rest, c->s.stall))
            continue;
        stall_columns(rep, &c->s, numbers, out);
        if (kind == MR_FUNCTION)
            fprintf(out, "  %s\n", c->name);
        else
            fprintf(out, "  %s (%s)\n", c->name, c->function);
    }
    more_rows(rep, more, rest, what, numbers, out);
}

int memspy_write_text(const memspy_report *rep, const mr_header *h, num_style numbers, FILE *out)
{
    header(rep, h, numbers, out);
    sampling(rep, numbers, out);
    overall(rep, numbers, out);
    pairs(rep, numbers, out);
    data_objects(rep, numbers, out);
    code_objects(rep, MR_FUNCTION, "Functions", "functions", numbers, out);
    code_objects(rep, MR_LOOP, "Loops", "loops", numbers, out);
    code_objects(rep, MR_LINE, "Source lines", "source lines", numbers, out);
    return ferror(out) ? -1 : 0;
}
