/* atrandom.c — prints the 16 AT_RANDOM bytes the program started with, in
 * hexadecimal, and whether the 3 bytes after the NUL of the last
 * environment string are the first of them (where ld.so's strcspn reads
 * past LD_PRELOAD under Valgrind): test_memspy_analysis checks that augur's
 * tools give every run the same bytes (src/vgcommon/vg_random.h). */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

extern char **environ;

int main(void)
{
    const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);
    if (!r)
        return 1;
    for (int i = 0; i < 16; i++)
        printf("%02x", r[i]);
    const char *last = NULL;
    for (char **e = environ; *e; e++)
        last = *e;
    printf(" %s\n", last && (const unsigned char *)last + strlen(last) + 1 == r ? "adjacent" : "apart");
    return 0;
}
