/* report_cache.c — the caches a report computes misses for: parsing
 * "SIZE[:LINE]", checking them against a run, and naming them. */
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "util/parse.h"

#define SIZE_SYNTAX                                                                                              \
    "write SIZE[:LINE] in bytes with an optional suffix K, KiB, M, MiB, G or GiB, e.g. 32K, 1MiB:64 or 8M:128"

int report_cache_parse(const char *spec, report_cache *out, char *err, size_t errlen)
{
    char size_text[64];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    uint64_t size, line = REPORT_DEFAULT_LINE;
    if (n >= sizeof size_text) {
        snprintf(err, errlen, "bad cache '%.80s': %s", spec, SIZE_SYNTAX);
        return -1;
    }
    memcpy(size_text, spec, n);
    size_text[n] = '\0';
    if (parse_size(size_text, &size) != 0 || (colon && parse_size(colon + 1, &line) != 0)) {
        snprintf(err, errlen, "bad cache '%.80s': %s", spec, SIZE_SYNTAX);
        return -1;
    }
    if (line < 8 || line > UINT32_MAX || (line & (line - 1)) != 0) {
        snprintf(err, errlen, "bad cache '%.80s': the line size %llu is not a power of two >= 8", spec,
                 (unsigned long long)line);
        return -1;
    }
    if (size < line || size % line != 0) {
        snprintf(err, errlen, "bad cache '%.80s': the size %llu bytes is not a positive multiple of the line size %llu",
                 spec, (unsigned long long)size, (unsigned long long)line);
        return -1;
    }
    out->size = size;
    out->line = (uint32_t)line;
    return 0;
}

int report_cache_check(const report_cache *c, const db_run *run, char *err, size_t errlen)
{
    char sizes[128] = "";
    for (int i = 0; i < run->nblock_sizes; i++) {
        if (run->block_sizes[i] == c->line)
            return 0;
        size_t used = strlen(sizes);
        snprintf(sizes + used, sizeof sizes - used, "%s%u", i ? ", " : "", run->block_sizes[i]);
    }
    if (run->nblock_sizes == 0) {
        snprintf(err, errlen, "run %lld has no reuse-distance histograms, so no cache misses can be computed",
                 (long long)run->id);
        return -1;
    }
    snprintf(err, errlen,
             "run %lld has no histograms for %u-byte lines: it measured block sizes %s (use one of them as LINE in "
             "SIZE:LINE, or collect again with that block size)",
             (long long)run->id, c->line, sizes);
    return -1;
}

void report_cache_key(const report_cache *c, char *buf, size_t len)
{
    snprintf(buf, len, "%llu:%u", (unsigned long long)c->size, c->line);
}

/* The largest binary unit dividing bytes exactly ("" for bytes, "KiB",
 * ...), and *v the count of them. */
static const char *exact_unit(uint64_t bytes, uint64_t *v)
{
    static const char *const units[] = {"", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    size_t u = 0;
    *v = bytes;
    while (*v >= 1024 && *v % 1024 == 0 && u + 1 < sizeof units / sizeof *units) {
        *v /= 1024;
        u++;
    }
    return units[u];
}

void report_cache_label(const report_cache *c, char *buf, size_t len)
{
    uint64_t v;
    const char *unit = exact_unit(c->size, &v);
    snprintf(buf, len, "%llu%s:%u", (unsigned long long)v, unit, c->line);
}

const char *report_bytes_text(uint64_t bytes, char *buf, size_t len)
{
    uint64_t v;
    const char *unit = exact_unit(bytes, &v);
    snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[0] ? unit : "bytes");
    return buf;
}
