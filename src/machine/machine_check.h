/* machine_check.h — the contradictions between fields of a machine
 * description that machine_load.c refuses (internal to src/machine).
 * Each returns 0, or -1 with "PATH:LINE: FIELD: problem (fix)" in d->err,
 * LINE that of `node`, the mapping that holds the fields. */
#ifndef AUGUR_MACHINE_CHECK_H
#define AUGUR_MACHINE_CHECK_H

#include "machine/machine.h"
#include "machine/machine_yaml.h"

/* rthroughput_cycles at least 1/nports: no class issues more than one
 * instruction per port per cycle; the class's vector_bits (if given) no
 * wider than the core's, core_bits. */
int machine_check_class(const my_doc *d, const yaml_node_t *node, const char *where, const machine_class *c,
                        uint32_t core_bits);

/* line_bytes a power of two; size = slices * line * ways * 2^k (each
 * slice a power-of-two number of sets). */
int machine_check_cache(const my_doc *d, const yaml_node_t *node, const char *where, const machine_cache *c);

/* A level larger than the one above it, with a line no shorter. */
int machine_check_levels(const my_doc *d, const yaml_node_t *node, const char *where, const machine_cache *above,
                         const machine_cache *c);

/* page_size a power of two; entries a multiple of ways. */
int machine_check_tlb(const my_doc *d, const yaml_node_t *node, const char *where, const machine_tlb *t);

/* One core's bandwidth at most that of all cores. */
int machine_check_memory(const my_doc *d, const yaml_node_t *node, const machine *m);

/* Each cache shared by no more than `cores` cores, and by no fewer than
 * the level above it. */
int machine_check_sharing(const my_doc *d, const yaml_node_t *root, const machine *m);

#endif
