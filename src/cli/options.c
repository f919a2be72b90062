/* options.c — the getopt_long loop and the usage-error message every
 * subcommand with long options shares (options.h). */
#include <stdarg.h>
#include <stdio.h>

#include "cli/options.h"

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

int cli_getopt(const char *command, int argc, char **argv, const struct option *longopts, cli_take_fn take,
               void *ctx, int *operands)
{
    optind = 0; /* full reset of getopt's state, in case it was used before */
    opterr = 0; /* our own messages */
    int opt;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (opt == 'h')
            return SHOW_HELP;
        if (opt == '?')
            return cli_usage_error(command, "unknown option '%s'", argv[optind - 1]);
        if (opt == ':')
            return cli_usage_error(command, "option '%s' needs a value", argv[optind - 1]);
        int rc = take(opt, optarg, ctx);
        if (rc != 0)
            return rc;
    }
    *operands = optind;
    return 0;
}
