/* profile_writer.h — writes raw profiles (docs/profile-format.md).
 *
 * Freestanding (only <stdint.h>/<stddef.h>): the Valgrind tool writes
 * profiles with it, and native tests use it to write profiles that the host
 * reader must accept.  The writer formats fields, percent-encodes strings,
 * buffers output, and keeps the running line count and CRC-32 that the
 * closing `end` line carries.
 */
#ifndef AUGUR_PROFILE_WRITER_H
#define AUGUR_PROFILE_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* The format version the collector writes, and the oldest one readers
 * still take (version 1 has no `call` lines, versions 1 and 2 no `stride`
 * lines, versions 1 to 3 no regions or intervals, versions 1 to 4 no
 * `sample-rd` line, versions before 6 no MPI lines, versions before 7 no
 * 2-adic classes on `stride` lines, versions before 8 no set-local
 * histograms). */
#define PROFILE_VERSION 8
#define PROFILE_OLDEST_VERSION 1

/* The 2-adic classes of an instruction's address deltas that `stride` lines
 * count (version 7): class k holds the deltas whose largest power-of-two
 * divisor is 2^(PROFILE_POW2_FIRST + k) bytes, the last class also every
 * larger one.  A delta of 2^v bytes, v above a line's 2^l, keeps a walk in
 * S / 2^(v - l) of S sets (at most 1 set from v = l + log2 S): 2^7 is the
 * first that narrows 64-byte lines, 2^22 puts them in one of 65536 sets. */
#define PROFILE_POW2_FIRST 7
#define PROFILE_POW2_CLASSES 16

/* Receives formatted bytes; returns 0 on success, nonzero on a write error
 * (which the writer remembers and reports from pw_finish). */
typedef int (*pw_sink)(void *ctx, const char *buf, size_t n);

typedef struct profile_writer {
    pw_sink sink;
    void *ctx;
    uint32_t crc;   /* CRC-32 state (pre-inverted) of the bytes so far */
    uint64_t lines; /* completed lines so far */
    int failed;     /* a sink call failed */
    int at_line_start;
    size_t used;
    char buf[8192];
} profile_writer;

void pw_init(profile_writer *w, pw_sink sink, void *ctx);

/* Start a line with its keyword, then add fields; pw_eol ends the line. */
void pw_key(profile_writer *w, const char *keyword);
void pw_u64(profile_writer *w, uint64_t v);
void pw_i64(profile_writer *w, int64_t v);
void pw_hex(profile_writer *w, uint64_t v);
void pw_str(profile_writer *w, const char *s); /* percent-encoded */
void pw_eol(profile_writer *w);

/* Write the `end` line and flush.  Returns 0 if every byte reached the sink. */
int pw_finish(profile_writer *w);

/* CRC-32 (zlib's polynomial) update: crc32_update(0, buf, n) equals zlib's
 * crc32(0, buf, n), and chaining calls equals one call over the whole. */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t n);

#endif
