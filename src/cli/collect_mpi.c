/* collect_mpi.c — `augur collect` of an MPI program; see collect_mpi.h.
 *
 * How the ranks of one launch find their run: Open MPI's mpirun (4.x) gives
 * every process it starts OMPI_COMM_WORLD_RANK and OMPI_COMM_WORLD_SIZE, the
 * job's id OMPI_MCA_ess_base_jobid, and mpirun's own contact address
 * OMPI_MCA_orte_hnp_uri ("JOBFAMILY.0;tcp://HOST:PORT...").  The id alone
 * repeats between launches (it is drawn from mpirun's pid); with the
 * address, which holds the port mpirun listens on while the job runs, it
 * names one launch.  Other launchers (MPICH's and Intel MPI's Hydra:
 * PMI_RANK; MVAPICH2: MV2_COMM_WORLD_RANK) are refused by name.
 */
#define _GNU_SOURCE
#include "cli/collect_mpi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/shared_libs.h"

#define WRAPPER "libaugur_mpi.so"

/* A whole number from the environment variable `name`; -1 when unset or
 * not one. */
static long env_number(const char *name)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return -1;
    errno = 0;
    long n = strtol(v, &end, 10);
    return *end || errno || n < 0 ? -1 : n;
}

/* The variable of another MPI's launcher that is set, or NULL. */
static const char *foreign_launcher(void)
{
    static const char *const vars[] = {"PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MV2_COMM_WORLD_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        if (getenv(vars[i]))
            return vars[i];
    return NULL;
}

/* The MPI library among a program's shared objects: the last path
 * component of the first libmpi.so.*, libmpich* or libmvapich*, into
 * name ("" when none).  Open MPI's Fortran and C++ bindings
 * (libmpi_mpifh, libmpi_cxx, ...) are not the library itself.  A program
 * the loader cannot list (static, a script) links none: not an error
 * here, Valgrind says what it cannot run. */
static void mpi_library(const char *program, char *name, size_t len)
{
    char **paths;
    size_t n;
    name[0] = '\0';
    char ignored[512];
    if (list_shared_objects(program, &paths, &n, ignored, sizeof ignored) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        const char *slash = strrchr(paths[i], '/'), *base = slash ? slash + 1 : paths[i];
        if (!name[0] && (!strncmp(base, "libmpi.so", 9) || !strncmp(base, "libmpich", 8) ||
                         !strncmp(base, "libmvapich", 10)))
            snprintf(name, len, "%s", base);
        free(paths[i]);
    }
    free(paths);
}

/* The launcher's variables into m; 0, or 2 with the message. */
static int read_launcher(collect_mpi *m, char *err, size_t errlen)
{
    const char *foreign = foreign_launcher();
    m->size = env_number("OMPI_COMM_WORLD_SIZE");
    m->rank = env_number("OMPI_COMM_WORLD_RANK");
    if (foreign && m->size < 0) {
        snprintf(err, errlen, "%s is set: the program was started by an MPI launcher augur does not know (MPICH's "
                 "or Intel MPI's Hydra, MVAPICH2). augur knows Open MPI's: mpirun -np P augur collect ... -- "
                 "PROGRAM, with the program built by Open MPI's mpicc (docs/user-guide.md, \"MPI programs\")",
                 foreign);
        return EXIT_AUGUR_FAILED;
    }
    if (m->size < 0)
        return 0;
    const char *job = getenv("OMPI_MCA_ess_base_jobid"), *hnp = getenv("OMPI_MCA_orte_hnp_uri");
    if (m->rank < 0 || m->rank >= m->size || m->size == 0 || !job || !hnp) {
        snprintf(err, errlen, "OMPI_COMM_WORLD_SIZE is set but OMPI_COMM_WORLD_RANK, OMPI_MCA_ess_base_jobid or "
                 "OMPI_MCA_orte_hnp_uri is missing or wrong: augur knows Open MPI 4's mpirun, which sets them all "
                 "(docs/user-guide.md, \"MPI programs\")");
        return EXIT_AUGUR_FAILED;
    }
    m->launched = 1;
    snprintf(m->launch, sizeof m->launch, "openmpi:%s@%s", job, hnp);
    return 0;
}

/* P=size in params: added, or checked when given. */
static int rank_count_param(const collect_mpi *m, run_params *params, char *err, size_t errlen)
{
    for (int i = 0; i < params->n; i++)
        if (!strcmp(params->names[i], "P")) {
            if (strtod(params->values[i], NULL) == (double)m->size)
                return 0;
            snprintf(err, errlen, "--param P=%s, but mpirun started %ld ranks: P is the rank count (leave it out "
                     "and augur sets it, or name your parameter otherwise)", params->values[i], m->size);
            return 2;
        }
    char arg[32];
    snprintf(arg, sizeof arg, "P=%ld", m->size);
    return run_params_add(params, arg, err, errlen) == 0 ? 0 : 2;
}

/* Whether `program` is an MPI launcher (by its name). */
static int is_launcher(const char *program)
{
    static const char *const names[] = {"mpirun", "mpiexec", "orterun", "oshrun", "mpiexec.hydra", "srun"};
    const char *slash = strrchr(program, '/'), *base = slash ? slash + 1 : program;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(base, names[i]))
            return 1;
    return 0;
}

int collect_mpi_prepare(collect_mpi *m, const char *program, const char *tool_dir, run_params *params, char *err,
                        size_t errlen)
{
    memset(m, 0, sizeof *m);
    if (is_launcher(program)) {
        snprintf(err, errlen, "%s is an MPI launcher: put it outside, mpirun -np P augur collect [OPTIONS] -- "
                 "PROGRAM ARGS. Under augur the launcher and its daemons would be measured as the program's "
                 "processes, and the ranks would neither get augur's MPI wrapper nor be told apart "
                 "(docs/user-guide.md, \"MPI programs\")", program);
        return 2;
    }
    int rc = read_launcher(m, err, errlen);
    char lib[256], wrapper[PATH_MAX], want[256] = "";
    if (rc != 0)
        return rc;
    mpi_library(program, lib, sizeof lib);
    if (!m->launched && !lib[0])
        return 0; /* not an MPI program: nothing preloaded, nothing changes */
    snprintf(wrapper, sizeof wrapper, "%s/%s", tool_dir, WRAPPER);
    if (access(wrapper, R_OK) != 0) {
        snprintf(err, errlen, "%s %s, but augur was built without its MPI wrapper (%s): install libopenmpi-dev "
                 "(scripts/setup.sh) and build augur again", program,
                 m->launched ? "runs under mpirun" : "is linked with MPI", wrapper);
        return EXIT_AUGUR_FAILED;
    }
    mpi_library(wrapper, want, sizeof want);
    if (lib[0] && strcmp(lib, want) != 0) {
        snprintf(err, errlen, "%s is linked with %s, an MPI augur does not know: its MPI wrapper is built for Open "
                 "MPI's %s. Build the program with Open MPI's mpicc (docs/user-guide.md, \"MPI programs\")",
                 program, lib, want);
        return EXIT_AUGUR_FAILED;
    }
    snprintf(m->preload, sizeof m->preload, "%s", wrapper);
    return m->launched ? rank_count_param(m, params, err, errlen) : 0;
}

/* The profile of the process that called MPI_Init, or NULL. */
static const profile *rank_profile(const process_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->procs[i]->mpi.has_mpi)
            return s->procs[i];
    return NULL;
}

int collect_mpi_check(const collect_mpi *m, const process_set *s, run_params *params, const char *program, char *err,
                      size_t errlen)
{
    const profile *p = rank_profile(s);
    if (m->launched && !p) {
        snprintf(err, errlen, "%s ran under mpirun (rank %ld of %ld) but never returned from MPI_Init: it is not an "
                 "MPI program, it links MPI statically, or it ended before MPI_Init (augur sees MPI_Init through "
                 "Open MPI's shared libmpi; docs/user-guide.md, \"MPI programs\")", program, m->rank, m->size);
        return -1;
    }
    if (m->launched && (p->mpi.rank != (uint64_t)m->rank || p->mpi.size != (uint64_t)m->size)) {
        snprintf(err, errlen, "%s's MPI_Init gave rank %llu of %llu, but mpirun set OMPI_COMM_WORLD_RANK=%ld and "
                 "OMPI_COMM_WORLD_SIZE=%ld: the program is not in mpirun's job", program,
                 (unsigned long long)p->mpi.rank, (unsigned long long)p->mpi.size, m->rank, m->size);
        return -1;
    }
    if (!m->launched && p) {
        collect_mpi single = {.size = (long)p->mpi.size};
        return rank_count_param(&single, params, err, errlen) == 0 ? 0 : -1;
    }
    return 0;
}
