/* fuzz_machine.c — fuzz harness of the machine description loader
 * (src/machine/machine_load.c, machine_yaml.c, machine_check.c;
 * docs/machines.md): any bytes are loaded as a description.  A refusal
 * must carry a message; nothing may crash, leak or read out of bounds.
 * What it accepts must survive machine_write's round trip, which
 * machine_write.c promises ("numbers are written so that they read back
 * exactly"): the written text loads again and writes the same bytes.
 * Seeds: tests/fuzz/corpus/machine/ and the shipped machines/. */
#include "fuzz_input.h"

#include "machine/machine.h"

const char fuzz_seed_start[] = ""; /* YAML: no version line */

/* Load data[0..size) as a machine; 0 when it was accepted (free *m), -1
 * when refused, with the message in err. */
static int load(const void *data, size_t size, machine *m, char err[1024])
{
    char path[32];
    int fd = fuzz_file(data, size, path);
    err[0] = 0;
    int rc = machine_load(path, m, err, 1024);
    close(fd);
    if (rc != 0 && !err[0])
        abort();
    return rc;
}

/* m as machine_write writes it, a new buffer of *len bytes. */
static char *written(const machine *m, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f || machine_write(f, m, "fuzz") != 0 || fclose(f) != 0)
        abort();
    return text;
}

int fuzz_one(const uint8_t *data, size_t size)
{
    machine m;
    char err[1024];
    if (load(data, size, &m, err) != 0)
        return 0;
    size_t len1, len2;
    char *first = written(&m, &len1);
    machine_free(&m);
    if (load(first, len1, &m, err) != 0) {
        fprintf(stderr, "machine_write wrote what machine_load refuses (%s):\n%.*s", err, (int)len1, first);
        abort();
    }
    char *second = written(&m, &len2);
    machine_free(&m);
    if (len1 != len2 || memcmp(first, second, len1)) {
        fprintf(stderr, "machine_write's text changed in a round trip:\n%.*s---\n%.*s", (int)len1, first,
                (int)len2, second);
        abort();
    }
    free(first);
    free(second);
    return 1;
}
