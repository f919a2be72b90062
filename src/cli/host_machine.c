/* host_machine.c — the machine description closest to the host, for
 * commands whose --machine defaults to "this machine" (augur memspy).
 * Closeness is over data-cache sizes, the numbers a cache simulation
 * depends on most: sum over levels of |log2(described / host)|. */
#include "cli/host_machine.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The host's L1D, L2 and L3 sizes in bytes (0 when the C library cannot
 * tell); returns how many levels it knows. */
static unsigned host_cache_sizes(double size[3])
{
    const int names[3] = {_SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE};
    unsigned n = 0;
    for (int k = 0; k < 3; k++) {
        long v = sysconf(names[k]);
        size[k] = v > 0 ? (double)v : 0;
        n += v > 0;
    }
    return n;
}

static double distance(const machine *m, const double host[3])
{
    double d = 0;
    for (unsigned k = 0; k < 3; k++) {
        if (host[k] <= 0)
            continue;
        double described = k < m->ncaches ? (double)m->cache[k].size : 1.0;
        d += fabs(log2(described / host[k]));
    }
    return d;
}

int closest_machine(machine *m, char *why, size_t whylen, char *err, size_t errlen)
{
    double host[3];
    char **names;
    size_t n;
    memset(m, 0, sizeof *m);
    if (host_cache_sizes(host) == 0) {
        snprintf(err, errlen, "this host does not report its cache sizes; choose a machine with --machine NAME");
        return -1;
    }
    if (machine_names(&names, &n, err, errlen) != 0)
        return -1;
    double best = INFINITY;
    for (size_t i = 0; i < n; i++) {
        machine cand;
        if (machine_find(names[i], &cand, err, errlen) != 0)
            continue; /* a broken description is not a candidate */
        double d = distance(&cand, host);
        if (d < best) {
            machine_free(m);
            *m = cand;
            best = d;
        } else {
            machine_free(&cand);
        }
    }
    machine_names_free(names, n);
    if (isinf(best)) {
        snprintf(err, errlen, "no machine description could be read; give one with --machine FILE");
        return -1;
    }
    snprintf(why, whylen, "closest to this host's caches: L1D %.0f KiB, L2 %.0f KiB, L3 %.0f KiB", host[0] / 1024,
             host[1] / 1024, host[2] / 1024);
    return 0;
}
