/* elf_image.c — maps an x86-64 ELF file and lists what static analysis
 * needs from it: executable sections, loaded segments (to read jump tables)
 * and function symbols: from .symtab when present, else from the .symtab of
 * the separate debug file (debug_file.c), else from .dynsym, so that names
 * agree with Valgrind's; C++ names demangled as Valgrind does (demangle.c).
 *
 * The file is mapped read-only and parsed with libelf (elf_memory); every
 * offset and size libelf reports is checked against the file's length, so
 * a truncated file is refused with a message instead of read past its end. */
#include "structure/structure.h"
#include "util/array.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t errlen, const char *path, const char *what)
{
    snprintf(err, errlen, "%s: %s", path, what);
    return -1;
}

/* Map the whole file read-only; -1 with a message when it cannot be read
 * or is empty. */
static int map_file(st_image *img, char *err, size_t errlen)
{
    int fd = open(img->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", img->path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return fail(err, errlen, img->path, "not a regular file");
    }
    if (sb.st_size == 0) {
        close(fd);
        return fail(err, errlen, img->path, "empty file, not an ELF binary");
    }
    /* Writable private pages: libelf may convert in place; the file is never written. */
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "%s: cannot map: %s", img->path, strerror(errno));
        return -1;
    }
    img->map = p;
    img->map_size = (size_t)sb.st_size;
    return 0;
}

/* True when [off, off+size) lies inside a file of file_size bytes. */
static int in_file(uint64_t file_size, uint64_t off, uint64_t size)
{
    return off <= file_size && size <= file_size - off;
}

static int check_header(Elf *e, st_image *img, char *err, size_t errlen)
{
    if (elf_kind(e) != ELF_K_ELF)
        return fail(err, errlen, img->path, "not an ELF file (augur structure reads x86-64 ELF executables "
                                            "and shared objects)");
    GElf_Ehdr eh;
    if (!gelf_getehdr(e, &eh))
        return fail(err, errlen, img->path, "truncated or corrupt ELF header");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
        return fail(err, errlen, img->path, "not an x86-64 ELF file; augur analyses x86-64 binaries only");
    if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
        return fail(err, errlen, img->path, "not an executable or shared object (relocatable objects are "
                                            "not analysed; link the program first)");
    if (!in_file(img->map_size, eh.e_shoff, (uint64_t)eh.e_shnum * eh.e_shentsize) ||
        !in_file(img->map_size, eh.e_phoff, (uint64_t)eh.e_phnum * eh.e_phentsize))
        return fail(err, errlen, img->path, "truncated file: its section or program headers lie past its end");
    img->entry = eh.e_entry;
    return 0;
}

static int read_segments(Elf *e, st_image *img, char *err, size_t errlen)
{
    size_t n;
    if (elf_getphdrnum(e, &n) != 0)
        return fail(err, errlen, img->path, "corrupt program headers");
    img->segments = calloc(n ? n : 1, sizeof *img->segments);
    if (!img->segments)
        return fail(err, errlen, img->path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(e, (int)i, &ph))
            return fail(err, errlen, img->path, "corrupt program header");
        if (ph.p_type != PT_LOAD)
            continue;
        if (!in_file(img->map_size, ph.p_offset, ph.p_filesz))
            return fail(err, errlen, img->path, "truncated file: a loaded segment lies past its end");
        img->segments[img->nsegments++] = (st_segment){ph.p_vaddr, ph.p_filesz, ph.p_offset};
    }
    return 0;
}

static int add_exec(st_image *img, const char *name, uint64_t addr, uint64_t size, uint64_t off)
{
    st_section *grown = realloc(img->exec, (img->nexec + 1) * sizeof *grown);
    if (!grown)
        return -1;
    img->exec = grown;
    char *copy = strdup(name);
    if (!copy)
        return -1;
    img->exec[img->nexec++] = (st_section){copy, addr, size, img->map + off};
    return 0;
}

/* Executable sections; a file without section headers falls back to its
 * executable segments. */
static int read_exec_sections(Elf *e, st_image *img, char *err, size_t errlen)
{
    size_t shstrndx;
    if (elf_getshdrstrndx(e, &shstrndx) != 0)
        shstrndx = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            return fail(err, errlen, img->path, "corrupt section header");
        if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) || sh.sh_size == 0)
            continue;
        if (!in_file(img->map_size, sh.sh_offset, sh.sh_size))
            return fail(err, errlen, img->path, "truncated file: an executable section lies past its end");
        const char *name = shstrndx ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
        if (add_exec(img, name ? name : "?", sh.sh_addr, sh.sh_size, sh.sh_offset) != 0)
            return fail(err, errlen, img->path, "out of memory");
    }
    if (img->nexec > 0)
        return 0;
    size_t n;
    if (elf_getphdrnum(e, &n) != 0)
        return fail(err, errlen, img->path, "corrupt program headers");
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) && ph.p_filesz > 0 &&
            add_exec(img, "[executable segment]", ph.p_vaddr, ph.p_filesz, ph.p_offset) != 0)
            return fail(err, errlen, img->path, "out of memory");
    }
    if (img->nexec == 0)
        return fail(err, errlen, img->path, "has no executable code");
    return 0;
}

static int in_exec(const st_image *img, uint64_t addr)
{
    for (size_t i = 0; i < img->nexec; i++)
        if (addr >= img->exec[i].addr && addr - img->exec[i].addr < img->exec[i].size)
            return 1;
    return 0;
}

/* Of aliases at one address, the name Valgrind's debuginfo reader keeps
 * (preferName in its storage.c), so that structure and report name a
 * function alike: the shorter name, then the alphabetically first.  Hence
 * memcpy over memmove in ld.so, __tunable_get_val over its __GI_ alias. */
static int valgrind_name_order(const char *a, const char *b)
{
    size_t la = strcspn(a, "@"), lb = strcspn(b, "@"); /* lengths without a version */
    if (la != lb)
        return la < lb ? -1 : 1;
    return strcmp(a, b);
}

static int by_addr_then_size(const void *a, const void *b)
{
    const st_symbol *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if ((x->size == 0) != (y->size == 0))
        return x->size == 0 ? 1 : -1; /* sized first */
    return valgrind_name_order(x->name, y->name);
}

/* Append the function symbols of one symbol table. */
static int read_symtab(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, st_image *img, size_t *cap)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || sh->sh_entsize == 0)
        return 0;
    size_t n = sh->sh_size / sh->sh_entsize;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            break;
        int type = GELF_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || !in_exec(img, sym.st_value))
            continue;
        const char *name = elf_strptr(e, sh->sh_link, sym.st_name);
        if (!name || !*name)
            continue;
        st_symbol *grown = array_grow(img->symbols, img->nsymbols, cap, sizeof *grown);
        if (!grown)
            return -1;
        img->symbols = grown;
        char *copy = st_demangle(name); /* C++ names as Valgrind prints them */
        if (!copy)
            return -1;
        img->symbols[img->nsymbols++] = (st_symbol){copy, sym.st_value, sym.st_size};
    }
    return 0;
}

/* Keep one symbol per address: the first after sorting (a sized one, the
 * name Valgrind keeps of aliases). */
static void dedup_symbols(st_image *img)
{
    if (img->nsymbols > 1) /* no symbols: no array */
        qsort(img->symbols, img->nsymbols, sizeof *img->symbols, by_addr_then_size);
    size_t kept = 0;
    for (size_t i = 0; i < img->nsymbols; i++) {
        if (kept > 0 && img->symbols[kept - 1].addr == img->symbols[i].addr) {
            free(img->symbols[i].name);
            continue;
        }
        img->symbols[kept++] = img->symbols[i];
    }
    img->nsymbols = kept;
}

/* The symbol tables of e: *symtab and *dynsym (NULL when absent); -1 when
 * the .symtab lies past the end of a file of `size` bytes. */
static int find_symtabs(Elf *e, size_t size, Elf_Scn **symtab, GElf_Shdr *symtab_sh, Elf_Scn **dynsym,
                        GElf_Shdr *dynsym_sh)
{
    *symtab = *dynsym = NULL;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        int inside = in_file(size, sh.sh_offset, sh.sh_size);
        if (sh.sh_type == SHT_SYMTAB && !inside)
            return -1;
        if (sh.sh_type == SHT_SYMTAB)
            *symtab = scn, *symtab_sh = sh;
        else if (sh.sh_type == SHT_DYNSYM && inside)
            *dynsym = scn, *dynsym_sh = sh;
    }
    return 0;
}

/* Function symbols from the .symtab of the separate debug file of a
 * stripped image (the names Valgrind reports); 1 when read, 0 when there is
 * no usable debug file, -1 when memory runs out. */
static int read_debug_symbols(Elf *e, st_image *img, size_t *cap)
{
    char path[4096];
    if (!st_debug_file(img->path, e, path, sizeof path))
        return 0;
    FILE *f = fopen(path, "rb");
    Elf *d = f ? elf_begin(fileno(f), ELF_C_READ, NULL) : NULL;
    struct stat sb;
    Elf_Scn *symtab, *dynsym;
    GElf_Shdr symtab_sh, dynsym_sh;
    int rc = 0;
    if (d && fstat(fileno(f), &sb) == 0 &&
        find_symtabs(d, (size_t)sb.st_size, &symtab, &symtab_sh, &dynsym, &dynsym_sh) == 0 && symtab)
        rc = read_symtab(d, symtab, &symtab_sh, img, cap) != 0 ? -1 : 1;
    if (d)
        elf_end(d);
    if (f)
        fclose(f);
    return rc;
}

/* Function symbols from .symtab, else from the debug file's .symtab, else
 * from .dynsym. */
static int read_symbols(Elf *e, st_image *img, char *err, size_t errlen)
{
    Elf_Scn *symtab, *dynsym;
    GElf_Shdr symtab_sh, dynsym_sh;
    if (find_symtabs(e, img->map_size, &symtab, &symtab_sh, &dynsym, &dynsym_sh) != 0)
        return fail(err, errlen, img->path, "truncated file: its symbol table lies past its end");
    size_t cap = 0;
    int rc = symtab ? read_symtab(e, symtab, &symtab_sh, img, &cap) : read_debug_symbols(e, img, &cap);
    img->has_symtab = symtab != NULL || rc == 1;
    if (rc == 0 && !img->has_symtab && dynsym)
        rc = read_symtab(e, dynsym, &dynsym_sh, img, &cap);
    if (rc < 0)
        return fail(err, errlen, img->path, "out of memory");
    dedup_symbols(img);
    return 0;
}

int st_image_open(const char *path, st_image **out, char *err, size_t errlen)
{
    *out = NULL;
    st_image *img = calloc(1, sizeof *img);
    if (!img || !(img->path = strdup(path))) {
        free(img);
        return fail(err, errlen, path, "out of memory");
    }
    if (map_file(img, err, errlen) != 0) {
        st_image_close(img);
        return -1;
    }
    elf_version(EV_CURRENT);
    Elf *e = elf_memory((char *)img->map, img->map_size);
    int rc = !e ? fail(err, errlen, path, "not an ELF file")
                : check_header(e, img, err, errlen) || read_segments(e, img, err, errlen) ||
                      read_exec_sections(e, img, err, errlen) || read_symbols(e, img, err, errlen);
    if (e)
        elf_end(e);
    if (rc != 0) {
        st_image_close(img);
        return -1;
    }
    *out = img;
    return 0;
}

void st_image_close(st_image *img)
{
    if (!img)
        return;
    for (size_t i = 0; i < img->nexec; i++)
        free(img->exec[i].name);
    for (size_t i = 0; i < img->nsymbols; i++)
        free(img->symbols[i].name);
    free(img->exec);
    free(img->segments);
    free(img->symbols);
    if (img->map)
        munmap((void *)img->map, img->map_size);
    free(img->path);
    free(img);
}

int st_image_read(const st_image *img, uint64_t addr, void *buf, size_t n)
{
    for (size_t i = 0; i < img->nsegments; i++) {
        const st_segment *s = &img->segments[i];
        if (addr >= s->vaddr && addr - s->vaddr <= s->filesz && n <= s->filesz - (addr - s->vaddr)) {
            memcpy(buf, img->map + s->offset + (addr - s->vaddr), n);
            return 0;
        }
    }
    return -1;
}
