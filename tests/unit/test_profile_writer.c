/* test_profile_writer.c — the freestanding profile writer against zlib and
 * against the host reader: what the collector writes, the importer accepts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "profile/profile.h"
#include "profile/profile_writer.h"

typedef struct membuf {
    char *data;
    size_t len, cap;
} membuf;

static int to_memory(void *ctx, const char *buf, size_t n)
{
    membuf *m = ctx;
    if (m->len + n > m->cap) {
        m->cap = (m->len + n) * 2;
        m->data = realloc(m->data, m->cap);
    }
    memcpy(m->data + m->len, buf, n);
    m->len += n;
    return 0;
}

static void test_crc_matches_zlib(void **state)
{
    (void)state;
    unsigned char buf[10007];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 2654435761u >> 13);
    assert_int_equal(crc32_update(0, buf, sizeof buf), (uint32_t)crc32(0, buf, sizeof buf));
    /* chained calls equal one call */
    uint32_t c = crc32_update(0, buf, 5000);
    c = crc32_update(c, buf + 5000, sizeof buf - 5000);
    assert_int_equal(c, (uint32_t)crc32(0, buf, sizeof buf));
    assert_int_equal(crc32_update(0, "123456789", 9), 0xCBF43926u); /* the CRC-32 check value */
}

static void test_escapes(void **state)
{
    (void)state;
    membuf m = {0};
    profile_writer w;
    pw_init(&w, to_memory, &m);
    pw_key(&w, "x");
    pw_str(&w, "a b%c\n");
    pw_str(&w, "");
    pw_str(&w, "-");
    pw_i64(&w, -1);
    pw_hex(&w, 0xdeadbeef);
    pw_u64(&w, 18446744073709551615ull);
    pw_eol(&w);
    assert_int_equal(pw_finish(&w), 0);
    const char *want = "x a%20b%25c%0A - %2D -1 deadbeef 18446744073709551615\n";
    assert_true(m.len > strlen(want));
    assert_memory_equal(m.data, want, strlen(want));
    char end[64];
    snprintf(end, sizeof end, "end 1 %x\n", (unsigned)crc32(0, (const unsigned char *)want, strlen(want)));
    /* the buffer holds the bytes written, with no NUL after them */
    assert_int_equal(m.len, strlen(want) + strlen(end));
    assert_memory_equal(m.data + strlen(want), end, strlen(end));
    free(m.data);
}

/* A small profile written field by field, as the collector writes it. */
static void write_sample(profile_writer *w)
{
    const char *lines[][12] = {
        {"augur-profile", "1"},
        {"tool", "augur-collect", "0.1.0"},
        {"pid", "42"},
        {"ppid", "41"},
        {"exe", "/bin/true"},
        {"arg", "hello world"},
        {"block-size", "64"},
        {"block-size", "4096"},
        {"threads", "1"},
        {"module", "0", "/bin/true", "5555"},
        {"fn", "0", "main"},
        {"file", "0", "/src/a b.c"},
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        pw_key(w, lines[i][0]);
        for (size_t k = 1; k < 12 && lines[i][k]; k++)
            pw_str(w, lines[i][k]);
        pw_eol(w);
    }
    pw_key(w, "ins"); /* module addr len fn file line execs reads writes */
    pw_i64(w, 0);
    pw_hex(w, 0x1139);
    pw_u64(w, 4);
    pw_i64(w, 0);
    pw_i64(w, 0);
    pw_u64(w, 12);
    pw_u64(w, 1000);
    pw_u64(w, 1000);
    pw_u64(w, 0);
    pw_eol(w);
    pw_key(w, "br");
    pw_u64(w, 990);
    pw_eol(w);
    const uint64_t h64[] = {64, 1000, 100, 2, 0, 400, 0, 36, 500, 49500};
    const uint64_t h4k[] = {4096, 1000, 2, 1, 0, 998, 0};
    const uint64_t *hists[] = {h64, h4k};
    const size_t lens[] = {10, 7};
    for (int h = 0; h < 2; h++) {
        pw_key(w, "hist");
        for (size_t k = 0; k < lens[h]; k++)
            pw_u64(w, hists[h][k]);
        pw_eol(w);
    }
    pw_key(w, "exit");
    pw_u64(w, 3);
    pw_eol(w);
}

static void test_reader_accepts_writer_output(void **state)
{
    (void)state;
    membuf m = {0};
    profile_writer w;
    pw_init(&w, to_memory, &m);
    write_sample(&w);
    assert_int_equal(pw_finish(&w), 0);

    char path[] = "/tmp/augur-test-writer-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fwrite(m.data, 1, m.len, f);
    fclose(f);

    profile p;
    char err[512];
    int rc = profile_read(path, &p, err, sizeof err);
    if (rc != 0)
        fail_msg("reader refused writer output: %s", err);
    assert_int_equal(p.pid, 42);
    assert_int_equal(p.argc, 1);
    assert_string_equal(p.argv[0], "hello world");
    assert_string_equal(p.files[0], "/src/a b.c");
    assert_int_equal(p.nblock_sizes, 2);
    assert_int_equal(p.modules[0].bias, 0x5555);
    assert_int_equal(p.ninstrs, 1);
    assert_int_equal(p.instrs[0].addr, 0x1139);
    assert_int_equal(p.instrs[0].execs, 1000);
    assert_true(p.instrs[0].is_cond_branch);
    assert_int_equal(p.instrs[0].taken, 990);
    assert_int_equal(p.instrs[0].nhists, 2);
    assert_int_equal(p.instrs[0].hists[0].cold, 100);
    assert_int_equal(p.instrs[0].hists[0].bins[1].sum, 49500);
    assert_int_equal(p.exit_code, 3);
    profile_free(&p);
    unlink(path);
    free(m.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_matches_zlib),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_reader_accepts_writer_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
