/* seed_program.c — the program whose profiles and memspy raw files seed
 * the fuzz corpus (tests/fuzz/make_seeds.sh): freestanding and static (no
 * libc: gcc -nostdlib -static), so that its files hold only its own few
 * dozen instructions and stay a few KB, yet have every kind of line: a
 * loop with a conditional branch, an indirect call through a table,
 * strided reads and writes of a global array, a stack array, arguments,
 * and an exit code (3, the low bits of its sum); or, given `exec PROGRAM
 * ARGS...`, an exec of PROGRAM after the work (memspy's `exec` line). */
#include <stdint.h>

static int64_t grid[4096];

static int64_t twice(int64_t v)
{
    return 2 * v;
}

static int64_t negate(int64_t v)
{
    return -v;
}

/* Writable, so that the file has a data segment: Valgrind reads a static
 * program's symbols and lines only once it has mapped one from the file. */
int64_t (*ops[2])(int64_t) = {twice, negate}; /* not static: kept in .data */

/* Sum every stride-th element, writing each back through an op. */
static __attribute__((noinline)) int64_t sweep(int64_t *a, int n, int stride)
{
    int64_t sum = 0;
    for (int i = 0; i < n; i += stride) {
        if (a[i] & 1)
            sum += a[i];
        a[i] = ops[i & 1](a[i] + i);
    }
    return sum;
}

static int64_t syscall3(int64_t nr, int64_t a, int64_t b, int64_t c)
{
    int64_t ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
    return ret;
}

/* The work, then exit_group(2) (which the collector records), or execve(2)
 * of argv[2] when argv[1] is "exec".  sp: the stack at entry (argc, argv,
 * NULL, envp). */
__attribute__((noreturn, used)) void seed_main(int64_t *sp)
{
    int64_t argc = sp[0];
    char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
    volatile int64_t local[64];
    for (int i = 0; i < 64; i++)
        local[i] = i;
    int64_t s = sweep(grid, 4096, 1) + sweep(grid, 4096, 8) + local[63];
    const char *x = argc > 2 ? argv[1] : "";
    if (x[0] == 'e' && x[1] == 'x' && x[2] == 'e' && x[3] == 'c' && !x[4])
        syscall3(59, (int64_t)argv[2], (int64_t)(argv + 2), (int64_t)envp);
    syscall3(231, s & 3, 0, 0);
    __builtin_unreachable();
}

/* The entry: the stack pointer to seed_main, the stack aligned for a call. */
__asm__(".globl _start\n_start:\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall seed_main\n");
