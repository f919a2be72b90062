/* modelset_paths.c — functions whose code paths change with the size
 * (docs/models.md, "Library routines: work per call"): the functions of a
 * library (any module but the program: glibc's memcpy, memset, strlen
 * switch paths with the length they are given) and any function whose set
 * of executed instructions differs between the training runs.  For each,
 * the calls entering it in every run (their work is modeled as calls times
 * work per call, model_compose) and the run where it executed the most
 * instructions, whose mix of lines and blocks carries the function's
 * model down to them (ms_path_share).  A library function's bytes per run,
 * from the operand sizes of its module's file, and whether its instructions
 * per byte changed path between the runs (ms_path_per_byte). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "binary/buildid.h"
#include "modelset/modelset.h"
#include "structure/structure.h"
#include "util/array.h"

/* A module of the runs and its file's image (NULL: gone, or another build). */
typedef struct module_image {
    int64_t id;
    st_image *img;
} module_image;

typedef struct module_images {
    module_image *m;
    size_t n, cap;
} module_images;

/* One location of the series, keyed by its function. */
typedef struct fn_loc {
    int64_t function_id, module_id;
    size_t loc;
} fn_loc;

static int by_function(const void *pa, const void *pb)
{
    const fn_loc *a = pa, *b = pb;
    if (a->function_id != b->function_id)
        return a->function_id < b->function_id ? -1 : 1;
    if (a->module_id != b->module_id)
        return a->module_id < b->module_id ? -1 : 1;
    return a->loc < b->loc ? -1 : a->loc > b->loc;
}

/* Does location l run in some runs and not in others? */
static int comes_and_goes(const ms_series *s, size_t l)
{
    size_t n = s->runs->n, ran = 0;
    for (size_t r = 0; r < n; r++)
        ran += s->exec[l * n + r] > 0;
    return ran > 0 && ran < n;
}

/* The image of module `id` in ims, or NULL. */
static st_image *image_of(const module_images *ims, int64_t id)
{
    for (size_t i = 0; i < ims->n; i++)
        if (ims->m[i].id == id)
            return ims->m[i].img;
    return NULL;
}

/* Add module (path, build_id) of the runs to ims, its file opened when it
 * is that build; a module already there is left.  -1 with a message. */
static int add_image(db *d, module_images *ims, const char *path, const char *build_id, char *err, size_t errlen)
{
    int64_t id;
    int rc = db_module_id(d, path, build_id, &id, err, errlen);
    if (rc != 0)
        return rc == DB_NOT_FOUND ? 0 : -1;
    for (size_t i = 0; i < ims->n; i++)
        if (ims->m[i].id == id)
            return 0;
    module_image *grown = array_grow(ims->m, ims->n, &ims->cap, sizeof *grown);
    if (!grown)
        return snprintf(err, errlen, "out of memory"), -1;
    ims->m = grown;
    module_image *mi = &ims->m[ims->n++];
    *mi = (module_image){.id = id};
    char why[256];
    if (*build_id && elf_is_build(path, build_id) && st_image_open(path, &mi->img, why, sizeof why) != 0)
        mi->img = NULL; /* unreadable: its functions' bytes stay unknown */
    return 0;
}

/* The modules other than the program that the runs executed, opened. */
static int open_images(db *d, const ms_runs *runs, module_images *ims, char *err, size_t errlen)
{
    for (size_t r = 0; r < runs->n; r++) {
        db_run_module *m;
        size_t n;
        if (db_run_modules(d, runs->ids[r], &m, &n, err, errlen) != 0)
            return -1;
        int rc = 0;
        for (size_t i = 0; rc == 0 && i < n; i++)
            if (!m[i].is_program)
                rc = add_image(d, ims, m[i].path, m[i].build_id ? m[i].build_id : "", err, errlen);
        db_run_modules_free(m, n);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static void close_images(module_images *ims)
{
    for (size_t i = 0; i < ims->n; i++)
        st_image_close(ims->m[i].img);
    free(ims->m);
}

/* The mean bytes of a read and of a write access of the instruction at
 * addr (len bytes) of img, into size[0] and size[1]: its memory operands'
 * sizes (`rep stosb` writes 1 byte an iteration, vmovdqu ymm 32); 0 for a
 * kind it lacks.  -1 when its bytes cannot be read or decoded. */
static int access_sizes(const st_image *img, uint64_t addr, uint32_t len, double size[2])
{
    uint8_t code[16];
    st_insn in;
    if (len > sizeof code || st_image_read(img, addr, code, len) != 0 || st_decode_one(code, len, addr, &in) != len)
        return -1;
    double sum[2] = {0}, count[2] = {0};
    for (int i = 0; i < in.nmem; i++)
        for (int kind = 0; kind < 2; kind++)
            if (in.mem[i].access & (kind ? ST_MEM_WRITE : ST_MEM_READ))
                sum[kind] += in.mem[i].size, count[kind]++;
    for (int kind = 0; kind < 2; kind++)
        size[kind] = count[kind] > 0 ? sum[kind] / count[kind] : 0;
    return 0;
}

/* fn->bytes from locations k[first..end) of img; left NULL when an
 * accessing instruction does not decode. */
static int count_bytes(const ms_series *s, const fn_loc *k, size_t first, size_t end, const st_image *img,
                       ms_path_fn *fn)
{
    size_t n = s->runs->n;
    double *b = calloc(2 * n + 1, sizeof *b);
    if (!b)
        return -1;
    for (size_t i = first; i < end; i++) {
        size_t l = k[i].loc;
        double size[2];
        int accesses = 0;
        for (size_t r = 0; r < n; r++)
            accesses |= s->reads[l * n + r] > 0 || s->writes[l * n + r] > 0;
        if (!accesses)
            continue;
        if (access_sizes(img, s->locs[l].addr, s->locs[l].len, size) != 0) {
            free(b);
            return 0;
        }
        for (size_t r = 0; r < n; r++)
            b[r] += s->reads[l * n + r] * size[0], b[n + r] += s->writes[l * n + r] * size[1];
    }
    fn->bytes = b;
    return 0;
}

/* Whether fn's instructions per byte differ between the runs by more than
 * MS_PATH_RATIO (each run with bytes). */
static int changes_path(const ms_series *s, const fn_loc *k, size_t first, size_t end, const ms_path_fn *fn)
{
    size_t n = s->runs->n;
    double lo = 0, hi = 0;
    for (size_t r = 0; r < n; r++) {
        double instructions = 0, bytes = fn->bytes[r] + fn->bytes[n + r];
        for (size_t i = first; i < end; i++)
            instructions += s->exec[k[i].loc * n + r];
        if (!(bytes > 0))
            return 0;
        double ratio = instructions / bytes;
        lo = r ? fmin(lo, ratio) : ratio, hi = r ? fmax(hi, ratio) : ratio;
    }
    return hi > MS_PATH_RATIO * lo;
}

/* The entry of locations k[first..end) (one function), whether it switches
 * paths, and its largest run; *keep 0 when it does not switch. */
static int describe(const ms_series *s, const fn_loc *k, size_t first, size_t end, ms_path_fn *fn, int *keep)
{
    size_t n = s->runs->n, l0 = k[first].loc;
    *fn = (ms_path_fn){.function_id = k[first].function_id, .module_id = k[first].module_id,
                       .function = s->function[l0], .module = s->module[l0],
                       .library = k[first].module_id != s->runs->program_module};
    for (size_t i = first; i < end && !fn->switches; i++)
        fn->switches = comes_and_goes(s, k[i].loc);
    *keep = fn->library || fn->switches;
    if (!*keep)
        return 0;
    double best = -1;
    for (size_t r = 0; r < n; r++) {
        double t[3] = {0};
        for (size_t i = first; i < end; i++) {
            size_t v = k[i].loc * n + r;
            t[0] += s->exec[v], t[1] += s->reads[v], t[2] += s->writes[v];
        }
        if (t[0] > best)
            best = t[0], fn->largest = r, memcpy(fn->totals, t, sizeof t);
    }
    return (fn->calls = calloc(n + 1, sizeof *fn->calls)) ? 0 : -1;
}

/* Add run r's calls to the entries they enter (matched by function and
 * module name: the series' names are the database's). */
static int add_calls(db *d, ms_paths *p, size_t r, char *err, size_t errlen)
{
    db_call *c;
    size_t nc;
    if (db_run_calls(d, p->runs->ids[r], &c, &nc, err, errlen) != 0)
        return -1;
    for (size_t i = 0; i < nc; i++)
        for (size_t e = 0; c[i].callee && e < p->n; e++) {
            ms_path_fn *fn = &p->fn[e];
            if (fn->function && !strcmp(fn->function, c[i].callee) &&
                (fn->module == c[i].callee_module ||
                 (fn->module && c[i].callee_module && !strcmp(fn->module, c[i].callee_module))))
                fn->calls[r] += (double)c[i].count;
        }
    db_calls_free(c, nc);
    return 0;
}

/* A library function's bytes and whether its path changes (nothing when
 * its module's file is not at hand). */
static int add_bytes(const ms_series *s, const fn_loc *k, size_t first, size_t end, const module_images *ims,
                     ms_path_fn *fn)
{
    const st_image *img = fn->library ? image_of(ims, fn->module_id) : NULL;
    if (!img)
        return 0;
    if (count_bytes(s, k, first, end, img, fn) != 0)
        return -1;
    fn->per_byte = fn->bytes && changes_path(s, k, first, end, fn);
    return 0;
}

int ms_paths_load(db *d, const ms_series *s, ms_paths *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->runs = s->runs;
    module_images ims = {0};
    if (open_images(d, s->runs, &ims, err, errlen) != 0) {
        close_images(&ims);
        return -1;
    }
    fn_loc *k = malloc((s->nlocs + 1) * sizeof *k);
    if (!k) {
        close_images(&ims);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    for (size_t i = 0; i < s->nlocs; i++)
        k[i] = (fn_loc){s->locs[i].function_id, s->locs[i].module_id, i};
    qsort(k, s->nlocs, sizeof *k, by_function);
    size_t cap = 0;
    int rc = 0;
    for (size_t first = 0, end; rc == 0 && first < s->nlocs; first = end) {
        for (end = first + 1; end < s->nlocs && k[end].function_id == k[first].function_id &&
                              k[end].module_id == k[first].module_id;
             end++)
            ;
        ms_path_fn fn = {0};
        int keep;
        ms_path_fn *grown = array_grow(out->fn, out->n, &cap, sizeof *grown);
        if (grown)
            out->fn = grown;
        if (!grown || describe(s, k, first, end, &fn, &keep) != 0 ||
            (keep && add_bytes(s, k, first, end, &ims, &fn) != 0)) {
            free(fn.calls);
            snprintf(err, errlen, "out of memory");
            rc = -1;
            break;
        }
        if (keep)
            out->fn[out->n++] = fn;
    }
    free(k);
    close_images(&ims);
    for (size_t r = 0; rc == 0 && r < s->runs->n; r++)
        rc = add_calls(d, out, r, err, errlen);
    return rc;
}

void ms_paths_free(ms_paths *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->fn[i].calls), free(p->fn[i].bytes);
    free(p->fn);
    memset(p, 0, sizeof *p);
}

ms_path_fn *ms_paths_find(const ms_paths *p, const ms_loc *l)
{
    if (!p)
        return NULL;
    size_t lo = 0, hi = p->n;
    fn_loc key = {l->function_id, l->module_id, 0};
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        fn_loc at = {p->fn[mid].function_id, p->fn[mid].module_id, 0};
        if (by_function(&at, &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < p->n && p->fn[lo].function_id == l->function_id && p->fn[lo].module_id == l->module_id ? &p->fn[lo]
                                                                                                        : NULL;
}

int ms_path_called(const ms_path_fn *fn, size_t nruns)
{
    for (size_t r = 0; r < nruns; r++)
        if (!(fn->calls[r] > 0))
            return 0;
    return 1;
}

int ms_path_distributes(const ms_path_fn *fn)
{
    return fn->kept[0].npoints > 0 && fn->kept[0].method != MODEL_EXACT && fn->kept[0].method != MODEL_CONSTANT;
}

/* *out = m times factor (its constant and every term's coefficient). */
static void scaled(const model *m, double factor, model *out)
{
    *out = *m;
    out->constant *= factor;
    for (int t = 0; t < out->nterms; t++)
        out->terms[t].coef *= factor;
}

int ms_path_share(const ms_path_fn *fn, int metric, double part, model *out)
{
    if (fn->kept[metric].npoints == 0 || !(fn->totals[metric] > 0))
        return -1;
    scaled(&fn->kept[metric], part / fn->totals[metric], out);
    return 0;
}

int ms_path_bytes(const ms_path_fn *fn, size_t nruns, double *y)
{
    if (!fn->bytes)
        return -1;
    for (size_t r = 0; r < nruns; r++)
        y[r] = fn->bytes[r] + fn->bytes[nruns + r];
    return 0;
}

void ms_path_per_byte(const ms_path_fn *fn, size_t nruns, const model *bytes, double total, model *out)
{
    scaled(bytes, total / (fn->bytes[fn->largest] + fn->bytes[nruns + fn->largest]), out);
    out->method = MODEL_COMPOSED;
}
