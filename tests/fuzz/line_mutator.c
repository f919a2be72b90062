/* line_mutator.c — a libFuzzer custom mutator for augur's line-oriented raw
 * text files (the profile and memspy's raw file; fuzz_profile.c,
 * fuzz_memspy.c).  libFuzzer's own mutations change bytes, and in these
 * formats almost every changed byte makes a line that its parser refuses
 * at once; what a reader has to survive are whole lines in the wrong place
 * or number, and fields at the limits of their type.  So half of the
 * mutations here work on lines: delete one, duplicate one, move one, or
 * replace one field (space-separated) with a value at a limit (0, -1,
 * 2^32 - 1, 2^64, a bad percent escape, ...); the other half are
 * libFuzzer's (LLVMFuzzerMutate).  Linked only into the libFuzzer build:
 * replaying a corpus needs no mutator. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* Values at the limits of the formats' fields. */
static const char *const limits[] = {
    "0", "1", "-1", "2", "3", "8", "63", "64", "65", "4095", "4096", "65536", "2147483647", "2147483648",
    "4294967295", "4294967296", "9223372036854775807", "9223372036854775808", "18446744073709551615",
    "18446744073709551616", "99999999999999999999999", "ffffffffffffffff", "10000000000000000", "-0", "+1",
    "01", "1e3", "0x10", "-", "%", "%0", "%00", "%zz", "%2D", "a%20b", "",
};

/* A small generator of the choices, from libFuzzer's seed (xorshift32). */
static uint32_t next(uint32_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* The line that starts at offset `at` of data: its length with the
 * newline (or up to the end). */
static size_t line_len(const uint8_t *data, size_t size, size_t at)
{
    const uint8_t *nl = memchr(data + at, '\n', size - at);
    return nl ? (size_t)(nl - data) - at + 1 : size - at;
}

/* The offset of line k (from 0) of data, or size past the last. */
static size_t line_at(const uint8_t *data, size_t size, size_t k)
{
    size_t at = 0;
    while (k-- && at < size)
        at += line_len(data, size, at);
    return at;
}

static size_t count_lines(const uint8_t *data, size_t size)
{
    size_t n = 0;
    for (size_t at = 0; at < size; at += line_len(data, size, at))
        n++;
    return n;
}

/* Write out = data with [from, from + len) removed and `ins` (ilen bytes)
 * inserted at offset `to` of what remains; the new size, or 0 when it
 * exceeds max. */
static size_t splice(const uint8_t *data, size_t size, size_t from, size_t len, size_t to, const void *ins,
                     size_t ilen, uint8_t *out, size_t max)
{
    if (size - len + ilen > max)
        return 0;
    uint8_t *rest = malloc(size - len + 1);
    if (!rest)
        return 0;
    memcpy(rest, data, from);
    memcpy(rest + from, data + from + len, size - from - len);
    size_t n = size - len;
    to = to > n ? n : to;
    memcpy(out, rest, to);
    memcpy(out + to, ins, ilen);
    memcpy(out + to + ilen, rest + to, n - to);
    free(rest);
    return n + ilen;
}

/* Replace a random field of the line at [at, at + len) with a limit. */
static size_t replace_field(const uint8_t *data, size_t size, size_t at, size_t len, uint32_t *s, uint8_t *out,
                            size_t max)
{
    size_t fields = 1;
    for (size_t i = at; i < at + len; i++)
        fields += data[i] == ' ';
    size_t f = next(s) % fields, start = at;
    while (f--)
        start = (size_t)((const uint8_t *)memchr(data + start, ' ', at + len - start) - data) + 1;
    size_t end = start;
    while (end < at + len && data[end] != ' ' && data[end] != '\n')
        end++;
    const char *v = limits[next(s) % (sizeof limits / sizeof *limits)];
    return splice(data, size, start, end - start, start, v, strlen(v), out, max);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    uint32_t s = seed ? seed : 1;
    size_t lines = count_lines(data, size);
    if (lines == 0 || next(&s) % 2)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t at = line_at(data, size, next(&s) % lines), len = line_len(data, size, at);
    size_t to = line_at(data, size, next(&s) % (lines + 1)); /* a line boundary, or the end */
    uint8_t *out = malloc(max_size), *line = malloc(len + 1);
    size_t n = 0;
    if (out && line) {
        memcpy(line, data + at, len);
        size_t copied = len + (line[len - 1] != '\n'); /* the line as a whole line */
        line[len] = '\n';
        switch (next(&s) % 4) {
        case 0: /* delete */
            n = splice(data, size, at, len, 0, "", 0, out, max_size);
            break;
        case 1: /* duplicate, anywhere */
            n = splice(data, size, 0, 0, to, line, copied, out, max_size);
            break;
        case 2: /* move: `to` counted without the line */
            n = splice(data, size, at, len, to > at ? to - len : to, line, copied, out, max_size);
            break;
        default:
            n = replace_field(data, size, at, len, &s, out, max_size);
        }
    }
    if (n)
        memcpy(data, out, n);
    free(out);
    free(line);
    return n ? n : LLVMFuzzerMutate(data, size, max_size);
}
