/* vg_random.c — fixed AT_RANDOM bytes for the program (vg_random.h).
 *
 * When the first block is instrumented nothing of the program has run, and
 * the first thread's (tid 1) stack pointer is the one it starts with: argc, argv
 * and its NULL, the environment and its NULL, then the auxiliary vector's
 * (type, value) pairs up to AT_NULL, where AT_RANDOM's value is the
 * address of the 16 bytes. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"

#include "vgcommon/vg_random.h"

#define AUX_NULL 0    /* AT_NULL */
#define AUX_RANDOM 25 /* AT_RANDOM (elf.h) */

/* The bytes every run gets: pi's first 32 hexadecimal fraction digits
 * (as Blowfish's tables begin), a constant no one mistakes for chance. */
static const UChar fixed_bytes[16] = {0x24, 0x3f, 0x6a, 0x88, 0x85, 0xa3, 0x08, 0xd3,
                                      0x13, 0x19, 0x8a, 0x2e, 0x03, 0x70, 0x73, 0x44};

/* Overwrite the AT_RANDOM bytes of the initial stack at sp. */
static void fix_at(const UWord *sp)
{
    const UWord *p = sp + 1 + sp[0] + 1; /* past argc, argv and its NULL */
    while (*p)
        p++; /* the environment */
    for (p++; p[0] != AUX_NULL; p += 2)
        if (p[0] == AUX_RANDOM && p[1])
            VG_(memcpy)((void *)p[1], fixed_bytes, sizeof fixed_bytes);
}

void vg_fixed_random(void)
{
    static Bool done = False;
    if (LIKELY(done))
        return;
    done = True;
    fix_at((const UWord *)VG_(get_SP)(1));
}
