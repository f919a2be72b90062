/* machine_host.c — which shipped description is nearest the host's
 * processor, from the identity /proc/cpuinfo gives (machine.h). */
#include "machine/machine.h"

#include <stdlib.h>
#include <string.h>

/* What /proc/cpuinfo says of the first processor. */
typedef struct cpu_id {
    char vendor[64];
    char model_name[128];
    long family, model, arm_part;
    double mhz;
} cpu_id;

/* The value after "KEY<blanks>: " on `line`, or NULL when the line is of
 * another key. */
static const char *value_of(const char *line, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0)
        return NULL;
    line += n;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != ':')
        return NULL;
    line++;
    return line + (*line == ' ');
}

/* Copy v without its newline into dst of size n. */
static void copy_value(char *dst, size_t n, const char *v)
{
    snprintf(dst, n, "%.*s", (int)strcspn(v, "\n"), v);
}

/* Read the first processor's fields (the file stops at its blank line). */
static void read_cpuinfo(cpu_id *c)
{
    memset(c, 0, sizeof *c);
    c->family = c->model = c->arm_part = -1;
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[1024];
    const char *v;
    while (fgets(line, sizeof line, f) && line[0] != '\n') {
        if ((v = value_of(line, "vendor_id")) || (v = value_of(line, "CPU implementer")))
            copy_value(c->vendor, sizeof c->vendor, v);
        else if ((v = value_of(line, "model name")))
            copy_value(c->model_name, sizeof c->model_name, v);
        else if ((v = value_of(line, "cpu family")))
            c->family = strtol(v, NULL, 10);
        else if ((v = value_of(line, "model")))
            c->model = strtol(v, NULL, 10);
        else if ((v = value_of(line, "CPU part")))
            c->arm_part = strtol(v, NULL, 0);
        else if ((v = value_of(line, "cpu MHz")))
            c->mhz = strtod(v, NULL);
    }
    fclose(f);
}

/* AMD family 0x19: models 0x10-0x1f and 0x60-0xaf are Zen 4, the rest Zen 3;
 * 0x1a (Zen 5) is nearest Zen 4, 0x17 (Zen 1/2) nearest Zen 3. */
static const char *nearest_amd(long family, long model)
{
    if (family >= 0x1a)
        return "zen4";
    if (family == 0x19 && ((model >= 0x10 && model <= 0x1f) || (model >= 0x60 && model <= 0xaf)))
        return "zen4";
    return "zen3";
}

const char *machine_host_nearest(char *cpu, size_t cpulen, double *mhz)
{
    cpu_id c;
    read_cpuinfo(&c);
    *mhz = c.mhz;
    snprintf(cpu, cpulen, "%s family %ld model %ld: %s", c.vendor[0] ? c.vendor : "unknown vendor", c.family,
             c.model, c.model_name[0] ? c.model_name : "unnamed");
    if (!strcmp(c.vendor, "AuthenticAMD"))
        return nearest_amd(c.family, c.model);
    if (c.arm_part >= 0)
        return "neoverse-v1";
    /* Intel: Ice Lake SP (106) and later server cores are nearest Golden Cove */
    if (!strcmp(c.vendor, "GenuineIntel") && c.family == 6 && c.model < 106)
        return "skylake-sp";
    return "sapphire-rapids";
}
