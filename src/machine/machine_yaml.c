/* machine_yaml.c — typed, validated access to the fields of a parsed YAML
 * document, every error naming file, line and field (machine_yaml.h). */
#include "machine/machine_yaml.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/parse.h"

unsigned long my_line(const yaml_node_t *node)
{
    return (unsigned long)node->start_mark.line + 1;
}

int my_error(const my_doc *d, const yaml_node_t *node, const char *where, const char *key, const char *fmt, ...)
{
    const yaml_node_t *value = node && key ? my_get(d, node, key) : NULL;
    if (value)
        node = value; /* the line of the field itself, when it is there */
    int n = snprintf(d->err, d->errlen, "%s:%lu: %s%s%s%s", d->path, node ? my_line(node) : 1UL, where,
                     *where && key ? "." : "", key ? key : "", *where || key ? ": " : "");
    if (n < 0 || (size_t)n >= d->errlen)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->err + n, d->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The text of a scalar node (NULL for other kinds). */
static const char *scalar(const yaml_node_t *node)
{
    return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static int is_known(const char *key, const char *const *known)
{
    for (; *known; known++)
        if (!strcmp(key, *known))
            return 1;
    return 0;
}

int my_check_keys(const my_doc *d, const yaml_node_t *map, const char *where, const char *const *known)
{
    if (map->type != YAML_MAPPING_NODE)
        return my_error(d, map, where, NULL, "expected a mapping of fields (write KEY: VALUE lines under it)");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d->doc, p->key);
        const char *key = scalar(k);
        if (!key)
            return my_error(d, k, where, NULL, "a key is not plain text (write KEY: VALUE)");
        if (!is_known(key, known))
            return my_error(d, k, where, key, "unknown field (remove it or correct its spelling)");
        for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++)
            if (!strcmp(scalar(yaml_document_get_node(d->doc, q->key)) ?: "", key))
                return my_error(d, k, where, key, "duplicated field, first given on line %lu (keep one)",
                                my_line(yaml_document_get_node(d->doc, q->key)));
    }
    return 0;
}

yaml_node_t *my_get(const my_doc *d, const yaml_node_t *map, const char *key)
{
    if (map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
        const char *k = scalar(yaml_document_get_node(d->doc, p->key));
        if (k && !strcmp(k, key))
            return yaml_document_get_node(d->doc, p->value);
    }
    return NULL;
}

int my_need(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, yaml_node_t **out)
{
    *out = my_get(d, map, key);
    if (!*out)
        return my_error(d, map, where, key, "missing (add the field; docs/machines.md lists them)");
    return 0;
}

int my_string(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, const char **out)
{
    yaml_node_t *v;
    if (my_need(d, map, where, key, &v) != 0)
        return -1;
    if (!scalar(v) || !*scalar(v))
        return my_error(d, v, where, key, "expected text (write it after the colon)");
    *out = scalar(v);
    return 0;
}

/* The value node of an optional or required key: 1 when present, 0 when
 * absent and optional, -1 when absent and required. */
static int lookup(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, int required,
                  yaml_node_t **v)
{
    *v = my_get(d, map, key);
    if (*v)
        return 1;
    return required ? my_need(d, map, where, key, v) : 0;
}

int my_double(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, int required,
              double min, double max, double *out)
{
    yaml_node_t *v;
    int found = lookup(d, map, where, key, required, &v);
    if (found <= 0)
        return found;
    const char *s = scalar(v);
    double x;
    if (!s || parse_double(s, &x) != 0)
        return my_error(d, v, where, key, "'%s' is not a decimal number (write e.g. 4, 0.5 or 1e-3)", s ? s : "");
    if (x < min || x > max)
        return my_error(d, v, where, key, "%g is out of range: the limit is %g to %g (docs/machines.md, "
                        "\"Limits\"; correct the value)", x, min, max);
    *out = x;
    return 0;
}

int my_u32(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, int required,
           uint32_t min, uint32_t max, uint32_t *out)
{
    yaml_node_t *v;
    int found = lookup(d, map, where, key, required, &v);
    if (found <= 0)
        return found;
    const char *s = scalar(v);
    uint64_t x;
    if (!s || parse_u64(s, &x) != 0)
        return my_error(d, v, where, key, "'%s' is not a whole number (write e.g. 8)", s ? s : "");
    if (x < min || x > max)
        return my_error(d, v, where, key, "%llu is out of range: the limit is %u to %u (docs/machines.md, "
                        "\"Limits\"; correct the value)", (unsigned long long)x, min, max);
    *out = (uint32_t)x;
    return 0;
}

/* A size as the file writes it: "1GiB", "4KiB" when a multiple, else bytes. */
static const char *size_text(uint64_t x, char *buf, size_t len)
{
    static const char *const units[] = {"GiB", "MiB", "KiB"};
    for (int i = 0; i < 3; i++) {
        unsigned shift = 30u - 10u * (unsigned)i;
        if (x && x % (1ull << shift) == 0) {
            snprintf(buf, len, "%llu%s", (unsigned long long)(x >> shift), units[i]);
            return buf;
        }
    }
    snprintf(buf, len, "%llu", (unsigned long long)x);
    return buf;
}

int my_size(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, uint64_t min, uint64_t max,
            uint64_t *out)
{
    yaml_node_t *v;
    if (my_need(d, map, where, key, &v) != 0)
        return -1;
    const char *s = scalar(v);
    uint64_t x;
    if (!s || parse_size(s, &x) != 0)
        return my_error(d, v, where, key, "'%s' is not a size (write bytes, or e.g. 32KiB, 1MiB, 2GiB)",
                        s ? s : "");
    char lo[32], hi[32];
    if (x < min || x > max)
        return my_error(d, v, where, key, "%s is out of range: the limit is %s to %s (docs/machines.md, "
                        "\"Limits\"; correct the size)", s, size_text(min, lo, sizeof lo), size_text(max, hi, sizeof hi));
    *out = x;
    return 0;
}

yaml_node_t *my_item(const my_doc *d, const yaml_node_t *seq, size_t i)
{
    if (seq->type != YAML_SEQUENCE_NODE || i >= my_count(seq))
        return NULL;
    return yaml_document_get_node(d->doc, seq->data.sequence.items.start[i]);
}

size_t my_count(const yaml_node_t *seq)
{
    if (seq->type != YAML_SEQUENCE_NODE)
        return 0;
    return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}
