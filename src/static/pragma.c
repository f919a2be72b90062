/* pragma.c — annotations: the raw tokens of a file (clang_tokenize keeps
 * preprocessor directives) are scanned for `#pragma augur KIND ...` and
 * `#pragma @Annotation {k:v,...}`; their expressions (a small grammar of
 * names, integers, + - * / %, parentheses, min and max, over clang's tokens)
 * are translated like the bounds of the source (docs/static.md,
 * "Annotations"). */
#include "static/pragma.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct toks {
    size_t n;
    char **s;
    int *line;
} toks;

/* Append token s at line to t (both arrays grow together: sa_push grows by
 * the count, which is the same for both). */
static void push_tok(sa_arena *a, toks *t, char *s, int line)
{
    size_t n = t->n;
    t->s = sa_push(a, t->s, &n, sizeof s, &s);
    t->line = sa_push(a, t->line, &t->n, sizeof line, &line);
}

/* The tokens of one directive: from '#' to the end of its line, and of the
 * lines a backslash continues. */
static toks directive(sa_arena *a, const toks *all, size_t *i, const char *text)
{
    toks d = {0};
    int line = all->line[*i];
    size_t k = *i;
    for (; k < all->n; k++) {
        if (all->line[k] != line) {
            /* does line `line` end with a backslash? */
            const char *p = text;
            for (int l = 1; l < line && p; l++)
                p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
            const char *e = p ? strchr(p, '\n') : NULL;
            while (e && e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                e--;
            if (!(e && e > p && e[-1] == '\\'))
                break;
            line = all->line[k];
        }
        push_tok(a, &d, all->s[k], all->line[k]);
    }
    *i = k;
    return d;
}

/* The tokens between the parentheses that start at d->s[*k] ("(" ... ")"),
 * with *k moved past them; -1 when they are unbalanced. */
static int parenthesized(sa_arena *a, const toks *d, size_t *k, sa_texpr *out)
{
    if (*k >= d->n || strcmp(d->s[*k], "("))
        return -1;
    int depth = 0;
    *out = (sa_texpr){0};
    for (size_t j = *k; j < d->n; j++) {
        depth += !strcmp(d->s[j], "(") - !strcmp(d->s[j], ")");
        if (depth == 0) {
            *k = j + 1;
            return out->n ? 0 : -1;
        }
        if (j > *k)
            out->tok = sa_push(a, out->tok, &out->n, sizeof(char *), &d->s[j]);
    }
    return -1;
}

/* A ratio in [0, 1] written as a decimal number ("0.25") into num/den. */
static int ratio(const char *s, int64_t *num, int64_t *den)
{
    int64_t n = 0, d = 1;
    int dot = 0, digits = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '.' && !dot) {
            dot = 1;
        } else if (*p >= '0' && *p <= '9' && d < 1000000000) {
            n = n * 10 + (*p - '0');
            d *= dot ? 10 : 1;
            digits++;
        } else {
            return -1;
        }
    }
    if (!digits || n > d)
        return -1;
    *num = n;
    *den = d;
    return 0;
}

/* `augur loop iterations(E)`, `augur branch ratio(X)`, `augur skip`,
 * `augur param NAME(E)`; -1 and *why when malformed. */
static int augur_pragma(sa_arena *a, const toks *d, sa_pragma *pr, const char **why)
{
    /* tokens: # pragma augur KIND [WORD] ( ... ) */
    const char *kind = d->n > 3 ? d->s[3] : "", *word = d->n > 4 ? d->s[4] : "";
    size_t k = 5;
    sa_texpr x;
    if (!strcmp(kind, "skip") && d->n == 4) {
        pr->skip = 1;
        return 0;
    }
    if (!strcmp(kind, "loop") && !strcmp(word, "iterations") && parenthesized(a, d, &k, &pr->iters) == 0 &&
        k == d->n) {
        pr->has_iters = 1;
        return 0;
    }
    if (!strcmp(kind, "branch") && !strcmp(word, "ratio") && parenthesized(a, d, &k, &x) == 0 && k == d->n &&
        x.n == 1 && ratio(x.tok[0], &pr->ratio_num, &pr->ratio_den) == 0) {
        pr->has_ratio = 1;
        return 0;
    }
    if (!strcmp(kind, "param") && parenthesized(a, d, &k, &pr->iters) == 0 && k == d->n) {
        pr->param = word;
        return 0;
    }
    *why = "is not one of: loop iterations(EXPR), branch ratio(X), skip, param NAME(EXPR)";
    return -1;
}

/* The value tokens of key:value up to the next ',' or '}'. */
static sa_texpr value_of(sa_arena *a, const toks *d, size_t *k)
{
    sa_texpr x = {0};
    int depth = 0;
    for (; *k < d->n; (*k)++) {
        const char *t = d->s[*k];
        if (depth == 0 && (!strcmp(t, ",") || !strcmp(t, "}")))
            break;
        depth += !strcmp(t, "(") - !strcmp(t, ")");
        x.tok = sa_push(a, x.tok, &x.n, sizeof(char *), &d->s[*k]);
    }
    return x;
}

/* `@Annotation {lp_init:X, lp_cond:Y, lp_iter:N, br_ratio:R, skip:yes}`. */
static int annotation(sa_arena *a, const toks *d, sa_pragma *pr, const char **why)
{
    size_t k = 4;
    *why = "is not {key:value,...} with keys lp_init, lp_cond, lp_iter, br_ratio, skip";
    if (d->n < 5 || strcmp(d->s[3], "{") || strcmp(d->s[d->n - 1], "}"))
        return -1;
    while (k < d->n - 1) {
        const char *key = d->s[k];
        if (k + 1 >= d->n || strcmp(d->s[k + 1], ":"))
            return -1;
        k += 2;
        sa_texpr v = value_of(a, d, &k);
        if (v.n == 0)
            return -1;
        if (!strcmp(key, "lp_init"))
            pr->init = v, pr->has_init = 1;
        else if (!strcmp(key, "lp_cond"))
            pr->cond = v, pr->has_cond = 1;
        else if (!strcmp(key, "lp_iter"))
            pr->iters = v, pr->has_iters = 1;
        else if (!strcmp(key, "br_ratio") && v.n == 1 && ratio(v.tok[0], &pr->ratio_num, &pr->ratio_den) == 0)
            pr->has_ratio = 1;
        else if (!strcmp(key, "skip") && v.n == 1 && (!strcmp(v.tok[0], "yes") || !strcmp(v.tok[0], "no")))
            pr->skip = !strcmp(v.tok[0], "yes");
        else
            return -1;
        if (k < d->n - 1 && !strcmp(d->s[k], ","))
            k++;
    }
    return 0;
}

/* The whole text of path, NUL-terminated, in the arena. */
static char *slurp(sa_arena *a, const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0) {
        if (f)
            fclose(f);
        return NULL;
    }
    char *s = sa_alloc(a, (size_t)st.st_size + 1);
    *size = fread(s, 1, (size_t)st.st_size, f);
    fclose(f);
    return s;
}

/* Every token of the file with its line. */
static toks file_tokens(sa_arena *a, CXTranslationUnit tu, const char *path, size_t size)
{
    toks all = {0};
    CXFile f = clang_getFile(tu, path);
    if (!f || size == 0)
        return all;
    CXSourceRange r = clang_getRange(clang_getLocationForOffset(tu, f, 0), clang_getLocationForOffset(tu, f, (unsigned)size));
    CXToken *t;
    unsigned n;
    clang_tokenize(tu, r, &t, &n);
    for (unsigned i = 0; i < n; i++) {
        unsigned line;
        clang_getSpellingLocation(clang_getTokenLocation(tu, t[i]), NULL, &line, NULL, NULL);
        CXString s = clang_getTokenSpelling(tu, t[i]);
        char *sp = sa_strdup(a, clang_getCString(s));
        clang_disposeString(s);
        push_tok(a, &all, sp, (int)line);
    }
    clang_disposeTokens(tu, t, n);
    return all;
}

sa_pragmas sa_read_pragmas(sa_program *p, CXTranslationUnit tu, const char *file)
{
    sa_pragmas out = {0};
    size_t size = 0;
    char *text = slurp(p->arena, file, &size);
    if (!text)
        return out;
    toks all = file_tokens(p->arena, tu, file, size);
    for (size_t i = 0; i < all.n;) {
        if (strcmp(all.s[i], "#") || i + 1 >= all.n || strcmp(all.s[i + 1], "pragma") || all.line[i + 1] != all.line[i]) {
            i++;
            continue;
        }
        int line = all.line[i];
        toks d = directive(p->arena, &all, &i, text);
        int ours = d.n > 2 && !strcmp(d.s[2], "augur");
        int seed = d.n > 3 && !strcmp(d.s[2], "@") && !strcmp(d.s[3], "Annotation");
        if (d.n > 3 && !strcmp(d.s[2], "omp")) { /* a loop directive marks its loop parallel (loop.c) */
            sa_pragma pr = {.line = line, .used = 1};
            for (size_t j = 3; j < d.n && j < 5; j++)
                pr.omp_for |= !strcmp(d.s[j], "for");
            if (pr.omp_for)
                out.v = sa_push(p->arena, out.v, &out.n, sizeof pr, &pr);
            continue;
        }
        if (!ours && !seed)
            continue; /* another tool's pragma (GCC, ...) */
        sa_pragma pr = {.line = line};
        const char *why = NULL;
        if (seed) { /* drop the '@' so that keys start at token 4 */
            memmove(d.s + 2, d.s + 3, (d.n - 3) * sizeof *d.s);
            d.n--;
        }
        int rc = ours ? augur_pragma(p->arena, &d, &pr, &why) : annotation(p->arena, &d, &pr, &why);
        if (rc != 0) {
            char *textp = sa_strdup(p->arena, seed ? "#pragma @" : "#pragma");
            for (size_t j = 2; j < d.n; j++)
                textp = sa_printf(p->arena, "%s%s%s", textp, j > 2 || !seed ? " " : "", d.s[j]);
            sa_warn(p, file, line, "annotation '%s' %s; ignored", textp, why);
            continue;
        }
        out.v = sa_push(p->arena, out.v, &out.n, sizeof pr, &pr);
    }
    return out;
}

/* ---- the grammar of annotation expressions -------------------------------- */

typedef struct parser {
    sa_env *e;
    const sa_texpr *x;
    size_t k;
} parser;

static int sum(parser *q, sa_pwa *out);

static const char *peek(const parser *q)
{
    return q->k < q->x->n ? q->x->tok[q->k] : "";
}

static int expect(parser *q, const char *t)
{
    if (strcmp(peek(q), t))
        return -1;
    q->k++;
    return 0;
}

static int is_const(sa_pwa v)
{
    return v.n == 1 && v.v[0].n == 0 && sa_lin_is_const(v.v[0].v);
}

static int primary(parser *q, sa_pwa *out)
{
    const char *t = peek(q);
    char *end;
    if (!strcmp(t, "-")) {
        q->k++;
        if (primary(q, out) != 0)
            return -1;
        *out = sa_pwa_comb(q->e->a, -1, *out, 0, *out);
        return 0;
    }
    if (!strcmp(t, "(")) {
        q->k++;
        return sum(q, out) || expect(q, ")") ? -1 : 0;
    }
    long long v = strtoll(t, &end, 10);
    if (*t >= '0' && *t <= '9' && *end == 0) {
        q->k++;
        *out = sa_pwa_lin(q->e->a, sa_lin_const(v));
        return 0;
    }
    if (!((*t >= 'a' && *t <= 'z') || (*t >= 'A' && *t <= 'Z') || *t == '_'))
        return -1;
    q->k++;
    if ((!strcmp(t, "min") || !strcmp(t, "max")) && !strcmp(peek(q), "(")) {
        sa_pwa x, y;
        q->k++;
        if (sum(q, &x) || expect(q, ",") || sum(q, &y) || expect(q, ")"))
            return -1;
        *out = sa_pwa_minmax(q->e->a, x, y, t[1] == 'a');
        return 0;
    }
    *out = sa_name_value(q->e, t);
    return 0;
}

static int product(parser *q, sa_pwa *out)
{
    if (primary(q, out) != 0)
        return -1;
    for (;;) {
        const char *op = peek(q);
        if (strcmp(op, "*") && strcmp(op, "/") && strcmp(op, "%"))
            return 0;
        q->k++;
        sa_pwa y;
        if (primary(q, &y) != 0)
            return -1;
        if (op[0] == '*' && (is_const(*out) || is_const(y))) {
            *out = is_const(y) ? sa_pwa_comb(q->e->a, y.v[0].v.c, *out, 0, *out)
                               : sa_pwa_comb(q->e->a, out->v[0].v.c, y, 0, y);
        } else if (op[0] != '*' && is_const(y) && y.v[0].v.c > 0) {
            *out = sa_pwa_divmod(q->e->a, &q->e->p->syms, *out, y.v[0].v.c, op[0] == '%');
        } else {
            return -1;
        }
    }
}

static int sum(parser *q, sa_pwa *out)
{
    if (product(q, out) != 0)
        return -1;
    for (;;) {
        const char *op = peek(q);
        if (strcmp(op, "+") && strcmp(op, "-"))
            return 0;
        q->k++;
        sa_pwa y;
        if (product(q, &y) != 0)
            return -1;
        *out = sa_pwa_comb(q->e->a, 1, *out, op[0] == '+' ? 1 : -1, y);
    }
}

int sa_texpr_pwa(sa_env *e, const sa_texpr *x, sa_pwa *out)
{
    parser q = {e, x, 0};
    if (sum(&q, out) == 0 && q.k == x->n)
        return 0;
    char *s = sa_strdup(e->a, "");
    for (size_t j = 0; j < x->n; j++)
        s = sa_printf(e->a, "%s%s", s, x->tok[j]);
    e->why = sa_printf(e->a, "the annotation's expression '%s' is not affine (names, integers, + - * / %%, min, max)", s);
    return -1;
}
