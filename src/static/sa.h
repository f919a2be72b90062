/* sa.h — the types `augur static` works with, shared by the files of
 * src/static (docs/static.md): an arena that owns every object of one
 * analysis, the symbols of the program (unknowns, loop iterators,
 * existential variables), affine forms over them, convex pieces and signed
 * unions of pieces (iteration domains), counts of their integer points
 * (PolyLib's Ehrhart quasi-polynomials, per chamber of the parameters) and
 * formulas (weighted sums of counts).  Each .c file of src/static does one
 * of the jobs declared here. */
#ifndef AUGUR_STATIC_SA_H
#define AUGUR_STATIC_SA_H

#include <stddef.h>
#include <stdint.h>

/* ---- arena.c: every object of one analysis, freed at once ---------------- */
typedef struct sa_arena sa_arena;
sa_arena *sa_arena_new(void);
void sa_arena_free(sa_arena *a);
/* Zeroed memory that lives as long as the arena; aborts when memory runs out
 * (the analysis of a source file is small; there is nothing to recover). */
void *sa_alloc(sa_arena *a, size_t size);
char *sa_strdup(sa_arena *a, const char *s);
__attribute__((format(printf, 2, 3))) char *sa_printf(sa_arena *a, const char *fmt, ...);
/* Append one element of `size` bytes to the arena-owned array *v of *n elements. */
void *sa_push(sa_arena *a, void *v, size_t *n, size_t size, const void *elem);

/* ---- symbols.c: the names formulas are written in ------------------------ */
typedef enum sa_sym_kind {
    SYM_PARAM,  /* a parameter of the function that owns it */
    SYM_GLOBAL, /* a global variable */
    SYM_LOCAL,  /* a local variable whose value the analysis does not know */
    SYM_UNKNOWN, /* a named unknown: loop_LINE, ratio_LINE, an annotation variable */
    SYM_ITER,   /* a loop's iterator: a dimension of the domains inside the loop */
    SYM_EXIST,  /* an existential variable (a quotient of / or %, a stride's counter) */
    SYM_SHARE,  /* a thread's share of a parallel loop's iterations: ceil(N/threads) (floor: floor), a factor */
} sa_sym_kind;

typedef struct sa_sym {
    const char *name;  /* as written in formulas */
    sa_sym_kind kind;
    const char *owner; /* the function of a parameter or local, else NULL */
    /* SYM_SHARE: N is the count of share_dom's points (its parameters the
     * program's unknowns: the iterations of one entry of the loop), counted
     * by sa_compose into *share; threads is the symbol of the threads;
     * floor: floor(N/threads), the least share, rather than the largest */
    const struct sa_dom *share_dom;
    struct sa_formula *share;
    int threads, floor;
} sa_sym;

typedef struct sa_symtab {
    sa_arena *arena;
    sa_sym *v;
    size_t n;
} sa_symtab;

/* The symbol of (name, kind, owner), added when new; its index. */
int sa_sym_get(sa_symtab *t, const char *name, sa_sym_kind kind, const char *owner);
/* A new symbol (never shared), for iterators and existential variables
 * (these are named NAME followed by their number). */
int sa_sym_new(sa_symtab *t, const char *name, sa_sym_kind kind, const char *owner);
/* Is symbol kind a dimension of a domain (iterator, existential) rather than a parameter? */
int sa_sym_is_dim(sa_sym_kind kind);
struct sa_dom;
/* A new SYM_SHARE symbol: one thread's share, ceil(N/threads) (or with
 * floor_div floor(N/threads)), of the N points of domain d (copied) split
 * over symbol `threads`. */
int sa_sym_share(sa_symtab *t, const struct sa_dom *d, int threads, int floor_div);

/* ---- lin.c: affine forms c + sum k_i * sym_i over symbols ---------------- */
typedef struct sa_lin {
    int n;         /* terms, sorted by symbol, no zero coefficient */
    int *sym;
    int64_t *k;
    int64_t c;
} sa_lin;

sa_lin sa_lin_const(int64_t c);
sa_lin sa_lin_sym(sa_arena *a, int sym);
/* ka * x + kb * y. */
sa_lin sa_lin_comb(sa_arena *a, int64_t ka, sa_lin x, int64_t kb, sa_lin y);
/* x with each symbol s for which map[s].sym >= 0 ... replaced: see sa_subst. */
typedef struct sa_subst {
    int from;   /* symbol replaced */
    sa_lin to;  /* by this form */
} sa_subst;
sa_lin sa_lin_subst(sa_arena *a, sa_lin x, const sa_subst *s, size_t ns);
int sa_lin_is_const(sa_lin x);
/* "2*n - i + 1" with the symbols' names. */
char *sa_lin_str(sa_arena *a, const sa_symtab *t, sa_lin x);

/* ---- domain.c: iteration domains ---------------------------------------- */
typedef struct sa_cons {
    sa_lin e;
    int eq; /* e == 0 when set, else e >= 0 */
} sa_cons;

/* A convex piece: the integer points of a conjunction of constraints,
 * counted with `sign` (+1 or -1: the complement rule subtracts). */
typedef struct sa_piece {
    int sign;
    size_t n;
    sa_cons *c;
} sa_piece;

/* A domain: the signed sum of its pieces' points; no piece is the universe
 * of one point with no constraint (the empty product is a piece with n = 0). */
typedef struct sa_dom {
    size_t n;
    sa_piece *p;
} sa_dom;

/* The domain of one point with no constraint (outside every loop). */
sa_dom sa_dom_unit(sa_arena *a);
/* d with constraint c added to every piece. */
sa_dom sa_dom_and(sa_arena *a, sa_dom d, sa_cons c);
/* d with every constraint of `extra` added to every piece. */
sa_dom sa_dom_and_all(sa_arena *a, sa_dom d, const sa_cons *extra, size_t n);
/* x + y (the pieces of both). */
sa_dom sa_dom_plus(sa_arena *a, sa_dom x, sa_dom y);
/* x - y (y's pieces with their signs flipped). */
sa_dom sa_dom_minus(sa_arena *a, sa_dom x, sa_dom y);
/* The points of both: each piece of x with each piece of y (signs multiplied). */
sa_dom sa_dom_product(sa_arena *a, sa_dom x, sa_dom y);
/* d with the substitutions applied to every constraint. */
sa_dom sa_dom_subst(sa_arena *a, sa_dom d, const sa_subst *s, size_t ns);
/* Constraint helpers: x >= y, x <= y, x == y. */
sa_cons sa_ge(sa_arena *a, sa_lin x, sa_lin y);
sa_cons sa_le(sa_arena *a, sa_lin x, sa_lin y);
sa_cons sa_eq(sa_arena *a, sa_lin x, sa_lin y);

/* ---- pwa.c: piecewise affine values (min, max, /, % by constants) -------- */
typedef struct sa_case {
    size_t n;       /* constraints under which the value holds */
    sa_cons *c;
    sa_lin v;
} sa_case;

typedef struct sa_pwa {
    size_t n;
    sa_case *v;
} sa_pwa;

sa_pwa sa_pwa_lin(sa_arena *a, sa_lin v);
/* ka * x + kb * y, case by case. */
sa_pwa sa_pwa_comb(sa_arena *a, int64_t ka, sa_pwa x, int64_t kb, sa_pwa y);
/* min(x, y) (is_max 0) or max(x, y): split where x <= y and x > y. */
sa_pwa sa_pwa_minmax(sa_arena *a, sa_pwa x, sa_pwa y, int is_max);
/* x / d or x % d with C's truncation, d > 0: a new existential quotient
 * per case, split where x >= 0 and x < 0. */
sa_pwa sa_pwa_divmod(sa_arena *a, sa_symtab *t, sa_pwa x, int64_t d, int is_mod);
/* d where x REL y holds; rel is one of "<", "<=", ">", ">=", "==", "!=". */
sa_dom sa_dom_rel(sa_arena *a, sa_dom d, sa_pwa x, const char *rel, sa_pwa y);

/* ---- count.c: integer points of a piece (PolyLib) ------------------------ */
/* The points of a piece as a function of its parameters: chambers of the
 * parameters, each with its quasi-polynomial; zero outside all of them.
 * `en` is PolyLib's Enumeration list (Polyhedron_Enumerate). */
typedef struct sa_count {
    int nparam;
    int *param; /* symbols, in PolyLib's parameter order */
    struct _enumeration *en;
    const char *key; /* the piece's constraints, as text: equal keys, equal counts */
} sa_count;

/* A cache of counts by key, freed with sa_counts_free. */
typedef struct sa_counts {
    sa_arena *arena;
    const sa_symtab *syms;
    size_t n;
    sa_count **v;
} sa_counts;

/* The count of piece p (its sign ignored), computed once per distinct
 * piece.  Returns NULL with a message when PolyLib cannot count it (an
 * unbounded piece: a loop without an upper bound in its parameters). */
sa_count *sa_count_piece(sa_counts *cc, const sa_piece *p, char *err, size_t errlen);
void sa_counts_free(sa_counts *cc);

/* ---- formula.c: weighted sums of counts ---------------------------------- */
typedef struct sa_term {
    int64_t num, den;    /* rational weight */
    size_t nf;           /* unknown factors (branch ratios), multiplied */
    int *f;
    sa_count *cnt;       /* NULL: the constant 1 */
} sa_term;

typedef struct sa_formula {
    size_t n;
    sa_term *t;
} sa_formula;

/* The number of points of domain d (signed sum of its pieces), or -1 with a
 * message.  */
int sa_formula_of_dom(sa_counts *cc, sa_dom d, sa_formula *out, char *err, size_t errlen);
/* x + k * y, where k is num/den times the product of factors f[0..nf). */
sa_formula sa_formula_axpy(sa_arena *a, sa_formula x, int64_t num, int64_t den, const int *f, size_t nf,
                           sa_formula y);
int sa_formula_is_zero(sa_formula x);

/* Rendering dialects of formulas. */
typedef enum sa_dialect { SA_TEXT, SA_PYTHON, SA_C } sa_dialect;
/* The formula as text ("(n^2 - n)/2 for n >= 2, else 0"), as a Python
 * expression in its symbols' names (exact integer arithmetic), or as a C
 * expression over int64_t unknowns (double where a branch ratio weighs a
 * count), which needs augur_mod (out_c.c) when it has periodic numbers. */
char *sa_formula_str(sa_arena *a, const sa_symtab *t, sa_formula x, sa_dialect d);
/* The value at the symbols' values (vals[sym], set where known[sym]; a
 * thread's share computed from its count's and the threads').
 * Returns 0, or -1 naming in `missing` the first symbol without a value. */
int sa_formula_eval(const sa_symtab *t, sa_formula x, const double *vals, const char *known, double *out,
                    const char **missing);
/* Symbols the formula depends on, appended to *syms (no duplicates); a
 * thread's share (SYM_SHARE) stands for its count's symbols and the
 * threads'. */
void sa_formula_symbols(const sa_symtab *t, sa_arena *a, sa_formula x, int **syms, size_t *n);

#endif
