/* cmd_diff.c — `augur diff`: the change in counts and misses per function
 * and source line between two runs, of one database or of two
 * (docs/exports.md).  Exit status: 0 success, 2 usage error, 1 other
 * errors (no database, unknown run, a line size a run did not measure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "db/db.h"
#include "report/diff.h"
#include "util/parse.h"

/* One side of the diff: a run of a database. */
typedef struct diff_side {
    const char *db_path;
    char *own_path; /* db_path when the operand named a database (freed) */
    int64_t run_id;
} diff_side;

typedef struct diff_options {
    const char *db_path;
    diff_side side[2];
    size_t ncaches;
    report_cache caches[REPORT_MAX_CACHES];
    int json;
    size_t top;
    enum diff_sort sort;
    num_style numbers;
} diff_options;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur diff [--db FILE] [--cache SIZE[:LINE]]... [--format text|json] [--top N]\n"
            "                  [--sort instructions|accesses|misses] [--plain-numbers] A B\n"
            "\n"
            "Show what changed from run A to run B, as cg_diff does for Cachegrind: the totals, then\n"
            "per function and per source line the change in instructions, memory accesses and the\n"
            "misses of fully-associative LRU caches, B minus A and relative to A, the largest change\n"
            "first.  Functions are matched by name and module file name, lines by file, line and\n"
            "function, so runs of two builds or two databases compare.\n"
            "\n"
            "A and B are each\n"
            "  RUN                  a run id of the database of --db, e.g. 3\n"
            "  FILE:RUN             run RUN of the database FILE, e.g. old.db:3\n"
            "\n"
            "options:\n"
            "  --db FILE            the database of RUN operands (default: $AUGUR_DB, else augur.db;\n"
            "                       now %s)\n"
            "  --cache SIZE[:LINE]  compare the misses of a fully-associative LRU cache of SIZE bytes in\n"
            "                       LINE-byte lines (suffixes K, KiB, M, MiB, G, GiB; LINE defaults to %d\n"
            "                       and must be a block size both runs measured); repeat for more (at\n"
            "                       most %d).  Default: 32K and 1M when both runs measured %d-byte blocks\n"
            "  --format text|json   aligned tables for people (default), or JSON for programs\n"
            "  --top N              changed rows per table (default %d; 0 shows every changed row)\n"
            "  --sort instructions|accesses|misses\n"
            "                       order the rows by the size of the change in instructions (default),\n"
            "                       in accesses, or in the misses of the first cache\n"
            "  --plain-numbers      text: counts without thousands separators, for scripts\n"
            "  -h, --help           show this help\n"
            "\n"
            "examples:\n"
            "  augur diff 1 2\n"
            "  augur diff --db mm.db --cache 32K --sort misses 4 7\n"
            "  augur diff before.db:1 after.db:1 --format json > change.json\n"
            "\n"
            "List the runs of a database with sqlite3 FILE 'SELECT * FROM run_list'.\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.  See docs/exports.md.\n",
            default_db_path(), REPORT_DEFAULT_LINE, REPORT_MAX_CACHES, REPORT_DEFAULT_LINE, REPORT_DEFAULT_TOP);
}

#define usage_error(...) cli_usage_error("diff", __VA_ARGS__)

static int parse_option(int opt, const char *arg, void *ctx)
{
    diff_options *o = ctx;
    static const char *const sorts[] = {"instructions", "accesses", "misses", NULL};
    int sort;
    switch (opt) {
    case 'd':
        o->db_path = arg;
        return 0;
    case 'c':
        return cli_take_cache("diff", arg, o->caches, &o->ncaches);
    case 'f':
        return cli_take_format("diff", arg, &o->json);
    case 't':
        return cli_take_top("diff", arg, &o->top);
    case 's':
        for (sort = 0; sorts[sort] && strcmp(sorts[sort], arg); sort++)
            ;
        if (!sorts[sort])
            return usage_error("bad --sort '%s': give --sort instructions, accesses or misses", arg);
        o->sort = (enum diff_sort)sort;
        return 0;
    case 'P':
        o->numbers = NUM_PLAIN;
        return 0;
    default:
        return EXIT_USAGE;
    }
}

/* An operand, RUN or FILE:RUN, into side s (the database of RUN is filled
 * in later, from --db). */
static int parse_side(const char *arg, diff_side *s)
{
    const char *colon = strrchr(arg, ':');
    const char *id = colon ? colon + 1 : arg;
    uint64_t v;
    if (parse_u64(id, &v) != 0 || v == 0 || v > INT64_MAX || (colon && colon == arg))
        return usage_error("bad run '%s': give a run id (3) or a database and a run id (old.db:3)", arg);
    s->run_id = (int64_t)v;
    if (colon && !(s->own_path = strndup(arg, (size_t)(colon - arg))))
        return usage_error("out of memory");
    s->db_path = s->own_path;
    return 0;
}

static int parse_options(int argc, char **argv, diff_options *o)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, 'd'},   {"cache", required_argument, NULL, 'c'},
        {"format", required_argument, NULL, 'f'}, {"top", required_argument, NULL, 't'},
        {"sort", required_argument, NULL, 's'}, {"plain-numbers", no_argument, NULL, 'P'},
        {"help", no_argument, NULL, 'h'},       {NULL, 0, NULL, 0},
    };
    int operands, rc = cli_getopt("diff", argc, argv, longopts, parse_option, o, &operands);
    if (rc != 0)
        return rc;
    if (argc - operands != 2)
        return usage_error("give the two runs to compare, A and B (e.g. augur diff 1 2), not %d", argc - operands);
    for (int i = 0; i < 2; i++) {
        if ((rc = parse_side(argv[operands + i], &o->side[i])) != 0)
            return rc;
        if (!o->side[i].db_path)
            o->side[i].db_path = o->db_path;
    }
    if (o->numbers == NUM_PLAIN && o->json)
        return cli_plain_numbers_json("diff");
    if (o->sort == DIFF_BY_MISSES && o->ncaches == 0)
        return usage_error("--sort misses orders by the misses of the first --cache: give one (e.g. --cache 32K)");
    return 0;
}

/* ---- the two runs ---------------------------------------------------------------- */

typedef struct loaded {
    db *d;
    int own; /* d is this side's (else the other side's, the same file) */
    db_run run;
    report rep;
} loaded;

static int read_run(loaded *l, int64_t id, char *err, size_t errlen)
{
    if (db_read_begin(l->d, err, errlen) != 0)
        return -1;
    int rc = db_get_run(l->d, id, &l->run, err, errlen) != 0 ? -1 : 0;
    db_read_end(l->d);
    return rc;
}

/* The caches given, or 32K and 1M in 64-byte lines when both runs measured
 * 64-byte blocks, into caches[*n]; each checked against both runs. */
static int choose_caches(const diff_options *o, const loaded *l, report_cache *caches, size_t *n, char *err,
                         size_t errlen)
{
    *n = o->ncaches;
    memcpy(caches, o->caches, *n * sizeof *caches);
    report_cache line64 = {.size = 64, .line = REPORT_DEFAULT_LINE};
    char why[256];
    if (*n == 0 && report_cache_check(&line64, &l[0].run, why, sizeof why) == 0 &&
        report_cache_check(&line64, &l[1].run, why, sizeof why) == 0) {
        caches[(*n)++] = (report_cache){.size = 32 << 10, .line = REPORT_DEFAULT_LINE};
        caches[(*n)++] = (report_cache){.size = 1 << 20, .line = REPORT_DEFAULT_LINE};
    }
    for (size_t k = 0; k < *n; k++)
        for (int s = 0; s < 2; s++)
            if (report_cache_check(&caches[k], &l[s].run, err, errlen) != 0)
                return -1;
    return 0;
}

static int build(loaded *l, const report_cache *caches, size_t n, char *err, size_t errlen)
{
    if (db_read_begin(l->d, err, errlen) != 0)
        return -1;
    int rc = report_build(l->d, &l->run, caches, n, &l->rep, err, errlen);
    db_read_end(l->d);
    return rc;
}

static int write_diff(const diff_options *o, loaded *l, char *err, size_t errlen)
{
    report_diff d;
    int rc = report_diff_build(&l[0].rep, &l[1].rep, o->sort, &d);
    if (rc == 0) {
        d.db_a = o->side[0].db_path, d.db_b = o->side[1].db_path;
        errno = 0;
        rc = o->json ? report_diff_write_json(&d, o->top, stdout)
                     : report_diff_write_text(&d, o->top, o->numbers, stdout);
        if (rc == 0 && fflush(stdout) != 0)
            rc = -1;
        if (rc != 0)
            snprintf(err, errlen, "cannot write the diff: %s", errno ? strerror(errno) : "out of memory");
    } else
        snprintf(err, errlen, "out of memory");
    report_diff_free(&d);
    return rc;
}

static int run_diff(const diff_options *o, loaded *l, char *err, size_t errlen)
{
    for (int s = 0; s < 2; s++) {
        int same = s == 1 && !strcmp(o->side[1].db_path, o->side[0].db_path);
        l[s].own = !same;
        if (same)
            l[s].d = l[0].d;
        else if (db_open(o->side[s].db_path, 0, &l[s].d, err, errlen) != 0)
            return -1;
        if (read_run(&l[s], o->side[s].run_id, err, errlen) != 0)
            return -1;
    }
    report_cache caches[REPORT_MAX_CACHES];
    size_t n;
    int rc = choose_caches(o, l, caches, &n, err, errlen);
    for (int s = 0; rc == 0 && s < 2; s++)
        rc = build(&l[s], caches, n, err, errlen);
    return rc == 0 ? write_diff(o, l, err, errlen) : -1;
}

int cmd_diff(int argc, char **argv)
{
    diff_options o = {.db_path = default_db_path(), .top = REPORT_DEFAULT_TOP, .numbers = NUM_GROUPED};
    int rc = parse_options(argc, argv, &o);
    if (rc == 0) {
        char err[1024];
        loaded l[2] = {0};
        rc = run_diff(&o, l, err, sizeof err) == 0 ? EXIT_OK : EXIT_FAILURE_OTHER;
        if (rc != EXIT_OK)
            fprintf(stderr, "augur diff: %s\n", err);
        for (int s = 0; s < 2; s++) {
            report_free(&l[s].rep);
            db_run_free(&l[s].run);
            if (l[s].own)
                db_close(l[s].d);
        }
    } else if (rc == SHOW_HELP) {
        print_help(stdout);
        rc = EXIT_OK;
    }
    free(o.side[0].own_path), free(o.side[1].own_path);
    return rc;
}
