/* parse.c — each source parsed by libclang with its options and walked
 * into the program model.  A source with errors stops the analysis, with
 * clang's diagnostics in the message (a model of half a program would
 * mislead). */
#include "static/parse.h"
#include "static/walk.h"

#include <stdio.h>
#include <string.h>

/* The error diagnostics of tu, one per line, into err; their number. */
static int errors(CXTranslationUnit tu, char *err, size_t errlen)
{
    int n = 0;
    size_t used = strlen(err);
    for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
        CXDiagnostic d = clang_getDiagnostic(tu, i);
        if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
            CXString s = clang_formatDiagnostic(d, clang_defaultDiagnosticDisplayOptions());
            if (used + 2 < errlen)
                used += (size_t)snprintf(err + used, errlen - used, "\n  %s", clang_getCString(s));
            clang_disposeString(s);
            n++;
        }
        clang_disposeDiagnostic(d);
    }
    return n;
}

int sa_analyse_sources(sa_program *p, const sa_sources *srcs, char *err, size_t errlen)
{
    CXIndex idx = clang_createIndex(0, 0);
    int rc = 0;
    for (size_t i = 0; i < srcs->n && rc == 0; i++) {
        const sa_source *s = &srcs->v[i];
        CXTranslationUnit tu = NULL;
        enum CXErrorCode e = clang_parseTranslationUnit2(idx, s->path, s->args, (int)s->nargs, NULL, 0,
                                                         CXTranslationUnit_DetailedPreprocessingRecord, &tu);
        if (e != CXError_Success || !tu) {
            snprintf(err, errlen, "%s: libclang could not parse it (error %d): is it a C file that exists?", s->path,
                     (int)e);
            rc = -1;
            break;
        }
        snprintf(err, errlen, "%s does not parse; clang says:", s->path);
        if (errors(tu, err, errlen) > 0) {
            rc = -1;
        } else {
            err[0] = 0;
            sa_walk_tu(p, tu, s->path);
        }
        clang_disposeTranslationUnit(tu);
    }
    clang_disposeIndex(idx);
    return rc;
}
