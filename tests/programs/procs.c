/* procs.c — threads, child processes and crashes, for the collector's tests.
 *
 * usage: procs threads T K R     T threads, each R sweeps over its own K lines
 *        procs threads-seq T K R as threads, but each joined before the next
 *                                starts (so thread ids and memory are reused)
 *        procs fork K R          a forked child sweeps; then the parent sweeps
 *        procs fork-warm K R     sweeps K lines once, forks a child that sweeps
 *                                them R times (its stacks start as copies of
 *                                the parent's: no first touch), waits
 *        procs closefds K R      closes every descriptor from 3 up (close_range
 *                                and close, as daemons do), then sweeps
 *        procs exec PROGRAM...   runs PROGRAM in a child (fork + execv), waits
 *        procs crash K R         sweeps, then dies of SIGSEGV
 *        procs exit CODE         exits with CODE
 *        procs wait FILE S C     forks C children (0 or 1) that sleep S seconds,
 *                                creates FILE (all of them are running), sleeps
 *                                S seconds: a run to signal from outside
 * Every sweep's load is on the one line tagged as such (LOAD:<name>).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORDS_PER_LINE 8

typedef struct job {
    long k, r, sum;
} job;

__attribute__((noinline)) static long sweep_lines(long k, long r)
{
    volatile long *a = aligned_alloc(4096, (size_t)k * 64 + 4096);
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < k; i++)
            s += a[i * WORDS_PER_LINE]; /* LOAD:thread-sweep */
    free((void *)a);
    return s;
}

/* R sweeps over the K lines of a. */
__attribute__((noinline)) static long sweep_array(volatile long *a, long k, long r)
{
    long s = 0;
    for (long rep = 0; rep < r; rep++)
        for (long i = 0; i < k; i++)
            s += a[i * WORDS_PER_LINE]; /* LOAD:warm-sweep */
    return s;
}

static void *thread_main(void *arg)
{
    job *j = arg;
    j->sum = sweep_lines(j->k, j->r);
    return NULL;
}

static int run_threads(int t, long k, long r, int sequential)
{
    pthread_t tid[64];
    job jobs[64];
    if (t < 1 || t > 64)
        return 2;
    for (int i = 0; i < t; i++) {
        jobs[i] = (job){k, r, 0};
        pthread_create(&tid[i], NULL, thread_main, &jobs[i]);
        if (sequential)
            pthread_join(tid[i], NULL);
    }
    long s = 0;
    for (int i = 0; i < t; i++) {
        if (!sequential)
            pthread_join(tid[i], NULL);
        s += jobs[i].sum;
    }
    printf("%ld\n", s);
    return 0;
}

static int run_fork(long k, long r)
{
    pid_t pid = fork();
    if (pid == 0) {
        printf("child %ld\n", sweep_lines(k, r));
        exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("parent %ld\n", sweep_lines(k, r));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int run_fork_warm(long k, long r)
{
    volatile long *a = calloc((size_t)k, 64);
    long s = sweep_array(a, k, 1);
    pid_t pid = fork();
    if (pid == 0) {
        printf("child %ld\n", sweep_array(a, k, r));
        exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("parent %ld\n", s);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Close what a daemon closes (Valgrind refuses its own descriptors), then sweep. */
static int run_closefds(long k, long r)
{
#ifdef SYS_close_range
    syscall(SYS_close_range, 3u, ~0u, 0u);
#endif
    for (int fd = 3; fd < 65536; fd++)
        close(fd);
    printf("%ld\n", sweep_lines(k, r));
    return 0;
}

static int run_exec(char **argv)
{
    pid_t pid = fork();
    if (pid == 0) {
        execv(argv[0], argv);
        perror("execv");
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

static int run_wait(const char *file, unsigned seconds, int children)
{
    if (children && fork() == 0) {
        sleep(seconds);
        _exit(0);
    }
    FILE *f = fopen(file, "w");
    if (!f || fclose(f) != 0)
        return 2;
    sleep(seconds);
    while (children && wait(NULL) > 0)
        ;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "threads"))
        return run_threads(atoi(argv[2]), atol(argv[3]), atol(argv[4]), 0);
    if (argc >= 5 && !strcmp(argv[1], "threads-seq"))
        return run_threads(atoi(argv[2]), atol(argv[3]), atol(argv[4]), 1);
    if (argc >= 4 && !strcmp(argv[1], "fork"))
        return run_fork(atol(argv[2]), atol(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "fork-warm"))
        return run_fork_warm(atol(argv[2]), atol(argv[3]));
    if (argc >= 4 && !strcmp(argv[1], "closefds"))
        return run_closefds(atol(argv[2]), atol(argv[3]));
    if (argc >= 3 && !strcmp(argv[1], "exec"))
        return run_exec(argv + 2);
    if (argc >= 4 && !strcmp(argv[1], "crash")) {
        printf("%ld\n", sweep_lines(atol(argv[2]), atol(argv[3])));
        fflush(stdout);
        *(volatile int *)0 = 1;
    }
    if (argc >= 3 && !strcmp(argv[1], "exit"))
        return atoi(argv[2]);
    if (argc >= 5 && !strcmp(argv[1], "wait"))
        return run_wait(argv[2], (unsigned)atoi(argv[3]), atoi(argv[4]) != 0);
    fprintf(stderr, "usage: procs threads|threads-seq T K R | fork|fork-warm|closefds K R | exec PROGRAM... | crash K R"
                    " | exit CODE"
                    " | wait FILE S C\n");
    return 2;
}
