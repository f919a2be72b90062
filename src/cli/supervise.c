/* supervise.c — the Valgrind process run as a job of augur; see supervise.h. */
#define _GNU_SOURCE
#include "cli/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* The signals passed on to the program: those that ask it to end. */
static const int ENDING[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

/* How long the rest of the group has, after the main process ended on a
 * passed-on signal, to write its files and end before SIGKILL. */
#define GROUP_GRACE_SECONDS 10

static const struct timespec TICK = {0, 100 * 1000 * 1000};

void supervise_begin(supervisor *s)
{
    *s = (supervisor){.parent = getpid(), .tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)};
    s->foreground = s->tty >= 0 && tcgetpgrp(s->tty) == getpgrp();
    sigemptyset(&s->watched);
    for (size_t i = 0; i < sizeof ENDING / sizeof ENDING[0]; i++)
        sigaddset(&s->watched, ENDING[i]);
    sigaddset(&s->watched, SIGCHLD);
    s->blocked = s->watched;
    sigaddset(&s->blocked, SIGTTOU); /* lets augur hand the terminal over and write to it from the background */
    sigprocmask(SIG_BLOCK, &s->blocked, &s->old_mask);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
}

int supervise_child(supervisor *s)
{
    setpgid(0, 0);
    if (s->foreground)
        tcsetpgrp(s->tty, getpid());
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != s->parent)
        return -1;
    sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    return 0;
}

/* Give the terminal to process group `to` if group `from` holds it. */
static void move_terminal(const supervisor *s, pid_t from, pid_t to)
{
    if (s->tty >= 0 && tcgetpgrp(s->tty) == from)
        tcsetpgrp(s->tty, to);
}

/* Pass signal sig, received by augur, on to the child's group: the first
 * as it is, any later one as SIGKILL (the program took no notice, or the
 * user will not wait for it). */
static void pass_on(supervisor *s, int sig)
{
    if (s->passed_on++ == 0) {
        fprintf(stderr, "augur: SIG%s: passed on to the program, whose run ends with what it did so far "
                        "(a second signal kills it at once)\n", sigabbrev_np(sig));
        kill(-s->child, sig);
    } else {
        fprintf(stderr, "augur: SIG%s again: killing the program (SIGKILL)\n", sigabbrev_np(sig));
        kill(-s->child, SIGKILL);
    }
}

/* After the main process ended on a passed-on signal: wait for the rest of
 * its processes, which augur (the subreaper) inherits as their parents
 * end, GROUP_GRACE_SECONDS at most, then kill the group and wait as long
 * again.  No child left means none of the run's processes is left. */
static void reap_group(supervisor *s)
{
    for (int ticks = 0; ticks < 20 * GROUP_GRACE_SECONDS; ticks++) {
        if (ticks == 10 * GROUP_GRACE_SECONDS)
            kill(-s->child, SIGKILL);
        pid_t r;
        while ((r = waitpid(-1, NULL, WNOHANG)) > 0)
            ;
        if (r < 0 && errno == ECHILD)
            return;
        int sig = sigtimedwait(&s->watched, NULL, &TICK);
        if (sig > 0 && sig != SIGCHLD)
            pass_on(s, sig);
    }
}

int supervise_wait(supervisor *s, pid_t pid, int every, void (*tick)(void *ctx, long seconds), void *ctx)
{
    struct timespec begin, now;
    long said = 0;
    int status = 0;
    s->child = pid;
    setpgid(pid, pid); /* the child does it too: whichever runs first */
    if (s->foreground)
        move_terminal(s, getpgrp(), pid);
    clock_gettime(CLOCK_MONOTONIC, &begin);
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            break;
        int sig = sigtimedwait(&s->watched, NULL, &TICK); /* SIGCHLD ends the wait at once */
        if (sig > 0 && sig != SIGCHLD)
            pass_on(s, sig);
        clock_gettime(CLOCK_MONOTONIC, &now);
        long seconds = (long)(now.tv_sec - begin.tv_sec);
        if (every > 0 && seconds / every > said) {
            said = seconds / every;
            tick(ctx, seconds);
        }
    }
    if (s->passed_on)
        reap_group(s);
    return status;
}

void supervise_end(supervisor *s)
{
    if (s->child)
        move_terminal(s, s->child, getpgrp());
    if (s->tty >= 0)
        close(s->tty);
    prctl(PR_SET_CHILD_SUBREAPER, 0);
    sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
}
