/* buildid.h — the GNU build-id of an ELF file, which identifies a binary
 * across runs (the experiment database keys modules by path and build-id). */
#ifndef AUGUR_BUILDID_H
#define AUGUR_BUILDID_H

#include <stddef.h>

/* Longest build-id augur stores, in hex digits plus the NUL (a build-id is
 * usually 20 bytes, SHA-1: 40 digits). */
#define BUILD_ID_HEX_MAX 129

/* Write the lower-case hex build-id of the ELF file at `path` (its
 * NT_GNU_BUILD_ID note, found through the section headers or, when those
 * are stripped, the program headers) into hex[hexlen].
 * Returns 0; hex is "" when the file has no build-id, is not ELF or cannot
 * be read (e.g. "[vdso]").  Returns -1, with hex "", only when hexlen is too
 * small for the id. */
int elf_build_id(const char *path, char *hex, size_t hexlen);

/* 1 when the file at `path` is the build with `build_id` (not ""), 0 when
 * it is another, has none, or is gone: whether a run's module can still be
 * analysed from its file. */
int elf_is_build(const char *path, const char *build_id);

#endif
