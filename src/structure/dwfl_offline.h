/* dwfl_offline.h — one ELF file opened offline with libdwfl, for the
 * readers of its DWARF (dwarf_info.c: lines and inlines; receiver.c:
 * variables).  Internal to src/structure. */
#ifndef AUGUR_DWFL_OFFLINE_H
#define AUGUR_DWFL_OFFLINE_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* An offline libdwfl session on one file: `dw` is its DWARF, found in the
 * file or in separate debug info; a DWARF address plus `link_bias` is the
 * file's link-time address (the one profiles and raw files store). */
typedef struct st_dwfl {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    Dwarf *dw;
    Dwarf_Addr dw_bias;   /* DWARF address + dw_bias = libdwfl's address */
    Dwarf_Addr link_bias; /* DWARF address + link_bias = link-time address */
} st_dwfl;

/* Open `path`.  Returns 0 with s->dw set, 1 when the file has no DWARF
 * (nothing left open), -1 with a message when libdwfl cannot start. */
int st_dwfl_open(const char *path, st_dwfl *s, char *err, size_t errlen);
void st_dwfl_close(st_dwfl *s);

#endif
