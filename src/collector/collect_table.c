/* collect_table.c — the instruction table and the names it refers to.
 *
 * Every guest instruction the tool instruments gets one InstrRec, created on
 * first sight together with its module, function, file and line from
 * Valgrind's debug info.  Names are resolved at instrumentation time, not at
 * exit, so code unloaded before exit (dlclose) is still named.  Names are
 * interned: the profile lists each once and instructions refer to it by id.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"

#include "collector/collect.h"

static Word compare_strings(UWord a, UWord b)
{
    return VG_(strcmp)((const HChar *)a, (const HChar *)b);
}

static WordFM *new_name_map(void)
{
    return VG_(newFM)(VG_(malloc), "augur.names", VG_(free), compare_strings);
}

static XArray *new_list(SizeT elem_size)
{
    return VG_(newXA)(VG_(malloc), "augur.list", VG_(free), elem_size);
}

void collect_table_init(void)
{
    Collector *c = &collector;
    c->instrs = VG_(HT_construct)("augur.instrs");
    c->module_ids = new_name_map();
    c->fn_ids = new_name_map();
    c->file_ids = new_name_map();
    c->module_names = new_list(sizeof(HChar *));
    c->module_bias = new_list(sizeof(Addr));
    c->fn_names = new_list(sizeof(HChar *));
    c->file_names = new_list(sizeof(HChar *));
}

/* The id of `name` in (ids, names), adding it if new.  The key is copied. */
static Int intern(WordFM *ids, XArray *names, const HChar *name)
{
    UWord key, val;
    if (VG_(lookupFM)(ids, &key, &val, (UWord)name))
        return (Int)val - 1;
    HChar *copy = VG_(strdup)("augur.name", name);
    Int id = (Int)VG_(sizeXA)(names);
    VG_(addToXA)(names, &copy);
    VG_(addToFM)(ids, (UWord)copy, (UWord)id + 1);
    return id;
}

/* Module identity is (path, bias): the same file mapped twice at different
 * places is two modules, since addresses are stored module-relative. */
Int collect_module_id(Addr addr, Addr *bias_out)
{
    Collector *c = &collector;
    DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), addr);
    if (!di) {
        *bias_out = 0;
        return -1;
    }
    const HChar *path = VG_(DebugInfo_get_filename)(di);
    Addr bias = (Addr)VG_(DebugInfo_get_text_bias)(di);
    HChar key[4096 + 32];
    VG_(snprintf)(key, sizeof key, "%lx:%s", (unsigned long)bias, path);
    Word before = VG_(sizeXA)(c->module_names);
    Int id = intern(c->module_ids, c->module_names, key);
    if (id == before) { /* new: keep the bare path beside the bias */
        HChar **slot = VG_(indexXA)(c->module_names, id);
        *slot = VG_(strdup)("augur.name", path);
        VG_(addToXA)(c->module_bias, &bias);
    }
    *bias_out = bias;
    return id;
}

static void resolve_names(InstrRec *rec)
{
    Collector *c = &collector;
    DiEpoch ep = VG_(current_DiEpoch)();
    const HChar *fn, *file, *dir;
    UInt line;
    Addr bias;

    rec->module = collect_module_id(rec->addr, &bias);
    rec->fn = VG_(get_fnname)(ep, rec->addr, &fn) ? intern(c->fn_ids, c->fn_names, fn) : -1;
    rec->file = -1;
    rec->line = 0;
    if (VG_(get_filename_linenum)(ep, rec->addr, &file, &dir, &line)) {
        HChar path[4096];
        if (dir && dir[0] && file[0] != '/')
            VG_(snprintf)(path, sizeof path, "%s/%s", dir, file);
        else
            VG_(snprintf)(path, sizeof path, "%s", file);
        rec->file = intern(c->file_ids, c->file_names, path);
        rec->line = line;
    }
}

/* Does the instruction at `addr` (guest code, readable in our address space)
 * start with a conditional jump opcode (Jcc, JrCXZ, LOOP/LOOPcc)? */
static Bool decode_is_cond_branch(const UChar *p, UInt len)
{
    UInt i = 0;
    while (i < len && (p[i] == 0x2e || p[i] == 0x3e || p[i] == 0xf2 || p[i] == 0xf3 ||
                       p[i] == 0x66 || p[i] == 0x67 || (p[i] & 0xf0) == 0x40))
        i++; /* branch hints, BND, size overrides, REX */
    if (i >= len)
        return False;
    if ((p[i] >= 0x70 && p[i] <= 0x7f) || (p[i] >= 0xe0 && p[i] <= 0xe3))
        return True;
    return i + 1 < len && p[i] == 0x0f && p[i + 1] >= 0x80 && p[i + 1] <= 0x8f;
}

InstrRec *collect_instr(Addr addr, UInt len)
{
    InstrRec *rec = VG_(HT_lookup)(collector.instrs, addr);
    if (rec)
        return rec;
    rec = VG_(calloc)("augur.instr", 1, sizeof *rec);
    rec->addr = addr;
    rec->len = len;
    rec->is_cond_branch = decode_is_cond_branch((const UChar *)addr, len);
    resolve_names(rec);
    VG_(HT_add_node)(collector.instrs, rec);
    return rec;
}
