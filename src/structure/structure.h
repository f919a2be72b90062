/* structure.h — the static structure of a binary: the data types that the
 * stages of `augur structure` pass between them, declared in one place.
 *
 * The pipeline, one file per stage (src/structure/):
 *
 *   elf_image.c   ELF file -> executable sections, symbols, functions
 *   decode.c      bytes -> st_insn records (Zydis), classes from iclass.c
 *   cfg.c         a function's st_insns -> basic blocks and edges,
 *                 with jump tables recovered
 *   loops.c       CFG -> dominators, natural loops and their nesting
 *   dataflow.c    register dependences, address formulas and strides
 *   dwarf_info.c  DWARF -> line of each instruction, inlined subroutines
 *   scope.c       all of the above -> the scope tree
 *   analyse.c     drives the stages for one ELF file -> st_module
 *
 * and, apart from the pipeline, receiver.c: the variable a call's result
 * is stored in (DWARF locations), for memspy's names of heap objects, with
 * user_scope.c telling the user's scopes from inlined system code.
 *
 * Addresses are the ELF file's own (link-time) virtual addresses: the same
 * module-relative addresses the collector stores, so profiles join to the
 * static inventory by (build-id, addr).  The instruction classes are
 * documented in docs/instruction-classes.md, the algorithms in
 * docs/structure.md.
 */
#ifndef AUGUR_STRUCTURE_H
#define AUGUR_STRUCTURE_H

#include <stddef.h>
#include <stdint.h>

/* ---- registers ----------------------------------------------------------- */

/* Architectural registers, with all sizes of one register folded into one id
 * (eax, ax and al are ST_REG_RAX; xmm3, ymm3 and zmm3 are ST_REG_VEC0 + 3). */
enum st_reg {
    ST_REG_RAX, ST_REG_RCX, ST_REG_RDX, ST_REG_RBX, ST_REG_RSP, ST_REG_RBP, ST_REG_RSI, ST_REG_RDI,
    ST_REG_R8, ST_REG_R9, ST_REG_R10, ST_REG_R11, ST_REG_R12, ST_REG_R13, ST_REG_R14, ST_REG_R15,
    ST_REG_VEC0 = 16,   /* xmm/ymm/zmm 0..31: 16..47 */
    ST_REG_FLAGS = 48,  /* rflags, all bits as one register */
    ST_REG_X87 = 49,    /* the x87 stack and its status, as one register */
    ST_REG_MASK0 = 50,  /* AVX-512 opmask k0..k7: 50..57 */
    ST_REG_COUNT = 58,
    ST_REG_NONE = 0xff, /* no register (e.g. an absent base or index) */
    ST_REG_RIP = 0xfe   /* only as a memory operand's base before resolution */
};

/* A set of registers: bit r for enum st_reg r. */
typedef uint64_t st_regset;

/* ---- instructions -------------------------------------------------------- */

/* Generic instruction classes (seed 000 table 3.1, seed 002 checklist 3).
 * An x86 instruction has one compute class, plus its memory operands, which
 * are counted as loads and stores apart: `addsd xmm0, [rax]` is one FP_ADD
 * and one load; `mov rax, [rdi]` is one load and nothing else (class
 * ST_CLASS_LOAD_STORE, named load_store; "none" before schema version 6).
 * The mapping is in iclass.c and docs/instruction-classes.md. */
enum st_class {
    ST_CLASS_LOAD_STORE, /* data moved between registers and memory, no arithmetic: mov with memory, push, pop,
                            gathers and scatters */
    ST_CLASS_INT_ALU, /* integer add, logic, shift, compare, lea, setcc, cmov, vector integer */
    ST_CLASS_INT_MUL,
    ST_CLASS_INT_DIV,
    ST_CLASS_FP_ADD, /* add, sub, min, max, compare of floating point */
    ST_CLASS_FP_MUL,
    ST_CLASS_FP_FMA,
    ST_CLASS_FP_DIV,
    ST_CLASS_FP_SQRT,
    ST_CLASS_FP_CVT,   /* conversions between int and fp or fp widths */
    ST_CLASS_MOVE,     /* register moves, shuffles, permutes, broadcasts, blends */
    ST_CLASS_BRANCH,   /* jumps, conditional or not, direct or indirect */
    ST_CLASS_CALL,
    ST_CLASS_RETURN,
    ST_CLASS_OTHER,    /* nop, fences, prefetch, system, string ops, x87 misc */
    ST_CLASS_COUNT
};

/* Control flow of an instruction. */
enum st_flow {
    ST_FLOW_NONE,  /* falls through */
    ST_FLOW_JUMP,  /* direct unconditional jump to target */
    ST_FLOW_CJUMP, /* direct conditional jump: target or fall through */
    ST_FLOW_IJUMP, /* indirect jump (jump table, tail call through a pointer) */
    ST_FLOW_CALL,  /* direct call of target; returns to the next instruction */
    ST_FLOW_ICALL, /* indirect call */
    ST_FLOW_RET,
    ST_FLOW_STOP   /* never falls through: hlt, ud2, int3 */
};

/* The effect of an instruction on its destination register, as far as the
 * symbolic address walk of dataflow.c needs it; ST_OP_OTHER for the rest. */
enum st_op {
    ST_OP_OTHER,
    ST_OP_MOV_REG, /* dst = src (mov, movsxd, movzx: extensions are ignored) */
    ST_OP_MOV_IMM, /* dst = imm */
    ST_OP_ZERO,    /* dst = 0 (xor r, r; sub r, r) */
    ST_OP_ADD_IMM, /* dst = dst + imm (add, sub with -imm, inc, dec) */
    ST_OP_ADD_REG, /* dst = dst + src */
    ST_OP_SUB_REG, /* dst = dst - src */
    ST_OP_SHL_IMM, /* dst = dst << imm */
    ST_OP_MUL_IMM, /* dst = src * imm (imul r, r/m, imm; and imul r, imm with src = dst) */
    ST_OP_LEA,     /* dst = the address of mem[0], without its segment */
    ST_OP_LOAD     /* dst = the value loaded from mem[0] */
};

/* Memory access kinds of an operand. */
#define ST_MEM_READ 1u
#define ST_MEM_WRITE 2u

/* A memory operand: the address is base + index * scale + disp.
 * RIP-relative operands are resolved at decode time: base is ST_REG_NONE
 * and disp the absolute (link-time) address.  Implicit stack accesses of
 * push, pop, call and ret appear as operands with base ST_REG_RSP. */
typedef struct st_memop {
    uint8_t base, index; /* enum st_reg or ST_REG_NONE */
    uint8_t scale;       /* 1, 2, 4 or 8 (0 without index) */
    uint8_t access;      /* ST_MEM_READ | ST_MEM_WRITE; 0 for lea's operand */
    uint16_t size;       /* bytes accessed */
    uint8_t is_vsib;     /* gather/scatter: index is a vector register */
    int64_t disp;
} st_memop;

#define ST_MAX_MEMOPS 2

/* One decoded instruction. */
typedef struct st_insn {
    uint64_t addr;
    uint8_t len;
    uint8_t cls;        /* enum st_class */
    uint8_t flow;       /* enum st_flow */
    uint8_t op;         /* enum st_op */
    uint16_t width;     /* bits of the data the compute works on: 64 for
                           scalar double and for 64-bit integer ops, 256
                           for a ymm op; 0 when cls is NONE or control */
    uint8_t elem_bits;  /* bits per element (lanes = width / elem_bits);
                           for FP classes 32 or 64 (16 for half), else the
                           integer element size */
    uint8_t nmem;       /* memory operands used, at most ST_MAX_MEMOPS */
    uint8_t nloads, nstores; /* memory operands read and written */
    uint8_t dst, src;   /* registers of op (ST_REG_NONE when unused) */
    int64_t imm;        /* immediate of op */
    uint64_t target;    /* direct jump or call target; 0 if none */
    st_regset reads, writes; /* registers read (address registers included)
                                and written, flags included */
    st_memop mem[ST_MAX_MEMOPS];
    uint16_t mnemonic;  /* Zydis mnemonic, for printing */
} st_insn;

/* Floating-point operations an execution of `in` performs: lanes, doubled
 * for FMA; 0 for non-FP classes. */
uint32_t st_insn_flops(const st_insn *in);

/* The name of a class ("fp_add", ...) as used in JSON and the database. */
const char *st_class_name(enum st_class c);

/* ---- control-flow graph -------------------------------------------------- */

enum st_edge_kind {
    ST_EDGE_FALL,     /* falls through to the next block */
    ST_EDGE_TAKEN,    /* a conditional branch taken */
    ST_EDGE_JUMP,     /* an unconditional direct jump */
    ST_EDGE_TABLE,    /* an indirect jump through a recovered jump table */
    ST_EDGE_PROFILE,  /* an indirect jump's target seen in a profile */
    ST_EDGE_CALLRET   /* a call, to the instruction after it */
};

typedef struct st_edge {
    uint32_t from, to; /* block indices within the function */
    uint8_t kind;      /* enum st_edge_kind */
} st_edge;

typedef struct st_block {
    uint32_t first, n; /* instructions: insns[first .. first+n) of the function */
    uint32_t idom;     /* immediate dominator; the entry's is itself;
                          UINT32_MAX when unreachable from the entry */
    int32_t loop;      /* innermost loop containing the block, -1 if none */
} st_block;

/* A natural loop: the blocks dominated by `header` from which a back edge
 * to the header can be reached backwards.  Back edges with one header form
 * one loop. */
typedef struct st_loop {
    uint32_t header;     /* block index */
    int32_t parent;      /* enclosing loop, -1 at the top */
    uint32_t depth;      /* 1 for outermost */
    uint32_t nblocks;
    uint32_t *blocks;    /* ascending block indices, nested loops' included */
    uint32_t nback;
    uint32_t *back;      /* indices into the function's edges of the back edges */
} st_loop;

typedef struct st_function {
    char *name;          /* symbol name, or "fn_<hex addr>" without symbol */
    uint64_t start, size;
    uint32_t ninsns, nblocks, nedges, nloops;
    st_insn *insns;      /* ascending addresses */
    st_block *blocks;    /* ascending addresses; block 0 is the entry */
    st_edge *edges;
    st_loop *loops;      /* parents before children */
    uint32_t nunresolved; /* indirect jumps without recovered targets */
    uint32_t nirreducible; /* retreating edges whose target does not
                              dominate their source: cycles with several
                              entries, not reported as loops */
} st_function;

/* ---- dataflow (dataflow.c) ----------------------------------------------- */

/* A register dependence: instruction `use` reads a value that `def`
 * wrote.  Indices are into the function's insns.  Loop-carried dependences
 * (the def reaches the use only around a back edge of `loop`) have
 * carried = 1. */
typedef struct st_dep {
    uint32_t def, use;
    uint8_t reg;     /* enum st_reg */
    uint8_t carried;
    int32_t loop;    /* the loop whose back edge carries it, or -1 */
} st_dep;

/* A memory operand's address as a linear formula over the values that
 * registers have at the entry (header) of its innermost loop, or at the
 * function's entry outside loops:  constant + sum coef[k] * term[k].
 * A term is a register's value at a scope's entry, or an opaque value
 * (a load, a product of non-constants) -- seed 002 section 3.1. */
enum st_term_kind { ST_TERM_REG, ST_TERM_OPAQUE };

typedef struct st_term {
    uint8_t kind;  /* enum st_term_kind */
    uint8_t reg;   /* for ST_TERM_REG: the register */
    int64_t coef;
} st_term;

#define ST_MAX_TERMS 4
#define ST_STRIDE_UNKNOWN INT64_MIN

typedef struct st_addr {
    uint32_t insn;        /* index into the function's insns */
    uint8_t memop;        /* which operand of the instruction */
    uint8_t nterms;
    uint8_t complete;     /* 0 if terms were dropped (more than ST_MAX_TERMS) */
    int64_t constant;
    st_term terms[ST_MAX_TERMS];
    /* Stride per enclosing loop, innermost first: how many bytes the
     * address moves from one iteration of that loop to the next (inner
     * loops at the same iteration); ST_STRIDE_UNKNOWN when not affine. */
    uint32_t nloops;
    int32_t loops[8];     /* loop indices, innermost first */
    int64_t stride[8];
} st_addr;

typedef struct st_dataflow {
    size_t ndeps, naddrs;
    st_dep *deps;
    st_addr *addrs;       /* one per memory operand with access != 0,
                             ascending by (insn, memop) */
} st_dataflow;

/* ---- source scopes ------------------------------------------------------- */

enum st_scope_kind { ST_SCOPE_PROGRAM, ST_SCOPE_MODULE, ST_SCOPE_FUNCTION, ST_SCOPE_INLINED, ST_SCOPE_LOOP };

typedef struct st_scope {
    uint8_t kind;          /* enum st_scope_kind */
    int32_t parent;        /* index in the module's scopes, -1 for the module */
    char *name;            /* function or inlined function name; loops:
                              "loop at FILE:LINE" */
    char *file;            /* NULL when unknown */
    uint32_t first_line, last_line; /* 0 when unknown */
    uint32_t function;     /* index of the st_function it lies in */
    int32_t loop;          /* for loops: index in the function's loops of
                              the (first) folded loop, else -1 */
    uint32_t nfolded;      /* loops folded into this one (seed 000), >= 1 for loops */
    uint64_t entry_addr;   /* function entry, inline's low pc, loop header */
    /* Call site of an inlined subroutine. */
    char *call_file;
    uint32_t call_line;
} st_scope;

/* One executable instruction's place in the tree: its innermost scope and
 * source line. */
typedef struct st_place {
    uint32_t scope;
    uint32_t file;  /* index into st_module.files, UINT32_MAX if unknown */
    uint32_t line;
} st_place;

/* ---- a whole ELF file ---------------------------------------------------- */

/* How complete the analysis could be. */
#define ST_NO_SYMBOLS 1u   /* no .symtab: functions from .dynsym, entry and call targets */
#define ST_NO_DWARF 2u     /* no line info: scopes have no files or lines */

/* A compilation unit of a binary's DWARF: its source file (DW_AT_name
 * joined to DW_AT_comp_dir, srcpath_join) and what compiled it
 * (DW_AT_producer: the compiler and, as GCC records them, its code
 * generation flags; "" when absent).  Builds of one program are told
 * apart, and matched, by these (docs/models.md, "Builds of one source"). */
typedef struct st_unit {
    char *file, *producer;
} st_unit;

typedef struct st_module {
    char *path;
    char build_id[129];
    uint32_t flags;        /* ST_NO_SYMBOLS | ST_NO_DWARF */
    size_t nunits;
    st_unit *units;        /* the compilation units, in DWARF order */
    uint64_t text_bytes;   /* bytes of executable sections decoded */
    size_t nfunctions;
    st_function *functions; /* ascending start */
    st_dataflow *dataflow;  /* one per function */
    size_t nscopes;
    st_scope *scopes;       /* scopes[0] is the module; parents before children */
    size_t nfiles;
    char **files;           /* source file paths of st_place.file */
    st_place **places;      /* places[f][i]: instruction i of function f */
    uint32_t **loop_scopes; /* loop_scopes[f][l]: the scope of loop l of
                               function f (folded loops share one) */
    size_t nwarnings;
    char **warnings;        /* what was skipped or degraded, for the user */
} st_module;

/* ---- names and text forms (format.c) ------------------------------------ */

/* "rax", "xmm3" (for every width), "flags", "x87", "k1". */
const char *st_reg_name(uint8_t reg);

/* "module", "function", "inlined", "loop" ("program" for ST_SCOPE_PROGRAM). */
const char *st_scope_kind_name(enum st_scope_kind k);

/* An address formula as text: terms as "8*rcx" (the register's value at
 * the entry of the innermost loop, or of the function), opaque terms as
 * "8*?", then the constant in hex: "rdi + 8*rcx + 0x10".  Returns buf. */
char *st_addr_format(const st_addr *a, char *buf, size_t len);

/* A function name at most `width` characters long for text tables (JSON
 * keeps the full name): a longer (C++ demangled) name loses its parameter
 * list, "f(int, long)" -> "f()", then its template arguments, "v<int>::f"
 * -> "v<...>::f", then is cut with "...".  Returns buf. */
char *st_short_name(const char *name, size_t width, char *buf, size_t len);

/* demangle.c: a symbol name as Valgrind prints it: a C++ ("_Z") name
 * demangled with its parameters ("_Z3sumIiET_PKS0_m" -> "int sum<int>(int
 * const*, unsigned long)"), any other name, or one that does not demangle,
 * unchanged.  Returns a malloc'd string the caller frees, NULL when memory
 * runs out. */
char *st_demangle(const char *name);

/* ---- stage interfaces ---------------------------------------------------- */

/* elf_image.c: an x86-64 ELF file mapped for reading, with its executable
 * sections and function symbols.  Every function that can fail returns 0
 * on success and -1 with a message naming the file in err. */
typedef struct st_section {
    char *name;
    uint64_t addr, size;
    const uint8_t *bytes; /* into the mapping */
} st_section;

typedef struct st_symbol {
    char *name;
    uint64_t addr, size; /* size 0 when the symbol does not say */
} st_symbol;

typedef struct st_segment {
    uint64_t vaddr, filesz, offset;
} st_segment;

typedef struct st_image {
    char *path;
    const uint8_t *map; /* the whole file, read-only */
    size_t map_size;
    uint64_t entry;     /* e_entry; 0 for most shared objects */
    int has_symtab;     /* a .symtab was read: the file's own, or its
                           separate debug file's (debug_file.c) */
    size_t nexec, nsegments, nsymbols;
    st_section *exec;   /* executable PROGBITS sections, ascending */
    st_segment *segments; /* PT_LOAD segments */
    st_symbol *symbols; /* function symbols in executable sections, one per
                           address, ascending */
} st_image;

/* debug_file.c: the separate debug file of the ELF file at `path` (opened
 * as e): 1 with its path in out[len] when one with the same build-id is
 * installed (/usr/lib/debug/.build-id/..., or .gnu_debuglink's name), else 0. */
typedef struct Elf Elf;
int st_debug_file(const char *path, Elf *e, char *out, size_t len);

/* Map and check the file at `path`: ELF, 64-bit, x86-64, headers and the
 * sections augur reads inside the file (a truncated file is refused). */
int st_image_open(const char *path, st_image **out, char *err, size_t errlen);
void st_image_close(st_image *img);

/* Read `n` bytes at link-time address `addr` from the file's loaded
 * segments into buf; -1 when any byte lies outside them (or in .bss). */
int st_image_read(const st_image *img, uint64_t addr, void *buf, size_t n);

/* functions.c: the functions of an image, ascending, each with its
 * instructions decoded by a linear sweep (blocks not built yet).  Starts
 * come from function symbols; without .symtab also from the entry point
 * and the targets of direct calls.  A function ends at its symbol's size,
 * the next start or the section's end.  Code outside every symbol (PLT
 * stubs, stripped code) becomes functions named after the section or
 * "fn_<hex address>"; padding (nop, int3) between functions is skipped.
 * Bytes that do not decode are skipped one at a time, counted in *invalid. */
int st_find_functions(const st_image *img, st_function **out, size_t *n, uint64_t *invalid, char *err,
                      size_t errlen);

/* The index of the first instruction of f at or after addr (f->ninsns when
 * none). */
uint32_t st_insn_lower_bound(const st_function *f, uint64_t addr);

/* The function of m whose [start, start + size) holds addr: 0 with *fi
 * its index, -1 when none does. */
int st_module_function_at(const st_module *m, uint64_t addr, size_t *fi);

/* The instruction of m that starts at addr: 0 with *fi its function's index
 * and *ii its index in that function, or -1 when no decoded instruction
 * starts there. */
int st_module_find_insn(const st_module *m, uint64_t addr, size_t *fi, uint32_t *ii);

/* decode.c: decode one instruction at code[0..avail) as if at address
 * `addr`.  Returns its length (1..15), or 0 when the bytes are not a valid
 * instruction (then *out is zeroed). */
size_t st_decode_one(const uint8_t *code, size_t avail, uint64_t addr, st_insn *out);

/* An indirect jump or call seen at run time going to `target` (link-time
 * addresses), from the profiles in the database. */
typedef struct st_jump_target {
    uint64_t jump, target;
} st_jump_target;

/* cfg.c: split f->insns (decoded, ascending) into basic blocks joined by
 * edges.  Jump tables are read through img (may be NULL: no tables).
 * Extra targets of indirect jumps, from profiles, are in extra[0..nextra)
 * as pairs {jump instruction address, target address}. */
int st_build_cfg(st_function *f, const st_image *img, const st_jump_target *extra, size_t nextra, char *err,
                 size_t errlen);

/* loops.c: fill blocks[].idom, blocks[].loop and f->loops. */
int st_find_loops(st_function *f, char *err, size_t errlen);

/* dataflow.c: register dependences and address formulas of a function
 * whose CFG and loops are built.  Free with st_dataflow_free. */
int st_dataflow_compute(const st_function *f, st_dataflow *out, char *err, size_t errlen);
void st_dataflow_free(st_dataflow *df);

/* dwarf_info.c: the line table and inlined subroutines of a module's
 * DWARF, found in the file itself or in separate debug info
 * (/usr/lib/debug/.build-id/..., .gnu_debuglink), with link-time addresses. */
typedef struct st_line_row {
    uint64_t addr;
    uint32_t file; /* index into st_debug_info.files */
    uint32_t line; /* 0: no line (compiler-generated code, or a sequence's end) */
    uint8_t stmt;  /* a recommended breakpoint location (is_stmt) */
} st_line_row;

typedef struct st_inline {
    char *name;          /* the inlined function */
    uint32_t call_file;  /* where it was inlined: index into files, or UINT32_MAX */
    uint32_t call_line;
    int32_t parent;      /* enclosing inlined subroutine, -1 if directly in a function */
    uint32_t nranges;
    uint64_t (*ranges)[2]; /* [low, high) address ranges */
} st_inline;

typedef struct st_debug_info {
    size_t nfiles, nrows, ninlines, nunits;
    char **files;
    st_unit *units;      /* the compilation units, in DWARF order */
    st_line_row *rows;   /* ascending addr, one row per address: the first
                            is_stmt row there, else the last row */
    st_inline *inlines;  /* parents before children */
} st_debug_info;

/* Read the DWARF of the ELF file at `path`.  Returns 0 with *out NULL when
 * the file has no DWARF (not an error: the analysis degrades), -1 with a
 * message when the DWARF is there but corrupt or memory runs out. */
int st_debug_open(const char *path, st_debug_info **out, char *err, size_t errlen);
void st_debug_free(st_debug_info *di);

/* The compilation units of the ELF file at `path` alone (what `augur
 * collect` compares between builds before it runs a program): 0 with *n 0
 * when the file has no DWARF; -1 with a message when libdwfl cannot start
 * or memory runs out.  Free with st_units_free. */
int st_read_units(const char *path, st_unit **out, size_t *n, char *err, size_t errlen);
void st_units_free(st_unit *u, size_t n);

/* The file and line of the code at addr: 0 and *line = 0 when unknown. */
int st_debug_line(const st_debug_info *di, uint64_t addr, uint32_t *file, uint32_t *line);

/* scope.c: build m->scopes, m->places, m->files and m->loop_scopes from
 * m->functions (with CFGs and loops) and the debug info (NULL without
 * DWARF): module -> function -> inlined subroutine / loop, nested by the
 * instructions they cover, sibling loops with overlapping line ranges in
 * one file folded together. */
int st_build_scopes(st_module *m, const st_debug_info *di, char *err, size_t errlen);

/* receiver.c: the variable that receives what a call returns, MemSpy's
 * short name for a heap object (seed 001, section 10 item 10), from the
 * code after the call and the DWARF locations of variables. */
typedef struct st_vars st_vars;

/* Open the DWARF of the ELF file at `path` for st_call_receiver.  Returns
 * 0 with *out set, or NULL when the file has no DWARF; -1 with a message
 * when libdwfl fails or memory runs out. */
int st_vars_open(const char *path, st_vars **out, char *err, size_t errlen);
void st_vars_free(st_vars *v);

/* The variable of module m (analysed from the same file as v) that
 * receives the result of the call at `site` (the call's address or any
 * address inside it, such as a stack trace's return address - 1): 1 with
 * its name in name[0..len), 0 when no variable is known to (v may be NULL). */
int st_call_receiver(const st_vars *v, const st_module *m, uint64_t site, char *name, size_t len);

/* When the call at `site` lies in code of a system header inlined into the
 * user's (libstdc++'s allocator in `std::vector<long> v(n)`): 1 with the
 * user's file and line that led into it (the call site of the outermost
 * inlined system function) in file[0..flen) and *line; else 0. */
int st_call_user_line(const st_vars *v, uint64_t site, char *file, size_t flen, uint32_t *line);

/* fortran_dwarf.c: call fn(ctx, symbol, name) for each Fortran COMMON
 * block described in the DWARF of the ELF file at `path`, in one pass:
 * `symbol` is its data symbol (gfortran's "fields_" for COMMON /fields/),
 * `name` its Fortran name ("/fields/", "//" for blank COMMON).  A block
 * declared in several procedures comes once per declaration.  Returns fn's
 * first nonzero value, else 0 (also when the file has no DWARF or cannot be
 * read). */
typedef int (*st_common_fn)(void *ctx, const char *symbol, const char *name);
int st_fortran_commons(const char *path, st_common_fn fn, void *ctx);

/* user_scope.c: is `path` a system header or library source (under
 * /usr/include, /usr/local/include, /usr/lib, /usr/lib64)?  0 for NULL. */
int st_is_system_file(const char *path);

/* Free what an st_function owns (not the struct itself). */
void st_function_free(st_function *f);

/* analyse.c: the whole analysis of one ELF file. */
typedef struct st_options {
    const st_jump_target *extra; /* indirect-jump targets seen in profiles */
    size_t nextra;
    /* Called every ST_PROGRESS_EVERY functions analysed and after the last,
     * with the functions analysed and their total (NULL: silent). */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
} st_options;

/* Functions between two progress calls of the analysis and of storing it
 * (db_store_structure): libc's 3708 make 58 updates of a terminal line. */
#define ST_PROGRESS_EVERY 64

/* Analyse the ELF file at `path` into *out (free with st_module_free).
 * Fails, with a message naming the file, for what is not an x86-64 ELF
 * executable or shared object, or is truncated; a stripped file or one
 * without DWARF is analysed with less (m->flags and m->warnings say what). */
int st_analyse(const char *path, const st_options *opt, st_module **out, char *err, size_t errlen);
void st_module_free(st_module *m);

#endif
