/* elf_static.c — is an executable statically linked (elf_static.h): read
 * its program headers with libelf and look for the loader's PT_INTERP. */
#include "binary/elf_static.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

/* 1 when e is an executable (ET_EXEC, or ET_DYN with an entry point, as a
 * PIE is) whose program headers have no PT_INTERP. */
static int has_no_interp(Elf *e)
{
    GElf_Ehdr eh;
    size_t n;
    if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n) != 0)
        return 0;
    if (eh.e_type != ET_EXEC && !(eh.e_type == ET_DYN && eh.e_entry != 0))
        return 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
            return 0;
    }
    return 1;
}

int elf_is_static(const char *path)
{
    if (elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int is_static = e && has_no_interp(e);
    if (e)
        elf_end(e);
    close(fd);
    return is_static;
}
