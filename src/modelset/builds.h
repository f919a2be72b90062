/* builds.h — builds of one program from the same sources, one per problem
 * size compiled in (`gcc -DN=40`, `gcc -DN=60`), as many benchmark suites
 * fix their sizes: how two builds are compared (their compilation units:
 * source files and compiler flags) and how the code of one is matched to
 * another's by source location (scopes, then instructions), so that one
 * model set spans them (docs/models.md, "Builds of one source").
 *
 *   build_match.c     the comparison and the matching: pure logic on
 *                     units, scope arrays and static instructions
 *   modelset_builds.c the database side for `augur model`: the builds of
 *                     the training runs, their structures, the refusals
 *
 * The reference build is the one every other is matched to; a model set
 * across builds is stored in its addresses and scope ids. */
#ifndef AUGUR_BUILDS_H
#define AUGUR_BUILDS_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "structure/structure.h"

/* ---- comparing builds --------------------------------------------------------- */

/* Into out[len]: the flags of a DW_AT_producer by which builds of one
 * source differ only if they are different builds: the producer without
 * the options that define or undefine macros (-D, -U: the size compiled in)
 * or name outputs (-o, -MF, -MT, -MQ, -MD, -MMD, -MP), with or without a
 * space before their argument, and with single spaces.  GCC records none of
 * these; clang's -grecord-command-line records them all. */
void build_producer_flags(const char *producer, char *out, size_t len);

enum build_verdict {
    BUILD_SAME,          /* the same source files, compiled with the same flags (-D/-U aside) */
    BUILD_OTHER_FLAGS,   /* the same source files, compiled with other flags */
    BUILD_OTHER_SOURCES, /* other source files */
    BUILD_NO_DEBUG       /* a build has no compilation units: built without -g */
};

/* How build a differs from build b. */
typedef struct build_difference {
    enum build_verdict verdict;
    /* OTHER_SOURCES: the source files only a has and only b has; OTHER_FLAGS:
     * the flags (build_producer_flags' words) only a's and only b's unit of
     * `file` has; "none" when one side has nothing the other lacks. */
    char a[512], b[512];
    char file[512]; /* OTHER_FLAGS: the source file compiled differently */
    int a_empty;    /* NO_DEBUG: 1 when a has no units, 0 when b */
} build_difference;

/* Compare the compilation units of two builds: their source files as
 * multisets, then each file's flags (build_producer_flags). */
void build_compare_units(const st_unit *a, size_t na, const st_unit *b, size_t nb, build_difference *out);

/* ---- matching scopes ---------------------------------------------------------- */

/* Match the scope tree of build b to that of the reference r (both as
 * db_get_scopes gives them: id = index, parents before children, scope 0
 * the module).  The modules match; below a matched pair, children match
 * children:
 *   - functions by name and file, inlined subroutines by name and call
 *     site (file, line); scopes with equal keys pair in address order when
 *     both builds have as many of them;
 *   - loops of the same file whose line ranges overlap, when each overlaps
 *     no other sibling of the other build, and which fold the same number
 *     of loops (a loop unrolled, versioned or split differently does not
 *     match: its header line can move, its lines cannot).
 * Scopes under an unmatched scope are unmatched.  b_of_r[s] (nr entries)
 * gets the scope of b matched to scope s of r, -1 when none; r_of_b (nb
 * entries) the reverse.  -1 when memory runs out. */
int build_match_scopes(const db_scope *r, size_t nr, const db_scope *b, size_t nb, int64_t *b_of_r,
                       int64_t *r_of_b);

/* A scope for messages, into buf: "loop at sized.c:42 in main",
 * "inlined scale in main", "function multiply". */
void build_scope_label(const db_scope *scopes, size_t n, int64_t s, char *buf, size_t len);

/* ---- matching instructions ------------------------------------------------------ */

/* One matched instruction of a build: its address, and the address and
 * length of the reference's instruction it stands for. */
typedef struct build_insn_map {
    uint64_t addr, to;
    uint32_t len;
} build_insn_map;

/* Match the instructions of every build to the reference's (build 0).
 * Build k has insns[k][0..ninsns[k]) (db_static_instructions) and, except
 * the reference, ref_of[k]: per scope of build k the reference's scope
 * matched to it (-1 none); modeled[s] is 1 for the scopes s of the
 * reference matched in every build (nref entries).  An instruction's key is
 * its scope (the reference's, when modeled), line, instruction class and
 * whether it loads and stores; a key whose instructions are as many in
 * every build pairs them in address order.  Into map[k] (a new array,
 * ascending addr; free() each, also after failure) the matched
 * instructions of build k, nmap[k] of them.  -1 when memory runs out. */
int build_match_insns(size_t nbuilds, const db_static_insn *const *insns, const size_t *ninsns,
                      const int64_t *const *ref_of, const unsigned char *modeled, size_t nref,
                      build_insn_map **map, size_t *nmap);

/* The entry of map[0..n) (ascending addr) for addr, or NULL. */
const build_insn_map *build_insn_find(const build_insn_map *map, size_t n, uint64_t addr);

#endif
