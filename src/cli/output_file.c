/* output_file.c — --output FILE written through symlinks, into FIFOs and
 * devices directly, and to regular files by an atomic replace; see
 * output_file.h. */
#define _GNU_SOURCE
#include "cli/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Links followed at most, as the kernel's own limit (ELOOP past it). */
#define MAX_LINKS 40

/* How long output_open waits for a FIFO's reader.  A reader started with
 * augur (`augur ... --output F & cat F`) opens it within milliseconds even
 * on a loaded host; without the limit a FIFO nobody reads blocks forever. */
#define FIFO_READER_WAIT_MS 5000

/* The folder part of path into dir ("." when it has none). */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else
        snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* path with every symlink of its last component followed (the target may
 * not exist yet: a dangling link names the file to create) into out.
 * 0, or -1 with errno set. */
static int resolve_links(const char *path, char *out, size_t len)
{
    char link[PATH_MAX], dir[PATH_MAX];
    snprintf(out, len, "%s", path);
    for (int n = 0; n < MAX_LINKS; n++) {
        struct stat st;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            return 0;
        ssize_t k = readlink(out, link, sizeof link - 1);
        if (k < 0)
            return -1;
        link[k] = '\0';
        dir_of(out, dir, sizeof dir);
        if (link[0] == '/')
            snprintf(out, len, "%s", link);
        else if (snprintf(out, len, "%s/%s", dir, link) >= (int)len)
            return errno = ENAMETOOLONG, -1;
    }
    return errno = ELOOP, -1;
}

int output_check(const char *path, char *err, size_t errlen)
{
    char target[PATH_MAX], dir[PATH_MAX];
    struct stat st;
    if (resolve_links(path, target, sizeof target) != 0) {
        snprintf(err, errlen, "--output %s: %s (choose another --output)", path, strerror(errno));
        return -1;
    }
    if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--output %s is a folder: give a file, such as %s/report.txt", path, path);
        return -1;
    }
    if (stat(target, &st) == 0 && !S_ISREG(st.st_mode)) { /* a FIFO or device, written directly */
        if (access(target, W_OK) == 0)
            return 0;
        snprintf(err, errlen, "--output %s: %s (choose another --output)", path, strerror(errno));
        return -1;
    }
    dir_of(target, dir, sizeof dir);
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "--output %s: folder %s does not exist (create it, or choose another --output)", path,
                 dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, errlen, "--output %s: folder %s is not writable (choose another --output)", path, dir);
        return -1;
    }
    return 0;
}

/* The mode a new file gets from open(2) with 0666: mkstemp's is 0600. */
static mode_t new_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

/* A unique temporary beside of->target, opened into of->f with the mode
 * the replaced file has (or a new file would get).  0, or -1 (errno). */
static int open_temporary(output_file *of, const struct stat *old)
{
    char dir[PATH_MAX];
    const char *base = strrchr(of->target, '/');
    dir_of(of->target, dir, sizeof dir);
    if (snprintf(of->tmp, sizeof of->tmp, "%s/.%s.XXXXXX", dir, base ? base + 1 : of->target) >= (int)sizeof of->tmp)
        return errno = ENAMETOOLONG, -1;
    int fd = mkstemp(of->tmp);
    if (fd < 0)
        return -1;
    if (fchmod(fd, old ? old->st_mode & 07777 : new_file_mode()) != 0 || !(of->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(of->tmp);
        return errno = e, -1;
    }
    return 0;
}

/* The FIFO at path opened for writing (blocking) once a process reads it,
 * waiting up to FIFO_READER_WAIT_MS for one.  The descriptor, or -1 with
 * errno set: ENXIO when no reader came. */
static int open_fifo(const char *path)
{
    const struct timespec step = {0, 50 * 1000 * 1000};
    for (int waited_ms = 0;; waited_ms += 50) {
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC); /* ENXIO at once while no reader */
        if (fd >= 0) {
            int flags = fcntl(fd, F_GETFL);
            if (flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0)
                return fd; /* blocking again: a full pipe waits for its reader */
            int e = errno;
            close(fd);
            return errno = e, -1;
        }
        if (errno != ENXIO || waited_ms >= FIFO_READER_WAIT_MS)
            return -1;
        nanosleep(&step, NULL);
    }
}

/* An existing FIFO or device at of->target opened into of->f, written in
 * place (a rename would replace it).  0, or -1 with errno set. */
static int open_in_place(output_file *of, const struct stat *st)
{
    if (!S_ISFIFO(st->st_mode))
        return (of->f = fopen(of->target, "w")) ? 0 : -1;
    int fd = open_fifo(of->target);
    if (fd < 0)
        return -1;
    if (!(of->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        return errno = e, -1;
    }
    return 0;
}

int output_open(output_file *of, const char *path, char *err, size_t errlen)
{
    struct stat st;
    *of = (output_file){.path = path};
    int rc = resolve_links(path, of->target, sizeof of->target);
    int exists = rc == 0 && stat(of->target, &st) == 0;
    if (rc == 0 && exists && !S_ISREG(st.st_mode))
        rc = open_in_place(of, &st);
    else if (rc == 0)
        rc = open_temporary(of, exists ? &st : NULL);
    if (rc != 0 && exists && S_ISFIFO(st.st_mode) && errno == ENXIO)
        snprintf(err, errlen, "cannot write %s: no process is reading FIFO %s (waited %d s; start its reader, "
                 "such as 'cat %s', first, or choose another --output)", path, of->target,
                 FIFO_READER_WAIT_MS / 1000, of->target);
    else if (rc != 0)
        snprintf(err, errlen, "cannot write %s: %s (choose another --output)", path, strerror(errno));
    if (rc != 0)
        of->tmp[0] = '\0';
    return rc;
}

int output_close(output_file *of, int ok, char *err, size_t errlen)
{
    int bad = !ok;
    bad |= fclose(of->f) != 0;
    of->f = NULL;
    if (!bad && (!of->tmp[0] || rename(of->tmp, of->target) == 0))
        return 0;
    snprintf(err, errlen, "cannot write %s: %s", of->path, ok ? strerror(errno) : "writing the report failed");
    if (of->tmp[0])
        unlink(of->tmp);
    return -1;
}
