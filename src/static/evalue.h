/* evalue.h — what src/static does with PolyLib's quasi-polynomials
 * (evalue trees: rationals, polynomials and periodic numbers in the
 * parameters): copy them scaled and with parameters renumbered, sum them,
 * and read them back as integers over a common denominator. */
#ifndef AUGUR_STATIC_EVALUE_H
#define AUGUR_STATIC_EVALUE_H

#include <polylib/polylib64.h>
#include <stdint.h>

/* dst = (num/den) * src, with parameter k (1-based) of src renumbered
 * map[k-1] (1-based), or kept when map is NULL.  dst is a new tree (free with free_evalue_refs). */
void ev_scaled_copy(const evalue *src, int64_t num, int64_t den, const int *map, evalue *dst);
/* res += e. */
void ev_add(const evalue *e, evalue *res);
/* dst = 0 (a rational). */
void ev_zero(evalue *dst);
/* Is e zero? */
int ev_is_zero(const evalue *e);
/* Does e hold a periodic number anywhere? */
int ev_has_periodic(const evalue *e);
/* The least common multiple of e's denominators (1 for integers). */
int64_t ev_denominator(const evalue *e);
int64_t ev_gcd(int64_t a, int64_t b);

/* A quasi-polynomial flattened (render.c): num/den * prod p^exp[p], where
 * every p = res[p] mod mod[p] (mod 1: any), per parameter p. */
typedef struct sa_qterm {
    int *exp, *mod, *res;
    int64_t num, den;
} sa_qterm;
struct sa_arena;
/* The terms of e over np parameters (arena-owned), *n of them. */
sa_qterm *sa_qpoly_terms(struct sa_arena *a, const evalue *e, int np, size_t *n);

#endif
