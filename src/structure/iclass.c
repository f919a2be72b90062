/* iclass.c — the mapping from a decoded x86-64 instruction to its generic
 * class (enum st_class), the width of the data its compute works on and
 * its element size, and the flop count of a classified instruction.
 *
 * The mapping is data: a table indexed by Zydis mnemonic lists every
 * floating-point, vector and otherwise notable mnemonic; mnemonics it
 * leaves out fall back on a table indexed by Zydis instruction category
 * (BINARY, SHIFT, CMOV, ... for the scalar integer instructions, PUSH, POP,
 * the branches), and whatever neither lists is OTHER.  The rationale for
 * each family is in docs/instruction-classes.md.
 */
#include "structure/iclass.h"

/* ---- table entries ------------------------------------------------------- */

/* An entry is a kind in the low 5 bits, the SCALAR bit, and the ICLASS_*
 * flags from bit FLAG_SHIFT up. */
enum {
    K_CATEGORY, /* not listed: the Zydis category decides */
    K_XFER,     /* pure data transfer: MOVE between registers, LOAD_STORE when
                   one operand is memory (the load or store is all it does) */
    K_CLASS     /* K_CLASS + c: always class c */
};
#define KIND_MASK 0x1fu
/* A scalar FP op: width is one element.  Zydis gives the VEX and EVEX
 * scalar forms (vaddsd, vfmadd231sd) whole xmm operands, since they copy
 * the upper lanes from a source. */
#define SCALAR 0x20u
#define FLAG_SHIFT 8

#define C(cls) (K_CLASS + ST_CLASS_##cls)
#define S(cls) (C(cls) | SCALAR)
#define DEPBRK (ICLASS_DEP_BREAKING << FLAG_SHIFT)
#define HINT (C(OTHER) | ICLASS_HINT << FLAG_SHIFT)

#define M(x) ZYDIS_MNEMONIC_##x
#define E(x, k) [M(x)] = (k)
/* A legacy (SSE/MMX) mnemonic and its VEX/EVEX twin. */
#define LV(x, k) E(x, k), E(V##x, k)
/* Packed single and double, legacy and VEX. */
#define PSD(x, k) LV(x##PS, k), LV(x##PD, k)
/* All FP forms: packed and scalar, single and double, legacy and VEX, and
 * the AVX-512 FP16 packed and scalar half forms. */
#define FP_ALL(x, k)                                                                                        \
    PSD(x, k), LV(x##SS, (k) | SCALAR), LV(x##SD, (k) | SCALAR), E(V##x##PH, k), E(V##x##SH, (k) | SCALAR)
/* FMA3 operand orders of one type. */
#define FMA_ORDERS(x, t, k) E(x##132##t, k), E(x##213##t, k), E(x##231##t, k)
#define FMA3_PACKED(x, k) FMA_ORDERS(x, PS, k), FMA_ORDERS(x, PD, k), FMA_ORDERS(x, PH, k)
#define FMA3_ALL(x, k)                                                                                      \
    FMA3_PACKED(x, k), FMA_ORDERS(x, SS, (k) | SCALAR), FMA_ORDERS(x, SD, (k) | SCALAR),                    \
        FMA_ORDERS(x, SH, (k) | SCALAR)
/* Four element sizes. */
#define BWDQ(x, k) E(x##B, k), E(x##W, k), E(x##D, k), E(x##Q, k)

static const uint16_t mnemonic_kind[ZYDIS_MNEMONIC_MAX_VALUE + 1] = {
    /* ---- integer ALU (scalar ones not listed come from the category) */
    E(LEA, C(INT_ALU)), E(XOR, C(INT_ALU) | DEPBRK), E(SUB, C(INT_ALU) | DEPBRK),
    E(BSWAP, C(INT_ALU)), E(POPCNT, C(INT_ALU)), E(LZCNT, C(INT_ALU)), E(TZCNT, C(INT_ALU)),
    E(CRC32, C(INT_ALU)), E(CWD, C(INT_ALU)), E(CDQ, C(INT_ALU)), E(CQO, C(INT_ALU)),
    /* vector integer arithmetic, logic, shifts, compares */
    LV(PADDB, C(INT_ALU)), LV(PADDW, C(INT_ALU)), LV(PADDD, C(INT_ALU)), LV(PADDQ, C(INT_ALU)),
    LV(PADDSB, C(INT_ALU)), LV(PADDSW, C(INT_ALU)), LV(PADDUSB, C(INT_ALU)), LV(PADDUSW, C(INT_ALU)),
    LV(PSUBB, C(INT_ALU) | DEPBRK), LV(PSUBW, C(INT_ALU) | DEPBRK), LV(PSUBD, C(INT_ALU) | DEPBRK),
    LV(PSUBQ, C(INT_ALU) | DEPBRK), LV(PSUBSB, C(INT_ALU) | DEPBRK), LV(PSUBSW, C(INT_ALU) | DEPBRK),
    LV(PSUBUSB, C(INT_ALU) | DEPBRK), LV(PSUBUSW, C(INT_ALU) | DEPBRK),
    LV(PAND, C(INT_ALU)), LV(PANDN, C(INT_ALU) | DEPBRK), LV(POR, C(INT_ALU)), LV(PXOR, C(INT_ALU) | DEPBRK),
    E(VPANDD, C(INT_ALU)), E(VPANDQ, C(INT_ALU)), E(VPANDND, C(INT_ALU) | DEPBRK),
    E(VPANDNQ, C(INT_ALU) | DEPBRK), E(VPORD, C(INT_ALU)), E(VPORQ, C(INT_ALU)),
    E(VPXORD, C(INT_ALU) | DEPBRK), E(VPXORQ, C(INT_ALU) | DEPBRK),
    E(VPTERNLOGD, C(INT_ALU)), E(VPTERNLOGQ, C(INT_ALU)),
    LV(PCMPEQB, C(INT_ALU) | DEPBRK), LV(PCMPEQW, C(INT_ALU) | DEPBRK), LV(PCMPEQD, C(INT_ALU) | DEPBRK),
    LV(PCMPEQQ, C(INT_ALU) | DEPBRK), LV(PCMPGTB, C(INT_ALU) | DEPBRK), LV(PCMPGTW, C(INT_ALU) | DEPBRK),
    LV(PCMPGTD, C(INT_ALU) | DEPBRK), LV(PCMPGTQ, C(INT_ALU) | DEPBRK),
    BWDQ(VPCMP, C(INT_ALU)), E(VPCMPUB, C(INT_ALU)), E(VPCMPUW, C(INT_ALU)), E(VPCMPUD, C(INT_ALU)),
    E(VPCMPUQ, C(INT_ALU)),
    LV(PMINSB, C(INT_ALU)), LV(PMINSW, C(INT_ALU)), LV(PMINSD, C(INT_ALU)), E(VPMINSQ, C(INT_ALU)),
    LV(PMINUB, C(INT_ALU)), LV(PMINUW, C(INT_ALU)), LV(PMINUD, C(INT_ALU)), E(VPMINUQ, C(INT_ALU)),
    LV(PMAXSB, C(INT_ALU)), LV(PMAXSW, C(INT_ALU)), LV(PMAXSD, C(INT_ALU)), E(VPMAXSQ, C(INT_ALU)),
    LV(PMAXUB, C(INT_ALU)), LV(PMAXUW, C(INT_ALU)), LV(PMAXUD, C(INT_ALU)), E(VPMAXUQ, C(INT_ALU)),
    LV(PABSB, C(INT_ALU)), LV(PABSW, C(INT_ALU)), LV(PABSD, C(INT_ALU)), E(VPABSQ, C(INT_ALU)),
    LV(PAVGB, C(INT_ALU)), LV(PAVGW, C(INT_ALU)), LV(PSIGNB, C(INT_ALU)), LV(PSIGNW, C(INT_ALU)),
    LV(PSIGND, C(INT_ALU)),
    LV(PSLLW, C(INT_ALU)), LV(PSLLD, C(INT_ALU)), LV(PSLLQ, C(INT_ALU)), LV(PSRLW, C(INT_ALU)),
    LV(PSRLD, C(INT_ALU)), LV(PSRLQ, C(INT_ALU)), LV(PSRAW, C(INT_ALU)), LV(PSRAD, C(INT_ALU)),
    E(VPSRAQ, C(INT_ALU)),
    E(VPSLLVW, C(INT_ALU)), E(VPSLLVD, C(INT_ALU)), E(VPSLLVQ, C(INT_ALU)), E(VPSRLVW, C(INT_ALU)),
    E(VPSRLVD, C(INT_ALU)), E(VPSRLVQ, C(INT_ALU)), E(VPSRAVW, C(INT_ALU)), E(VPSRAVD, C(INT_ALU)),
    E(VPSRAVQ, C(INT_ALU)),
    E(VPROLD, C(INT_ALU)), E(VPROLQ, C(INT_ALU)), E(VPROLVD, C(INT_ALU)), E(VPROLVQ, C(INT_ALU)),
    E(VPRORD, C(INT_ALU)), E(VPRORQ, C(INT_ALU)), E(VPRORVD, C(INT_ALU)), E(VPRORVQ, C(INT_ALU)),
    E(VPSHLDW, C(INT_ALU)), E(VPSHLDD, C(INT_ALU)), E(VPSHLDQ, C(INT_ALU)), E(VPSHLDVW, C(INT_ALU)),
    E(VPSHLDVD, C(INT_ALU)), E(VPSHLDVQ, C(INT_ALU)), E(VPSHRDW, C(INT_ALU)), E(VPSHRDD, C(INT_ALU)),
    E(VPSHRDQ, C(INT_ALU)), E(VPSHRDVW, C(INT_ALU)), E(VPSHRDVD, C(INT_ALU)), E(VPSHRDVQ, C(INT_ALU)),
    LV(PHADDW, C(INT_ALU)), LV(PHADDD, C(INT_ALU)), LV(PHADDSW, C(INT_ALU)), LV(PHSUBW, C(INT_ALU)),
    LV(PHSUBD, C(INT_ALU)), LV(PHSUBSW, C(INT_ALU)), LV(PHMINPOSUW, C(INT_ALU)),
    LV(PSADBW, C(INT_ALU)), LV(MPSADBW, C(INT_ALU)), E(VDBPSADBW, C(INT_ALU)),
    LV(PTEST, C(INT_ALU)), E(VTESTPS, C(INT_ALU)), E(VTESTPD, C(INT_ALU)),
    BWDQ(VPTESTM, C(INT_ALU)), BWDQ(VPTESTNM, C(INT_ALU)),
    E(VPLZCNTD, C(INT_ALU)), E(VPLZCNTQ, C(INT_ALU)), BWDQ(VPOPCNT, C(INT_ALU)),
    E(VPCONFLICTD, C(INT_ALU)), E(VPCONFLICTQ, C(INT_ALU)),
    LV(PCMPESTRI, C(INT_ALU)), LV(PCMPESTRM, C(INT_ALU)), LV(PCMPISTRI, C(INT_ALU)),
    LV(PCMPISTRM, C(INT_ALU)),
    /* bitwise logic on FP data: logic, not flops (as in MIAMI) */
    PSD(AND, C(INT_ALU)), PSD(ANDN, C(INT_ALU) | DEPBRK), PSD(OR, C(INT_ALU)), PSD(XOR, C(INT_ALU) | DEPBRK),
    /* x87 sign manipulation, the same kind of bit operation */
    E(FABS, C(INT_ALU)), E(FCHS, C(INT_ALU)),

    /* ---- integer multiply and divide */
    E(MUL, C(INT_MUL)), E(IMUL, C(INT_MUL)), E(MULX, C(INT_MUL)),
    LV(PMULLW, C(INT_MUL)), LV(PMULLD, C(INT_MUL)), E(VPMULLQ, C(INT_MUL)), LV(PMULHW, C(INT_MUL)),
    LV(PMULHUW, C(INT_MUL)), LV(PMULHRSW, C(INT_MUL)), LV(PMULDQ, C(INT_MUL)), LV(PMULUDQ, C(INT_MUL)),
    LV(PMADDWD, C(INT_MUL)), LV(PMADDUBSW, C(INT_MUL)), E(VPMADD52LUQ, C(INT_MUL)),
    E(VPMADD52HUQ, C(INT_MUL)), E(VPDPBUSD, C(INT_MUL)), E(VPDPBUSDS, C(INT_MUL)),
    E(VPDPWSSD, C(INT_MUL)), E(VPDPWSSDS, C(INT_MUL)), LV(PCLMULQDQ, C(INT_MUL)),
    E(DIV, C(INT_DIV)), E(IDIV, C(INT_DIV)),

    /* ---- FP add: add, sub, min, max, compares, horizontal adds */
    FP_ALL(ADD, C(FP_ADD)), FP_ALL(SUB, C(FP_ADD)), FP_ALL(MIN, C(FP_ADD)), FP_ALL(MAX, C(FP_ADD)),
    FP_ALL(CMP, C(FP_ADD)), /* CMPSD is also the string op: the category decides first */
    LV(COMISS, S(FP_ADD)), LV(COMISD, S(FP_ADD)), E(VCOMISH, S(FP_ADD)), LV(UCOMISS, S(FP_ADD)),
    LV(UCOMISD, S(FP_ADD)), E(VUCOMISH, S(FP_ADD)),
    PSD(HADD, C(FP_ADD)), PSD(HSUB, C(FP_ADD)), PSD(ADDSUB, C(FP_ADD)),
    E(VRANGEPS, C(FP_ADD)), E(VRANGEPD, C(FP_ADD)), E(VRANGESS, S(FP_ADD)), E(VRANGESD, S(FP_ADD)),
    E(VFPCLASSPS, C(FP_ADD)), E(VFPCLASSPD, C(FP_ADD)), E(VFPCLASSSS, S(FP_ADD)),
    E(VFPCLASSSD, S(FP_ADD)), E(VFPCLASSPH, C(FP_ADD)), E(VFPCLASSSH, S(FP_ADD)),
    E(FADD, C(FP_ADD)), E(FADDP, C(FP_ADD)), E(FIADD, C(FP_ADD)), E(FSUB, C(FP_ADD)),
    E(FSUBP, C(FP_ADD)), E(FSUBR, C(FP_ADD)), E(FSUBRP, C(FP_ADD)), E(FISUB, C(FP_ADD)),
    E(FISUBR, C(FP_ADD)), E(FCOM, C(FP_ADD)), E(FCOMP, C(FP_ADD)), E(FCOMPP, C(FP_ADD)),
    E(FCOMI, C(FP_ADD)), E(FCOMIP, C(FP_ADD)), E(FUCOM, C(FP_ADD)), E(FUCOMP, C(FP_ADD)),
    E(FUCOMPP, C(FP_ADD)), E(FUCOMI, C(FP_ADD)), E(FUCOMIP, C(FP_ADD)), E(FICOM, C(FP_ADD)),
    E(FICOMP, C(FP_ADD)), E(FTST, C(FP_ADD)),

    /* ---- FP multiply */
    FP_ALL(MUL, C(FP_MUL)),
    E(VSCALEFPS, C(FP_MUL)), E(VSCALEFPD, C(FP_MUL)), E(VSCALEFSS, S(FP_MUL)), E(VSCALEFSD, S(FP_MUL)),
    E(VSCALEFPH, C(FP_MUL)), E(VSCALEFSH, S(FP_MUL)),
    E(VFMULCPH, C(FP_MUL)), E(VFMULCSH, S(FP_MUL)), E(VFCMULCPH, C(FP_MUL)), E(VFCMULCSH, S(FP_MUL)),
    E(FMUL, C(FP_MUL)), E(FMULP, C(FP_MUL)), E(FIMUL, C(FP_MUL)), E(FSCALE, C(FP_MUL)),

    /* ---- FP fused multiply-add: FMA3 in every order and type, FMA4,
     * complex FP16 FMA and dot products (a multiply and an add per lane) */
    FMA3_ALL(VFMADD, C(FP_FMA)), FMA3_ALL(VFMSUB, C(FP_FMA)), FMA3_ALL(VFNMADD, C(FP_FMA)),
    FMA3_ALL(VFNMSUB, C(FP_FMA)), FMA3_PACKED(VFMADDSUB, C(FP_FMA)), FMA3_PACKED(VFMSUBADD, C(FP_FMA)),
    E(VFMADDPS, C(FP_FMA)), E(VFMADDPD, C(FP_FMA)), E(VFMADDSS, S(FP_FMA)), E(VFMADDSD, S(FP_FMA)),
    E(VFMSUBPS, C(FP_FMA)), E(VFMSUBPD, C(FP_FMA)), E(VFMSUBSS, S(FP_FMA)), E(VFMSUBSD, S(FP_FMA)),
    E(VFNMADDPS, C(FP_FMA)), E(VFNMADDPD, C(FP_FMA)), E(VFNMADDSS, S(FP_FMA)), E(VFNMADDSD, S(FP_FMA)),
    E(VFNMSUBPS, C(FP_FMA)), E(VFNMSUBPD, C(FP_FMA)), E(VFNMSUBSS, S(FP_FMA)), E(VFNMSUBSD, S(FP_FMA)),
    E(VFMADDSUBPS, C(FP_FMA)), E(VFMADDSUBPD, C(FP_FMA)), E(VFMSUBADDPS, C(FP_FMA)),
    E(VFMSUBADDPD, C(FP_FMA)),
    E(V4FMADDPS, C(FP_FMA)), E(V4FMADDSS, S(FP_FMA)), E(V4FNMADDPS, C(FP_FMA)), E(V4FNMADDSS, S(FP_FMA)),
    E(VFMADDCPH, C(FP_FMA)), E(VFMADDCSH, S(FP_FMA)), E(VFCMADDCPH, C(FP_FMA)), E(VFCMADDCSH, S(FP_FMA)),
    PSD(DP, C(FP_FMA)), E(VDPBF16PS, C(FP_FMA)),

    /* ---- FP divide, remainder */
    FP_ALL(DIV, C(FP_DIV)),
    E(FDIV, C(FP_DIV)), E(FDIVP, C(FP_DIV)), E(FDIVR, C(FP_DIV)), E(FDIVRP, C(FP_DIV)),
    E(FIDIV, C(FP_DIV)), E(FIDIVR, C(FP_DIV)), E(FPREM, C(FP_DIV)), E(FPREM1, C(FP_DIV)),

    /* ---- FP square root and the reciprocal approximations */
    FP_ALL(SQRT, C(FP_SQRT)),
    LV(RCPPS, C(FP_SQRT)), LV(RCPSS, S(FP_SQRT)), E(VRCPPH, C(FP_SQRT)), E(VRCPSH, S(FP_SQRT)),
    E(VRCP14PS, C(FP_SQRT)), E(VRCP14PD, C(FP_SQRT)), E(VRCP14SS, S(FP_SQRT)), E(VRCP14SD, S(FP_SQRT)),
    E(VRCP28PS, C(FP_SQRT)), E(VRCP28PD, C(FP_SQRT)), E(VRCP28SS, S(FP_SQRT)), E(VRCP28SD, S(FP_SQRT)),
    LV(RSQRTPS, C(FP_SQRT)), LV(RSQRTSS, S(FP_SQRT)), E(VRSQRTPH, C(FP_SQRT)), E(VRSQRTSH, S(FP_SQRT)),
    E(VRSQRT14PS, C(FP_SQRT)), E(VRSQRT14PD, C(FP_SQRT)), E(VRSQRT14SS, S(FP_SQRT)),
    E(VRSQRT14SD, S(FP_SQRT)), E(VRSQRT28PS, C(FP_SQRT)), E(VRSQRT28PD, C(FP_SQRT)),
    E(VRSQRT28SS, S(FP_SQRT)), E(VRSQRT28SD, S(FP_SQRT)),
    E(FSQRT, C(FP_SQRT)),

    /* ---- conversions: int <-> fp, fp widths, rounding, exponent/mantissa */
    LV(CVTDQ2PD, C(FP_CVT)), LV(CVTDQ2PS, C(FP_CVT)), LV(CVTPD2DQ, C(FP_CVT)), LV(CVTPD2PS, C(FP_CVT)),
    LV(CVTPS2DQ, C(FP_CVT)), LV(CVTPS2PD, C(FP_CVT)), LV(CVTSD2SI, S(FP_CVT)), LV(CVTSD2SS, S(FP_CVT)),
    LV(CVTSI2SD, S(FP_CVT)), LV(CVTSI2SS, S(FP_CVT)), LV(CVTSS2SD, S(FP_CVT)), LV(CVTSS2SI, S(FP_CVT)),
    LV(CVTTPD2DQ, C(FP_CVT)), LV(CVTTPS2DQ, C(FP_CVT)), LV(CVTTSD2SI, S(FP_CVT)),
    LV(CVTTSS2SI, S(FP_CVT)),
    E(CVTPD2PI, C(FP_CVT)), E(CVTPI2PD, C(FP_CVT)), E(CVTPI2PS, C(FP_CVT)), E(CVTPS2PI, C(FP_CVT)),
    E(CVTTPD2PI, C(FP_CVT)), E(CVTTPS2PI, C(FP_CVT)),
    E(VCVTDQ2PH, C(FP_CVT)), E(VCVTNE2PS2BF16, C(FP_CVT)), E(VCVTNEPS2BF16, C(FP_CVT)),
    E(VCVTPD2PH, C(FP_CVT)), E(VCVTPD2QQ, C(FP_CVT)), E(VCVTPD2UDQ, C(FP_CVT)), E(VCVTPD2UQQ, C(FP_CVT)),
    E(VCVTPH2DQ, C(FP_CVT)), E(VCVTPH2PD, C(FP_CVT)), E(VCVTPH2PS, C(FP_CVT)), E(VCVTPH2PSX, C(FP_CVT)),
    E(VCVTPH2QQ, C(FP_CVT)), E(VCVTPH2UDQ, C(FP_CVT)), E(VCVTPH2UQQ, C(FP_CVT)), E(VCVTPH2UW, C(FP_CVT)),
    E(VCVTPH2W, C(FP_CVT)), E(VCVTPS2PH, C(FP_CVT)), E(VCVTPS2PHX, C(FP_CVT)), E(VCVTPS2QQ, C(FP_CVT)),
    E(VCVTPS2UDQ, C(FP_CVT)), E(VCVTPS2UQQ, C(FP_CVT)), E(VCVTQQ2PD, C(FP_CVT)), E(VCVTQQ2PH, C(FP_CVT)),
    E(VCVTQQ2PS, C(FP_CVT)), E(VCVTSD2SH, S(FP_CVT)), E(VCVTSD2USI, S(FP_CVT)), E(VCVTSH2SD, S(FP_CVT)),
    E(VCVTSH2SI, S(FP_CVT)), E(VCVTSH2SS, S(FP_CVT)), E(VCVTSH2USI, S(FP_CVT)), E(VCVTSI2SH, S(FP_CVT)),
    E(VCVTSS2SH, S(FP_CVT)), E(VCVTSS2USI, S(FP_CVT)), E(VCVTTPD2QQ, C(FP_CVT)),
    E(VCVTTPD2UDQ, C(FP_CVT)), E(VCVTTPD2UQQ, C(FP_CVT)), E(VCVTTPH2DQ, C(FP_CVT)),
    E(VCVTTPH2QQ, C(FP_CVT)), E(VCVTTPH2UDQ, C(FP_CVT)), E(VCVTTPH2UQQ, C(FP_CVT)),
    E(VCVTTPH2UW, C(FP_CVT)), E(VCVTTPH2W, C(FP_CVT)), E(VCVTTPS2QQ, C(FP_CVT)),
    E(VCVTTPS2UDQ, C(FP_CVT)), E(VCVTTPS2UQQ, C(FP_CVT)), E(VCVTTSD2USI, S(FP_CVT)),
    E(VCVTTSH2SI, S(FP_CVT)), E(VCVTTSH2USI, S(FP_CVT)), E(VCVTTSS2USI, S(FP_CVT)),
    E(VCVTUDQ2PD, C(FP_CVT)), E(VCVTUDQ2PH, C(FP_CVT)), E(VCVTUDQ2PS, C(FP_CVT)),
    E(VCVTUQQ2PD, C(FP_CVT)), E(VCVTUQQ2PH, C(FP_CVT)), E(VCVTUQQ2PS, C(FP_CVT)),
    E(VCVTUSI2SD, S(FP_CVT)), E(VCVTUSI2SH, S(FP_CVT)), E(VCVTUSI2SS, S(FP_CVT)), E(VCVTUW2PH, C(FP_CVT)),
    E(VCVTW2PH, C(FP_CVT)),
    PSD(ROUND, C(FP_CVT)), LV(ROUNDSS, S(FP_CVT)), LV(ROUNDSD, S(FP_CVT)),
    E(VRNDSCALEPS, C(FP_CVT)), E(VRNDSCALEPD, C(FP_CVT)), E(VRNDSCALESS, S(FP_CVT)),
    E(VRNDSCALESD, S(FP_CVT)), E(VRNDSCALEPH, C(FP_CVT)), E(VRNDSCALESH, S(FP_CVT)),
    E(VREDUCEPS, C(FP_CVT)), E(VREDUCEPD, C(FP_CVT)), E(VREDUCESS, S(FP_CVT)), E(VREDUCESD, S(FP_CVT)),
    E(VREDUCEPH, C(FP_CVT)), E(VREDUCESH, S(FP_CVT)),
    E(VGETEXPPS, C(FP_CVT)), E(VGETEXPPD, C(FP_CVT)), E(VGETEXPSS, S(FP_CVT)), E(VGETEXPSD, S(FP_CVT)),
    E(VGETEXPPH, C(FP_CVT)), E(VGETEXPSH, S(FP_CVT)),
    E(VGETMANTPS, C(FP_CVT)), E(VGETMANTPD, C(FP_CVT)), E(VGETMANTSS, S(FP_CVT)),
    E(VGETMANTSD, S(FP_CVT)), E(VGETMANTPH, C(FP_CVT)), E(VGETMANTSH, S(FP_CVT)),
    E(FILD, C(FP_CVT)), E(FIST, C(FP_CVT)), E(FISTP, C(FP_CVT)), E(FISTTP, C(FP_CVT)),
    E(FRNDINT, C(FP_CVT)), E(FBLD, C(FP_CVT)), E(FBSTP, C(FP_CVT)),

    /* ---- pure data transfer: moves, loads, stores, broadcasts */
    E(MOV, K_XFER), E(MOVSX, K_XFER), E(MOVZX, K_XFER), E(MOVSXD, K_XFER), E(XCHG, K_XFER),
    E(MOVBE, K_XFER), E(MOVNTI, K_XFER), E(XLAT, K_XFER),
    PSD(MOVA, K_XFER), PSD(MOVU, K_XFER), LV(MOVDQA, K_XFER), LV(MOVDQU, K_XFER),
    E(VMOVDQA32, K_XFER), E(VMOVDQA64, K_XFER), E(VMOVDQU8, K_XFER), E(VMOVDQU16, K_XFER),
    E(VMOVDQU32, K_XFER), E(VMOVDQU64, K_XFER),
    LV(MOVD, K_XFER), LV(MOVQ, K_XFER), LV(MOVSS, K_XFER), LV(MOVSD, K_XFER), E(VMOVSH, K_XFER),
    E(VMOVW, K_XFER), LV(MOVHPS, K_XFER), LV(MOVHPD, K_XFER), LV(MOVLPS, K_XFER), LV(MOVLPD, K_XFER),
    PSD(MOVNT, K_XFER), LV(MOVNTDQ, K_XFER), LV(MOVNTDQA, K_XFER), E(MOVNTQ, K_XFER),
    E(MOVNTSS, K_XFER), E(MOVNTSD, K_XFER), LV(LDDQU, K_XFER),
    LV(MOVDDUP, K_XFER), LV(MOVSHDUP, K_XFER), LV(MOVSLDUP, K_XFER),
    LV(MASKMOVDQU, K_XFER), E(MASKMOVQ, K_XFER), E(VMASKMOVPS, K_XFER), E(VMASKMOVPD, K_XFER),
    E(VPMASKMOVD, K_XFER), E(VPMASKMOVQ, K_XFER), E(MOVQ2DQ, K_XFER), E(MOVDQ2Q, K_XFER),
    E(VBROADCASTSS, K_XFER), E(VBROADCASTSD, K_XFER), E(VBROADCASTF128, K_XFER),
    E(VBROADCASTI128, K_XFER), E(VBROADCASTF32X2, K_XFER), E(VBROADCASTF32X4, K_XFER),
    E(VBROADCASTF32X8, K_XFER), E(VBROADCASTF64X2, K_XFER), E(VBROADCASTF64X4, K_XFER),
    E(VBROADCASTI32X2, K_XFER), E(VBROADCASTI32X4, K_XFER), E(VBROADCASTI32X8, K_XFER),
    E(VBROADCASTI64X2, K_XFER), E(VBROADCASTI64X4, K_XFER), BWDQ(VPBROADCAST, K_XFER),
    BWDQ(KMOV, K_XFER),
    E(FLD, K_XFER), E(FST, K_XFER), E(FSTP, K_XFER),
    E(LEAVE, C(LOAD_STORE)), /* a load of rbp; the rsp update is bookkeeping */

    /* ---- register moves that rearrange data: shuffles, permutes, blends,
     * packs and unpacks, inserts and extracts, sign and zero extensions */
    E(CBW, C(MOVE)), E(CWDE, C(MOVE)), E(CDQE, C(MOVE)),
    PSD(SHUF, C(MOVE)), E(VSHUFF32X4, C(MOVE)), E(VSHUFF64X2, C(MOVE)), E(VSHUFI32X4, C(MOVE)),
    E(VSHUFI64X2, C(MOVE)), PSD(UNPCKH, C(MOVE)), PSD(UNPCKL, C(MOVE)),
    LV(PUNPCKHBW, C(MOVE)), LV(PUNPCKHWD, C(MOVE)), LV(PUNPCKHDQ, C(MOVE)), LV(PUNPCKHQDQ, C(MOVE)),
    LV(PUNPCKLBW, C(MOVE)), LV(PUNPCKLWD, C(MOVE)), LV(PUNPCKLDQ, C(MOVE)), LV(PUNPCKLQDQ, C(MOVE)),
    LV(PSHUFB, C(MOVE)), LV(PSHUFD, C(MOVE)), LV(PSHUFHW, C(MOVE)), LV(PSHUFLW, C(MOVE)),
    E(PSHUFW, C(MOVE)), LV(PALIGNR, C(MOVE)), E(VALIGND, C(MOVE)), E(VALIGNQ, C(MOVE)),
    LV(PSLLDQ, C(MOVE)), LV(PSRLDQ, C(MOVE)), LV(MOVHLPS, C(MOVE)), LV(MOVLHPS, C(MOVE)),
    PSD(BLEND, C(MOVE)), PSD(BLENDV, C(MOVE)), LV(PBLENDW, C(MOVE)), LV(PBLENDVB, C(MOVE)),
    E(VPBLENDD, C(MOVE)), E(VBLENDMPS, C(MOVE)), E(VBLENDMPD, C(MOVE)), BWDQ(VPBLENDM, C(MOVE)),
    E(VPERMB, C(MOVE)), E(VPERMW, C(MOVE)), E(VPERMD, C(MOVE)), E(VPERMQ, C(MOVE)), E(VPERMPS, C(MOVE)),
    E(VPERMPD, C(MOVE)), BWDQ(VPERMI2, C(MOVE)), E(VPERMI2PS, C(MOVE)), E(VPERMI2PD, C(MOVE)),
    BWDQ(VPERMT2, C(MOVE)), E(VPERMT2PS, C(MOVE)), E(VPERMT2PD, C(MOVE)), E(VPERMILPS, C(MOVE)),
    E(VPERMILPD, C(MOVE)), E(VPERMIL2PS, C(MOVE)), E(VPERMIL2PD, C(MOVE)), E(VPERM2F128, C(MOVE)),
    E(VPERM2I128, C(MOVE)),
    LV(PACKSSWB, C(MOVE)), LV(PACKSSDW, C(MOVE)), LV(PACKUSWB, C(MOVE)), LV(PACKUSDW, C(MOVE)),
    LV(PMOVSXBW, C(MOVE)), LV(PMOVSXBD, C(MOVE)), LV(PMOVSXBQ, C(MOVE)), LV(PMOVSXWD, C(MOVE)),
    LV(PMOVSXWQ, C(MOVE)), LV(PMOVSXDQ, C(MOVE)), LV(PMOVZXBW, C(MOVE)), LV(PMOVZXBD, C(MOVE)),
    LV(PMOVZXBQ, C(MOVE)), LV(PMOVZXWD, C(MOVE)), LV(PMOVZXWQ, C(MOVE)), LV(PMOVZXDQ, C(MOVE)),
    E(VPMOVWB, C(MOVE)), E(VPMOVDB, C(MOVE)), E(VPMOVDW, C(MOVE)), E(VPMOVQB, C(MOVE)),
    E(VPMOVQW, C(MOVE)), E(VPMOVQD, C(MOVE)), E(VPMOVSWB, C(MOVE)), E(VPMOVSDB, C(MOVE)),
    E(VPMOVSDW, C(MOVE)), E(VPMOVSQB, C(MOVE)), E(VPMOVSQW, C(MOVE)), E(VPMOVSQD, C(MOVE)),
    E(VPMOVUSWB, C(MOVE)), E(VPMOVUSDB, C(MOVE)), E(VPMOVUSDW, C(MOVE)), E(VPMOVUSQB, C(MOVE)),
    E(VPMOVUSQW, C(MOVE)), E(VPMOVUSQD, C(MOVE)),
    E(VPMOVM2B, C(MOVE)), E(VPMOVM2W, C(MOVE)), E(VPMOVM2D, C(MOVE)), E(VPMOVM2Q, C(MOVE)),
    E(VPMOVB2M, C(MOVE)), E(VPMOVW2M, C(MOVE)), E(VPMOVD2M, C(MOVE)), E(VPMOVQ2M, C(MOVE)),
    PSD(MOVMSK, C(MOVE)), LV(PMOVMSKB, C(MOVE)), E(VPBROADCASTMB2Q, C(MOVE)),
    E(VPBROADCASTMW2D, C(MOVE)),
    LV(PINSRB, C(MOVE)), LV(PINSRW, C(MOVE)), LV(PINSRD, C(MOVE)), LV(PINSRQ, C(MOVE)),
    LV(PEXTRB, C(MOVE)), LV(PEXTRW, C(MOVE)), LV(PEXTRD, C(MOVE)), LV(PEXTRQ, C(MOVE)),
    LV(INSERTPS, C(MOVE)), LV(EXTRACTPS, C(MOVE)),
    E(VINSERTF128, C(MOVE)), E(VINSERTI128, C(MOVE)), E(VINSERTF32X4, C(MOVE)),
    E(VINSERTF32X8, C(MOVE)), E(VINSERTF64X2, C(MOVE)), E(VINSERTF64X4, C(MOVE)),
    E(VINSERTI32X4, C(MOVE)), E(VINSERTI32X8, C(MOVE)), E(VINSERTI64X2, C(MOVE)),
    E(VINSERTI64X4, C(MOVE)), E(VEXTRACTF128, C(MOVE)), E(VEXTRACTI128, C(MOVE)),
    E(VEXTRACTF32X4, C(MOVE)), E(VEXTRACTF32X8, C(MOVE)), E(VEXTRACTF64X2, C(MOVE)),
    E(VEXTRACTF64X4, C(MOVE)), E(VEXTRACTI32X4, C(MOVE)), E(VEXTRACTI32X8, C(MOVE)),
    E(VEXTRACTI64X2, C(MOVE)), E(VEXTRACTI64X4, C(MOVE)),
    E(VCOMPRESSPS, C(MOVE)), E(VCOMPRESSPD, C(MOVE)), BWDQ(VPCOMPRESS, C(MOVE)),
    E(VEXPANDPS, C(MOVE)), E(VEXPANDPD, C(MOVE)), BWDQ(VPEXPAND, C(MOVE)),
    E(VPMULTISHIFTQB, C(MOVE)), E(VPSHUFBITQMB, C(MOVE)),
    E(FXCH, C(MOVE)), E(FLD1, C(MOVE)), E(FLDZ, C(MOVE)), E(FLDPI, C(MOVE)), E(FLDL2E, C(MOVE)),
    E(FLDL2T, C(MOVE)), E(FLDLG2, C(MOVE)), E(FLDLN2, C(MOVE)),
    E(FCMOVB, C(MOVE)), E(FCMOVBE, C(MOVE)), E(FCMOVE, C(MOVE)), E(FCMOVNB, C(MOVE)),
    E(FCMOVNBE, C(MOVE)), E(FCMOVNE, C(MOVE)), E(FCMOVNU, C(MOVE)), E(FCMOVU, C(MOVE)),

    /* ---- other, with memory named but not accessed */
    E(PREFETCH, HINT), E(PREFETCHNTA, HINT), E(PREFETCHT0, HINT), E(PREFETCHT1, HINT),
    E(PREFETCHT2, HINT), E(PREFETCHW, HINT), E(PREFETCHWT1, HINT), E(CLFLUSH, HINT),
    E(CLFLUSHOPT, HINT), E(CLWB, HINT), E(CLDEMOTE, HINT),
    E(VGATHERPF0DPS, HINT), E(VGATHERPF0DPD, HINT), E(VGATHERPF0QPS, HINT), E(VGATHERPF0QPD, HINT),
    E(VGATHERPF1DPS, HINT), E(VGATHERPF1DPD, HINT), E(VGATHERPF1QPS, HINT), E(VGATHERPF1QPD, HINT),
    E(VSCATTERPF0DPS, HINT), E(VSCATTERPF0DPD, HINT), E(VSCATTERPF0QPS, HINT),
    E(VSCATTERPF0QPD, HINT), E(VSCATTERPF1DPS, HINT), E(VSCATTERPF1DPD, HINT),
    E(VSCATTERPF1QPS, HINT), E(VSCATTERPF1QPD, HINT),
    E(NOP, C(OTHER) | ICLASS_NOP << FLAG_SHIFT),
};

/* Classes of the Zydis categories, for mnemonics the table leaves out;
 * categories not listed are OTHER. */
static const uint8_t category_kind[ZYDIS_CATEGORY_MAX_VALUE + 1] = {
    [ZYDIS_CATEGORY_BINARY] = C(INT_ALU), [ZYDIS_CATEGORY_LOGICAL] = C(INT_ALU),
    [ZYDIS_CATEGORY_LOGICAL_FP] = C(INT_ALU), [ZYDIS_CATEGORY_SHIFT] = C(INT_ALU),
    [ZYDIS_CATEGORY_ROTATE] = C(INT_ALU), [ZYDIS_CATEGORY_BITBYTE] = C(INT_ALU),
    [ZYDIS_CATEGORY_CMOV] = C(INT_ALU), [ZYDIS_CATEGORY_SETCC] = C(INT_ALU),
    [ZYDIS_CATEGORY_FLAGOP] = C(INT_ALU), [ZYDIS_CATEGORY_DECIMAL] = C(INT_ALU),
    [ZYDIS_CATEGORY_BMI1] = C(INT_ALU), [ZYDIS_CATEGORY_BMI2] = C(INT_ALU),
    [ZYDIS_CATEGORY_LZCNT] = C(INT_ALU), [ZYDIS_CATEGORY_TBM] = C(INT_ALU),
    [ZYDIS_CATEGORY_ADOX_ADCX] = C(INT_ALU), [ZYDIS_CATEGORY_SEMAPHORE] = C(INT_ALU),
    [ZYDIS_CATEGORY_KMASK] = C(INT_ALU), [ZYDIS_CATEGORY_CONFLICT] = C(INT_ALU),
    [ZYDIS_CATEGORY_AVX512_BITALG] = C(INT_ALU),
    [ZYDIS_CATEGORY_IFMA] = C(INT_MUL),
    [ZYDIS_CATEGORY_VFMA] = C(FP_FMA), [ZYDIS_CATEGORY_FMA4] = C(FP_FMA),
    [ZYDIS_CATEGORY_CONVERT] = C(FP_CVT),
    [ZYDIS_CATEGORY_DATAXFER] = K_XFER, [ZYDIS_CATEGORY_BROADCAST] = K_XFER,
    [ZYDIS_CATEGORY_PUSH] = C(LOAD_STORE), [ZYDIS_CATEGORY_POP] = C(LOAD_STORE),
    [ZYDIS_CATEGORY_GATHER] = C(LOAD_STORE), [ZYDIS_CATEGORY_AVX2GATHER] = C(LOAD_STORE),
    [ZYDIS_CATEGORY_SCATTER] = C(LOAD_STORE),
    [ZYDIS_CATEGORY_BLEND] = C(MOVE), [ZYDIS_CATEGORY_COMPRESS] = C(MOVE),
    [ZYDIS_CATEGORY_EXPAND] = C(MOVE),
    [ZYDIS_CATEGORY_COND_BR] = C(BRANCH), [ZYDIS_CATEGORY_UNCOND_BR] = C(BRANCH),
    [ZYDIS_CATEGORY_CALL] = C(CALL), [ZYDIS_CATEGORY_RET] = C(RETURN),
    [ZYDIS_CATEGORY_SYSRET] = C(RETURN),
};

unsigned iclass_flags(ZydisMnemonic m)
{
    return (unsigned)m <= ZYDIS_MNEMONIC_MAX_VALUE ? mnemonic_kind[m] >> FLAG_SHIFT : 0;
}

/* The table entry of zi: its mnemonic's, else its category's kind, else
 * OTHER.  String instructions are OTHER whatever their mnemonic: MOVSD and
 * CMPSD name both a string op and an SSE op. */
static unsigned entry_of(const ZydisDecodedInstruction *zi)
{
    ZydisInstructionCategory cat = zi->meta.category;
    if (cat == ZYDIS_CATEGORY_STRINGOP || cat == ZYDIS_CATEGORY_IOSTRINGOP)
        return C(OTHER);
    unsigned e = (unsigned)zi->mnemonic <= ZYDIS_MNEMONIC_MAX_VALUE ? mnemonic_kind[zi->mnemonic] : K_CATEGORY;
    if ((e & KIND_MASK) == K_CATEGORY && (unsigned)cat <= ZYDIS_CATEGORY_MAX_VALUE)
        e = category_kind[cat];
    return (e & KIND_MASK) == K_CATEGORY ? C(OTHER) : e;
}

/* 1 when an operand of zi reads or writes memory (lea's does not). */
static int touches_memory(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops)
{
    for (unsigned i = 0; i < zi->operand_count; i++)
        if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && ops[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN)
            return 1;
    return 0;
}

/* 1 for registers that hold computed data: general-purpose, x87, MMX and
 * vector registers (not flags, masks, segments, rip). */
static int is_data_register(ZydisRegister r)
{
    return (r >= ZYDIS_REGISTER_AL && r <= ZYDIS_REGISTER_R15) || (r >= ZYDIS_REGISTER_ST0 && r <= ZYDIS_REGISTER_ST7)
        || (r >= ZYDIS_REGISTER_MM0 && r <= ZYDIS_REGISTER_ZMM31);
}

/* The operand that shows the data an instruction computes on: the widest
 * data register or memory operand, visible ones first (hidden ones only
 * when there are no visible ones, as for cqo).  NULL if there is none. */
static const ZydisDecodedOperand *data_operand(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops)
{
    const ZydisDecodedOperand *best = NULL;
    for (int hidden = 0; hidden < 2 && !best; hidden++)
        for (unsigned i = 0; i < zi->operand_count; i++) {
            const ZydisDecodedOperand *o = &ops[i];
            if ((o->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN) != hidden)
                continue;
            int data = o->type == ZYDIS_OPERAND_TYPE_REGISTER ? is_data_register(o->reg.value)
                     : o->type == ZYDIS_OPERAND_TYPE_MEMORY   ? o->mem.type != ZYDIS_MEMOP_TYPE_AGEN
                                                              : 0;
            if (data && (!best || o->size > best->size))
                best = o;
        }
    return best;
}

/* Width and element size of an instruction of class c: 0 for classes
 * without compute on data; 80 for x87 arithmetic (extended precision
 * whatever the memory operand's size); else the size of data_operand()
 * and its element size, the element capped at 64 bits because Zydis
 * gives whole-register logic (vpxor) one 128- or 256-bit element.  A
 * scalar op's width is its element. */
static void data_shape(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, enum st_class c,
                       int scalar, st_insn *out)
{
    out->width = out->elem_bits = 0;
    if (c == ST_CLASS_LOAD_STORE || c == ST_CLASS_BRANCH || c == ST_CLASS_CALL || c == ST_CLASS_RETURN
        || c == ST_CLASS_OTHER)
        return;
    if (zi->meta.isa_ext == ZYDIS_ISA_EXT_X87) {
        out->width = out->elem_bits = 80;
        return;
    }
    const ZydisDecodedOperand *o = data_operand(zi, ops);
    unsigned width = o ? o->size : zi->operand_width;
    unsigned elem = o ? o->element_size : 0;
    if (elem == 0 || elem > width)
        elem = width;
    if (elem > 64)
        elem = 64;
    if (scalar)
        width = elem;
    out->width = (uint16_t)width;
    out->elem_bits = (uint8_t)elem;
}

void iclass_classify(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *ops, st_insn *out)
{
    unsigned e = entry_of(zi), k = e & KIND_MASK;
    enum st_class c;
    if (k == K_XFER)
        c = touches_memory(zi, ops) ? ST_CLASS_LOAD_STORE : ST_CLASS_MOVE;
    else
        c = (enum st_class)(k - K_CLASS);
    out->cls = (uint8_t)c;
    data_shape(zi, ops, c, (e & SCALAR) != 0, out);
}

/* ---- flops and names ------------------------------------------------------ */

uint32_t st_insn_flops(const st_insn *in)
{
    uint32_t lanes = in->elem_bits ? in->width / in->elem_bits : 0;
    switch (in->cls) {
    case ST_CLASS_FP_ADD:
    case ST_CLASS_FP_MUL:
    case ST_CLASS_FP_DIV:
    case ST_CLASS_FP_SQRT:
        return lanes;
    case ST_CLASS_FP_FMA:
        return 2 * lanes;
    default: /* conversions included: they compute no arithmetic result */
        return 0;
    }
}

static const char *const class_names[ST_CLASS_COUNT] = {
    [ST_CLASS_LOAD_STORE] = "load_store", [ST_CLASS_INT_ALU] = "int_alu", [ST_CLASS_INT_MUL] = "int_mul",
    [ST_CLASS_INT_DIV] = "int_div",       [ST_CLASS_FP_ADD] = "fp_add",   [ST_CLASS_FP_MUL] = "fp_mul",
    [ST_CLASS_FP_FMA] = "fp_fma",         [ST_CLASS_FP_DIV] = "fp_div",   [ST_CLASS_FP_SQRT] = "fp_sqrt",
    [ST_CLASS_FP_CVT] = "fp_cvt",         [ST_CLASS_MOVE] = "move",       [ST_CLASS_BRANCH] = "branch",
    [ST_CLASS_CALL] = "call",             [ST_CLASS_RETURN] = "return",   [ST_CLASS_OTHER] = "other",
};

const char *st_class_name(enum st_class c)
{
    return (unsigned)c < ST_CLASS_COUNT ? class_names[c] : "?";
}
