/* parallel.h — independent items worked on by several threads, their
 * results taken in item order by the calling thread: the pattern of
 * `augur model`, whose fits are independent and whose stored order must
 * not depend on the threads (docs/models.md, "Speed"). */
#ifndef AUGUR_PARALLEL_H
#define AUGUR_PARALLEL_H

#include <stddef.h>

/* Work on item i: called once per item, on any thread, several at a time;
 * it must touch nothing shared but what belongs to item i (its result
 * slot) and what no thread writes. */
typedef void (*par_work_fn)(void *ctx, size_t i);

/* Take the result of item i: called on the calling thread of par_ordered,
 * for i = 0, 1, ... in order, each after work(ctx, i) has returned.  0 to
 * go on, -1 to stop (no further item is started; those under way finish). */
typedef int (*par_take_fn)(void *ctx, size_t i);

/* Run work on items 0..n-1 with up to `jobs` threads besides the caller,
 * which takes each result in order as soon as it is done (so results can
 * be written while later items are worked on).  jobs <= 1 works every item
 * on the calling thread, as does a system that refuses threads.  Returns
 * 0, or -1 when take stopped it. */
int par_ordered(size_t n, int jobs, par_work_fn work, par_take_fn take, void *ctx);

/* The processors online (at least 1): the default number of jobs. */
int par_online_cpus(void);

#endif
