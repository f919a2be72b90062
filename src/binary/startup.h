/* startup.h — which code is the dynamic loader's or the C runtime's
 * start-up and exit, not the program's work: hidden by default in the
 * rankings of `augur report`, `augur predict` and `augur memspy`, with
 * their total on one line (docs/report.md, "Start-up and loader").
 *
 * The rule looks at names only (a run records no order of execution), and
 * a function is start-up code when
 *   1. its module is the dynamic loader: a file named ld-linux* (glibc's
 *      ld-linux-x86-64.so.2) or ld-VERSION.so (the real file of glibc
 *      before 2.34): everything it runs, at start-up or later (lazy
 *      binding of PLT calls, dlopen), is loading;
 *   2. its module is Valgrind's core preload (vgpreload_core-*), which runs
 *      glibc's freeres at exit under the tools (not the tools' own preloads,
 *      such as memspy's malloc);
 *   3. it is an IFUNC resolver: named as a function symbol of its module at
 *      the address of an STT_GNU_IFUNC symbol (memcpy, strlen of libc.so.6,
 *      which are their own resolvers; the resolver GCC's ifunc attribute
 *      names).  The loader calls the resolver to choose the implementation
 *      (__memcpy_avx_unaligned_erms), which is what the program's calls
 *      reach; nothing else enters the resolver;
 *   4. its name is one of glibc's start-up, one-time initialisation or
 *      exit functions (startup.c lists the patterns), in any module: a
 *      statically linked program holds them itself.
 * Names are compared without a symbol version (memcpy@@GLIBC_2.14), glibc's
 * internal prefix __GI_ and GCC's clone suffixes (.part.0, .constprop.0). */
#ifndef AUGUR_STARTUP_H
#define AUGUR_STARTUP_H

/* The rules, with the IFUNC symbols of each module read once (a module
 * whose file is gone or is not ELF has none). */
typedef struct startup_rules startup_rules;

/* New rules; NULL when memory runs out. */
startup_rules *startup_rules_new(void);
void startup_rules_free(startup_rules *r);

/* 1 when `function` of the module at path `module` is start-up code by the
 * rules above, else 0 (also for unknown names: NULL).  -1 when memory runs
 * out reading the module's symbols. */
int startup_is(startup_rules *r, const char *function, const char *module);

/* 1 when the module at `path` is the dynamic loader (rule 1). */
int startup_is_loader(const char *path);

#endif
