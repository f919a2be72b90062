/* format.c — names of registers and scope kinds, and the text form of
 * address formulas, as `augur structure` prints them and the database
 * stores them. */
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
