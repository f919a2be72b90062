/* model_term.c — the terms of a model (model.h): their values, formulas for
 * people, and the parser of user-supplied basis terms.
 *
 * A term is coef * prod p^i * log2(p)^j.  Values never become NaN at
 * parameters p <= 0: there log2(p) counts as 0, and so does p^i for i != 0
 * (p^0 = 1 everywhere).  The fitter never proposes such terms for such
 * parameters; the rule only keeps a stray evaluation harmless.
 *
 * Formula convention (model_format):
 *   - the constant first, left out when it is 0 and there are terms;
 *     then the terms in the model's order, joined by " + " or " - " (the
 *     sign is taken out of the coefficient; a leading negative term is
 *     written "-3*N");
 *   - a factor prints as "N", "N^2", "sqrt(N)", "N^(1/3)" (an exponent
 *     that is a fraction a/b with b <= 12), "N^1.2345" (anything else, %.6g),
 *     followed by "log2(N)" or "log2(N)^2"; factors are joined by "*";
 *   - a coefficient of 1 is left out; an integer (within 1e-9 relative)
 *     prints in full, "1234567*N"; a fraction k/d with 2 <= d <= 12 (within
 *     1e-9 relative) divides the term: "N^2/2", "3*N/4", and "7/2" for the
 *     constant; anything else prints with %.6g: "0.123457*N".
 *
 * Parser grammar (model_parse_term), whitespace allowed between tokens:
 *   term   := factor ('*' factor)*
 *   factor := NAME | NAME '^' R | NAME '^' '(' A '/' B ')' | sqrt '(' NAME ')'
 *           | log2 '(' NAME ')' | log2 '(' NAME ')' '^' K
 * NAME is an identifier [A-Za-z_][A-Za-z0-9_]* among the parameter names,
 * R, A, B decimal numbers (R and A may carry a sign), K a positive integer.
 * A parameter may appear once as a power and once as a log; the two merge
 * into one model_factor.
 */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* ---- values -------------------------------------------------------------- */

/* p^e * log2(p)^j for one factor, with the p <= 0 rule of the header. */
static double factor_value(double p, double e, int j)
{
    double v = 1.0;
    if (e != 0.0)
        v = p > 0.0 ? pow(p, e) : 0.0;
    if (j != 0) {
        double l = p > 0.0 ? log2(p) : 0.0;
        for (int k = 0; k < j; k++)
            v *= l;
    }
    return v;
}

/* The term's basis value at x (its coefficient left out). */
double model_term_basis(const model_term *t, const double *x)
{
    double v = 1.0;
    for (int f = 0; f < t->nfactors; f++)
        v *= factor_value(x[t->factors[f].param], t->factors[f].exponent, t->factors[f].log_exponent);
    return v;
}

/* constant + sum of coef * basis at x. */
double model_eval(const model *m, const double *x)
{
    double v = m->constant;
    for (int i = 0; i < m->nterms; i++)
        v += m->terms[i].coef * model_term_basis(&m->terms[i], x);
    for (int k = 0; m->st && k < m->st->nterms; k++)
        v += m->st->coef[k] * model_static_term(m->st, k, x);
    return v;
}

/* ---- products ------------------------------------------------------------- */

/* The product a*b as one term, factors merged per parameter and sorted by
 * parameter; coefficient 1. */
model_term model_term_mul(const model_term *a, const model_term *b)
{
    model_term r = {.coef = 1.0};
    const model_term *src[2] = {a, b};
    for (int s = 0; s < 2; s++)
        for (int f = 0; f < src[s]->nfactors; f++) {
            model_factor g = src[s]->factors[f];
            int i = 0;
            while (i < r.nfactors && r.factors[i].param < g.param)
                i++;
            if (i < r.nfactors && r.factors[i].param == g.param) {
                r.factors[i].exponent += g.exponent;
                r.factors[i].log_exponent += g.log_exponent;
                continue;
            }
            if (r.nfactors == MODEL_MAX_PARAMS)
                continue; /* cannot happen: one factor per parameter */
            memmove(&r.factors[i + 1], &r.factors[i], (size_t)(r.nfactors - i) * sizeof g);
            r.factors[i] = g;
            r.nfactors++;
        }
    return r;
}

/* 1 if term a is written before term b: larger sum of exponents first,
 * then more logs (so "N^2 + N*log2(N) + N"). */
int model_term_before(const model_term *a, const model_term *b)
{
    double ea = 0.0, eb = 0.0;
    int la = 0, lb = 0;
    for (int f = 0; f < a->nfactors; f++)
        ea += a->factors[f].exponent, la += a->factors[f].log_exponent;
    for (int f = 0; f < b->nfactors; f++)
        eb += b->factors[f].exponent, lb += b->factors[f].log_exponent;
    if (fabs(ea - eb) > 1e-9)
        return ea > eb;
    return la > lb;
}

/* 1 if t's factors all cancel (p^0, no log): a constant. */
static int term_is_constant(const model_term *t)
{
    for (int f = 0; f < t->nfactors; f++)
        if (t->factors[f].exponent != 0.0 || t->factors[f].log_exponent != 0)
            return 0;
    return 1;
}

/* Add c * basis(t) to m: to the constant, to a term of the same factors,
 * or as a new term in model_term_before's order.  0, or -1 when full. */
static int add_scaled_term(model *m, const model_term *t, double c)
{
    if (term_is_constant(t)) {
        m->constant += c;
        return 0;
    }
    for (int i = 0; i < m->nterms; i++) {
        const model_term *u = &m->terms[i];
        int same = u->nfactors == t->nfactors;
        for (int f = 0; same && f < t->nfactors; f++)
            same = u->factors[f].param == t->factors[f].param && u->factors[f].exponent == t->factors[f].exponent &&
                   u->factors[f].log_exponent == t->factors[f].log_exponent;
        if (same) {
            m->terms[i].coef += c;
            return 0;
        }
    }
    if (m->nterms == MODEL_MAX_TERMS)
        return -1;
    int at = m->nterms++;
    for (; at > 0 && model_term_before(t, &m->terms[at - 1]); at--)
        m->terms[at] = m->terms[at - 1];
    m->terms[at] = *t;
    m->terms[at].coef = c;
    return 0;
}

int model_multiply_add(const model *a, const model *b, const model *c, model *out)
{
    memset(out, 0, sizeof *out);
    model_term one = {.coef = 1.0}; /* the constants as terms without factors */
    for (int i = -1; i < a->nterms; i++)
        for (int j = -1; j < b->nterms; j++) {
            const model_term *ta = i < 0 ? &one : &a->terms[i], *tb = j < 0 ? &one : &b->terms[j];
            double v = (i < 0 ? a->constant : ta->coef) * (j < 0 ? b->constant : tb->coef);
            model_term t = model_term_mul(ta, tb);
            if (v != 0.0 && add_scaled_term(out, &t, v) != 0)
                return -1;
        }
    for (int i = -1; c && i < c->nterms; i++)
        if (add_scaled_term(out, i < 0 ? &one : &c->terms[i], i < 0 ? c->constant : c->terms[i].coef) != 0)
            return -1;
    int k = 0; /* drop the terms that cancelled */
    for (int i = 0; i < out->nterms; i++)
        if (out->terms[i].coef != 0.0)
            out->terms[k++] = out->terms[i];
    out->nterms = k;
    return 0;
}

int model_multiply(const model *a, const model *b, model *out)
{
    return model_multiply_add(a, b, NULL, out);
}

/* ---- formulas ------------------------------------------------------------- */

/* An output buffer that counts what would have been written (snprintf
 * semantics): buf may be NULL when len is 0. */
typedef struct outbuf {
    char *buf;
    size_t len;
    size_t n; /* characters produced so far, written or not */
} outbuf;

/* Append printf-style text to b, truncating but counting. */
static void out_printf(outbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(outbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r;
    if (b->n < b->len)
        r = vsnprintf(b->buf + b->n, b->len - b->n, fmt, ap);
    else
        r = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (r > 0)
        b->n += (size_t)r;
}

/* If v is within 1e-9 relative of k/d with 1 <= d <= 12 (smallest such d),
 * set *k, *d and return 1; else 0.  v = 0 and huge values give 0. */
static int as_fraction(double v, long long *k, int *d)
{
    if (v == 0.0 || !(fabs(v) < 1e14))
        return 0;
    for (int den = 1; den <= 12; den++) {
        double num = nearbyint(v * den);
        if (num != 0.0 && fabs(v - num / den) <= 1e-9 * fabs(v)) {
            *k = (long long)num;
            *d = den;
            return 1;
        }
    }
    return 0;
}

/* The name of parameter k: names[k], or "p<k+1>" without names. */
static void out_name(outbuf *b, const char *const *names, int k)
{
    if (names && names[k])
        out_printf(b, "%s", names[k]);
    else
        out_printf(b, "p%d", k + 1);
}

/* One factor: power part then log part, e.g. "N^2*log2(N)". */
static void out_factor(outbuf *b, const model_factor *f, const char *const *names)
{
    double e = f->exponent;
    long long k;
    int d;
    if (e != 0.0) {
        if (e == 1.0)
            out_name(b, names, f->param);
        else if (e == 0.5) {
            out_printf(b, "sqrt(");
            out_name(b, names, f->param);
            out_printf(b, ")");
        } else {
            out_name(b, names, f->param);
            if (as_fraction(e, &k, &d) && d == 1)
                out_printf(b, k < 0 ? "^(%lld)" : "^%lld", k);
            else if (as_fraction(e, &k, &d))
                out_printf(b, "^(%lld/%d)", k, d);
            else
                out_printf(b, e < 0 ? "^(%.6g)" : "^%.6g", e);
        }
    }
    if (f->log_exponent != 0) {
        if (e != 0.0)
            out_printf(b, "*");
        out_printf(b, "log2(");
        out_name(b, names, f->param);
        out_printf(b, f->log_exponent == 1 ? ")" : ")^%d", f->log_exponent);
    }
}

/* The basis of t (no coefficient), factors joined by "*"; "1" if none. */
static void out_basis(outbuf *b, const model_term *t, const char *const *names)
{
    int printed = 0;
    for (int f = 0; f < t->nfactors; f++) {
        if (t->factors[f].exponent == 0.0 && t->factors[f].log_exponent == 0)
            continue;
        if (printed++)
            out_printf(b, "*");
        out_factor(b, &t->factors[f], names);
    }
    if (!printed)
        out_printf(b, "1");
}

/* |c| (c != 0) times the basis of t, or the number alone when t is NULL,
 * following the coefficient convention of the header. */
static void out_scaled(outbuf *b, double c, const model_term *t, const char *const *names)
{
    long long k;
    int d;
    c = fabs(c);
    if (as_fraction(c, &k, &d)) {
        if (!t)
            out_printf(b, d == 1 ? "%lld" : "%lld/%d", k, d);
        else {
            if (k != 1)
                out_printf(b, "%lld*", k);
            out_basis(b, t, names);
            if (d != 1)
                out_printf(b, "/%d", d);
        }
        return;
    }
    out_printf(b, "%.6g", c);
    if (t) {
        out_printf(b, "*");
        out_basis(b, t, names);
    }
}

/* A formula such as "3 + N^2/2 + 2*N*log2(N)" (see the header). */
int model_format(const model *m, const char *const *names, char *buf, size_t len)
{
    outbuf b = {buf, len, 0};
    if (len)
        buf[0] = '\0';
    int first = 1;
    int nst = m->st ? m->st->nterms : 0;
    if (m->constant != 0.0 || m->nterms + nst == 0) {
        if (m->constant < 0.0)
            out_printf(&b, "-");
        if (m->constant == 0.0)
            out_printf(&b, "0");
        else
            out_scaled(&b, m->constant, NULL, names);
        first = 0;
    }
    for (int i = 0; i < m->nterms; i++) {
        double c = m->terms[i].coef;
        if (first)
            out_printf(&b, c < 0.0 ? "-" : "");
        else
            out_printf(&b, c < 0.0 ? " - " : " + ");
        if (c == 0.0)
            out_printf(&b, "0*");
        if (c == 0.0)
            out_basis(&b, &m->terms[i], names);
        else
            out_scaled(&b, c, &m->terms[i], names);
        first = 0;
    }
    for (int k = 0; k < nst; k++) { /* c*{loop at k.c:19}: that loop's iterations in the run, from the source */
        double c = m->st->coef[k];
        long long num;
        int den;
        out_printf(&b, first ? (c < 0.0 ? "-" : "") : c < 0.0 ? " - " : " + ");
        if (!as_fraction(fabs(c), &num, &den) || num != 1 || den != 1) {
            out_scaled(&b, fabs(c), NULL, names);
            out_printf(&b, "*");
        }
        out_printf(&b, "{%s}", m->st->labels[k]);
        first = 0;
    }
    return b.n > (size_t)INT32_MAX ? INT32_MAX : (int)b.n;
}

/* ---- parsing basis terms -------------------------------------------------- */

static const char accepted_forms[] =
    "accepted forms: NAME, NAME^R, NAME^(A/B), sqrt(NAME), log2(NAME), log2(NAME)^K, joined by '*'";

/* The state of one parse. */
typedef struct parser {
    const char *text; /* the whole term, for messages */
    const char *s;    /* the next character */
    const char *const *names;
    int nnames;
    model_term *out;
    char *err;
    size_t errlen;
} parser;

/* Skip blanks. */
static void skip_space(parser *ps)
{
    while (isspace((unsigned char)*ps->s))
        ps->s++;
}

/* Report bad syntax: what was expected, where, and the accepted forms.
 * Returns -1. */
static int syntax_error(parser *ps, const char *expected)
{
    if (ps->err && ps->errlen) {
        if (*ps->s)
            snprintf(ps->err, ps->errlen, "bad basis term \"%s\": expected %s at \"%s\"; %s", ps->text, expected,
                     ps->s, accepted_forms);
        else
            snprintf(ps->err, ps->errlen, "bad basis term \"%s\": expected %s at the end; %s", ps->text, expected,
                     accepted_forms);
    }
    return -1;
}

/* Read an identifier into id (at most idlen-1 characters kept); returns its
 * length in the text, 0 if there is none. */
static size_t read_ident(parser *ps, char *id, size_t idlen)
{
    const char *start = ps->s;
    if (!(isalpha((unsigned char)*ps->s) || *ps->s == '_'))
        return 0;
    while (isalnum((unsigned char)*ps->s) || *ps->s == '_')
        ps->s++;
    size_t n = (size_t)(ps->s - start);
    size_t keep = n < idlen - 1 ? n : idlen - 1;
    memcpy(id, start, keep);
    id[keep] = '\0';
    return n;
}

/* Index of parameter `id`, or -1 after writing the "unknown parameter"
 * message with the list of parameters. */
static int lookup_param(parser *ps, const char *id)
{
    for (int k = 0; k < ps->nnames; k++)
        if (ps->names[k] && strcmp(ps->names[k], id) == 0)
            return k;
    if (ps->err && ps->errlen) {
        outbuf b = {ps->err, ps->errlen, 0};
        out_printf(&b, "unknown parameter \"%s\" in basis term \"%s\" (parameters: ", id, ps->text);
        for (int k = 0; k < ps->nnames; k++)
            out_printf(&b, k ? ", %s" : "%s", ps->names[k] ? ps->names[k] : "?");
        out_printf(&b, ")");
    }
    return -1;
}

/* Read a decimal number [+-]digits[.digits] (or .digits) into *v; returns
 * 0, or -1 if there is none (nothing consumed). */
static int read_number(parser *ps, double *v, int allow_sign)
{
    skip_space(ps);
    const char *p = ps->s;
    if (allow_sign && (*p == '+' || *p == '-'))
        p++;
    int digits = 0;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, digits++;
    }
    if (!digits)
        return -1;
    char tmp[64];
    size_t n = (size_t)(p - ps->s);
    if (n >= sizeof tmp)
        return -1;
    memcpy(tmp, ps->s, n);
    tmp[n] = '\0';
    *v = strtod(tmp, NULL);
    ps->s = p;
    return 0;
}

/* Merge p^e (e != 0) or log2(p)^j (j != 0) into the term being built;
 * -1 with a message if that part of p is already there. */
static int merge_factor(parser *ps, int param, double e, int j)
{
    model_term *t = ps->out;
    int f = 0;
    while (f < t->nfactors && t->factors[f].param != param)
        f++;
    if (f == t->nfactors) {
        if (t->nfactors == MODEL_MAX_PARAMS) {
            if (ps->err && ps->errlen)
                snprintf(ps->err, ps->errlen, "bad basis term \"%s\": more than %d parameters", ps->text,
                     MODEL_MAX_PARAMS);
            return -1;
        }
        t->factors[f] = (model_factor){param, 0.0, 0};
        t->nfactors++;
    }
    if ((e != 0.0 && t->factors[f].exponent != 0.0) || (j != 0 && t->factors[f].log_exponent != 0)) {
        if (ps->err && ps->errlen)
            snprintf(ps->err, ps->errlen, "bad basis term \"%s\": %s appears twice as a %s; %s", ps->text,
                 ps->names[param], e != 0.0 ? "power" : "log", accepted_forms);
        return -1;
    }
    if (e != 0.0)
        t->factors[f].exponent = e;
    else
        t->factors[f].log_exponent = j;
    return 0;
}

/* '(' NAME ')' after sqrt or log2: the parameter index, or -1. */
static int parse_call_arg(parser *ps)
{
    char id[64];
    skip_space(ps);
    if (*ps->s != '(')
        return syntax_error(ps, "'('");
    ps->s++;
    skip_space(ps);
    if (!read_ident(ps, id, sizeof id))
        return syntax_error(ps, "a parameter name");
    int k = lookup_param(ps, id);
    if (k < 0)
        return -1;
    skip_space(ps);
    if (*ps->s != ')')
        return syntax_error(ps, "')'");
    ps->s++;
    return k;
}

/* The exponent after NAME '^': R or '(' A '/' B ')'.  0 or -1. */
static int parse_exponent(parser *ps, double *e)
{
    skip_space(ps);
    if (*ps->s == '(') {
        double a, b;
        ps->s++;
        if (read_number(ps, &a, 1))
            return syntax_error(ps, "a number");
        skip_space(ps);
        if (*ps->s == '/') {
            ps->s++;
            if (read_number(ps, &b, 0))
                return syntax_error(ps, "a number after '/'");
            if (b == 0.0)
                return syntax_error(ps, "a non-zero denominator");
            a /= b;
        }
        skip_space(ps);
        if (*ps->s != ')')
            return syntax_error(ps, "')'");
        ps->s++;
        *e = a;
    } else if (read_number(ps, e, 1))
        return syntax_error(ps, "a number after '^'");
    if (*e == 0.0 || !isfinite(*e))
        return syntax_error(ps, "a non-zero exponent");
    return 0;
}

/* One factor (see the grammar in the header).  0 or -1. */
static int parse_factor(parser *ps)
{
    char id[64];
    skip_space(ps);
    const char *at = ps->s;
    if (!read_ident(ps, id, sizeof id))
        return syntax_error(ps, "a parameter, sqrt(NAME) or log2(NAME)");
    const char *after = ps->s;
    skip_space(ps);
    int is_call = *ps->s == '(' && (strcmp(id, "sqrt") == 0 || strcmp(id, "log2") == 0);
    ps->s = after;
    if (is_call) {
        int k = parse_call_arg(ps);
        if (k < 0)
            return -1;
        if (id[0] == 's')
            return merge_factor(ps, k, 0.5, 0);
        double K = 1;
        skip_space(ps);
        if (*ps->s == '^') {
            ps->s++;
            if (read_number(ps, &K, 0) || K != floor(K) || K < 1 || K > 16)
                return syntax_error(ps, "a whole power 1..16 of log2");
        }
        return merge_factor(ps, k, 0.0, (int)K);
    }
    if (strcmp(id, "log") == 0 || strcmp(id, "ln") == 0 || strcmp(id, "log10") == 0) {
        ps->s = at;
        return syntax_error(ps, "log2(NAME) (logarithms are base 2)");
    }
    int k = lookup_param(ps, id);
    if (k < 0)
        return -1;
    double e = 1.0;
    skip_space(ps);
    if (*ps->s == '^') {
        ps->s++;
        if (parse_exponent(ps, &e))
            return -1;
    }
    return merge_factor(ps, k, e, 0);
}

/* Parse `text` into *out (coef 1), see the grammar in the header. */
int model_parse_term(const char *text, const char *const *names, int nnames, model_term *out, char *err,
                     size_t errlen)
{
    if (err && errlen)
        err[0] = '\0';
    memset(out, 0, sizeof *out);
    out->coef = 1.0;
    parser ps = {text ? text : "", text ? text : "", names, nnames, out, err, errlen};
    if (!names)
        ps.nnames = 0;
    for (;;) {
        if (parse_factor(&ps))
            return -1;
        skip_space(&ps);
        if (*ps.s == '\0')
            return 0;
        if (*ps.s != '*')
            return syntax_error(&ps, "'*' or the end");
        ps.s++;
    }
}
