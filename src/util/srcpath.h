/* srcpath.h — one spelling of a source file's path, shared by the Valgrind
 * tools (src/vgcommon/vg_names.c, from Valgrind's (dir, file)) and the
 * structure analysis (src/structure/dwarf_info.c, from libdw), so that
 * profiles and scope trees name the same file with the same string.
 *
 * Freestanding C: only <stddef.h>, no libc call, because the same file is
 * compiled into the Valgrind tools (where only VG_(...) exists) and into the
 * host.  The rules, and the DWARF they come from, are docs/profile-format.md
 * ("Source file paths").
 */
#ifndef AUGUR_SRCPATH_H
#define AUGUR_SRCPATH_H

#include <stddef.h>

/* Write to out (cap bytes, NUL-terminated) the normalized path of `file`
 * under directory `dir`: file alone when it is absolute or dir is NULL or
 * empty, else dir + "/" + file; then normalized:
 *   - empty and "." components are dropped ("a//./b" -> "a/b");
 *   - "name/.." is folded away when name is a plain directory name (not
 *     "..", not the root): "./elf/../sysdeps/x.h" -> "sysdeps/x.h";
 *     a leading ".." of a relative path is kept, "/.." at the root is
 *     "/" (POSIX);
 *   - a leading "/" stays; a trailing "/" goes; an empty result is ".".
 * Returns the length written, or (size_t)-1 when it does not fit in cap
 * (out then holds "" if cap > 0). */
size_t srcpath_join(char *out, size_t cap, const char *dir, const char *file);

/* The path of Valgrind's (dir, file) from VG_(get_filename_linenum), as
 * srcpath_join would spell it from the DWARF.  Valgrind 3.19 prefixes every
 * relative DWARF 5 directory entry with DW_AT_comp_dir, entry 0 included
 * although entry 0 IS the compilation directory, so a relative comp_dir C
 * comes back as dir "C/C"; such a dir is taken as C.  (An include directory
 * spelled exactly as a relative comp_dir is taken the same way: the two
 * cannot be told apart from Valgrind's strings.)  Returns as srcpath_join. */
size_t srcpath_vg(char *out, size_t cap, const char *dir, const char *file);

/* The path of libdw's `path` (dwarf_linesrc, dwarf_filesrc: directory entry
 * + "/" + file) in a unit whose DW_AT_comp_dir is comp_dir (NULL if none).
 * A relative path that does not start with comp_dir + "/" came from a
 * relative directory entry, which DWARF 5 (section 6.2.4) makes relative to
 * comp_dir, so it is joined to comp_dir; any other path is only normalized.
 * Returns as srcpath_join. */
size_t srcpath_dw(char *out, size_t cap, const char *comp_dir, const char *path);

#endif
