/* cmd_import.c — `augur import`: store raw profiles kept by
 * `augur collect --keep-profiles` (or copied from another machine) as a run.
 *
 * Every profile is read and verified before anything is written, so a
 * corrupt or truncated file leaves the database as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/runs.h"

static void usage(FILE *to)
{
    fprintf(to,
            "usage: augur import [--db FILE] [--param NAME=VALUE]... PROFILE...\n\n"
            "Stores raw profiles (augur.<pid>.prof, docs/profile-format.md) as one run: the first\n"
            "PROFILE is the main process, the others its children. The run's command is the main\n"
            "profile's executable and arguments; it is 'partial' if the main process did not exit\n"
            "normally. Its start and finish times are the time of the import.\n\n"
            "options:\n"
            "  --db FILE            experiment database (default: $AUGUR_DB or ./augur.db)\n"
            "  --param NAME=VALUE   a numeric run parameter; repeat for more\n"
            "  -h, --help           this text\n\n"
            "example:\n"
            "  augur collect --keep-profiles prof/ -- ./app 100\n"
            "  augur import --db other.db --param N=100 prof/augur.*.prof\n");
}

/* argv of the run: the main profile's executable and arguments. */
static char **command_of(const profile *p)
{
    char **argv = calloc((size_t)p->argc + 2, sizeof *argv);
    argv[0] = p->exe;
    for (int i = 0; i < p->argc; i++)
        argv[i + 1] = p->argv[i];
    return argv;
}

static int import_files(const char *db_path, const run_params *params, char **files, int nfiles)
{
    char err[1024], started[32];
    iso_now(started, sizeof started);
    process_set *s = calloc(1, sizeof *s);
    for (int i = 0; i < nfiles; i++) {
        if (process_set_add_file(s, files[i], err, sizeof err) != 0) {
            fprintf(stderr, "augur import: %s\n  Nothing was stored.\n", err);
            process_set_free(s);
            free(s);
            return EXIT_AUGUR_FAILED;
        }
    }
    const profile *main_proc = s->procs[0];
    run_outcome outcome = {
        .started = started,
        .status = main_proc->has_exit ? "complete" : "partial",
        .detail = main_proc->has_exit ? "" : "the main process did not exit normally (no exit line)",
        .exit_code = main_proc->has_exit ? main_proc->exit_code : 0,
    };
    char **argv = command_of(main_proc);
    int rc = store_run(db_path, argv, params, &outcome, s, "import");
    free(argv);
    process_set_free(s);
    free(s);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    const char *db_path = default_db_path();
    run_params params = {0};
    char err[512];
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            run_params_free(&params);
            return 0;
        }
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if ((strcmp(a, "--db") && strcmp(a, "--param")) || i + 1 >= argc) {
            fprintf(stderr, "augur import: %s '%s' (see augur import --help)\n",
                    strcmp(a, "--db") && strcmp(a, "--param") ? "unknown option" : "missing value for", a);
            run_params_free(&params);
            return 2;
        }
        const char *value = argv[++i];
        if (!strcmp(a, "--db")) {
            db_path = value;
        } else if (run_params_add(&params, value, err, sizeof err) != 0) {
            fprintf(stderr, "augur import: %s\n", err);
            run_params_free(&params);
            return 2;
        }
    }
    int rc;
    if (i >= argc) {
        fprintf(stderr, "augur import: no profiles given (augur import [--db FILE] PROFILE...)\n");
        rc = 2;
    } else {
        rc = import_files(db_path, &params, argv + i, argc - i);
    }
    run_params_free(&params);
    return rc;
}
