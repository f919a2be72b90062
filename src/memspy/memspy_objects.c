/* memspy_objects.c — data objects, and which one an address belongs to.
 *
 * Kinds and names (docs/memspy.md, "Data objects"):
 *   heap    blocks from malloc, calloc, realloc, memalign, posix_memalign,
 *           aligned_alloc, operator new and new[] (Valgrind's malloc
 *           replacement calls the functions below), grouped by allocation
 *           stack: the first MAX_SITE_FRAMES frames outside the replacement
 *           library, as a hash-consed ExeContext.  Named "FN:LINE" of the
 *           innermost frame (the caller of malloc).
 *   global  a data symbol of the debug info (VG_(get_datasym_and_offset)),
 *           one object per symbol, named by it.
 *   stack   an access inside the running thread's stack: "stack of FN",
 *           FN the function of the accessing instruction.
 *   other   anything else (memory of no symbol, freed blocks, mmap).
 *
 * Lookup, cheapest first: the stack bounds of the thread that made the
 * reference (references are simulated from a buffer, memspy_buffer.c,
 * flushed before anything here changes what an address belongs to); the
 * accessing instruction's last hit (a range and its object, valid until some range is
 * removed); an ordered map of disjoint ranges (live heap blocks, globals, and
 * the "other" pieces found so far); and only for an address in none of them,
 * the debug info, whose answer is then added to the map.
 */
#include "pub_tool_aspacemgr.h"
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_tooliface.h"

#include "memspy/memspy.h"

#define OTHER_SPAN 64 /* an "other" range never crosses such an aligned span */

/* ---- objects ----------------------------------------------------------- */

DataObj *memspy_obj(UInt id)
{
    return *(DataObj **)VG_(indexXA)(memspy.objs, id);
}

UInt memspy_nobjs(void)
{
    return (UInt)VG_(sizeXA)(memspy.objs);
}

/* A new object of `kind` named `name` (copied); its id. */
static UInt new_object(ObjKind kind, const HChar *name, ULong size)
{
    DataObj *o = VG_(calloc)("memspy.obj", 1, sizeof *o);
    o->kind = kind;
    o->name = VG_(strdup)("memspy.obj.name", name);
    o->size = size;
    o->count = kind == OBJ_HEAP ? 0 : 1;
    UInt id = (UInt)VG_(sizeXA)(memspy.objs);
    tl_assert(id < (1u << 30)); /* eviction keys hold 30 bits */
    VG_(addToXA)(memspy.objs, &o);
    return id;
}

/* The object kept in `ids` under `key`, or NO_OBJ. */
static UInt lookup_id(WordFM *ids, UWord key)
{
    UWord k, v;
    return VG_(lookupFM)(ids, &k, &v, key) ? (UInt)v - 1 : NO_OBJ;
}

/* ---- the range map ----------------------------------------------------- */

/* Overlapping ranges compare equal, so a one-byte probe finds its range. */
static Word compare_ranges(UWord a, UWord b)
{
    const Range *x = (const Range *)a, *y = (const Range *)b;
    if (x->start + x->len <= y->start)
        return -1;
    if (y->start + y->len <= x->start)
        return 1;
    return 0;
}

static Range *range_at(Addr addr, SizeT len)
{
    Range probe = {.start = addr, .len = len};
    UWord k, v;
    return VG_(lookupFM)(memspy.ranges, &k, &v, (UWord)&probe) ? (Range *)k : NULL;
}

static Range *add_range(Addr start, SizeT len, UInt obj, Bool heap)
{
    Range *r = VG_(malloc)("memspy.range", sizeof *r);
    *r = (Range){start, len, obj, heap};
    Bool existed = VG_(addToFM)(memspy.ranges, (UWord)r, 0);
    tl_assert(!existed);
    return r;
}

static void remove_range(Range *r)
{
    UWord k, v;
    Bool found = VG_(delFromFM)(memspy.ranges, &k, &v, (UWord)r);
    tl_assert(found && (Range *)k == r);
    VG_(free)(r);
    memspy.epoch++; /* instructions may cache it */
}

/* ---- heap -------------------------------------------------------------- */

static Bool in_replacement_library(Addr ip)
{
    DebugInfo *di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), ip);
    return di && VG_(strstr)(VG_(DebugInfo_get_filename)(di), "/vgpreload_") != NULL;
}

/* "FN:LINE" of a code location, or what of it is known. */
static void site_name(HChar *buf, Int size, const SiteFrame *f)
{
    const HChar *fn = vgn_fn_name(&memspy.names, f->loc.fn);
    if (f->loc.fn >= 0 && f->loc.line)
        VG_(snprintf)(buf, size, "%s:%u", fn, f->loc.line);
    else if (f->loc.fn >= 0)
        VG_(snprintf)(buf, size, "%s", fn);
    else
        VG_(snprintf)(buf, size, "0x%lx", (unsigned long)f->addr);
}

static UInt new_heap_object(const Addr *ips, UInt n)
{
    SiteFrame frames[MAX_SITE_FRAMES];
    for (UInt i = 0; i < n; i++)
        frames[i] = (SiteFrame){ips[i], vgn_code_loc(&memspy.names, ips[i])};
    HChar name[512];
    if (n)
        site_name(name, sizeof name, &frames[0]);
    else
        VG_(snprintf)(name, sizeof name, "unknown allocation site");
    UInt id = new_object(OBJ_HEAP, name, 0);
    DataObj *o = memspy_obj(id);
    o->nframes = n;
    for (UInt i = 0; i < n; i++)
        o->frames[i] = frames[i];
    return id;
}

/* What a frame of an allocation stack is. */
typedef enum { FRAME_JUNK, FRAME_CODE, FRAME_BELOW_MAIN } FrameKind;

/* The kind of return address ip: junk when in no executable mapping (a
 * frame-pointer walk past the outermost frame takes stack words, argv and
 * envp, for return addresses), below main for __libc_start_call_main,
 * _start...  Cached per debug-info epoch, which moves when code is
 * unloaded: the two lookups made a malloc-only loop 10% slower. */
static FrameKind frame_kind(Addr ip, DiEpoch ep)
{
    FrameSlot *c = &memspy.frame_kind[(ip >> 2) % FRAME_CACHE];
    if (c->ip == ip && c->epoch == ep.n)
        return (FrameKind)c->kind;
    NSegment const *seg = VG_(am_find_nsegment)(ip);
    FrameKind k = !seg || !seg->hasX                                             ? FRAME_JUNK
                  : VG_(get_fnname_kind_from_IP)(ep, ip) == Vg_FnNameBelowMain ? FRAME_BELOW_MAIN
                                                                                : FRAME_CODE;
    c->ip = ip, c->epoch = ep.n, c->kind = (UChar)k;
    return k;
}

/* The allocation stack of the malloc call thread `tid` is making, into ips
 * (room for MAX_SITE_FRAMES): the caller of malloc first, the replacement
 * library's frames left out, junk frames dropped, and nothing past the
 * first below-main frame, where the walk leaves code.  Returns the frames
 * kept. */
static UInt allocation_stack(ThreadId tid, Addr *ips)
{
    Addr raw[MAX_SITE_FRAMES + 4];
    UInt n = VG_(get_StackTrace)(tid, raw, MAX_SITE_FRAMES + 4, NULL, NULL, 0), i = 0, kept = 0;
    while (i < n && in_replacement_library(raw[i]))
        i++;
    DiEpoch ep = VG_(current_DiEpoch)();
    for (; i < n && kept < MAX_SITE_FRAMES; i++) {
        FrameKind k = frame_kind(raw[i], ep);
        if (k == FRAME_JUNK)
            continue;
        ips[kept++] = raw[i];
        if (k == FRAME_BELOW_MAIN)
            break;
    }
    return kept;
}

/* The heap object of an allocation that thread `tid` is making now. */
static UInt heap_object_of_caller(ThreadId tid)
{
    Addr ips[MAX_SITE_FRAMES] = {0};
    UInt kept = allocation_stack(tid, ips);
    ExeContext *ec = VG_(make_ExeContext_from_StackTrace)(ips, kept ? kept : 1);
    UInt id = lookup_id(memspy.heap_ids, (UWord)ec);
    if (id == NO_OBJ) {
        id = new_heap_object(ips, kept);
        VG_(addToFM)(memspy.heap_ids, (UWord)ec, (UWord)id + 1);
    }
    return id;
}

/* Charge the new block [p, p+n) to its allocation site's object.  "Other"
 * pieces found there before (freed memory) give way to it. */
static void track_block(ThreadId tid, Addr p, SizeT n)
{
    SizeT len = n ? n : 1;
    for (Range *old; (old = range_at(p, len));) {
        tl_assert(!old->heap);
        remove_range(old);
    }
    UInt id = heap_object_of_caller(tid);
    DataObj *o = memspy_obj(id);
    o->count++;
    o->live += len;
    if (o->live > o->size)
        o->size = o->live;
    add_range(p, len, id, True);
}

/* The live heap block starting at p, or NULL. */
static Range *block_at(Addr p)
{
    Range *r = range_at(p, 1);
    return r && r->heap && r->start == p ? r : NULL;
}

static void untrack_block(Range *r)
{
    memspy_obj(r->obj)->live -= r->len;
    remove_range(r);
}

/* Every handler below changes what some address belongs to, so first the
 * buffered references are simulated with the objects of their time. */
static void *alloc_block(ThreadId tid, SizeT n, SizeT align, Bool zero)
{
    memspy_flush();
    if ((Long)n < 0)
        return NULL; /* larger than any address space */
    void *p = VG_(cli_malloc)(align, n);
    if (!p)
        return NULL;
    if (zero)
        VG_(memset)(p, 0, n);
    track_block(tid, (Addr)p, n);
    return p;
}

static void *rm_malloc(ThreadId tid, SizeT n)
{
    return alloc_block(tid, n, VG_(clo_alignment), False);
}

static void *rm_aligned(ThreadId tid, SizeT n, SizeT align)
{
    return alloc_block(tid, n, align, False);
}

static void *rm_memalign(ThreadId tid, SizeT align, SizeT n)
{
    return alloc_block(tid, n, align, False);
}

static void *rm_calloc(ThreadId tid, SizeT nmemb, SizeT size1)
{
    if (nmemb && size1 > (SizeT)-1 / nmemb)
        return NULL; /* the product overflows */
    return alloc_block(tid, nmemb * size1, VG_(clo_alignment), True);
}

static void rm_free(ThreadId tid, void *p)
{
    (void)tid;
    memspy_flush();
    Range *r = block_at((Addr)p);
    if (!r)
        return; /* NULL, or not a block: leave it alone, as free(NULL) does */
    untrack_block(r);
    VG_(cli_free)(p);
}

static void rm_free_aligned(ThreadId tid, void *p, SizeT align)
{
    (void)align;
    rm_free(tid, p);
}

/* realloc: a new block of the realloc call's site, the old one freed. */
static void *rm_realloc(ThreadId tid, void *p, SizeT n)
{
    if (!p)
        return rm_malloc(tid, n);
    memspy_flush();
    Range *old = block_at((Addr)p);
    if (!old)
        return NULL;
    SizeT old_size = old->len;
    void *q = rm_malloc(tid, n);
    if (!q)
        return NULL;
    VG_(memcpy)(q, p, old_size < n ? old_size : n);
    rm_free(tid, p);
    return q;
}

static SizeT rm_usable_size(ThreadId tid, void *p)
{
    (void)tid;
    return block_at((Addr)p) ? VG_(cli_malloc_usable_size)(p) : 0;
}

/* ---- globals, stack, other --------------------------------------------- */

/* Does `addr` lie at offset `off` of the data symbol `name`? */
static Bool in_symbol(Addr addr, const HChar *name, PtrdiffT off)
{
    const HChar *n;
    PtrdiffT o;
    return VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), addr, &n, &o) && o == off &&
           VG_(strcmp)(n, name) == 0;
}

/* The size of the symbol `name` starting at `start`: the debug info answers
 * for every byte of a symbol, so search for its first byte past the end. */
static SizeT symbol_size(Addr start, const HChar *name)
{
    SizeT hi = 1;
    while (hi < (1ULL << 40) && in_symbol(start + hi, name, (PtrdiffT)hi))
        hi *= 2;
    SizeT lo = hi / 2; /* in the symbol (or 0, which always is) */
    while (hi - lo > 1) {
        SizeT mid = lo + (hi - lo) / 2;
        if (in_symbol(start + mid, name, (PtrdiffT)mid))
            lo = mid;
        else
            hi = mid;
    }
    return hi;
}

/* The range of the global holding `addr`, or NULL if none does. */
static Range *global_range(Addr addr)
{
    const HChar *found;
    PtrdiffT off;
    if (!VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), addr, &found, &off))
        return NULL;
    HChar *name = VG_(strdup)("memspy.sym", found); /* the next lookup reuses `found` */
    Addr start = addr - (Addr)off;
    SizeT size = symbol_size(start, name);
    UInt id = lookup_id(memspy.global_ids, start);
    if (id == NO_OBJ) {
        id = new_object(OBJ_GLOBAL, name, size);
        VG_(addToFM)(memspy.global_ids, start, (UWord)id + 1);
    }
    VG_(free)(name);
    if (range_at(start, size)) /* debug info disagreeing with itself: keep to this byte */
        start = addr, size = 1;
    return add_range(start, size, id, False);
}

/* Is `addr` known to no range and in no symbol? */
static Bool unclaimed(Addr addr)
{
    const HChar *n;
    PtrdiffT o;
    return !range_at(addr, 1) && !VG_(get_datasym_and_offset)(VG_(current_DiEpoch)(), addr, &n, &o);
}

/* The "other" range around `addr` (which no range or symbol claims): its
 * unclaimed neighbours within the same OTHER_SPAN-aligned span. */
static Range *other_range(Addr addr)
{
    if (memspy.other_obj == NO_OBJ)
        memspy.other_obj = new_object(OBJ_OTHER, "other", 0);
    Addr span = addr & ~(Addr)(OTHER_SPAN - 1), lo = addr, hi = addr + 1;
    while (lo > span && unclaimed(lo - 1))
        lo--;
    while (hi < span + OTHER_SPAN && unclaimed(hi))
        hi++;
    return add_range(lo, hi - lo, memspy.other_obj, False);
}

UInt memspy_stack_object(CodeRec *code)
{
    if (LIKELY(code->stack_obj != NO_OBJ))
        return code->stack_obj;
    UWord key = (UWord)(code->loc.fn + 1);
    UInt id = lookup_id(memspy.stack_ids, key);
    if (id == NO_OBJ) {
        HChar name[512];
        VG_(snprintf)(name, sizeof name, "stack of %s",
                      code->loc.fn >= 0 ? vgn_fn_name(&memspy.names, code->loc.fn) : "unknown code");
        id = new_object(OBJ_STACK, name, 0);
        VG_(addToFM)(memspy.stack_ids, key, (UWord)id + 1);
    }
    code->stack_obj = id;
    return id;
}

/* The ordered map, then the debug info; the answer becomes the
 * instruction's cached hit (memspy_object_of in memspy.h tries that first). */
UInt memspy_object_lookup(CodeRec *code, Addr addr)
{
    Memspy *m = &memspy;
    Range *r = range_at(addr, 1);
    if (!r)
        r = global_range(addr);
    if (!r)
        r = other_range(addr);
    code->hit_lo = r->start;
    code->hit_hi = r->start + r->len;
    code->hit_obj = r->obj;
    code->hit_epoch = m->epoch;
    return r->obj;
}

/* An unmapping can take debug info (a global's symbol) with it. */
static void on_munmap(Addr a, SizeT len)
{
    (void)a, (void)len;
    memspy_flush();
}

void memspy_objects_init(void)
{
    Memspy *m = &memspy;
    m->objs = VG_(newXA)(VG_(malloc), "memspy.objs", VG_(free), sizeof(DataObj *));
    m->ranges = VG_(newFM)(VG_(malloc), "memspy.ranges", VG_(free), compare_ranges);
    m->heap_ids = VG_(newFM)(VG_(malloc), "memspy.heap_ids", VG_(free), NULL);
    m->global_ids = VG_(newFM)(VG_(malloc), "memspy.global_ids", VG_(free), NULL);
    m->stack_ids = VG_(newFM)(VG_(malloc), "memspy.stack_ids", VG_(free), NULL);
    m->other_obj = NO_OBJ;
    VG_(needs_malloc_replacement)(rm_malloc, rm_malloc, rm_aligned, rm_malloc, rm_aligned,
                                  rm_memalign, rm_calloc, rm_free, rm_free, rm_free_aligned,
                                  rm_free, rm_free_aligned, rm_realloc, rm_usable_size, 0);
    VG_(track_die_mem_munmap)(on_munmap);
}
