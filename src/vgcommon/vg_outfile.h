/* vg_outfile.h — writing a tool's raw output file whole or not at all, and
 * the process lines every raw format starts with; shared by augur's Valgrind
 * tools (src/collector, src/memspy).  Valgrind-only (VG_(...) functions).
 */
#ifndef AUGUR_VG_OUTFILE_H
#define AUGUR_VG_OUTFILE_H

#include "pub_tool_basics.h"

#include "profile/profile_writer.h"

/* Writes the file's lines (not the `end` line, which vgo_write_file adds). */
typedef void (*vgo_body)(profile_writer *w, void *ctx);

/* Write DIR/NAME.tmp with `body` then the `end` line, and rename it to
 * DIR/NAME only when every byte was written, so a file that exists is
 * whole.  DIR/NAME.tmp must not exist: a file or link there is left as it
 * is (not followed) and nothing is written.  On failure print a message naming the file (prefixed `tool`),
 * remove the temporary and return False. */
Bool vgo_write_file(const HChar *tool, const HChar *dir, const HChar *name, vgo_body body,
                    void *ctx);

/* The `pid`, `ppid`, `exe` and `arg` lines of this process. */
void vgo_write_process(profile_writer *w);

#endif
