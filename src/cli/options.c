/* options.c — the getopt_long loop, the usage-error message and the
 * options that several subcommands share (options.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "report/report.h"
#include "util/parse.h"

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "augur %s: ", command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see augur %s --help)\n", command);
    va_end(ap);
    return EXIT_USAGE;
}

/* cli_getopt's loop with getopt_long's optstring: "+:h" stops at the
 * first operand, ":h" permutes. */
static int getopt_loop(const char *command, const char *optstring, int argc, char **argv,
                       const struct option *longopts, cli_take_fn take, void *ctx, int *operands)
{
    optind = 0; /* full reset of getopt's state, in case it was used before */
    opterr = 0; /* our own messages */
    int opt, index = -1;
    while ((opt = getopt_long(argc, argv, optstring, longopts, &index)) != -1) {
        if (opt == 'h')
            return SHOW_HELP;
        if (opt == '?')
            return cli_usage_error(command, "unknown option '%s'", argv[optind - 1]);
        if (opt == ':')
            return cli_usage_error(command, "option '%s' needs a value", argv[optind - 1]);
        if (optarg && strcmp(optarg, "--") == 0) /* `--output -- ./prog`: the value was forgotten */
            return cli_usage_error(command, "option '--%s' needs a value, not '--' (which ends the options)",
                                   index >= 0 ? longopts[index].name : "?");
        int rc = take(opt, optarg, ctx);
        if (rc != 0)
            return rc;
        index = -1;
    }
    *operands = optind;
    return 0;
}

int cli_getopt(const char *command, int argc, char **argv, const struct option *longopts, cli_take_fn take,
               void *ctx, int *operands)
{
    return getopt_loop(command, ":h", argc, argv, longopts, take, ctx, operands);
}

int cli_getopt_program(const char *command, int argc, char **argv, const struct option *longopts,
                       cli_take_fn take, void *ctx, int *operands)
{
    return getopt_loop(command, "+:h", argc, argv, longopts, take, ctx, operands);
}

int cli_take_format_of(const char *command, const char *arg, const char *const *names, int *format)
{
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        if (!strcmp(arg, names[i])) {
            *format = i;
            return 0;
        }
        const char *sep = i == 0 ? "" : names[i + 1] ? ", " : " or ";
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s--format %s", sep, names[i]);
    }
    return cli_usage_error(command, "bad format '%s': give %s", arg, list);
}

int cli_getopt_program_short(const char *command, const char *shortopts, int argc, char **argv,
                             const struct option *longopts, cli_take_fn take, void *ctx, int *operands)
{
    char optstring[64];
    snprintf(optstring, sizeof optstring, "+:h%s", shortopts);
    return getopt_loop(command, optstring, argc, argv, longopts, take, ctx, operands);
}

int cli_take_format(const char *command, const char *arg, int *json)
{
    static const char *const names[] = {"text", "json", NULL};
    return cli_take_format_of(command, arg, names, json);
}

int cli_take_percent(const char *command, const char *option, const char *arg, double *out)
{
    char *end;
    double v = strtod(arg, &end);
    if (end == arg || *end || !(v >= 0 && v <= 100))
        return cli_usage_error(command, "bad %s '%s': give a percentage from 0 to 100", option, arg);
    *out = v;
    return 0;
}

int cli_plain_numbers_json(const char *command)
{
    return cli_usage_error(command, "--plain-numbers is for the text output: JSON numbers have no separators "
                                    "(drop one of --plain-numbers and --format json)");
}

int cli_take_runs(const char *command, const char *arg, int64_t *runs, size_t *n, size_t max)
{
    char *copy = strdup(arg), *save = NULL;
    int rc = copy ? 0 : -1, full = 0;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; rc == 0 && tok; tok = strtok_r(NULL, ",", &save)) {
        char *dash = strchr(tok, '-');
        uint64_t lo, hi;
        if (dash)
            *dash = '\0';
        if (parse_u64(tok, &lo) != 0 || lo == 0 || lo > INT64_MAX ||
            (dash && (parse_u64(dash + 1, &hi) != 0 || hi < lo || hi > INT64_MAX)))
            rc = -1;
        if (!dash)
            hi = lo;
        for (uint64_t id = lo; rc == 0 && id <= hi; id++)
            if (*n == max)
                rc = -1, full = 1;
            else
                runs[(*n)++] = (int64_t)id;
    }
    free(copy);
    if (full)
        return cli_usage_error(command, "too many runs in --runs '%s' (at most %zu)", arg, max);
    return rc == 0 ? 0 : cli_usage_error(command, "bad --runs '%s': give run ids and ranges such as 1-5,8", arg);
}

int cli_take_top(const char *command, const char *arg, size_t *top)
{
    uint64_t v;
    if (parse_u64(arg, &v) != 0 || v > SIZE_MAX)
        return cli_usage_error(command, "bad --top '%s': give a number of rows (0 for all)", arg);
    *top = (size_t)v;
    return 0;
}

int cli_take_cache(const char *command, const char *arg, report_cache *caches, size_t *n)
{
    char err[256];
    if (*n == REPORT_MAX_CACHES)
        return cli_usage_error(command, "too many --cache options (at most %d)", REPORT_MAX_CACHES);
    if (report_cache_parse(arg, &caches[*n], err, sizeof err) != 0)
        return cli_usage_error(command, "%s", err);
    (*n)++;
    return 0;
}
