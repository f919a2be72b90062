/* collect_mpi.h — `augur collect` of an MPI program (docs/user-guide.md,
 * "MPI programs"): what it takes from Open MPI's launcher, the wrapper it
 * preloads, and the checks before and after the run.
 */
#ifndef AUGUR_COLLECT_MPI_H
#define AUGUR_COLLECT_MPI_H

#include <limits.h>
#include <stddef.h>

#include "cli/runs.h"

typedef struct collect_mpi {
    int launched;           /* started by Open MPI's mpirun (OMPI_COMM_WORLD_SIZE) */
    long rank, size;        /* OMPI_COMM_WORLD_RANK and _SIZE */
    char launch[1024];      /* the launch's name: "openmpi:JOBID@HNP-URI" ("" when not launched) */
    char preload[PATH_MAX]; /* the wrapper to preload into the program, "" for none */
} collect_mpi;

/* Before the run: refuse an MPI launcher as the program (it goes
 * outside augur), read the launcher's environment, refuse an MPI augur
 * does not know (another launcher's variables, or a program linked with
 * another MPI library than the wrapper's), choose the wrapper to preload
 * (for a program run by mpirun or linked with MPI), and add the parameter
 * P (the rank count) to params when launched: it must equal the rank count
 * when given.  0, or an exit status (2 or 125) with the message in err. */
int collect_mpi_prepare(collect_mpi *m, const char *program, const char *tool_dir, run_params *params, char *err,
                        size_t errlen);

/* After the run: a launched program must have called MPI_Init (its rank's
 * profile has an `mpi` line) with the launcher's rank and size; a program
 * that called it without a launcher (a singleton) gets P=1 unless given.
 * 0, or -1 with the message in err (then nothing is stored). */
int collect_mpi_check(const collect_mpi *m, const process_set *s, run_params *params, const char *program, char *err,
                      size_t errlen);

#endif
