/* report_callgrind.c — what a run's call graph (callgrind.h) takes from
 * the run besides its report's rows: the header naming the run, and the
 * measured calls. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "report/callgrind.h"

void cg_header_add(cg_header *h, const char *fmt, ...)
{
    if (h->ndesc == CG_MAX_DESC)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->desc[h->ndesc++], sizeof h->desc[0], fmt, ap);
    va_end(ap);
}

void cg_header_run(const db_run *run, const char *what, cg_header *h)
{
    memset(h, 0, sizeof *h);
    FILE *s = fmemopen(h->cmd, sizeof h->cmd - 1, "w");
    if (s) {
        setbuf(s, NULL);
        report_print_command(run->command, s);
        fclose(s);
    }
    char params[400] = "";
    for (size_t i = 0; i < run->nparams; i++)
        snprintf(params + strlen(params), sizeof params - strlen(params), "%s%s=%s", i ? " " : ", ",
                 run->params[i].name, run->params[i].text);
    cg_header_add(h, "Run: %lld, %s%s%s", (long long)run->id, run->status,
                  *run->status_detail ? ": " : "", *run->status_detail ? run->status_detail : "");
    if (*params)
        cg_header_add(h, "Parameters: %s", params + 2);
    cg_header_add(h, "Costs: %s", what);
}

int cg_add_run_calls(cg_graph *g, db *d, int64_t run_id, size_t *added, char *err, size_t errlen)
{
    db_call *c;
    size_t n;
    *added = 0;
    if (db_run_calls(d, run_id, &c, &n, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int r = cg_add_call(g, c[i].caller, c[i].caller_module, c[i].file, c[i].line, c[i].callee,
                            c[i].callee_module, (double)c[i].count);
        *added += r == 0;
        if (r < 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    }
    db_calls_free(c, n);
    return rc;
}
