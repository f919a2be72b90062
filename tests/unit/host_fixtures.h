/* host_fixtures.h — helpers shared by the unit tests of the host side
 * (profile reader, database, report): a private temporary directory, and
 * raw profiles written from hand-written text with a correct `end` line
 * (line count and zlib's CRC-32), so each test states only the lines it is
 * about.  Header-only, with static inline functions (no warning when a
 * test does not use one): every tests/unit/test_*.c is
 * a program of its own. */
#ifndef AUGUR_HOST_FIXTURES_H
#define AUGUR_HOST_FIXTURES_H

#define _GNU_SOURCE /* asprintf, nftw */
#include <ftw.h>
#include <setjmp.h> /* setjmp.h, stdarg.h, stddef.h, stdint.h: before cmocka.h */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "profile/profile.h"

/* A new empty directory under $AUGUR_TEST_TMP (set by ctest), else /tmp. */
static inline char *fixture_tmpdir(void)
{
    const char *base = getenv("AUGUR_TEST_TMP");
    char *dir;
    if (!base || !*base)
        base = "/tmp";
    else
        mkdir(base, 0777); /* ctest's folder may not exist yet */
    assert_true(asprintf(&dir, "%s/augur-test-XXXXXX", base) > 0);
    assert_non_null(mkdtemp(dir));
    return dir;
}

/* "<dir>/<name>", a new string. */
static inline char *fixture_path(const char *dir, const char *name)
{
    char *p;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

static inline int fixture_unlink(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Remove a directory made by fixture_tmpdir, with its content, and free it. */
static inline void fixture_remove(char *dir)
{
    nftw(dir, fixture_unlink, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

static inline void fixture_write(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* body + its end line ("end LINES CRC\n"), a new string. */
static inline char *fixture_with_end(const char *body)
{
    size_t lines = 0, len = strlen(body);
    for (size_t i = 0; i < len; i++)
        lines += body[i] == '\n';
    size_t size = len + 64;
    char *text = malloc(size);
    assert_non_null(text);
    snprintf(text, size, "%send %zu %lx\n", body, lines, crc32(0, (const Bytef *)body, (uInt)len));
    return text;
}

/* Write a valid raw profile whose lines before `end` are `body`. */
static inline void fixture_profile(const char *path, const char *body)
{
    char *text = fixture_with_end(body);
    fixture_write(path, text, strlen(text));
    free(text);
}

/* Write `body` as a valid profile named `name` in `dir` and read it into
 * *p, failing the test when the reader refuses it. */
static inline void fixture_read(const char *dir, const char *name, const char *body, profile *p)
{
    char *path = fixture_path(dir, name), err[1024];
    fixture_profile(path, body);
    if (profile_read(path, p, err, sizeof err) != 0)
        fail_msg("%s", err);
    free(path);
}

#endif
