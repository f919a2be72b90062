/* elf_static.h — whether an ELF executable is statically linked: such a
 * program has no dynamic loader, so no tool can preload its own malloc
 * into it (memspy then cannot see heap blocks). */
#ifndef AUGUR_ELF_STATIC_H
#define AUGUR_ELF_STATIC_H

/* 1 when the file at path is an ELF executable without a PT_INTERP
 * program header (no dynamic loader: statically linked); 0 when it has
 * one, or is not ELF (a script), or cannot be read. */
int elf_is_static(const char *path);

#endif
