/* divides.c — latency and reciprocal throughput, in core cycles, of the x86
 * divides and square roots (scalar, xmm, ymm, zmm; double and single), the
 * figures of the fp_div and fp_sqrt classes of a machine description
 * (docs/machines.md, "Divides on Golden Cove").  Cycles are counted against
 * a chain of dependent `imul r64` (3 cycles on every Intel and AMD core
 * since 2011; a chain of `add r, imm` is not used: Golden Cove's renamer
 * folds it).  Latency: one dependent chain; throughput: eight independent
 * ops from the same sources.  Operands are near 1.0 (the divider's fast
 * case).  Each figure is the best of 7 timed loops of N ops.
 * Build: cc -O1 -mavx512f -o divides bench/divides.c   (zmm rows need AVX-512)
 * usage: divides   prints "op latency rthroughput" rows */
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define R10(x) x x x x x x x x x x
#define T8(f) f(0) f(1) f(2) f(3) f(4) f(5) f(6) f(7)
#define CLOBBERS "rcx", "rax", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "memory"

/* TIMED(name, setup, op): name(n) runs `setup` then n x 10 copies of `op`
 * in one asm loop; returns the seconds of one copy, best of 7. */
#define TIMED(name, setup, op)                                                                     \
    static double name(long n)                                                                     \
    {                                                                                              \
        double best = 1e9;                                                                         \
        for (int r = 0; r < 7; r++) {                                                              \
            double t0 = now();                                                                     \
            __asm__ volatile(setup "mov %0, %%rcx\n 1:\n" R10(op) "dec %%rcx\n jnz 1b\n" ::"r"(n) \
                             : CLOBBERS);                                                          \
            double t = (now() - t0) / (n * 10.0);                                                  \
            best = t < best ? t : best;                                                            \
        }                                                                                          \
        return best;                                                                               \
    }

/* xmm8/zmm8 = 1.0000000000000002 (double) or 1.0000001 (single) in every lane; xmm0, xmm1 too */
#define PD "mov $0x3ff0000000000001, %%rax\n vpbroadcastq %%rax, %%zmm8\n vmovapd %%zmm8, %%zmm0\n vmovapd %%zmm8, %%zmm1\n"
#define PS "mov $0x3f800001, %%eax\n vpbroadcastd %%eax, %%zmm8\n vmovaps %%zmm8, %%zmm0\n vmovaps %%zmm8, %%zmm1\n"

TIMED(imul_chain, "mov $3, %%rax\n", "imul %%rax, %%rax\n")
#define DIV(ins, reg, k) #ins " %%" #reg "8, %%" #reg "1, %%" #reg #k "\n"
#define SQRT(ins, reg, k) #ins " %%" #reg "1, %%" #reg #k "\n"
#define SQRTS(ins, k) #ins " %%xmm1, %%xmm1, %%xmm" #k "\n"
#define DSD(k) DIV(vdivsd, xmm, k)
#define DPX(k) DIV(vdivpd, xmm, k)
#define DPY(k) DIV(vdivpd, ymm, k)
#define DPZ(k) DIV(vdivpd, zmm, k)
#define DSS(k) DIV(vdivss, xmm, k)
#define DPSY(k) DIV(vdivps, ymm, k)
#define DPSZ(k) DIV(vdivps, zmm, k)
#define QSD(k) SQRTS(vsqrtsd, k)
#define QPY(k) SQRT(vsqrtpd, ymm, k)
#define QPZ(k) SQRT(vsqrtpd, zmm, k)
#define QSS(k) SQRTS(vsqrtss, k)
#define QPSY(k) SQRT(vsqrtps, ymm, k)
TIMED(divsd_lat, PD, "vdivsd %%xmm8, %%xmm0, %%xmm0\n")
TIMED(divsd_tp, PD, T8(DSD))
TIMED(divpdx_lat, PD, "vdivpd %%xmm8, %%xmm0, %%xmm0\n")
TIMED(divpdx_tp, PD, T8(DPX))
TIMED(divpdy_lat, PD, "vdivpd %%ymm8, %%ymm0, %%ymm0\n")
TIMED(divpdy_tp, PD, T8(DPY))
TIMED(divpdz_lat, PD, "vdivpd %%zmm8, %%zmm0, %%zmm0\n")
TIMED(divpdz_tp, PD, T8(DPZ))
TIMED(divss_lat, PS, "vdivss %%xmm8, %%xmm0, %%xmm0\n")
TIMED(divss_tp, PS, T8(DSS))
TIMED(divpsy_tp, PS, T8(DPSY))
TIMED(divpsz_tp, PS, T8(DPSZ))
TIMED(sqrtsd_lat, PD, "vsqrtsd %%xmm0, %%xmm0, %%xmm0\n")
TIMED(sqrtsd_tp, PD, T8(QSD))
TIMED(sqrtpdy_lat, PD, "vsqrtpd %%ymm0, %%ymm0\n")
TIMED(sqrtpdy_tp, PD, T8(QPY))
TIMED(sqrtpdz_tp, PD, T8(QPZ))
TIMED(sqrtss_lat, PS, "vsqrtss %%xmm0, %%xmm0, %%xmm0\n")
TIMED(sqrtss_tp, PS, T8(QSS))
TIMED(sqrtpsy_tp, PS, T8(QPSY))

/* One row: latency from a chain (NULL: not measured), rthroughput from eight
 * independent ops a copy; `cycle` is seconds per cycle. */
static void row(const char *op, double (*lat)(long), double (*tp)(long), double cycle)
{
    const long n = 20000;
    if (lat)
        printf("%-16s %5.1f %5.1f\n", op, lat(n) / cycle, tp(n / 8) / cycle / 8);
    else
        printf("%-16s %5s %5.1f\n", op, "-", tp(n / 8) / cycle / 8);
}

int main(void)
{
    double cycle = imul_chain(200000) / 3;
    printf("# core clock %.2f GHz (imul chain)\n# op latency rthroughput (cycles)\n", 1e-9 / cycle);
    row("divsd", divsd_lat, divsd_tp, cycle);
    row("divpd xmm", divpdx_lat, divpdx_tp, cycle);
    row("divpd ymm", divpdy_lat, divpdy_tp, cycle);
    row("divpd zmm", divpdz_lat, divpdz_tp, cycle);
    row("divss", divss_lat, divss_tp, cycle);
    row("divps ymm", NULL, divpsy_tp, cycle);
    row("divps zmm", NULL, divpsz_tp, cycle);
    row("sqrtsd", sqrtsd_lat, sqrtsd_tp, cycle);
    row("sqrtpd ymm", sqrtpdy_lat, sqrtpdy_tp, cycle);
    row("sqrtpd zmm", NULL, sqrtpdz_tp, cycle);
    row("sqrtss", sqrtss_lat, sqrtss_tp, cycle);
    row("sqrtps ymm", NULL, sqrtpsy_tp, cycle);
    return 0;
}
