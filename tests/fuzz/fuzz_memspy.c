/* fuzz_memspy.c — fuzz harness of memspy's raw file reader
 * (src/memspy_report/memspy_read.c, docs/memspy-format.md) and of the
 * report built from what it accepts: any bytes are read as a raw file, as
 * they are and with their end line made right (fuzz_input.h); an accepted
 * file is named (mr_unique_names), built into a report and written as
 * text, JSON and callgrind, as `augur memspy --raw` does without the
 * structure analysis of the program's binaries, which the file names but
 * the fuzzer does not have.  A refusal must carry a message; nothing may
 * crash, leak or read out of bounds.  Seeds: tests/fuzz/corpus/memspy/. */
#include "fuzz_input.h"

#include "memspy_report/memspy_report.h"

const char fuzz_seed_start[] = "augur-memspy " FUZZ_STR(MEMSPY_VERSION) "\n";

/* Build and write the report of an accepted raw file, to /dev/null. */
static void report(memspy_raw *raw)
{
    mr_costs c;
    for (unsigned k = 0; k <= MR_MAX_LEVELS; k++)
        c.lat[k] = 4.0 * (1u << (2 * k)); /* 4, 16, 64, ... cycles: each level slower */
    memspy_report rep;
    char err[512];
    if (mr_unique_names(raw) != 0 || memspy_report_build(raw, &c, NULL, NULL, &rep, err, sizeof err) != 0)
        abort(); /* only memory running out fails these */
    FILE *out = fopen("/dev/null", "w");
    if (!out)
        abort();
    mr_header h = {"fuzz", NULL, 3.0, 80.0, 0};
    memspy_write_text(&rep, &h, NUM_GROUPED, out);
    memspy_write_json(&rep, &h, out);
    memspy_write_callgrind(&rep, out);
    fclose(out);
    memspy_report_free(&rep);
}

/* Read the raw file at path and report it; 1 when it was accepted, 0 when
 * refused, which must say why. */
static int read_raw(const char *path)
{
    memspy_raw raw;
    char err[1024] = "";
    if (memspy_read(path, &raw, err, sizeof err) != 0) {
        if (!err[0])
            abort();
        return 0;
    }
    report(&raw);
    memspy_raw_free(&raw);
    return 1;
}

int fuzz_one(const uint8_t *data, size_t size)
{
    return fuzz_both_framings(data, size, read_raw);
}
