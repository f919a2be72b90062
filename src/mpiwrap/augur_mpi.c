/* augur_mpi.c — augur's MPI wrapper (libaugur_mpi.so): preloaded by
 * `augur collect` into an MPI program that runs under the augur Valgrind
 * tool, it intercepts the program's MPI calls through the MPI profiling
 * interface (each MPI_X here calls the library's PMPI_X) and tells the tool,
 * by a client request (augur_mpi_requests.h), what each call moved: the
 * function, the peer's rank in MPI_COMM_WORLD, the communicator and the
 * bytes sent and received at this rank.  The tool adds the call stack and
 * the interval the call closed, and writes the profile's `mpi` and `comm`
 * lines (docs/profile-format.md, docs/collector.md "MPI calls").
 *
 * The bytes are those of this rank's buffers as the arguments give them
 * (count times the datatype's size; a receive's from its status): for a
 * collective, what this rank contributes and gets, not what the library's
 * algorithm moves between ranks (docs/user-guide.md, "MPI programs").  A
 * nonblocking receive counts the buffer it posts: its status is not known
 * until the wait.
 *
 * The only state is `comms`, the communicators other than MPI_COMM_WORLD
 * and MPI_COMM_SELF in the order the process first used them (the
 * numbers of the `comm` lines); MPI calls come from one thread at a time
 * under Valgrind, which serializes the program's threads.
 */
#include <mpi.h>
#include <valgrind/valgrind.h>

#include "mpiwrap/augur_mpi_requests.h"

#define MAX_COMMS 64

static struct {
    int n;
    MPI_Comm handle[MAX_COMMS];
} comms;

/* The number the `comm` lines give communicator c: 0 MPI_COMM_WORLD,
 * 1 MPI_COMM_SELF, 2... the others in the order first used; -1 past
 * MAX_COMMS of them. */
static long comm_number(MPI_Comm c)
{
    if (c == MPI_COMM_WORLD)
        return 0;
    if (c == MPI_COMM_SELF)
        return 1;
    for (int i = 0; i < comms.n; i++)
        if (comms.handle[i] == c)
            return i + 2;
    if (comms.n == MAX_COMMS)
        return -1;
    comms.handle[comms.n++] = c;
    return comms.n + 1;
}

/* The rank in MPI_COMM_WORLD of rank `rank` of c (of its remote group for
 * an intercommunicator), or -1 for MPI_PROC_NULL, MPI_ANY_SOURCE and a
 * rank the world does not hold. */
static long world_rank(MPI_Comm c, int rank)
{
    if (rank < 0) /* MPI_PROC_NULL, MPI_ANY_SOURCE, MPI_ROOT */
        return -1;
    if (c == MPI_COMM_WORLD)
        return rank;
    int inter = 0, out = MPI_UNDEFINED;
    MPI_Group group, world;
    PMPI_Comm_test_inter(c, &inter);
    if (inter)
        PMPI_Comm_remote_group(c, &group);
    else
        PMPI_Comm_group(c, &group);
    PMPI_Comm_group(MPI_COMM_WORLD, &world);
    PMPI_Group_translate_ranks(group, 1, &rank, world, &out);
    PMPI_Group_free(&group);
    PMPI_Group_free(&world);
    return out == MPI_UNDEFINED ? -1 : out;
}

/* Bytes of `count` elements of `type`. */
static unsigned long bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL)
        return 0;
    PMPI_Type_size(type, &size);
    return (unsigned long)count * (unsigned long)size;
}

/* Bytes a completed receive got, from its status; the posted size when
 * the status does not say. */
static unsigned long received(const MPI_Status *st, int count, MPI_Datatype type)
{
    int got = MPI_UNDEFINED;
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return 0;
    PMPI_Get_count(st, type, &got);
    return got == MPI_UNDEFINED ? bytes(count, type) : bytes(got, type);
}

/* The size of communicator c. */
static int comm_size(MPI_Comm c)
{
    int n = 0;
    PMPI_Comm_size(c, &n);
    return n;
}

/* Whether this process is root of c's collective. */
static int is_root(MPI_Comm c, int root)
{
    int me = -1;
    PMPI_Comm_rank(c, &me);
    return me == root;
}

/* Tell the tool about the call of the MPI function FN.  A macro, so that
 * the request is made in the frame of the MPI function the program called
 * and the tool's stack starts at the program's call. */
#define REPORT(fn, peer, comm, sent, recv)                                                                            \
    VALGRIND_DO_CLIENT_REQUEST_STMT(AUGUR_MPI_CALL, (fn), (long)(peer), comm_number(comm), (sent), (recv))

/* Tell the tool this process's rank and the rank count, after MPI_Init. */
static void report_init(void)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    VALGRIND_DO_CLIENT_REQUEST_STMT(AUGUR_MPI_INIT, rank, size, 0, 0, 0);
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        report_init();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        report_init();
    return rc;
}

/* The blocking and nonblocking sends: one definition each, reported alike. */
#define SEND(NAME, ...)                                                                                               \
    int NAME(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, ##__VA_ARGS__)
#define SEND_BODY(NAME, CALL)                                                                                         \
    {                                                                                                                 \
        int rc = CALL;                                                                                                \
        REPORT(#NAME, world_rank(comm, dest), comm, dest == MPI_PROC_NULL ? 0 : bytes(count, type), 0);              \
        return rc;                                                                                                    \
    }

SEND(MPI_Send) SEND_BODY(MPI_Send, PMPI_Send(buf, count, type, dest, tag, comm))
SEND(MPI_Ssend) SEND_BODY(MPI_Ssend, PMPI_Ssend(buf, count, type, dest, tag, comm))
SEND(MPI_Rsend) SEND_BODY(MPI_Rsend, PMPI_Rsend(buf, count, type, dest, tag, comm))
SEND(MPI_Bsend) SEND_BODY(MPI_Bsend, PMPI_Bsend(buf, count, type, dest, tag, comm))
SEND(MPI_Isend, MPI_Request *req) SEND_BODY(MPI_Isend, PMPI_Isend(buf, count, type, dest, tag, comm, req))
SEND(MPI_Issend, MPI_Request *req) SEND_BODY(MPI_Issend, PMPI_Issend(buf, count, type, dest, tag, comm, req))

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    REPORT("MPI_Recv", world_rank(comm, st->MPI_SOURCE), comm, 0, received(st, count, type));
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *req)
{
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    REPORT("MPI_Irecv", world_rank(comm, source), comm, 0, source == MPI_PROC_NULL ? 0 : bytes(count, type));
    return rc;
}

/* A send and a receive: one report when both go to one peer, else one
 * per peer (the call then counts once at each). */
int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf, int rcount,
                 MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
    long to = world_rank(comm, dest), from = world_rank(comm, st->MPI_SOURCE);
    unsigned long sent = dest == MPI_PROC_NULL ? 0 : bytes(scount, stype), got = received(st, rcount, rtype);
    if (to == from) {
        REPORT("MPI_Sendrecv", to, comm, sent, got);
    } else {
        REPORT("MPI_Sendrecv", to, comm, sent, 0);
        REPORT("MPI_Sendrecv", from, comm, 0, got);
    }
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    int rc = PMPI_Barrier(comm);
    REPORT("MPI_Barrier", -1, comm, 0, 0);
    return rc;
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int rc = PMPI_Bcast(buf, count, type, root, comm);
    int me = is_root(comm, root);
    REPORT("MPI_Bcast", world_rank(comm, root), comm, me ? bytes(count, type) : 0, me ? 0 : bytes(count, type));
    return rc;
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    int rc = PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm);
    REPORT("MPI_Reduce", world_rank(comm, root), comm, bytes(count, type),
           is_root(comm, root) ? bytes(count, type) : 0);
    return rc;
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    int rc = PMPI_Allreduce(sbuf, rbuf, count, type, op, comm);
    REPORT("MPI_Allreduce", -1, comm, bytes(count, type), bytes(count, type));
    return rc;
}

int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
               int root, MPI_Comm comm)
{
    int rc = PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    int me = is_root(comm, root);
    REPORT("MPI_Gather", world_rank(comm, root), comm, sbuf == MPI_IN_PLACE ? 0 : bytes(scount, stype),
           me ? bytes(rcount, rtype) * (unsigned long)comm_size(comm) : 0);
    return rc;
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                int root, MPI_Comm comm)
{
    int rc = PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm);
    int me = is_root(comm, root);
    REPORT("MPI_Scatter", world_rank(comm, root), comm, me ? bytes(scount, stype) * (unsigned long)comm_size(comm) : 0,
           rbuf == MPI_IN_PLACE ? 0 : bytes(rcount, rtype));
    return rc;
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                  MPI_Comm comm)
{
    int rc = PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    REPORT("MPI_Allgather", -1, comm, sbuf == MPI_IN_PLACE ? 0 : bytes(scount, stype),
           bytes(rcount, rtype) * (unsigned long)comm_size(comm));
    return rc;
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
                 MPI_Comm comm)
{
    int rc = PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm);
    unsigned long n = (unsigned long)comm_size(comm);
    REPORT("MPI_Alltoall", -1, comm, sbuf == MPI_IN_PLACE ? 0 : bytes(scount, stype) * n, bytes(rcount, rtype) * n);
    return rc;
}
