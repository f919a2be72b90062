/* branches.c — what a mispredicted data branch costs on this core and how
 * many mispredictions a branch of taken-rate p has, the figures behind the
 * time model's misprediction term (docs/performance-model.md, "Branch
 * mispredictions"; docs/accuracy.md, "Mispredictions on Golden Cove").
 *
 * Each kernel is one asm loop over n doubles d[i] in {0.25, 0.75}: the
 * branch loads d[i], runs it through L dependent vmulsd by 1.0 (its
 * resolution: the load, 4 L cycles, the compare) or through one vdivsd by
 * 1.0 ("div": the divider, 14 cycles), compares with 0.5 and jumps; beside it each iteration has independent work W that neither feeds
 * nor reads the branch: none, adds (vaddsd, 2 to a cycle), divides (vdivsd,
 * one per 4 cycles on the divider) or a latency chain of four vmulsd that
 * starts afresh every iteration.  Timed on the same data in two orders: the
 * 0.75s first (the branch predicted but at the switch) and shuffled (taken
 * half the time at random: a misprediction every other iteration, whatever
 * the predictor).  The difference per misprediction is its cost.  Cycles are
 * counted against a chain of dependent imul r64 (3 cycles).  Each time is
 * the best of 5 passes.  A second table gives the mispredictions of a branch
 * taken with probability p, independently or in runs (each outcome repeats
 * the last with probability q), as the extra time over the sorted order
 * divided by the cost at p = 1/2, against min(p, 1 - p).
 * Build: cc -O2 -mavx2 -o branches bench/branches.c   (AVX for the 3-operand forms)
 * usage: branches [N]   (default N = 262144 doubles, 2 MiB) */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define R10(x) x x x x x x x x x x

/* Seconds of one imul in a dependent chain (3 cycles), best of 7. */
static double imul_chain(long n)
{
    double best = 1e9;
    for (int r = 0; r < 7; r++) {
        double t0 = now();
        __asm__ volatile("mov $3, %%rax\n mov %0, %%rcx\n 1:\n" R10("imul %%rax, %%rax\n") "dec %%rcx\n jnz 1b\n"
                         ::"r"(n) : "rax", "rcx");
        double t = (now() - t0) / (n * 10.0);
        best = t < best ? t : best;
    }
    return best;
}

/* The branch's resolution: L dependent multiplies by 1.0 of the loaded value. */
#define M "vmulsd %%xmm15, %%xmm0, %%xmm0\n"
#define CHAIN0 ""
#define CHAIN2 M M
#define CHAIN5 M M M M M
#define CHAIND "vdivsd %%xmm15, %%xmm0, %%xmm0\n" /* through the divider */
/* The independent work of an iteration. */
#define A(k) "vaddsd %%xmm13, %%xmm12, %%xmm" #k "\n"
#define WNONE ""
#define WADD8 A(1) A(2) A(3) A(4) A(5) A(6) A(7) A(8)
#define WADD24 WADD8 WADD8 WADD8
#define WDIV1 "vdivsd %%xmm13, %%xmm12, %%xmm9\n"
#define WDIV3 WDIV1 "vdivsd %%xmm13, %%xmm12, %%xmm10\n" "vdivsd %%xmm13, %%xmm12, %%xmm11\n"
#define WLAT4 "vmulsd %%xmm13, %%xmm12, %%xmm9\n vmulsd %%xmm9, %%xmm9, %%xmm9\n vmulsd %%xmm9, %%xmm9, %%xmm9\n vmulsd %%xmm9, %%xmm9, %%xmm9\n"

/* KERNEL(name, chain, work): name(d, n) runs the loop once over d[0 .. n). */
#define KERNEL(name, chain, work)                                                                        \
    static void name(const double *d, long n)                                                            \
    {                                                                                                    \
        __asm__ volatile("mov $0x3ff0000000000000, %%rax\n vmovq %%rax, %%xmm15\n"                       \
                         "mov $0x3fe0000000000000, %%rax\n vmovq %%rax, %%xmm14\n"                       \
                         "vmovapd %%xmm15, %%xmm13\n vmovapd %%xmm15, %%xmm12\n"                         \
                         "xor %%ecx, %%ecx\n xor %%r8d, %%r8d\n"                                        \
                         ".p2align 5\n 1:\n vmovsd (%0,%%rcx,8), %%xmm0\n" chain                        \
                         "vucomisd %%xmm14, %%xmm0\n jbe 2f\n add $1, %%r8\n 2:\n" work                 \
                         "add $1, %%rcx\n cmp %1, %%rcx\n jne 1b\n" ::"r"(d), "r"(n)                    \
                         : "rax", "rcx", "r8", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",  \
                           "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", \
                           "memory", "cc");                                                             \
    }

KERNEL(k0_none, CHAIN0, WNONE)
KERNEL(k2_none, CHAIN2, WNONE)
KERNEL(k5_none, CHAIN5, WNONE)
KERNEL(k0_add8, CHAIN0, WADD8)
KERNEL(k2_add8, CHAIN2, WADD8)
KERNEL(k5_add8, CHAIN5, WADD8)
KERNEL(k0_add24, CHAIN0, WADD24)
KERNEL(k2_add24, CHAIN2, WADD24)
KERNEL(k5_add24, CHAIN5, WADD24)
KERNEL(k0_div1, CHAIN0, WDIV1)
KERNEL(k5_div1, CHAIN5, WDIV1)
KERNEL(k0_div3, CHAIN0, WDIV3)
KERNEL(k5_div3, CHAIN5, WDIV3)
KERNEL(kd_none, CHAIND, WNONE)
KERNEL(kd_div1, CHAIND, WDIV1)
KERNEL(kd_div3, CHAIND, WDIV3)
KERNEL(k0_lat4, CHAIN0, WLAT4)
KERNEL(k5_lat4, CHAIN5, WLAT4)

typedef void (*kernel)(const double *, long);

/* Seconds of one iteration of k over d[0 .. n), best of 5 passes. */
static double timed(kernel k, const double *d, long n)
{
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        k(d, n);
        double t = (now() - t0) / (double)n;
        best = t < best ? t : best;
    }
    return best;
}

static unsigned long long lcg = 88172645463325252ULL;

/* A uniform number in [0, 1) from a fixed-seed 64-bit LCG. */
static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) / 9007199254740992.0;
}

/* d[0 .. n): 0.75 (the branch taken) with probability p; each outcome
 * repeats the previous one with probability q, else is drawn afresh (q = 0:
 * independent); the count of 0.75s in *ones. */
static void outcomes(double *d, long n, double p, double q, long *ones)
{
    *ones = 0;
    for (long i = 0; i < n; i++) {
        d[i] = i > 0 && uniform() < q ? d[i - 1] : uniform() < p ? 0.75 : 0.25;
        *ones += d[i] > 0.5;
    }
}

/* d[0 .. n) with the same count of 0.75s as `ones`, all first. */
static void sorted(double *d, long n, long ones)
{
    for (long i = 0; i < n; i++)
        d[i] = i < ones ? 0.75 : 0.25;
}

/* Extra cycles an iteration of k on shuffled against sorted data of taken
 * rate p and persistence q; the cycles of the sorted pass in *base. */
static double extra_cycles(kernel k, double *d, long n, double p, double q, double cycle, double *base)
{
    long ones;
    outcomes(d, n, p, q, &ones);
    double shuffled = timed(k, d, n);
    sorted(d, n, ones);
    double in_order = timed(k, d, n);
    *base = in_order / cycle;
    return (shuffled - in_order) / cycle;
}

static const struct {
    const char *chain, *work;
    kernel k;
} rows[] = {
    {"0", "none", k0_none},    {"2", "none", k2_none},    {"5", "none", k5_none},   {"0", "8 adds", k0_add8},
    {"2", "8 adds", k2_add8},  {"5", "8 adds", k5_add8},  {"0", "24 adds", k0_add24}, {"2", "24 adds", k2_add24},
    {"5", "24 adds", k5_add24}, {"0", "1 divide", k0_div1}, {"5", "1 divide", k5_div1}, {"0", "3 divides", k0_div3},
    {"5", "3 divides", k5_div3}, {"0", "4-mul chain", k0_lat4}, {"5", "4-mul chain", k5_lat4},
    {"div", "none", kd_none},  {"div", "1 divide", kd_div1}, {"div", "3 divides", kd_div3},
};

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 262144;
    if (n < 1024) {
        fprintf(stderr, "branches: N must be at least 1024\n");
        return 2;
    }
    double *d = malloc((size_t)n * sizeof *d);
    if (!d) {
        fprintf(stderr, "branches: out of memory for %ld doubles\n", n);
        return 1;
    }
    double cycle = imul_chain(200000) / 3;
    printf("# core clock %.2f GHz (imul chain); %ld doubles; cycles an iteration\n", 1e-9 / cycle, n);
    printf("# chain(vmulsd) work predicted-cycles extra-cycles-at-p=0.5 cycles-a-misprediction\n");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        double base, extra = extra_cycles(rows[r].k, d, n, 0.5, 0.0, cycle, &base);
        printf("%s %-12s %6.2f %6.2f %6.1f\n", rows[r].chain, rows[r].work, base, extra, extra / 0.5);
    }
    printf("# mispredictions an execution (chain 0, 8 adds): p q measured min(p,1-p)\n");
    double base, cost = extra_cycles(k0_add8, d, n, 0.5, 0.0, cycle, &base) / 0.5;
    static const double ps[] = {0.02, 0.05, 0.1, 0.2, 0.3, 0.5}, qs[] = {0.0, 0.5, 0.9};
    for (size_t j = 0; j < sizeof qs / sizeof qs[0]; j++)
        for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
            double extra = extra_cycles(k0_add8, d, n, ps[i], qs[j], cycle, &base);
            printf("%.2f %.1f %6.3f %6.3f\n", ps[i], qs[j], extra / cost, ps[i] < 0.5 ? ps[i] : 1 - ps[i]);
        }
    free(d);
    return 0;
}
