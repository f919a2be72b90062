/* test_gc_divides.c — divides and square roots priced from the shipped
 * Intel descriptions (machines/sapphire-rapids.yaml, Golden Cove, and
 * skylake-sp.yaml): a dependent divsd chain at the divider's latency, and
 * independent divides at the published reciprocal throughput of each width
 * (Golden Cove, uops.info / measured on the host, docs/machines.md
 * "Divides on Golden Cove": divsd 4, vdivpd ymm 8, zmm 16; sqrtsd 4.5,
 * ymm 9; Skylake-SP, Fog: divsd 4, ymm 8, sqrtsd 6, ymm 12).  A class's
 * vector_bits (the divider's 128 bits) is what tells the scalar/xmm figure
 * from the ymm one; the load refuses one wider than the core's datapath. */
#include "host_fixtures.h" /* first: its feature macros and cmocka */

#include <math.h>

#include "machine/machine.h"
#include "perf/core_model.h"

#define MAXI 16

/* One loop (index 0), every instruction of weight 1. */
typedef struct body {
    st_function f;
    st_dataflow df;
    st_loop loop;
    st_insn insns[MAXI];
    st_dep deps[MAXI];
    double w[MAXI];
} body;

static void body_init(body *b)
{
    memset(b, 0, sizeof *b);
    b->f.name = "divides";
    b->f.insns = b->insns;
    b->f.loops = &b->loop;
    b->f.nloops = 1;
    b->loop.parent = -1;
    b->df.deps = b->deps;
}

/* Append an instruction of class cls, `width` bits wide, of elements of
 * 64 bits (doubles); returns its index. */
static uint32_t ins(body *b, uint8_t cls, uint16_t width)
{
    assert_true(b->f.ninsns < MAXI);
    uint32_t i = b->f.ninsns++;
    b->insns[i] = (st_insn){.addr = 0x1000 + 4 * (uint64_t)i, .cls = cls, .width = width,
                            .elem_bits = width ? 64 : 0};
    for (unsigned k = 0; k < ST_MAX_MEMOPS; k++)
        b->insns[i].mem[k].base = b->insns[i].mem[k].index = ST_REG_NONE;
    b->w[i] = 1;
    return i;
}

/* use reads reg written by def, carried around the back edge or not. */
static void dep(body *b, uint32_t def, uint32_t use, uint8_t reg, int carried)
{
    assert_true(b->df.ndeps < MAXI);
    b->deps[b->df.ndeps++] = (st_dep){.def = def, .use = use, .reg = reg, .carried = (uint8_t)carried,
                                      .loop = carried ? 0 : -1};
}

/* add rax, 1; cmp rax, rsi; jne: the loop control. */
static void control(body *b)
{
    uint32_t add = ins(b, ST_CLASS_INT_ALU, 64), cmp = ins(b, ST_CLASS_INT_ALU, 64), jne = ins(b, ST_CLASS_BRANCH, 0);
    dep(b, add, add, ST_REG_RAX, 1);
    dep(b, add, cmp, ST_REG_RAX, 0);
    dep(b, cmp, jne, ST_REG_FLAGS, 0);
}

static machine shipped(const char *name)
{
    machine m;
    char err[512];
    if (machine_find(name, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    return m;
}

static perf_core run(const machine *m, body *b)
{
    perf_body pb = {.f = &b->f, .df = &b->df, .loop = 0, .weight = b->w};
    perf_core c;
    char err[256] = "";
    if (perf_core_loop(m, &pb, &c, err, sizeof err) != 0)
        fail_msg("%s", err);
    return c;
}

/* Eight independent ops of class cls and `width` bits (xmm1..8 = op xmm0)
 * and the loop control, on machine `name`: the resource bound is the
 * divider's, 8 x the reciprocal throughput of one op of that width (the
 * control fits on the other ports: 2 ALU uops over 5 ports, the branch on
 * p6).  Returns that bound per op. */
static double per_op(const char *name, uint8_t cls, uint16_t width)
{
    machine m = shipped(name);
    body b;
    body_init(&b);
    for (int k = 0; k < 8; k++)
        ins(&b, cls, width);
    control(&b);
    perf_core c = run(&m, &b);
    assert_int_equal(c.bound, PERF_BOUND_PORTS);
    machine_free(&m);
    return c.resource / 8;
}

/* Fail, showing both numbers, unless got is want (to 1e-9). */
#define assert_cycles(got, want) assert_near((got), (want), #got, __LINE__)
static void assert_near(double got, double want, const char *what, int line)
{
    if (!(fabs(got - want) <= 1e-9)) {
        print_error("line %d: %s = %.12g, expected %.12g\n", line, what, got, want);
        fail();
    }
}

/* divsd xmm0, xmm1 carried around the loop: the recurrence is fp_div's
 * latency, 14 on Golden Cove (published 13-15, measured 13.3-14.0). */
static void gc_divsd_chain_at_latency(void **state)
{
    (void)state;
    machine m = shipped("sapphire-rapids");
    body b;
    body_init(&b);
    uint32_t div = ins(&b, ST_CLASS_FP_DIV, 64);
    dep(&b, div, div, ST_REG_VEC0, 1);
    control(&b);
    perf_core c = run(&m, &b);
    assert_cycles(c.recurrence, 14);
    assert_cycles(c.cycles, 14);
    assert_int_equal(c.bound, PERF_BOUND_RECURRENCE);
    machine_free(&m);
}

/* Golden Cove: scalar and xmm divides 4 cycles apart, ymm 8, zmm 16
 * (the 128-bit divider); square roots 4.5, 9, 18.  Before the class's
 * vector_bits, divsd cost a ymm divide's 8. */
static void gc_divide_throughput_by_width(void **state)
{
    (void)state;
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_DIV, 64), 4);
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_DIV, 128), 4);
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_DIV, 256), 8);
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_DIV, 512), 16);
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_SQRT, 64), 4.5);
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_SQRT, 256), 9);
    assert_cycles(per_op("sapphire-rapids", ST_CLASS_FP_SQRT, 512), 18);
}

/* Skylake-SP: divsd 4, vdivpd ymm 8, zmm 16; sqrtsd 6, ymm 12 (Fog). */
static void gc_skylake_divide_throughput(void **state)
{
    (void)state;
    assert_cycles(per_op("skylake-sp", ST_CLASS_FP_DIV, 64), 4);
    assert_cycles(per_op("skylake-sp", ST_CLASS_FP_DIV, 256), 8);
    assert_cycles(per_op("skylake-sp", ST_CLASS_FP_DIV, 512), 16);
    assert_cycles(per_op("skylake-sp", ST_CLASS_FP_SQRT, 64), 6);
    assert_cycles(per_op("skylake-sp", ST_CLASS_FP_SQRT, 256), 12);
}

/* A class's vector_bits wider than core.vector_bits is refused, with the
 * line and the fix; one narrower is kept, and written back. */
static void gc_class_vector_bits_checked(void **state)
{
    (void)state;
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/zen3.yaml", AUGUR_MACHINES_DIR);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char text[16384];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *key = "rthroughput_cycles: 4.5}";
    char *at = strstr(text, key);
    assert_non_null(at); /* zen3's fp_div */
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    char *dir = fixture_tmpdir(), *out = fixture_path(dir, "wide.yaml");
    for (int wide = 0; wide < 2; wide++) {
        char edited[16384 + 64];
        snprintf(edited, sizeof edited, "%.*srthroughput_cycles: 4.5, vector_bits: %d}%s", (int)(at - text), text,
                 wide ? 512 : 128, at + strlen(key));
        fixture_write(out, edited, strlen(edited));
        machine m;
        int rc = machine_load(out, &m, err, sizeof err);
        if (wide) {
            assert_int_equal(rc, -1);
            char want[128];
            snprintf(want, sizeof want, "wide.yaml:%d: core.classes.fp_div.vector_bits: 512 is wider than "
                     "core.vector_bits 256", line);
            if (!strstr(err, want))
                fail_msg("%s\nexpected: %s", err, want);
            continue;
        }
        if (rc)
            fail_msg("%s", err);
        assert_int_equal(m.cls[ST_CLASS_FP_DIV].vector_bits, 128);
        assert_int_equal(m.cls[ST_CLASS_FP_SQRT].vector_bits, 0);
        char *buf = NULL;
        size_t len = 0;
        FILE *mf = open_memstream(&buf, &len);
        assert_int_equal(machine_write(mf, &m, NULL), 0);
        fclose(mf);
        assert_non_null(strstr(buf, "rthroughput_cycles: 4.5, uops: 1, vector_bits: 128}"));
        free(buf);
        machine_free(&m);
    }
    free(out);
    fixture_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gc_divsd_chain_at_latency),
        cmocka_unit_test(gc_divide_throughput_by_width),
        cmocka_unit_test(gc_skylake_divide_throughput),
        cmocka_unit_test(gc_class_vector_bits_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
