/* debug_file.c — finds the separate debug file of a stripped ELF file, the
 * way Valgrind and gdb do: /usr/lib/debug/.build-id/xx/rest.debug by the
 * file's build-id, else the name in its .gnu_debuglink section looked up
 * beside the file, in its .debug/ folder and under /usr/lib/debug/.  A
 * candidate counts only if its build-id is the file's (a debug file of
 * another build would give wrong names). */
#include "structure/structure.h"
#include "binary/buildid.h"

#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 when `candidate` exists and has build-id `id` (or neither has one). */
static int matches(const char *candidate, const char *id)
{
    char other[BUILD_ID_HEX_MAX];
    if (access(candidate, R_OK) != 0 || elf_build_id(candidate, other, sizeof other) != 0)
        return 0;
    return !strcmp(other, id);
}

/* The name in .gnu_debuglink of e into name[len]; 0 when there is none. */
static int debuglink_name(Elf *e, char *name, size_t len)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0)
        return 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        const char *sname = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
        if (!sname || strcmp(sname, ".gnu_debuglink") != 0)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d || !d->d_buf || d->d_size == 0 || !memchr(d->d_buf, '\0', d->d_size) ||
            strlen(d->d_buf) + 1 > len || strchr(d->d_buf, '/'))
            return 0;
        strcpy(name, d->d_buf);
        return 1;
    }
    return 0;
}

int st_debug_file(const char *path, Elf *e, char *out, size_t len)
{
    char id[BUILD_ID_HEX_MAX];
    if (elf_build_id(path, id, sizeof id) != 0)
        return 0;
    if (strlen(id) > 2) {
        snprintf(out, len, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
        if (matches(out, id))
            return 1;
    }
    char link[256], real[PATH_MAX];
    if (!debuglink_name(e, link, sizeof link) || !realpath(path, real))
        return 0;
    char *slash = strrchr(real, '/');
    *slash = '\0'; /* realpath's result is absolute: a slash exists */
    const char *const forms[] = {"%s/%s", "%s/.debug/%s", "/usr/lib/debug%s/%s"};
    for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
        snprintf(out, len, forms[k], real, link);
        if (strcmp(out, path) != 0 && matches(out, id))
            return 1;
    }
    return 0;
}
