/* run_dir.c — a run's private folder: checked, made, finished, and removed
 * when a dead run left it; see run_dir.h. */
#define _GNU_SOURCE
#include "cli/run_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OWNER_FILE "owner"

/* Who made a run folder: the augur process, told apart from a later one
 * of the same pid by its start time, and from one of an earlier boot. */
typedef struct owner {
    char host[256];
    char boot[64];
    int pid;
    unsigned long long start; /* clock ticks after boot (/proc/PID/stat field 22) */
} owner;

/* Process pid's start time (owner.start), 0 when there is no such process. */
static unsigned long long process_start(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces and ')' */
    unsigned long long start = 0;
    /* fields 3 to 21 skipped, then 22 */
    if (!p || sscanf(p + 1, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %llu",
                     &start) != 1)
        return 0;
    return start;
}

/* This process as the owner of a folder it makes. */
static void this_owner(owner *me)
{
    *me = (owner){.pid = (int)getpid()};
    if (gethostname(me->host, sizeof me->host - 1) != 0 || !me->host[0] || strpbrk(me->host, " \t\n"))
        snprintf(me->host, sizeof me->host, "?");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");
    if (!f || fscanf(f, "%63s", me->boot) != 1)
        snprintf(me->boot, sizeof me->boot, "?");
    if (f)
        fclose(f);
    me->start = process_start(me->pid);
}

static int write_owner(const char *dir, const owner *me)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, dir);
    FILE *f = fopen(path, "wxe"); /* x: O_EXCL, so not through a link */
    if (!f)
        return -1;
    int bad = fprintf(f, "augur-run host=%s boot=%s pid=%d start=%llu\n", me->host, me->boot, me->pid, me->start) < 0;
    return fclose(f) != 0 || bad ? -1 : 0;
}

/* The owner of folder dir; -1 when it has no owner file (made by an older
 * augur, a run finished and kept, or one that has only just begun). */
static int read_owner(const char *dir, owner *o)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, dir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    int n = fscanf(f, "augur-run host=%255s boot=%63s pid=%d start=%llu", o->host, o->boot, &o->pid, &o->start);
    fclose(f);
    return n == 4 ? 0 : -1;
}

/* Whether owner o is known to have ended: it ran on this host, and the
 * host has booted since or no process has o's pid and start time.  A run
 * of another host sharing the folder is left to that host. */
static int owner_ended(const owner *o, const owner *me)
{
    if (strcmp(o->host, me->host) != 0)
        return 0;
    return strcmp(o->boot, me->boot) != 0 || process_start(o->pid) != o->start;
}

/* Remove folder dir and the files, links and pipes in it (no subfolders). */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

/* Remove the folders PARENT/PREFIX-* that are the current user's and whose
 * owner has ended. */
static void remove_stale(const char *parent, const char *prefix, const owner *me)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    size_t plen = strlen(prefix);
    for (struct dirent *e; (e = readdir(d));) {
        if (strncmp(e->d_name, prefix, plen) != 0 || e->d_name[plen] != '-')
            continue;
        char path[PATH_MAX];
        struct stat st;
        owner o;
        snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && read_owner(path, &o) == 0 &&
            owner_ended(&o, me))
            remove_dir(path);
    }
    closedir(d);
}

/* One folder of check_parent's walk: `path`, the parent or one above it;
 * `dir` is the parent as given, for messages. */
static int check_folder(const char *path, const char *dir, const char *what, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "cannot use %s %s: %s: %s", what, dir, path, strerror(errno));
        return -1;
    }
    if (st.st_uid != geteuid() && st.st_uid != 0) {
        snprintf(err, errlen,
                 "cannot use %s %s: %s belongs to another user (uid %u), who could replace what augur writes "
                 "there; give a folder of your own",
                 what, dir, path, (unsigned)st.st_uid);
        return -1;
    }
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
        snprintf(err, errlen,
                 "cannot use %s %s: others may write in %s (mode %04o) and so rename or replace what augur "
                 "writes there; take their write permission away (chmod go-w), set the sticky bit as /tmp has "
                 "(chmod +t), or give another folder",
                 what, dir, path, (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

/* 0 when the parent folder `real` (resolved; `dir` as given) and the
 * folders above it are safe to make the run's folder in (run_dir.h), else
 * -1 with a message. */
static int check_parent(const char *real, const char *dir, const char *what, char *err, size_t errlen)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", real);
    for (;;) {
        if (check_folder(path, dir, what, err, errlen) != 0)
            return -1;
        char *slash = strrchr(path, '/');
        if (!slash || !strcmp(path, "/"))
            return 0;
        slash == path ? (void)(path[1] = '\0') : (void)(*slash = '\0');
    }
}

int run_dir_make(const char *parent, const char *what, const char *prefix, char *dir, size_t len, char *err,
                 size_t errlen)
{
    char real[PATH_MAX];
    const char *tmp = getenv("TMPDIR");
    if (!parent)
        parent = tmp && *tmp ? tmp : "/tmp";
    if (!realpath(parent, real)) {
        snprintf(err, errlen, "cannot use %s %s: %s", what, parent, strerror(errno));
        return -1;
    }
    if (check_parent(real, parent, what, err, errlen) != 0)
        return -1;
    owner me;
    this_owner(&me);
    remove_stale(real, prefix, &me);
    if ((size_t)snprintf(dir, len, "%s/%s-XXXXXX", real, prefix) >= len) {
        snprintf(err, errlen, "cannot use %s %s: its path is too long", what, parent);
        return -1;
    }
    if (!mkdtemp(dir)) {
        snprintf(err, errlen, "cannot create a folder in %s %s: %s", what, parent, strerror(errno));
        return -1;
    }
    if (write_owner(dir, &me) != 0) {
        snprintf(err, errlen, "cannot write in the new folder %s: %s", dir, strerror(errno));
        remove_dir(dir);
        return -1;
    }
    return 0;
}

void run_dir_finish(const char *dir, int keep)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/" OWNER_FILE, dir);
    if (keep)
        unlink(path);
    else
        remove_dir(dir);
}
