/* explore_sources.c — the source files of the page: every file the runs'
 * debug information names, hottest first (executed instructions summed over
 * the runs), with its text when it can be read and fits the limits
 * (EXPLORE_FILE_MAX_BYTES each, EXPLORE_SOURCES_MAX_BYTES in all), else a
 * note saying why it is left out.  Lines of files left out are not in the
 * page's line tables; their counts stay in their functions'. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "explore/explore_internal.h"
#include "util/json_util.h"

typedef struct file_heat {
    int64_t id;
    double executions;
} file_heat;

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const file_heat *)a)->id, y = ((const file_heat *)b)->id;
    return (x > y) - (x < y);
}

static int by_heat(const void *a, const void *b)
{
    const file_heat *x = a, *y = b;
    if (x->executions != y->executions)
        return x->executions < y->executions ? 1 : -1;
    return by_id(a, b);
}

/* Add run's executions per file to heat[0..*n), kept sorted by id. */
static int add_run(db *d, int64_t run_id, file_heat **heat, size_t *n, char *err, size_t errlen)
{
    db_instr *ins;
    size_t nins;
    if (db_run_instructions(d, run_id, &ins, &nins, err, errlen) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nins; i++) {
        if (!ins[i].file_id)
            continue;
        file_heat key = {.id = ins[i].file_id};
        /* no array to search before the first file (bsearch's base must
         * not be NULL, even for no elements) */
        file_heat *f = *n ? bsearch(&key, *heat, *n, sizeof **heat, by_id) : NULL;
        if (!f) {
            file_heat *grown = realloc(*heat, (*n + 1) * sizeof *grown);
            if (!grown) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
                break;
            }
            *heat = grown;
            grown[(*n)++] = key;
            qsort(grown, *n, sizeof *grown, by_id);
            f = bsearch(&key, grown, *n, sizeof *grown, by_id);
        }
        f->executions += (double)ins[i].executions;
    }
    free(ins);
    return rc;
}

/* The text of path into *text (free() it) when it is a readable regular
 * file of at most `room` bytes and no NUL byte; else NULL with the reason
 * in note. */
static void read_source(const char *path, size_t room, char **text, char *note, size_t notelen)
{
    struct stat st;
    *text = NULL;
    if (stat(path, &st) != 0) {
        snprintf(note, notelen, "not embedded: %s", strerror(errno));
        return;
    }
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > EXPLORE_FILE_MAX_BYTES || (size_t)st.st_size > room) {
        snprintf(note, notelen, "not embedded: %s",
                 !S_ISREG(st.st_mode) ? "not a regular file"
                 : (uint64_t)st.st_size > EXPLORE_FILE_MAX_BYTES
                     ? "larger than 1 MiB"
                     : "the page holds 4 MiB of source at most (hotter files came first)");
        return;
    }
    FILE *f = fopen(path, "rb");
    char *buf = f ? malloc((size_t)st.st_size + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)st.st_size, f) : 0;
    if (f)
        fclose(f);
    if (!buf || got != (size_t)st.st_size || memchr(buf, 0, got)) {
        snprintf(note, notelen, "not embedded: %s",
                 !f ? strerror(errno) : !buf ? "out of memory" : got != (size_t)st.st_size ? "read error" : "binary");
        free(buf);
        return;
    }
    buf[got] = 0;
    *text = buf;
}

/* Append file `path` to the files table, with its text when it fits in
 * *room (which it then uses up). */
static int add_file(explore_names *names, const char *path, size_t *room)
{
    char *text, note[160] = "";
    read_source(path, *room, &text, note, sizeof note);
    int index = (int)json_array_size(names->files);
    json_t *o = json_pack("{s:o, s:o, s:o}", "path", json_string_lossy(path), "text", json_string_lossy(text), "note",
                          *note ? json_string(note) : json_null());
    int rc = o && json_array_append_new(names->files, o) == 0 ? 0 : -1;
    if (rc == 0 && text) {
        *room -= strlen(text);
        rc = json_object_setn_new_nocheck(names->file_index, path, strlen(path), json_integer(index));
    }
    free(text);
    return rc;
}

int explore_sources(db *d, const int64_t *runs, size_t nruns, explore_names *names, char *err, size_t errlen)
{
    file_heat *heat = NULL;
    size_t n = 0;
    int rc = 0;
    for (size_t r = 0; rc == 0 && r < nruns; r++)
        rc = add_run(d, runs[r], &heat, &n, err, errlen);
    int64_t *ids = rc == 0 ? malloc((n + 1) * sizeof *ids) : NULL;
    char **paths = rc == 0 ? calloc(n + 1, sizeof *paths) : NULL;
    if (rc == 0 && (!ids || !paths)) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    }
    if (rc == 0) {
        qsort(heat, n, sizeof *heat, by_heat);
        for (size_t i = 0; i < n; i++)
            ids[i] = heat[i].id;
        rc = db_names(d, DB_FILE_PATH, ids, n, paths, err, errlen);
    }
    size_t room = EXPLORE_SOURCES_MAX_BYTES;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (paths[i] && add_file(names, paths[i], &room) != 0) {
            snprintf(err, errlen, "out of memory");
            rc = -1;
        }
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    free(ids);
    free(heat);
    return rc;
}
