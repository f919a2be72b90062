/* collect_main.c — the augur Valgrind tool: registration, options, finish.
 *
 * Started by `augur collect` (src/cli/cmd_collect.c) as
 *   valgrind --tool=augur --augur-out=DIR [--augur-run=TOKEN] [--augur-block-sizes=64,4096]
 *            [--augur-progress-ms=MS] [--augur-sample-rd=T] [--augur-channel=B:INO,A:INO,R:INO] [--instr-at-start=no] [--augur-region-fn=GLOB]...
 *            [--augur-interval-fn=GLOB]... [--augur-interval-by=index|callsite] PROGRAM...
 * with VALGRIND_LIB pointing at the build's vglib/ folder.  See collect.h
 * for how the parts fit together.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vkiscnums.h"

#include "collector/collect.h"

Collector collector;

static const HChar *block_sizes_option = "64,4096";
static const HChar *set_counts_option = "none";

/* --augur-set-counts=S1,S2... (or none): set-local distances at these set
 * counts (rd_sets.h), which need the exact histograms (no sampling) and
 * 64-byte lines as the smallest block size, whose fast path and distance-1
 * check they share.  Ends the run when malformed. */
static void parse_set_counts(const HChar *text)
{
    Collector *c = &collector;
    unsigned n = 0;
    if (VG_(strcmp)(text, "none") != 0 && rd_sets_parse(text, c->set_count, &n) != 0) {
        VG_(fmsg_bad_option)("--augur-set-counts", "'%s': expected none or ascending powers of two from 1 to %u, "
                             "at most %u of them\n", text, RD_MAX_SETS, RD_MAX_SET_COUNTS);
        VG_(exit)(1);
    }
    if (n && (c->sample_threshold || c->block_size[0] != 1u << RD_SET_LINE_SHIFT)) {
        VG_(fmsg_bad_option)("--augur-set-counts", "set counts need exact histograms (no --augur-sample-rd) and "
                             "64 as the smallest block size\n");
        VG_(exit)(1);
    }
    c->nset_counts = n;
    c->nengines = c->nblock_sizes + n;
}

/* Parse "64,4096" into collector.block_size (ascending powers of two). */
static Bool parse_block_sizes(const HChar *text)
{
    Collector *c = &collector;
    HChar *copy = VG_(strdup)("augur.opt", text), *save = NULL;
    c->nblock_sizes = 0;
    for (HChar *tok = VG_(strtok_r)(copy, ",", &save); tok; tok = VG_(strtok_r)(NULL, ",", &save)) {
        HChar *end;
        Long v = VG_(strtoll10)(tok, &end);
        if (*end || v < RD_MIN_BLOCK_SIZE || v > RD_MAX_BLOCK_SIZE || (v & (v - 1)) ||
            c->nblock_sizes == MAX_BLOCK_SIZES ||
            (c->nblock_sizes && (UInt)v <= c->block_size[c->nblock_sizes - 1])) {
            VG_(free)(copy);
            return False;
        }
        c->block_size[c->nblock_sizes] = (UInt)v;
        c->block_shift[c->nblock_sizes] = (UInt)VG_(log2)((UInt)v);
        c->nblock_sizes++;
    }
    VG_(free)(copy);
    return c->nblock_sizes > 0;
}

/* Whether t is 1 to 32 lowercase hex digits: a file name's part, never a path. */
static Bool is_run_token(const HChar *t)
{
    SizeT n = VG_(strlen)(t);
    for (SizeT i = 0; i < n; i++)
        if (!((t[i] >= '0' && t[i] <= '9') || (t[i] >= 'a' && t[i] <= 'f')))
            return False;
    return n >= 1 && n <= 32;
}

/* --augur-progress-ms=MS: the run time between two progress lines, and
 * before the first (collect_progress.c). */
static void set_progress_interval(const HChar *value)
{
    HChar *end;
    Long n = VG_(strtoll10)(value, &end);
    if (*end || n < 1 || n > 3600000) {
        VG_(fmsg_bad_option)("--augur-progress-ms", "'%s': expected milliseconds from 1 to 3600000\n", value);
        VG_(exit)(1);
    }
    collector.progress_interval = (UInt)n;
}

/* --augur-sample-rd=T: sample the blocks whose hash mod RD_SAMPLE_MODULUS
 * is below T, 1 <= T < RD_SAMPLE_MODULUS (augur collect --sample-rd RATE
 * passes T = RATE * 2^24, rounded, and no option at RATE 1). */
static void set_sample_threshold(const HChar *value)
{
    HChar *end;
    Long t = VG_(strtoll10)(value, &end);
    if (*end || t < 1 || t >= RD_SAMPLE_MODULUS) {
        VG_(fmsg_bad_option)("--augur-sample-rd", "'%s': expected a threshold from 1 to %u (the rate times 2^24)\n",
                             value, RD_SAMPLE_MODULUS - 1);
        VG_(exit)(1);
    }
    collector.sample_threshold = (UInt)t;
}

/* --augur-region-fn=GLOB, --augur-interval-fn=GLOB: one more pattern. */
static void add_pattern(const HChar *option, FnPattern *pats, UInt *n, const HChar *glob)
{
    if (*n == MAX_PATTERNS || !*glob) {
        VG_(fmsg_bad_option)(option, "'%s': give a non-empty glob, at most %d of them\n", glob, MAX_PATTERNS);
        VG_(exit)(1);
    }
    pats[(*n)++] = (FnPattern){glob, 0};
}

static void set_interval_by(const HChar *value)
{
    if (VG_(strcmp)(value, "callsite") == 0)
        collector.by_callsite = True;
    else if (VG_(strcmp)(value, "index") == 0)
        collector.by_callsite = False;
    else {
        VG_(fmsg_bad_option)("--augur-interval-by", "'%s': expected index or callsite\n", value);
        VG_(exit)(1);
    }
}

static Bool process_option(const HChar *arg)
{
    Collector *c = &collector;
    const HChar *value;
    if VG_STR_CLO (arg, "--augur-out", collector.out_dir) {
    } else if VG_BOOL_CLO (arg, "--instr-at-start", c->instr_at_start) {
    } else if VG_STR_CLO (arg, "--augur-region-fn", value) {
        add_pattern("--augur-region-fn", c->region_fn, &c->nregion_fns, value);
    } else if VG_STR_CLO (arg, "--augur-interval-fn", value) {
        add_pattern("--augur-interval-fn", c->interval_fn, &c->ninterval_fns, value);
    } else if VG_STR_CLO (arg, "--augur-interval-by", value) {
        set_interval_by(value);
    } else if VG_STR_CLO (arg, "--augur-run", collector.run_token) {
    } else if VG_STR_CLO (arg, "--augur-block-sizes", block_sizes_option) {
    } else if VG_STR_CLO (arg, "--augur-set-counts", set_counts_option) {
    } else if VG_STR_CLO (arg, "--augur-progress-ms", value) {
        set_progress_interval(value);
    } else if VG_STR_CLO (arg, "--augur-sample-rd", value) {
        set_sample_threshold(value);
    } else if VG_BOOL_CLO (arg, "--augur-near-check", c->near_check_allowed) {
    } else if VG_STR_CLO (arg, "--augur-channel", value) {
        if (!collect_pipe_option(value)) {
            VG_(fmsg_bad_option)("--augur-channel", "'%s': expected BELL:INODE,ANSWERS:INODE,RING:INODE (given by augur collect)\n",
                                 value);
            VG_(exit)(1);
        }
    } else
        return False;
    return True;
}

static void print_usage(void)
{
    VG_(printf)("    --augur-out=DIR               where to write augur.<pid>.prof [required]\n"
                "    --augur-run=TOKEN             name them augur.<pid>.TOKEN.prof instead\n"
                "                                  (1 to 32 of 0-9a-f: augur collect's mark of its run)\n"
                "    --augur-block-sizes=B1,B2...  reuse-distance block sizes, ascending\n"
                "                                  powers of two >= 8 [64,4096]\n"
                "    --augur-set-counts=S1,S2...|none  set-local distances per memory instruction at\n"
                "                                  these set counts of 64-byte lines [none]\n"
                "    --augur-sample-rd=T           reuse distances of the blocks whose hash mod 2^24\n"
                "                                  is below T only, scaled by 2^24/T [every block]\n"
                "    --augur-channel=B:I,A:I,R:I   run the reuse-distance engines in augur collect's\n"
                "                                  consumer: its doorbell, answers and ring open at\n"
                "                                  descriptors B, A, R, inodes I [here]\n"
                "    --augur-progress-ms=MS        run time between two progress lines in the log [10000]\n"
                "    --instr-at-start=yes|no       count from the start, or only once the program\n"
                "                                  asks (CALLGRIND_START_INSTRUMENTATION) [yes]\n"
                "    --augur-region-fn=GLOB        count only inside calls of the functions named\n"
                "                                  (repeatable; * and ? as in a shell)\n"
                "    --augur-interval-fn=GLOB      each call of a function named ends an interval;\n"
                "                                  the calls themselves are not counted (repeatable)\n"
                "    --augur-interval-by=index|callsite  a profile per interval, or per call site\n"
                "                                  that closes intervals [index]\n");
}

static void print_debug_usage(void)
{
    VG_(printf)("    --augur-near-check=yes|no     resolve distance-1 accesses in the generated\n"
                "                                  code, where exact and inline (no: every access\n"
                "                                  but repeats to the helper; for tests) [yes]\n");
}

/* Chasing across conditional branches merges both arms into one superblock
 * with guarded code, and loop unrolling duplicates code; either would break
 * the exit-segment counting, so both stay off whatever the user passes. */
static void keep_superblocks_plain(void)
{
    VG_(clo_vex_control).iropt_unroll_thresh = 0;
    VG_(clo_vex_control).guest_chase = False;
}

/* Bad or missing options end the run here, with status 1, before the
 * program starts: Valgrind 3.19 does not stop at VG_(fmsg_bad_option)
 * called after option parsing (it would run the program and exit 0). */
static void post_clo_init(void)
{
    keep_superblocks_plain();
    if (!collector.out_dir) {
        VG_(fmsg_bad_option)("--augur-out", "augur needs --augur-out=DIR; run it through `augur collect`.\n");
        VG_(exit)(1);
    }
    if (collector.run_token && !is_run_token(collector.run_token)) {
        VG_(fmsg_bad_option)("--augur-run", "the run token must be 1 to 32 of 0-9 and a-f\n");
        VG_(exit)(1);
    }
    if (!parse_block_sizes(block_sizes_option)) {
        VG_(fmsg_bad_option)("--augur-block-sizes",
                             "block sizes must be ascending powers of two from 8 to 2^30, at most 8 of them\n");
        VG_(exit)(1);
    }
    parse_set_counts(set_counts_option);
    collect_pipe_init();
    collect_table_init();
    collect_regions_init();
    collect_runtime_init();
    collect_progress_init();
}

/* Valgrind passes fini() no exit code, so take it from exit_group(2).  A
 * process killed by a signal never gets here: its profile has no `exit`. */
static void pre_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nargs)
{
    (void)tid;
    if (syscallno == __NR_exit_group && nargs >= 1) {
        collector.exited = True;
        collector.exit_code = (Int)args[0];
    }
}

static void post_syscall(ThreadId tid, UInt syscallno, UWord *args, UInt nargs, SysRes res)
{
    (void)tid, (void)syscallno, (void)args, (void)nargs, (void)res;
}

static void fini(Int exitcode)
{
    (void)exitcode; /* always 0 in Valgrind 3.19 */
    collect_finish_profiles();
}

static void pre_clo_init(void)
{
    collector.progress_interval = 10000;
    collector.instr_at_start = True;
    collector.near_check_allowed = True;
    VG_(details_name)("augur");
    VG_(details_version)(AUGUR_TOOL_VERSION);
    VG_(details_description)("exact instruction counts and reuse-distance histograms");
    VG_(details_copyright_author)("Copyright (C) 2026, the augur developers.");
    VG_(details_bug_reports_to)("the augur issue tracker");
    VG_(details_avg_translation_sizeB)(400);
    VG_(basic_tool_funcs)(post_clo_init, collect_instrument, fini);
    VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
    VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
    VG_(needs_client_requests)(collect_client_request);
    keep_superblocks_plain();
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
