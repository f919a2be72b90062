/* memspy_main.c — the memspy Valgrind tool: registration, options, finish.
 *
 * Started by `augur memspy` (src/cli) as
 *   valgrind --tool=memspy --out-dir=DIR --level=L1,32K,64,8,1 ... PROGRAM...
 * with VALGRIND_LIB pointing at the build's vglib/ folder.  See memspy.h for
 * how the parts fit together and docs/memspy.md for the options.
 */
#include "pub_tool_aspacemgr.h"
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_replacemalloc.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "memspy/memspy.h"

Memspy memspy;

#define MAX_BUFFER (64 * 1024 * 1024) /* keeps memspy_buffer.c's merge keys in 64 bits */
#define DEFAULT_BUFFER (2 * 1024 * 1024) /* several scheduling quanta: docs/memspy.md, "Threads" */

/* A decimal count with an optional K, M or G suffix (powers of 1024), or
 * -1 if `text` is not one. */
static Long parse_size(const HChar *text)
{
    HChar *end;
    Long v = VG_(strtoll10)(text, &end);
    if (end == text || v < 0)
        return -1;
    Long unit = 1;
    if (*end == 'K' || *end == 'k')
        unit = 1024, end++;
    else if (*end == 'M' || *end == 'm')
        unit = 1024 * 1024, end++;
    else if (*end == 'G' || *end == 'g')
        unit = 1024 * 1024 * 1024, end++;
    if (*end || v > (1LL << 40))
        return -1;
    return v * unit;
}

/* Split "a,b,c" into at most `max` fields (the copy is modified in place);
 * returns how many there were, or -1 if more than `max`. */
static Int split_fields(HChar *copy, HChar **field, Int max)
{
    Int n = 0;
    HChar *save = NULL;
    for (HChar *tok = VG_(strtok_r)(copy, ",", &save); tok; tok = VG_(strtok_r)(NULL, ",", &save)) {
        if (n == max)
            return -1;
        field[n++] = tok;
    }
    return n;
}

/* --level=NAME,SIZE,LINE,WAYS,SHARED: append the next level, or exit with a
 * message naming what is wrong. */
static void add_level(const HChar *value)
{
    static const HChar usage[] = "expected NAME,SIZE,LINE,WAYS,SHARED such as L1,32K,64,8,1 "
                                 "(SHARED: 1 for a private level, the number of cores sharing it otherwise)\n";
    ms_config *c = &memspy.config;
    if (c->nlevels == MAX_LEVELS)
        VG_(fmsg_bad_option)("--level", "at most %u levels; drop the farthest\n", MAX_LEVELS);
    HChar *copy = VG_(strdup)("memspy.opt", value), *f[5];
    if (split_fields(copy, f, 5) != 5)
        VG_(fmsg_bad_option)("--level", "'%s': %s", value, usage);
    Long size = parse_size(f[1]), line = parse_size(f[2]), ways = parse_size(f[3]),
         shared = parse_size(f[4]);
    if (size <= 0 || line <= 0 || ways <= 0 || shared <= 0 || line > 0x7fffffff ||
        ways > 0x7fffffff || shared > 0x7fffffff)
        VG_(fmsg_bad_option)("--level", "'%s': SIZE, LINE, WAYS and SHARED must be positive "
                             "numbers; %s", value, usage);
    memspy.level_name[c->nlevels] = VG_(strdup)("memspy.opt", f[0]);
    c->level[c->nlevels] = (ms_level_config){(uint64_t)size, (uint32_t)line, (uint32_t)ways,
                                             (uint32_t)shared};
    c->nlevels++;
    VG_(free)(copy);
}

/* --sample-time=ON,OFF: both positive reference counts. */
static void set_time_sampling(const HChar *value)
{
    HChar *copy = VG_(strdup)("memspy.opt", value), *f[2];
    Long on = -1, off = -1;
    if (split_fields(copy, f, 2) == 2)
        on = parse_size(f[0]), off = parse_size(f[1]);
    if (on <= 0 || off <= 0)
        VG_(fmsg_bad_option)("--sample-time", "'%s': expected ON,OFF, two positive numbers of "
                             "references, such as 500000,4500000 (10%%)\n", value);
    memspy.sample_on = (ULong)on;
    memspy.sample_off = (ULong)off;
    VG_(free)(copy);
}

/* The value of option `option`, a power of two N from 1 to 2^30 (what N
 * means in `meaning`, for the message that refuses anything else). */
static uint32_t power_of_two(const HChar *option, const HChar *value, const HChar *meaning)
{
    Long n = parse_size(value);
    if (n <= 0 || (n & (n - 1)) || n > 0x7fffffff)
        VG_(fmsg_bad_option)(option, "'%s': expected a power of two N >= 1 (%s)\n", value, meaning);
    return (uint32_t)n;
}

static void set_set_sampling(const HChar *value)
{
    memspy.config.set_sample = power_of_two("--sample-sets", value, "one set in N simulated");
}

/* --shadow-sample=N: feed 1 line in N (by hash) to the shadows. */
static void set_shadow_sampling(const HChar *value)
{
    memspy.config.shadow_sample = power_of_two("--shadow-sample", value, "1: exact causes");
}

/* --buffer=N: entries per thread buffer while several threads run. */
static void set_buffer(const HChar *value)
{
    Long n = parse_size(value);
    if (n <= 0 || n > MAX_BUFFER)
        VG_(fmsg_bad_option)("--buffer", "'%s': expected a number of references from 1 to %d "
                             "(64M), such as 2M\n", value, MAX_BUFFER);
    memspy.buf_entries = (SizeT)n;
}

/* --sb-reserve=N (a debugging option): references per reservation of
 * buffer room in a superblock, so that tests can make a superblock
 * reserve in pieces (memspy_instrument.c). */
static void set_sb_reserve(const HChar *value)
{
    Long n = parse_size(value);
    if (n <= 0 || n > MEMSPY_SB_REFS)
        VG_(fmsg_bad_option)("--sb-reserve", "'%s': expected a number of references from 1 to %d\n", value,
                             MEMSPY_SB_REFS);
    memspy.sb_reserve = (UInt)n;
}

/* --progress-ms=MS (a debugging option): the run time between two
 * progress lines, and before the first (memspy_progress.c). */
static void set_progress_interval(const HChar *value)
{
    HChar *end;
    Long n = VG_(strtoll10)(value, &end);
    if (end == value || *end || n <= 0 || n > 0x7fffffff)
        VG_(fmsg_bad_option)("--progress-ms", "'%s': expected milliseconds from 1 to %d\n", value,
                             0x7fffffff);
    memspy.progress_interval = (UInt)n;
}

static Bool process_option(const HChar *arg)
{
    const HChar *value;
    if VG_STR_CLO (arg, "--out-dir", memspy.out_dir) {
    } else if VG_STR_CLO (arg, "--level", value) {
        add_level(value);
    } else if VG_STR_CLO (arg, "--sample-time", value) {
        set_time_sampling(value);
    } else if VG_STR_CLO (arg, "--sample-sets", value) {
        set_set_sampling(value);
    } else if VG_STR_CLO (arg, "--shadow-sample", value) {
        set_shadow_sampling(value);
    } else if VG_BOOL_CLO (arg, "--instr-at-start", memspy.instr_at_start) {
    } else if VG_BOOL_CLO (arg, "--interleave", memspy.interleave) {
    } else if VG_STR_CLO (arg, "--buffer", value) {
        set_buffer(value);
    } else if VG_STR_CLO (arg, "--sb-reserve", value) {
        set_sb_reserve(value);
    } else if VG_STR_CLO (arg, "--progress-ms", value) {
        set_progress_interval(value);
    } else if VG_STR_CLO (arg, "--augur-channel", value) {
        if (!memspy_pipe_option(value))
            VG_(fmsg_bad_option)("--augur-channel", "'%s': expected BELL:INODE,ANSWERS:INODE,RING:INODE (given by "
                                 "augur memspy)\n", value);
    } else if VG_BOOL_CLO (arg, "--simulate", memspy.simulate) {
    } else
        return VG_(replacement_malloc_process_cmd_line_option)(arg);
    return True;
}

static void print_usage(void)
{
    VG_(printf)(
        "    --out-dir=DIR                     where to write memspy.<pid>.out [required]\n"
        "    --level=NAME,SIZE,LINE,WAYS,SHARED  a cache level, nearest the core first,\n"
        "                                      1 to 4 of them [required]; SIZE may end\n"
        "                                      in K, M or G; SHARED 1 = private per thread\n"
        "    --sample-time=ON,OFF              simulate ON references, skip OFF, repeat\n"
        "    --sample-sets=N                   simulate one cache set in N [1]\n"
        "    --shadow-sample=N                 split capacity/conflict on 1 line in N [1]\n"
        "    --instr-at-start=yes|no           simulate from the start, or only once the\n"
        "                                      program asks (CALLGRIND_START_INSTRUMENTATION\n"
        "                                      or CACHEGRIND_START_INSTRUMENTATION) [yes]\n"
        "    --interleave=yes|no               merge the threads' buffered references\n"
        "                                      evenly when simulating them [yes]\n"
        "    --buffer=N                        references buffered per thread while\n"
        "                                      several threads run [2M]; one\n"
        "                                      thread alone buffers min(N, 1K)\n"
        "    --augur-channel=B:I,A:I,R:I       simulate in augur memspy's consumer\n"
        "                                      process, fed through the channel augur\n"
        "                                      opened at these descriptors [none: here]\n");
}

static void print_debug_usage(void)
{
    VG_(printf)("    --sb-reserve=N                    reserve buffer room for at most N references\n"
                "                                      at a time in a superblock [4096]\n"
                "    --simulate=no                     buffer every reference the options ask\n"
                "                                      for, simulate none, write no file: the\n"
                "                                      instrumentation's own cost (benchmarks;\n"
                "                                      Cachegrind's --cache-sim=no) [yes]\n"
                "    --progress-ms=MS                  run time between two progress lines\n"
                "                                      in the log, and before the first [10000]\n");
}

/* Are the options complete?  If not, say what is missing and return False.
 * (Valgrind 3.19 does not stop at VG_(fmsg_bad_option) called after option
 * parsing: it would run the program and exit 0; post_clo_init exits.) */
static Bool options_complete(void)
{
    if (!memspy.out_dir) {
        VG_(fmsg_bad_option)("--out-dir", "memspy needs --out-dir=DIR; run it through "
                             "`augur memspy`.\n");
        return False;
    }
    if (memspy.config.nlevels == 0) {
        VG_(fmsg_bad_option)("--level", "memspy needs at least one --level=NAME,SIZE,LINE,"
                             "WAYS,SHARED, such as --level=L1,32K,64,8,1\n");
        return False;
    }
    return True;
}

/* Options that are missing or that the simulator refuses end the run here,
 * with status 1, before the program starts: nothing runs, nothing is
 * written. */
static void post_clo_init(void)
{
    if (!options_complete() || !memspy_access_init())
        VG_(exit)(1);
    memspy_pipe_init();
    memspy_pairs_init();
    memspy_threads_init();
    memspy_progress_init();
    memspy_regions_init();
}

/* Does futex(2) operation `op` wake a waiter? */
static Bool futex_wakes(UWord op)
{
    switch (op & ~(UWord)(VKI_FUTEX_PRIVATE_FLAG | VKI_FUTEX_CLOCK_REALTIME)) {
    case VKI_FUTEX_WAKE:
    case VKI_FUTEX_REQUEUE:
    case VKI_FUTEX_CMP_REQUEUE:
    case VKI_FUTEX_WAKE_OP:
    case VKI_FUTEX_UNLOCK_PI:
    case VKI_FUTEX_WAKE_BITSET:
    case VKI_FUTEX_CMP_REQUEUE_PI:
        return True;
    default:
        return False;
    }
}

/* Copy the client's NUL-terminated string at `a` into buf (cut to `size`
 * - 1 bytes); False if its first byte is not readable.  Each page is
 * checked before it is read, so a bad pointer cannot fault the tool. */
static Bool copy_client_string(Addr a, HChar *buf, SizeT size)
{
    SizeT i = 0;
    for (; i + 1 < size; i++) {
        if ((i == 0 || (a + i) % VKI_PAGE_SIZE == 0) &&
            !VG_(am_is_valid_for_client)(a + i, 1, VKI_PROT_READ))
            break;
        if ((buf[i] = ((const HChar *)a)[i]) == 0)
            return True;
    }
    buf[i] = 0;
    return i > 0;
}

/* Can `path` be exec'd at all: an executable regular file?  Only a guess
 * (Valgrind's own checks come after this hook), used to skip writing the
 * file for the execve calls a PATH search makes that fail with ENOENT. */
static Bool maybe_executable(const HChar *path)
{
    struct vg_stat st;
    SysRes r = VG_(stat)(path, &st);
    return !sr_isError(r) && VKI_S_ISREG(st.mode) && (st.mode & 0111);
}

/* Before execve(path, ...) or execveat(dirfd, path, ...): the results so
 * far are written, since the new program runs natively (--trace-children=no)
 * and fini() never comes.  A path relative to a directory fd, or given by
 * the fd alone (fexecve), is recorded as given and not pre-checked. */
static void before_exec(UInt syscallno, UWord *args, UInt nargs)
{
    HChar path[VKI_PATH_MAX];
    Bool at = syscallno == __NR_execveat;
    if (nargs < (at ? 2u : 1u))
        return;
    Bool named = copy_client_string(args[at ? 1 : 0], path, sizeof path) && path[0];
    if (!named && !at)
        return; /* the execve fails (EFAULT, ENOENT); the program goes on */
    if (!named)
        VG_(snprintf)(path, sizeof path, "(file descriptor %ld)", (long)args[0]);
    Bool relative_to_fd = at && path[0] != '/' && (Int)args[0] != VKI_AT_FDCWD;
    if (!named || relative_to_fd || maybe_executable(path))
        memspy_write_before_exec(path);
}

/* Valgrind passes fini() no exit code, so take it from exit_group(2).  A
 * process killed by a signal never gets here: its file has no `exit`.
 * A futex(2) wake is where a thread releases others (a contended unlock, a
 * barrier's last arrival, a condition signal): the references made before
 * it are simulated before any made after (docs/memspy.md, "Threads").  A
 * wait is not: the waiter made its references before, and flushing there
 * would end windows of threads still running with others not yet run.
 * An exec writes the file (before_exec). */
static void pre_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nargs)
{
    (void)tid;
    if (syscallno == __NR_futex && nargs >= 2 && futex_wakes(args[1]))
        memspy_flush();
    if (syscallno == __NR_execve || syscallno == __NR_execveat)
        before_exec(syscallno, args, nargs);
    if (syscallno == __NR_exit_group && nargs >= 1) {
        memspy.exited = True;
        memspy.exit_code = (Int)args[0];
    }
}

static void post_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nargs, SysRes res)
{
    (void)tid, (void)syscallno, (void)args, (void)nargs, (void)res;
}

static void fini(Int exitcode)
{
    (void)exitcode; /* always 0 in Valgrind 3.19 */
    memspy_flush();
    if (!memspy.simulate) {
        if (memspy.config.set_sample > 1) /* the shadows' lines are buffered too */
            VG_(umsg)("memspy: --simulate=no: %llu references buffered (%llu in the sampled sets), none "
                      "simulated; no file written\n", memspy.unsimulated, memspy.unsimulated_in_sets);
        else
            VG_(umsg)("memspy: --simulate=no: %llu references buffered, none simulated; no file "
                      "written\n", memspy.unsimulated);
        return;
    }
    memspy_write_output();
}

static void pre_clo_init(void)
{
    VG_(details_name)("memspy");
    VG_(details_version)(MEMSPY_VERSION);
    VG_(details_description)("misses by code and data object, and why (augur)");
    VG_(details_copyright_author)("Copyright (C) 2026, the augur developers.");
    VG_(details_bug_reports_to)("the augur issue tracker");
    VG_(details_avg_translation_sizeB)(400);
    VG_(basic_tool_funcs)(post_clo_init, memspy_instrument, fini);
    VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(needs_client_requests)(memspy_client_request);
    memspy.config.set_sample = 1;
    memspy.config.shadow_sample = 1;
    memspy.interleave = True;
    memspy.instr_at_start = True;
    memspy.simulate = True;
    memspy.buf_entries = DEFAULT_BUFFER;
    memspy.sb_reserve = MEMSPY_SB_REFS;
    memspy.progress_interval = 10000;
    memspy_objects_init(); /* the malloc replacement must be known before options */
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
