/* predict_mpi.c — `augur predict` of an MPI program: the models
 * modelset_comm.c fits over the ranks (bytes sent and received and calls,
 * summed over the ranks; the largest rank's instructions) at the predicted
 * parameters, with the mean rank (the predicted total over P) and the
 * imbalance (largest / mean); as text after the prediction and as its
 * JSON's "mpi" member (docs/user-guide.md, "MPI programs"). */
#include <math.h>
#include <string.h>

#include "predict/predict.h"

/* One MPI model's value at the predicted point and its range. */
typedef struct mpi_value {
    double v, lo, hi;
} mpi_value;

/* What the set's MPI models give at p's parameters. */
typedef struct mpi_prediction {
    mpi_value sent, received, calls, largest;
    double ranks; /* the parameter P; 0 when the set has none */
} mpi_prediction;

/* *v: the set's `total` model of `metric` at p's parameters, its range
 * from predict_count_doubt (counts: never below 0).  0 when the set has
 * no such model. */
static int value_of(const prediction *p, const char *metric, mpi_value *v)
{
    for (size_t i = 0; i < p->nrows; i++) {
        const db_model_row *row = &p->rows[i];
        if (strcmp(row->kind, "total") || strcmp(row->metric, metric))
            continue;
        v->v = model_eval(row->m, p->x);
        double doubt = predict_count_doubt(row->m, predict_reach(p));
        v->lo = fmax(0, v->v * (1 - doubt));
        v->hi = v->v * (1 + doubt);
        return 1;
    }
    return 0;
}

/* 1 and *m filled when p's set has every MPI model, else 0. */
static int mpi_predict(const prediction *p, mpi_prediction *m)
{
    *m = (mpi_prediction){0};
    if (!value_of(p, "comm_bytes_sent", &m->sent) || !value_of(p, "comm_bytes_received", &m->received) ||
        !value_of(p, "comm_calls", &m->calls) || !value_of(p, "rank_max_instructions", &m->largest))
        return 0;
    for (int k = 0; k < p->set.nparams; k++)
        if (!strcmp(p->set.params[k], "P"))
            m->ranks = p->x[k];
    return 1;
}

/* v as predict shows a count: the digits its range supports and the ends
 * to 3 digits rounded outward; every digit and no range when the range is
 * under a unit wide (an exact model). */
static const char *value_text(const mpi_value *v, num_style numbers, char *buf, size_t len)
{
    char a[NUMFMT_LEN], r[NUMFMT_RANGE_LEN];
    numfmt_fixed(numfmt_shown(v->v, v->lo, v->hi), 0, numbers, a);
    if (v->hi - v->lo < 1)
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s (%s)", a, numfmt_range(v->lo, v->hi, numbers, r));
    return buf;
}

/* The mean rank's instructions: the predicted total over P. */
static double mean_rank(const prediction *p, const mpi_prediction *m)
{
    return (double)p->rep.total.instructions / m->ranks;
}

int predict_write_mpi_text(const prediction *p, num_style numbers, FILE *out)
{
    mpi_prediction m;
    if (!mpi_predict(p, &m))
        return 0;
    enum { TEXT = NUMFMT_LEN + NUMFMT_RANGE_LEN + 3 }; /* "V (LO to HI)" */
    char sent[TEXT], got[TEXT], calls[TEXT], max[TEXT], mean[NUMFMT_LEN];
    fprintf(out, "\nMPI ranks (models of the runs' ranks, summed over them):\n");
    fprintf(out, "  bytes sent %s, bytes received %s, calls %s\n", value_text(&m.sent, numbers, sent, sizeof sent),
            value_text(&m.received, numbers, got, sizeof got), value_text(&m.calls, numbers, calls, sizeof calls));
    value_text(&m.largest, numbers, max, sizeof max);
    if (m.ranks >= 1) {
        double avg = mean_rank(p, &m);
        numfmt_fixed(numfmt_round_sig(avg, 3), 0, numbers, mean); /* a mean of counts with ranges: 3 digits */
        fprintf(out, "  instructions: largest rank %s, mean rank %s (the total over P = %g), imbalance %.3g\n", max,
                mean, m.ranks, avg > 0 ? m.largest.v / avg : 1.0);
    } else
        fprintf(out, "  instructions: largest rank %s (no parameter P: no mean rank)\n", max);
    return ferror(out) ? -1 : 0;
}

/* {"value": v, "range": [lo, hi]}. */
static json_t *value_json(const mpi_value *v)
{
    return json_pack("{s:f, s:[f, f]}", "value", v->v, "range", v->lo, v->hi);
}

json_t *predict_mpi_json(const prediction *p)
{
    mpi_prediction m;
    if (!mpi_predict(p, &m))
        return json_null();
    json_t *j = json_pack("{s:o, s:o, s:o, s:o}", "bytes_sent", value_json(&m.sent), "bytes_received",
                          value_json(&m.received), "calls", value_json(&m.calls), "largest_rank_instructions",
                          value_json(&m.largest));
    if (j && m.ranks >= 1) {
        double avg = mean_rank(p, &m);
        if (json_object_set_new(j, "ranks", json_real(m.ranks)) != 0 ||
            json_object_set_new(j, "mean_rank_instructions", json_real(avg)) != 0 ||
            json_object_set_new(j, "imbalance", json_real(avg > 0 ? m.largest.v / avg : 1.0)) != 0) {
            json_decref(j);
            return NULL;
        }
    }
    return j;
}
