/* machine_detect.c — a description of the host: what the hardware reports
 * (cores; cache sizes, lines, ways, sharing, inclusion, from hwloc), the
 * rest from the nearest shipped description (machine.h, machine_detect). */
#define _GNU_SOURCE /* asprintf */
#include "machine/machine.h"

#include <errno.h>
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

/* The fewest slices s for which size = s * line * ways * 2^k (hwloc gives
 * a sliced L3's total size, e.g. 300 MiB 20-way = 15 slices of 2^14 sets);
 * 0 when none up to 4096 fits. */
static uint32_t slices_of(uint64_t size, uint64_t line, uint64_t ways)
{
    for (uint32_t s = 1; s <= 4096; s++) {
        uint64_t unit = line * ways * s;
        if (size % unit == 0 && is_pow2(size / unit))
            return s;
    }
    return 0;
}

/* The hwloc data (or unified) cache of `depth` level 1..4 nearest to the
 * first core, or NULL. */
static hwloc_obj_t first_cache(hwloc_topology_t topo, int level)
{
    static const hwloc_obj_type_t types[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                             HWLOC_OBJ_L4CACHE};
    return hwloc_get_obj_by_type(topo, types[level - 1], 0);
}

/* cache[i]'s geometry from hwloc's object; latency and bandwidth from the
 * base description's level i (its last level when it has fewer). */
static int take_cache(hwloc_topology_t topo, hwloc_obj_t obj, const machine *base, uint32_t i, machine_cache *c,
                      char *err, size_t errlen)
{
    const machine_cache *from = &base->cache[i < base->ncaches ? i : base->ncaches - 1];
    struct hwloc_cache_attr_s *a = &obj->attr->cache;
    snprintf(c->name, sizeof c->name, "L%u", i + 1);
    c->size = a->size;
    c->line = a->linesize ? a->linesize : from->line;
    /* hwloc: -1 fully associative, 0 unknown */
    c->ways = a->associativity > 0 ? (uint32_t)a->associativity
              : a->associativity < 0 ? (uint32_t)(c->size / c->line) : from->ways;
    c->slices = slices_of(c->size, c->line, c->ways);
    if (!c->slices) {
        snprintf(err, errlen, "hwloc reports L%u as %llu bytes, %u-byte lines, %u ways: no whole number of "
                 "power-of-two-set slices (check 'lstopo -v'; write the description by hand)",
                 i + 1, (unsigned long long)c->size, c->line, c->ways);
        return -1;
    }
    int cores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, obj->cpuset, HWLOC_OBJ_CORE);
    c->shared_by = cores > 0 ? (uint32_t)cores : 1;
    const char *incl = hwloc_obj_get_info_by_name(obj, "Inclusive");
    c->policy = i == 0 || (incl && !strcmp(incl, "1")) ? MACHINE_INCLUSIVE : MACHINE_NON_INCLUSIVE;
    c->latency = from->latency;
    c->bandwidth = from->bandwidth;
    return 0;
}

/* Cores and caches from hwloc into m. */
static int take_topology(machine *m, const machine *base, char *err, size_t errlen)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) {
        snprintf(err, errlen, "hwloc cannot start: %s", strerror(errno));
        return -1;
    }
    errno = 0;
    if (hwloc_topology_load(topo) != 0) {
        int e = errno;
        hwloc_topology_destroy(topo);
        /* The causes seen: /sys or /proc not mounted (a container), or an
         * HWLOC_* variable that turns discovery off. */
        snprintf(err, errlen, "hwloc cannot read this machine's topology%s%s (is /sys mounted? "
                 "does an HWLOC_* variable, such as HWLOC_COMPONENTS, turn discovery off?)",
                 e ? ": " : "", e ? strerror(e) : "");
        return -1;
    }
    int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    m->cores = cores > 0 ? (uint32_t)cores : 1;
    int rc = 0;
    m->ncaches = 0;
    for (int level = 1; level <= MACHINE_MAX_CACHES && rc == 0; level++) {
        hwloc_obj_t obj = first_cache(topo, level);
        if (!obj)
            break;
        rc = take_cache(topo, obj, base, m->ncaches, &m->cache[m->ncaches], err, errlen);
        m->ncaches += rc == 0;
    }
    hwloc_topology_destroy(topo);
    if (rc == 0 && m->ncaches == 0) {
        snprintf(err, errlen, "hwloc reports no data caches (check 'lstopo'; write the description by hand)");
        rc = -1;
    }
    return rc;
}

int machine_detect(machine *m, char *note, size_t notelen, char *err, size_t errlen)
{
    char cpu[256];
    double mhz;
    const char *nearest = machine_host_nearest(cpu, sizeof cpu, &mhz);
    machine base;
    if (machine_find(nearest, &base, err, errlen) != 0)
        return -1;
    *m = base; /* core, TLBs and memory as the base says */
    m->path = NULL;
    m->description = NULL;
    int rc = take_topology(m, &base, err, errlen);
    if (rc == 0) {
        snprintf(m->name, sizeof m->name, "host");
        if (mhz > 0)
            m->clock_ghz = mhz / 1000;
        rc = asprintf(&m->description, "this host: %s", cpu) < 0 ? -1 : 0;
        snprintf(note, notelen,
                 "Written by 'augur machine detect' on %s.\n"
                 "cores and caches (size, line, ways, sharing, inclusion): hwloc; clock: %s;\n"
                 "ports, classes, TLBs, memory, cache latencies and bandwidths: %s (%s), the nearest\n"
                 "known description; 'augur machine calibrate' measures latencies and bandwidth.",
                 cpu, mhz > 0 ? "/proc/cpuinfo 'cpu MHz'" : nearest, nearest, base.path);
    }
    /* hwloc's numbers (or an HWLOC_XMLFILE's) keep the limits a file must */
    if (rc == 0 && machine_validate(m, "the description detected", err, errlen) != 0) {
        size_t n = strlen(err);
        snprintf(err + n, errlen - n, "; hwloc reports these caches (check 'lstopo -v' and HWLOC_XMLFILE, or "
                 "write the description by hand)");
        free(m->description);
        rc = -1;
    }
    if (rc != 0)
        m->description = NULL;
    machine_free(&base);
    return rc;
}
