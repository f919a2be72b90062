/* vg_alloc.c — an rd_allocator on Valgrind's tool heap (vg_alloc.h). */
#include "pub_tool_basics.h"
#include "pub_tool_mallocfree.h"

#include "vgcommon/vg_alloc.h"

/* ctx is the cost centre. */
static void *vg_alloc(void *ctx, size_t bytes)
{
    return VG_(malloc)((const HChar *)ctx, bytes);
}

static void vg_release(void *ctx, void *p)
{
    (void)ctx;
    VG_(free)(p);
}

rd_allocator vg_rd_allocator(const HChar *cc)
{
    return (rd_allocator){vg_alloc, vg_release, (void *)cc};
}
