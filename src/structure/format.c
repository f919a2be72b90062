/* format.c — names of registers and scope kinds, and the text form of
 * address formulas, as `augur structure` prints them and the database
 * stores them, and function names shortened for text tables. */
#include "structure/structure.h"

#include <stdio.h>
#include <string.h>

const char *st_reg_name(uint8_t reg)
{
    static const char *const gpr[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
                                        "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};
    static const char *const vec[32] = {"xmm0",  "xmm1",  "xmm2",  "xmm3",  "xmm4",  "xmm5",  "xmm6",  "xmm7",
                                        "xmm8",  "xmm9",  "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
                                        "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22", "xmm23",
                                        "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30", "xmm31"};
    static const char *const mask[8] = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};
    if (reg < 16)
        return gpr[reg];
    if (reg >= ST_REG_VEC0 && reg < ST_REG_VEC0 + 32)
        return vec[reg - ST_REG_VEC0];
    if (reg >= ST_REG_MASK0 && reg < ST_REG_MASK0 + 8)
        return mask[reg - ST_REG_MASK0];
    if (reg == ST_REG_FLAGS)
        return "flags";
    if (reg == ST_REG_X87)
        return "x87";
    return reg == ST_REG_RIP ? "rip" : "?";
}

const char *st_scope_kind_name(enum st_scope_kind k)
{
    static const char *const names[] = {"program", "module", "function", "inlined", "loop"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

char *st_addr_format(const st_addr *a, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint8_t k = 0; k < a->nterms && used < len; k++) {
        const st_term *t = &a->terms[k];
        const char *name = t->kind == ST_TERM_REG ? st_reg_name(t->reg) : "?";
        const char *sep = k == 0 ? (t->coef < 0 ? "-" : "") : (t->coef < 0 ? " - " : " + ");
        long long mag = t->coef < 0 ? -(long long)t->coef : (long long)t->coef;
        used += mag == 1 ? (size_t)snprintf(buf + used, len - used, "%s%s", sep, name)
                         : (size_t)snprintf(buf + used, len - used, "%s%lld*%s", sep, mag, name);
    }
    if (used < len && (a->constant != 0 || a->nterms == 0)) {
        long long c = a->constant;
        const char *sep = a->nterms == 0 ? (c < 0 ? "-" : "") : (c < 0 ? " - " : " + ");
        unsigned long long mag = c < 0 ? 0ull - (unsigned long long)c : (unsigned long long)c;
        snprintf(buf + used, len - used, "%s0x%llx", sep, mag);
    }
    return buf;
}

/* Copy name into buf without the spans opened by `open` and closed by
 * `close` at depth 0 (nested ones inside them go too), writing `keep` in
 * place of each span; "(anonymous namespace)" and "operator()" stay. */
static void drop_spans(const char *name, char open, char close, const char *keep, char *buf, size_t len)
{
    size_t used = 0, depth = 0;
    for (const char *p = name; *p && used + 1 < len; p++) {
        if (depth > 0) { /* inside a dropped span */
            depth += (*p == open) - (*p == close);
            continue;
        }
        size_t kept = open != '(' ? 0 : !strncmp(p, "(anonymous namespace)", 21) ? 21
                                      : p - name >= 8 && !strncmp(p - 8, "operator()", 10) ? 2 : 0;
        if (kept) {
            used += (size_t)snprintf(buf + used, len - used, "%.*s", (int)kept, p);
            p += kept - 1;
        } else if (*p == open) {
            depth = 1;
            used += (size_t)snprintf(buf + used, len - used, "%s", keep);
        } else {
            buf[used++] = *p;
        }
    }
    buf[used < len ? used : len - 1] = '\0';
}

char *st_short_name(const char *name, size_t width, char *buf, size_t len)
{
    /* Lengths are taken before copying into buf, which may hold only width
     * characters: a truncated copy would look short enough. */
    char bare[1024], plain[1024];
    const char *best = name;
    if (strlen(best) > width) {
        drop_spans(name, '(', ')', "()", bare, sizeof bare);
        best = bare;
    }
    if (strlen(best) > width) {
        drop_spans(bare, '<', '>', "<...>", plain, sizeof plain);
        best = plain;
    }
    snprintf(buf, len, "%s", best);
    if (strlen(best) > width && width >= 3 && width < len)
        snprintf(buf + width - 3, len - (width - 3), "...");
    return buf;
}
