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
