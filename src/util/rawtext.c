/* rawtext.c — framing and field parsers of augur's raw text files; see
 * rawtext.h.  Moved here from the profile reader so that memspy's reader
 * checks its files by the same rules. */
#include "util/rawtext.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "util/array.h"
#include "util/parse.h"

int rawtext_fail(rawtext *t, size_t line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line)
        snprintf(t->err, t->errlen, "%s: line %zu: %s", t->path, line, msg);
    else
        snprintf(t->err, t->errlen, "%s: %s", t->path, msg);
    return -1;
}

#define fail(t, ...) rawtext_fail((t), (t)->lineno, __VA_ARGS__)

const char *rawtext_shown(const char *field, char *buf, size_t len)
{
    size_t i = 0;
    for (; field[i] && i + 4 < len && i < 40; i++)
        buf[i] = field[i] > 0x20 && field[i] < 0x7f ? field[i] : '?';
    strcpy(buf + i, field[i] ? "..." : "");
    return buf;
}

/* ---- fields -------------------------------------------------------------- */

int rawtext_u64(rawtext *t, const char *f, const char *what, uint64_t *out)
{
    char buf[48];
    if (parse_u64(f, out) != 0)
        return fail(t, "%s '%s' is not an unsigned decimal number", what, rawtext_shown(f, buf, sizeof buf));
    return 0;
}

int rawtext_i64(rawtext *t, const char *f, const char *what, int64_t *out)
{
    char buf[48];
    if (parse_i64(f, out) != 0)
        return fail(t, "%s '%s' is not a signed decimal number from -2^63 to 2^63 - 1", what,
                    rawtext_shown(f, buf, sizeof buf));
    return 0;
}

int rawtext_hex(rawtext *t, const char *f, const char *what, uint64_t *out)
{
    char buf[48];
    if (parse_hex_u64(f, out) != 0)
        return fail(t, "%s '%s' is not a lower-case hexadecimal number", what, rawtext_shown(f, buf, sizeof buf));
    return 0;
}

int rawtext_bounded(rawtext *t, const char *f, const char *what, uint64_t max, uint64_t *out)
{
    if (rawtext_u64(t, f, what, out) != 0)
        return -1;
    if (*out > max)
        return fail(t, "%s %llu is out of range (at most %llu)", what, (unsigned long long)*out,
                    (unsigned long long)max);
    return 0;
}

int rawtext_add_count(rawtext *t, uint64_t *total, uint64_t x, const char *what)
{
    if (__builtin_add_overflow(*total, x, total) || *total > RAWTEXT_MAX_COUNT)
        return fail(t, "the %s add up to more than %llu (2^63 - 1), the most a count may be: the file is damaged (%s)",
                    what, (unsigned long long)RAWTEXT_MAX_COUNT, t->redo);
    return 0;
}

int rawtext_version(rawtext *t, const char *f)
{
    uint64_t v;
    if (rawtext_u64(t, f, "format version", &v) != 0)
        return -1;
    int oldest = t->oldest ? t->oldest : t->version;
    if (v < (uint64_t)oldest || v > (uint64_t)t->version) {
        char versions[48];
        if (oldest < t->version)
            snprintf(versions, sizeof versions, "versions %d to %d", oldest, t->version);
        else
            snprintf(versions, sizeof versions, "version %d", t->version);
        return fail(t, "%s format version %llu is not supported: this augur reads %s "
                       "(use the augur that wrote it, or %s)",
                    t->kind, (unsigned long long)v, versions, t->redo);
    }
    t->found = (int)v;
    return 0;
}

int rawtext_id(rawtext *t, const char *f, const char *kind, int defined, int allow_unknown, int32_t *out)
{
    if (allow_unknown && strcmp(f, "-1") == 0) {
        *out = -1;
        return 0;
    }
    uint64_t v;
    if (rawtext_u64(t, f, kind, &v) != 0)
        return -1;
    if (v >= (uint64_t)defined)
        return fail(t, "%s %llu is not defined (a '%s %llu' line must come before its first use)", kind,
                    (unsigned long long)v, kind, (unsigned long long)v);
    *out = (int32_t)v;
    return 0;
}

int rawtext_dense_id(rawtext *t, const char *f, const char *kind, int defined)
{
    uint64_t id;
    if (rawtext_u64(t, f, kind, &id) != 0)
        return -1;
    if (id != (uint64_t)defined)
        return fail(t, "%s %llu defined where %s %d was expected (ids are dense from 0, in order)", kind,
                    (unsigned long long)id, kind, defined);
    if (defined == INT32_MAX)
        return fail(t, "too many %s lines", kind);
    return 0;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int rawtext_string(rawtext *t, const char *f, const char *what, char **out)
{
    size_t n = strlen(f);
    char *s = malloc(n + 1), *o = s;
    if (!s)
        return fail(t, "out of memory");
    if (strcmp(f, "-") == 0)
        n = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)f[i];
        if (c == '%') {
            int hi = hex_digit(f[i + 1]); /* f is NUL-terminated: no overrun */
            int lo = hi >= 0 ? hex_digit(f[i + 2]) : -1;
            if (lo < 0 || (hi == 0 && lo == 0)) {
                free(s);
                return fail(t, "%s: bad escape at byte %zu (expected %%XX with two upper-case hex digits, not %%00)",
                            what, i + 1);
            }
            *o++ = (char)(hi * 16 + lo);
            i += 2;
        } else if (c <= 0x20 || c >= 0x7f) {
            free(s);
            return fail(t, "%s: byte 0x%02x at byte %zu must be percent-encoded", what, c, i + 1);
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    *out = s;
    return 0;
}

int rawtext_tool(rawtext *t, const char *name, const char *version, char **out)
{
    char *n, *v;
    if (rawtext_string(t, name, "tool name", &n) != 0)
        return -1;
    if (rawtext_string(t, version, "tool version", &v) != 0) {
        free(n);
        return -1;
    }
    size_t len = strlen(n) + strlen(v) + 2;
    if ((*out = malloc(len)))
        snprintf(*out, len, "%s %s", n, v);
    free(n);
    free(v);
    return *out ? 0 : fail(t, "out of memory");
}

int rawtext_process_id(rawtext *t, const char *f, const char *what, int64_t *out)
{
    uint64_t v;
    if (rawtext_bounded(t, f, what, INT64_MAX, &v) != 0)
        return -1;
    *out = (int64_t)v;
    return 0;
}

int rawtext_push_string(rawtext *t, const char *f, const char *what, char ***arr, int *n, size_t *cap)
{
    /* One slot more than the strings, for the terminating NULL. */
    char **a = array_grow(*arr, (size_t)*n + 1, cap, sizeof *a);
    if (!a)
        return fail(t, "out of memory");
    *arr = a;
    a[*n] = NULL; /* freeable if decoding fails */
    if (rawtext_string(t, f, what, &a[*n]) != 0)
        return -1;
    a[++*n] = NULL;
    return 0;
}

int rawtext_name(rawtext *t, char **f, const char *kind, char ***names, int *n, size_t *cap)
{
    if (rawtext_dense_id(t, f[1], kind, *n) != 0)
        return -1;
    return rawtext_push_string(t, f[2], kind, names, n, cap);
}

int rawtext_each_line(rawtext *t, char *buf, size_t body_len, int (*line_fn)(void *ctx, char *line), void *ctx)
{
    t->lineno = 1;
    for (char *line = buf; line < buf + body_len; t->lineno++) {
        char *nl = memchr(line, '\n', (size_t)(buf + body_len - line));
        *nl = '\0'; /* rawtext_open saw the newline of every line before the end */
        int rc = line_fn(ctx, line);
        if (rc != 0)
            return rc;
        line = nl + 1;
    }
    return 0;
}

int rawtext_split(rawtext *t, char *line, char **fields, int max, int *nf)
{
    int n = 0;
    for (char *s = line;; s++) {
        char *start = s;
        while (*s && *s != ' ')
            s++;
        if (s == start)
            return fail(t, "empty field (fields are separated by exactly one space, with none at either end "
                           "of the line)");
        if (n == max)
            return fail(t, "too many fields (more than %d)", max);
        fields[n++] = start;
        if (!*s)
            break;
        *s = '\0';
    }
    *nf = n;
    return 0;
}

/* ---- the order of lines ---------------------------------------------------- */

static const rawtext_kw *kw_at(const rawtext_order *o, size_t k)
{
    return (const rawtext_kw *)((const char *)o->table + k * o->stride);
}

int rawtext_required_before(rawtext *t, const rawtext_order *o, int rank, const char *what)
{
    for (size_t k = 0; k < o->n; k++) {
        const rawtext_kw *kw = kw_at(o, k);
        if (kw->required && kw->rank < rank && !(o->seen & (1ull << k)))
            return rawtext_fail(t, t->lineno, "no '%s' line before %s (lines must come in the order of %s)",
                                kw->name, what, o->doc);
    }
    return 0;
}

/* Check the place in the file of a line of keyword k, and record it. */
static int check_order(rawtext *t, rawtext_order *o, size_t k)
{
    const rawtext_kw *kw = kw_at(o, k);
    char what[64];
    if (kw->rank < o->rank)
        return rawtext_fail(t, t->lineno, "'%s' line after a '%s' line (lines must come in the order of %s)",
                            kw->name, o->prev, o->doc);
    if (kw->once && (o->seen & (1ull << k)))
        return rawtext_fail(t, t->lineno, "a second '%s' line", kw->name);
    snprintf(what, sizeof what, "this '%s' line", kw->name);
    if (rawtext_required_before(t, o, kw->rank, what) != 0)
        return -1;
    o->seen |= 1ull << k;
    o->rank = kw->rank;
    o->prev = kw->name;
    return 0;
}

int rawtext_keyword(rawtext *t, rawtext_order *o, char **fields, int nf, size_t *k)
{
    for (*k = 0; *k < o->n; (*k)++) {
        const rawtext_kw *kw = kw_at(o, *k);
        if (strcmp(fields[0], kw->name) != 0)
            continue;
        if (check_order(t, o, *k) != 0)
            return -1;
        if (kw->nfields >= 0 && nf - 1 != kw->nfields)
            return rawtext_fail(t, t->lineno, "'%s' line with %d fields, expected %d", kw->name, nf - 1,
                                kw->nfields);
        return 0;
    }
    char buf[48];
    return rawtext_fail(t, t->lineno, "unknown keyword '%s'", rawtext_shown(fields[0], buf, sizeof buf));
}

/* ---- framing --------------------------------------------------------------- */

/* The first line must be "MAGIC VERSION"; checked before anything else
 * so that another file, or another version, is named as such. */
static int check_magic(rawtext *t, const char *buf, size_t len)
{
    const size_t mlen = strlen(t->magic);
    t->lineno = 1;
    if (len == 0)
        return rawtext_fail(t, 0, "empty file: the %s is truncated (%s)", t->kind, t->hint);
    if (len <= mlen || memcmp(buf, t->magic, mlen) != 0 || buf[mlen] != ' ')
        return fail(t, "not an augur %s (the first line is not '%s %d')", t->kind, t->magic, t->version);
    char version[24];
    size_t n = 0;
    while (mlen + 1 + n < len && buf[mlen + 1 + n] != '\n' && n + 1 < sizeof version) {
        version[n] = buf[mlen + 1 + n];
        n++;
    }
    version[n] = '\0';
    return rawtext_version(t, version);
}

static uLong crc_of(const char *buf, size_t len)
{
    uLong crc = crc32(0L, (const Bytef *)buf, 0);
    for (size_t off = 0; off < len;) { /* crc32() takes at most UINT_MAX bytes at once */
        size_t chunk = len - off > (1u << 30) ? (1u << 30) : len - off;
        crc = crc32(crc, (const Bytef *)buf + off, (uInt)chunk);
        off += chunk;
    }
    return crc;
}

/* Check the end line found at buf + pos (line number t->lineno). */
static int check_end_line(rawtext *t, const char *buf, size_t len, size_t pos)
{
    const char *nl = memchr(buf + pos, '\n', len - pos);
    if (!nl)
        return fail(t, "truncated: the 'end' line is incomplete (no newline)");
    size_t tail = len - (size_t)(nl - buf) - 1;
    if (tail)
        return fail(t, "%zu bytes after the 'end' line: the file is corrupt", tail);
    char end[64], *fields[4];
    size_t n = (size_t)(nl - (buf + pos));
    if (n >= sizeof end)
        return fail(t, "malformed 'end' line (expected: end LINES CRC)");
    memcpy(end, buf + pos, n);
    end[n] = '\0';
    int nf = 0;
    uint64_t lines, crc;
    if (rawtext_split(t, end, fields, 4, &nf) != 0)
        return -1;
    if (nf != 3 || parse_u64(fields[1], &lines) != 0 || parse_hex_u64(fields[2], &crc) != 0)
        return fail(t, "malformed 'end' line (expected: end LINES CRC-hex)");
    if (lines != t->lineno - 1)
        return fail(t, "the 'end' line counts %llu lines but %zu precede it: the file is corrupt",
                    (unsigned long long)lines, t->lineno - 1);
    uLong actual = crc_of(buf, pos);
    if (crc != actual)
        return fail(t, "checksum mismatch (the 'end' line says %llx, the content's CRC-32 is %lx): the file is corrupt",
                    (unsigned long long)crc, (unsigned long)actual);
    return 0;
}

/* Find the end line and check it; *body_len receives its offset. */
static int check_end(rawtext *t, const char *buf, size_t len, size_t *body_len)
{
    size_t line = 1, pos = 0;
    while (pos < len && !(len - pos >= 3 && memcmp(buf + pos, "end", 3) == 0 &&
                          (len - pos == 3 || buf[pos + 3] == ' ' || buf[pos + 3] == '\n'))) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        if (!nl)
            return rawtext_fail(t, line, "truncated: the last line is incomplete and there is no 'end' line (%s)",
                                t->hint);
        pos = (size_t)(nl - buf) + 1;
        line++;
    }
    if (pos == len)
        return rawtext_fail(t, 0, "truncated: no 'end' line after line %zu (%s)", line - 1, t->hint);
    t->lineno = line;
    if (check_end_line(t, buf, len, pos) != 0)
        return -1;
    *body_len = pos;
    return 0;
}

/* The error for a file past RAWTEXT_MAX_BYTES; returns -1. */
static int too_large(rawtext *t)
{
    return rawtext_fail(t, 0, "larger than %llu bytes (4 GiB), the most a raw %s may have: it is not one, or it is "
                        "damaged (%s)", (unsigned long long)RAWTEXT_MAX_BYTES, t->kind, t->redo);
}

/* Refuse what cannot be a raw file before reading it: a device or socket
 * (/dev/zero was read until memory ran out) and a regular file larger than
 * RAWTEXT_MAX_BYTES.  A FIFO is read, up to the limit. */
static int check_kind(rawtext *t, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(t->err, t->errlen, "cannot read %s: %s", t->path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
        const char *what = S_ISDIR(st.st_mode) ? "folder" : S_ISSOCK(st.st_mode) ? "socket" : "device";
        return rawtext_fail(t, 0, "not a regular file (a %s; give the path of a raw %s file)", what, t->kind);
    }
    return S_ISREG(st.st_mode) && (uint64_t)st.st_size > RAWTEXT_MAX_BYTES ? too_large(t) : 0;
}

/* Read the whole file (at most RAWTEXT_MAX_BYTES) into a NUL-terminated
 * buffer. */
static int load(rawtext *t, char **buf, size_t *len)
{
    FILE *fp = fopen(t->path, "rb");
    if (!fp) {
        snprintf(t->err, t->errlen, "cannot open %s: %s", t->path, strerror(errno));
        return -1;
    }
    if (check_kind(t, fileno(fp)) != 0) {
        fclose(fp);
        return -1;
    }
    /* at most one byte more than the limit is read (a FIFO has no size) */
    const size_t most = RAWTEXT_MAX_BYTES + 2; /* the byte past the limit, and the NUL */
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    while (b) {
        n += fread(b + n, 1, cap - n - 1, fp);
        if (n < cap - 1 || cap == most)
            break;
        size_t grown = cap * 2 < most ? cap * 2 : most;
        char *nb = realloc(b, grown);
        if (!nb)
            free(b);
        b = nb;
        cap = grown;
    }
    int read_errno = ferror(fp) ? errno : 0;
    fclose(fp);
    if (!b)
        return rawtext_fail(t, 0, "out of memory");
    if (read_errno || n > RAWTEXT_MAX_BYTES) {
        free(b);
        if (!read_errno)
            return too_large(t);
        snprintf(t->err, t->errlen, "cannot read %s: %s", t->path, strerror(read_errno));
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

/* A NUL byte in the body would end its line early, unseen: refuse it. */
static int check_no_nul(rawtext *t, const char *buf, size_t body_len)
{
    const char *nul = memchr(buf, '\0', body_len);
    if (!nul)
        return 0;
    size_t line = 1;
    const char *start = buf;
    for (const char *p = buf; p < nul; p++)
        if (*p == '\n')
            line++, start = p + 1;
    return rawtext_fail(t, line, "a NUL byte at byte %zu of the line: the file is corrupt (%s)",
                        (size_t)(nul - start) + 1, t->redo);
}

int rawtext_open(rawtext *t, char **buf, size_t *body_len)
{
    size_t len = 0;
    *buf = NULL;
    if (load(t, buf, &len) != 0)
        return -1;
    if (check_magic(t, *buf, len) != 0 || check_end(t, *buf, len, body_len) != 0 ||
        check_no_nul(t, *buf, *body_len) != 0) {
        free(*buf);
        *buf = NULL;
        return -1;
    }
    return 0;
}

int rawtext_read(const rawtext *t, const rawtext_reader *how, void *out, size_t out_size)
{
    memset(out, 0, out_size);
    rawtext *r = calloc(1, how->size); /* the reader, which starts with its rawtext */
    if (!r) {
        rawtext copy = *t;
        return rawtext_fail(&copy, 0, "out of memory");
    }
    *r = *t;
    how->setup(r, out);
    char *buf = NULL;
    size_t body_len = 0;
    int rc = rawtext_open(r, &buf, &body_len);
    if (rc == 0)
        rc = how->parse(r, buf, body_len);
    free(buf);
    free(r);
    if (rc != 0)
        how->free_out(out);
    return rc;
}
