/* main.c — the `augur` command: dispatches to one subcommand per file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"collect", cmd_collect, "run a program under the collector and store its profile"},
    {"import", cmd_import, "store raw profiles kept by collect --keep-profiles as a run"},
    {"report", cmd_report, "per-function and per-line counts and cache misses of a run"},
    {"structure", cmd_structure, "functions, loops and inlined code of a binary, with source lines"},
    {"model", cmd_model, "fit models of counts and reuse distances as functions of the run parameters"},
    {"predict", cmd_predict, "counts and cache misses predicted at parameters never run"},
    {"machine", cmd_machine, "machine descriptions: list, show, check, detect and calibrate the host"},
    {"memspy", cmd_memspy, "where cache misses come from and why, by code and by data (simulated)"},
    {"export", cmd_export, "the counts of many runs for Extra-P (its text format) or as a CSV table"},
    {"diff", cmd_diff, "the change in counts and misses per function and line between two runs"},
    {"explore", cmd_explore, "one HTML page of the runs, models and predictions, with plots and sliders"},
    {"static", cmd_static, "counts per function and loop as formulas, from the sources, without running"},
};

const char *default_db_path(void)
{
    const char *env = getenv("AUGUR_DB");
    return env && *env ? env : "augur.db";
}

static void usage(FILE *to)
{
    fprintf(to,
            "augur %s — performance modeling and prediction from a few small runs\n\n"
            "usage: augur COMMAND [OPTIONS]\n\n"
            "commands:\n",
            AUGUR_VERSION);
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        fprintf(to, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fprintf(to, "\n'augur COMMAND --help' describes a command.\n"
                "The experiment database is ./augur.db unless --db FILE or $AUGUR_DB says otherwise.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("augur %s\n", AUGUR_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        if (!strcmp(argv[1], subcommands[i].name))
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "augur: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
