/* test_build_match.c — unit tests of src/modelset/build_match.c: builds of
 * one source compared by their compilation units and matched by source
 * location.  The producer strings are the real ones of Debian 12's GCC
 * 12.2 and clang 14 (`readelf --debug-dump=info`), the scope trees those
 * `augur structure` printed for tests/programs/sized.c built with -O2 at
 * N = 8, 12 and 24: GCC starts multiply's outer loop at line 14 in one build
 * and 15 in another, and turns main's loop at line 42 into straight code at
 * N = 8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "modelset/builds.h"

static const char gcc_o2[] = "GNU C17 12.2.0 -march=x86-64-v2 -g -O2 -fasynchronous-unwind-tables";
static const char gcc_o0[] = "GNU C17 12.2.0 -march=x86-64-v2 -g -O0 -fasynchronous-unwind-tables";
static const char clang40[] = "Debian clang version 14.0.6 /usr/lib/llvm-14/bin/clang -O2 -g -grecord-command-line "
                              "-D N=40 -D FOO=1 -U BAR -o pc40 p.c";
static const char clang60[] = "Debian clang version 14.0.6 /usr/lib/llvm-14/bin/clang -O2 -g -grecord-command-line "
                              "-DN=60 -D FOO=1 -MD -MF pc60.d -o pc60 p.c";

static void flags_leave_out_macros_and_outputs(void **state)
{
    (void)state;
    char a[512], b[512];
    build_producer_flags(clang40, a, sizeof a);
    build_producer_flags(clang60, b, sizeof b);
    assert_string_equal(a, "Debian clang version 14.0.6 /usr/lib/llvm-14/bin/clang -O2 -g -grecord-command-line p.c");
    assert_string_equal(a, b);
    build_producer_flags(gcc_o2, a, sizeof a); /* GCC records no -D: unchanged */
    assert_string_equal(a, gcc_o2);
    build_producer_flags("  -O2   -DX  ", a, sizeof a);
    assert_string_equal(a, "-O2");
    build_producer_flags(NULL, a, sizeof a);
    assert_string_equal(a, "");
}

static void units_compared(void **state)
{
    (void)state;
    st_unit s40[] = {{"/src/sized.c", (char *)gcc_o2}, {"/src/util.c", (char *)gcc_o2}};
    st_unit s60[] = {{"/src/util.c", (char *)gcc_o2}, {"/src/sized.c", (char *)gcc_o2}}; /* order aside */
    st_unit o0[] = {{"/src/sized.c", (char *)gcc_o0}, {"/src/util.c", (char *)gcc_o2}};
    st_unit other[] = {{"/src/other.c", (char *)gcc_o2}, {"/src/util.c", (char *)gcc_o2}};
    st_unit c40[] = {{"/src/p.c", (char *)clang40}}, c60[] = {{"/src/p.c", (char *)clang60}};
    build_difference d;
    build_compare_units(s40, 2, s60, 2, &d);
    assert_int_equal(d.verdict, BUILD_SAME);
    build_compare_units(c40, 1, c60, 1, &d);
    assert_int_equal(d.verdict, BUILD_SAME);
    build_compare_units(o0, 2, s40, 2, &d);
    assert_int_equal(d.verdict, BUILD_OTHER_FLAGS);
    assert_string_equal(d.file, "/src/sized.c");
    assert_string_equal(d.a, "-O0");
    assert_string_equal(d.b, "-O2");
    build_compare_units(other, 2, s40, 2, &d);
    assert_int_equal(d.verdict, BUILD_OTHER_SOURCES);
    assert_string_equal(d.a, "/src/other.c");
    assert_string_equal(d.b, "/src/sized.c");
    build_compare_units(s40, 1, s40, 2, &d); /* a file more: other sources */
    assert_int_equal(d.verdict, BUILD_OTHER_SOURCES);
    assert_string_equal(d.a, "none");
    assert_string_equal(d.b, "/src/util.c");
    build_compare_units(NULL, 0, s40, 2, &d);
    assert_int_equal(d.verdict, BUILD_NO_DEBUG);
    assert_int_equal(d.a_empty, 1);
    /* CMake's -O2 before the target's own -O: one -O2 more is the difference */
    st_unit twice[] = {{"/src/p.c", "GNU C11 12.2.0 -g -g -O2 -O2"}}, zero[] = {{"/src/p.c", "GNU C11 12.2.0 -g -g -O2 -O0"}};
    build_compare_units(twice, 1, zero, 1, &d);
    assert_int_equal(d.verdict, BUILD_OTHER_FLAGS);
    assert_string_equal(d.a, "-O2");
    assert_string_equal(d.b, "-O0");
    st_unit extra[] = {{"/src/p.c", "GNU C17 12.2.0 -O2 -ffast-math"}}, plain[] = {{"/src/p.c", "GNU C17 12.2.0 -O2"}};
    build_compare_units(extra, 1, plain, 1, &d);
    assert_int_equal(d.verdict, BUILD_OTHER_FLAGS);
    assert_string_equal(d.a, "-ffast-math");
    assert_string_equal(d.b, "none");
}

/* ---- scope trees ------------------------------------------------------------------ */

#define F "/src/sized.c"

static db_scope S(int64_t id, int64_t parent, const char *kind, const char *name, uint32_t first, uint32_t last,
                  uint64_t entry)
{
    return (db_scope){.id = id, .parent = parent, .kind = (char *)kind, .name = (char *)name,
                      .file = (char *)F, .first_line = first, .last_line = last, .entry_addr = entry,
                      .folded = !strcmp(kind, "loop")};
}

/* sized.c at N = 24 (the reference), as `augur structure` shows it. */
static void tree_n24(db_scope *s)
{
    s[0] = (db_scope){.id = 0, .parent = -1, .kind = "module", .name = "s24"};
    s[1] = S(1, 0, "function", "main", 36, 47, 0x1050);
    s[2] = S(2, 1, "loop", "loop at sized.c:37", 37, 40, 0x1078);
    s[3] = S(3, 2, "loop", "loop at sized.c:38", 38, 40, 0x1080);
    s[4] = S(4, 1, "loop", "loop at sized.c:42", 42, 43, 0x10f0);
    s[5] = S(5, 0, "function", "multiply", 14, 22, 0x1220);
    s[6] = S(6, 5, "loop", "loop at sized.c:14", 14, 20, 0x1240);
    s[7] = S(7, 6, "loop", "loop at sized.c:16", 14, 20, 0x1258);
    s[8] = S(8, 7, "loop", "loop at sized.c:18", 18, 19, 0x1270);
    s[9] = S(9, 0, "function", "lower", 26, 33, 0x12b0);
    s[10] = S(10, 9, "loop", "loop at sized.c:27", 27, 31, 0x12d0);
    s[11] = S(11, 10, "loop", "loop at sized.c:29", 29, 30, 0x1308);
}

static void loops_match_by_lines(void **state)
{
    (void)state;
    db_scope r[12], b[12];
    int64_t b_of_r[12], r_of_b[12];
    tree_n24(r);
    tree_n24(b);
    /* N = 12: the outer loop of multiply starts at line 15, the middle one at 16;
     * functions listed in another order (ids), as another build numbers them */
    b[6] = S(6, 5, "loop", "loop at sized.c:15", 15, 20, 0x123c);
    b[7] = S(7, 6, "loop", "loop at sized.c:16", 16, 20, 0x1248);
    assert_int_equal(build_match_scopes(r, 12, b, 12, b_of_r, r_of_b), 0);
    for (int s = 0; s < 12; s++)
        assert_int_equal(b_of_r[s], s);
    for (int s = 0; s < 12; s++)
        assert_int_equal(r_of_b[s], s);
}

static void missing_loop_unmatched(void **state)
{
    (void)state;
    db_scope r[12], b[11];
    int64_t b_of_r[12], r_of_b[11];
    tree_n24(r);
    /* N = 8: main's loop at line 42 is straight code; ids after it shift */
    db_scope full[12];
    tree_n24(full);
    memcpy(b, full, 4 * sizeof *b);
    for (int s = 5; s < 12; s++) {
        b[s - 1] = full[s];
        b[s - 1].id = s - 1;
        if (b[s - 1].parent >= 5)
            b[s - 1].parent--;
    }
    assert_int_equal(build_match_scopes(r, 12, b, 11, b_of_r, r_of_b), 0);
    assert_int_equal(b_of_r[4], -1);
    assert_int_equal(b_of_r[3], 3);
    assert_int_equal(b_of_r[5], 4);
    assert_int_equal(b_of_r[8], 7);
    assert_int_equal(b_of_r[11], 10);
    char label[128];
    build_scope_label(r, 12, 4, label, sizeof label);
    assert_string_equal(label, "loop at sized.c:42 in main");
    build_scope_label(r, 12, 5, label, sizeof label);
    assert_string_equal(label, "function multiply");
}

static void split_or_folded_loops_unmatched(void **state)
{
    (void)state;
    db_scope r[12], b[13];
    int64_t b_of_r[12], r_of_b[13];
    tree_n24(r);
    tree_n24(b);
    /* lower's outer loop split in two (a loop versioned for small i) */
    b[10].last_line = 28;
    b[12] = S(12, 9, "loop", "loop at sized.c:29", 29, 31, 0x1340);
    assert_int_equal(build_match_scopes(r, 12, b, 13, b_of_r, r_of_b), 0);
    assert_int_equal(b_of_r[10], -1); /* overlaps two loops of b */
    assert_int_equal(b_of_r[11], -1); /* under an unmatched loop */
    assert_int_equal(r_of_b[12], -1);
    assert_int_equal(b_of_r[9], 9);
    tree_n24(b);
    b[8].folded = 2; /* two loops at lines 18-19 folded into one scope here */
    assert_int_equal(build_match_scopes(r, 12, b, 12, b_of_r, r_of_b), 0);
    assert_int_equal(b_of_r[8], -1);
    assert_int_equal(b_of_r[7], 7);
}

static void inlined_and_functions_by_key(void **state)
{
    (void)state;
    db_scope r[6], b[6];
    int64_t b_of_r[6], r_of_b[6];
    r[0] = b[0] = (db_scope){.id = 0, .parent = -1, .kind = "module", .name = "m"};
    r[1] = S(1, 0, "function", "main", 1, 30, 0x100);
    r[2] = S(2, 1, "inlined", "scale", 5, 6, 0x110);
    r[3] = S(3, 1, "inlined", "scale", 5, 6, 0x140);
    r[4] = S(4, 0, "function", "helper", 40, 50, 0x200);
    r[5] = S(5, 0, "function", "multiply.constprop.0", 60, 70, 0x300);
    for (int s = 2; s <= 3; s++)
        r[s].call_file = F, r[s].call_line = 20;
    memcpy(b, r, sizeof b);
    b[4] = S(4, 0, "function", "helper", 40, 50, 0x180); /* another address: matched by name */
    b[5] = S(5, 0, "function", "multiply", 60, 70, 0x280); /* not cloned in this build */
    assert_int_equal(build_match_scopes(r, 6, b, 6, b_of_r, r_of_b), 0);
    assert_int_equal(b_of_r[2], 2); /* two copies at one call site, in address order */
    assert_int_equal(b_of_r[3], 3);
    assert_int_equal(b_of_r[4], 4);
    assert_int_equal(b_of_r[5], -1);
    b[3].call_line = 21; /* one copy here, two there: neither is matched */
    b[2].call_line = 21;
    r[3].call_line = 21;
    assert_int_equal(build_match_scopes(r, 6, b, 6, b_of_r, r_of_b), 0);
    assert_int_equal(b_of_r[2], -1);
    assert_int_equal(b_of_r[3], -1);
}

/* ---- instructions -------------------------------------------------------------------- */

static db_static_insn I(uint64_t addr, uint32_t len, int64_t scope, uint32_t line, int cls, int loads, int stores)
{
    return (db_static_insn){.addr = addr, .len = len, .scope = scope, .line = line, .cls = cls, .loads = loads,
                            .stores = stores};
}

static void instructions_by_location(void **state)
{
    (void)state;
    /* the reference: scope 2 (a loop) line 10 holds two loads and an add
     * with a load; line 11 a multiplication by the size; scope 3 is not
     * matched in every build */
    db_static_insn r[] = {
        I(0x100, 4, 2, 10, ST_CLASS_LOAD_STORE, 1, 0), I(0x104, 4, 2, 10, ST_CLASS_LOAD_STORE, 1, 0),
        I(0x108, 4, 2, 10, ST_CLASS_FP_ADD, 1, 0),     I(0x10c, 4, 2, 11, ST_CLASS_INT_MUL, 0, 0),
        I(0x110, 3, 3, 12, ST_CLASS_INT_ALU, 0, 0),
    };
    /* build b numbers the loop 5 and uses two shifts where r multiplies;
     * its instructions lie elsewhere and are longer (imm32 for imm8) */
    db_static_insn b[] = {
        I(0x200, 6, 5, 10, ST_CLASS_LOAD_STORE, 1, 0), I(0x206, 6, 5, 10, ST_CLASS_FP_ADD, 1, 0),
        I(0x210, 4, 5, 11, ST_CLASS_INT_ALU, 0, 0),    I(0x214, 4, 5, 11, ST_CLASS_INT_ALU, 0, 0),
        I(0x218, 6, 5, 10, ST_CLASS_LOAD_STORE, 1, 0), I(0x220, 3, 6, 12, ST_CLASS_INT_ALU, 0, 0),
    };
    int64_t ref_of_b[7] = {0, -1, -1, -1, -1, 2, 3};
    unsigned char modeled[4] = {1, 1, 1, 0}; /* scope 3 not matched in every build */
    const db_static_insn *insns[2] = {r, b};
    size_t ninsns[2] = {5, 6};
    const int64_t *ref_of[2] = {NULL, ref_of_b};
    build_insn_map *map[2];
    size_t nmap[2];
    assert_int_equal(build_match_insns(2, insns, ninsns, ref_of, modeled, 4, map, nmap), 0);
    assert_int_equal(nmap[0], 3); /* line 10 only: line 11 differs, scope 3 is not modeled */
    assert_int_equal(nmap[1], 3);
    const build_insn_map *m = build_insn_find(map[1], nmap[1], 0x200);
    assert_non_null(m);
    assert_int_equal(m->to, 0x100); /* the loads in address order */
    assert_int_equal(m->len, 4);   /* the reference's length */
    m = build_insn_find(map[1], nmap[1], 0x218);
    assert_non_null(m);
    assert_int_equal(m->to, 0x104);
    m = build_insn_find(map[1], nmap[1], 0x206);
    assert_non_null(m);
    assert_int_equal(m->to, 0x108);
    assert_null(build_insn_find(map[1], nmap[1], 0x210));
    assert_null(build_insn_find(map[1], nmap[1], 0x220));
    m = build_insn_find(map[0], nmap[0], 0x104); /* the reference maps to itself */
    assert_non_null(m);
    assert_int_equal(m->to, 0x104);
    assert_null(build_insn_find(map[0], nmap[0], 0x10c));
    free(map[0]), free(map[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_leave_out_macros_and_outputs),
        cmocka_unit_test(units_compared),
        cmocka_unit_test(loops_match_by_lines),
        cmocka_unit_test(missing_loop_unmatched),
        cmocka_unit_test(split_or_folded_loops_unmatched),
        cmocka_unit_test(inlined_and_functions_by_key),
        cmocka_unit_test(instructions_by_location),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
