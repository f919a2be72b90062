/* buildid.c — reads the GNU build-id note of an ELF file with libelf. */
#include "binary/buildid.h"

#include <fcntl.h>
#include <gelf.h>
#include <string.h>
#include <unistd.h>

/* Result of looking through notes: not there, written, or too long. */
enum { NOTE_ABSENT = 1, NOTE_FOUND = 0, NOTE_TOO_LONG = -1 };

static int to_hex(const unsigned char *id, size_t n, char *hex, size_t hexlen)
{
    static const char digits[] = "0123456789abcdef";
    if (2 * n + 1 > hexlen)
        return NOTE_TOO_LONG;
    for (size_t i = 0; i < n; i++) {
        hex[2 * i] = digits[id[i] >> 4];
        hex[2 * i + 1] = digits[id[i] & 15];
    }
    hex[2 * n] = '\0';
    return NOTE_FOUND;
}

/* Look for the build-id among the notes in `data`. */
static int scan_notes(Elf_Data *data, char *hex, size_t hexlen)
{
    GElf_Nhdr nh;
    size_t off = 0, name_off, desc_off;
    if (!data)
        return NOTE_ABSENT;
    while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
        const char *base = data->d_buf;
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && memcmp(base + name_off, "GNU", 4) == 0 &&
            nh.n_descsz > 0)
            return to_hex((const unsigned char *)base + desc_off, nh.n_descsz, hex, hexlen);
    }
    return NOTE_ABSENT;
}

static int from_sections(Elf *e, char *hex, size_t hexlen)
{
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        int rc = scan_notes(elf_getdata(scn, NULL), hex, hexlen);
        if (rc != NOTE_ABSENT)
            return rc;
    }
    return NOTE_ABSENT;
}

static int from_segments(Elf *e, char *hex, size_t hexlen)
{
    size_t n;
    if (elf_getphdrnum(e, &n) != 0)
        return NOTE_ABSENT;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
            continue;
        int rc = scan_notes(elf_getdata_rawchunk(e, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR), hex, hexlen);
        if (rc != NOTE_ABSENT)
            return rc;
    }
    return NOTE_ABSENT;
}

int elf_build_id(const char *path, char *hex, size_t hexlen)
{
    if (hexlen > 0)
        hex[0] = '\0';
    if (elf_version(EV_CURRENT) == EV_NONE)
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int rc = NOTE_ABSENT;
    Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (e && elf_kind(e) == ELF_K_ELF) {
        rc = from_sections(e, hex, hexlen);
        if (rc == NOTE_ABSENT)
            rc = from_segments(e, hex, hexlen);
    }
    elf_end(e);
    close(fd);
    if (rc == NOTE_TOO_LONG && hexlen > 0)
        hex[0] = '\0';
    return rc == NOTE_TOO_LONG ? -1 : 0;
}

int elf_is_build(const char *path, const char *build_id)
{
    char now[BUILD_ID_HEX_MAX];
    return build_id && *build_id && elf_build_id(path, now, sizeof now) == 0 && !strcmp(now, build_id);
}
