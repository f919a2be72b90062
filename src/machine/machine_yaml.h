/* machine_yaml.h — reading fields of a parsed YAML document with errors
 * that name the file, line and field (internal to src/machine: the loader
 * machine_load.c and the checks of machine_check.c use it).
 *
 * A field is addressed by its mapping node and key; FIELD in messages is
 * the dotted path of the mapping (`where`, e.g. "caches[1]") and the key. */
#ifndef AUGUR_MACHINE_YAML_H
#define AUGUR_MACHINE_YAML_H

#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

/* The document being read and where the first error goes. */
typedef struct my_doc {
    yaml_document_t *doc;
    const char *path;
    char *err;
    size_t errlen;
} my_doc;

/* Write "PATH:LINE: WHERE.KEY: MESSAGE" (WHERE. left out when where is
 * empty, .KEY when key is NULL) to d->err; LINE is that of KEY's value
 * when node is a mapping holding KEY, else node's first line (1-based).  Returns -1, so callers can `return my_error(...)`. */
__attribute__((format(printf, 5, 6))) int my_error(const my_doc *d, const yaml_node_t *node, const char *where,
                                                   const char *key, const char *fmt, ...);

/* Check that `map` is a mapping whose keys are all scalars in known[]
 * (NULL-terminated), each at most once.  -1 with the error otherwise. */
int my_check_keys(const my_doc *d, const yaml_node_t *map, const char *where, const char *const *known);

/* The value node of `key` in `map`, or NULL when the key is absent. */
yaml_node_t *my_get(const my_doc *d, const yaml_node_t *map, const char *key);

/* The value node of `key`, which must be present: -1 ("missing") else. */
int my_need(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, yaml_node_t **out);

/* The scalar text of `key` (required), non-empty. */
int my_string(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, const char **out);

/* A decimal number of `key` (util/parse.h parse_double: no hex, inf or
 * nan) in [min, max]; when `required` is 0 and the key is absent, *out is
 * left unchanged and 0 returned. */
int my_double(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, int required,
              double min, double max, double *out);

/* An unsigned integer of `key` in [min, max]; `required` as for my_double. */
int my_u32(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, int required,
           uint32_t min, uint32_t max, uint32_t *out);

/* A size in bytes of `key` (required): plain bytes or "32KiB", "1MiB",
 * "2GiB" (util/parse.h parse_size), in [min, max]. */
int my_size(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, uint64_t min, uint64_t max,
            uint64_t *out);

/* The node of a sequence item i, or NULL past the end. */
yaml_node_t *my_item(const my_doc *d, const yaml_node_t *seq, size_t i);

/* The number of items of a sequence node (0 for other kinds). */
size_t my_count(const yaml_node_t *seq);

/* The 1-based line of a node. */
unsigned long my_line(const yaml_node_t *node);

#endif
