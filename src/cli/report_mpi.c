/* report_mpi.c — an MPI run in `augur report`; see report_mpi.h. */
#include "cli/report_mpi.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "predict/predict.h"
#include "report/text_table.h"

/* Sum and largest of the ranks' instructions. */
static void rank_totals(const db_mpi_rank *v, size_t n, uint64_t *sum, uint64_t *max)
{
    *sum = *max = 0;
    for (size_t i = 0; i < n; i++) {
        *sum += v[i].instructions;
        if (v[i].instructions > *max)
            *max = v[i].instructions;
    }
}

int report_mpi_ranks(db *d, int64_t run_id, num_style numbers, FILE *out, char *err, size_t errlen)
{
    db_mpi_rank *v;
    size_t n;
    if (db_mpi_ranks(d, run_id, &v, &n, err, errlen) != 0)
        return -1;
    if (n == 0)
        return 0;
    uint64_t sum, max;
    rank_totals(v, n, &sum, &max);
    fprintf(out, "\nMPI ranks: %zu of %lld stored\n", n, (long long)v[0].size);
    text_table t = {.ncols = 6, .align = "rrrrrl"};
    const char *head[] = {"rank", "instructions", "accesses", "bytes sent", "bytes received", "status"};
    for (int k = 0; k < 6; k++)
        text_table_cell(&t, "%s", head[k]);
    for (size_t i = 0; i < n; i++) {
        char a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN], e[NUMFMT_LEN];
        text_table_cell(&t, "%lld", (long long)v[i].rank);
        text_table_cell(&t, "%s", numfmt_count(v[i].instructions, numbers, a));
        text_table_cell(&t, "%s", numfmt_count(v[i].accesses, numbers, b));
        text_table_cell(&t, "%s", numfmt_count(v[i].sent, numbers, c));
        text_table_cell(&t, "%s", numfmt_count(v[i].received, numbers, e));
        text_table_cell(&t, "%s%s%s", v[i].status, *v[i].detail ? ": " : "", v[i].detail);
    }
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    char s[NUMFMT_LEN], m[NUMFMT_LEN];
    double mean = (double)sum / (double)n;
    /* the imbalance is exact, a ratio of counts: three decimals show a 0.1% step */
    fprintf(out, "summed: %s instructions; largest rank: %s; imbalance (largest / mean): %.3f\n",
            numfmt_count(sum, numbers, s), numfmt_count(max, numbers, m), mean > 0 ? (double)max / mean : 1.0);
    db_mpi_ranks_free(v, n);
    if (rc != 0)
        snprintf(err, errlen, "cannot write the report");
    return rc;
}

/* "exchange < main" from the stored JSON array of callers. */
static void callers_text(const char *stack, char *buf, size_t len)
{
    json_t *a = json_loads(stack, 0, NULL);
    size_t i, used = 0;
    json_t *name;
    buf[0] = '\0';
    json_array_foreach(a, i, name)
    {
        int w = snprintf(buf + used, len - used, "%s%s", i ? " < " : "", json_string_value(name));
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
    }
    json_decref(a);
}

/* "mpi_halo.c:27" for a call site, "?" without a file. */
static void site_text(const db_comm_site *c, char *buf, size_t len)
{
    const char *slash = c->file ? strrchr(c->file, '/') : NULL;
    if (c->file)
        snprintf(buf, len, "%s:%lld", slash ? slash + 1 : c->file, (long long)c->line);
    else
        snprintf(buf, len, "?");
}

static int comm_text(const db_comm_site *v, size_t n, num_style numbers, FILE *out)
{
    text_table t = {.ncols = 8, .align = "llllrrrr"};
    const char *head[] = {"function", "call site", "callers", "peer", "ranks", "calls", "bytes sent",
                          "bytes received"};
    for (int k = 0; k < 8; k++)
        text_table_cell(&t, "%s", head[k]);
    uint64_t calls = 0, sent = 0, received = 0;
    for (size_t i = 0; i < n; i++) {
        char site[512], callers[1024], a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN];
        site_text(&v[i], site, sizeof site);
        callers_text(v[i].stack, callers, sizeof callers);
        text_table_cell(&t, "%s", v[i].function);
        text_table_cell(&t, "%s", site);
        text_table_cell(&t, "%s", callers);
        if (v[i].peer >= 0)
            text_table_cell(&t, "%lld", (long long)v[i].peer);
        else
            text_table_cell(&t, "-");
        text_table_cell(&t, "%llu", (unsigned long long)v[i].ranks);
        text_table_cell(&t, "%s", numfmt_count(v[i].calls, numbers, a));
        text_table_cell(&t, "%s", numfmt_count(v[i].sent, numbers, b));
        text_table_cell(&t, "%s", numfmt_count(v[i].received, numbers, c));
        calls += v[i].calls, sent += v[i].sent, received += v[i].received;
    }
    int rc = text_table_print(&t, out);
    text_table_free(&t);
    char a[NUMFMT_LEN], b[NUMFMT_LEN], c[NUMFMT_LEN];
    fprintf(out, "total: %s calls, %s bytes sent, %s bytes received\n", numfmt_count(calls, numbers, a),
            numfmt_count(sent, numbers, b), numfmt_count(received, numbers, c));
    return rc;
}

/* The ranks as a JSON array, each with its counts and status. */
static json_t *ranks_json(const db_mpi_rank *r, size_t nr)
{
    json_t *ranks = json_array();
    for (size_t i = 0; ranks && i < nr; i++)
        json_array_append_new(ranks, json_pack("{s:I, s:I, s:I, s:I, s:I, s:s, s:s}", "rank", (json_int_t)r[i].rank,
                                               "instructions", (json_int_t)r[i].instructions, "accesses",
                                               (json_int_t)r[i].accesses, "bytes_sent", (json_int_t)r[i].sent,
                                               "bytes_received", (json_int_t)r[i].received, "status", r[i].status,
                                               "status_detail", r[i].detail));
    return ranks;
}

static int comm_json(int64_t run_id, const db_comm_site *v, size_t n, const db_mpi_rank *r, size_t nr, FILE *out)
{
    json_t *sites = json_array(), *ranks = ranks_json(r, nr);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            sites, json_pack("{s:s, s:s?, s:I, s:o, s:o, s:I, s:I, s:I, s:I}", "function", v[i].function, "file",
                             v[i].file, "line", (json_int_t)v[i].line, "callers", json_loads(v[i].stack, 0, NULL),
                             "peer", v[i].peer >= 0 ? json_integer(v[i].peer) : json_null(), "ranks",
                             (json_int_t)v[i].ranks, "calls", (json_int_t)v[i].calls, "bytes_sent",
                             (json_int_t)v[i].sent, "bytes_received", (json_int_t)v[i].received));
    json_t *doc = json_pack("{s:I, s:I, s:o, s:o}", "run", (json_int_t)run_id, "size",
                            (json_int_t)(nr ? r[0].size : 0), "ranks", ranks, "calls", sites);
    int rc = doc && json_dumpf(doc, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(doc);
    return rc;
}

int report_mpi_ranks_json(db *d, int64_t run_id, json_t **out, char *err, size_t errlen)
{
    db_mpi_rank *v;
    size_t n;
    *out = NULL;
    if (db_mpi_ranks(d, run_id, &v, &n, err, errlen) != 0)
        return -1;
    if (n == 0) {
        *out = json_null();
        return 0;
    }
    uint64_t sum, max;
    rank_totals(v, n, &sum, &max);
    double mean = (double)sum / (double)n;
    *out = json_pack("{s:I, s:I, s:o, s:I, s:I, s:f}", "size", (json_int_t)v[0].size, "stored", (json_int_t)n,
                     "ranks", ranks_json(v, n), "summed_instructions", (json_int_t)sum, "largest_rank_instructions",
                     (json_int_t)max, "imbalance", mean > 0 ? (double)max / mean : 1.0);
    db_mpi_ranks_free(v, n);
    if (!*out) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

int report_mpi_comm(db *d, int64_t run_id, int json, num_style numbers, FILE *out, char *err, size_t errlen)
{
    db_comm_site *v;
    db_mpi_rank *r = NULL;
    size_t n, nr = 0;
    if (db_comm_sites(d, run_id, &v, &n, err, errlen) != 0)
        return -1;
    int rc = db_mpi_ranks(d, run_id, &r, &nr, err, errlen);
    if (rc == 0 && n == 0) {
        snprintf(err, errlen, "run %lld has no MPI calls: collect an MPI program (mpirun -np P augur collect ... -- "
                 "PROGRAM; docs/user-guide.md, \"MPI programs\")", (long long)run_id);
        rc = -1;
    }
    if (rc == 0 && !json) {
        fprintf(out, "MPI calls of run %lld per call site and peer, summed over its ranks\n", (long long)run_id);
        rc = comm_text(v, n, numbers, out);
        if (rc == 0)
            rc = report_mpi_ranks(d, run_id, numbers, out, err, errlen);
    } else if (rc == 0)
        rc = comm_json(run_id, v, n, r, nr, out);
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "cannot write the report");
    db_comm_sites_free(v, n);
    db_mpi_ranks_free(r, nr);
    return rc;
}
