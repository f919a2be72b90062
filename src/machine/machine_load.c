/* machine_load.c — a machine-description file (YAML, docs/machines.md) read
 * into a struct machine, every field checked for presence, type and range
 * (the limits of machine_limits.h); the contradictions between fields are
 * machine_check.c's.  The file is read whole (bounded) and scanned with
 * libyaml's event parser before its document loader sees it. */
#define _GNU_SOURCE /* open_memstream */
#include "machine/machine.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "machine/machine_check.h"
#include "machine/machine_limits.h"
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
    static const char *const known[] = {"ports", "latency_cycles", "rthroughput_cycles", "uops", "vector_bits",
                                        NULL};
    c->uops = 1;
    if (my_check_keys(d, map, where, known) != 0 || load_class_ports(d, map, where, m, c) != 0 ||
        my_double(d, map, where, "latency_cycles", 1, 0, MACHINE_CLASS_CYCLES_MAX, &c->latency) != 0 ||
        my_double(d, map, where, "rthroughput_cycles", 1, 0, MACHINE_CLASS_CYCLES_MAX, &c->rthroughput) != 0 ||
        my_double(d, map, where, "uops", 0, 0, MACHINE_CLASS_UOPS_MAX, &c->uops) != 0 ||
        my_u32(d, map, where, "vector_bits", 0, MACHINE_VECTOR_BITS_MIN, MACHINE_VECTOR_BITS_MAX,
               &c->vector_bits) != 0)
        return -1;
    return machine_check_class(d, map, where, c, m->vector_bits);
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
                                        "page_walkers", "reorder_buffer", "throughput_share", "branch_mispredict_cycles",
                                        "store_forward_cycles", "ports", "classes", NULL};
    m->throughput_share = 1; /* optional: a thread that has its core */
    yaml_node_t *core;
    if (my_need(d, root, "", "core", &core) != 0 || my_check_keys(d, core, "core", known) != 0)
        return -1;
    if (my_double(d, core, "core", "clock_ghz", 1, MACHINE_CLOCK_GHZ_MIN, MACHINE_CLOCK_GHZ_MAX, &m->clock_ghz) != 0 ||
        my_u32(d, core, "core", "issue_width", 1, 1, MACHINE_ISSUE_WIDTH_MAX, &m->issue_width) != 0 ||
        my_u32(d, core, "core", "vector_bits", 1, MACHINE_VECTOR_BITS_MIN, MACHINE_VECTOR_BITS_MAX,
               &m->vector_bits) != 0 ||
        my_u32(d, core, "core", "max_outstanding_misses", 1, 1, MACHINE_OUTSTANDING_MISSES_MAX,
               &m->max_outstanding_misses) != 0 ||
        my_u32(d, core, "core", "page_walkers", 0, 1, MACHINE_OUTSTANDING_MISSES_MAX, &m->page_walkers) != 0 ||
        my_u32(d, core, "core", "reorder_buffer", 0, 1, MACHINE_REORDER_BUFFER_MAX, &m->reorder_buffer) != 0 ||
        my_double(d, core, "core", "throughput_share", 0, MACHINE_THROUGHPUT_SHARE_MIN, 1, &m->throughput_share) != 0 ||
        my_double(d, core, "core", "branch_mispredict_cycles", 1, 0, MACHINE_MISPREDICT_CYCLES_MAX,
                  &m->branch_mispredict_cycles) != 0 ||
        my_double(d, core, "core", "store_forward_cycles", 1, 0, MACHINE_CLASS_CYCLES_MAX, &m->store_forward_cycles) != 0)
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
        my_size(d, map, where, "size", 1, MACHINE_CACHE_SIZE_MAX, &c->size) != 0 ||
        my_u32(d, map, where, "line_bytes", 1, MACHINE_LINE_MIN, MACHINE_LINE_MAX, &c->line) != 0 ||
        my_u32(d, map, where, "ways", 1, 1, MACHINE_WAYS_MAX, &c->ways) != 0 ||
        my_double(d, map, where, "latency_cycles", 1, 0, MACHINE_LEVEL_CYCLES_MAX, &c->latency) != 0 ||
        my_double(d, map, where, "bandwidth_bytes_per_cycle", 1, MACHINE_BANDWIDTH_BPC_MIN, MACHINE_BANDWIDTH_BPC_MAX,
                  &c->bandwidth) != 0 ||
        my_u32(d, map, where, "shared_by_cores", 1, 1, MACHINE_SHARED_BY_MAX, &c->shared_by) != 0 ||
        load_policy(d, map, where, &c->policy) != 0 ||
        my_u32(d, map, where, "slices", 0, 1, MACHINE_SLICES_MAX, &c->slices) != 0)
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
        my_u32(d, map, where, "level", 1, 1, MACHINE_TLB_LEVEL_MAX, &t->level) != 0 ||
        my_size(d, map, where, "page_size", MACHINE_PAGE_MIN, MACHINE_PAGE_MAX, &t->page_size) != 0 ||
        my_u32(d, map, where, "entries", 1, 1, MACHINE_TLB_ENTRIES_MAX, &t->entries) != 0 ||
        my_u32(d, map, where, "ways", 1, 1, MACHINE_TLB_ENTRIES_MAX, &t->ways) != 0 ||
        my_double(d, map, where, "miss_latency_cycles", 1, 0, MACHINE_TLB_MISS_CYCLES_MAX, &t->miss_latency) != 0)
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
        my_double(d, mem, "memory", "latency_ns", 1, MACHINE_MEM_LATENCY_NS_MIN, MACHINE_MEM_LATENCY_NS_MAX,
                  &m->mem_latency_ns) != 0 ||
        my_double(d, mem, "memory", "bandwidth_gbs", 1, MACHINE_MEM_BANDWIDTH_GBS_MIN, MACHINE_MEM_BANDWIDTH_GBS_MAX,
                  &m->mem_bandwidth_gbs) != 0 ||
        my_double(d, mem, "memory", "bandwidth_core_gbs", 1, MACHINE_MEM_BANDWIDTH_GBS_MIN,
                  MACHINE_MEM_BANDWIDTH_GBS_MAX, &m->mem_bandwidth_core_gbs) != 0 ||
        my_double(d, mem, "memory", "page_fault_ns", 1, 0, MACHINE_PAGE_FAULT_NS_MAX, &m->page_fault_ns) != 0)
        return -1;
    return machine_check_memory(d, mem, m);
}

/* The whole document: top-level fields, then each section. */
static int load_root(const my_doc *d, const yaml_node_t *root, machine *m)
{
    static const char *const known[] = {"name", "description", "cores", "core", "caches", "tlbs", "memory",
                                        NULL};
    if (my_check_keys(d, root, "", known) != 0 || take_name(d, root, "", "name", m->name) != 0 ||
        my_u32(d, root, "", "cores", 1, 1, MACHINE_CORES_MAX, &m->cores) != 0)
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

/* "PATH:LINE: syntax: ..." for the parser's error. */
static int syntax_error(const yaml_parser_t *parser, const char *path, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s:%lu: syntax: %s%s%s (the file is not valid YAML; fix it at that line)", path,
             (unsigned long)parser->problem_mark.line + 1, parser->problem ? parser->problem : "unreadable",
             parser->context ? " " : "", parser->context ? parser->context : "");
    return -1;
}

/* What libyaml's document loader would crawl on or pass over in silence,
 * found with its event parser, which is linear: nesting deeper than
 * MACHINE_MAX_DEPTH (the loader's time grows with the square of the depth:
 * 20,000 levels took 4.5 s here) and a second document (the loader reads the
 * first only).  Syntax errors are reported here too. */
static int scan_events(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int depth = 0, documents = 0, rc = 0;
    for (int done = 0; !done && rc == 0;) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = syntax_error(&parser, path, err, errlen);
            break;
        }
        unsigned long line = (unsigned long)ev.start_mark.line + 1;
        if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
            depth++;
        else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
            depth--;
        else if (ev.type == YAML_DOCUMENT_START_EVENT)
            documents++;
        done = ev.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&ev);
        if (depth > MACHINE_MAX_DEPTH) {
            snprintf(err, errlen, "%s:%lu: syntax: lists or mappings nested more than %d deep (a description "
                     "nests 5 deep: core, classes, a class, its ports; remove the extra brackets)",
                     path, line, MACHINE_MAX_DEPTH);
            rc = -1;
        } else if (documents > 1) {
            snprintf(err, errlen, "%s:%lu: syntax: a second YAML document (a description is one document: "
                     "remove this '---' and what follows, or put it in a file of its own)", path, line);
            rc = -1;
        }
    }
    yaml_parser_delete(&parser);
    return rc;
}

/* Parse text (scanned by scan_events) into doc. */
static int parse_text(const char *text, size_t len, const char *path, yaml_document_t *doc, char *err,
                      size_t errlen)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        snprintf(err, errlen, "%s: out of memory", path);
        return -1;
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    int ok = yaml_parser_load(&parser, doc);
    if (!ok)
        syntax_error(&parser, path, err, errlen);
    yaml_parser_delete(&parser);
    return ok ? 0 : -1;
}

/* The file at path whole into *text (free() it), *len bytes: at most
 * MACHINE_FILE_MAX_BYTES, so that a FIFO, /dev/zero or a huge file is
 * refused after that much; a folder is refused by name. */
static int read_text(const char *path, char **text, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s (check the path, or give a name from 'augur machine list')",
                 path, strerror(errno));
        return -1;
    }
    struct stat st; /* fopen opens a folder too, and reading it fails with EISDIR */
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        snprintf(err, errlen, "%s is a folder, not a machine description (give a file such as machines/zen4.yaml, "
                 "or a name from 'augur machine list')", path);
        return -1;
    }
    char *buf = malloc(MACHINE_FILE_MAX_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MACHINE_FILE_MAX_BYTES + 1, f) : 0;
    int failed = buf && ferror(f) ? errno : 0;
    fclose(f);
    if (!buf || failed || n > MACHINE_FILE_MAX_BYTES) {
        free(buf);
        if (!buf)
            snprintf(err, errlen, "%s: out of memory", path);
        else if (failed)
            snprintf(err, errlen, "%s: cannot read: %s", path, strerror(failed));
        else
            snprintf(err, errlen, "%s: more than %u bytes, the limit of a machine description (the shipped "
                     "ones are 4-5 KB; give the description's file, not another)", path, MACHINE_FILE_MAX_BYTES);
        return -1;
    }
    *text = buf;
    *len = n;
    return 0;
}

/* Load the description `text` (len bytes), named `path` in messages. */
static int load_text(const char *text, size_t len, const char *path, machine *m, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    yaml_document_t doc;
    if (scan_events(text, len, path, err, errlen) != 0 || parse_text(text, len, path, &doc, err, errlen) != 0)
        return -1;
    my_doc d = {&doc, path, err, errlen};
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    int rc;
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

int machine_load(const char *path, machine *m, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(m, 0, sizeof *m);
    if (read_text(path, &text, &len, err, errlen) != 0)
        return -1;
    int rc = load_text(text, len, path, m, err, errlen);
    free(text);
    return rc;
}

int machine_validate(const machine *m, const char *what, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    int rc = f ? machine_write(f, m, NULL) : -1;
    if (f && fclose(f) != 0)
        rc = -1;
    machine copy;
    if (rc != 0)
        snprintf(err, errlen, "%s: out of memory", what);
    else if ((rc = load_text(text, len, what, &copy, err, errlen)) == 0)
        machine_free(&copy);
    free(text);
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
