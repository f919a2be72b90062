/* fp_ports.c — which ports the scalar SSE compares and register moves of
 * md's force loop take on this core, against the machine description's
 * classes (comisd is fp_add, movapd xmm, xmm is move: both on p1/p5 in
 * sapphire-rapids.yaml; docs/accuracy.md, "Mispredictions on Golden
 * Cove").  Each row times one asm loop of independent instructions (no
 * chain longer than the row's cycles) and prints its cycles an iteration,
 * counted against a chain of dependent imul r64 (3 cycles), best of 7:
 *   16 addsd            two adders (p1 p5): 8
 *   + 8 movapd x, x     8 if the moves are eliminated or go elsewhere,
 *                       12 if they share the adders' ports
 *   + 8 comisd          8 if the compares go to another port, 12 if not
 *   8 comisd            8 on one port, 4 on two
 *   8 mulsd + 24 addsd  32 uops on p0 p1 p5: 10.7, or 12 when the adds
 *                       have two ports
 *   + 8 movapd / comisd what the moves and compares add to the three
 *   24 addsd + 16 comisd  12 if the compares have a port of their own
 *                       but only one: then 16
 * Build: cc -O1 -o fp_ports bench/fp_ports.c
 * usage: fp_ports */
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CLOBBERS                                                                                                 \
    "rax", "rcx", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", \
        "xmm12", "xmm13", "xmm14", "xmm15", "cc"

/* TIMED(name, body): name(n) runs n iterations of `body`; returns the
 * seconds of one, best of 7.  xmm15 = xmm14 = 1.0. */
#define TIMED(name, body)                                                                                  \
    static double name(long n)                                                                             \
    {                                                                                                      \
        double best = 1e9;                                                                                 \
        for (int r = 0; r < 7; r++) {                                                                      \
            double t0 = now();                                                                             \
            __asm__ volatile("mov $0x3ff0000000000000, %%rax\n vmovq %%rax, %%xmm15\n vmovapd %%xmm15, %%xmm14\n" \
                             "mov %0, %%rcx\n 1:\n" body "dec %%rcx\n jnz 1b\n" ::"r"(n)                   \
                             : CLOBBERS);                                                                  \
            double t = (now() - t0) / n;                                                                   \
            best = t < best ? t : best;                                                                    \
        }                                                                                                  \
        return best;                                                                                       \
    }

#define R4(x) x x x x
#define ADD(k) "addsd %%xmm15, %%xmm" #k "\n"
#define ADD8 ADD(0) ADD(1) ADD(2) ADD(3) ADD(4) ADD(5) ADD(6) ADD(7)
#define ADD6 ADD(0) ADD(1) ADD(2) ADD(3) ADD(4) ADD(5)
#define MUL(k) "mulsd %%xmm15, %%xmm" #k "\n"
#define MUL8 MUL(7) MUL(8) MUL(9) MUL(10) MUL(11) MUL(12) MUL(13) MUL(14)
#define MOV8 R4("movapd %%xmm15, %%xmm6\n movapd %%xmm15, %%xmm6\n")
#define COMI8 R4("comisd %%xmm15, %%xmm6\n comisd %%xmm15, %%xmm6\n")

TIMED(imul12, R4("imul %%rax, %%rax\n imul %%rax, %%rax\n imul %%rax, %%rax\n")) /* 36 cycles */
TIMED(adds16, ADD8 ADD8)
TIMED(adds16_mov8, ADD8 ADD8 MOV8)
TIMED(adds16_comi8, ADD8 ADD8 COMI8)
TIMED(comi8, COMI8)
TIMED(mix32, MUL8 ADD6 ADD6 ADD6 ADD6)
TIMED(mix32_mov8, MUL8 ADD6 ADD6 ADD6 ADD6 MOV8)
TIMED(mix32_comi8, MUL8 ADD6 ADD6 ADD6 ADD6 COMI8)
TIMED(adds24_comi16, ADD6 ADD6 ADD6 ADD6 COMI8 COMI8)

int main(void)
{
    const long n = 200000;
    double cycle = imul12(n) / 36;
    printf("# core clock %.2f GHz (imul chain); cycles an iteration\n", 1e-9 / cycle);
    printf("16 addsd             %6.2f\n", adds16(n) / cycle);
    printf("16 addsd + 8 movapd  %6.2f\n", adds16_mov8(n) / cycle);
    printf("16 addsd + 8 comisd  %6.2f\n", adds16_comi8(n) / cycle);
    printf("8 comisd             %6.2f\n", comi8(n) / cycle);
    printf("8 mulsd + 24 addsd   %6.2f\n", mix32(n) / cycle);
    printf("  + 8 movapd         %6.2f\n", mix32_mov8(n) / cycle);
    printf("  + 8 comisd         %6.2f\n", mix32_comi8(n) / cycle);
    printf("24 addsd + 16 comisd %6.2f\n", adds24_comi16(n) / cycle);
    return 0;
}
