/* supervise.h — running the Valgrind process of `augur collect` and `augur
 * memspy` as a shell runs a job: it holds the terminal, the signals sent to
 * augur reach it, and it does not run on without augur.
 *
 * The child gets a process group of its own (the program's processes, the
 * forked ones too, are in it), and the terminal when augur holds it, so
 * that the program reads it and Ctrl-C reaches it as without augur.
 * SIGINT, SIGQUIT, SIGTERM and SIGHUP sent to augur are passed on to that
 * group, and augur waits for its processes to end (they write what they
 * measured on the way out); a second such signal kills them with SIGKILL.
 * The child dies with augur (PR_SET_PDEATHSIG), so a `kill -9` of augur
 * leaves no Valgrind running on.  (Valgrind 3.19 does not stop a program on
 * Ctrl-Z, with augur or without, so there are no stops to follow.)
 *
 * Use: supervise_begin, fork, supervise_child in the child and
 * supervise_wait in the parent, supervise_end.
 */
#ifndef AUGUR_SUPERVISE_H
#define AUGUR_SUPERVISE_H

#include <signal.h>
#include <sys/types.h>

typedef struct supervisor {
    pid_t parent;     /* augur */
    pid_t child;      /* the child, leader of its process group; 0 before it is started */
    int tty;          /* the controlling terminal, open, or -1 */
    int foreground;   /* augur held the terminal when the child started */
    int passed_on;    /* signals passed on so far */
    sigset_t blocked; /* the signals augur takes with sigtimedwait, and SIGTTOU */
    sigset_t watched; /* those of them it waits for */
    sigset_t old_mask;
} supervisor;

/* Before fork: block the signals the supervisor takes in turn, make augur
 * the reaper of the child's orphaned processes, open the terminal. */
void supervise_begin(supervisor *s);

/* In the child, before exec: its own process group, the terminal if
 * augur held it, death with augur, augur's signal mask.  Returns 0, or -1
 * when augur has already died (the child should then _exit). */
int supervise_child(supervisor *s);

/* In augur: wait for the child `pid` to end, passing signals on as above; when a signal was passed on, also wait (10 s at
 * most, then SIGKILL) for the rest of its process group.  Every `every`
 * seconds (0: never) calls tick(ctx, seconds so far).  Returns the child's
 * wait status. */
int supervise_wait(supervisor *s, pid_t pid, int every, void (*tick)(void *ctx, long seconds), void *ctx);

/* After the wait (or a failed fork): the terminal back to augur, augur's
 * signal mask and reaping as they were.  A signal that came after the child
 * ended acts on augur now, as it would have without the supervisor. */
void supervise_end(supervisor *s);

#endif
