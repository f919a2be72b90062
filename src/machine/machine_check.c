/* machine_check.c — refusing machine descriptions whose fields contradict
 * each other (machine_check.h); the field-by-field checks are
 * machine_load.c's. */
#include "machine/machine_check.h"

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

int machine_check_class(const my_doc *d, const yaml_node_t *node, const char *where, const machine_class *c,
                        uint32_t core_bits)
{
    if (c->vector_bits > core_bits)
        return my_error(d, node, where, "vector_bits",
                        "%u is wider than core.vector_bits %u (a class's unit is at most the datapath; "
                        "lower it or leave it out)",
                        c->vector_bits, core_bits);
    /* a small tolerance, so that 0.33 passes for three ports */
    if (c->rthroughput * c->nports < 0.99 - 1e-9)
        return my_error(d, node, where, "rthroughput_cycles",
                        "%g is below 1/%u, more than one instruction per port per cycle "
                        "(raise it to at least %.3g or list more ports)",
                        c->rthroughput, c->nports, 1.0 / c->nports);
    return 0;
}

int machine_check_cache(const my_doc *d, const yaml_node_t *node, const char *where, const machine_cache *c)
{
    if (!is_pow2(c->line))
        return my_error(d, node, where, "line_bytes", "%u is not a power of two (write e.g. 64)", c->line);
    uint64_t slice_way_bytes = (uint64_t)c->line * c->ways * c->slices;
    if (c->size % slice_way_bytes || !is_pow2(c->size / slice_way_bytes))
        return my_error(d, node, where, "size",
                        "%llu bytes is not slices * line_bytes * ways * 2^k = %u * %u * %u * 2^k "
                        "(correct size, ways or slices; a cache slice has a power-of-two number of sets)",
                        (unsigned long long)c->size, c->slices, c->line, c->ways);
    return 0;
}

int machine_check_levels(const my_doc *d, const yaml_node_t *node, const char *where, const machine_cache *above,
                         const machine_cache *c)
{
    if (c->size <= above->size)
        return my_error(d, node, where, "size",
                        "%llu bytes is not larger than the level above (%s, %llu bytes) "
                        "(list the levels closest to the core first)",
                        (unsigned long long)c->size, above->name, (unsigned long long)above->size);
    if (c->line < above->line)
        return my_error(d, node, where, "line_bytes", "%u is shorter than the level above (%s, %u) (correct it)",
                        c->line, above->name, above->line);
    return 0;
}

int machine_check_tlb(const my_doc *d, const yaml_node_t *node, const char *where, const machine_tlb *t)
{
    if (!is_pow2(t->page_size))
        return my_error(d, node, where, "page_size", "%llu is not a power of two (write e.g. 4KiB or 2MiB)",
                        (unsigned long long)t->page_size);
    if (t->entries % t->ways)
        return my_error(d, node, where, "ways",
                        "%u does not divide entries (%u) (for a fully-associative TLB write ways = entries)",
                        t->ways, t->entries);
    return 0;
}

int machine_check_memory(const my_doc *d, const yaml_node_t *node, const machine *m)
{
    if (m->mem_bandwidth_core_gbs > m->mem_bandwidth_gbs)
        return my_error(d, node, "memory", "bandwidth_core_gbs",
                        "%g is more than bandwidth_gbs (%g), what all cores reach together (correct one of them)",
                        m->mem_bandwidth_core_gbs, m->mem_bandwidth_gbs);
    return 0;
}

int machine_check_sharing(const my_doc *d, const yaml_node_t *root, const machine *m)
{
    yaml_node_t *seq = my_get(d, root, "caches");
    for (uint32_t i = 0; i < m->ncaches; i++) {
        char where[32];
        snprintf(where, sizeof where, "caches[%u]", i);
        const machine_cache *c = &m->cache[i];
        if (c->shared_by > m->cores)
            return my_error(d, my_item(d, seq, i), where, "shared_by_cores",
                            "%u is more than the machine's cores (%u) (correct it or cores)", c->shared_by,
                            m->cores);
        if (i > 0 && c->shared_by < m->cache[i - 1].shared_by)
            return my_error(d, my_item(d, seq, i), where, "shared_by_cores",
                            "%u is fewer than the level above (%u) (a lower level is shared at least as widely)",
                            c->shared_by, m->cache[i - 1].shared_by);
    }
    return 0;
}
