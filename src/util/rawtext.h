/* rawtext.h — the framing and fields shared by augur's raw text files (the
 * collector's profile, docs/profile-format.md, and memspy's output,
 * docs/memspy-format.md): a first line "MAGIC VERSION", lines of fields
 * separated by one space, percent-encoded strings, and a closing line
 * "end LINES CRC-hex" over every byte before it.
 *
 * A reader fills a rawtext with what names its format, calls rawtext_open
 * to get the verified body, then per line rawtext_split, rawtext_keyword
 * (which line it is, and whether it may stand there) and the field
 * parsers.  Every failure writes "PATH: line N: problem (fix)" into t->err
 * and returns -1, so that callers can `return rawtext_...(...)`.
 */
#ifndef AUGUR_RAWTEXT_H
#define AUGUR_RAWTEXT_H

#include <stddef.h>
#include <stdint.h>

typedef struct rawtext {
    const char *path;
    const char *magic; /* "augur-profile" */
    int version;       /* the newest version this reader accepts */
    int oldest;        /* the oldest version it accepts; 0: only `version` */
    int found;         /* the file's version, once its first line is read */
    const char *kind;  /* "profile": used in "not an augur profile" */
    const char *hint;  /* why a file may be truncated */
    const char *redo;  /* how to get a good file: "collect the profile again" */
    char *err;
    size_t errlen;
    size_t lineno;     /* the line being parsed, from 1; 0 for none */
} rawtext;

/* Write "PATH: line N: message" (no line part when line is 0) into t->err;
 * returns -1. */
__attribute__((format(printf, 3, 4))) int rawtext_fail(rawtext *t, size_t line, const char *fmt, ...);

/* The largest raw file read, in bytes: a profile of a million distinct
 * instructions with two histograms each is a few hundred MB. */
#define RAWTEXT_MAX_BYTES (4ull << 30)

/* Read t->path whole and check its framing: a regular file (or a FIFO) of
 * at most RAWTEXT_MAX_BYTES, the magic line and version, the end line
 * closing the file, its line count and CRC-32, and no NUL byte before it.
 * Damage is so named (truncated, corrupt) rather than as whatever odd field
 * it made.
 * On success *buf (free() it) holds the file, NUL-terminated, and
 * *body_len is the offset of the end line; every line before it ends in
 * '\n'. */
int rawtext_open(rawtext *t, char **buf, size_t *body_len);

/* What rawtext_read needs of a reader: a struct of `size` bytes whose
 * first member is its rawtext. */
typedef struct rawtext_reader {
    size_t size;
    void (*setup)(void *reader, void *out);                 /* the members after the rawtext */
    int (*parse)(void *reader, char *buf, size_t body_len); /* the body rawtext_open returned */
    void (*free_out)(void *out);                            /* what parse left in out, on failure */
} rawtext_reader;

/* Read the file t->path into out (out_size bytes, zeroed first): allocate
 * a zeroed reader holding a copy of *t, how->setup it, rawtext_open, then
 * how->parse the body; free the file's buffer and the reader, and on
 * failure how->free_out(out).  Returns 0, or -1 with t->err written. */
int rawtext_read(const rawtext *t, const rawtext_reader *how, void *out, size_t out_size);

/* Call line_fn(ctx, line) for every line of the body buf[0..body_len)
 * that rawtext_open returned, in order, each NUL-terminated in place, with
 * t->lineno its line number; stops at the first that returns non-zero and
 * returns that. */
int rawtext_each_line(rawtext *t, char *buf, size_t body_len, int (*line_fn)(void *ctx, char *line), void *ctx);

/* Split a NUL-terminated line in place into at most max fields at single
 * spaces; an empty field or more than max fields is an error. */
int rawtext_split(rawtext *t, char *line, char **fields, int max, int *nf);

/* ---- the order of lines ---------------------------------------------------- */

/* A keyword of a format.  A reader's table of keywords is an array of its
 * own structs, each starting with a rawtext_kw (the parsers follow it). */
typedef struct rawtext_kw {
    const char *name;
    int rank;     /* the section of the file: ranks never decrease */
    int once;     /* at most one such line */
    int required; /* at least one such line */
    int nfields;  /* fields after the keyword, or -1 when the parser checks */
} rawtext_kw;

/* The reader's keyword table and what the lines so far have shown. */
typedef struct rawtext_order {
    const void *table;  /* n structs of `stride` bytes, each starting with a rawtext_kw */
    size_t n, stride;   /* n <= 64 */
    const char *doc;    /* the format's document, for messages */
    uint64_t seen;      /* bit k: a line of keyword k was seen */
    int rank;           /* of the previous line */
    const char *prev;   /* its keyword ("" before the first) */
} rawtext_order;

/* Which keyword the split line fields[0..nf) is: its index in o->table in
 * *k.  An error (and no index) when the keyword is unknown, comes after a
 * line of a later section, repeats a once-only keyword, comes before a
 * required line of an earlier section, or has other than its nfields. */
int rawtext_keyword(rawtext *t, rawtext_order *o, char **fields, int nf, size_t *k);

/* An error unless every required keyword of a rank below `rank` was seen;
 * `what` names the line that needs them ("the 'end' line"). */
int rawtext_required_before(rawtext *t, const rawtext_order *o, int rank, const char *what);

/* The most any count of a raw file, and any sum of one kind of count over
 * the file, may be: what SQLite's INTEGER and JSON's integers (jansson)
 * hold, and 292 years of events at 10^9 a second.  Larger sums wrapped
 * silently in the reports. */
#define RAWTEXT_MAX_COUNT ((uint64_t)INT64_MAX)

/* Add x to *total, the file's sum of `what` ("instructions' EXECS"), which
 * must stay within RAWTEXT_MAX_COUNT; an error at the current line else. */
int rawtext_add_count(rawtext *t, uint64_t *total, uint64_t x, const char *what);

/* Field parsers: `what` names the field in messages. */
int rawtext_u64(rawtext *t, const char *f, const char *what, uint64_t *out);
int rawtext_i64(rawtext *t, const char *f, const char *what, int64_t *out);
int rawtext_hex(rawtext *t, const char *f, const char *what, uint64_t *out);
int rawtext_bounded(rawtext *t, const char *f, const char *what, uint64_t max, uint64_t *out);
/* A format version number from t->oldest (or t->version) to t->version,
 * kept in t->found. */
int rawtext_version(rawtext *t, const char *f);
/* An identifier: -1 (unknown, when allowed) or one of the `defined` ids
 * defined so far by `kind` lines. */
int rawtext_id(rawtext *t, const char *f, const char *kind, int defined, int allow_unknown, int32_t *out);
/* The id of a definition line, which must be the count of earlier ones. */
int rawtext_dense_id(rawtext *t, const char *f, const char *kind, int defined);
/* A percent-encoded string ("-" for empty) decoded into a new string. */
int rawtext_string(rawtext *t, const char *f, const char *what, char **out);
/* The fields NAME VERSION of a `tool` line as one new string "NAME VERSION". */
int rawtext_tool(rawtext *t, const char *name, const char *version, char **out);
/* A process id: a decimal number that fits an int64_t. */
int rawtext_process_id(rawtext *t, const char *f, const char *what, int64_t *out);
/* Decode string f onto the end of the array *arr of *n strings (capacity
 * *cap, grown by array_grow), which stays NULL-terminated. */
int rawtext_push_string(rawtext *t, const char *f, const char *what, char ***arr, int *n, size_t *cap);
/* A name-table line "KIND ID STRING" (fields f[1], f[2]): ID must be *n,
 * and the string is pushed onto *names. */
int rawtext_name(rawtext *t, char **f, const char *kind, char ***names, int *n, size_t *cap);

/* A field made printable for a message: at most 40 bytes, bytes other
 * than printable ASCII shown as '?'. */
const char *rawtext_shown(const char *field, char *buf, size_t len);

#endif
