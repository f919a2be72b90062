/* options.h — what the subcommands share in reading their command line:
 * exit statuses, the usage-error message, the getopt_long loop and the
 * options several subcommands take (--format text|json, --top, --cache). */
#ifndef AUGUR_CLI_OPTIONS_H
#define AUGUR_CLI_OPTIONS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

struct report_cache; /* report/report.h (not included: its names would clash with the subcommands') */

/* Exit statuses: success, an error of the work, an error of the command line. */
enum { EXIT_OK = 0, EXIT_FAILURE_OTHER = 1, EXIT_USAGE = 2 };

/* cli_getopt's result when -h or --help was given. */
#define SHOW_HELP (-1)

/* Print "augur COMMAND: MESSAGE (see augur COMMAND --help)" to stderr and
 * return EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) int cli_usage_error(const char *command, const char *fmt, ...);

/* Called by cli_getopt for each option other than -h: opt is the option's
 * val, arg its value (NULL when it takes none).  Returns 0, or EXIT_USAGE
 * after printing the problem with cli_usage_error. */
typedef int (*cli_take_fn)(int opt, const char *arg, void *ctx);

/* Read the options of argv (argv[0] is the subcommand) with getopt_long
 * and longopts, which must include {"help", no_argument, NULL, 'h'}.
 * Returns SHOW_HELP for -h/--help, EXIT_USAGE (message printed) for an
 * unknown option, a missing value (or "--" as the value) or what take
 * refused, else 0 with
 * *operands the index of the first argument that is not an option. */
int cli_getopt(const char *command, int argc, char **argv, const struct option *longopts, cli_take_fn take,
               void *ctx, int *operands);

/* cli_getopt for a command that runs PROGRAM [ARGS...]: options end at
 * the first operand (or "--"), so that the program's own options, such as
 * --help, reach the program. */
int cli_getopt_program(const char *command, int argc, char **argv, const struct option *longopts,
                       cli_take_fn take, void *ctx, int *operands);

/* cli_getopt_program with short options besides -h, in getopt's form
 * ("p:" for -p VALUE); each is handed to take with its letter. */
int cli_getopt_program_short(const char *command, const char *shortopts, int argc, char **argv,
                             const struct option *longopts, cli_take_fn take, void *ctx, int *operands);

/* The value of --format text|json: *json is 1 for json, 0 for text;
 * EXIT_USAGE (message printed) for anything else. */
int cli_take_format(const char *command, const char *arg, int *json);

/* The value of --format among `names` (NULL-terminated): *format is its
 * index; EXIT_USAGE (message printed, listing them) for anything else. */
int cli_take_format_of(const char *command, const char *arg, const char *const *names, int *format);

/* The value of a percentage option (--threshold, --error-threshold) from 0
 * to 100 into *out, or EXIT_USAGE (message printed, naming `option`). */
int cli_take_percent(const char *command, const char *option, const char *arg, double *out);

/* The refusal of --plain-numbers with --format json (JSON numbers have no
 * separators to drop): prints the usage error, returns EXIT_USAGE. */
int cli_plain_numbers_json(const char *command);

/* The value of --runs LIST ("1-5,8": ids and ranges), appended to
 * runs[*n] (room for max); EXIT_USAGE (message printed) when it does not
 * parse or there are more than max. */
int cli_take_runs(const char *command, const char *arg, int64_t *runs, size_t *n, size_t max);

/* The value of --top N, rows per table (0: all): into *top, or EXIT_USAGE
 * (message printed) when it is not a number. */
int cli_take_top(const char *command, const char *arg, size_t *top);

/* The value of one more --cache SIZE[:LINE]: appended to caches[*n]
 * (room for REPORT_MAX_CACHES), or EXIT_USAGE (message printed) when it
 * does not parse or there are too many. */
int cli_take_cache(const char *command, const char *arg, struct report_cache *caches, size_t *n);

#endif
