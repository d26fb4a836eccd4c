/*
 * gpurun.h — the public C API of gpurun, an MPI-style message-passing runtime
 * with GPU collectives built in.
 *
 * Contract common to every function:
 *  - Every function returns a grResult_t. On anything but grSuccess the output
 *    arguments are left untouched, and grGetLastErrorMessage() returns a
 *    detailed message for the calling thread.
 *  - grInit must be called once per process before any other call except
 *    grGetVersion, grGetErrorString and grGetLastErrorMessage; grFinalize once
 *    at the end. Both are called from one thread; the other calls are safe from
 *    any thread unless a function says otherwise.
 *  - Handles (grComm_t) are owned by the runtime. grCommWorld() is valid from
 *    grInit to grFinalize and is never freed by the user.
 */
#ifndef GPURUN_GPURUN_H_
#define GPURUN_GPURUN_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GR_VERSION_MAJOR 0
#define GR_VERSION_MINOR 1
#define GR_VERSION_PATCH 0
/** Version as one integer: major * 10000 + minor * 100 + patch. */
#define GR_VERSION_CODE (GR_VERSION_MAJOR * 10000 + GR_VERSION_MINOR * 100 + GR_VERSION_PATCH)

/** Result codes. grSuccess is 0; every other value is an error. */
typedef enum {
  grSuccess = 0,
  grInvalidArgument = 1, /**< an argument is out of range, null or inconsistent */
  grInvalidUsage = 2,    /**< the call is not allowed now (e.g. before grInit) */
  grTruncated = 3,       /**< a receive buffer was too small; nothing was overwritten */
  grRemoteError = 4,     /**< a peer failed, aborted or died */
  grTimeout = 5,         /**< an operation exceeded GPURUN_TIMEOUT */
  grSystemError = 6,     /**< an operating-system, PMIx, CUDA or UCX call failed */
  grInternalError = 7,   /**< a bug in gpurun */
  grUnsupported = 8,     /**< the request is valid but not supported here */
  grNumResults = 9
} grResult_t;

/** Opaque communicator handle. */
typedef struct grComm* grComm_t;
#define GR_COMM_NULL ((grComm_t)0)

/** Opaque handle of a nonblocking operation. */
typedef struct grRequest* grRequest_t;
#define GR_REQUEST_NULL ((grRequest_t)0)

/**
 * A CUDA stream (the same type as cudaStream_t, declared without CUDA
 * headers). GR_STREAM_HOST (null) gives MPI semantics for host buffers: the
 * call completes as MPI's would. A real stream makes a call stream-ordered
 * (NCCL-like); that needs device buffers and the GPU data path.
 */
typedef struct CUstream_st* grStream_t;
#define GR_STREAM_HOST ((grStream_t)0)

/** Element types; the numbering matches ncclDataType_t. */
typedef enum {
  grInt8 = 0,
  grUint8 = 1,
  grInt32 = 2,
  grUint32 = 3,
  grInt64 = 4,
  grUint64 = 5,
  grFloat16 = 6,
  grFloat32 = 7,
  grFloat64 = 8,
  grBfloat16 = 9,
  grNumDataTypes = 10
} grDataType_t;
/** Untyped bytes. */
#define grByte grUint8

/** Reduction operations; the numbering matches ncclRedOp_t. grAvg is the sum
 * divided by the number of ranks, computed after the sum in the element type
 * (integer division truncates toward zero), so integer-valued inputs give one
 * exact answer whatever the order of the additions. */
typedef enum { grSum = 0, grProd = 1, grMax = 2, grMin = 3, grAvg = 4, grNumOps = 5 } grRedOp_t;

/** Wildcards for receives and probes. */
#define GR_ANY_SOURCE (-1)
#define GR_ANY_TAG (-1)
/** The color of grCommSplit that joins no new communicator. */
#define GR_UNDEFINED (-32766)
/** Largest tag a message may carry (MPI_TAG_UB). */
#define GR_TAG_UB ((1 << 28) - 1)

/** What a completed receive (or probe) found. */
typedef struct {
  int source;       /**< sender's rank in the communicator */
  int tag;          /**< the message's tag */
  grResult_t error; /**< grSuccess, grTruncated, grRemoteError, ... */
  size_t bytes;     /**< bytes received (for a probe: bytes in the message) */
  size_t count;     /**< bytes / size of the receive's datatype (probe: of grByte) */
} grStatus_t;
/** Pass where a status is not wanted. */
#define GR_STATUS_IGNORE ((grStatus_t*)0)
#define GR_STATUSES_IGNORE ((grStatus_t*)0)

/** Maximum length of a host name in grPeerInfo_t, terminating NUL included. */
#define GR_MAX_HOST_NAME 256

/** What the bootstrap learned about one rank of a communicator at grInit. */
typedef struct {
  int rank;                    /**< rank in the communicator */
  int local_rank;              /**< rank among the ranks of the same node */
  int local_size;              /**< number of ranks on that node */
  int node_id;                 /**< dense node index, 0..number of nodes - 1 */
  int pid;                     /**< process id on its host */
  char host[GR_MAX_HOST_NAME]; /**< host name (or the virtual host identity) */
} grPeerInfo_t;

/**
 * Starts the runtime: reads and validates every GPURUN_* parameter, picks the
 * bootstrap (PMIx when started by gpurun or srun --mpi=pmix, singleton
 * otherwise) and exchanges every rank's endpoint information. Collective over
 * the job. argc/argv may be null; they are not modified today.
 * A bad parameter value fails with grInvalidArgument naming the variable.
 */
grResult_t grInit(int* argc, char*** argv);

/** Ends the runtime; collective over the job (a barrier, then teardown). */
grResult_t grFinalize(void);

/** Whether grInit has completed and grFinalize has not. */
grResult_t grInitialized(int* flag);

/**
 * Aborts every rank of the job: the launcher kills the job and exits with
 * `code` (1 if code is 0 or out of 1..255). Does not return when it succeeds.
 */
grResult_t grAbort(grComm_t comm, int code);

/** The communicator of all ranks of the job; null before grInit. */
grComm_t grCommWorld(void);

/** This process's rank in comm. */
grResult_t grCommRank(grComm_t comm, int* rank);

/** Number of ranks in comm. */
grResult_t grCommSize(grComm_t comm, int* size);

/** What the bootstrap learned about `rank` of comm (host, pid, node, local rank). */
grResult_t grCommPeerInfo(grComm_t comm, int rank, grPeerInfo_t* info);

/** Size in bytes of one element of `type`. */
grResult_t grTypeSize(grDataType_t type, size_t* size);

/**
 * Splits `comm` by color (GR_UNDEFINED: this rank joins none and gets
 * GR_COMM_NULL); ranks in a new communicator are ordered by key, then by rank
 * in `comm`. Collective over `comm`. Each new communicator has its own
 * matching context: its messages never match another communicator's.
 */
grResult_t grCommSplit(grComm_t comm, int color, int key, grComm_t* newcomm);

/** A copy of `comm` with the same ranks and its own matching context. Collective. */
grResult_t grCommDup(grComm_t comm, grComm_t* newcomm);

/**
 * Frees a communicator made by grCommSplit or grCommDup and sets *comm to
 * GR_COMM_NULL. Operations still pending on it are an error (grInvalidUsage).
 */
grResult_t grCommFree(grComm_t* comm);

/*
 * Point-to-point (MPI semantics). Counts are in elements of `type`. Messages
 * between one pair of ranks on one communicator with one tag arrive in the
 * order they were sent (MPI's non-overtaking rule). A receive buffer too small
 * for the message completes with grTruncated and writes nothing past its end.
 * A receive from a rank that died or aborted completes with grRemoteError
 * naming that rank; every blocking call fails with grTimeout after
 * GPURUN_TIMEOUT, naming what it waited for.
 *
 * Buffers may be host memory or GPU memory (cudaMalloc) on either side, in
 * any mix; GPU memory moves between ranks of one host through CUDA IPC, read
 * by the receiver with the copy engines (no kernel of the application's is
 * needed on either side), and the send completes once the receiver has it.
 * GPU memory that CUDA IPC cannot export (cudaMallocManaged, cudaMallocAsync
 * pools, cuMemCreate) and GPU buffers for a rank on another host are
 * grUnsupported.
 *
 * Streams. `stream` must be GR_STREAM_HOST for host buffers. With GPU buffers
 * and a real stream, grSend, grRecv, grSendrecv, grIsend and grIrecv are
 * stream-ordered, as NCCL's ncclSend/ncclRecv: the call returns at once
 * (grIsend/grIrecv set *request to GR_REQUEST_NULL), the message moves when
 * the stream gets there — a kernel copies it through FIFOs the pair of ranks
 * set up in their first stream-ordered call with each other, so any GPU
 * memory works, cudaMallocAsync pools included — and work queued after the
 * call sees it done. Stream-ordered messages from one rank to another form
 * their own channel: they are received, in the order sent, by stream-ordered
 * receives only, which name their source (GR_ANY_SOURCE is grUnsupported);
 * the tag must match or be GR_ANY_TAG. A receive's status (keep it alive
 * until the stream gets there) is filled in stream order; a message larger
 * than the receive's room gives grTruncated there (nothing is written past
 * the room), one with another tag grInvalidUsage (the message is dropped).
 * A receive without a status reports these, and a wait of the kernels
 * that failed (GPURUN_TIMEOUT: a peer that died, or never made the matching
 * stream-ordered call), through the communicator's next
 * stream-ordered call, which then does nothing else. A communicator's
 * stream-ordered calls run in the order made, also across streams, so a
 * send and then a receive between the same two ranks on both sides waits (as
 * MPI's blocking sends may): grSendrecv moves both at once. A send to the
 * calling rank itself needs grSendrecv.
 */

/** Blocking send: returns when `buf` may be reused. */
grResult_t grSend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                  grStream_t stream);

/** Blocking receive; `source` may be GR_ANY_SOURCE, `tag` GR_ANY_TAG. */
grResult_t grRecv(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm, grStatus_t* status,
                  grStream_t stream);

/** Nonblocking send; complete it with grWait/grTest (then `buf` may be reused). */
grResult_t grIsend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                   grStream_t stream, grRequest_t* request);

/**
 * Synchronous-mode nonblocking send (MPI_Issend): as grIsend, but the request
 * completes only once a receive on `dest` has matched the message (and `buf`
 * may be reused). GR_STREAM_HOST only (a real stream is grUnsupported). Over
 * every wire (shm, ucx) and to the calling rank. A GPU send buffer completes
 * when the receiver has pulled it, as grIsend's.
 */
grResult_t grIssend(const void* buf, size_t count, grDataType_t type, int dest, int tag, grComm_t comm,
                    grStream_t stream, grRequest_t* request);

/** Nonblocking receive; complete it with grWait/grTest (then `buf` holds the message). */
grResult_t grIrecv(void* buf, size_t count, grDataType_t type, int source, int tag, grComm_t comm, grStream_t stream,
                   grRequest_t* request);

/**
 * Waits for *request, fills *status (may be GR_STATUS_IGNORE), frees the
 * request and sets *request to GR_REQUEST_NULL. A null request returns at once
 * with an empty status. Returns the operation's error (also in status->error).
 */
grResult_t grWait(grRequest_t* request, grStatus_t* status);

/** Waits for all; statuses may be GR_STATUSES_IGNORE. Returns the first error. */
grResult_t grWaitall(int count, grRequest_t* requests, grStatus_t* statuses);

/** Waits for one; *index is its position (-1 if every request is null). */
grResult_t grWaitany(int count, grRequest_t* requests, int* index, grStatus_t* status);

/** *flag = 1 and as grWait if *request is complete; else *flag = 0. Never blocks. */
grResult_t grTest(grRequest_t* request, int* flag, grStatus_t* status);

/**
 * Cancels a receive that no message has matched yet (MPI_Cancel): it is
 * withdrawn, freed, *request becomes GR_REQUEST_NULL and *cancelled = 1.
 * Otherwise — a receive that has matched a message, a completed one, or a
 * send — *cancelled = 0 and the request is left as it was, to be completed by
 * grWait/grTest. Never blocks. A request that is not live is grInvalidArgument.
 */
grResult_t grCancel(grRequest_t* request, int* cancelled);

/** Blocks until a matching message can be received; fills *status without receiving it. */
grResult_t grProbe(int source, int tag, grComm_t comm, grStatus_t* status);

/** As grProbe without blocking: *flag = 1 if a matching message is there. */
grResult_t grIprobe(int source, int tag, grComm_t comm, int* flag, grStatus_t* status);

/** Sends and receives at once (deadlock-free for exchanges). */
grResult_t grSendrecv(const void* sendbuf, size_t sendcount, grDataType_t sendtype, int dest, int sendtag,
                      void* recvbuf, size_t recvcount, grDataType_t recvtype, int source, int recvtag, grComm_t comm,
                      grStatus_t* status, grStream_t stream);

/** Number of whole `type` elements in a completed receive's status. */
grResult_t grGetCount(const grStatus_t* status, grDataType_t type, size_t* count);

/*
 * Collectives. Every rank of `comm` makes the same calls in the same order
 * with matching counts, types, ops and roots (a mismatch that gpurun can see
 * is grInvalidUsage naming the ranks; others are undefined, as in MPI).
 * Counts are in elements of `type`, displacements in elements from the start
 * of the buffer. `stream` must be GR_STREAM_HOST for host buffers: the call
 * completes on return, with MPI semantics. In-place follows NCCL: an
 * operation is in place when the send buffer is exactly where this rank's
 * input lies inside the receive buffer (stated per call); any other overlap
 * of the send and receive buffers is grInvalidArgument. A count of 0 and a
 * communicator of one rank are valid. On a peer's failure or GPURUN_TIMEOUT a
 * collective returns grRemoteError / grTimeout naming the peer it waited on;
 * the receive buffer's contents are then undefined.
 * GPURUN_ALGO / GPURUN_PROTO restrict the algorithm and protocol; a
 * restriction that leaves nothing for a call is grInvalidUsage.
 *
 * GPU buffers (a call's buffers all on one GPU): allreduce, allgather,
 * reduce_scatter, broadcast/bcast and reduce run as CUDA kernels over CUDA
 * IPC between the ranks of one host; with a real stream the call is only
 * enqueued (NCCL's semantics), with GR_STREAM_HOST it completes on return.
 * alltoall(v), allgatherv, gather(v) and scatter(v) run over point-to-point
 * messages: with GR_STREAM_HOST host and GPU buffers may mix and the call
 * completes on return; with a real stream the buffers must all be on one GPU
 * and the call is stream-ordered like grSendrecv (one send/receive kernel
 * per step, over pair connections of their own, so they never take the
 * program's stream-ordered messages); a block larger than the receiver's is
 * reported as grTruncated by the communicator's next stream-ordered call of
 * these collectives.
 */

/**
 * GR_STREAM_HOST: returns once every rank of comm has entered it. A real
 * stream: stream-ordered on the current CUDA device (a one-element GPU
 * allreduce): returns at once, and work queued after it on the stream starts
 * once every rank's stream has reached it.
 */
grResult_t grBarrier(grComm_t comm, grStream_t stream);

/** MPI_Bcast: root's `buf` to every rank's `buf`. */
grResult_t grBcast(void* buf, size_t count, grDataType_t type, int root, grComm_t comm, grStream_t stream);

/** ncclBroadcast: root's `sendbuf` to every rank's `recvbuf` (only the root
 * reads sendbuf; in place when sendbuf == recvbuf at the root). */
grResult_t grBroadcast(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root, grComm_t comm,
                       grStream_t stream);

/** The reduction of every rank's `sendbuf` into root's `recvbuf` (recvbuf is
 * not used on other ranks and may be null there). In place: sendbuf == recvbuf. */
grResult_t grReduce(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grRedOp_t op, int root,
                    grComm_t comm, grStream_t stream);

/** The reduction of every rank's `sendbuf` into every rank's `recvbuf`. In
 * place: sendbuf == recvbuf. */
grResult_t grAllreduce(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grRedOp_t op, grComm_t comm,
                       grStream_t stream);

/** Rank r's `sendcount` elements land at recvbuf + r * sendcount on every
 * rank. In place: sendbuf == recvbuf + rank * sendcount. */
grResult_t grAllgather(const void* sendbuf, void* recvbuf, size_t sendcount, grDataType_t type, grComm_t comm,
                       grStream_t stream);

/** Rank r's `recvcounts[r]` elements (its sendcount) land at recvbuf +
 * displs[r] on every rank. In place: sendbuf == recvbuf + displs[rank]. */
grResult_t grAllgatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                        const size_t* displs, grDataType_t type, grComm_t comm, grStream_t stream);

/** The reduction of every rank's sendbuf (size * recvcount elements); rank r
 * gets block r in recvbuf. In place: recvbuf == sendbuf + rank * recvcount. */
grResult_t grReduceScatter(const void* sendbuf, void* recvbuf, size_t recvcount, grDataType_t type, grRedOp_t op,
                           grComm_t comm, grStream_t stream);

/** Block j (count elements) of rank i's sendbuf lands as block i of rank j's
 * recvbuf. In place (MPI_IN_PLACE): sendbuf == recvbuf. */
grResult_t grAlltoall(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, grComm_t comm,
                      grStream_t stream);

/** As grAlltoall with per-peer counts and displacements; sendcounts[j] on rank
 * i must equal recvcounts[i] on rank j. In place: sendbuf == recvbuf (the
 * send counts and displacements are then ignored, as MPI_IN_PLACE does). */
grResult_t grAlltoallv(const void* sendbuf, const size_t* sendcounts, const size_t* sdispls, void* recvbuf,
                       const size_t* recvcounts, const size_t* rdispls, grDataType_t type, grComm_t comm,
                       grStream_t stream);

/** Rank r's `count` elements land at root's recvbuf + r * count (recvbuf
 * unused elsewhere). In place at the root: sendbuf == recvbuf + root * count. */
grResult_t grGather(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root, grComm_t comm,
                    grStream_t stream);

/** Rank r's `sendcount` (== root's recvcounts[r]) elements land at root's
 * recvbuf + displs[r]. In place at the root: sendbuf == recvbuf + displs[root]. */
grResult_t grGatherv(const void* sendbuf, size_t sendcount, void* recvbuf, const size_t* recvcounts,
                     const size_t* displs, grDataType_t type, int root, grComm_t comm, grStream_t stream);

/** Block r (count elements) of root's sendbuf lands in rank r's recvbuf
 * (sendbuf unused elsewhere). In place at the root: recvbuf == sendbuf + root * count. */
grResult_t grScatter(const void* sendbuf, void* recvbuf, size_t count, grDataType_t type, int root, grComm_t comm,
                     grStream_t stream);

/** Root's sendcounts[r] elements at sendbuf + displs[r] land in rank r's
 * recvbuf (recvcount == sendcounts[r]). In place at the root: recvbuf ==
 * sendbuf + displs[root]. */
grResult_t grScatterv(const void* sendbuf, const size_t* sendcounts, const size_t* displs, void* recvbuf,
                      size_t recvcount, grDataType_t type, int root, grComm_t comm, grStream_t stream);

/**
 * Groups (NCCL's ncclGroupStart / ncclGroupEnd). Between grGroupStart and
 * the matching grGroupEnd (they nest; the outermost pair counts), the calling
 * thread's grSend, grRecv, grSendrecv and ring/tree collectives (grBarrier,
 * grBcast, grBroadcast, grReduce, grAllreduce, grAllgather,
 * grReduceScatter) only check their communicator and are recorded; the
 * outermost grGroupEnd runs them: first the collectives, in the order
 * called; then the host (GR_STREAM_HOST) sends and receives, all started at
 * once and completed together; then the stream-ordered ones, per
 * communicator and stream in one kernel, so they progress together whatever
 * order each rank listed them in (at most 64 with other ranks per
 * communicator and stream). Their arguments are checked then, and the first
 * error stops the group and is grGroupEnd's. Buffers and statuses must stay
 * valid until grGroupEnd returns (a stream-ordered receive's status until
 * its stream gets past it). Other calls that start operations (grIsend,
 * grIrecv, the point-to-point collectives) are InvalidUsage inside a group,
 * and the group then runs nothing: its grGroupEnd says why.
 */
grResult_t grGroupStart(void);
grResult_t grGroupEnd(void);

/** The library's version as GR_VERSION_CODE encodes it. */
grResult_t grGetVersion(int* version);

/** A static, human-readable name for a result code ("invalid argument"). */
const char* grGetErrorString(grResult_t result);

/**
 * The detailed message of the last error returned to the calling thread, or ""
 * if there was none. Valid until the thread's next gpurun call.
 */
const char* grGetLastErrorMessage(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPURUN_GPURUN_H_ */
