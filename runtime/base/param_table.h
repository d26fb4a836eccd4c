// Every GPURUN_* parameter, declared once in param_table.cc. Variables that the
// launcher sets for each rank (GPURUN_RANK, ...) are identity, not parameters:
// they are listed in kLauncherVariables.
#ifndef GPURUN_RUNTIME_BASE_PARAM_TABLE_H_
#define GPURUN_RUNTIME_BASE_PARAM_TABLE_H_

#include <span>
#include <string_view>

#include "runtime/base/params.h"

namespace gpurun::params {

extern const EnumParam kDebug;          // GPURUN_DEBUG: NONE|WARN|INFO|TRACE (LogLevel order)
extern const StringParam kDebugSubsys;  // GPURUN_DEBUG_SUBSYS
extern const DurationParam kTimeout;    // GPURUN_TIMEOUT: any blocking wait, 0 = none
extern const EnumParam kBootstrap;      // GPURUN_BOOTSTRAP: auto|pmix|singleton
extern const DurationParam kKillGrace;  // GPURUN_KILL_GRACE: launcher SIGTERM → SIGKILL
extern const StringParam kHostId;       // GPURUN_HOST_ID: this rank's host identity ("" = real host)

// Point-to-point.
extern const EnumParam kP2pTransport;          // GPURUN_P2P_TRANSPORT: auto|shm|ucx
extern const SizeParam kShmEagerLimit;         // GPURUN_SHM_EAGER_LIMIT
extern const EnumParam kShmCma;                // GPURUN_SHM_CMA: auto|on|off
extern const SizeParam kShmShareChunk;         // GPURUN_SHM_SHARE_CHUNK: shared-copy chunk, 0 = never
extern const DurationParam kProgressSpin;      // GPURUN_PROGRESS_SPIN: busy polling after the last progress
extern const DurationParam kProgressYield;     // GPURUN_PROGRESS_YIELD: then polling with sched_yield
extern const DurationParam kProgressMaxSleep;  // GPURUN_PROGRESS_MAX_SLEEP: then sleeping, up to this

// Collectives.
extern const StringParam kAlgo;    // GPURUN_ALGO: allowed algorithms per collective (coll/tuner/override.h)
extern const StringParam kProto;   // GPURUN_PROTO: allowed protocols per collective (coll/tuner/override.h)
extern const IntParam kNChannels;  // GPURUN_NCHANNELS: channels per collective, 0 = the tuner's choice
extern const EnumParam kCollNet;   // GPURUN_COLL_NET: auto|always, NET connectors across hosts or for every edge
extern const IntParam kFirstStep;  // GPURUN_FIRST_STEP: step count collective connectors start from (a test knob)

// GPU collectives (coll/gpu).
extern const IntParam kGpuNChannels;       // GPURUN_GPU_NCHANNELS: most channels (blocks) per launch, 0 = topology's
extern const SizeParam kGpuOneShotBytes;   // GPURUN_GPU_ONESHOT_BYTES: one-shot allreduce up to this size
extern const IntParam kGpuOneShotBlocks;   // GPURUN_GPU_ONESHOT_BLOCKS: most blocks of a one-shot launch
extern const IntParam kGpuNThreads;        // GPURUN_GPU_NTHREADS: threads per block
extern const SizeParam kGpuBuffSize;       // GPURUN_GPU_BUFFSIZE: Simple FIFO bytes per connection
extern const EnumParam kGpuPath;           // GPURUN_GPU_PATH: auto|ipc|host, where GPU FIFOs between two ranks live
extern const StringParam kGpuRing;         // GPURUN_GPU_RING: pci|rank|permutation, the GPU ring's order
extern const IntParam kP2pNChannels;       // GPURUN_P2P_NCHANNELS: channels of a stream-ordered GPU p2p connection
extern const SizeParam kP2pBuffSize;       // GPURUN_P2P_BUFFSIZE: FIFO bytes per channel of it
extern const IntParam kP2pSelfCopyBlocks;  // GPURUN_P2P_SELF_COPY_BLOCKS: own-block copy beside messages
extern const EnumParam kP2pDeviceCopy;     // GPURUN_P2P_DEVICE_COPY: ce|sm, how a receiver reads a peer's GPU buffer
extern const IntParam kP2pCopyBlocks;      // GPURUN_P2P_COPY_BLOCKS: thread blocks of the sm copy

enum BootstrapChoice : int64_t { kBootstrapAuto = 0, kBootstrapPmix = 1, kBootstrapSingleton = 2 };
enum P2pTransportChoice : int64_t { kP2pAuto = 0, kP2pShm = 1, kP2pUcx = 2 };
enum ShmCmaChoice : int64_t { kCmaAuto = 0, kCmaOn = 1, kCmaOff = 2 };
enum CollNetChoice : int64_t { kCollNetAuto = 0, kCollNetAlways = 1 };

// Set by gpurun for every rank; not user parameters.
inline constexpr std::string_view kLauncherVariables[] = {
    "GPURUN_RANK", "GPURUN_SIZE", "GPURUN_LOCAL_RANK", "GPURUN_LOCAL_SIZE", "GPURUN_JOB_ID",
};

// GPURUN_* variables in the environment that are neither parameters nor
// launcher variables: most likely misspelt.
std::vector<std::string> UnknownGpurunVariables();

}  // namespace gpurun::params

#endif  // GPURUN_RUNTIME_BASE_PARAM_TABLE_H_
