/* cmd_machine.c — `augur machine`: the machine descriptions (docs/machines.md):
 * list the known ones, show or check one, and describe this host from the
 * hardware (detect) and from measurements (calibrate).  Exit status: 0
 * success, 2 usage error, 1 other errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "cli/output_file.h"
#include "machine/machine.h"
#include "util/parse.h"

typedef struct machine_cli {
    const char *output;              /* --output FILE, NULL for stdout */
    int calibrate_only;              /* an option only calibrate takes was given */
    machine_calibrate_options cal;   /* --quick, --tolerance, --measured-capacity */
} machine_cli;

static void print_help(FILE *to)
{
    fprintf(to,
            "usage: augur machine list\n"
            "       augur machine show NAME|FILE\n"
            "       augur machine check NAME|FILE\n"
            "       augur machine detect [--output FILE]\n"
            "       augur machine calibrate [--output FILE] [--quick] [--tolerance F] [--measured-capacity]\n"
            "\n"
            "Machine descriptions (YAML, docs/machines.md): a core's ports and instruction classes,\n"
            "its caches, TLBs and memory, for predictions with --machine NAME|FILE.\n"
            "\n"
            "  list       the known names, from $AUGUR_MACHINES (colon-separated directories), the\n"
            "             source tree's machines/ and the installed share/augur/machines\n"
            "  show       print a description as the loader read it\n"
            "  check      validate a description; errors name FILE:LINE: field\n"
            "  detect     describe this host: cores and caches from hwloc, the rest from the\n"
            "             nearest known description (named in the output's header comment)\n"
            "  calibrate  detect, then measure the clock, the latency of each cache level and of\n"
            "             memory (pointer chase), one core's bandwidth and the page-fault cost, in\n"
            "             interleaved rounds; shows every figure's rounds and every field changed;\n"
            "             the cache geometry stays as detected\n"
            "\n"
            "options:\n"
            "  --output FILE  write the description to FILE (a temporary beside it, checked, then renamed)\n"
            "                 instead of standard output\n"
            "  --quick        calibrate with fewer rounds and pieces (seconds; the full one, under a minute)\n"
            "  --tolerance F  refuse (exit 1, nothing written) when fewer than half the rounds of a figure\n"
            "                 written lie within the factor F of it (default 1.5; 1 refuses any difference)\n"
            "  --measured-capacity  let the last cache level's size be the reach its sweep measures\n"
            "                 (a share of a shared cache) instead of the size hwloc reports\n"
            "  -h, --help     show this help\n"
            "\n"
            "Exit status: 0 success, 2 usage error, 1 other errors.\n");
}

static int parse_option(int opt, const char *arg, void *ctx)
{
    machine_cli *o = ctx;
    switch (opt) {
    case 'o':
        o->output = arg;
        return 0;
    case 't':
        if (parse_double(arg, &o->cal.tolerance) != 0 || !(o->cal.tolerance >= 1))
            return cli_usage_error("machine", "--tolerance '%s': give a factor of at least 1, such as 1.5", arg);
        break;
    case 'c':
        o->cal.measured_capacity = 1;
        break;
    default:
        o->cal.quick = 1;
        break;
    }
    o->calibrate_only = 1;
    return 0;
}

static int list_machines(void)
{
    char err[2048], **names;
    size_t n;
    if (machine_names(&names, &n, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        machine m;
        if (machine_find(names[i], &m, err, sizeof err) == 0)
            printf("%-18s %s\n", names[i], m.description);
        else {
            printf("%-18s INVALID: %s\n", names[i], err);
            rc = EXIT_FAILURE_OTHER;
        }
        machine_free(&m);
    }
    machine_names_free(names, n);
    return rc;
}

/* show (print the description) or check (say it is valid). */
static int show_or_check(const char *name_or_path, int show)
{
    machine m;
    char err[2048];
    if (machine_find(name_or_path, &m, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    int rc = EXIT_OK;
    if (show) {
        char comment[4200];
        snprintf(comment, sizeof comment, "%s, as read by augur machine show", m.path);
        rc = machine_write(stdout, &m, comment) == 0 ? EXIT_OK : EXIT_FAILURE_OTHER;
    } else {
        printf("%s: ok: %s, %u cores, %u cache levels, %u TLBs\n", m.path, m.name, m.cores, m.ncaches, m.ntlbs);
    }
    machine_free(&m);
    return rc;
}

/* Write m to path (output_file.h: through symlinks, into FIFOs; a regular
 * file replaced atomically, its temporary loaded back first so that no
 * invalid description is left); -1 with the message printed. */
static int write_file(const char *path, const machine *m, const char *note)
{
    char err[2048];
    output_file of;
    if (output_open(&of, path, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s\n", err);
        return -1;
    }
    int ok = machine_write(of.f, m, note) == 0 && fflush(of.f) == 0;
    machine check;
    if (ok && of.tmp[0] && machine_load(of.tmp, &check, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: the description written is not valid: %s\n", err);
        output_close(&of, 0, err, sizeof err);
        return -1;
    }
    if (ok && of.tmp[0])
        machine_free(&check);
    if (output_close(&of, ok, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s (check the disk)\n", err);
        return -1;
    }
    return 0;
}

/* detect, then calibrate when asked; the result to --output or stdout.
 * --output is checked first, so that a bad path costs no measurement. */
static int describe_host(const machine_cli *o, int calibrate)
{
    machine m;
    char note[16384] = "", err[4096];
    if (o->output && output_check(o->output, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s; nothing was measured\n", err);
        return EXIT_FAILURE_OTHER;
    }
    if (machine_detect(&m, note, sizeof note, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s\n", err);
        return EXIT_FAILURE_OTHER;
    }
    int rc = 0;
    if (calibrate && machine_calibrate(&m, &o->cal, stderr, note, sizeof note, err, sizeof err) != 0) {
        fprintf(stderr, "augur machine: %s\n", err);
        rc = -1;
    }
    if (rc == 0)
        rc = o->output ? write_file(o->output, &m, note) : machine_write(stdout, &m, note);
    machine_free(&m);
    return rc == 0 ? EXIT_OK : EXIT_FAILURE_OTHER;
}

/* Run action `act` with `nargs` operands left in args. */
static int run_action(const char *act, const machine_cli *o, int nargs, char **args)
{
    int wants = !strcmp(act, "show") || !strcmp(act, "check");
    if (!wants && nargs > 0)
        return cli_usage_error("machine", "'%s' takes no argument, got '%s'", act, args[0]);
    if (wants && nargs != 1)
        return cli_usage_error("machine", "'%s' takes one NAME or FILE", act);
    if (o->calibrate_only && strcmp(act, "calibrate"))
        return cli_usage_error("machine", "'%s' takes no --quick, --tolerance or --measured-capacity", act);
    if (o->output && strcmp(act, "calibrate") && strcmp(act, "detect"))
        return cli_usage_error("machine", "'%s' takes no --output", act);
    if (!strcmp(act, "list"))
        return list_machines();
    if (wants)
        return show_or_check(args[0], !strcmp(act, "show"));
    if (!strcmp(act, "detect") || !strcmp(act, "calibrate"))
        return describe_host(o, !strcmp(act, "calibrate"));
    return cli_usage_error("machine", "unknown action '%s' (list, show, check, detect or calibrate)", act);
}

int cmd_machine(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"quick", no_argument, NULL, 'q'},
        {"tolerance", required_argument, NULL, 't'},
        {"measured-capacity", no_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    machine_cli o = {.cal = {.tolerance = 1.5}};
    int first;
    int rc = cli_getopt("machine", argc, argv, longopts, parse_option, &o, &first);
    if (rc == SHOW_HELP) {
        print_help(stdout);
        return EXIT_OK;
    }
    if (rc != 0)
        return rc;
    if (first >= argc)
        return cli_usage_error("machine", "give an action: list, show, check, detect or calibrate");
    return run_action(argv[first], &o, argc - first - 1, argv + first + 1);
}
