/* shared_libs.c — the shared objects a program loads, as the dynamic
 * loader resolves them: `ld.so --list PROGRAM` (what ldd runs), which
 * loads the program's dependencies without running the program. */
#include "cli/shared_libs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define LOADER "/lib64/ld-linux-x86-64.so.2"

/* The path of one line of the loader's list ("libm.so.6 => /lib/.../libm.so.6
 * (0x...)" or "/lib64/ld-linux-x86-64.so.2 (0x...)"), or NULL. */
static char *path_of(const char *line)
{
    const char *arrow = strstr(line, "=> "), *p = arrow ? arrow + 3 : line;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != '/')
        return NULL; /* linux-vdso.so.1, or "not found" */
    size_t n = strcspn(p, " \t\n(");
    return strndup(p, n);
}

static int read_list(FILE *in, char ***paths, size_t *n)
{
    char line[4096];
    while (fgets(line, sizeof line, in)) {
        char *p = path_of(line);
        if (!p)
            continue;
        char **grown = realloc(*paths, (*n + 1) * sizeof *grown);
        if (!grown) {
            free(p);
            return -1;
        }
        *paths = grown;
        (*paths)[(*n)++] = p;
    }
    return 0;
}

int list_shared_objects(const char *program, char ***paths, size_t *n, char *err, size_t errlen)
{
    int fds[2];
    *paths = NULL;
    *n = 0;
    if (pipe(fds) != 0) {
        snprintf(err, errlen, "cannot list the shared objects of %s: pipe failed", program);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(LOADER, LOADER, "--list", program, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    int rc = pid > 0 && in ? read_list(in, paths, n) : -1;
    if (in)
        fclose(in);
    else
        close(fds[0]);
    int status = 0;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (rc != 0 || pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, errlen,
                 "cannot list the shared objects of %s with %s --list (is it a dynamically linked x86-64 "
                 "program?)", program, LOADER);
        for (size_t i = 0; i < *n; i++)
            free((*paths)[i]);
        free(*paths);
        *paths = NULL;
        *n = 0;
        return -1;
    }
    return 0;
}
