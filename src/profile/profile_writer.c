/* profile_writer.c — formatting, buffering and checksumming of raw profiles.
 * See profile_writer.h; the format is docs/profile-format.md. */
#include "profile/profile_writer.h"

uint32_t crc32_update(uint32_t crc, const void *buf, size_t n)
{
    /* Bitwise CRC-32 (reflected polynomial 0xEDB88320).  Profiles are a few
     * MB at most, so a table is not worth its code here. */
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void flush(profile_writer *w)
{
    if (w->used == 0)
        return;
    w->crc = crc32_update(w->crc, w->buf, w->used);
    if (!w->failed && w->sink(w->ctx, w->buf, w->used) != 0)
        w->failed = 1;
    w->used = 0;
}

static void put(profile_writer *w, char c)
{
    if (w->used == sizeof w->buf)
        flush(w);
    w->buf[w->used++] = c;
}

static void put_raw(profile_writer *w, const char *s)
{
    while (*s)
        put(w, *s++);
}

/* Separates a field from what precedes it on the line. */
static void field(profile_writer *w)
{
    if (!w->at_line_start)
        put(w, ' ');
    w->at_line_start = 0;
}

void pw_init(profile_writer *w, pw_sink sink, void *ctx)
{
    w->sink = sink;
    w->ctx = ctx;
    w->crc = 0;
    w->lines = 0;
    w->failed = 0;
    w->at_line_start = 1;
    w->used = 0;
}

void pw_key(profile_writer *w, const char *keyword)
{
    field(w);
    put_raw(w, keyword);
}

static void put_unsigned(profile_writer *w, uint64_t v, unsigned base)
{
    char digits[24];
    int n = 0;
    do {
        unsigned d = (unsigned)(v % base);
        digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
        v /= base;
    } while (v);
    while (n)
        put(w, digits[--n]);
}

void pw_u64(profile_writer *w, uint64_t v)
{
    field(w);
    put_unsigned(w, v, 10);
}

void pw_i64(profile_writer *w, int64_t v)
{
    field(w);
    if (v < 0) {
        put(w, '-');
        put_unsigned(w, (uint64_t)0 - (uint64_t)v, 10);
    } else {
        put_unsigned(w, (uint64_t)v, 10);
    }
}

void pw_hex(profile_writer *w, uint64_t v)
{
    field(w);
    put_unsigned(w, v, 16);
}

void pw_str(profile_writer *w, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    field(w);
    if (!s || !*s) {
        put(w, '-');
        return;
    }
    if (s[0] == '-' && s[1] == '\0') {
        put_raw(w, "%2D");
        return;
    }
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= 0x20 || c == '%' || c >= 0x7f) {
            put(w, '%');
            put(w, hex[c >> 4]);
            put(w, hex[c & 15]);
        } else {
            put(w, (char)c);
        }
    }
}

void pw_eol(profile_writer *w)
{
    put(w, '\n');
    w->lines++;
    w->at_line_start = 1;
}

int pw_finish(profile_writer *w)
{
    flush(w); /* the CRC now covers every byte before the end line */
    uint32_t crc = w->crc;
    pw_key(w, "end");
    pw_u64(w, w->lines);
    pw_hex(w, crc);
    put(w, '\n');
    /* Flush without folding the end line into w->crc (it is not covered). */
    if (!w->failed && w->used && w->sink(w->ctx, w->buf, w->used) != 0)
        w->failed = 1;
    w->used = 0;
    return w->failed ? -1 : 0;
}
