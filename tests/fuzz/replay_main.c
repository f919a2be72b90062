/* replay_main.c — the main of a fuzz harness built without libFuzzer (any
 * compiler; fuzz_input.h): every file named, and every regular file in
 * every folder named, is passed once to the harness's fuzz_one.
 *
 * usage: fuzz_NAME [--seeds] INPUT...
 * A crash or abort is the failure; so is finding no input at all, which
 * would test nothing.  After --seeds the inputs are a committed corpus:
 * each, but those named regression-* (inputs that once crashed,
 * docs/testing.md), must be accepted by the reader, or the seeds no longer
 * reach past its first checks, and be of the format's current version
 * (fuzz_seed_start), or they lack the lines the writer added since. */
#include "fuzz_input.h"

#include <dirent.h>
#include <sys/stat.h>

/* Replay the file at path; 1 when the reader accepted it, 0 when it
 * refused it, -1 with a message when the file cannot be read.  *current:
 * whether the file begins as a seed of the format's current version does
 * (fuzz_seed_start). */
static int replay_file(const char *path, int *current)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        uint8_t *grown = n == cap ? realloc(buf, cap *= 2) : buf;
        if (!grown)
            free(buf);
        buf = grown;
    }
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        fprintf(stderr, "%s: cannot read it\n", path);
        free(buf);
        return -1;
    }
    size_t start = strlen(fuzz_seed_start);
    *current = n >= start && !memcmp(buf, fuzz_seed_start, start);
    int accepted = fuzz_one(buf, n);
    fprintf(stderr, "replay: %s (%zu bytes): %s\n", path, n, accepted ? "accepted" : "refused");
    free(buf);
    return accepted;
}

/* Replay the file at path, as a seed when `seeds` (see above); 0, or -1
 * with a message. */
static int replay_input(const char *path, const char *name, int seeds)
{
    int current;
    int accepted = replay_file(path, &current);
    if (accepted < 0)
        return -1;
    if (!seeds || strncmp(name, "regression-", 11) == 0)
        return 0;
    if (!accepted || !current) {
        fprintf(stderr, "%s: %s: make the seeds again (tests/fuzz/make_seeds.sh)\n", path,
                !accepted ? "a seed the reader refuses (above): the format changed"
                          : "a seed of an older version of the format, without what the writer adds now");
        return -1;
    }
    return 0;
}

/* Replay path, a file or a folder's regular files; the number replayed,
 * or -1 with a message. */
static long replay(const char *path, int seeds)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        const char *slash = strrchr(path, '/');
        return replay_input(path, slash ? slash + 1 : path, seeds) == 0 ? 1 : -1;
    }
    struct dirent **names;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        perror(path);
        return -1;
    }
    long count = 0;
    for (int i = 0; i < n; i++) {
        char file[4096];
        const char *name = names[i]->d_name;
        snprintf(file, sizeof file, "%s/%s", path, name);
        if (count >= 0 && name[0] != '.' && stat(file, &st) == 0 && S_ISREG(st.st_mode))
            count = replay_input(file, name, seeds) == 0 ? count + 1 : -1;
        free(names[i]);
    }
    free(names);
    return count;
}

int main(int argc, char **argv)
{
    int seeds = argc > 1 && !strcmp(argv[1], "--seeds");
    long total = 0;
    for (int i = 1 + seeds; i < argc; i++) {
        long n = replay(argv[i], seeds);
        if (n < 0)
            return 1;
        total += n;
    }
    if (total == 0) {
        fprintf(stderr, "usage: %s [--seeds] INPUT...: no inputs to replay: give files or folders of a corpus\n",
                argv[0]);
        return 1;
    }
    fprintf(stderr, "%s: %ld inputs replayed, none crashed\n", argv[0], total);
    return 0;
}
