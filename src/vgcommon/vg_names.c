/* vg_names.c — interned module, function and file names (see vg_names.h). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "util/fortran_name.h"
#include "util/srcpath.h"
#include "vgcommon/vg_names.h"

static Word compare_strings(UWord a, UWord b)
{
    return VG_(strcmp)((const HChar *)a, (const HChar *)b);
}

static WordFM *new_name_map(void)
{
    return VG_(newFM)(VG_(malloc), "vgn.names", VG_(free), compare_strings);
}

static XArray *new_list(SizeT elem_size)
{
    return VG_(newXA)(VG_(malloc), "vgn.list", VG_(free), elem_size);
}

void vgn_init(VgNames *n)
{
    n->module_ids = new_name_map();
    n->fn_ids = new_name_map();
    n->file_ids = new_name_map();
    n->module_names = new_list(sizeof(HChar *));
    n->module_bias = new_list(sizeof(Addr));
    n->fn_names = new_list(sizeof(HChar *));
    n->file_names = new_list(sizeof(HChar *));
}

/* The id of `name` in (ids, names), adding it if new.  The key is copied. */
static Int intern(WordFM *ids, XArray *names, const HChar *name)
{
    UWord key, val;
    if (VG_(lookupFM)(ids, &key, &val, (UWord)name))
        return (Int)val - 1;
    HChar *copy = VG_(strdup)("vgn.name", name);
    Int id = (Int)VG_(sizeXA)(names);
    VG_(addToXA)(names, &copy);
    VG_(addToFM)(ids, (UWord)copy, (UWord)id + 1);
    return id;
}

Int vgn_module(VgNames *n, Addr addr, Addr *bias_out)
{
    DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), addr);
    if (!di) {
        *bias_out = 0;
        return -1;
    }
    const HChar *path = VG_(DebugInfo_get_filename)(di);
    Addr bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
    HChar key[4096 + 32];
    VG_(snprintf)(key, sizeof key, "%lx:%s", (unsigned long)bias, path);
    Word before = VG_(sizeXA)(n->module_names);
    Int id = intern(n->module_ids, n->module_names, key);
    if (id == before) { /* new: keep the bare path beside the bias */
        HChar **slot = VG_(indexXA)(n->module_names, id);
        *slot = VG_(strdup)("vgn.name", path);
        VG_(addToXA)(n->module_bias, &bias);
    }
    *bias_out = bias;
    return id;
}

Int vgn_fn(VgNames *n, const HChar *name)
{
    HChar fortran[512]; /* "__grid_MOD_relax" as "grid::relax", as structure names it */
    return intern(n->fn_ids, n->fn_names, fortran_name(fortran, sizeof fortran, name) ? fortran : name);
}

const HChar *vgn_fn_name(const VgNames *n, Int fn)
{
    return fn < 0 ? "" : *(HChar **)VG_(indexXA)(n->fn_names, fn);
}

VgCodeLoc vgn_code_loc(VgNames *n, Addr addr)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *fn, *file, *dir;
    Addr bias;
    VgCodeLoc loc = {.file = -1, .line = 0};
    loc.module = vgn_module(n, addr, &bias);
    loc.fn = VG_(get_fnname)(ep, addr, &fn) ? vgn_fn(n, fn) : -1;
    if (VG_(get_filename_linenum)(ep, addr, &file, &dir, &loc.line)) {
        /* The path the structure analysis gives the same line (srcpath.h);
         * one longer than any path can be is named by its file alone. */
        HChar path[4096];
        int fits = srcpath_vg(path, sizeof path, dir, file) != (size_t)-1;
        loc.file = intern(n->file_ids, n->file_names, fits ? path : file);
    } else {
        loc.line = 0;
    }
    return loc;
}

static void write_list(profile_writer *w, const HChar *key, XArray *names)
{
    for (Word i = 0; i < VG_(sizeXA)(names); i++) {
        pw_key(w, key);
        pw_u64(w, (ULong)i);
        pw_str(w, *(HChar **)VG_(indexXA)(names, i));
        pw_eol(w);
    }
}

void vgn_write(const VgNames *n, profile_writer *w)
{
    for (Word i = 0; i < VG_(sizeXA)(n->module_names); i++) {
        pw_key(w, "module");
        pw_u64(w, (ULong)i);
        pw_str(w, *(HChar **)VG_(indexXA)(n->module_names, i));
        pw_hex(w, *(Addr *)VG_(indexXA)(n->module_bias, i));
        pw_eol(w);
    }
    write_list(w, "fn", n->fn_names);
    write_list(w, "file", n->file_names);
}

void vgn_write_location(const VgNames *n, profile_writer *w, Int module, Addr addr)
{
    pw_i64(w, module);
    pw_hex(w, module >= 0 ? addr - *(Addr *)VG_(indexXA)(n->module_bias, module) : addr);
}
