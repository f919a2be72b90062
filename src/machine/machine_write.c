/* machine_write.c — a machine written in the YAML format machine_load reads
 * (docs/machines.md), for `augur machine detect` and `calibrate`.  Numbers
 * are written so that they read back exactly. */
#include "machine/machine.h"

#include <stdlib.h>
#include <string.h>

/* s as a double-quoted YAML scalar (escaping quotes, backslashes and
 * control characters). */
static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\x%02x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* The shortest of %.15g / %.17g that reads back as x. */
static void put_number(FILE *out, double x)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, sizeof buf, "%.17g", x);
    fputs(buf, out);
}

/* Each line of `comment` as a "# " line. */
static void put_comment(FILE *out, const char *comment)
{
    while (comment && *comment) {
        size_t n = strcspn(comment, "\n");
        fprintf(out, "# %.*s\n", (int)n, comment);
        comment += n + (comment[n] == '\n');
    }
}

/* A flow list of port names: ports idx[0..n) of m, or its first n when idx
 * is NULL. */
static void put_ports(FILE *out, const machine *m, const uint8_t *idx, uint32_t n)
{
    fputc('[', out);
    for (uint32_t p = 0; p < n; p++) {
        fputs(p ? ", " : "", out);
        put_string(out, m->port_names[idx ? idx[p] : p]);
    }
    fputc(']', out);
}

static void put_class(FILE *out, const machine *m, int i)
{
    const machine_class *c = &m->cls[i];
    fprintf(out, "    %s: {ports: ", machine_class_name(i));
    put_ports(out, m, c->ports, c->nports);
    fputs(", latency_cycles: ", out);
    put_number(out, c->latency);
    fputs(", rthroughput_cycles: ", out);
    put_number(out, c->rthroughput);
    fputs(", uops: ", out);
    put_number(out, c->uops);
    if (c->vector_bits)
        fprintf(out, ", vector_bits: %u", c->vector_bits);
    fputs("}\n", out);
}

static void put_core(FILE *out, const machine *m)
{
    fputs("core:\n  clock_ghz: ", out);
    put_number(out, m->clock_ghz);
    fprintf(out, "\n  issue_width: %u\n  vector_bits: %u\n  max_outstanding_misses: %u\n  branch_mispredict_cycles: ",
            m->issue_width, m->vector_bits, m->max_outstanding_misses);
    put_number(out, m->branch_mispredict_cycles);
    if (m->page_walkers)
        fprintf(out, "\n  page_walkers: %u", m->page_walkers);
    if (m->reorder_buffer)
        fprintf(out, "\n  reorder_buffer: %u", m->reorder_buffer);
    if (m->throughput_share > 0 && m->throughput_share < 1) {
        fputs("\n  throughput_share: ", out);
        put_number(out, m->throughput_share);
    }
    fputs("\n  store_forward_cycles: ", out);
    put_number(out, m->store_forward_cycles);
    fputs("\n  ports: ", out);
    put_ports(out, m, NULL, m->nports);
    fputs("\n  classes:\n", out);
    for (int i = 1; i < MACHINE_NCLASSES; i++)
        put_class(out, m, i);
}

static void put_cache(FILE *out, const machine_cache *c)
{
    static const char *const policy[] = {"inclusive", "non-inclusive", "victim"};
    fputs("  - name: ", out);
    put_string(out, c->name);
    fprintf(out, "\n    size: %llu\n    line_bytes: %u\n    ways: %u\n", (unsigned long long)c->size, c->line,
            c->ways);
    if (c->slices > 1)
        fprintf(out, "    slices: %u\n", c->slices);
    fputs("    latency_cycles: ", out);
    put_number(out, c->latency);
    fputs("\n    bandwidth_bytes_per_cycle: ", out);
    put_number(out, c->bandwidth);
    fprintf(out, "\n    shared_by_cores: %u\n    policy: %s\n", c->shared_by,
            policy[c->policy <= MACHINE_VICTIM ? c->policy : 0]);
}

static void put_tlb(FILE *out, const machine_tlb *t)
{
    fputs("  - {name: ", out);
    put_string(out, t->name);
    fprintf(out, ", level: %u, page_size: %llu, entries: %u, ways: %u, miss_latency_cycles: ", t->level,
            (unsigned long long)t->page_size, t->entries, t->ways);
    put_number(out, t->miss_latency);
    fputs("}\n", out);
}

static void put_memory(FILE *out, const machine *m)
{
    fputs("memory:\n  latency_ns: ", out);
    put_number(out, m->mem_latency_ns);
    fputs("\n  bandwidth_gbs: ", out);
    put_number(out, m->mem_bandwidth_gbs);
    fputs("\n  bandwidth_core_gbs: ", out);
    put_number(out, m->mem_bandwidth_core_gbs);
    fputs("\n  page_fault_ns: ", out);
    put_number(out, m->page_fault_ns);
    fputc('\n', out);
}

int machine_write(FILE *out, const machine *m, const char *comment)
{
    put_comment(out, comment);
    fputs("name: ", out);
    put_string(out, m->name);
    if (m->description && *m->description) {
        fputs("\ndescription: ", out);
        put_string(out, m->description);
    }
    fprintf(out, "\ncores: %u\n", m->cores);
    put_core(out, m);
    fputs("caches:\n", out);
    for (uint32_t i = 0; i < m->ncaches; i++)
        put_cache(out, &m->cache[i]);
    fputs("tlbs:\n", out);
    for (uint32_t i = 0; i < m->ntlbs; i++)
        put_tlb(out, &m->tlb[i]);
    put_memory(out, m);
    return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
