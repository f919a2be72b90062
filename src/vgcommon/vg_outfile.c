/* vg_outfile.c — whole-or-nothing raw output files (see vg_outfile.h). */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

#include "vgcommon/vg_outfile.h"

static int write_all(void *ctx, const char *buf, size_t n)
{
    Int fd = *(Int *)ctx;
    while (n > 0) {
        Int done = VG_(write)(fd, buf, (Int)n);
        if (done <= 0)
            return -1;
        buf += done;
        n -= (size_t)done;
    }
    return 0;
}

Bool vgo_write_file(const HChar *tool, const HChar *dir, const HChar *name, vgo_body body,
                    void *ctx)
{
    HChar final[4096], temp[4096 + 8];
    VG_(snprintf)(final, sizeof final, "%s/%s", dir, name);
    VG_(snprintf)(temp, sizeof temp, "%s.tmp", final);
    /* O_EXCL: an existing name, a link too (dangling or not; POSIX), is
     * refused, never followed or truncated.  (Valgrind 3.19's vki has no
     * O_NOFOLLOW for amd64; with O_EXCL it is not needed.) */
    SysRes sr = VG_(open)(temp, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, 0600);
    if (sr_isError(sr) && sr_Err(sr) == VKI_EEXIST) {
        VG_(umsg)("%s: cannot create %s: something is there already (a file or link not of this run?); "
                  "not writing through it\n", tool, temp);
        return False;
    }
    if (sr_isError(sr)) {
        VG_(umsg)("%s: cannot create %s (error %lu); is the output folder writable?\n", tool,
                  temp, sr_Err(sr));
        return False;
    }
    Int fd = (Int)sr_Res(sr);
    profile_writer *w = VG_(malloc)("vgo.writer", sizeof *w);
    pw_init(w, write_all, &fd);
    body(w, ctx);
    int failed = pw_finish(w);
    VG_(free)(w);
    VG_(close)(fd);
    if (failed || VG_(rename)(temp, final) != 0) {
        VG_(umsg)("%s: could not write %s (disk full?)\n", tool, final);
        VG_(unlink)(temp);
        return False;
    }
    return True;
}

void vgo_write_process(profile_writer *w)
{
    pw_key(w, "pid");
    pw_u64(w, (ULong)VG_(getpid)());
    pw_eol(w);
    pw_key(w, "ppid");
    pw_u64(w, (ULong)VG_(getppid)());
    pw_eol(w);
    pw_key(w, "exe");
    pw_str(w, VG_(args_the_exename));
    pw_eol(w);
    for (Word i = 0; i < VG_(sizeXA)(VG_(args_for_client)); i++) {
        pw_key(w, "arg");
        pw_str(w, *(HChar **)VG_(indexXA)(VG_(args_for_client), i));
        pw_eol(w);
    }
}
