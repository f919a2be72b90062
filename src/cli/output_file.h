/* output_file.h — writing a command's --output FILE the way users expect:
 * through symlinks (to their target), straight into FIFOs and devices, and
 * into a regular file by an atomic replace (a unique temporary beside the
 * target, renamed when complete), so that a failure leaves no half file.
 * output_check lets a command refuse a bad path before its long work. */
#ifndef AUGUR_OUTPUT_FILE_H
#define AUGUR_OUTPUT_FILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

typedef struct output_file {
    const char *path;       /* as the user gave it, for messages */
    char target[PATH_MAX];  /* path with its symlinks resolved: what is written */
    char tmp[PATH_MAX];     /* the temporary renamed onto target; "" when written directly */
    FILE *f;
} output_file;

/* 0 when path can be written: it is an existing FIFO or device this
 * process may write (access(2); a FIFO's reader is not asked for: it may
 * start later), an existing regular file, or a new file in a folder that
 * exists and is writable.  Else -1 with a message in err naming path and
 * the fix.  Nothing is created. */
int output_check(const char *path, char *err, size_t errlen);

/* Open path for writing into of->f (see the top of this file); -1 with a
 * message in err when it cannot be.  A FIFO is opened once a process
 * reads it, waiting up to 5 s for one, then refused ("no process is
 * reading FIFO ..."), instead of blocking for ever. */
int output_open(output_file *of, const char *path, char *err, size_t errlen);

/* Close of->f; when ok and it was written completely, put it in place (the
 * rename), else remove the temporary.  0, or -1 with a message in err. */
int output_close(output_file *of, int ok, char *err, size_t errlen);

#endif
