/* test_decode.c — unit tests of the instruction decoder and classifier
 * (src/structure/decode.c, iclass.c).
 *
 * Every instruction is given as the bytes GNU as produced for it (the
 * assembly, in Intel syntax, is the comment beside it) and the expected
 * fields come from the Intel SDM: the class of each family as
 * docs/instruction-classes.md defines it, the operands, registers and
 * flow of the instruction.  All decoding is as if at address ADDR, so
 * RIP-relative operands and branch targets have known absolute values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "structure/structure.h"

#define ADDR 0x401000u

/* A register's bit in an st_regset; V(n) for vector register n. */
#define R(x) ((st_regset)1 << ST_REG_##x)
#define V(n) ((st_regset)1 << (ST_REG_VEC0 + (n)))
#define K(n) ((st_regset)1 << (ST_REG_MASK0 + (n)))

/* Decode code[0..n) at addr into a record first filled with garbage; the
 * whole buffer must be one instruction. */
static st_insn decode_at(const uint8_t *code, size_t n, uint64_t addr)
{
    st_insn in;
    memset(&in, 0xa5, sizeof in); /* nothing may be left unset */
    assert_int_equal(st_decode_one(code, n, addr, &in), n);
    assert_int_equal(in.len, n);
    assert_int_equal(in.addr, addr);
    return in;
}

/* DECODE(0x48, 0x01, 0xd8): the instruction of those bytes at ADDR. */
#define BYTES(...) ((const uint8_t[]){__VA_ARGS__}), sizeof((const uint8_t[]){__VA_ARGS__})
#define DECODE(...) decode_at(BYTES(__VA_ARGS__), ADDR)

/* ---- class, width, elem_bits, flops -------------------------------------- */

typedef struct shape_case {
    const char *text;   /* the assembly, for failure messages */
    uint8_t n, bytes[15];
    enum st_class cls;
    uint16_t width;
    uint8_t elem_bits;
    uint32_t flops;
} shape_case;

static const shape_case shapes[] = {
    /* every class at least once */
    {"mov rax, [rdi]", 3, {0x48, 0x8b, 0x07}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"mov dword [rax], 5", 6, {0xc7, 0x00, 0x05, 0x00, 0x00, 0x00}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"vmovdqu ymm0, [rdi]", 4, {0xc5, 0xfe, 0x6f, 0x07}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"vmovdqu [rdi], ymm0", 4, {0xc5, 0xfe, 0x7f, 0x07}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"movaps xmm0, [rax]", 3, {0x0f, 0x28, 0x00}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"vbroadcastss ymm0, [rax]", 5, {0xc4, 0xe2, 0x7d, 0x18, 0x00}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"push rax", 1, {0x50}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"pop rbx", 1, {0x5b}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"vpgatherdd ymm0, [rax+ymm1*4], ymm2", 6, {0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88}, ST_CLASS_LOAD_STORE, 0, 0, 0},
    {"add rax, rbx", 3, {0x48, 0x01, 0xd8}, ST_CLASS_INT_ALU, 64, 64, 0},
    {"add qword [rax], 1", 4, {0x48, 0x83, 0x00, 0x01}, ST_CLASS_INT_ALU, 64, 64, 0},
    {"lea rax, [rdi+rsi*4+8]", 5, {0x48, 0x8d, 0x44, 0xb7, 0x08}, ST_CLASS_INT_ALU, 64, 64, 0},
    {"sete al", 3, {0x0f, 0x94, 0xc0}, ST_CLASS_INT_ALU, 8, 8, 0},
    {"cmove rax, rbx", 4, {0x48, 0x0f, 0x44, 0xc3}, ST_CLASS_INT_ALU, 64, 64, 0},
    {"vpaddd ymm0, ymm1, ymm2", 4, {0xc5, 0xf5, 0xfe, 0xc2}, ST_CLASS_INT_ALU, 256, 32, 0},
    {"andpd xmm0, xmm1", 4, {0x66, 0x0f, 0x54, 0xc1}, ST_CLASS_INT_ALU, 128, 64, 0},
    {"pcmpeqd xmm0, xmm0", 4, {0x66, 0x0f, 0x76, 0xc0}, ST_CLASS_INT_ALU, 128, 32, 0},
    {"imul rax, rbx", 4, {0x48, 0x0f, 0xaf, 0xc3}, ST_CLASS_INT_MUL, 64, 64, 0},
    {"pmulld xmm0, xmm1", 5, {0x66, 0x0f, 0x38, 0x40, 0xc1}, ST_CLASS_INT_MUL, 128, 32, 0},
    {"idiv rcx", 3, {0x48, 0xf7, 0xf9}, ST_CLASS_INT_DIV, 64, 64, 0},
    {"addsd xmm0, xmm1", 4, {0xf2, 0x0f, 0x58, 0xc1}, ST_CLASS_FP_ADD, 64, 64, 1},
    {"addps xmm0, xmm1", 3, {0x0f, 0x58, 0xc1}, ST_CLASS_FP_ADD, 128, 32, 4},
    {"vaddpd ymm0, ymm1, ymm2", 4, {0xc5, 0xf5, 0x58, 0xc2}, ST_CLASS_FP_ADD, 256, 64, 4},
    {"vaddps zmm0, zmm1, zmm2", 6, {0x62, 0xf1, 0x74, 0x48, 0x58, 0xc2}, ST_CLASS_FP_ADD, 512, 32, 16},
    {"ucomisd xmm0, xmm1", 4, {0x66, 0x0f, 0x2e, 0xc1}, ST_CLASS_FP_ADD, 64, 64, 1},
    {"vcmpltpd ymm0, ymm1, ymm2", 5, {0xc5, 0xf5, 0xc2, 0xc2, 0x01}, ST_CLASS_FP_ADD, 256, 64, 4},
    {"fadd qword [rax]", 2, {0xdc, 0x00}, ST_CLASS_FP_ADD, 80, 80, 1},
    {"mulpd xmm0, xmm1", 4, {0x66, 0x0f, 0x59, 0xc1}, ST_CLASS_FP_MUL, 128, 64, 2},
    {"vfmadd231pd ymm0, ymm1, ymm2", 5, {0xc4, 0xe2, 0xf5, 0xb8, 0xc2}, ST_CLASS_FP_FMA, 256, 64, 8},
    {"vfmadd231pd zmm0{k1}, zmm1, zmm2", 6, {0x62, 0xf2, 0xf5, 0x49, 0xb8, 0xc2}, ST_CLASS_FP_FMA, 512, 64, 16},
    {"vfnmsub213ss xmm0, xmm1, xmm2", 5, {0xc4, 0xe2, 0x71, 0xaf, 0xc2}, ST_CLASS_FP_FMA, 32, 32, 2},
    {"divss xmm0, xmm1", 4, {0xf3, 0x0f, 0x5e, 0xc1}, ST_CLASS_FP_DIV, 32, 32, 1},
    /* VEX scalar forms are one element too, though they copy upper lanes */
    {"vaddsd xmm0, xmm1, xmm2", 4, {0xc5, 0xf3, 0x58, 0xc2}, ST_CLASS_FP_ADD, 64, 64, 1},
    {"vfmadd231sd xmm0, xmm1, [rax]", 5, {0xc4, 0xe2, 0xf1, 0xb9, 0x00}, ST_CLASS_FP_FMA, 64, 64, 2},
    {"vdivsd xmm0, xmm1, xmm2", 4, {0xc5, 0xf3, 0x5e, 0xc2}, ST_CLASS_FP_DIV, 64, 64, 1},
    {"vsqrtss xmm0, xmm1, xmm2", 4, {0xc5, 0xf2, 0x51, 0xc2}, ST_CLASS_FP_SQRT, 32, 32, 1},
    {"vcvtsi2sd xmm0, xmm1, rax", 5, {0xc4, 0xe1, 0xf3, 0x2a, 0xc0}, ST_CLASS_FP_CVT, 64, 64, 0},
    {"vcvttsd2si eax, xmm1", 4, {0xc5, 0xfb, 0x2c, 0xc1}, ST_CLASS_FP_CVT, 64, 64, 0},
    {"sqrtsd xmm0, xmm1", 4, {0xf2, 0x0f, 0x51, 0xc1}, ST_CLASS_FP_SQRT, 64, 64, 1},
    {"rsqrtps xmm0, xmm1", 3, {0x0f, 0x52, 0xc1}, ST_CLASS_FP_SQRT, 128, 32, 4},
    {"vsqrtph zmm0, zmm1", 6, {0x62, 0xf5, 0x7c, 0x48, 0x51, 0xc1}, ST_CLASS_FP_SQRT, 512, 16, 32},
    {"cvtsi2sd xmm0, rax", 5, {0xf2, 0x48, 0x0f, 0x2a, 0xc0}, ST_CLASS_FP_CVT, 64, 64, 0},
    {"vcvtps2pd ymm0, xmm1", 4, {0xc5, 0xfc, 0x5a, 0xc1}, ST_CLASS_FP_CVT, 256, 64, 0},
    {"roundsd xmm0, xmm1, 4", 6, {0x66, 0x0f, 0x3a, 0x0b, 0xc1, 0x04}, ST_CLASS_FP_CVT, 64, 64, 0},
    {"mov rax, rbx", 3, {0x48, 0x89, 0xd8}, ST_CLASS_MOVE, 64, 64, 0},
    {"movzx eax, bl", 3, {0x0f, 0xb6, 0xc3}, ST_CLASS_MOVE, 32, 32, 0},
    {"movaps xmm0, xmm1", 3, {0x0f, 0x28, 0xc1}, ST_CLASS_MOVE, 128, 32, 0},
    {"movq rax, xmm0", 5, {0x66, 0x48, 0x0f, 0x7e, 0xc0}, ST_CLASS_MOVE, 64, 64, 0},
    {"shufps xmm0, xmm1, 0x1b", 4, {0x0f, 0xc6, 0xc1, 0x1b}, ST_CLASS_MOVE, 128, 32, 0},
    {"vpermq ymm0, ymm1, 0x4e", 6, {0xc4, 0xe3, 0xfd, 0x00, 0xc1, 0x4e}, ST_CLASS_MOVE, 256, 64, 0},
    {"vbroadcastss ymm0, xmm1", 5, {0xc4, 0xe2, 0x7d, 0x18, 0xc1}, ST_CLASS_MOVE, 256, 32, 0},
    {"jmp rax", 2, {0xff, 0xe0}, ST_CLASS_BRANCH, 0, 0, 0},
    {"jrcxz .", 2, {0xe3, 0x00}, ST_CLASS_BRANCH, 0, 0, 0},
    {"call [rax]", 2, {0xff, 0x10}, ST_CLASS_CALL, 0, 0, 0},
    {"ret", 1, {0xc3}, ST_CLASS_RETURN, 0, 0, 0},
    {"cpuid", 2, {0x0f, 0xa2}, ST_CLASS_OTHER, 0, 0, 0},
    {"nop dword [rax+rax]", 4, {0x0f, 0x1f, 0x04, 0x00}, ST_CLASS_OTHER, 0, 0, 0},
    {"endbr64", 4, {0xf3, 0x0f, 0x1e, 0xfa}, ST_CLASS_OTHER, 0, 0, 0},
    {"prefetcht0 [rax+64]", 4, {0x0f, 0x18, 0x48, 0x40}, ST_CLASS_OTHER, 0, 0, 0},
    {"rep movsb", 2, {0xf3, 0xa4}, ST_CLASS_OTHER, 0, 0, 0},
    {"ud2", 2, {0x0f, 0x0b}, ST_CLASS_OTHER, 0, 0, 0},
};

/* Class, width, elem_bits and flops of each case in shapes[]. */
static void test_shapes(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        const shape_case *c = &shapes[i];
        st_insn in = decode_at(c->bytes, c->n, ADDR);
        if (in.cls != c->cls || in.width != c->width || in.elem_bits != c->elem_bits || st_insn_flops(&in) != c->flops)
            fail_msg("%s: %s width %u elem %u flops %u, expected %s %u %u %u", c->text, st_class_name(in.cls), in.width,
                     in.elem_bits, st_insn_flops(&in), st_class_name(c->cls), c->width, c->elem_bits, c->flops);
    }
}

/* Every class has a name; an out-of-range class has "?". */
static void test_class_names(void **state)
{
    (void)state;
    static const char *const names[ST_CLASS_COUNT] = {
        "load_store", "int_alu", "int_mul", "int_div", "fp_add", "fp_mul", "fp_fma", "fp_div",
        "fp_sqrt", "fp_cvt", "move", "branch", "call", "return", "other",
    };
    for (int c = 0; c < ST_CLASS_COUNT; c++)
        assert_string_equal(st_class_name((enum st_class)c), names[c]);
    assert_string_equal(st_class_name(ST_CLASS_COUNT), "?");
}

/* The mnemonic field is Zydis's: set, and different for different
 * instructions of one class. */
static void test_mnemonic_recorded(void **state)
{
    (void)state;
    st_insn a = DECODE(0xf2, 0x0f, 0x58, 0xc1); /* addsd xmm0, xmm1 */
    st_insn b = DECODE(0xf2, 0x0f, 0x5e, 0xc1); /* divsd xmm0, xmm1 */
    assert_int_not_equal(a.mnemonic, b.mnemonic);
    assert_int_not_equal(a.mnemonic, 0);
}

/* ---- memory operands -------------------------------------------------------- */

/* Checks one memory operand. */
static void check_mem(const st_memop *m, uint8_t base, uint8_t index, uint8_t scale, int64_t disp, uint16_t size,
                      uint8_t access)
{
    assert_int_equal(m->base, base);
    assert_int_equal(m->index, index);
    assert_int_equal(m->scale, scale);
    assert_int_equal(m->disp, disp);
    assert_int_equal(m->size, size);
    assert_int_equal(m->access, access);
}

static void test_mem_base_index_scale_disp(void **state)
{
    (void)state;
    st_insn in = DECODE(0x8b, 0x44, 0x8b, 0x10); /* mov eax, [rbx+rcx*4+0x10] */
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_RBX, ST_REG_RCX, 4, 0x10, 4, ST_MEM_READ);
    assert_int_equal(in.mem[0].is_vsib, 0);
    assert_int_equal(in.nloads, 1);
    assert_int_equal(in.nstores, 0);
    assert_int_equal(in.reads, R(RBX) | R(RCX)); /* address registers are reads */
    assert_int_equal(in.writes, R(RAX));

    in = DECODE(0xc7, 0x00, 0x05, 0x00, 0x00, 0x00); /* mov dword [rax], 5 */
    check_mem(&in.mem[0], ST_REG_RAX, ST_REG_NONE, 0, 0, 4, ST_MEM_WRITE);
    assert_int_equal(in.nloads, 0);
    assert_int_equal(in.nstores, 1);
}

static void test_mem_rip_relative(void **state)
{
    (void)state;
    /* mov rax, [rip+0x100]: 7 bytes, so the address is ADDR + 7 + 0x100 */
    st_insn in = DECODE(0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00);
    check_mem(&in.mem[0], ST_REG_NONE, ST_REG_NONE, 0, ADDR + 7 + 0x100, 8, ST_MEM_READ);
    assert_int_equal(in.reads, 0); /* rip is no register of st_reg */

    /* the same bytes elsewhere resolve elsewhere */
    st_insn far = decode_at(BYTES(0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00), 0x7f0000001000ull);
    assert_int_equal(far.mem[0].disp, 0x7f0000001000ll + 7 + 0x100);

    /* negative displacement: lea rdi, [rip-0x20] */
    in = DECODE(0x48, 0x8d, 0x3d, 0xe0, 0xff, 0xff, 0xff);
    assert_int_equal(in.mem[0].disp, ADDR + 7 - 0x20);
}

static void test_mem_lea_no_access(void **state)
{
    (void)state;
    st_insn in = DECODE(0x48, 0x8d, 0x44, 0xb7, 0x08); /* lea rax, [rdi+rsi*4+8] */
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_RDI, ST_REG_RSI, 4, 8, 0, 0);
    assert_int_equal(in.nloads + in.nstores, 0);
    assert_int_equal(in.reads, R(RDI) | R(RSI));
}

static void test_mem_read_modify_write(void **state)
{
    (void)state;
    st_insn in = DECODE(0x48, 0x83, 0x00, 0x01); /* add qword [rax], 1 */
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_RAX, ST_REG_NONE, 0, 0, 8, ST_MEM_READ | ST_MEM_WRITE);
    assert_int_equal(in.nloads, 1); /* counted as both */
    assert_int_equal(in.nstores, 1);
    assert_int_equal(in.reads, R(RAX));
    assert_int_equal(in.writes, R(FLAGS));
}

/* push, pop, call and ret access the stack through rsp; a store goes to
 * rsp - size (rsp as the instruction finds it). */
static void test_mem_implicit_stack(void **state)
{
    (void)state;
    st_insn in = DECODE(0x50); /* push rax */
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_RSP, ST_REG_NONE, 0, -8, 8, ST_MEM_WRITE);
    assert_int_equal(in.reads, R(RAX) | R(RSP));
    assert_int_equal(in.writes, R(RSP));

    in = DECODE(0x5b); /* pop rbx */
    check_mem(&in.mem[0], ST_REG_RSP, ST_REG_NONE, 0, 0, 8, ST_MEM_READ);
    assert_int_equal(in.writes, R(RBX) | R(RSP));

    in = DECODE(0xe8, 0xfb, 0xff, 0xff, 0xff); /* call . (rel32 -5) */
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_RSP, ST_REG_NONE, 0, -8, 8, ST_MEM_WRITE);
    assert_int_equal(in.nstores, 1);

    in = DECODE(0xc3); /* ret */
    check_mem(&in.mem[0], ST_REG_RSP, ST_REG_NONE, 0, 0, 8, ST_MEM_READ);
    assert_int_equal(in.nloads, 1);

    in = DECODE(0xff, 0x10); /* call [rax]: the pointer load, then the push */
    assert_int_equal(in.nmem, 2);
    check_mem(&in.mem[0], ST_REG_RAX, ST_REG_NONE, 0, 0, 8, ST_MEM_READ);
    check_mem(&in.mem[1], ST_REG_RSP, ST_REG_NONE, 0, -8, 8, ST_MEM_WRITE);
    assert_int_equal(in.nloads, 1);
    assert_int_equal(in.nstores, 1);
}

static void test_mem_string_two_operands(void **state)
{
    (void)state;
    st_insn in = DECODE(0xa4); /* movsb: es:[rdi] <- ds:[rsi] */
    assert_int_equal(in.nmem, 2);
    check_mem(&in.mem[0], ST_REG_RDI, ST_REG_NONE, 0, 0, 1, ST_MEM_WRITE);
    check_mem(&in.mem[1], ST_REG_RSI, ST_REG_NONE, 0, 0, 1, ST_MEM_READ);
    assert_int_equal(in.nloads, 1);
    assert_int_equal(in.nstores, 1);
    assert_int_equal(in.reads, R(RSI) | R(RDI) | R(FLAGS)); /* DF */
    assert_int_equal(in.writes, R(RSI) | R(RDI));
}

static void test_mem_gather(void **state)
{
    (void)state;
    st_insn in = DECODE(0xc4, 0xe2, 0x6d, 0x90, 0x04, 0x88); /* vpgatherdd ymm0, [rax+ymm1*4], ymm2 */
    assert_int_equal(in.nmem, 1);
    assert_int_equal(in.mem[0].is_vsib, 1);
    /* 8 dword lanes: 32 bytes in all */
    check_mem(&in.mem[0], ST_REG_RAX, ST_REG_VEC0 + 1, 4, 0, 32, ST_MEM_READ);
    assert_int_equal(in.nloads, 1);
    /* the mask ymm2 is read and cleared; merged lanes of ymm0 are read */
    assert_int_equal(in.reads, R(RAX) | V(0) | V(1) | V(2));
    assert_int_equal(in.writes, V(0) | V(2));
}

static void test_mem_hints_and_nops(void **state)
{
    (void)state;
    st_insn in = DECODE(0x0f, 0x18, 0x48, 0x40); /* prefetcht0 [rax+64] */
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_RAX, ST_REG_NONE, 0, 64, 0, 0);
    assert_int_equal(in.nloads + in.nstores, 0);
    assert_int_equal(in.reads, R(RAX));

    in = DECODE(0x0f, 0x1f, 0x04, 0x00); /* nop dword [rax+rax] */
    assert_int_equal(in.nmem, 0);
    assert_int_equal(in.reads | in.writes, 0);

    in = DECODE(0xf3, 0x0f, 0x1e, 0xfa); /* endbr64 */
    assert_int_equal(in.nmem, 0);
    assert_int_equal(in.reads | in.writes, 0);
}

/* ---- effects on a general-purpose destination (enum st_op) --------------- */

typedef struct op_case {
    const char *text;
    uint8_t n, bytes[15];
    enum st_op op;
    uint8_t dst, src;
    int64_t imm;
} op_case;

#define NONE ST_REG_NONE
static const op_case ops[] = {
    {"and rax, rbx", 3, {0x48, 0x21, 0xd8}, ST_OP_OTHER, NONE, NONE, 0},
    {"mov ax, bx (16-bit: merges)", 3, {0x66, 0x89, 0xd8}, ST_OP_OTHER, NONE, NONE, 0},
    {"imul rax, [rbx], 12", 4, {0x48, 0x6b, 0x03, 0x0c}, ST_OP_OTHER, NONE, NONE, 0},
    {"xor eax, ebx", 2, {0x31, 0xd8}, ST_OP_OTHER, NONE, NONE, 0},
    {"mov rax, rbx", 3, {0x48, 0x89, 0xd8}, ST_OP_MOV_REG, ST_REG_RAX, ST_REG_RBX, 0},
    {"mov eax, ebx", 2, {0x89, 0xd8}, ST_OP_MOV_REG, ST_REG_RAX, ST_REG_RBX, 0},
    {"movzx eax, bl", 3, {0x0f, 0xb6, 0xc3}, ST_OP_MOV_REG, ST_REG_RAX, ST_REG_RBX, 0},
    {"movsxd rax, ebx", 3, {0x48, 0x63, 0xc3}, ST_OP_MOV_REG, ST_REG_RAX, ST_REG_RBX, 0},
    {"mov eax, 0xffffffff", 5, {0xb8, 0xff, 0xff, 0xff, 0xff}, ST_OP_MOV_IMM, ST_REG_RAX, NONE, 0xffffffffll},
    {"mov rax, -1", 7, {0x48, 0xc7, 0xc0, 0xff, 0xff, 0xff, 0xff}, ST_OP_MOV_IMM, ST_REG_RAX, NONE, -1},
    {"movabs r10, 0x123456789a", 10, {0x49, 0xba, 0x9a, 0x78, 0x56, 0x34, 0x12, 0x00, 0x00, 0x00}, ST_OP_MOV_IMM,
     ST_REG_R10, NONE, 0x123456789all},
    {"xor eax, eax", 2, {0x31, 0xc0}, ST_OP_ZERO, ST_REG_RAX, NONE, 0},
    {"sub rdx, rdx", 3, {0x48, 0x29, 0xd2}, ST_OP_ZERO, ST_REG_RDX, NONE, 0},
    {"add rsp, 8", 4, {0x48, 0x83, 0xc4, 0x08}, ST_OP_ADD_IMM, ST_REG_RSP, NONE, 8},
    {"sub rsp, 0x28", 4, {0x48, 0x83, 0xec, 0x28}, ST_OP_ADD_IMM, ST_REG_RSP, NONE, -0x28},
    {"inc rax", 3, {0x48, 0xff, 0xc0}, ST_OP_ADD_IMM, ST_REG_RAX, NONE, 1},
    {"dec ecx", 2, {0xff, 0xc9}, ST_OP_ADD_IMM, ST_REG_RCX, NONE, -1},
    {"add rax, rbx", 3, {0x48, 0x01, 0xd8}, ST_OP_ADD_REG, ST_REG_RAX, ST_REG_RBX, 0},
    {"sub rax, rbx", 3, {0x48, 0x29, 0xd8}, ST_OP_SUB_REG, ST_REG_RAX, ST_REG_RBX, 0},
    {"shl rax, 3", 4, {0x48, 0xc1, 0xe0, 0x03}, ST_OP_SHL_IMM, ST_REG_RAX, NONE, 3},
    {"shl rax, 1", 3, {0x48, 0xd1, 0xe0}, ST_OP_SHL_IMM, ST_REG_RAX, NONE, 1},
    {"shl eax, 35 (count masked to 3)", 3, {0xc1, 0xe0, 0x23}, ST_OP_SHL_IMM, ST_REG_RAX, NONE, 3},
    {"imul rax, rbx, 24", 4, {0x48, 0x6b, 0xc3, 0x18}, ST_OP_MUL_IMM, ST_REG_RAX, ST_REG_RBX, 24},
    {"lea rax, [rdi+rsi*4+8]", 5, {0x48, 0x8d, 0x44, 0xb7, 0x08}, ST_OP_LEA, ST_REG_RAX, NONE, 0},
    {"mov rax, [rdi+8]", 4, {0x48, 0x8b, 0x47, 0x08}, ST_OP_LOAD, ST_REG_RAX, NONE, 0},
    {"movzx eax, byte [rdi]", 3, {0x0f, 0xb6, 0x07}, ST_OP_LOAD, ST_REG_RAX, NONE, 0},
};
#undef NONE

static void test_ops(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        const op_case *c = &ops[i];
        st_insn in = decode_at(c->bytes, c->n, ADDR);
        if (in.op != c->op || in.dst != c->dst || in.src != c->src || in.imm != c->imm)
            fail_msg("%s: op %u dst %u src %u imm %lld, expected %u %u %u %lld", c->text, in.op, in.dst, in.src,
                     (long long)in.imm, c->op, c->dst, c->src, (long long)c->imm);
    }
}

/* ---- control flow ------------------------------------------------------------ */

/* Checks flow, target and class of one instruction. */
static void check_flow(st_insn in, enum st_flow flow, uint64_t target, enum st_class cls)
{
    assert_int_equal(in.flow, flow);
    assert_int_equal(in.target, target);
    assert_int_equal(in.cls, cls);
}

static void test_flow(void **state)
{
    (void)state;
    check_flow(DECODE(0x48, 0x01, 0xd8), ST_FLOW_NONE, 0, ST_CLASS_INT_ALU);        /* add rax, rbx */
    check_flow(DECODE(0xeb, 0x10), ST_FLOW_JUMP, ADDR + 2 + 0x10, ST_CLASS_BRANCH); /* jmp rel8 */
    check_flow(DECODE(0xe9, 0x00, 0x01, 0x00, 0x00), ST_FLOW_JUMP, ADDR + 5 + 0x100, ST_CLASS_BRANCH); /* jmp rel32 */
    check_flow(DECODE(0x74, 0xfe), ST_FLOW_CJUMP, ADDR, ST_CLASS_BRANCH);            /* je . */
    check_flow(DECODE(0x0f, 0x85, 0xf0, 0xff, 0xff, 0xff), ST_FLOW_CJUMP, ADDR + 6 - 16,
               ST_CLASS_BRANCH);                                                     /* jne rel32 -16 */
    check_flow(DECODE(0xe3, 0x00), ST_FLOW_CJUMP, ADDR + 2, ST_CLASS_BRANCH);        /* jrcxz */
    check_flow(DECODE(0xe2, 0x00), ST_FLOW_CJUMP, ADDR + 2, ST_CLASS_BRANCH);        /* loop */
    check_flow(DECODE(0xff, 0xe0), ST_FLOW_IJUMP, 0, ST_CLASS_BRANCH);               /* jmp rax */
    check_flow(DECODE(0xe8, 0xfb, 0xff, 0xff, 0xff), ST_FLOW_CALL, ADDR, ST_CLASS_CALL); /* call . */
    check_flow(DECODE(0xff, 0x10), ST_FLOW_ICALL, 0, ST_CLASS_CALL);                 /* call [rax] */
    check_flow(DECODE(0xc3), ST_FLOW_RET, 0, ST_CLASS_RETURN);                       /* ret */
    check_flow(DECODE(0x0f, 0x0b), ST_FLOW_STOP, 0, ST_CLASS_OTHER);                 /* ud2 */
    check_flow(DECODE(0xf4), ST_FLOW_STOP, 0, ST_CLASS_OTHER);                       /* hlt */
    check_flow(DECODE(0xcc), ST_FLOW_STOP, 0, ST_CLASS_OTHER);                       /* int3 */

    st_insn in = DECODE(0xff, 0xe0); /* jmp rax */
    assert_int_equal(in.reads, R(RAX));
    in = DECODE(0x74, 0xfe); /* je . */
    assert_int_equal(in.reads, R(FLAGS));

    in = DECODE(0xff, 0x25, 0x10, 0x00, 0x00, 0x00); /* jmp [rip+0x10]: through a GOT slot */
    check_flow(in, ST_FLOW_IJUMP, 0, ST_CLASS_BRANCH);
    assert_int_equal(in.nmem, 1);
    check_mem(&in.mem[0], ST_REG_NONE, ST_REG_NONE, 0, ADDR + 6 + 0x10, 8, ST_MEM_READ);
}

/* ---- registers read and written -------------------------------------------- */

static void test_reads_writes(void **state)
{
    (void)state;
    st_insn in = DECODE(0x48, 0x01, 0xd8); /* add rax, rbx */
    assert_int_equal(in.reads, R(RAX) | R(RBX));
    assert_int_equal(in.writes, R(RAX) | R(FLAGS));

    in = DECODE(0x48, 0x0f, 0x44, 0xc3); /* cmove rax, rbx: rax may keep its value */
    assert_int_equal(in.reads, R(RAX) | R(RBX) | R(FLAGS));
    assert_int_equal(in.writes, R(RAX));

    in = DECODE(0x0f, 0x94, 0xc0); /* sete al: merges into rax */
    assert_int_equal(in.reads, R(RAX) | R(FLAGS));
    assert_int_equal(in.writes, R(RAX));

    in = DECODE(0x48, 0xf7, 0xf3); /* div rbx: rdx:rax / rbx */
    assert_int_equal(in.reads, R(RAX) | R(RDX) | R(RBX));
    assert_int_equal(in.writes, R(RAX) | R(RDX) | R(FLAGS));

    in = DECODE(0xc4, 0xe2, 0xf5, 0xb8, 0xc2); /* vfmadd231pd ymm0, ymm1, ymm2 */
    assert_int_equal(in.reads, V(0) | V(1) | V(2));
    assert_int_equal(in.writes, V(0));

    in = DECODE(0x62, 0xf1, 0x74, 0x48, 0x58, 0xc2); /* vaddps zmm0, zmm1, zmm2: EVEX k0 is no mask */
    assert_int_equal(in.reads, V(1) | V(2));
    assert_int_equal(in.writes, V(0));

    in = DECODE(0x62, 0xf2, 0xf5, 0x49, 0xb8, 0xc2); /* vfmadd231pd zmm0{k1}, zmm1, zmm2 */
    assert_int_equal(in.reads, V(0) | V(1) | V(2) | K(1));
    assert_int_equal(in.writes, V(0));

    in = DECODE(0xdc, 0x00); /* fadd qword [rax] */
    assert_int_equal(in.reads, R(RAX) | R(X87));
    assert_int_equal(in.writes, R(X87));
}

/* xor r, r and friends depend on nothing; the narrow, masked or mixed
 * forms are ordinary. */
static void test_zero_idioms(void **state)
{
    (void)state;
    st_insn in = DECODE(0x31, 0xc0); /* xor eax, eax */
    assert_int_equal(in.reads, 0);
    assert_int_equal(in.writes, R(RAX) | R(FLAGS));
    assert_int_equal(in.op, ST_OP_ZERO);

    in = DECODE(0x48, 0x29, 0xd2); /* sub rdx, rdx */
    assert_int_equal(in.reads, 0);
    assert_int_equal(in.op, ST_OP_ZERO);

    in = DECODE(0x66, 0x0f, 0xef, 0xdb); /* pxor xmm3, xmm3 */
    assert_int_equal(in.reads, 0);
    assert_int_equal(in.writes, V(3));
    assert_int_equal(in.op, ST_OP_OTHER); /* ops describe GPRs only */
    assert_int_equal(in.dst, ST_REG_NONE);

    in = DECODE(0xc5, 0xf0, 0x57, 0xc1); /* vxorps xmm0, xmm1, xmm1 */
    assert_int_equal(in.reads, 0);
    assert_int_equal(in.writes, V(0));

    in = DECODE(0x62, 0xf1, 0x7d, 0x48, 0xef, 0xc0); /* vpxord zmm0, zmm0, zmm0 */
    assert_int_equal(in.reads, 0);

    in = DECODE(0x66, 0x0f, 0x76, 0xc0); /* pcmpeqd xmm0, xmm0: all ones */
    assert_int_equal(in.reads, 0);

    in = DECODE(0x30, 0xc0); /* xor al, al: the rest of rax survives */
    assert_int_equal(in.reads, R(RAX));
    assert_int_equal(in.op, ST_OP_OTHER);

    in = DECODE(0x31, 0xd8); /* xor eax, ebx */
    assert_int_equal(in.reads, R(RAX) | R(RBX));

    in = DECODE(0x62, 0xf1, 0x75, 0x49, 0xef, 0xc1); /* vpxord zmm0{k1}, zmm1, zmm1: merges */
    assert_int_equal(in.reads, V(0) | V(1) | K(1));
}

/* ---- failures ------------------------------------------------------------------ */

/* Not an instruction, or cut short: 0 and a zeroed record. */
static void test_invalid_and_truncated(void **state)
{
    (void)state;
    static const uint8_t invalid[] = {0x06};      /* push es: not in 64-bit mode */
    static const uint8_t invalid2[] = {0xff, 0xff}; /* ff /7 is undefined */
    static const uint8_t load[] = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00}; /* mov rax, [rip+0x100] */
    static const st_insn zero;
    st_insn in;

    memset(&in, 0xa5, sizeof in);
    assert_int_equal(st_decode_one(invalid, sizeof invalid, ADDR, &in), 0);
    assert_memory_equal(&in, &zero, sizeof in);

    memset(&in, 0xa5, sizeof in);
    assert_int_equal(st_decode_one(invalid2, sizeof invalid2, ADDR, &in), 0);
    assert_memory_equal(&in, &zero, sizeof in);

    for (size_t avail = 0; avail < sizeof load; avail++) {
        memset(&in, 0xa5, sizeof in);
        assert_int_equal(st_decode_one(load, avail, ADDR, &in), 0);
        assert_memory_equal(&in, &zero, sizeof in);
    }
    /* trailing bytes beyond the instruction are not consumed */
    static const uint8_t two[] = {0x50, 0x5b}; /* push rax; pop rbx */
    assert_int_equal(st_decode_one(two, sizeof two, ADDR, &in), 1);
}

/* Run every test; cmocka returns the number of failures. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_class_names),
        cmocka_unit_test(test_mnemonic_recorded),
        cmocka_unit_test(test_mem_base_index_scale_disp),
        cmocka_unit_test(test_mem_rip_relative),
        cmocka_unit_test(test_mem_lea_no_access),
        cmocka_unit_test(test_mem_read_modify_write),
        cmocka_unit_test(test_mem_implicit_stack),
        cmocka_unit_test(test_mem_string_two_operands),
        cmocka_unit_test(test_mem_gather),
        cmocka_unit_test(test_mem_hints_and_nops),
        cmocka_unit_test(test_ops),
        cmocka_unit_test(test_flow),
        cmocka_unit_test(test_reads_writes),
        cmocka_unit_test(test_zero_idioms),
        cmocka_unit_test(test_invalid_and_truncated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
