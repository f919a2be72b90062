/* parse.h — parsing the sources with libclang and walking them (parse.c). */
#ifndef AUGUR_STATIC_PARSE_H
#define AUGUR_STATIC_PARSE_H

#include "static/sources.h"

/* Parse and walk every source into p.  Returns 0, or -1 with a message
 * holding clang's error diagnostics. */
int sa_analyse_sources(sa_program *p, const sa_sources *srcs, char *err, size_t errlen);

#endif
