/* modelset_comm.c — models of an MPI program's communication and balance
 * (docs/models.md, "MPI runs"): over runs that are each one MPI launch,
 * the bytes the ranks' MPI calls sent and received and their calls, summed
 * over the ranks, and the largest rank's instructions, each as a `total`
 * model of the run parameters (P, the rank count, among them).  Fitted as
 * every count is (exact polynomials first: a halo exchange's volume is
 * one in N and P). */
#include <stdlib.h>

#include "modelset/modelset.h"

enum { C_SENT, C_RECEIVED, C_CALLS, C_MAX_RANK, NCOMM };

static const char *const comm_metrics[NCOMM] = {"comm_bytes_sent", "comm_bytes_received", "comm_calls",
                                                "rank_max_instructions"};

/* Run `run_id`'s sums into y[k * n + r]; *is_mpi 0 when it has no ranks. */
static int run_sums(ms_fitter *f, int64_t run_id, size_t r, double *y, int *is_mpi)
{
    db_mpi_rank *v;
    size_t nv, n = f->runs->n;
    if (db_mpi_ranks(f->d, run_id, &v, &nv, f->err, f->errlen) != 0)
        return -1;
    *is_mpi = nv > 0;
    for (size_t i = 0; i < nv; i++) {
        y[C_SENT * n + r] += (double)v[i].sent;
        y[C_RECEIVED * n + r] += (double)v[i].received;
        y[C_CALLS * n + r] += (double)v[i].calls;
        if ((double)v[i].instructions > y[C_MAX_RANK * n + r])
            y[C_MAX_RANK * n + r] = (double)v[i].instructions;
    }
    db_mpi_ranks_free(v, nv);
    return 0;
}

int ms_fit_comm(ms_fitter *f)
{
    size_t n = f->runs->n;
    double *y = calloc(NCOMM * n + 1, sizeof *y);
    if (!y)
        return snprintf(f->err, f->errlen, "out of memory"), -1;
    int rc = 0, all = 1;
    for (size_t r = 0; rc == 0 && all && r < n; r++)
        rc = run_sums(f, f->runs->ids[r], r, y, &all);
    if (rc == 0 && all && f->opts->progress)
        fprintf(f->opts->progress, "augur model: fitting the MPI ranks' communication and balance\n");
    db_model_subject subj = {.kind = "total"};
    for (int k = 0; rc == 0 && all && k < NCOMM; k++)
        rc = ms_fit_put(f, &subj, comm_metrics[k], y + (size_t)k * n);
    if (rc == 0)
        rc = ms_fit_flush(f);
    free(y);
    return rc;
}
