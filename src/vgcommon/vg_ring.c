/* vg_ring.c — a tool's end of the channel to augur's consumer; see
 * vg_ring.h and src/rdpipe/rdpipe_proto.h. */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_vki.h"

#include "vgcommon/vg_ring.h"

/* coregrind/pub_core_libcfile.h: dup oldfd into Valgrind's reserved range,
 * close-on-exec, and close oldfd. */
extern Int VG_(safe_fd)(Int oldfd);
/* coregrind/pub_core_aspacemgr.h: map a file shared, in Valgrind's memory. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd, Off64T offset);

Bool vg_ring_option(VgRingOption *o, const HChar *value)
{
    const HChar *p = value;
    for (UInt i = 0; i < 3; i++) {
        HChar *end;
        Long fd = VG_(strtoll10)(p, &end);
        if (end == p || *end != ':' || fd < 0)
            return False;
        p = end + 1;
        Long ino = VG_(strtoll10)(p, &end);
        if (end == p || *end != (i < 2 ? ',' : '\0'))
            return False;
        o->fd[i] = (Int)fd;
        o->ino[i] = (ULong)ino;
        p = end + 1;
    }
    o->given = o->ino[0] || o->ino[1] || o->ino[2]; /* all 0: none (rdpipe_tool_option) */
    return True;
}

/* Whether fd is open on a pipe (fifo), or a regular file (not), whose
 * inode is ino. */
static Bool is_open_on(Int fd, Bool fifo, ULong ino)
{
    struct vg_stat st;
    return VG_(fstat)(fd, &st) == 0 && (VKI_S_ISFIFO(st.mode) ? fifo : !fifo && VKI_S_ISREG(st.mode)) &&
           st.ino == ino;
}

/* The batch after r->head: to the ring's end, RDP_BATCH at most. */
static void start_batch(VgRing *r)
{
    UInt at = (UInt)(r->head % RDP_RING_RECS);
    r->batch = r->recs + at;
    r->used = 0;
    r->room = RDP_RING_RECS - at < RDP_BATCH ? RDP_RING_RECS - at : RDP_BATCH;
}

Bool vg_ring_open(VgRing *r, const VgRingOption *o, const HChar *consumer, const HChar *outcome)
{
    if (!o->given || !is_open_on(o->fd[0], True, o->ino[0]) || !is_open_on(o->fd[1], True, o->ino[1]) ||
        !is_open_on(o->fd[2], False, o->ino[2]))
        return False;
    SysRes m = VG_(am_shared_mmap_file_float_valgrind)(RDP_RING_BYTES, VKI_PROT_READ | VKI_PROT_WRITE, o->fd[2], 0);
    VG_(close)(o->fd[2]); /* the mapping stays */
    if (sr_isError(m)) {
        VG_(umsg)("augur: cannot map the memory shared with %s (error %lu)\n", consumer, sr_Err(m));
        VG_(exit)(125);
    }
    *r = (VgRing){.ring = (RdpRing *)sr_Res(m), .recs = (rdp_rec *)(sr_Res(m) + RDP_RING_OFFSET),
                  .consumer = consumer, .outcome = outcome};
    r->head = r->ring->head;
    start_batch(r);
    r->bell = VG_(safe_fd)(o->fd[0]);
    r->in = VG_(safe_fd)(o->fd[1]);
    return True;
}

void vg_ring_lost(const VgRing *r, const HChar *what)
{
    VG_(umsg)("augur: %s is gone (%s): %s\n", r->consumer, what, r->outcome);
    VG_(exit)(125);
    __builtin_unreachable(); /* VG_(exit) does not return, though not declared so */
}

/* Wait until the consumer has taken enough records for a batch after
 * r->head, a millisecond at a time: the answers' pipe ends (hangs up) if
 * it dies meanwhile. */
static void wait_for_room(VgRing *r)
{
    while (r->head - __atomic_load_n(&r->ring->tail, __ATOMIC_ACQUIRE) > RDP_RING_RECS - RDP_BATCH) {
        struct vki_pollfd pfd = {r->in, VKI_POLLIN, 0};
        SysRes s = VG_(poll)(&pfd, 1, 1);
        if (!sr_isError(s) && sr_Res(s) > 0)
            vg_ring_lost(r, "its answers ended, or came unasked");
    }
}

/* Make the batch's records the consumer's, ringing its doorbell if it sleeps. */
static void publish(VgRing *r)
{
    r->head += r->used;
    r->used = 0;
    __atomic_store_n(&r->ring->head, r->head, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* the head before sleeping is read: rdpipe_proto.h */
    if (__atomic_load_n(&r->ring->sleeping, __ATOMIC_RELAXED) && VG_(write)(r->bell, "", 1) != 1)
        vg_ring_lost(r, "its doorbell is closed");
}

void vg_ring_answered(VgRing *r)
{
    wait_for_room(r);
    start_batch(r);
}

void vg_ring_send(VgRing *r)
{
    publish(r);
    vg_ring_answered(r);
}

void vg_ring_request(VgRing *r, UInt op, ULong arg)
{
    r->batch[r->used++] = (rdp_rec){arg, RDP_CONTROL, op}; /* vg_ring_put left room */
    publish(r);
}

void vg_ring_read(VgRing *r, void *buf, SizeT n)
{
    HChar *p = buf;
    while (n) {
        Int k = VG_(read)(r->in, p, n > (1 << 30) ? (1 << 30) : (Int)n);
        if (k <= 0)
            vg_ring_lost(r, "its answer ended early");
        p += k;
        n -= (SizeT)k;
    }
}

void vg_ring_close(VgRing *r)
{
    VG_(close)(r->bell);
    VG_(close)(r->in);
    VG_(am_munmap_valgrind)((Addr)r->ring, RDP_RING_BYTES);
    r->ring = NULL;
}
