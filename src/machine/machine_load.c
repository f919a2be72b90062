/* machine_load.c — a machine-description file (YAML, docs/machines.md) read
 * into a struct machine, every field checked for presence, type and range;
 * the contradictions between fields are machine_check.c's. */
#include "machine/machine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "machine/machine_check.h"
#include "machine/machine_yaml.h"

/* Copy a name of at most MACHINE_NAME_MAX - 1 characters into dst. */
static int take_name(const my_doc *d, const yaml_node_t *map, const char *where, const char *key, char *dst)
{
    const char *s;
    if (my_string(d, map, where, key, &s) != 0)
        return -1;
    if (strlen(s) >= MACHINE_NAME_MAX)
        return my_error(d, map, where, key, "'%s' is too long (use at most %d characters)", s,
                        MACHINE_NAME_MAX - 1);
    strcpy(dst, s);
    return 0;
}

/* core.ports: a non-empty sequence of distinct port names. */
static int load_ports(const my_doc *d, const yaml_node_t *core, machine *m)
{
    yaml_node_t *seq;
    if (my_need(d, core, "core", "ports", &seq) != 0)
        return -1;
    if (seq->type != YAML_SEQUENCE_NODE || my_count(seq) == 0 || my_count(seq) > MACHINE_MAX_PORTS)
        return my_error(d, seq, "core", "ports", "expected a list of 1 to %d port names (write [P0, P1, ...])",
                        MACHINE_MAX_PORTS);
    for (size_t i = 0; i < my_count(seq); i++) {
        yaml_node_t *p = my_item(d, seq, i);
        const char *s = p->type == YAML_SCALAR_NODE ? (const char *)p->data.scalar.value : "";
        if (!*s || strlen(s) >= MACHINE_NAME_MAX)
            return my_error(d, p, "core", "ports", "item %zu is not a port name of 1 to %d characters", i + 1,
                            MACHINE_NAME_MAX - 1);
        for (size_t j = 0; j < i; j++)
            if (!strcmp(m->port_names[j], s))
                return my_error(d, p, "core", "ports", "port '%s' is listed twice (name each port once)", s);
        strcpy(m->port_names[i], s);
    }
    m->nports = (uint32_t)my_count(seq);
    return 0;
}

/* The index of port `s` in m->port_names, or -1. */
static int port_index(const machine *m, const char *s)
{
    for (uint32_t i = 0; i < m->nports; i++)
        if (!strcmp(m->port_names[i], s))
            return (int)i;
    return -1;
}

/* A class's `ports` list: names of core.ports, each at most once. */
static int load_class_ports(const my_doc *d, const yaml_node_t *map, const char *where, const machine *m,
                            machine_class *c)
{
    yaml_node_t *seq;
    if (my_need(d, map, where, "ports", &seq) != 0)
        return -1;
    if (seq->type != YAML_SEQUENCE_NODE || my_count(seq) == 0)
        return my_error(d, seq, where, "ports", "expected a non-empty list of port names (write [P0, P1])");
    for (size_t i = 0; i < my_count(seq); i++) {
        yaml_node_t *p = my_item(d, seq, i);
        const char *s = p->type == YAML_SCALAR_NODE ? (const char *)p->data.scalar.value : "";
        int k = port_index(m, s);
        if (k < 0)
            return my_error(d, p, where, "ports", "'%s' is not a port of core.ports (add it there or correct it)",
                            s);
        for (size_t j = 0; j < i; j++)
            if (c->ports[j] == k)
                return my_error(d, p, where, "ports", "port '%s' is listed twice (name each port once)", s);
        c->ports[i] = (uint8_t)k;
    }
    c->nports = (uint32_t)my_count(seq);
    return 0;
}

/* One entry of core.classes. */
static int load_class(const my_doc *d, const yaml_node_t *map, const char *where, const machine *m,
                      machine_class *c)
{
    static const char *const known[] = {"ports", "latency_cycles", "rthroughput_cycles", "uops", NULL};
    c->uops = 1;
    if (my_check_keys(d, map, where, known) != 0 || load_class_ports(d, map, where, m, c) != 0 ||
        my_double(d, map, where, "latency_cycles", 1, 0, 1e4, &c->latency) != 0 ||
        my_double(d, map, where, "rthroughput_cycles", 1, 0, 1e4, &c->rthroughput) != 0 ||
        my_double(d, map, where, "uops", 0, 0, 1e3, &c->uops) != 0)
        return -1;
    return machine_check_class(d, map, where, c);
}

/* core.classes: every class of machine.h, no other. */
static int load_classes(const my_doc *d, const yaml_node_t *core, machine *m)
{
    yaml_node_t *map;
    if (my_need(d, core, "core", "classes", &map) != 0)
        return -1;
    const char *known[MACHINE_NCLASSES + 1];
    size_t n = 0;
    for (int i = 1; i < MACHINE_NCLASSES; i++)
        known[n++] = machine_class_name(i);
    known[n] = NULL;
    if (my_check_keys(d, map, "core.classes", known) != 0)
        return -1;
    for (int i = 1; i < MACHINE_NCLASSES; i++) {
        char where[64];
        snprintf(where, sizeof where, "core.classes.%s", machine_class_name(i));
        yaml_node_t *c;
        if (my_need(d, map, "core.classes", machine_class_name(i), &c) != 0 ||
            load_class(d, c, where, m, &m->cls[i]) != 0)
            return -1;
    }
    return 0;
}

static int load_core(const my_doc *d, const yaml_node_t *root, machine *m)
{
    static const char *const known[] = {"clock_ghz", "issue_width", "vector_bits", "max_outstanding_misses",
                                        "branch_mispredict_cycles", "ports", "classes", NULL};
    yaml_node_t *core;
    if (my_need(d, root, "", "core", &core) != 0 || my_check_keys(d, core, "core", known) != 0)
        return -1;
    if (my_double(d, core, "core", "clock_ghz", 1, 0.01, 100, &m->clock_ghz) != 0 ||
        my_u32(d, core, "core", "issue_width", 1, 1, 64, &m->issue_width) != 0 ||
        my_u32(d, core, "core", "vector_bits", 1, 64, 4096, &m->vector_bits) != 0 ||
        my_u32(d, core, "core", "max_outstanding_misses", 1, 1, 1024, &m->max_outstanding_misses) != 0 ||
        my_double(d, core, "core", "branch_mispredict_cycles", 1, 0, 1000, &m->branch_mispredict_cycles) != 0)
        return -1;
    return load_ports(d, core, m) == 0 && load_classes(d, core, m) == 0 ? 0 : -1;
}

/* A cache's policy word. */
static int load_policy(const my_doc *d, const yaml_node_t *map, const char *where, uint8_t *policy)
{
    static const char *const words[] = {"inclusive", "non-inclusive", "victim"};
    const char *s;
    if (my_string(d, map, where, "policy", &s) != 0)
        return -1;
    for (uint8_t i = 0; i < 3; i++)
        if (!strcmp(s, words[i])) {
            *policy = i;
            return 0;
        }
    return my_error(d, map, where, "policy",
                    "'%s' is not a policy (write inclusive, non-inclusive or victim)", s);
}

static int load_cache(const my_doc *d, const yaml_node_t *map, const char *where, machine_cache *c)
{
    static const char *const known[] = {"name", "size", "line_bytes", "ways", "latency_cycles",
                                        "bandwidth_bytes_per_cycle", "shared_by_cores", "policy", "slices",
                                        NULL};
    c->slices = 1;
    if (my_check_keys(d, map, where, known) != 0 || take_name(d, map, where, "name", c->name) != 0 ||
        my_size(d, map, where, "size", &c->size) != 0 ||
        my_u32(d, map, where, "line_bytes", 1, 1, 4096, &c->line) != 0 ||
        my_u32(d, map, where, "ways", 1, 1, 1u << 24, &c->ways) != 0 ||
        my_double(d, map, where, "latency_cycles", 1, 0, 1e4, &c->latency) != 0 ||
        my_double(d, map, where, "bandwidth_bytes_per_cycle", 1, 1e-3, 1e4, &c->bandwidth) != 0 ||
        my_u32(d, map, where, "shared_by_cores", 1, 1, 1u << 16, &c->shared_by) != 0 ||
        load_policy(d, map, where, &c->policy) != 0 ||
        my_u32(d, map, where, "slices", 0, 1, 4096, &c->slices) != 0)
        return -1;
    return machine_check_cache(d, map, where, c);
}

/* caches: 1 to MACHINE_MAX_CACHES levels, closest to the core first. */
static int load_caches(const my_doc *d, const yaml_node_t *root, machine *m)
{
    yaml_node_t *seq;
    if (my_need(d, root, "", "caches", &seq) != 0)
        return -1;
    if (seq->type != YAML_SEQUENCE_NODE || my_count(seq) == 0 || my_count(seq) > MACHINE_MAX_CACHES)
        return my_error(d, seq, "", "caches", "expected a list of 1 to %d cache levels, L1 first",
                        MACHINE_MAX_CACHES);
    for (size_t i = 0; i < my_count(seq); i++) {
        char where[32];
        snprintf(where, sizeof where, "caches[%zu]", i);
        if (load_cache(d, my_item(d, seq, i), where, &m->cache[i]) != 0)
            return -1;
        if (i > 0 && machine_check_levels(d, my_item(d, seq, i), where, &m->cache[i - 1], &m->cache[i]) != 0)
            return -1;
    }
    m->ncaches = (uint32_t)my_count(seq);
    return 0;
}

static int load_tlb(const my_doc *d, const yaml_node_t *map, const char *where, machine_tlb *t)
{
    static const char *const known[] = {"name", "level", "page_size", "entries", "ways", "miss_latency_cycles",
                                        NULL};
    if (my_check_keys(d, map, where, known) != 0 || take_name(d, map, where, "name", t->name) != 0 ||
        my_u32(d, map, where, "level", 1, 1, 3, &t->level) != 0 ||
        my_size(d, map, where, "page_size", &t->page_size) != 0 ||
        my_u32(d, map, where, "entries", 1, 1, 1u << 20, &t->entries) != 0 ||
        my_u32(d, map, where, "ways", 1, 1, 1u << 20, &t->ways) != 0 ||
        my_double(d, map, where, "miss_latency_cycles", 1, 0, 1e5, &t->miss_latency) != 0)
        return -1;
    return machine_check_tlb(d, map, where, t);
}

static int load_tlbs(const my_doc *d, const yaml_node_t *root, machine *m)
{
    yaml_node_t *seq;
    if (my_need(d, root, "", "tlbs", &seq) != 0)
        return -1;
    if (seq->type != YAML_SEQUENCE_NODE || my_count(seq) == 0 || my_count(seq) > MACHINE_MAX_TLBS)
        return my_error(d, seq, "", "tlbs", "expected a list of 1 to %d TLBs", MACHINE_MAX_TLBS);
    for (size_t i = 0; i < my_count(seq); i++) {
        char where[32];
        snprintf(where, sizeof where, "tlbs[%zu]", i);
        if (load_tlb(d, my_item(d, seq, i), where, &m->tlb[i]) != 0)
            return -1;
    }
    m->ntlbs = (uint32_t)my_count(seq);
    return 0;
}

static int load_memory(const my_doc *d, const yaml_node_t *root, machine *m)
{
    static const char *const known[] = {"latency_ns", "bandwidth_gbs", "bandwidth_core_gbs", "page_fault_ns",
                                        NULL};
    yaml_node_t *mem;
    if (my_need(d, root, "", "memory", &mem) != 0 || my_check_keys(d, mem, "memory", known) != 0 ||
        my_double(d, mem, "memory", "latency_ns", 1, 1, 1e5, &m->mem_latency_ns) != 0 ||
        my_double(d, mem, "memory", "bandwidth_gbs", 1, 0.01, 1e5, &m->mem_bandwidth_gbs) != 0 ||
        my_double(d, mem, "memory", "bandwidth_core_gbs", 1, 0.01, 1e5, &m->mem_bandwidth_core_gbs) != 0 ||
        my_double(d, mem, "memory", "page_fault_ns", 1, 0, 1e6, &m->page_fault_ns) != 0)
        return -1;
    return machine_check_memory(d, mem, m);
}

/* The whole document: top-level fields, then each section. */
static int load_root(const my_doc *d, const yaml_node_t *root, machine *m)
{
    static const char *const known[] = {"name", "description", "cores", "core", "caches", "tlbs", "memory",
                                        NULL};
    if (my_check_keys(d, root, "", known) != 0 || take_name(d, root, "", "name", m->name) != 0 ||
        my_u32(d, root, "", "cores", 1, 1, 1u << 20, &m->cores) != 0)
        return -1;
    const char *desc = "";
    if (my_get(d, root, "description") && my_string(d, root, "", "description", &desc) != 0)
        return -1;
    if (!(m->description = strdup(desc)))
        return my_error(d, root, "", "description", "out of memory");
    if (load_core(d, root, m) != 0 || load_caches(d, root, m) != 0 || load_tlbs(d, root, m) != 0 ||
        load_memory(d, root, m) != 0)
        return -1;
    return machine_check_sharing(d, root, m);
}

/* Parse the file into doc; -1 with "PATH:LINE: syntax: ..." when it is not YAML. */
static int parse_file(FILE *f, const char *path, yaml_document_t *doc, char *err, size_t errlen)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    yaml_parser_set_input_file(&parser, f);
    int ok = yaml_parser_load(&parser, doc);
    if (!ok)
        snprintf(err, errlen, "%s:%lu: syntax: %s%s%s (the file is not valid YAML; fix it at that line)", path,
                 (unsigned long)parser.problem_mark.line + 1, parser.problem ? parser.problem : "unreadable",
                 parser.context ? " " : "", parser.context ? parser.context : "");
    yaml_parser_delete(&parser);
    return ok ? 0 : -1;
}

int machine_load(const char *path, machine *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s (check the path, or give a name from 'augur machine list')",
                 path, strerror(errno));
        return -1;
    }
    struct stat st; /* fopen opens a folder too, and libyaml then reports a syntax error */
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err, errlen, "%s is a folder, not a machine description (give a file such as machines/zen4.yaml, "
                 "or a name from 'augur machine list')", path);
        return -1;
    }
    yaml_document_t doc;
    int rc = parse_file(f, path, &doc, err, errlen);
    fclose(f);
    if (rc != 0)
        return -1;
    my_doc d = {&doc, path, err, errlen};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    if (!root)
        rc = my_error(&d, NULL, "", NULL, "the file is empty (write a description as in docs/machines.md)");
    else
        rc = load_root(&d, root, m);
    yaml_document_delete(&doc);
    if (rc == 0 && !(m->path = strdup(path))) {
        snprintf(err, errlen, "%s: out of memory", path);
        rc = -1;
    }
    if (rc != 0)
        machine_free(m);
    return rc;
}

void machine_free(machine *m)
{
    free(m->description);
    free(m->path);
    m->description = m->path = NULL;
}

int machine_class_index(const char *name)
{
    for (int i = 1; i < MACHINE_NCLASSES; i++)
        if (!strcmp(machine_class_name(i), name))
            return i;
    return -1;
}

const char *machine_class_name(int index)
{
    if (index == MACHINE_CLASS_LOAD)
        return "load";
    if (index == MACHINE_CLASS_STORE)
        return "store";
    if (index <= 0 || index >= ST_CLASS_COUNT)
        return NULL;
    return st_class_name((enum st_class)index);
}
