/* md.c — Lennard-Jones molecular dynamics in the form of the Mantevo mini-app
 * miniMD (P. S. Crozier, H. C. Edwards, M. A. Heroux et al., Sandia; its
 * serial form and defaults: reduced units, density 0.8442, temperature 1.44,
 * dt 0.005, force cutoff 2.5, neighbour skin 0.3, bins of half the neighbour
 * cutoff) and CoMD (ExMatEx, LANL: the counting sort into link cells): an
 * fcc lattice of N^3 unit cells (4 N^3 atoms) in a periodic box; velocities
 * from a fixed-seed generator, net momentum removed and scaled to the
 * temperature; atoms sorted into bins; half neighbour lists from the atom's
 * bin and the 62 bins of its half shell (miniMD's build with Newton's third
 * law: each pair once); the LJ force 48 (r^-14 - r^-8 / 2) r on the listed
 * pairs within the cutoff; velocity Verlet (miniMD's initial_integrate,
 * force, final_integrate) for STEPS steps, the atoms wrapped into the box and
 * the lists rebuilt every EVERY steps.  Distances by the minimum image (the
 * box holds at least 5 bins a side: N >= 5).  Prints the temperature and the
 * total energy per atom at the end.  Work per atom ~ STEPS * 40 pairs * 20
 * flops + the list builds; data ~ 4 N^3 * (9 * 8 + 2 * 8 + 80 * 8) bytes.
 * usage: md N            prints "md N temperature energy-per-atom" */
#include <math.h>
#include <string.h>

#define KERNEL_NAME "md"
#include "kernel.h"

#define DENSITY 0.8442
#define TEMPERATURE 1.44
#define DT 0.005
#define CUTFORCE 2.5
#define CUTNEIGH (CUTFORCE + 0.3)
#define STEPS 6
#define EVERY 3

struct atoms {
    long n;
    double box;          /* the periodic box's side */
    double *x, *v, *f;   /* 3 n each: positions, velocities, forces */
};

struct cells {
    long per_side, count;   /* bins per side of the box, per_side^3 */
    long *start;            /* bin c's atoms are order[start[c] .. start[c+1]) */
    long *order;            /* atom indices sorted by bin */
    long *cell_of;          /* each atom's bin */
};

struct neighbours {
    long max_per_atom;
    long *count;            /* count[i] neighbours of i ... */
    long *list;             /* ... at list[i * max_per_atom ..] */
};

/* lattice: the fcc lattice of n^3 unit cells into a (4 n^3 atoms), velocities
 * from the generator with zero net momentum, scaled to TEMPERATURE. */
__attribute__((noinline)) static void lattice(long n, struct atoms *a)
{
    static const double basis[4][3] = {{0, 0, 0}, {0.5, 0.5, 0}, {0.5, 0, 0.5}, {0, 0.5, 0.5}};
    double lat = cbrt(4.0 / DENSITY);
    uint64_t seed = 12345;
    a->n = 4 * n * n * n;
    a->box = lat * (double)n;
    a->x = alloc(3 * a->n, sizeof *a->x);
    a->v = alloc(3 * a->n, sizeof *a->v);
    a->f = alloc(3 * a->n, sizeof *a->f);
    long i = 0;
    for (long k = 0; k < n; k++)
        for (long j = 0; j < n; j++)
            for (long l = 0; l < n; l++)
                for (int b = 0; b < 4; b++, i++) {
                    a->x[3 * i] = lat * ((double)l + basis[b][0]);
                    a->x[3 * i + 1] = lat * ((double)j + basis[b][1]);
                    a->x[3 * i + 2] = lat * ((double)k + basis[b][2]);
                }
    double p[3] = {0, 0, 0};
    for (i = 0; i < 3 * a->n; i++) {
        a->v[i] = (double)lcg_next(&seed) / 4294967296.0 - 0.5;
        p[i % 3] += a->v[i];
    }
    double ke = 0.0;
    for (i = 0; i < 3 * a->n; i++) {
        a->v[i] -= p[i % 3] / (double)a->n;
        ke += a->v[i] * a->v[i];
    }
    double scale = sqrt(TEMPERATURE * (double)(3 * a->n - 3) / ke);
    for (i = 0; i < 3 * a->n; i++)
        a->v[i] *= scale;
}

/* temperature: 2 KE / (3 n - 3) of the velocities (unit mass, k_B = 1). */
__attribute__((noinline)) static double temperature(const struct atoms *a)
{
    double ke = 0.0;
    for (long i = 0; i < 3 * a->n; i++)
        ke += a->v[i] * a->v[i];
    return ke / (double)(3 * a->n - 3);
}

/* cells_init: bins of side at least CUTNEIGH / 2 over a's box. */
static void cells_init(const struct atoms *a, struct cells *c)
{
    c->per_side = (long)(a->box / (0.5 * CUTNEIGH));
    c->count = c->per_side * c->per_side * c->per_side;
    c->start = alloc(c->count + 1, sizeof *c->start);
    c->order = alloc(a->n, sizeof *c->order);
    c->cell_of = alloc(a->n, sizeof *c->cell_of);
}

/* wrap: every coordinate into [0, box) (atoms leave the box between builds). */
__attribute__((noinline)) static void wrap(struct atoms *a)
{
    for (long i = 0; i < 3 * a->n; i++) {
        if (a->x[i] < 0.0)
            a->x[i] += a->box;
        else if (a->x[i] >= a->box)
            a->x[i] -= a->box;
    }
}

/* bin: the atoms sorted by bin into c (a counting sort). */
__attribute__((noinline)) static void bin(const struct atoms *a, struct cells *c)
{
    double per = (double)c->per_side / a->box;
    memset(c->start, 0, (size_t)(c->count + 1) * sizeof *c->start);
    for (long i = 0; i < a->n; i++) {
        long cx = (long)(a->x[3 * i] * per), cy = (long)(a->x[3 * i + 1] * per), cz = (long)(a->x[3 * i + 2] * per);
        cx -= cx == c->per_side, cy -= cy == c->per_side, cz -= cz == c->per_side; /* x == box after rounding */
        c->cell_of[i] = (cz * c->per_side + cy) * c->per_side + cx;
        c->start[c->cell_of[i] + 1]++;
    }
    for (long k = 0; k < c->count; k++)
        c->start[k + 1] += c->start[k];
    for (long i = 0; i < a->n; i++)
        c->order[c->start[c->cell_of[i]]++] = i;
    for (long k = c->count; k > 0; k--) /* start[k] was moved to the end of bin k */
        c->start[k] = c->start[k - 1];
    c->start[0] = 0;
}

/* min_image: d wrapped into [-box/2, box/2]. */
static inline double min_image(double d, double box)
{
    if (d > 0.5 * box)
        return d - box;
    if (d < -0.5 * box)
        return d + box;
    return d;
}

/* in_half_shell: whether the bin offset (dx, dy, dz) is one of the half of
 * the 124 around a bin that a half list visits (the other half are their
 * mirrors), or the bin itself (0, 0, 0). */
static inline int in_half_shell(long dx, long dy, long dz)
{
    return dz > 0 || (dz == 0 && (dy > 0 || (dy == 0 && dx >= 0)));
}

/* build_neighbours: for each atom i, the atoms within CUTNEIGH (minimum
 * image) of its own bin with j > i and of the 62 bins of its half shell
 * (offsets -2 .. 2: bins of at least CUTNEIGH / 2) into nb, so that each pair
 * is listed once (miniMD's half list); ends the program when an atom has
 * more than nb->max_per_atom. */
__attribute__((noinline)) static void build_neighbours(const struct atoms *a, const struct cells *c,
                                                       struct neighbours *nb)
{
    const double cutsq = CUTNEIGH * CUTNEIGH;
    long ps = c->per_side;
    for (long i = 0; i < a->n; i++) {
        long ci = c->cell_of[i], cx = ci % ps, cy = ci / ps % ps, cz = ci / (ps * ps), cnt = 0;
        long *list = nb->list + i * nb->max_per_atom;
        for (long dz = -2; dz <= 2; dz++)
            for (long dy = -2; dy <= 2; dy++)
                for (long dx = -2; dx <= 2; dx++) {
                    if (!in_half_shell(dx, dy, dz))
                        continue;
                    long cj = (((cz + dz + ps) % ps) * ps + (cy + dy + ps) % ps) * ps + (cx + dx + ps) % ps;
                    for (long s = c->start[cj]; s < c->start[cj + 1]; s++) {
                        long j = c->order[s];
                        if (cj == ci && j <= i)
                            continue;
                        double ddx = min_image(a->x[3 * i] - a->x[3 * j], a->box);
                        double ddy = min_image(a->x[3 * i + 1] - a->x[3 * j + 1], a->box);
                        double ddz = min_image(a->x[3 * i + 2] - a->x[3 * j + 2], a->box);
                        if (ddx * ddx + ddy * ddy + ddz * ddz < cutsq) {
                            if (cnt == nb->max_per_atom) {
                                fprintf(stderr, "md: more than %ld neighbours of atom %ld\n", nb->max_per_atom, i);
                                exit(1);
                            }
                            list[cnt++] = j;
                        }
                    }
                }
        nb->count[i] = cnt;
    }
}

/* force: the LJ forces of the listed pairs within CUTFORCE into a->f (each
 * pair once, Newton's third law); returns the potential energy. */
__attribute__((noinline)) static double force(struct atoms *a, const struct neighbours *nb)
{
    const double cutsq = CUTFORCE * CUTFORCE;
    double energy = 0.0;
    memset(a->f, 0, (size_t)(3 * a->n) * sizeof *a->f);
    for (long i = 0; i < a->n; i++) {
        const long *list = nb->list + i * nb->max_per_atom;
        double xi = a->x[3 * i], yi = a->x[3 * i + 1], zi = a->x[3 * i + 2];
        double fx = 0.0, fy = 0.0, fz = 0.0;
        for (long k = 0; k < nb->count[i]; k++) {
            long j = list[k];
            double dx = min_image(xi - a->x[3 * j], a->box);
            double dy = min_image(yi - a->x[3 * j + 1], a->box);
            double dz = min_image(zi - a->x[3 * j + 2], a->box);
            double rsq = dx * dx + dy * dy + dz * dz;
            if (rsq < cutsq) {
                double sr2 = 1.0 / rsq, sr6 = sr2 * sr2 * sr2;
                double fpair = 48.0 * sr6 * (sr6 - 0.5) * sr2;
                fx += dx * fpair, fy += dy * fpair, fz += dz * fpair;
                a->f[3 * j] -= dx * fpair;
                a->f[3 * j + 1] -= dy * fpair;
                a->f[3 * j + 2] -= dz * fpair;
                energy += 4.0 * sr6 * (sr6 - 1.0);
            }
        }
        a->f[3 * i] += fx, a->f[3 * i + 1] += fy, a->f[3 * i + 2] += fz;
    }
    return energy;
}

/* initial_integrate: v += dt/2 f, x += dt v (unit mass). */
__attribute__((noinline)) static void initial_integrate(struct atoms *a)
{
    for (long i = 0; i < 3 * a->n; i++) {
        a->v[i] += 0.5 * DT * a->f[i];
        a->x[i] += DT * a->v[i];
    }
}

/* final_integrate: v += dt/2 f. */
__attribute__((noinline)) static void final_integrate(struct atoms *a)
{
    for (long i = 0; i < 3 * a->n; i++)
        a->v[i] += 0.5 * DT * a->f[i];
}

int main(int argc, char **argv)
{
    long n = size_arg(argc, argv, 5, 200);
    struct atoms a;
    struct cells c;
    struct neighbours nb;
    lattice(n, &a);
    cells_init(&a, &c);
    /* 4/3 pi CUTNEIGH^3 DENSITY is about 78 atoms in reach; half of them are
     * listed, more where the liquid is denser: room for 80 */
    nb.max_per_atom = 80;
    nb.count = alloc(a.n, sizeof *nb.count);
    nb.list = alloc(a.n * nb.max_per_atom, sizeof *nb.list);
    bin(&a, &c);
    build_neighbours(&a, &c, &nb);
    double energy = force(&a, &nb);
    for (int step = 1; step <= STEPS; step++) {
        initial_integrate(&a);
        if (step % EVERY == 0) {
            wrap(&a);
            bin(&a, &c);
            build_neighbours(&a, &c, &nb);
        }
        energy = force(&a, &nb);
        final_integrate(&a);
    }
    double t = temperature(&a);
    printf("md %ld %.6f %.6f\n", n, t, (energy + 1.5 * t * (double)(a.n - 1)) / (double)a.n);
    return 0;
}
