/* vg_random.h — the program's 16 AT_RANDOM bytes made the same in every
 * run, by augur's Valgrind tools (src/collector, src/memspy), so that the
 * same run makes the same references.  The kernel fills them anew for each
 * process, and Valgrind copies them to the client's stack right after the
 * last environment string, which is its LD_PRELOAD: ld.so's strcspn,
 * splitting LD_PRELOAD four bytes at a time, reads up to three of them past
 * the string's end and looks each up in a table on its stack, so which
 * table line a run touched varied (docs/memspy.md, "Simulation off the
 * program's core").  They also seed the stack protector's canary and
 * glibc's pointer guard, which become the same constants in every run.
 * Valgrind-only (VG_(...) functions). */
#ifndef AUGUR_VG_RANDOM_H
#define AUGUR_VG_RANDOM_H

/* Before the program's first instruction, overwrite its AT_RANDOM bytes
 * with fixed ones: called first in a tool's instrument function, which
 * instruments the program's first block before it runs (later calls
 * return at once). */
void vg_fixed_random(void);

#endif
