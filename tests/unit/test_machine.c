/* test_machine.c — unit tests of the machine descriptions (src/machine):
 * every shipped description loads with the published numbers the issue
 * names; hand-made bad files (each a shipped file with one edit) are
 * refused with "FILE:LINE: field: ..." where LINE is counted here from the
 * text; write -> load gives back the same machine; an unknown name lists
 * the known ones. */
#include "host_fixtures.h"

#include <time.h>

#include "machine/machine.h"

static const char *const shipped[] = {"zen4", "zen3", "skylake-sp", "sapphire-rapids", "neoverse-v1"};

/* The text of a shipped description, a new string. */
static char *shipped_text(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.yaml", AUGUR_MACHINES_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *text = calloc(1, 1 << 16);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    assert_true(n > 0 && feof(f));
    fclose(f);
    return text;
}

/* The 1-based line of the first occurrence of needle in text. */
static int line_of(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    assert_non_null(at);
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

/* text with the first `from` replaced by `to`, a new string. */
static char *edited(const char *text, const char *from, const char *to)
{
    const char *at = strstr(text, from);
    assert_non_null(at);
    /* Built with malloc and memcpy, not asprintf(&out, ...): gcc 12 -O3
     * (Release) took the address of `out` for a dangling pointer once
     * inlined next to cmocka's longjmp (a false -Wdangling-pointer). */
    size_t head = (size_t)(at - text), tolen = strlen(to), tail = strlen(at + strlen(from));
    char *out = malloc(head + tolen + tail + 1);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, to, tolen);
    memcpy(out + head + tolen, at + strlen(from), tail + 1);
    return out;
}

/* What machine_write writes of m, a new string. */
static char *written(const machine *m)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(machine_write(f, m, NULL), 0);
    fclose(f);
    return out;
}

/* Load `text` written to a file; assert it is refused with an error that
 * starts "FILE:LINE: " and contains `want`. */
static void assert_refused(const char *text, int line, const char *want)
{
    char *dir = fixture_tmpdir(), *path = fixture_path(dir, "bad.yaml"), err[512], *prefix;
    fixture_write(path, text, strlen(text));
    machine m;
    int rc = machine_load(path, &m, err, sizeof err);
    print_message("%s\n", err);
    assert_int_equal(rc, -1);
    assert_null(m.description);
    assert_true(asprintf(&prefix, "%s:%d: ", path, line) > 0);
    assert_memory_equal(err, prefix, strlen(prefix));
    assert_non_null(strstr(err, want));
    free(prefix);
    free(path);
    fixture_remove(dir);
}

/* zen4 with `from` replaced by `to`, refused at the line of `at_line`
 * (looked up in the edited text) with `want`. */
static void assert_edit_refused(const char *from, const char *to, const char *at_line, const char *want)
{
    char *text = shipped_text("zen4"), *bad = edited(text, from, to);
    assert_refused(bad, line_of(bad, at_line), want);
    free(bad);
    free(text);
}

static void every_shipped_description_loads(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        machine m;
        char err[512] = "";
        int rc = machine_find(shipped[i], &m, err, sizeof err);
        print_message("%s: %s\n", shipped[i], err);
        assert_int_equal(rc, 0);
        assert_string_equal(m.name, shipped[i]);
        assert_int_equal(m.ncaches, 3);
        for (int c = 1; c < MACHINE_NCLASSES; c++)
            assert_true(m.cls[c].nports > 0 && m.cls[c].rthroughput > 0);
        machine_free(&m);
    }
}

static void zen4_has_the_published_caches(void **state)
{
    (void)state;
    machine m;
    char err[512];
    assert_int_equal(machine_find("zen4", &m, err, sizeof err), 0);
    assert_int_equal(m.cache[0].size, 32 * 1024);
    assert_int_equal(m.cache[0].ways, 8);
    assert_int_equal(m.cache[1].size, 1024 * 1024);
    assert_int_equal(m.cache[1].ways, 8);
    assert_int_equal(m.cache[2].size, 32 * 1024 * 1024);
    assert_int_equal(m.cache[2].ways, 16);
    assert_int_equal(m.cache[2].shared_by, 8);
    assert_int_equal(m.cache[2].policy, MACHINE_VICTIM);
    /* fp_fma on FP0 and FP1: ports named in core.ports order */
    assert_int_equal(m.cls[ST_CLASS_FP_FMA].nports, 2);
    assert_string_equal(m.port_names[m.cls[ST_CLASS_FP_FMA].ports[0]], "FP0");
    assert_string_equal(m.port_names[m.cls[ST_CLASS_FP_FMA].ports[1]], "FP1");
    assert_true(m.cls[MACHINE_CLASS_LOAD].nports == 3 && m.cls[MACHINE_CLASS_LOAD].latency == 4);
    assert_true(m.cls[ST_CLASS_INT_ALU].uops == 1); /* the default */
    assert_int_equal(m.tlb[3].page_size, 4096);
    assert_int_equal(m.tlb[3].entries, 3072);
    assert_non_null(strstr(m.path, "zen4.yaml"));
    machine_free(&m);
}

static void sliced_l3_of_sapphire_rapids(void **state)
{
    (void)state;
    machine m;
    char err[512];
    assert_int_equal(machine_find("sapphire-rapids", &m, err, sizeof err), 0);
    /* 56 slices of 1.875 MiB, 15-way: 2048 sets per slice */
    assert_int_equal(m.cache[2].size, 56ull * 1920 * 1024);
    assert_int_equal(m.cache[2].size / m.cache[2].slices / m.cache[2].line / m.cache[2].ways, 2048);
    machine_free(&m);
}

static void missing_field(void **state)
{
    (void)state;
    assert_edit_refused("  issue_width: 6             # macro-ops dispatched per cycle [AMD]\n", "", "  clock_ghz",
                        "core.issue_width: missing");
    assert_edit_refused("    move:", "    #move:", "    int_alu:", "core.classes.move: missing");
    /* required, no silent default; refused at the memory section's first key */
    char *text = shipped_text("zen4");
    const char *pf = strstr(text, "  page_fault_ns:");
    assert_non_null(pf);
    char *line = strndup(pf, strcspn(pf, "\n") + 1);
    assert_edit_refused(line, "", "  latency_ns:", "memory.page_fault_ns: missing");
    free(line);
    const char *bm = strstr(text, "  branch_mispredict_cycles:");
    assert_non_null(bm);
    line = strndup(bm, strcspn(bm, "\n") + 1);
    assert_edit_refused(line, "", "  clock_ghz", "core.branch_mispredict_cycles: missing");
    free(line);
    free(text);
}

/* core.page_walkers is optional: the shipped descriptions cite 4 (Golden
 * Cove), 6 (Zen 3, Zen 4), 2 (Skylake-SP), neoverse-v1 none (0: walks
 * overlap as the misses); written back when given, read back as written;
 * 0 is refused. */
static void walk_page_walkers_optional(void **state)
{
    (void)state;
    static const char *const names[] = {"sapphire-rapids", "zen3", "zen4", "skylake-sp", "neoverse-v1"};
    static const uint32_t walkers[] = {4, 6, 6, 2, 0};
    char err[512];
    for (int i = 0; i < 5; i++) {
        machine m;
        assert_int_equal(machine_find(names[i], &m, err, sizeof err), 0);
        assert_int_equal(m.page_walkers, walkers[i]);
        char *out = written(&m);
        assert_true((strstr(out, "page_walkers: ") != NULL) == (walkers[i] != 0));
        free(out);
        machine_free(&m);
    }
    assert_edit_refused("  page_walkers: 6", "  page_walkers: 0", "  page_walkers", "core.page_walkers");
}

/* core.reorder_buffer is optional: zen4 says 320; without the line the
 * description loads with 0 (no window limit on overlapping misses), as
 * descriptions written before it do, and it is written back only when
 * given.  core.throughput_share is optional too: 1 (the thread has its
 * core) unless given, written back only below 1, read back as written. */
static void reorder_buffer_optional(void **state)
{
    (void)state;
    char *text = shipped_text("zen4"), *without = edited(text, "  reorder_buffer: 320", "#");
    char *dir = fixture_tmpdir(), *path = fixture_path(dir, "rob.yaml"), err[512];
    machine m;
    assert_int_equal(machine_find("zen4", &m, err, sizeof err), 0);
    assert_int_equal(m.reorder_buffer, 320);
    machine_free(&m);
    fixture_write(path, without, strlen(without));
    if (machine_load(path, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(m.reorder_buffer, 0);
    char *out = written(&m);
    assert_null(strstr(out, "reorder_buffer"));
    assert_null(strstr(out, "throughput_share"));
    assert_true(m.throughput_share == 1);
    free(out);
    machine_free(&m);
    char *shared = edited(text, "  reorder_buffer: 320", "  throughput_share: 0.75");
    fixture_write(path, shared, strlen(shared));
    if (machine_load(path, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(m.throughput_share == 0.75);
    out = written(&m);
    assert_non_null(strstr(out, "  throughput_share: 0.75\n"));
    free(out);
    free(shared);
    machine_free(&m);
    free(path);
    fixture_remove(dir);
    free(without);
    free(text);
}

static void penalty_costs_must_not_be_negative(void **state)
{
    (void)state;
    assert_edit_refused("  branch_mispredict_cycles: 13", "  branch_mispredict_cycles: -1", "branch_mispredict",
                        "core.branch_mispredict_cycles: -1 is out of range");
    assert_edit_refused("  page_fault_ns: 1000", "  page_fault_ns: -5", "page_fault_ns",
                        "memory.page_fault_ns: -5 is out of range");
    assert_edit_refused("  page_fault_ns: 1000", "  page_fault_ns: fast", "page_fault_ns",
                        "memory.page_fault_ns: 'fast' is not a decimal number");
}

static void contradictory_fields(void **state)
{
    (void)state;
    /* 1000 KiB / 64 / 8 = 2000 sets, not a power of two */
    assert_edit_refused("size: 1MiB", "size: 1000KiB", "size: 1000KiB", "caches[1].size: 1024000 bytes is not");
    assert_edit_refused("size: 1MiB", "size: 32KiB", "size: 32KiB\n    line_bytes: 64\n    ways: 8\n    latency_cycles: 14",
                        "caches[1].size: 32768 bytes is not larger than the level above (L1");
    assert_edit_refused("line_bytes: 64", "line_bytes: 48", "line_bytes: 48", "caches[0].line_bytes: 48 is not a power of two");
    assert_edit_refused("latency_cycles: 1, rthroughput_cycles: 0.25}", "latency_cycles: 1, rthroughput_cycles: 0.2}",
                        "    int_alu:", "core.classes.int_alu.rthroughput_cycles: 0.2 is below 1/4");
    assert_edit_refused("bandwidth_core_gbs: 30", "bandwidth_core_gbs: 400", "bandwidth_core_gbs",
                        "memory.bandwidth_core_gbs: 400 is more than bandwidth_gbs");
}

static void unknown_port_key_and_value(void **state)
{
    (void)state;
    assert_edit_refused("fp_add:   {ports: [FP2, FP3]", "fp_add:   {ports: [FP2, FP9]", "fp_add:",
                        "core.classes.fp_add.ports: 'FP9' is not a port of core.ports");
    assert_edit_refused("  issue_width:", "  issue_widht:", "issue_widht", "core.issue_widht: unknown field");
    assert_edit_refused("policy: victim", "policy: exclusive", "policy: exclusive", "caches[2].policy: 'exclusive' is not a policy");
    assert_edit_refused("ways: 16", "ways: sixteen", "ways: sixteen", "caches[2].ways: 'sixteen' is not a whole number");
    assert_edit_refused("size: 32MiB", "size: 32MB", "size: 32MB", "caches[2].size: '32MB' is not a size");
}

static void duplicated_field(void **state)
{
    (void)state;
    assert_edit_refused("  vector_bits: 256\n", "  vector_bits: 256\n  issue_width: 8\n", "  issue_width: 8",
                        "core.issue_width: duplicated field, first given on line");
}

static void not_yaml_or_truncated(void **state)
{
    (void)state;
    assert_refused("name: [zen4\ncores: 8\n", 2, "syntax:"); /* found at the key that cannot be in a list */
    char *text = shipped_text("zen4");
    /* cut inside a flow mapping: not YAML any more */
    char *cut = strstr(text, "fp_div:   {ports: [FP1], lat") + strlen("fp_div:   {ports: [FP1], lat");
    *cut = '\0';
    char *whole = strdup(text);
    assert_refused(whole, line_of(whole, "fp_div") + 1, "syntax:");
    free(whole);
    free(text);
    /* cut at the end of a line: YAML, but everything after is missing */
    text = shipped_text("zen4");
    strstr(text, "    fp_sqrt:")[0] = '\0';
    assert_refused(text, line_of(text, "    int_alu:"), "core.classes.fp_sqrt: missing");
    free(text);
    assert_refused("", 1, "the file is empty");
}

/* Nesting of the issue's size, 100,000 levels of [ ] (200 KB): libyaml's
 * document loader took more than 60 s on it (quadratic in depth); the
 * event scan refuses it at once.  CPU time, so that a loaded host does not
 * fail the test. */
static void deep_nesting_refused_at_once(void **state)
{
    (void)state;
    enum { DEPTH = 100000 };
    char *text = malloc(2 * DEPTH + 2);
    assert_non_null(text);
    memset(text, '[', DEPTH);
    memset(text + DEPTH, ']', DEPTH);
    strcpy(text + 2 * DEPTH, "\n");
    clock_t t0 = clock();
    assert_refused(text, 1, "syntax: lists or mappings nested more than 16 deep");
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("100000 levels refused in %.3f s of CPU\n", cpu);
    assert_true(cpu < 0.5);
    free(text);
    /* 16 levels are YAML the loader reads (and then refuses as a description) */
    assert_refused("[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]\n", 1, "expected a mapping of fields");
    assert_refused("[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]\n", 1, "nested more than 16 deep");
}

/* A second document was ignored: the first loaded as if it were the file. */
static void second_document_refused(void **state)
{
    (void)state;
    char *text = shipped_text("zen4"), *two = malloc(strlen(text) + 32);
    assert_non_null(two);
    sprintf(two, "%s---\nname: other\n", text);
    assert_refused(two, line_of(two, "---\nname: other"), "syntax: a second YAML document");
    free(two);
    free(text);
}

/* Numbers only in decimal: strtod read 0x10 as 16 GHz. */
static void numbers_are_decimal(void **state)
{
    (void)state;
    const char *bad[] = {"0x10", "inf", "nan", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char to[64], want[96];
        snprintf(to, sizeof to, "  clock_ghz: %s ", bad[i]);
        snprintf(want, sizeof want, "core.clock_ghz: '%s' is not a decimal number", bad[i]);
        assert_edit_refused("  clock_ghz: 3.55 ", to, "  clock_ghz:", want);
    }
}

/* Values the tools would refuse or crawl on: memspy failed on a 1 TiB L3
 * ("cache has too many lines") and took 110 s on a 16384-way level where
 * 16 ways take 4 (docs/machines.md, "Limits"). */
static void limits_of_the_tools(void **state)
{
    (void)state;
    static const char *const cases[][3] = { /* zen4's text, its replacement (refused at its line), the error */
        {"    size: 32MiB", "    size: 1099511627776", "caches[2].size: 1099511627776 is out of range: the limit is 1 to 1GiB"},
        {"    ways: 16", "    ways: 16777216", "caches[2].ways: 16777216 is out of range: the limit is 1 to 1024"},
        {"    line_bytes: 64", "    line_bytes: 4", "caches[0].line_bytes: 4 is out of range: the limit is 8 to 4096"},
        {"page_size: 4KiB", "page_size: 4GiB", "tlbs[0].page_size: 4GiB is out of range: the limit is 1KiB to 1GiB"},
        {"  clock_ghz: 3.55 ", "  clock_ghz: 0 ", "core.clock_ghz: 0 is out of range: the limit is 0.01 to 100"},
        {"  reorder_buffer: 320", "  reorder_buffer: 0", "core.reorder_buffer: 0 is out of range: the limit is 1 to 65536"},
        {"  reorder_buffer: 320", "  throughput_share: 1.5", "core.throughput_share: 1.5 is out of range: the limit is 0.01 to 1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        assert_edit_refused(cases[i][0], cases[i][1], cases[i][1], cases[i][2]);
    /* at the limits: a 1 GiB 1024-way last level loads */
    char *text = shipped_text("zen4"), *a = edited(text, "    size: 32MiB", "    size: 1GiB");
    char *b = edited(a, "    ways: 16", "    ways: 1024"), *dir = fixture_tmpdir(), *path = fixture_path(dir, "max.yaml");
    char err[512];
    machine m;
    fixture_write(path, b, strlen(b));
    if (machine_load(path, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(m.cache[2].size == 1ull << 30 && m.cache[2].ways == 1024);
    machine_free(&m);
    free(path);
    fixture_remove(dir);
    free(b);
    free(a);
    free(text);
}

/* A file is read up to 1 MiB: a larger one (here valid YAML, comments) and
 * an endless one (/dev/zero, which was read until memory ran out) are
 * refused by size. */
static void file_size_bounded(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *path = fixture_path(dir, "big.yaml"), err[512];
    size_t n = (1u << 20) + 1;
    char *text = malloc(n);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        text[i] = i % 64 == 63 ? '\n' : i % 64 == 0 ? '#' : 'x';
    fixture_write(path, text, n);
    machine m;
    assert_int_equal(machine_load(path, &m, err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "big.yaml: more than 1048576 bytes, the limit of a machine description"));
    fixture_write(path, text, n - 1); /* 1 MiB of comments: YAML, an empty description */
    assert_int_equal(machine_load(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "the file is empty"));
    assert_int_equal(machine_load("/dev/zero", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "/dev/zero: more than 1048576 bytes"));
    free(text);
    free(path);
    fixture_remove(dir);
}

/* What detect and calibrate build in memory meets the same limits. */
static void built_machine_validated(void **state)
{
    (void)state;
    machine m;
    char err[512];
    assert_int_equal(machine_find("zen4", &m, err, sizeof err), 0);
    assert_int_equal(machine_validate(&m, "built", err, sizeof err), 0);
    m.cache[2].ways = 1u << 24;
    assert_int_equal(machine_validate(&m, "built", err, sizeof err), -1);
    print_message("%s\n", err);
    assert_non_null(strstr(err, "caches[2].ways: 16777216 is out of range: the limit is 1 to 1024"));
    assert_memory_equal(err, "built:", 6);
    m.cache[2].ways = 16;
    m.mem_latency_ns = 2e5;
    assert_int_equal(machine_validate(&m, "built", err, sizeof err), -1);
    assert_non_null(strstr(err, "memory.latency_ns: 200000 is out of range: the limit is 1 to 100000"));
    machine_free(&m);
}

static void unreadable_file(void **state)
{
    (void)state;
    machine m;
    char err[512];
    assert_int_equal(machine_load("/nonexistent/x.yaml", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/x.yaml: cannot read"));
}

/* machine_write then machine_load: the same machine, field for field. */
static void write_load_round_trip(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *path = fixture_path(dir, "out.yaml"), err[512];
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++) {
        machine a, b;
        assert_int_equal(machine_find(shipped[i], &a, err, sizeof err), 0);
        a.clock_ghz = 2.0 / 3.0; /* needs all 17 digits */
        free(a.description);
        a.description = strdup("with \"quotes\", a colon: and a \\ backslash");
        FILE *f = fopen(path, "w");
        assert_int_equal(machine_write(f, &a, "written by test_machine\nsecond line"), 0);
        fclose(f);
        int rc = machine_load(path, &b, err, sizeof err);
        if (rc)
            print_message("%s\n", err);
        assert_int_equal(rc, 0);
        assert_string_equal(a.description, b.description);
        char *keep[4] = {a.description, a.path, b.description, b.path};
        a.description = a.path = b.description = b.path = NULL;
        assert_memory_equal(&a, &b, sizeof a);
        a.description = keep[0], a.path = keep[1], b.description = keep[2], b.path = keep[3];
        machine_free(&a);
        machine_free(&b);
    }
    free(path);
    fixture_remove(dir);
}

/* A class's own vector_bits (the divider's width, branch gc21): refused
 * wider than core.vector_bits; kept, and written back, when narrower. */
static void gc_class_vector_bits(void **state)
{
    (void)state;
    const char *from = "latency_cycles: 13, rthroughput_cycles: 5}";
    assert_edit_refused(from, "latency_cycles: 13, rthroughput_cycles: 5, vector_bits: 512}", "    fp_div:",
                        "core.classes.fp_div.vector_bits: 512 is wider than core.vector_bits 256");
    char *text = shipped_text("zen4"), *narrow = edited(text, from, "latency_cycles: 13, rthroughput_cycles: 5, vector_bits: 128}");
    char *dir = fixture_tmpdir(), *path = fixture_path(dir, "narrow.yaml"), err[512];
    fixture_write(path, narrow, strlen(narrow));
    machine m;
    if (machine_load(path, &m, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(m.cls[ST_CLASS_FP_DIV].vector_bits, 128);
    assert_int_equal(m.cls[ST_CLASS_FP_SQRT].vector_bits, 0);
    char *out = written(&m);
    assert_non_null(strstr(out, "rthroughput_cycles: 5, uops: 1, vector_bits: 128}\n"));
    assert_non_null(strstr(out, "    fp_sqrt: {ports: [\"FP1\"], latency_cycles: 21, rthroughput_cycles: 9, uops: 1}\n"));
    free(out);
    machine_free(&m);
    free(path);
    fixture_remove(dir);
    free(narrow);
    free(text);
}

static void unknown_name_lists_known_ones(void **state)
{
    (void)state;
    machine m;
    char err[1024];
    assert_int_equal(machine_find("zen9", &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown machine 'zen9'"));
    for (size_t i = 0; i < sizeof shipped / sizeof *shipped; i++)
        assert_non_null(strstr(err, shipped[i]));
    char **names;
    size_t n;
    assert_int_equal(machine_names(&names, &n, err, sizeof err), 0);
    assert_true(n >= 5);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(names[i - 1], names[i]) < 0);
    machine_names_free(names, n);
}

/* $AUGUR_MACHINES comes first, and its files are found by name. */
static void search_path_from_environment(void **state)
{
    (void)state;
    char *dir = fixture_tmpdir(), *path = fixture_path(dir, "mine.yaml"), err[512];
    char *text = shipped_text("zen3"), *renamed = edited(text, "name: zen3", "name: mine");
    fixture_write(path, renamed, strlen(renamed));
    setenv("AUGUR_MACHINES", dir, 1);
    const char *dirs[8];
    assert_true(machine_dirs(dirs, 8) >= 2);
    assert_string_equal(dirs[0], dir);
    assert_string_equal(dirs[1], AUGUR_MACHINES_DIR);
    machine m;
    assert_int_equal(machine_find("mine", &m, err, sizeof err), 0);
    assert_string_equal(m.name, "mine");
    assert_int_equal(m.cache[1].size, 512 * 1024);
    machine_free(&m);
    unsetenv("AUGUR_MACHINES");
    free(renamed);
    free(text);
    free(path);
    fixture_remove(dir);
}

static void class_names_and_indices(void **state)
{
    (void)state;
    assert_int_equal(machine_class_index("fp_fma"), ST_CLASS_FP_FMA);
    assert_int_equal(machine_class_index("load"), MACHINE_CLASS_LOAD);
    assert_int_equal(machine_class_index("store"), MACHINE_CLASS_STORE);
    assert_int_equal(machine_class_index("load_store"), -1); /* no compute: its loads and stores are priced */
    assert_int_equal(machine_class_index("none"), -1);
    assert_string_equal(machine_class_name(ST_CLASS_INT_DIV), "int_div");
    assert_null(machine_class_name(MACHINE_NCLASSES));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_shipped_description_loads),
        cmocka_unit_test(zen4_has_the_published_caches),
        cmocka_unit_test(sliced_l3_of_sapphire_rapids),
        cmocka_unit_test(missing_field),
        cmocka_unit_test(contradictory_fields),
        cmocka_unit_test(reorder_buffer_optional),
        cmocka_unit_test(walk_page_walkers_optional),
        cmocka_unit_test(penalty_costs_must_not_be_negative),
        cmocka_unit_test(unknown_port_key_and_value),
        cmocka_unit_test(duplicated_field),
        cmocka_unit_test(not_yaml_or_truncated),
        cmocka_unit_test(deep_nesting_refused_at_once),
        cmocka_unit_test(second_document_refused),
        cmocka_unit_test(numbers_are_decimal),
        cmocka_unit_test(limits_of_the_tools),
        cmocka_unit_test(file_size_bounded),
        cmocka_unit_test(built_machine_validated),
        cmocka_unit_test(unreadable_file),
        cmocka_unit_test(write_load_round_trip),
        cmocka_unit_test(gc_class_vector_bits),
        cmocka_unit_test(unknown_name_lists_known_ones),
        cmocka_unit_test(search_path_from_environment),
        cmocka_unit_test(class_names_and_indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
