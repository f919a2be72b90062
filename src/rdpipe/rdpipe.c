/* rdpipe.c — starting and ending a consumer process (collect's
 * reuse-distance engines, memspy's simulator); see rdpipe.h.
 *
 * The consumer is a fork of augur itself (no exec: it needs nothing but
 * rdpipe_consume), started before Valgrind, with the ring (a memfd, mapped
 * shared by both) made before it.  It holds only its own ends of the two
 * pipes, so that it reads the doorbell's end when every process of the
 * tool that could write records has ended, and the tool sees the answers'
 * end (and stops with an error) if it dies.  It ignores
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
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int rdpipe_cores_available(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

int rdpipe_wanted(const char *analysis)
{
    return !strcmp(analysis, "pipe") || (!strcmp(analysis, "auto") && rdpipe_cores_available() > 2);
}

/* The consumer process: never returns. */
static void consumer_main(const rdpipe *p, int in, int out, RdpRing *ring, rdpipe_consume_fn consume, void *ctx)
{
    for (int i = 0; i < 3; i++)
        close(p->tool_fd[i]);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    signal(SIGPIPE, SIG_IGN); /* a tool gone while answered: write fails, the loop ends */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    _exit(consume(in, out, ring, ctx) == 0 ? 0 : 5);
}

static unsigned long long inode_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* The shared ring, a memfd (close-on-exec) in *fd mapped at *ring.  0, or
 * -1 with errno. */
static int make_ring(int *fd, RdpRing **ring)
{
    *fd = memfd_create("augur-rd-ring", MFD_CLOEXEC);
    if (*fd < 0)
        return -1;
    void *m = MAP_FAILED;
    if (ftruncate(*fd, RDP_RING_BYTES) != 0 ||
        (m = mmap(NULL, RDP_RING_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0)) == MAP_FAILED) {
        int saved = errno;
        close(*fd);
        errno = saved;
        return -1;
    }
    *ring = m; /* zeros: head, tail, sleeping */
    return 0;
}

int rdpipe_launch(rdpipe *p, const char *name, rdpipe_consume_fn consume, void *ctx, char *err, size_t errlen)
{
    int bell[2], ans[2], mem;
    RdpRing *ring;
    *p = (rdpipe){0, {-1, -1, -1}, {0, 0, 0}, name};
    if (make_ring(&mem, &ring) != 0) {
        snprintf(err, errlen, "cannot make the memory shared with %s (%u MiB): %s", name, RDP_RING_BYTES >> 20,
                 strerror(errno));
        return -1;
    }
    if (pipe2(bell, O_CLOEXEC) != 0 || (pipe2(ans, O_CLOEXEC) != 0 && (close(bell[0]), close(bell[1]), 1))) {
        snprintf(err, errlen, "cannot make the pipes to %s: %s", name, strerror(errno));
        munmap(ring, RDP_RING_BYTES);
        close(mem);
        return -1;
    }
    p->tool_fd[0] = bell[1];
    p->tool_fd[1] = ans[0];
    p->tool_fd[2] = mem;
    for (int i = 0; i < 3; i++)
        p->ino[i] = inode_of(p->tool_fd[i]);
    fflush(NULL); /* nothing buffered twice */
    pid_t pid = fork();
    if (pid == 0)
        consumer_main(p, bell[0], ans[1], ring, consume, ctx);
    int saved = errno;
    munmap(ring, RDP_RING_BYTES);
    close(bell[0]);
    close(ans[1]);
    if (pid < 0) {
        for (int i = 0; i < 3; i++)
            close(p->tool_fd[i]);
        snprintf(err, errlen, "cannot start %s: %s", name, strerror(saved));
        return -1;
    }
    p->pid = pid;
    return 0;
}

/* What the reuse-distance consumer runs with. */
typedef struct rd_consumer {
    const rdpipe_config *cfg;
    unsigned threads;
} rd_consumer;

static int consume_rd(int doorbell, int out, RdpRing *ring, void *ctx)
{
    const rd_consumer *c = ctx;
    return rdpipe_consume(doorbell, out, ring, c->cfg, c->threads);
}

int rdpipe_start(rdpipe *p, const rdpipe_config *cfg, char *err, size_t errlen)
{
    int cores = rdpipe_cores_available();
    rd_consumer c = {cfg, cores > 2 ? (unsigned)cores - 1 : 1}; /* one core is the program's */
    return rdpipe_launch(p, "the reuse-distance consumer", consume_rd, &c, err, errlen);
}

void rdpipe_tool_option(const rdpipe *p, char *buf, size_t len)
{
    static const rdpipe none = {0, {0, 0, 0}, {0, 0, 0}, NULL};
    p = p ? p : &none;
    snprintf(buf, len, "--augur-channel=%05d:%020llu,%05d:%020llu,%05d:%020llu", p->tool_fd[0], p->ino[0],
             p->tool_fd[1], p->ino[1], p->tool_fd[2], p->ino[2]);
}

void rdpipe_tool_started(void *ctx)
{
    rdpipe *p = ctx;
    for (int i = 0; i < 3; i++)
        if (p->tool_fd[i] >= 0)
            close(p->tool_fd[i]);
    p->tool_fd[0] = p->tool_fd[1] = p->tool_fd[2] = -1;
}

int rdpipe_finish(rdpipe *p, char *err, size_t errlen)
{
    rdpipe_tool_started(p);
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
        snprintf(err, errlen, "%s (augur's process beside Valgrind) was killed by signal %d", p->name,
                 WTERMSIG(status));
    else
        snprintf(err, errlen, "%s (augur's process beside Valgrind) failed with status %d", p->name,
                 WEXITSTATUS(status));
    return -1;
}
