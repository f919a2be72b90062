/* machine_find.c — machine names ("zen4") resolved to description files in
 * the machine directories, and the list of known names (machine.h). */
#include "machine/machine.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUFFIX ".yaml"

/* 1 when s ends in ".yaml". */
static int has_suffix(const char *s)
{
    size_t n = strlen(s), k = strlen(SUFFIX);
    return n > k && !strcmp(s + n - k, SUFFIX);
}

size_t machine_dirs(const char **dirs, size_t max)
{
    /* a private copy of $AUGUR_MACHINES, cut at the colons; remade per call */
    static char env_copy[4096];
    size_t n = 0;
    const char *env = getenv("AUGUR_MACHINES");
    if (env && *env) {
        snprintf(env_copy, sizeof env_copy, "%s", env);
        for (char *save = NULL, *tok = strtok_r(env_copy, ":", &save); tok && n < max;
             tok = strtok_r(NULL, ":", &save))
            dirs[n++] = tok;
    }
    if (n < max)
        dirs[n++] = AUGUR_MACHINES_DIR;
    if (n < max)
        dirs[n++] = AUGUR_INSTALL_MACHINES;
    return n;
}

/* Add the names of dir's *.yaml files not yet in list (n entries, room for
 * *cap); -1 when out of memory. */
static int add_dir_names(const char *dir, char ***list, size_t *n, size_t *cap)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return 0; /* a directory that does not exist holds no names */
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(dp));) {
        if (e->d_name[0] == '.' || !has_suffix(e->d_name))
            continue;
        size_t len = strlen(e->d_name) - strlen(SUFFIX);
        int seen = 0;
        for (size_t i = 0; i < *n && !seen; i++)
            seen = strlen((*list)[i]) == len && !strncmp((*list)[i], e->d_name, len);
        if (seen)
            continue;
        if (*n == *cap) {
            size_t nc = *cap ? 2 * *cap : 16;
            char **grown = realloc(*list, nc * sizeof *grown);
            if (!grown) {
                rc = -1;
                break;
            }
            *list = grown;
            *cap = nc;
        }
        if (!((*list)[*n] = strndup(e->d_name, len)))
            rc = -1;
        else
            (*n)++;
    }
    closedir(dp);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int machine_names(char ***names, size_t *n, char *err, size_t errlen)
{
    const char *dirs[16];
    size_t ndirs = machine_dirs(dirs, 16), cap = 0;
    *names = NULL;
    *n = 0;
    for (size_t i = 0; i < ndirs; i++)
        if (add_dir_names(dirs[i], names, n, &cap) != 0) {
            machine_names_free(*names, *n);
            snprintf(err, errlen, "out of memory listing the machine descriptions");
            return -1;
        }
    qsort(*names, *n, sizeof **names, by_name);
    return 0;
}

void machine_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* "unknown machine 'NAME' (known: a, b; or give a file path)" into err. */
static int unknown_name(const char *name, char *err, size_t errlen)
{
    char **names;
    size_t n;
    if (machine_names(&names, &n, err, errlen) != 0)
        return -1;
    size_t len = (size_t)snprintf(err, errlen, "unknown machine '%s' (known: ", name);
    for (size_t i = 0; i < n && len < errlen; i++)
        len += (size_t)snprintf(err + len, errlen - len, "%s%s", i ? ", " : "", names[i]);
    if (len < errlen)
        snprintf(err + len, errlen - len, "%s; or give the path of a description file)", n ? "" : "none found");
    machine_names_free(names, n);
    return -1;
}

int machine_find(const char *name_or_path, machine *m, char *err, size_t errlen)
{
    if (strchr(name_or_path, '/') || has_suffix(name_or_path))
        return machine_load(name_or_path, m, err, errlen);
    const char *dirs[16];
    size_t ndirs = machine_dirs(dirs, 16);
    for (size_t i = 0; i < ndirs && *name_or_path; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s" SUFFIX, dirs[i], name_or_path);
        if (access(path, F_OK) == 0)
            return machine_load(path, m, err, errlen);
    }
    memset(m, 0, sizeof *m);
    return unknown_name(name_or_path, err, errlen);
}
