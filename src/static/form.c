/* form.c — a formula's form (form.h): its terms with their weights and
 * factors, and each count's chambers as PolyLib's constraint rows and
 * flattened quasi-polynomials. */
#include "static/form.h"
#include "static/evalue.h"

static json_t *ints(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* A validity domain: one array of rows per polyhedron of the union. */
static json_t *where(const Polyhedron *P, int nparam)
{
    json_t *u = json_array();
    for (; P; P = P->next) {
        json_t *conj = json_array();
        for (unsigned r = 0; r < P->NbConstraints; r++) {
            json_t *row = json_array();
            for (int k = 0; k < nparam + 2; k++)
                json_array_append_new(row, json_integer((json_int_t)P->Constraint[r][k]));
            json_array_append_new(conj, row);
        }
        json_array_append_new(u, conj);
    }
    return u;
}

static json_t *chambers(sa_arena *a, const sa_count *c)
{
    json_t *ch = json_array();
    for (const Enumeration *e = c->en; e; e = e->next) {
        size_t n;
        sa_qterm *q = sa_qpoly_terms(a, &e->EP, c->nparam, &n);
        json_t *poly = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(poly, json_pack("[IIooo]", (json_int_t)q[i].num, (json_int_t)q[i].den,
                                                  ints(q[i].exp, c->nparam), ints(q[i].mod, c->nparam),
                                                  ints(q[i].res, c->nparam)));
        json_array_append_new(ch, json_pack("{s:o,s:o}", "where", where(e->ValidityDomain, c->nparam), "poly", poly));
    }
    return ch;
}

json_t *sa_formula_form(sa_arena *a, const sa_symtab *t, sa_formula x)
{
    json_t *terms = json_array();
    for (size_t i = 0; i < x.n; i++) {
        const sa_term *tm = &x.t[i];
        json_t *factors = json_array(), *params = json_array();
        for (size_t j = 0; j < tm->nf; j++)
            json_array_append_new(factors, json_string(t->v[tm->f[j]].name));
        for (int k = 0; tm->cnt && k < tm->cnt->nparam; k++)
            json_array_append_new(params, json_string(t->v[tm->cnt->param[k]].name));
        json_array_append_new(terms, json_pack("{s:[II],s:o,s:o,s:o}", "weight", (json_int_t)tm->num,
                                               (json_int_t)tm->den, "factors", factors, "params", params, "chambers",
                                               tm->cnt ? chambers(a, tm->cnt) : json_null()));
    }
    return json_pack("{s:o}", "terms", terms);
}
