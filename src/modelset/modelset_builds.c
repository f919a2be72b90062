/* modelset_builds.c — a model set across builds of one source (builds.h):
 * the training runs ran several builds of the program (one per size
 * compiled in).  Each build's stored structure and compilation units are
 * read; a build compiled from other sources, with other flags (-D/-U
 * aside) or without debug information is refused, naming the difference;
 * the others are matched to the reference build (the newest run's) by
 * source location: scopes, then instructions.  The reference's scopes that
 * some build lacks, and a build's scopes the reference lacks, are named as
 * left out (docs/models.md, "Builds of one source"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binary/buildid.h"
#include "modelset/modelset.h"

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory");
    return -1;
}

/* The first (lowest) run of build b. */
static int64_t first_run(const ms_runs *runs, size_t b)
{
    int64_t first = -1;
    for (size_t i = 0; i < runs->n; i++)
        if (runs->run_build[i] == b && (first < 0 || runs->ids[i] < first))
            first = runs->ids[i];
    return first;
}

/* "run 3 (sized_8)": build b by its first run and its file's name. */
static void build_name(const ms_runs *runs, size_t b, char *buf, size_t len)
{
    snprintf(buf, len, "run %lld (%s)", (long long)first_run(runs, b), report_base_name(runs->builds[b].path));
}

/* The stored structure of build b into bd->tree; -1 with the fix when the
 * database holds none. */
static int load_tree(db *d, const ms_runs *runs, size_t b, ms_build *bd, char *err, size_t errlen)
{
    const ms_program *p = &runs->builds[b];
    int64_t id;
    int rc = db_binary_of_build(d, p->build_id, &id, err, errlen);
    if (rc == DB_NOT_FOUND) {
        snprintf(err, errlen,
                 "the runs ran %zu builds of %s, which are matched by their structure, and the structure of %s (the "
                 "build of run %lld) is not stored%s: collect its runs again, with the build in place",
                 runs->nbuilds, report_base_name(runs->program), p->path, (long long)first_run(runs, b),
                 *p->build_id ? " and its file was replaced" : " (it has no build-id)");
        return -1;
    }
    if (rc != 0 || scope_tree_load(d, id, &bd->tree, err, errlen) != 0)
        return -1;
    /* analysed maybe at another path (a copy): the tree is of the module the runs ran */
    char *own = strdup(p->path);
    if (!own)
        return oom(err, errlen);
    free(bd->tree.binary.path);
    bd->tree.binary.path = own;
    return 0;
}

/* The compilation units of build b: stored with its structure, or read
 * from its file when the structure was stored before schema version 9. */
static int load_units(const ms_runs *runs, size_t b, db *d, ms_build *bd, char *err, size_t errlen)
{
    if (db_binary_units(d, bd->tree.binary.id, &bd->units, &bd->nunits, err, errlen) != 0)
        return -1;
    const ms_program *p = &runs->builds[b];
    if (bd->nunits || !bd->tree.binary.has_dwarf)
        return 0;
    if (elf_is_build(p->path, p->build_id))
        return st_read_units(p->path, &bd->units, &bd->nunits, err, errlen);
    snprintf(err, errlen,
             "the compilation units of %s (the build of run %lld), by which builds are compared, were not stored "
             "(an older augur analysed it) and its file was replaced: collect its runs again, with the build in place",
             p->path, (long long)first_run(runs, b));
    return -1;
}

/* -1 with a message naming the difference when build b is not a build of
 * the reference's sources and flags (-D/-U aside). */
static int compare_build(const ms_runs *runs, const ms_builds *bs, size_t b, char *err, size_t errlen)
{
    build_difference diff;
    build_compare_units(bs->b[b].units, bs->b[b].nunits, bs->b[0].units, bs->b[0].nunits, &diff);
    char name[512], ref[512];
    build_name(runs, b, name, sizeof name);
    build_name(runs, 0, ref, sizeof ref);
    long long rb = (long long)first_run(runs, b), r0 = (long long)first_run(runs, 0);
    switch (diff.verdict) {
    case BUILD_SAME:
        return 0;
    case BUILD_OTHER_FLAGS:
        snprintf(err, errlen,
                 "%s and %s ran builds of the same sources compiled with other flags (%s in the build of run %lld, "
                 "%s in that of run %lld, compiling %s): a model set spans builds that differ in -D/-U alone, the "
                 "sizes compiled in; choose the runs of one build with --runs, or use one database per build",
                 name, ref, diff.a, rb, diff.b, r0, diff.file);
        break;
    case BUILD_OTHER_SOURCES:
        snprintf(err, errlen,
                 "%s and %s ran different programs (source files %s only in the build of run %lld, %s only in that "
                 "of run %lld): a model set is of one program; choose its runs with --runs, or use one database per "
                 "program",
                 name, ref, diff.a, rb, diff.b, r0);
        break;
    case BUILD_NO_DEBUG:
        snprintf(err, errlen,
                 "%s and %s ran two builds of %s, which are matched by source location, and the build of run %lld "
                 "has no debug information: build every size with -g, or choose the runs of one build with --runs",
                 name, ref, report_base_name(runs->program), diff.a_empty ? rb : r0);
        break;
    }
    return -1;
}

/* ---- what is left out ------------------------------------------------------------------ */

static int add_note(ms_builds *bs, const char *text)
{
    for (size_t i = 0; i < bs->nunmatched; i++)
        if (!strcmp(bs->unmatched[i], text))
            return 0;
    char **grown = realloc(bs->unmatched, (bs->nunmatched + 1) * sizeof *grown);
    if (!grown)
        return -1;
    bs->unmatched = grown;
    return (grown[bs->nunmatched++] = strdup(text)) ? 0 : -1;
}

/* The reference's outermost scopes not matched in every build, with the
 * builds that lack them. */
static int note_reference(const ms_runs *runs, ms_builds *bs)
{
    const scope_tree *t = &bs->b[0].tree;
    for (size_t s = 1; s < t->nscopes; s++) {
        int64_t parent = t->scopes[s].parent;
        if (bs->modeled[s] || (parent > 0 && !bs->modeled[parent]))
            continue;
        char label[1024], text[2048], name[512], lacking[1024] = "";
        build_scope_label(t->scopes, t->nscopes, (int64_t)s, label, sizeof label);
        for (size_t b = 1; b < bs->n; b++)
            if (bs->b[b].of_ref[s] < 0) {
                build_name(runs, b, name, sizeof name);
                snprintf(lacking + strlen(lacking), sizeof lacking - strlen(lacking), "%s%s", *lacking ? ", " : "",
                         name);
            }
        snprintf(text, sizeof text, "%s: not matched in the build%s of %s", label, strchr(lacking, ',') ? "s" : "",
                 lacking);
        if (add_note(bs, text) != 0)
            return -1;
    }
    return 0;
}

/* An outermost scope of a build that matches nothing of the reference. */
typedef struct stray {
    char *label;
    size_t build;
} stray;

static int by_label(const void *pa, const void *pb)
{
    const stray *a = pa, *b = pb;
    int c = strcmp(a->label, b->label);
    return c ? c : (a->build > b->build) - (a->build < b->build);
}

/* The strays of every build but the reference, into a new array. */
static stray *strays_of(const ms_builds *bs, size_t *n)
{
    size_t cap = 1;
    for (size_t b = 1; b < bs->n; b++)
        cap += bs->b[b].tree.nscopes;
    stray *out = calloc(cap, sizeof *out);
    *n = 0;
    for (size_t b = 1; out && b < bs->n; b++) {
        const scope_tree *t = &bs->b[b].tree;
        for (size_t s = 1; s < t->nscopes; s++) {
            int64_t parent = t->scopes[s].parent;
            if (bs->b[b].ref_of[s] >= 0 || (parent > 0 && bs->b[b].ref_of[parent] < 0))
                continue;
            char label[1024];
            build_scope_label(t->scopes, t->nscopes, (int64_t)s, label, sizeof label);
            out[*n] = (stray){strdup(label), b};
            if (!out[(*n)++].label)
                return out; /* the caller sees a NULL label: out of memory */
        }
    }
    return out;
}

/* The outermost scopes of the other builds that match nothing of the
 * reference: one sentence per scope label, with the builds that have it. */
static int note_builds(const ms_runs *runs, ms_builds *bs)
{
    size_t n;
    stray *st = strays_of(bs, &n);
    int rc = st ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = st[i].label ? 0 : -1;
    if (rc == 0)
        qsort(st, n, sizeof *st, by_label);
    char ref[512];
    build_name(runs, 0, ref, sizeof ref);
    for (size_t i = 0, j; rc == 0 && i < n; i = j) {
        char having[1024] = "", name[512], text[3072];
        for (j = i; j < n && !strcmp(st[j].label, st[i].label); j++) {
            build_name(runs, st[j].build, name, sizeof name);
            snprintf(having + strlen(having), sizeof having - strlen(having), "%s%s", j > i ? ", " : "", name);
        }
        snprintf(text, sizeof text, "%s, in the build%s of %s: not matched in the reference build, %s", st[i].label,
                 j - i > 1 ? "s" : "", having, ref);
        rc = add_note(bs, text);
    }
    for (size_t i = 0; st && i < n; i++)
        free(st[i].label);
    free(st);
    return rc;
}

/* ---- matching ------------------------------------------------------------------------------ */

static int match_scopes(ms_builds *bs, char *err, size_t errlen)
{
    const scope_tree *r = &bs->b[0].tree;
    bs->modeled = malloc(r->nscopes + 1);
    if (!bs->modeled)
        return oom(err, errlen);
    memset(bs->modeled, 1, r->nscopes);
    for (size_t b = 0; b < bs->n; b++) {
        ms_build *bd = &bs->b[b];
        bd->of_ref = malloc((r->nscopes + 1) * sizeof *bd->of_ref);
        bd->ref_of = malloc((bd->tree.nscopes + 1) * sizeof *bd->ref_of);
        if (!bd->of_ref || !bd->ref_of)
            return oom(err, errlen);
        if (b == 0)
            for (size_t s = 0; s < r->nscopes; s++)
                bd->of_ref[s] = bd->ref_of[s] = (int64_t)s;
        else if (build_match_scopes(r->scopes, r->nscopes, bd->tree.scopes, bd->tree.nscopes, bd->of_ref,
                                    bd->ref_of) != 0)
            return oom(err, errlen);
        for (size_t s = 0; s < r->nscopes; s++)
            bs->modeled[s] &= bd->of_ref[s] >= 0;
    }
    return 0;
}

static int match_insns(db *d, ms_builds *bs, char *err, size_t errlen)
{
    size_t n = bs->n;
    db_static_insn **insns = calloc(n + 1, sizeof *insns);
    size_t *ninsns = calloc(n + 1, sizeof *ninsns), *nmap = calloc(n + 1, sizeof *nmap);
    const int64_t **ref_of = calloc(n + 1, sizeof *ref_of);
    build_insn_map **map = calloc(n + 1, sizeof *map);
    int rc = insns && ninsns && nmap && ref_of && map ? 0 : oom(err, errlen);
    for (size_t b = 0; rc == 0 && b < n; b++) {
        rc = db_static_instructions(d, bs->b[b].tree.binary.id, &insns[b], &ninsns[b], err, errlen);
        ref_of[b] = bs->b[b].ref_of;
    }
    if (rc == 0 && build_match_insns(n, (const db_static_insn *const *)insns, ninsns, ref_of, bs->modeled,
                                     bs->b[0].tree.nscopes, map, nmap) != 0)
        rc = oom(err, errlen);
    for (size_t b = 0; map && b < n; b++) {
        bs->b[b].map = map[b];
        bs->b[b].nmap = nmap && rc == 0 ? nmap[b] : 0;
    }
    for (size_t b = 0; insns && b < n; b++)
        free(insns[b]);
    free(insns), free(ninsns), free(nmap), free(ref_of), free(map);
    return rc;
}

int ms_builds_load(db *d, const ms_runs *runs, ms_builds *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->b = calloc(runs->nbuilds + 1, sizeof *out->b);
    if (!out->b)
        return oom(err, errlen);
    out->n = runs->nbuilds;
    int rc = 0;
    for (size_t b = 0; rc == 0 && b < out->n; b++)
        rc = load_tree(d, runs, b, &out->b[b], err, errlen) == 0 &&
                     load_units(runs, b, d, &out->b[b], err, errlen) == 0
                 ? 0
                 : -1;
    for (size_t b = 1; rc == 0 && b < out->n; b++)
        rc = compare_build(runs, out, b, err, errlen);
    if (rc == 0)
        rc = match_scopes(out, err, errlen);
    if (rc == 0)
        rc = match_insns(d, out, err, errlen);
    if (rc == 0 && note_reference(runs, out) != 0)
        rc = oom(err, errlen);
    if (rc == 0 && note_builds(runs, out) != 0)
        rc = oom(err, errlen);
    return rc;
}

void ms_builds_free(ms_builds *bs)
{
    for (size_t b = 0; bs->b && b < bs->n; b++) {
        ms_build *bd = &bs->b[b];
        scope_tree_free(&bd->tree);
        st_units_free(bd->units, bd->nunits);
        free(bd->of_ref), free(bd->ref_of), free(bd->map);
    }
    for (size_t i = 0; i < bs->nunmatched; i++)
        free(bs->unmatched[i]);
    free(bs->unmatched), free(bs->modeled), free(bs->b);
    memset(bs, 0, sizeof *bs);
}

int ms_counts_in_reference(db *d, int64_t run_id, const scope_tree *own, const int64_t *of_ref, size_t nref,
                           scope_counts **out, char *err, size_t errlen)
{
    scope_counts *c = NULL;
    int rc = report_scope_counts(d, run_id, own, &c, err, errlen);
    *out = rc == 0 ? calloc(nref + 1, sizeof **out) : NULL;
    if (rc == 0 && !*out)
        rc = oom(err, errlen);
    for (size_t s = 0; rc == 0 && s < nref; s++)
        if (of_ref[s] >= 0)
            (*out)[s] = c[of_ref[s]];
    free(c);
    return rc;
}

int ms_run_scope_counts(db *d, int64_t run_id, const scope_tree *ref, scope_counts **out, char *err, size_t errlen)
{
    db_run_module *m = NULL;
    size_t n = 0;
    *out = NULL;
    int rc = db_run_modules(d, run_id, &m, &n, err, errlen);
    if (rc == 0 && (!n || !m[0].is_program || !strcmp(m[0].build_id, ref->binary.build_id))) {
        db_run_modules_free(m, n); /* the reference's build, or a program unknown: counted as it is */
        return report_scope_counts(d, run_id, ref, out, err, errlen);
    }
    int64_t id;
    scope_tree own = {0};
    int64_t *of_ref = rc == 0 ? malloc((ref->nscopes + 1) * sizeof *of_ref) : NULL,
            *ref_of = NULL;
    if (rc == 0 && (rc = db_binary_of_build(d, m[0].build_id, &id, err, errlen)) == 0)
        rc = scope_tree_load(d, id, &own, err, errlen);
    if (rc == 0 && (!of_ref || !(ref_of = malloc((own.nscopes + 1) * sizeof *ref_of)) ||
                    build_match_scopes(ref->scopes, ref->nscopes, own.scopes, own.nscopes, of_ref, ref_of) != 0))
        rc = oom(err, errlen);
    if (rc == 0)
        rc = ms_counts_in_reference(d, run_id, &own, of_ref, ref->nscopes, out, err, errlen);
    scope_tree_free(&own);
    free(of_ref), free(ref_of);
    db_run_modules_free(m, n);
    return rc;
}
