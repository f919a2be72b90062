/* rdpipe.c — starting and ending the reuse-distance consumer; see rdpipe.h.
 *
 * The consumer is a fork of augur itself (no exec: it needs nothing but
 * rdpipe_consume), started before Valgrind.  It holds only its own ends of
 * the two pipes, so that it reads the end of the records when every
 * process of the tool that could write them has ended, and the tool's
 * writes fail (and the tool stops with an error) if it dies.  It ignores
 * the signals augur passes on to the program: it ends with the records, or
 * with augur (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include "rdpipe/rdpipe.h"
#include "rdpipe/rdpipe_consumer.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PIPE_BYTES (1 << 20) /* the records pipe's capacity, the slack between tool and consumer */

int rdpipe_cores_available(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* The consumer process: never returns. */
static void consumer_main(const rdpipe *p, int in, int out, const rdpipe_config *cfg, unsigned threads)
{
    close(p->tool_fd[0]);
    close(p->tool_fd[1]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN); /* a tool gone while answered: write fails, the loop ends */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    _exit(rdpipe_consume(in, out, cfg, threads) == 0 ? 0 : 5);
}

static unsigned long long inode_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

int rdpipe_start(rdpipe *p, const rdpipe_config *cfg, char *err, size_t errlen)
{
    int rec[2], ans[2];
    *p = (rdpipe){0, {-1, -1}, {0, 0}};
    if (pipe2(rec, O_CLOEXEC) != 0 || (pipe2(ans, O_CLOEXEC) != 0 && (close(rec[0]), close(rec[1]), 1))) {
        snprintf(err, errlen, "cannot make the pipes to the reuse-distance consumer: %s", strerror(errno));
        return -1;
    }
    fcntl(rec[1], F_SETPIPE_SZ, PIPE_BYTES); /* at most /proc/sys/fs/pipe-max-size: a smaller pipe only waits more */
    p->tool_fd[0] = rec[1];
    p->tool_fd[1] = ans[0];
    p->ino[0] = inode_of(rec[1]);
    p->ino[1] = inode_of(ans[0]);
    int cores = rdpipe_cores_available();
    unsigned threads = cores > 2 ? (unsigned)cores - 1 : 1; /* one core is the program's */
    fflush(NULL); /* nothing buffered twice */
    pid_t pid = fork();
    if (pid == 0)
        consumer_main(p, rec[0], ans[1], cfg, threads);
    int saved = errno;
    close(rec[0]);
    close(ans[1]);
    if (pid < 0) {
        close(rec[1]);
        close(ans[0]);
        snprintf(err, errlen, "cannot start the reuse-distance consumer: %s", strerror(saved));
        return -1;
    }
    p->pid = pid;
    return 0;
}

void rdpipe_tool_option(const rdpipe *p, char *buf, size_t len)
{
    snprintf(buf, len, "--augur-channel=%d:%llu,%d:%llu", p->tool_fd[0], p->ino[0], p->tool_fd[1], p->ino[1]);
}

int rdpipe_finish(rdpipe *p, char *err, size_t errlen)
{
    for (int i = 0; i < 2; i++)
        if (p->tool_fd[i] >= 0)
            close(p->tool_fd[i]);
    p->tool_fd[0] = p->tool_fd[1] = -1;
    if (!p->pid)
        return 0;
    int status;
    pid_t r;
    while ((r = waitpid(p->pid, &status, 0)) < 0 && errno == EINTR)
        ;
    p->pid = 0;
    if (r < 0) /* reaped with the program's processes after a passed-on signal (supervise.c) */
        return 0;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (WIFSIGNALED(status))
        snprintf(err, errlen, "the reuse-distance consumer (augur's process beside Valgrind) was killed by signal %d",
                 WTERMSIG(status));
    else
        snprintf(err, errlen, "the reuse-distance consumer (augur's process beside Valgrind) failed with status %d",
                 WEXITSTATUS(status));
    return -1;
}
