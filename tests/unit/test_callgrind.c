/* test_callgrind.c — the call graph of the callgrind export
 * (src/report/callgraph.c, callgrind_write.c): inclusive costs of calls on
 * graphs whose costs are known (a diamond, self recursion, a cycle of two,
 * calls that did not happen), and a hand-made report written whole: lines
 * rounded to add up to their function, a function name in two modules,
 * lines in a second file (fi=), calls with their inclusive costs. */
#include "host_fixtures.h"

#include "report/callgrind.h"

/* Inclusive cost of each arc (one event) into cost[]. */
static void inclusive(size_t n, const double *self, size_t narcs, const cg_arc *arcs, double *cost)
{
    assert_int_equal(cg_inclusive(n, 1, self, narcs, arcs, cost), 0);
}

/* main calls a and b once; a calls c 3 times, b once: c's 100 is 25 a
 * call, a costs 10 + 75, b 20 + 25. */
static void test_diamond(void **state)
{
    (void)state;
    const double self[] = {1, 10, 20, 100};
    const cg_arc arcs[] = {{0, 1, 1}, {0, 2, 1}, {1, 3, 3}, {2, 3, 1}};
    double cost[4];
    inclusive(4, self, 4, arcs, cost);
    assert_float_equal(cost[2], 75, 1e-9);
    assert_float_equal(cost[3], 25, 1e-9);
    assert_float_equal(cost[0], 85, 1e-9);
    assert_float_equal(cost[1], 45, 1e-9);
}

/* main -> f once; f -> f 4 times, f -> g twice (g: 10 each call, 20).
 * The recursive arc costs nothing; the call into the cycle carries all:
 * 5 + 20. */
static void test_self_recursion(void **state)
{
    (void)state;
    const double self[] = {1, 5, 20};
    const cg_arc arcs[] = {{0, 1, 1}, {1, 1, 4}, {1, 2, 2}};
    double cost[3];
    inclusive(3, self, 3, arcs, cost);
    assert_float_equal(cost[0], 25, 1e-9);
    assert_float_equal(cost[1], 0, 0);
    assert_float_equal(cost[2], 20, 1e-9);
}

/* p and q call each other; main calls p twice, q calls r (7).  The cycle
 * {p, q} costs 1 + 2 + 7, all of it on main's calls. */
static void test_cycle_of_two(void **state)
{
    (void)state;
    const double self[] = {1, 1, 2, 7};
    const cg_arc arcs[] = {{0, 1, 2}, {1, 2, 3}, {2, 1, 3}, {2, 3, 1}};
    double cost[4];
    inclusive(4, self, 4, arcs, cost);
    assert_float_equal(cost[0], 10, 1e-9);
    assert_float_equal(cost[1], 0, 0);
    assert_float_equal(cost[2], 0, 0);
    assert_float_equal(cost[3], 7, 1e-9);
}

/* A predicted call count of 0 shares nothing (no division by zero). */
static void test_no_calls(void **state)
{
    (void)state;
    const double self[] = {1, 9};
    const cg_arc arcs[] = {{0, 1, 0}};
    double cost[1];
    inclusive(2, self, 1, arcs, cost);
    assert_float_equal(cost[0], 0, 0);
}

/* ---- a whole file --------------------------------------------------------- */

static report_counts counts(uint64_t instructions, uint64_t reads, double misses)
{
    return (report_counts){.instructions = instructions, .reads = reads, .misses = {misses}};
}

/* f (prog) runs a.c:10 and a.c:12, and h.h:3 inlined, with 1.5 misses on
 * its two a.c lines; it calls g of prog twice from a.c:12 and g of libx
 * once from h.h:3.  The two g share one line row, which goes to the one
 * with more instructions (prog's); libx's g has none (line 0).  Code of
 * no function in prog: (unknown). */
static void test_write(void **state)
{
    (void)state;
    report_function fns[] = {
        {.function = "f", .module = "/bin/prog", .c = counts(10, 4, 1.5)},
        {.function = "g", .module = "/bin/prog", .c = counts(5, 0, 0)},
        {.function = "g", .module = "/lib/libx.so", .c = counts(3, 1, 0)},
        {.function = NULL, .module = "/bin/prog", .c = counts(2, 0, 0)},
    };
    report_line lines[] = {
        {.file = "/src/a.c", .line = 10, .function = "f", .c = counts(6, 2, 0.75)},
        {.file = "/src/a.c", .line = 12, .function = "f", .c = counts(3, 2, 0.75)},
        {.file = "/src/h.h", .line = 3, .function = "f", .c = counts(1, 0, 0)},
        {.file = "/src/b.c", .line = 20, .function = "g", .c = counts(8, 1, 0)},
        {.file = NULL, .line = 0, .function = NULL, .c = counts(2, 0, 0)},
    };
    report r = {.ncaches = 1, .caches = {{32768, 64}}, .total = counts(20, 5, 1.5),
                .nfunctions = 4, .functions = fns, .nlines = 5, .lines = lines};
    cg_graph *g = cg_new(&r);
    assert_non_null(g);
    assert_int_equal(cg_add_call(g, "f", "/bin/prog", "/src/a.c", 12, "g", "/bin/prog", 2), 0);
    assert_int_equal(cg_add_call(g, "f", "/bin/prog", "/src/h.h", 3, "g", "/lib/libx.so", 1), 0);
    assert_int_equal(cg_add_call(g, "f", "/bin/prog", "/src/a.c", 12, "nowhere", "/bin/prog", 1), 1);
    cg_header h = {.cmd = "./prog 100"};
    cg_header_add(&h, "Run: %d", 1);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(cg_write(g, &h, out), 0);
    fclose(out);
    cg_free(g);
    static const char want[] =
        "# callgrind format\nversion: 1\ncreator: augur " AUGUR_VERSION "\ncmd: ./prog 100\ndesc: Run: 1\n"
        "positions: line\n"
        "event: Ir : instructions executed\n"
        "event: Acc : memory accesses (reads and writes)\n"
        "event: M32KiB_64 : misses of a fully-associative LRU cache of 32 KiB in 64-byte lines\n"
        "events: Ir Acc M32KiB_64\n\n"
        "ob=(1) /bin/prog\nfl=(1) /src/a.c\nfn=(1) f\n"
        "10 6 2 1\n12 3 2 1\n"
        "cfi=(2) /src/b.c\ncfn=(2) g [prog]\ncalls=2 20\n12 5 0 0\n"
        "fi=(3) /src/h.h\n3 1 0 0\n"
        "cob=(2) /lib/libx.so\ncfi=(4) ???\ncfn=(3) g [libx.so]\ncalls=1 0\n3 3 1 0\n\n"
        "ob=(1)\nfl=(2)\nfn=(2)\n20 5 0 0\n\n"
        "ob=(2)\nfl=(4)\nfn=(3)\n0 3 1 0\n\n"
        "ob=(1)\nfl=(4)\nfn=(4) (unknown)\n0 2 0 0\n\n"
        "totals: 20 5 2\n";
    assert_string_equal(text, want);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diamond),
        cmocka_unit_test(test_self_recursion),
        cmocka_unit_test(test_cycle_of_two),
        cmocka_unit_test(test_no_calls),
        cmocka_unit_test(test_write),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
