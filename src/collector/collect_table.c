/* collect_table.c — the instruction table and the names it refers to.
 *
 * Every guest instruction the tool instruments gets one InstrRec, created on
 * first sight together with its module, function, file and line from
 * Valgrind's debug info.  Names are resolved at instrumentation time, not at
 * exit, so code unloaded before exit (dlclose) is still named.  Names are
 * interned (src/vgcommon/vg_names.c): the profile lists each once and
 * instructions refer to it by id.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"

#include "collector/collect.h"

void collect_table_init(void)
{
    collector.instrs = VG_(HT_construct)("augur.instrs");
    vgn_init(&collector.names);
}

static void resolve_names(InstrRec *rec)
{
    VgCodeLoc loc = vgn_code_loc(&collector.names, rec->addr);
    rec->module = loc.module;
    rec->fn = loc.fn;
    rec->file = loc.file;
    rec->line = loc.line;
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
    if (collector.channel)
        collect_pipe_register(rec);
    VG_(HT_add_node)(collector.instrs, rec);
    return rec;
}
