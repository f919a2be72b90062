/* augur_mpi_requests.h — the client requests by which augur's MPI wrapper
 * (augur_mpi.c, preloaded into the program) tells the augur Valgrind tool
 * (src/collector/collect_comm.c) about the program's MPI calls
 * (docs/collector.md, "MPI calls").  Shared by both sides; plain C
 * constants, no library, since the tool has none.
 */
#ifndef AUGUR_MPI_REQUESTS_H
#define AUGUR_MPI_REQUESTS_H

/* Valgrind's VG_USERREQ_TOOL_BASE('A', 'G'): tool requests start at
 * ('A' << 24 | 'G' << 16), clear of Callgrind's ('C','T') and memcheck's. */
#define AUGUR_MPI_REQUEST_BASE (((unsigned long)'A' << 24) | ((unsigned long)'G' << 16))

enum {
    /* MPI_Init returned: args RANK (in MPI_COMM_WORLD), SIZE.  Returns 1
     * when the tool took it (0, the default, when no augur tool runs). */
    AUGUR_MPI_INIT = AUGUR_MPI_REQUEST_BASE + 0x100,
    /* One MPI call, made from inside the wrapper of the MPI function:
     * args FUNCTION (const char *, the MPI name), PEER (the peer's rank in
     * MPI_COMM_WORLD, or -1: a collective without a root, MPI_PROC_NULL),
     * COMM (0 MPI_COMM_WORLD, 1 MPI_COMM_SELF, 2... other communicators in
     * the order the process first used them), SENT and RECEIVED (bytes).
     * The tool adds the call stack and the interval the call closed. */
    AUGUR_MPI_CALL = AUGUR_MPI_REQUEST_BASE + 0x101
};

#endif
