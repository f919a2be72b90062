/* startup.c — the start-up and loader rule of startup.h: module names,
 * IFUNC symbols read from each module's ELF symbol tables with libelf, and
 * glibc's start-up and exit functions by name. */
#define _GNU_SOURCE /* strndup */
#include "binary/startup.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/array.h"

/* glibc's start-up, one-time initialisation and exit code (rule 4), as
 * fnmatch patterns over the plain name.  Start: the entry point and what
 * runs before main (_start, __libc_start_main and below main, TLS, IRELATIVE
 * relocations of a static program, tunables, CPU features, locale and stdio
 * checks); the first malloc's arena set-up; ELF constructors and
 * destructors (_init, _fini, crtstuff's frame_dummy and the TM clone
 * registration); exit (handlers, stdio clean-up, TLS destructors). */
static const char *const startup_patterns[] = {
    "_start", "_init", "_fini", "(below main)", "__libc_start_main", "__libc_start_call_main",
    "__libc_csu_init", "__libc_csu_fini", "__libc_init_first", "_init_first", "__libc_init_secure",
    "__libc_early_init", "__libc_setup_tls", "__libc_init", "_dl_*", "__tunables_init", "__tunable_*",
    "__pthread_tunables_init", "__init_misc", "__ctype_init", "init_cacheinfo", "__x86_cacheinfo",
    "init_cpu_features", "__init_cpu_features", "__lll_elision_init", "check_stdfiles_vtables", "_IO_init",
    "apply_irel", "__libc_setup_vdso", "setup_vdso_pointers", "ptmalloc_init", "tcache_init", "frame_dummy",
    "register_tm_clones", "deregister_tm_clones", "__do_global_dtors_aux", "__do_global_ctors_aux",
    "exit", "_exit", "_Exit", "__run_exit_handlers", "__cxa_atexit", "__internal_atexit", "__new_exitfn",
    "__cxa_finalize", "__unregister_atfork", "__call_tls_dtors", "_IO_cleanup", "_IO_unbuffer_all", "__libc_atexit",
    "__libc_freeres", "_vgnU_freeres",
};

/* One module's IFUNC resolver names, sorted. */
typedef struct module_ifuncs {
    char *path;
    char **names;
    size_t n;
} module_ifuncs;

struct startup_rules {
    module_ifuncs *modules;
    size_t n, cap;
};

startup_rules *startup_rules_new(void)
{
    return calloc(1, sizeof(startup_rules));
}

void startup_rules_free(startup_rules *r)
{
    for (size_t i = 0; r && i < r->n; i++) {
        free(r->modules[i].path);
        array_free_strings(r->modules[i].names, r->modules[i].n);
    }
    if (r)
        free(r->modules);
    free(r);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int startup_is_loader(const char *path)
{
    const char *b = path ? base_name(path) : "";
    return !strncmp(b, "ld-linux", 8) || !fnmatch("ld-[0-9]*.so", b, 0);
}

/* Rule 2: Valgrind's core preload, not a tool's. */
static int is_valgrind_core(const char *path)
{
    return path && !strncmp(base_name(path), "vgpreload_core-", 15);
}

/* ---- IFUNC symbols ------------------------------------------------------- */

static int by_string(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The defined function symbols (STT_FUNC, STT_GNU_IFUNC) of e's symbol
 * tables, each passed to fn(ctx, name, address, is_ifunc) until it returns
 * nonzero, which is returned. */
typedef int (*symbol_fn)(void *ctx, const char *name, uint64_t addr, int is_ifunc);

static int for_each_function(Elf *e, symbol_fn fn, void *ctx)
{
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
            !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym sym;
            const char *name;
            int type = gelf_getsym(data, (int)i, &sym) ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;
            if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
                !(name = elf_strptr(e, sh.sh_link, sym.st_name)) || !*name)
                continue;
            int rc = fn(ctx, name, sym.st_value, type == STT_GNU_IFUNC);
            if (rc)
                return rc;
        }
    }
    return 0;
}

/* What reading a module's resolvers collects: the IFUNC symbols'
 * addresses, then the names of every function at one of them. */
typedef struct resolvers {
    uint64_t *addrs;
    size_t naddrs, addr_cap, name_cap;
    module_ifuncs *m;
} resolvers;

static int by_address(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int add_address(void *ctx, const char *name, uint64_t addr, int is_ifunc)
{
    (void)name;
    resolvers *rs = ctx;
    if (!is_ifunc)
        return 0;
    uint64_t *grown = array_grow(rs->addrs, rs->naddrs, &rs->addr_cap, sizeof *grown);
    if (!grown)
        return -1;
    rs->addrs = grown;
    rs->addrs[rs->naddrs++] = addr;
    return 0;
}

/* Every name at an IFUNC address: the IFUNC symbol (glibc's memcpy is its
 * own resolver) and a resolver's own name (GCC's ifunc attribute). */
static int add_name(void *ctx, const char *name, uint64_t addr, int is_ifunc)
{
    (void)is_ifunc;
    resolvers *rs = ctx;
    module_ifuncs *m = rs->m;
    if (!bsearch(&addr, rs->addrs, rs->naddrs, sizeof *rs->addrs, by_address))
        return 0;
    char **grown = array_grow(m->names, m->n, &rs->name_cap, sizeof *grown);
    if (!grown)
        return -1;
    m->names = grown;
    if (!(m->names[m->n] = strdup(name)))
        return -1;
    m->n++;
    return 0;
}

/* The names of the IFUNC resolvers of the ELF file at m->path, sorted;
 * none when it cannot be read.  -1 when memory runs out. */
static int read_ifuncs(module_ifuncs *m)
{
    int fd = elf_version(EV_CURRENT) == EV_NONE ? -1 : open(m->path, O_RDONLY);
    Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    resolvers rs = {.m = m};
    int rc = e ? for_each_function(e, add_address, &rs) : 0;
    if (rc == 0 && rs.naddrs) {
        qsort(rs.addrs, rs.naddrs, sizeof *rs.addrs, by_address);
        rc = for_each_function(e, add_name, &rs);
    }
    if (e)
        elf_end(e);
    if (fd >= 0)
        close(fd);
    free(rs.addrs);
    if (m->n)
        qsort(m->names, m->n, sizeof *m->names, by_string);
    return rc;
}

/* The IFUNC resolver names of the module at path, read on first use;
 * NULL when memory runs out. */
static const module_ifuncs *ifuncs_of(startup_rules *r, const char *path)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->modules[i].path, path))
            return &r->modules[i];
    module_ifuncs *grown = array_grow(r->modules, r->n, &r->cap, sizeof *grown);
    if (!grown)
        return NULL;
    r->modules = grown;
    module_ifuncs *m = &r->modules[r->n];
    *m = (module_ifuncs){.path = strdup(path)};
    if (!m->path || read_ifuncs(m) != 0) {
        free(m->path);
        array_free_strings(m->names, m->n);
        return NULL;
    }
    r->n++;
    return m;
}

/* ---- names --------------------------------------------------------------- */

/* The plain name of a function as Valgrind names it: without a symbol
 * version (@@GLIBC_2.14, @GLIBC_2.2.5), glibc's __GI_ prefix or a GCC
 * clone suffix (.part.0, .constprop.0, .isra.0, .cold).  A new string;
 * NULL when memory runs out. */
static char *plain_name(const char *function)
{
    const char *s = !strncmp(function, "__GI_", 5) ? function + 5 : function;
    size_t n = strcspn(s, "@");
    const char *dot = memchr(s + 1, '.', n > 0 ? n - 1 : 0); /* a name never starts with its suffix */
    return strndup(s, dot ? (size_t)(dot - s) : n);
}

static int matches_pattern(const char *name)
{
    for (size_t i = 0; i < sizeof startup_patterns / sizeof *startup_patterns; i++)
        if (!fnmatch(startup_patterns[i], name, 0))
            return 1;
    return 0;
}

int startup_is(startup_rules *r, const char *function, const char *module)
{
    if (startup_is_loader(module) || is_valgrind_core(module))
        return 1;
    if (!function)
        return 0;
    char *name = plain_name(function);
    if (!name)
        return -1;
    int is = matches_pattern(name);
    if (!is && module) {
        const module_ifuncs *m = ifuncs_of(r, module);
        /* a module without IFUNC symbols has no array to search (bsearch's
         * base must not be NULL, even for no elements) */
        is = !m ? -1 : m->n && bsearch(&name, m->names, m->n, sizeof *m->names, by_string);
    }
    free(name);
    return is;
}
