/* calibrate_probes.h — the host measurements of `augur machine calibrate`
 * that are not cache latencies (calibrate.c does those and the bandwidths):
 * the clock the core really runs at and the cost of a first-touch page
 * fault.  Internal to src/machine. */
#ifndef AUGUR_CALIBRATE_PROBES_H
#define AUGUR_CALIBRATE_PROBES_H

/* The core clock in GHz from a chain of dependent 64-bit adds (one cycle
 * each on every x86-64 core since the P6): adds / ns of the fastest of
 * `reps` chains of 1.6e5 adds (50-80 us each, short enough to run between
 * preemptions even at a load of 5 per core, where time slices are about a
 * millisecond: 1.6e7-add chains, 5-8 ms, were all cut there and read 1.2
 * GHz; other processes only add time).  Under KVM /proc/cpuinfo's
 * "cpu MHz" is the TSC's, not the core's, hence this.  0 on other
 * architectures (the caller keeps the detected clock). */
double calibrate_clock_ghz(int reps);

/* Adds per nanosecond of four independent chains of 64-bit adds (32 adds
 * and the loop's fused dec-jnz an iteration), the fastest of `reps` runs
 * of 1.6e5 adds: the integer throughput this hardware thread gets, which
 * a tenant on the other thread of the same physical core takes a share of
 * while the dependent chains of the clock keep their latency.  0 on other
 * architectures. */
double calibrate_add_throughput(int reps);

/* Nanoseconds per first touch of a fresh 4 KiB anonymous page and its
 * release (the kernel's fault, zeroing and mapping, and the unmapping that
 * a program's free or exit does: 0.1-0.3 us a page of the 1.6-2.3 on the
 * Emerald Rapids guest, which the probe left out before), `pieces` times:
 * one fresh mapping of pages * pieces pages advised against huge pages,
 * touched (one byte written per page) `pages` at a time, each piece timed
 * on its own into ns[k] (short pieces, so that the caller's median leaves
 * out the ones a preemption hit), and the mapping's unmapping, timed, its
 * share a page added to every piece.  (A fresh mapping per piece, unmapped
 * after it, reads 1.2-1.3 us: the next piece faults in the pages just
 * freed, warm in the caches, as a program's large first touch does not.)
 * -1 when the mapping fails. */
int calibrate_page_fault_pieces(size_t pages, int pieces, double *ns);

/* CLOCK_MONOTONIC in nanoseconds: the clock every calibration times with. */
double calibrate_now_ns(void);

#endif
