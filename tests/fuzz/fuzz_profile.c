/* fuzz_profile.c — fuzz harness of the raw profile reader
 * (src/profile/profile_reader.c, docs/profile-format.md): any bytes are
 * read as a profile, as they are and with their end line made right
 * (fuzz_input.h).  The reader must refuse what it cannot read with a
 * message, never crash, leak or read out of bounds; what it accepts it
 * frees cleanly.  Seeds: tests/fuzz/corpus/profile/ (docs/testing.md). */
#include "fuzz_input.h"

#include "profile/profile.h"

const char fuzz_seed_start[] = "augur-profile " FUZZ_STR(PROFILE_VERSION) "\n";

/* Read the profile at path; 1 when it was accepted, 0 when refused, which
 * must say why. */
static int read_profile(const char *path)
{
    profile p;
    char err[1024] = "";
    if (profile_read(path, &p, err, sizeof err) == 0) {
        profile_free(&p);
        return 1;
    }
    if (!err[0])
        abort();
    return 0;
}

int fuzz_one(const uint8_t *data, size_t size)
{
    return fuzz_both_framings(data, size, read_profile);
}
