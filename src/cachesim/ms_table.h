/* ms_table.h — a growing open-addressing hash table of fixed-size records
 * keyed by a block number: memsim's "seen before" sets, each record holding
 * what the simulator keeps per line (fill tags, coherence state).
 *
 * Freestanding (stdint/stddef and rd/rd.h only).  Records are never
 * removed: a line once seen stays seen.  Every record type starts with a
 * uint64_t block; its size is a multiple of 8 bytes.  UINT64_MAX is the
 * empty key, never a block number (blocks are addresses shifted right by
 * at least 3 bits). */
#ifndef AUGUR_MS_TABLE_H
#define AUGUR_MS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "rd/rd.h"

typedef struct ms_table {
    const rd_allocator *a;
    uint64_t *slots;  /* cap records of `words` 64-bit words each */
    uint32_t words;   /* record size / 8 */
    unsigned shift;   /* 64 - log2(cap), for the multiplicative hash */
    uint64_t cap;     /* power of two */
    uint64_t used;    /* records stored; kept <= cap / 2 */
} ms_table;

/* Set t to an empty table of `record_bytes`-byte records (a multiple of 8,
 * first field the uint64_t block). */
void ms_table_init(ms_table *t, size_t record_bytes, const rd_allocator *a);

/* The record of `block`, or NULL if it was never added. */
void *ms_table_find(const ms_table *t, uint64_t block);

/* The record of `block`, added (all fields but block zero) if absent, in
 * which case *created is set to 1 (else 0).  Adding may move every record:
 * pointers from earlier calls are valid only until the next ms_table_get. */
void *ms_table_get(ms_table *t, uint64_t block, int *created);

/* Release the table's memory (t itself is the caller's). */
void ms_table_free(ms_table *t);

#endif
