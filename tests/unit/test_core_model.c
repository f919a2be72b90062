/* test_core_model.c — unit tests of src/perf/core_model.c and its parts
 * (port_bound.c, recurrence.c), and whether a loop chases pointers
 * (predict_loop_chases, which the memory model asks), and when a
 * branch's condition is known (penalty_model.c's resolution times): the issue, port and recurrence bounds of
 * loop bodies built by hand on a small machine built in C, every expected
 * number derived in a comment; then one loop of a compiled program
 * (kernels_O2, from tests/programs/structure/kernels.c) analysed for real;
 * and divides priced from the shipped Intel descriptions (their fp_div and
 * fp_sqrt vector_bits 128: scalar/xmm figures, ymm twice, zmm four times).
 *
 * The machine ("toy"): issue width 4, six ports p0..p5.
 *   class    ports      latency  rthroughput  port cycles each (rthr*nports)
 *   int_alu  p0 p1 p5   1        1/3          1
 *   fp_add   p0 p1      4        0.5          1
 *   fp_mul   p0 p1      4        0.5          1
 *   fp_div   p0         13       4            4
 *   move     p0 p1 p5   1        1/3          1
 *   branch   p5         1        1            1
 *   load     p2 p3      5        0.5          1
 *   store    p4         1        1            1
 * Every class is one uop. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "machine/machine.h"
#include "perf/core_model.h"
#include "perf/core_parts.h"
#include "perf/perf.h"
#include "predict/predict_perf_body.h"

/* ---- the machine --------------------------------------------------------- */

static void set_class(machine *m, int c, const uint8_t *ports, uint32_t nports, double lat, double rthr)
{
    m->cls[c].nports = nports;
    memcpy(m->cls[c].ports, ports, nports);
    m->cls[c].latency = lat;
    m->cls[c].rthroughput = rthr;
    m->cls[c].uops = 1;
}

static machine toy(void)
{
    machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "toy");
    m.issue_width = 4;
    m.vector_bits = 256;
    m.nports = 6;
    for (uint32_t p = 0; p < m.nports; p++)
        snprintf(m.port_names[p], sizeof m.port_names[p], "p%u", p);
    static const uint8_t alu[] = {0, 1, 5}, fp[] = {0, 1}, p0[] = {0}, p5[] = {5}, ld[] = {2, 3}, st[] = {4};
    set_class(&m, ST_CLASS_INT_ALU, alu, 3, 1, 1.0 / 3);
    set_class(&m, ST_CLASS_FP_ADD, fp, 2, 4, 0.5);
    set_class(&m, ST_CLASS_FP_MUL, fp, 2, 4, 0.5);
    set_class(&m, ST_CLASS_FP_DIV, p0, 1, 13, 4);
    set_class(&m, ST_CLASS_MOVE, alu, 3, 1, 1.0 / 3);
    set_class(&m, ST_CLASS_BRANCH, p5, 1, 1, 1);
    set_class(&m, MACHINE_CLASS_LOAD, ld, 2, 5, 0.5);
    set_class(&m, MACHINE_CLASS_STORE, st, 1, 1, 1);
    return m;
}

/* ---- loop bodies built by hand ------------------------------------------- */

#define MAXI 32
#define RAX ST_REG_RAX
#define RCX ST_REG_RCX
#define RSI ST_REG_RSI
#define RDI ST_REG_RDI
#define RDX ST_REG_RDX
#define FL ST_REG_FLAGS
#define XMM(k) (ST_REG_VEC0 + (k))
#define NOREG ST_REG_NONE

/* One loop (index 0) whose body is every instruction added, weight 1. */
typedef struct body {
    st_function f;
    st_dataflow df;
    st_loop loop;
    st_insn insns[MAXI];
    st_dep deps[MAXI];
    double w[MAXI];
} body;

static body *body_new(void)
{
    body *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->f.name = "hand";
    b->f.insns = b->insns;
    b->f.loops = &b->loop;
    b->f.nloops = 1;
    b->loop.parent = -1;
    b->df.deps = b->deps;
    return b;
}

/* Append an instruction of class cls and `width` bits; returns its index. */
static uint32_t ins(body *b, uint8_t cls, uint16_t width)
{
    assert_true(b->f.ninsns < MAXI);
    uint32_t i = b->f.ninsns++;
    st_insn *in = &b->insns[i];
    in->addr = 0x1000 + 4 * (uint64_t)i;
    in->cls = cls;
    in->width = width;
    for (unsigned k = 0; k < ST_MAX_MEMOPS; k++)
        in->mem[k].base = in->mem[k].index = NOREG;
    b->w[i] = 1;
    return i;
}

/* Give instruction i a memory operand [base + index*8] read or written. */
static void mem(body *b, uint32_t i, uint8_t base, uint8_t index, uint8_t access)
{
    st_insn *in = &b->insns[i];
    in->mem[in->nmem++] = (st_memop){.base = base, .index = index, .scale = 8, .access = access, .size = 8};
    in->nloads += (access & ST_MEM_READ) != 0;
    in->nstores += (access & ST_MEM_WRITE) != 0;
}

/* use reads reg written by def; carried: around the back edge of loop 0. */
static void dep(body *b, uint32_t def, uint32_t use, uint8_t reg, int carried)
{
    assert_true(b->df.ndeps < MAXI);
    b->deps[b->df.ndeps++] = (st_dep){.def = def, .use = use, .reg = reg, .carried = (uint8_t)carried,
                                      .loop = carried ? 0 : -1};
}

/* add rax, 1; cmp rax, rsi; jne — the loop control, with its deps. */
static void control(body *b)
{
    uint32_t add = ins(b, ST_CLASS_INT_ALU, 64), cmp = ins(b, ST_CLASS_INT_ALU, 64), jne = ins(b, ST_CLASS_BRANCH, 0);
    dep(b, add, add, RAX, 1);
    dep(b, add, cmp, RAX, 0);
    dep(b, cmp, jne, FL, 0);
}

static perf_core run(const machine *m, body *b)
{
    perf_body pb = {.f = &b->f, .df = &b->df, .loop = 0, .weight = b->w};
    perf_core c;
    char err[256] = "";
    assert_int_equal(perf_core_loop(m, &pb, &c, err, sizeof err), 0);
    return c;
}

#define EPS 1e-9

/* Fail, showing both numbers, unless |got - want| <= eps. */
#define assert_double_equal(got, want, eps) assert_near((got), (want), (eps), #got, __FILE__, __LINE__)
static void assert_near(double got, double want, double eps, const char *what, const char *file, int line)
{
    if (!(fabs(got - want) <= eps)) {
        print_error("%s:%d: %s = %.12g, expected %.12g\n", file, line, what, got, want);
        fail();
    }
}

/* ---- the bounds, one loop shape each ------------------------------------- */

/* sum += a[i]:   addsd xmm0, [rdi + rax*8]; add rax, 1; cmp rax, rsi; jne
 * recurrence: addsd -> addsd through xmm0, fp_add latency 4 (xmm0 is not
 *   an address, so no load latency); add rax: 1.  The carried rax of add
 *   -> addsd (address, 4 + 5 = 9) closes no cycle: addsd never reaches add.
 * issue: fp_add + load + 2 alu + branch = 5 uops / 4 = 1.25.
 * ports: {p0,p1,p5} holds fp_add 1 + alu 2 + branch 1 = 4 cycles / 3. */
static void test_dependent_chain(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    uint32_t add = ins(b, ST_CLASS_FP_ADD, 64);
    mem(b, add, RDI, RAX, ST_MEM_READ);
    dep(b, add, add, XMM(0), 1);
    control(b);
    dep(b, 1, add, RAX, 1); /* add rax (insn 1) -> the next addsd's address */
    perf_core c = run(&m, b);
    assert_double_equal(c.uops, 5, EPS);
    assert_double_equal(c.issue, 1.25, EPS);
    assert_double_equal(c.resource, 4.0 / 3, EPS);
    assert_double_equal(c.recurrence, 4, EPS);
    assert_double_equal(c.cycles, 4, EPS);
    assert_int_equal(c.bound, PERF_BOUND_RECURRENCE);
    assert_string_equal(perf_core_bound_name(c.bound), "recurrence");
    free(b);
}

/* Six independent vmulsd of `width` bits and jne (no alu). */
static body *six_multiplies(uint16_t width)
{
    body *b = body_new();
    for (int k = 0; k < 6; k++)
        ins(b, ST_CLASS_FP_MUL, width);
    ins(b, ST_CLASS_BRANCH, 0);
    return b;
}

/* six_multiplies(64): ports: 6 fp_mul x 1 cycle on {p0,p1} = 3 each; the
 * branch 1 on p5.  issue 7 / 4 = 1.75; no recurrence. */
static void test_port_bound(void **state)
{
    (void)state;
    machine m = toy();
    body *b = six_multiplies(64);
    perf_core c = run(&m, b);
    assert_double_equal(c.issue, 1.75, EPS);
    assert_double_equal(c.resource, 3, EPS);
    assert_double_equal(c.recurrence, 0, EPS);
    assert_double_equal(c.cycles, 3, EPS);
    assert_int_equal(c.bound, PERF_BOUND_PORTS);
    assert_int_equal(c.busiest_port, 0);
    static const double want[6] = {3, 3, 0, 0, 0, 1};
    for (int p = 0; p < 6; p++)
        assert_double_equal(c.port_cycles[p], want[p], EPS);
    free(b);
}

/* A thread that gets half its core (throughput_share 0.5, a tenant on the
 * other hardware thread): the six multiplies of test_port_bound take 6
 * cycles of ports (3 / 0.5) and issue 3.5; a chain of four dependent adds
 * (fp_add latency 4: 16 cycles a round) keeps its latency. */
static void test_shared_core(void **state)
{
    (void)state;
    machine m = toy();
    m.throughput_share = 0.5;
    body *b = six_multiplies(64);
    perf_core c = run(&m, b);
    assert_double_equal(c.issue, 3.5, EPS);
    assert_double_equal(c.resource, 6, EPS);
    assert_double_equal(c.port_cycles[0], 6, EPS);
    assert_double_equal(c.cycles, 6, EPS);
    free(b);
    b = body_new();
    uint32_t a[4];
    for (int k = 0; k < 4; k++)
        a[k] = ins(b, ST_CLASS_FP_ADD, 64);
    for (int k = 0; k < 3; k++)
        dep(b, a[k], a[k + 1], XMM(0), 0);
    dep(b, a[3], a[0], XMM(0), 1);
    c = run(&m, b);
    assert_double_equal(c.recurrence, 16, EPS);
    assert_double_equal(c.cycles, 16, EPS);
    assert_int_equal(c.bound, PERF_BOUND_RECURRENCE);
    free(b);
}

/* The same six multiplies at 256 bits on a 128-bit datapath: each costs
 * two uops and two port cycles: ports 6 * 2 / 2 = 6, issue (12 + 1) / 4. */
static void test_wide_vectors(void **state)
{
    (void)state;
    machine m = toy();
    m.vector_bits = 128;
    body *b = six_multiplies(256);
    perf_core c = run(&m, b);
    assert_double_equal(c.uops, 13, EPS);
    assert_double_equal(c.issue, 13.0 / 4, EPS);
    assert_double_equal(c.resource, 6, EPS);
    free(b);
}

/* c[i] = a[i] + b[i] + s:
 *   movsd xmm1, [rdi+rax*8]      load
 *   addsd xmm1, [rsi+rax*8]      fp_add + load
 *   addsd xmm1, xmm2             fp_add
 *   movsd [rdx+rax*8], xmm1      store
 *   add rax, 1; cmp; jne
 * issue: 2 loads + 2 fp_add + store + 2 alu + branch = 8 uops / 4 = 2.
 * ports: {p0,p1,p5}: 2 fp_add + 2 alu + 1 branch = 5 / 3 = 1.667;
 *   {p2,p3}: 2 loads = 2 / 2 = 1; p4: 1.  Issue-bound at 2.
 * recurrence: only add rax, 1. */
static void test_issue_bound(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), a1 = ins(b, ST_CLASS_FP_ADD, 64), a2 = ins(b, ST_CLASS_FP_ADD, 64),
             st = ins(b, ST_CLASS_LOAD_STORE, 0);
    mem(b, ld, RDI, RAX, ST_MEM_READ);
    mem(b, a1, RSI, RAX, ST_MEM_READ);
    mem(b, st, RDX, RAX, ST_MEM_WRITE);
    dep(b, ld, a1, XMM(1), 0);
    dep(b, a1, a2, XMM(1), 0);
    dep(b, a2, st, XMM(1), 0);
    control(b);
    perf_core c = run(&m, b);
    assert_double_equal(c.uops, 8, EPS);
    assert_double_equal(c.issue, 2, EPS);
    assert_double_equal(c.resource, 5.0 / 3, EPS);
    assert_double_equal(c.recurrence, 1, EPS);
    assert_int_equal(c.bound, PERF_BOUND_ISSUE);
    free(b);
}

/* A copy unrolled four times (the stream kernel): 4 x (movsd xmm, [rsi+..];
 * movsd [rdi+..], xmm), then add, cmp, jne.
 * ports: p4 holds the 4 stores = 4 cycles; 4 loads x 1 cycle / 2 = 2 on p2, p3;
 *   {p0,p1,p5}: 2 alu + branch = 3 / 3 = 1 each.  Port-bound at 4 on p4.
 * issue: 4 + 4 + 3 = 11 / 4 = 2.75. */
static void test_stream_kernel(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    for (int k = 0; k < 4; k++) {
        uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), st = ins(b, ST_CLASS_LOAD_STORE, 0);
        mem(b, ld, RSI, RAX, ST_MEM_READ);
        mem(b, st, RDI, RAX, ST_MEM_WRITE);
        dep(b, ld, st, XMM(k), 0);
    }
    control(b);
    perf_core c = run(&m, b);
    assert_double_equal(c.issue, 2.75, EPS);
    assert_double_equal(c.resource, 4, EPS);
    assert_int_equal(c.bound, PERF_BOUND_PORTS);
    assert_int_equal(c.busiest_port, 4);
    static const double want[6] = {1, 1, 2, 2, 4, 1};
    for (int p = 0; p < 6; p++)
        assert_double_equal(c.port_cycles[p], want[p], EPS);
    free(b);
}

/* x[i] = y[i] / z:  movsd xmm1, [rdi+rax*8]; divsd xmm1, xmm2;
 * movsd [rsi+rax*8], xmm1; add; cmp; jne.
 * ports: the divider p0 busy 4 cycles per divsd (occupancy > 1): 4.
 *   The rest then balances on what is left: alu 2 on {p1,p5} and the
 *   branch 1 on p5: 3 / 2 = 1.5 each; the load 1 / 2 on p2, p3; p4 1.
 * issue 6 / 4 = 1.5; recurrence 1 (no carried xmm1: it is reloaded). */
static void test_div_loop(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), dv = ins(b, ST_CLASS_FP_DIV, 64), st = ins(b, ST_CLASS_LOAD_STORE, 0);
    mem(b, ld, RDI, RAX, ST_MEM_READ);
    mem(b, st, RSI, RAX, ST_MEM_WRITE);
    dep(b, ld, dv, XMM(1), 0);
    dep(b, dv, st, XMM(1), 0);
    control(b);
    perf_core c = run(&m, b);
    assert_double_equal(c.resource, 4, EPS);
    assert_int_equal(c.bound, PERF_BOUND_PORTS);
    assert_int_equal(c.busiest_port, 0);
    static const double want[6] = {4, 1.5, 0.5, 0.5, 1, 1.5};
    for (int p = 0; p < 6; p++)
        assert_double_equal(c.port_cycles[p], want[p], EPS);
    free(b);
}

/* A cycle through two carried dependences (a, b = b + c, a / d):
 *   0 vaddsd xmm3, xmm1, xmm8    reads b (carried from 3)
 *   1 vdivsd xmm4, xmm0, xmm9    reads a (carried from 2)
 *   2 vmovapd xmm0, xmm3         a = t   (plain from 0)
 *   3 vmovapd xmm1, xmm4         b = u   (plain from 1)
 * The cycle 0 -> 2 => 1 -> 3 => 0 takes two iterations:
 * (4 + 1 + 13 + 1) / 2 = 9.5 cycles per iteration.  Each carried edge
 * alone closes no cycle. */
static void test_two_iteration_cycle(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    uint32_t add = ins(b, ST_CLASS_FP_ADD, 64), div = ins(b, ST_CLASS_FP_DIV, 64), ma = ins(b, ST_CLASS_MOVE, 128),
             mb = ins(b, ST_CLASS_MOVE, 128);
    dep(b, mb, add, XMM(1), 1);
    dep(b, ma, div, XMM(0), 1);
    dep(b, add, ma, XMM(3), 0);
    dep(b, div, mb, XMM(4), 0);
    control(b);
    perf_core c = run(&m, b);
    assert_double_equal(c.recurrence, 9.5, EPS);
    assert_int_equal(c.bound, PERF_BOUND_RECURRENCE);
    free(b);
}

/* The latency of a chain through a load's address: p = p->next as
 * mov rax, [rax] (a pure load): 5 cycles, the load latency; and
 * add rdx, [rax] accumulating: rdx -> rdx 1 cycle (not through the load). */
static void test_pointer_chase(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), acc = ins(b, ST_CLASS_INT_ALU, 64);
    mem(b, ld, RAX, NOREG, ST_MEM_READ);
    mem(b, acc, RAX, NOREG, ST_MEM_READ);
    dep(b, ld, ld, RAX, 1);
    dep(b, ld, acc, RAX, 0);
    dep(b, acc, acc, RDX, 1);
    assert_double_equal(perf_latency_in(&m, &b->insns[acc], RAX), 6, EPS);
    assert_double_equal(perf_latency_in(&m, &b->insns[acc], RDX), 1, EPS);
    perf_core c = run(&m, b);
    assert_double_equal(c.recurrence, 5, EPS);
    free(b);
}

/* Whether a loop chases pointers (predict_loop_chases), so that its
 * misses cannot overlap: a value loaded in one iteration forms an address
 * in the next.
 *   chase:  mov rax, [rax]            the load's address moves with what it
 *                                     loads (no affine stride): a chase;
 *   spill:  mov rdi, [rsp + 0xb8]     a register spilled to the stack and
 *           add rbp, rdi              reloaded every iteration (gfortran's
 *           movsd xmm0, [rbp+rdi*8]   array strides, snap's sweep): the
 *                                     reload's address has stride 0 in the
 *                                     loop, it hits, and its value does not
 *                                     wait for the last miss: no chase. */
static int chases(int spill)
{
    body *b = body_new();
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), add = ins(b, ST_CLASS_INT_ALU, 64),
             use = ins(b, ST_CLASS_LOAD_STORE, 0);
    mem(b, ld, spill ? ST_REG_RSP : RAX, NOREG, ST_MEM_READ);
    mem(b, use, spill ? ST_REG_RBP : RAX, NOREG, ST_MEM_READ);
    if (spill) {
        dep(b, ld, add, RDI, 1); /* rbp += rdi, rdi from the last iteration's reload */
        dep(b, add, add, ST_REG_RBP, 1);
        dep(b, add, use, ST_REG_RBP, 0);
        dep(b, ld, use, RDI, 1); /* and the reload as an index: [rbp + rdi*8] */
        b->insns[use].mem[0].index = RDI;
    } else
        dep(b, ld, ld, RAX, 1);
    st_addr addrs[2] = {
        {.insn = ld, .nloops = 1, .loops = {0}, .stride = {spill ? 0 : ST_STRIDE_UNKNOWN}},
        {.insn = use, .nloops = 1, .loops = {0}, .stride = {ST_STRIDE_UNKNOWN}},
    };
    b->df.addrs = addrs;
    b->df.naddrs = 2;
    int r = predict_loop_chases(&b->f, &b->df, 0);
    free(b);
    return r;
}

static void test_chase_not_spill(void **state)
{
    (void)state;
    assert_int_equal(chases(0), 1);
    assert_int_equal(chases(1), 0);
}

/* ---- recurrences through memory (mem_deps.c) ------------------------------ */

/* a[i] = (a[i-1] + x) * y with a[] kept in memory (the SOR sweep's shape):
 *   0 movsd xmm0, [rax - 8]    load a[i-1]
 *   1 addsd xmm0, xmm1
 *   2 mulsd xmm0, xmm2
 *   3 movsd [rax], xmm0        store a[i]
 *   4 add rax, STEP            (ADD_IMM; or add rax, rsi: ADD_REG, a step
 *                               known only at run time)
 *   then the loop control (add, cmp, jne).
 * Addresses over rax at the header: load -8 + rax, store 0 + rax, stride
 * `stride` per iteration (ST_STRIDE_UNKNOWN for the run-time step).
 * With store_forward_cycles = 6 the load's result comes 6 cycles after the
 * store's data (a pure load adds no class latency), then fp_add 4 and
 * fp_mul 4 reach the store: 6 + 4 + 4 = 14 cycles per iteration when the
 * load reads the store of the iteration before; otherwise only the loop
 * control's carried add, 1 cycle.  store_load_at: a second store, to the
 * load's address (weight 0 when not), as an FFT butterfly updates both
 * data[k] and data[k+1]. */
static double memory_recurrence(int64_t stride, int64_t load_at, int runtime_step, int store_load_at)
{
    machine m = toy();
    m.store_forward_cycles = 6;
    body *b = body_new();
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), add = ins(b, ST_CLASS_FP_ADD, 64), mul = ins(b, ST_CLASS_FP_MUL, 64),
             st = ins(b, ST_CLASS_LOAD_STORE, 0), step = ins(b, ST_CLASS_INT_ALU, 64);
    mem(b, ld, RAX, NOREG, ST_MEM_READ);
    mem(b, st, RAX, NOREG, ST_MEM_WRITE);
    dep(b, ld, add, XMM(0), 0);
    dep(b, add, mul, XMM(0), 0);
    dep(b, mul, st, XMM(0), 0);
    dep(b, step, step, RAX, 1);
    b->insns[step].dst = RAX;
    b->insns[step].writes = (st_regset)1 << RAX;
    b->insns[step].op = runtime_step ? ST_OP_ADD_REG : ST_OP_ADD_IMM;
    b->insns[step].src = runtime_step ? RSI : NOREG;
    b->insns[step].imm = runtime_step ? 0 : stride;
    control(b);
    uint32_t st2 = ins(b, ST_CLASS_LOAD_STORE, 0);
    mem(b, st2, RAX, NOREG, ST_MEM_WRITE);
    b->w[st2] = store_load_at;
    st_addr addrs[3];
    uint32_t at[3] = {ld, st, st2};
    int64_t constant[3] = {load_at, 0, load_at};
    for (int k = 0; k < 3; k++)
        addrs[k] = (st_addr){.insn = at[k], .nterms = 1, .complete = 1, .constant = constant[k],
                             .terms = {{.kind = ST_TERM_REG, .reg = RAX, .coef = 1}}, .nloops = 1,
                             .loops = {0}, .stride = {runtime_step ? ST_STRIDE_UNKNOWN : stride}};
    b->df.addrs = addrs;
    b->df.naddrs = 3;
    st_block blk = {.first = 0, .n = b->f.ninsns, .loop = 0};
    uint32_t blocks[1] = {0};
    b->f.blocks = &blk;
    b->f.nblocks = 1;
    b->loop.blocks = blocks;
    b->loop.nblocks = 1;
    perf_core c = run(&m, b);
    free(b);
    return c.recurrence;
}

static void test_memory_recurrence(void **state)
{
    (void)state;
    assert_double_equal(memory_recurrence(8, -8, 0, 0), 14, EPS);  /* a[i] = f(a[i-1]) */
    assert_double_equal(memory_recurrence(-8, 8, 0, 0), 14, EPS);  /* the reverse sweep, a[i] = f(a[i+1]) */
    assert_double_equal(memory_recurrence(16, -8, 0, 0), 1, EPS);  /* reads between two stores: no chain */
    assert_double_equal(memory_recurrence(8, -16, 0, 0), 1, EPS);  /* two iterations back: not followed */
    assert_double_equal(memory_recurrence(0, -8, 1, 0), 14, EPS);  /* run-time step, neighbour of the store */
    assert_double_equal(memory_recurrence(0, -16, 1, 0), 1, EPS);  /* run-time step, not the neighbour */
    assert_double_equal(memory_recurrence(0, 0, 0, 0), 14, EPS);   /* one address (a sum at -O0): loaded first */
    assert_double_equal(memory_recurrence(0, -8, 1, 1), 1, EPS);   /* run-time step, the loaded element stored too */
    assert_double_equal(memory_recurrence(8, -8, 0, 1), 14, EPS);  /* a known stride decides alone */
}

/* A chain the parent loop carries through the inner loop's memory, as a
 * transport sweep keeps one face value per angle m: cell i loads psi[m],
 * cell i + 1 loads what cell i stored (docs/performance-model.md,
 * "Carried by the parent loop").  Loop 0 is the cells', loop 1 (the body
 * timed) the angles':
 *   ld   xmm1 <- [rbx + rax*8]    psi[m]
 *   mul  xmm1 *= h                fp_mul 4
 *   div  xmm1 /= d                fp_div 13
 *   acc  xmm3 += xmm1             fp_add 4, carried by loop 1 (phi's sum)
 *   add  xmm1 -= ...              fp_add 4
 *   st   [rbx + rax*8] <- xmm1
 *   add rax, 1; cmp; jne
 * Both addresses rbx + 8 rax: stride `inner` over loop 1, `outer` over
 * loop 0.  With store_forward_cycles = 6 the chain from the store of cell
 * i to the store of cell i + 1 at the same m is 6 + 4 + 13 + 4 = 27
 * cycles; the `span` angles of a cell run theirs side by side, so it is
 * 27 / span cycles per angle.  Loop 1's own chains: acc 4, rax 1; the
 * divider (p0 only) is busy 4 cycles an iteration, so 27 / span shows
 * when it is above 4. */
static double parent_recurrence(int64_t inner, int64_t outer, double span)
{
    machine m = toy();
    m.store_forward_cycles = 6;
    body *b = body_new();
    st_loop loops[2] = {{.parent = -1, .depth = 1}, {.parent = 0, .depth = 2}};
    b->f.loops = loops;
    b->f.nloops = 2;
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 0), mul = ins(b, ST_CLASS_FP_MUL, 64), div = ins(b, ST_CLASS_FP_DIV, 64),
             acc = ins(b, ST_CLASS_FP_ADD, 64), add = ins(b, ST_CLASS_FP_ADD, 64), st = ins(b, ST_CLASS_LOAD_STORE, 0);
    mem(b, ld, ST_REG_RBX, RAX, ST_MEM_READ);
    mem(b, st, ST_REG_RBX, RAX, ST_MEM_WRITE);
    dep(b, ld, mul, XMM(1), 0);
    dep(b, mul, div, XMM(1), 0);
    dep(b, div, acc, XMM(1), 0);
    dep(b, acc, acc, XMM(3), 1);
    dep(b, div, add, XMM(1), 0);
    dep(b, add, st, XMM(1), 0);
    control(b);
    for (size_t k = 0; k < b->df.ndeps; k++)
        if (b->deps[k].carried)
            b->deps[k].loop = 1;
    st_addr addrs[2];
    uint32_t at[2] = {ld, st};
    for (int k = 0; k < 2; k++)
        addrs[k] = (st_addr){.insn = at[k], .nterms = 2, .complete = 1,
                             .terms = {{.kind = ST_TERM_REG, .reg = ST_REG_RBX, .coef = 1},
                                       {.kind = ST_TERM_REG, .reg = RAX, .coef = 8}},
                             .nloops = 2, .loops = {1, 0}, .stride = {inner, outer}};
    b->df.addrs = addrs;
    b->df.naddrs = 2;
    perf_body pb = {.f = &b->f, .df = &b->df, .loop = 1, .weight = b->w, .parent_span = span};
    perf_core c;
    char err[256] = "";
    assert_int_equal(perf_core_loop(&m, &pb, &c, err, sizeof err), 0);
    free(b);
    return c.recurrence;
}

static void test_parent_recurrence(void **state)
{
    (void)state;
    assert_double_equal(parent_recurrence(8, 0, 1), 27, EPS);      /* one angle: the whole chain per cell */
    assert_double_equal(parent_recurrence(8, 0, 4), 6.75, EPS);    /* four angles' chains side by side */
    assert_double_equal(parent_recurrence(8, 0, 8), 4, EPS);       /* 27 / 8 below the sum's own 4 */
    assert_double_equal(parent_recurrence(8, 0, 0), 4, EPS);       /* span unknown (augur structure) */
    assert_double_equal(parent_recurrence(8, 32, 4), 4, EPS);      /* the next cell's angles elsewhere */
    assert_double_equal(parent_recurrence(8, ST_STRIDE_UNKNOWN, 4), 4, EPS); /* not known to stay */
    assert_double_equal(parent_recurrence(0, 0, 4), 27, EPS);      /* one address: the angle loop's own chain */
}

/* Weights: an inner loop's divide with weight 0 counts nowhere (not even
 * its carried chain); a conditional multiply at weight 0.5 adds half a uop
 * and half a port cycle.  Body: vmulsd (0.5), divsd xmm5 self (0), jne:
 * uops 1.5; ports {p0,p1}: 0.5 / 2 = 0.25; p5: 1; recurrence 0. */
static void test_weights(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    uint32_t mul = ins(b, ST_CLASS_FP_MUL, 64), div = ins(b, ST_CLASS_FP_DIV, 64);
    ins(b, ST_CLASS_BRANCH, 0);
    dep(b, div, div, XMM(5), 1);
    b->w[mul] = 0.5;
    b->w[div] = 0;
    perf_core c = run(&m, b);
    assert_double_equal(c.uops, 1.5, EPS);
    assert_double_equal(c.resource, 1, EPS);
    assert_double_equal(c.port_cycles[0], 0.25, EPS);
    assert_double_equal(c.recurrence, 0, EPS);
    free(b);
}

/* Bad bodies are refused with a message naming the problem. */
static void test_bad_body(void **state)
{
    (void)state;
    machine m = toy();
    body *b = body_new();
    control(b);
    perf_body pb = {.f = &b->f, .df = &b->df, .loop = 3, .weight = b->w};
    perf_core c;
    char err[256] = "";
    assert_int_equal(perf_core_loop(&m, &pb, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "loop 3 does not exist"));
    pb.loop = 0;
    pb.weight = NULL;
    assert_int_equal(perf_core_loop(&m, &pb, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "weights"));
    pb.weight = b->w;
    m.issue_width = 0;
    assert_int_equal(perf_core_loop(&m, &pb, &c, err, sizeof err), -1);
    assert_non_null(strstr(err, "issue_width"));
    free(b);
}

/* ---- the port bound alone ------------------------------------------------ */

/* 4 cycles only on p0 and 2 on {p0,p1}: the optimum moves all of the
 * second to p1: bound 4 (spreading each class evenly would give p0 5). */
static void test_ports_uneven(void **state)
{
    (void)state;
    perf_port_work w[] = {{.ports = 1, .cycles = 4}, {.ports = 3, .cycles = 2}};
    double bound, pc[2];
    uint32_t busiest;
    assert_int_equal(perf_port_bound(w, 2, 2, &bound, pc, &busiest), 0);
    assert_double_equal(bound, 4, EPS);
    assert_double_equal(pc[0], 4, EPS);
    assert_double_equal(pc[1], 2, EPS);
    assert_int_equal(busiest, 0);
}

/* Three sets overlapping in a ring, 3 cycles each on {p0,p1}, {p1,p2},
 * {p0,p2}: no set alone is tight (1.5); their union is: 9 / 3 = 3. */
static void test_ports_union(void **state)
{
    (void)state;
    perf_port_work w[] = {{.ports = 3, .cycles = 3}, {.ports = 6, .cycles = 3}, {.ports = 5, .cycles = 3}};
    double bound, pc[4];
    uint32_t busiest;
    assert_int_equal(perf_port_bound(w, 3, 4, &bound, pc, &busiest), 0);
    assert_double_equal(bound, 3, EPS);
    assert_double_equal(pc[0] + pc[1] + pc[2], 9, EPS);
    assert_double_equal(pc[3], 0, EPS);
}

/* Against brute force: random work on 5 ports, the bound equals the
 * maximum of W(S)/|S| over all 31 non-empty port sets. */
static void test_ports_brute_force(void **state)
{
    (void)state;
    srand(12345);
    for (int trial = 0; trial < 200; trial++) {
        perf_port_work w[6];
        for (int k = 0; k < 6; k++)
            w[k] = (perf_port_work){.ports = 1 + (uint32_t)(rand() % 31), .cycles = rand() % 100 / 10.0};
        double want = 0;
        for (uint32_t S = 1; S < 32; S++) {
            double W = 0;
            for (int k = 0; k < 6; k++)
                if ((w[k].ports & ~S) == 0)
                    W += w[k].cycles;
            if (W / __builtin_popcount(S) > want)
                want = W / __builtin_popcount(S);
        }
        double bound, pc[5], total = 0, sum = 0;
        uint32_t busiest;
        assert_int_equal(perf_port_bound(w, 6, 5, &bound, pc, &busiest), 0);
        assert_double_equal(bound, want, 1e-9);
        for (int p = 0; p < 5; p++) {
            assert_true(pc[p] <= bound + 1e-9);
            sum += pc[p];
        }
        for (int k = 0; k < 6; k++)
            total += w[k].cycles;
        assert_double_equal(sum, total, 1e-9); /* the assignment places all the work */
    }
}

/* ---- when a branch resolves (penalty_model.c) ---------------------------- */

/* A body whose data-dependent branch `jbe` (its index to *jbe_out) reads
 * the flags of `comisd` on x, x computed as named; branch_cost below
 * prices one misprediction of it and checks the loop's own branch (jne
 * after add rax, 1; cmp: ready after the add, 1 cycle).
 *   0 "load": x = q[i]                    movsd (rdi,rax,8) -> xmm0
 *   1 "divide": x = (q[i] * c + d) / s[i] that, then mulsd, addsd, divsd
 *                                          (rsi,rax,8)
 *   2 "counter": the flags of test rax, 1 (the loop's counter)
 * Each also divides a second loaded value into a store (not feeding the
 * branch), which must not count. */
static body *branch_body(int kind, uint32_t *jbe_out)
{
    body *b = body_new();
    uint32_t aside = ins(b, ST_CLASS_LOAD_STORE, 64), div2 = ins(b, ST_CLASS_FP_DIV, 64),
             st = ins(b, ST_CLASS_LOAD_STORE, 64);
    mem(b, aside, RDX, RAX, ST_MEM_READ);
    mem(b, st, RDX, RAX, ST_MEM_WRITE);
    dep(b, aside, div2, XMM(2), 0);
    dep(b, div2, st, XMM(2), 0);
    uint32_t x;
    if (kind == 2) {
        x = ins(b, ST_CLASS_INT_ALU, 64);
    } else {
        uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 64);
        mem(b, ld, RDI, RAX, ST_MEM_READ);
        x = ld;
        if (kind == 1) {
            uint32_t mul = ins(b, ST_CLASS_FP_MUL, 64), add = ins(b, ST_CLASS_FP_ADD, 64),
                     div = ins(b, ST_CLASS_FP_DIV, 64);
            mem(b, div, RSI, RAX, ST_MEM_READ);
            dep(b, ld, mul, XMM(0), 0);
            dep(b, mul, add, XMM(0), 0);
            dep(b, add, div, XMM(0), 0);
            x = div;
        }
        uint32_t cmp = ins(b, ST_CLASS_FP_ADD, 64);
        dep(b, x, cmp, XMM(0), 0);
        x = cmp;
    }
    uint32_t jbe = ins(b, ST_CLASS_BRANCH, 0);
    dep(b, x, jbe, FL, 0);
    control(b);
    *jbe_out = jbe;
    return b;
}

/* The cost of one misprediction of branch_body(kind)'s jbe on the toy
 * machine with a 13-cycle refill. */
static double branch_cost(int kind)
{
    machine m = toy();
    m.branch_mispredict_cycles = 13;
    uint32_t jbe;
    body *b = branch_body(kind, &jbe);
    double *ready = calloc(b->f.ninsns, sizeof *ready);
    assert_non_null(ready);
    perf_body pb = {.f = &b->f, .df = &b->df, .loop = 0, .weight = b->w};
    assert_int_equal(perf_resolution_times(&m, &pb, ready), 0);
    assert_double_equal(ready[b->f.ninsns - 1], 2, EPS); /* add 1, cmp 1 */
    double cost = perf_mispredict_cycles(&m, ready[jbe]);
    free(ready);
    free(b);
    return cost;
}

/* The cost of a misprediction: the refill (13) plus the longest path from
 * the iteration's start to the branch's flags, by the toy's latencies:
 *   divide chain  load 5 + mulsd 4 + addsd 4 + divsd 13 (its own load of
 *                 s[i], 5, proceeds meanwhile) + comisd 4 = 30: 43
 *   loaded value  load 5 + comisd 4 = 9: 22
 *   counter       test 1 on the loop-carried rax: 14
 * (the divide beside them, 5 + 13 into a store, is not on the path). */
static void test_branch_resolution(void **state)
{
    (void)state;
    assert_double_equal(branch_cost(1), 13 + 5 + 4 + 4 + 13 + 4, EPS);
    assert_double_equal(branch_cost(0), 13 + 5 + 4, EPS);
    assert_double_equal(branch_cost(2), 13 + 1, EPS);
}

/* Which branches wait behind a saturated port (perf_saturated_paths).
 * branch_body(1) divides twice an iteration on the toy's one divider
 * (p0, 4 cycles each): port-bound at 8 cycles, p0 saturated.  Its jbe reads the compare of the divide chain: through
 * (it waits for the divider's queue, as mispredict.c's divide branch and
 * bench/branches.c's "div" rows do), so a misprediction costs its full 43.
 * branch_body(0) divides once (p0 at 4, still the busiest): the divide
 * beside and its store are through, but jbe on the loaded value (load on
 * p2/p3, compare on p0/p1: p1 idle) is not, and hides part of its 22
 * behind the queued divides: at one misprediction an iteration (k = 1)
 * the slack, 4 - issue 9 uops / 4 = 1.75: 20.25.
 * A loop that is not port-bound has no saturated port. */
static void mdtime_saturated_branch(void **state)
{
    (void)state;
    machine m = toy();
    m.branch_mispredict_cycles = 13;
    for (int kind = 0; kind <= 1; kind++) {
        uint32_t jbe;
        body *b = branch_body(kind, &jbe);
        perf_body pb = {.f = &b->f, .df = &b->df, .loop = 0, .weight = b->w};
        perf_core core;
        char err[128];
        assert_int_equal(perf_core_loop(&m, &pb, &core, err, sizeof err), 0);
        assert_int_equal(core.bound, PERF_BOUND_PORTS);
        assert_double_equal(core.cycles, kind ? 8 : 4, EPS);
        uint8_t through[MAXI];
        assert_int_equal(perf_saturated_paths(&m, &pb, &core, through), 0);
        assert_int_equal(through[1], 1); /* the divide beside */
        assert_int_equal(through[2], 1); /* its store */
        assert_int_equal(through[jbe], kind == 1);
        if (kind == 0) {
            assert_double_equal(core.issue, 9.0 / 4, EPS);
            assert_double_equal(perf_mispredict_exposed(&m, &core, 1, 22), 22 - 1.75, EPS);
        }
        core.bound = PERF_BOUND_RECURRENCE;
        assert_int_equal(perf_saturated_paths(&m, &pb, &core, through), 0);
        assert_int_equal(through[jbe] + through[1], 0);
        free(b);
    }
}

/* ---- branches that decide on loop counters (branch_pattern.c) ----------- */

/* Give instruction i the stack slot disp(%rsp) as a memory operand, read or
 * written (its address register rsp, set by the prologue: no dependence
 * recorded, as the dataflow records none across the function's entry). */
static void slot(body *b, uint32_t i, int64_t disp, uint8_t access)
{
    st_insn *in = &b->insns[i];
    in->mem[in->nmem++] = (st_memop){.base = ST_REG_RSP, .index = NOREG, .disp = disp, .access = access, .size = 8};
    in->nloads += (access & ST_MEM_READ) != 0;
    in->nstores += (access & ST_MEM_WRITE) != 0;
}

/* An instruction with op, destination register and immediate. */
static uint32_t op_ins(body *b, uint8_t op, uint8_t dst, int64_t imm)
{
    uint32_t i = ins(b, ST_CLASS_INT_ALU, 64);
    b->insns[i].op = op;
    b->insns[i].dst = dst;
    b->insns[i].src = NOREG;
    b->insns[i].imm = imm;
    return i;
}

/* md's build_neighbours (gcc -O2), the half-shell test over the bin
 * offsets dz, dy, dx in -2..2 (md.c:152): 64 million executions at N = 36,
 * taken 36.4 million, charged min(taken, not taken) = 28 million
 * mispredictions at 42 cycles before, though its outcomes repeat for
 * every atom.  dz lives in a stack slot:
 *   movq $-2, 0x18(%rsp)      the loop's start (a store of an immediate)
 *   cmpq $0, 0x18(%rsp); jle  the test
 *   addq $1, 0x18(%rsp)       the step (no register input)
 * and dx in rsi: mov $-2, %rsi; add $1, %rsi; cmp $3, %rsi; jne. */
static void test_counter_branches(void **state)
{
    (void)state;
    body *b = body_new();
    uint32_t init = ins(b, ST_CLASS_LOAD_STORE, 64), cmpm = ins(b, ST_CLASS_INT_ALU, 64),
             jle = ins(b, ST_CLASS_BRANCH, 0), step = ins(b, ST_CLASS_INT_ALU, 64);
    slot(b, init, 0x18, ST_MEM_WRITE);
    slot(b, cmpm, 0x18, ST_MEM_READ);
    slot(b, step, 0x18, ST_MEM_READ | ST_MEM_WRITE);
    dep(b, cmpm, jle, FL, 0);
    uint32_t mov = op_ins(b, ST_OP_MOV_IMM, RSI, -2), add = op_ins(b, ST_OP_ADD_IMM, RSI, 1),
             cmpr = ins(b, ST_CLASS_INT_ALU, 64), jne = ins(b, ST_CLASS_BRANCH, 0);
    dep(b, mov, add, RSI, 0);
    dep(b, add, add, RSI, 1);
    dep(b, add, cmpr, RSI, 0);
    dep(b, cmpr, jne, FL, 0);
    /* the cutoff test on a loaded coordinate: data */
    uint32_t ld = ins(b, ST_CLASS_LOAD_STORE, 64), comisd = ins(b, ST_CLASS_FP_ADD, 64),
             jbe = ins(b, ST_CLASS_BRANCH, 0);
    mem(b, ld, RDI, RAX, ST_MEM_READ);
    b->insns[ld].op = ST_OP_LOAD;
    dep(b, ld, comisd, XMM(0), 0);
    dep(b, comisd, jbe, FL, 0);
    /* fft's bit reversal, if (j > i) with j -= m: arithmetic between
     * registers, m from the argument n (no definition in the function) */
    uint32_t sub = op_ins(b, ST_OP_SUB_REG, RDX, 0), cmpj = ins(b, ST_CLASS_INT_ALU, 64),
             jg = ins(b, ST_CLASS_BRANCH, 0);
    dep(b, sub, cmpj, RDX, 0);
    dep(b, cmpj, jg, FL, 0);
    /* a counter stepped from an argument (rcx: no definition) */
    uint32_t addc = op_ins(b, ST_OP_ADD_IMM, RCX, 1), cmpc = ins(b, ST_CLASS_INT_ALU, 64),
             jl = ins(b, ST_CLASS_BRANCH, 0);
    dep(b, addc, addc, RCX, 1);
    dep(b, addc, cmpc, RCX, 0);
    dep(b, cmpc, jl, FL, 0);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jle), 1);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jne), 1);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jbe), 0);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jg), 0);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jl), 0);
    /* the slot written once with a loaded value: the test reads data */
    uint32_t spill = ins(b, ST_CLASS_LOAD_STORE, 64);
    slot(b, spill, 0x18, ST_MEM_WRITE);
    dep(b, ld, spill, XMM(0), 0);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jle), 0);
    assert_int_equal(perf_counter_branch(&b->f, &b->df, jne), 1);
    /* and so the branch's mispredictions: none when it decides on counters */
    assert_double_equal(perf_branch_mispredicts(64385280, 36391680, perf_counter_branch(&b->f, &b->df, jne)), 0, 0);
    free(b);
}

/* ---- a compiled loop ----------------------------------------------------- */

/* kernels_O2's triangular(), inner loop (gcc 12 -O2 -march=x86-64-v2):
 *     addsd (%rax),%xmm0 ; add $0x8,%rax ; cmp %rdx,%rax ; jne
 * on the toy machine: recurrence 4 (xmm0 through addsd), uops 5, issue
 * 1.25, ports 4/3 — the same numbers as test_dependent_chain, found from
 * the binary by the structure analysis. */
static void test_compiled_loop(void **state)
{
    (void)state;
    const char *dir = getenv("AUGUR_TEST_PROGRAMS");
    char path[1024], err[512] = "";
    assert_non_null(dir);
    snprintf(path, sizeof path, "%s/kernels_O2", dir);
    st_module *mod = NULL;
    assert_int_equal(st_analyse(path, NULL, &mod, err, sizeof err), 0);
    const st_function *f = NULL;
    size_t fi = 0;
    for (; fi < mod->nfunctions && !f; fi++)
        if (!strcmp(mod->functions[fi].name, "triangular"))
            f = &mod->functions[fi];
    assert_non_null(f);
    assert_int_equal(f->nloops, 2);
    int inner = f->loops[0].depth == 2 ? 0 : 1;
    double *w = calloc(f->ninsns, sizeof *w);
    assert_non_null(w);
    for (uint32_t bl = 0; bl < f->nblocks; bl++)
        for (uint32_t i = f->blocks[bl].first; f->blocks[bl].loop == inner && i < f->blocks[bl].first + f->blocks[bl].n; i++)
            w[i] = 1;
    machine m = toy();
    perf_body pb = {.f = f, .df = &mod->dataflow[fi - 1], .loop = inner, .weight = w};
    perf_core c;
    assert_int_equal(perf_core_loop(&m, &pb, &c, err, sizeof err), 0);
    assert_double_equal(c.uops, 5, EPS);
    assert_double_equal(c.issue, 1.25, EPS);
    assert_double_equal(c.resource, 4.0 / 3, EPS);
    assert_double_equal(c.recurrence, 4, EPS);
    assert_int_equal(c.bound, PERF_BOUND_RECURRENCE);
    free(w);
    st_module_free(mod);
}

/* ---- divides on the shipped Intel descriptions (branch gc21) ------------- */

/* The shipped description `name`. */
static machine shipped(const char *name)
{
    machine m;
    char err[512];
    if (machine_find(name, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    return m;
}

/* divsd xmm0, xmm1 carried around the loop, on sapphire-rapids: the
 * recurrence is fp_div's latency, 14 (Golden Cove, published 13-15,
 * measured 13.6-14.7: docs/machines.md "Divides on Golden Cove"). */
static void gc_divsd_chain_at_latency(void **state)
{
    (void)state;
    machine m = shipped("sapphire-rapids");
    body *b = body_new();
    uint32_t div = ins(b, ST_CLASS_FP_DIV, 64);
    dep(b, div, div, XMM(0), 1);
    control(b);
    perf_core c = run(&m, b);
    assert_double_equal(c.recurrence, 14, EPS);
    assert_double_equal(c.cycles, 14, EPS);
    assert_int_equal(c.bound, PERF_BOUND_RECURRENCE);
    machine_free(&m);
    free(b);
}

/* Eight independent divides or square roots of each width and the loop
 * control: the port bound is the divider's (p0), 8 x the published
 * reciprocal throughput of one op of that width (the two ALU uops and the
 * branch fit on the other ports).  Golden Cove (uops.info, Alder Lake-P;
 * zmm measured): divsd/xmm 4, ymm 8, zmm 16; sqrtsd 4.5, ymm 9, zmm 18.
 * Skylake-SP (Fog): divsd 4, ymm 8, zmm 16; sqrtsd 6, ymm 12.  Before the
 * class's vector_bits, divsd was charged the ymm figure (8). */
static void gc_divide_throughput_by_width(void **state)
{
    (void)state;
    static const struct {
        const char *machine;
        uint8_t cls;
        uint16_t width;
        double rthroughput;
    } cases[] = {
        {"sapphire-rapids", ST_CLASS_FP_DIV, 64, 4},   {"sapphire-rapids", ST_CLASS_FP_DIV, 128, 4},
        {"sapphire-rapids", ST_CLASS_FP_DIV, 256, 8},  {"sapphire-rapids", ST_CLASS_FP_DIV, 512, 16},
        {"sapphire-rapids", ST_CLASS_FP_SQRT, 64, 4.5}, {"sapphire-rapids", ST_CLASS_FP_SQRT, 256, 9},
        {"sapphire-rapids", ST_CLASS_FP_SQRT, 512, 18}, {"skylake-sp", ST_CLASS_FP_DIV, 64, 4},
        {"skylake-sp", ST_CLASS_FP_DIV, 256, 8},       {"skylake-sp", ST_CLASS_FP_DIV, 512, 16},
        {"skylake-sp", ST_CLASS_FP_SQRT, 64, 6},       {"skylake-sp", ST_CLASS_FP_SQRT, 256, 12},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        machine m = shipped(cases[k].machine);
        body *b = body_new();
        for (int i = 0; i < 8; i++)
            ins(b, cases[k].cls, cases[k].width);
        control(b);
        perf_core c = run(&m, b);
        print_message("%s %s %u bits: %g cycles an op\n", cases[k].machine, st_class_name(cases[k].cls),
                      cases[k].width, c.resource / 8);
        assert_int_equal(c.bound, PERF_BOUND_PORTS);
        assert_double_equal(c.resource / 8, cases[k].rthroughput, EPS);
        machine_free(&m);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dependent_chain),   cmocka_unit_test(test_port_bound),
        cmocka_unit_test(test_wide_vectors),      cmocka_unit_test(test_issue_bound),
        cmocka_unit_test(test_stream_kernel),     cmocka_unit_test(test_div_loop),
        cmocka_unit_test(test_two_iteration_cycle), cmocka_unit_test(test_pointer_chase),
        cmocka_unit_test(test_chase_not_spill),
        cmocka_unit_test(test_shared_core),
        cmocka_unit_test(test_weights),           cmocka_unit_test(test_bad_body),
        cmocka_unit_test(test_ports_uneven),      cmocka_unit_test(test_ports_union),
        cmocka_unit_test(test_ports_brute_force), cmocka_unit_test(test_compiled_loop),
        cmocka_unit_test(test_memory_recurrence),
        cmocka_unit_test(test_parent_recurrence),
        cmocka_unit_test(test_branch_resolution),
        cmocka_unit_test(mdtime_saturated_branch),
        cmocka_unit_test(test_counter_branches),
        cmocka_unit_test(gc_divsd_chain_at_latency),
        cmocka_unit_test(gc_divide_throughput_by_width),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
