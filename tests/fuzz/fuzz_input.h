/* fuzz_input.h — what the fuzz harnesses of tests/fuzz/ share: the entry
 * each defines (fuzz_one), and the handing of an input to a reader: the
 * readers under test take a path, so an input is handed to them as an
 * anonymous in-memory file (memfd) named /proc/self/fd/N; and the raw text
 * formats end in a line count and CRC-32 that a mutated input almost never
 * matches, so an input is also given with its end line recomputed, which
 * lets mutations reach the parsers behind the framing check.
 *
 * Header-only (static inline functions): each harness is one program, built as a
 * libFuzzer target (clang) or with replay_main.c's main (any compiler). */
#ifndef AUGUR_FUZZ_INPUT_H
#define AUGUR_FUZZ_INPUT_H

#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

/* Every harness defines it: give data[0..size) to the reader under test
 * and check what the harness promises of the outcome (abort() when it
 * does not hold); 1 when the reader accepted data as it is, 0 when it
 * refused it. */
int fuzz_one(const uint8_t *data, size_t size);

/* Every harness defines it too: how a seed of the format's current version
 * begins ("augur-profile 2\n"; "" for a format without a version line), so
 * that the replay of the committed corpus fails when the writer has moved
 * on to a version whose new lines the seeds, and so the fuzzers, lack. */
extern const char fuzz_seed_start[];

/* FUZZ_STR(X): the macro X's value as a string literal. */
#define FUZZ_STR_(x) #x
#define FUZZ_STR(x) FUZZ_STR_(x)

/* An in-memory file holding data[0..size): its descriptor (close it when
 * done), its name in path.  Aborts when the file cannot be made, which is
 * the harness's failure, not an input's. */
static inline int fuzz_file(const void *data, size_t size, char path[32])
{
    int fd = memfd_create("fuzz-input", 0);
    if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size)) {
        perror("fuzz_file");
        abort();
    }
    snprintf(path, 32, "/proc/self/fd/%d", fd);
    return fd;
}

/* data with its end line made right: the lines before the first that is
 * "end" or starts with "end " (all of data when none does; a newline added to an
 * unfinished last line), then "end LINES CRC-32".  A new buffer of *len
 * bytes (free() it). */
static inline char *fuzz_with_end(const uint8_t *data, size_t size, size_t *len)
{
    size_t body = 0;
    while (body < size && !(size - body >= 3 && !memcmp(data + body, "end", 3) &&
                            (size - body == 3 || data[body + 3] == ' ' || data[body + 3] == '\n'))) {
        const uint8_t *nl = memchr(data + body, '\n', size - body);
        body = nl ? (size_t)(nl - data) + 1 : size;
    }
    char *out = malloc(body + 2 + 64);
    if (!out)
        abort();
    memcpy(out, data, body);
    if (body && out[body - 1] != '\n')
        out[body++] = '\n';
    size_t lines = 0;
    for (size_t i = 0; i < body; i++)
        lines += out[i] == '\n';
    uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)out, (uInt)body);
    *len = body + (size_t)snprintf(out + body, 64, "end %zu %lx\n", lines, crc);
    return out;
}

/* Call read_fn(path) on data as it is and on data with its end line made
 * right (fuzz_with_end); what read_fn returned for data as it is. */
static inline int fuzz_both_framings(const uint8_t *data, size_t size, int (*read_fn)(const char *path))
{
    char path[32];
    int fd = fuzz_file(data, size, path);
    int accepted = read_fn(path);
    close(fd);
    size_t len;
    char *fixed = fuzz_with_end(data, size, &len);
    fd = fuzz_file(fixed, len, path);
    free(fixed);
    read_fn(path);
    close(fd);
    return accepted;
}

#endif
