// The declaration of every GPURUN_* parameter. Keep each description a single
// sentence saying what the parameter does and its unit; --print-params shows it.
#include "runtime/base/param_table.h"

#include <algorithm>

#include "runtime/base/env.h"
#include "runtime/base/log.h"

namespace gpurun::params {

const EnumParam kDebug("GPURUN_DEBUG", "WARN", {"NONE", "WARN", "INFO", "TRACE"},
                       "Log level: NONE, WARN (warnings and errors), INFO, TRACE.");

const StringParam kDebugSubsys(
    "GPURUN_DEBUG_SUBSYS", "ALL",
    "Subsystems logged at INFO/TRACE, comma-separated (INIT,BOOTSTRAP,TOPO,P2P,NET,COLL,TUNING,ENV,LAUNCH "
    "or ALL); a leading ^ excludes the listed ones.",
    [](std::string_view text) { return ParseSubsysMask(text).status(); });

const DurationParam kTimeout("GPURUN_TIMEOUT", "600",
                             "Longest any blocking wait (fence, receive, barrier) may take before it fails "
                             "naming what it waited for; 0 waits forever.");

const EnumParam kBootstrap("GPURUN_BOOTSTRAP", "auto", {"auto", "pmix", "singleton"},
                           "How ranks find each other: pmix (gpurun or srun --mpi=pmix), singleton (one rank, "
                           "no launcher), auto (pmix when a PMIx server is reachable, else singleton).");

const DurationParam kKillGrace("GPURUN_KILL_GRACE", "1",
                               "gpurun: time between SIGTERM and SIGKILL when it tears a job down.");

const StringParam kHostId("GPURUN_HOST_ID", "",
                          "Host identity of this rank (empty: the launcher's or the real host name); ranks with "
                          "different identities use the inter-node wire, so one machine can act as several nodes.");

const EnumParam kP2pTransport("GPURUN_P2P_TRANSPORT", "auto", {"auto", "shm", "ucx"},
                              "Point-to-point wire: auto (shared memory within a node, UCX across nodes), shm "
                              "(every peer must be on this node), ucx (UCX for every peer, also on one node).");

const SizeParam kShmEagerLimit("GPURUN_SHM_EAGER_LIMIT", "16K", 0, int64_t{1} << 30,
                               "Shared-memory wire: messages up to this size are copied through eager cells; larger "
                               "ones use the rendezvous path.");

const EnumParam kShmCma("GPURUN_SHM_CMA", "auto", {"auto", "on", "off"},
                        "Shared-memory rendezvous: single copy with process_vm_readv (on: required, off: never, "
                        "auto: when the kernel permits it), else pipelined through shared bounce buffers.");

const SizeParam kShmShareChunk("GPURUN_SHM_SHARE_CHUNK", "128K", 0, int64_t{1} << 30,
                               "Shared-memory rendezvous with process_vm_readv: a payload of at least two such "
                               "chunks is copied by the receiver and the waiting sender together, a chunk at a time "
                               "(the sender with process_vm_writev); 0: the receiver copies alone. The receiver's "
                               "setting decides.");

const DurationParam kProgressSpin("GPURUN_PROGRESS_SPIN", "50us",
                                  "Time a blocking call polls without pause after its last progress, before it "
                                  "yields or sleeps between polls; longer by the time copying it takes when it "
                                  "waits for a large message, at most 10us when this host runs more ranks than "
                                  "cores.");

const DurationParam kProgressYield("GPURUN_PROGRESS_YIELD", "0",
                                   "Time a blocking call then polls with a yield of the core (sched_yield) between "
                                   "polls before it sleeps between them; 0 (the default) sleeps at once, which "
                                   "measured better both for oversubscribed jobs and on a loaded machine.");

const DurationParam kProgressMaxSleep("GPURUN_PROGRESS_MAX_SLEEP", "200us",
                                      "Longest sleep between progress polls once a blocking call sleeps (sleeps "
                                      "start at 1us and double, with a 1us timer slack); a longer wait may sleep up "
                                      "to 1/8 of the time waited, at most 10x this.");

const StringParam kAlgo("GPURUN_ALGO", "",
                        "Algorithms collectives may use, in NCCL_ALGO's grammar: \"ring,tree\" only these, \"^tree\" "
                        "all but tree, \"allreduce:ring;broadcast:^tree\" per collective; empty: no restriction, and a "
                        "call the allowed ones cannot serve fails. Checked at grInit and by gpurun "
                        "(coll/tuner/override.h owns the grammar).");

const StringParam kProto("GPURUN_PROTO", "",
                         "Protocols (ll, ll128, simple) collectives may use, in NCCL_PROTO's grammar as for "
                         "GPURUN_ALGO: \"^ll128\", \"simple;allreduce:ll\"; empty: no restriction.");

const IntParam kNChannels("GPURUN_NCHANNELS", 0, 0, 128,
                          "Channels every collective uses (0: the tuner chooses per call); the host path runs at most "
                          "16, the GPU ring at most its GPURUN_GPU_NCHANNELS, and a collective fails naming this "
                          "variable when it is set higher (the GPU one-shot allreduce sizes its own grid).");

const IntParam kFirstStep(
    "GPURUN_FIRST_STEP", 0, 0, int64_t{1} << 48,
    "Step count every collective connector (host FIFOs, NET FIFOs, the GPU ring and tree) "
    "starts from, instead of 0: a test knob, so that a few calls cross LL's flag clean-up "
    "(every 2^31 steps) and its 32-bit flag's wrap (2^32), which real runs reach after hours. "
    "Set it alike on every rank; the LL FIFOs start holding, in each slot, the flag a missing clean-up "
    "would leave to match (coll/ll_start.h).");

const EnumParam kCollNet("GPURUN_COLL_NET", "auto", {"auto", "always"},
                         "Wire of host-buffer collectives between ring / tree neighbours: auto (NET connectors, "
                         "UCX moved by a proxy thread, to ranks on other hosts; shared memory within a host), always "
                         "(NET connectors for every neighbour, as if each rank had a host of its own: tests the NET "
                         "path on one machine; no ll128; the point-to-point message algorithms, oneshot allgather / "
                         "broadcast and twoshot allreduce, which have no neighbours, only when forced).");

const IntParam kGpuNChannels("GPURUN_GPU_NCHANNELS", 0, 0, 128,
                             "Most channels (one thread block each) a GPU collective launches, alike on every rank; "
                             "0: from the topology (topo/ring_hints.h GpuRingChannels: NVLinks of the ring's "
                             "narrowest hop, host-memory path, ranks per GPU). Calls below 64 KiB per channel use "
                             "fewer.");

const SizeParam kGpuOneShotBytes("GPURUN_GPU_ONESHOT_BYTES", "4M", 0, int64_t{16} << 20,
                                 "Allreduce calls on device buffers up to this size may run one-shot (every rank "
                                 "pushes its input to every peer in LL lines and reduces all of them) or two-shot "
                                 "(each rank reduces one part and pushes it to all) on 2..8 ranks of one host, as the "
                                 "tuner chooses; also the size of each rank's scratch slots for both (2 x ranks x "
                                 "twice this). 0: never one-shot or two-shot.");

const IntParam kGpuOneShotBlocks(
    "GPURUN_GPU_ONESHOT_BLOCKS", 128, 1, 1024,
    "Most thread blocks (of 512 threads) of a one-shot or two-shot allreduce launch; smaller calls "
    "use one per 4 KiB (coll/gpu/gpu_coll.h says why 128).");

const IntParam kGpuNThreads("GPURUN_GPU_NTHREADS", 256, 64, 512,
                            "Threads per block of the GPU collective kernels (a multiple of 32; the kernels are "
                            "compiled for at most 512 so the hot loop keeps its values in registers; "
                            "coll/gpu/gpu_coll.h says why 256 with 128 channels).");

const EnumParam kP2pDeviceCopy("GPURUN_P2P_DEVICE_COPY", "ce", {"ce", "sm"},
                               "How a point-to-point receive reads the sender's GPU buffer (CUDA IPC): ce, the copy "
                               "engines (no SM taken); sm, a copy kernel of GPURUN_P2P_COPY_BLOCKS blocks on the "
                               "receiving GPU (16-byte aligned buffers into device memory; others use ce).");

const IntParam kP2pCopyBlocks("GPURUN_P2P_COPY_BLOCKS", 32, 1, 1024,
                              "Thread blocks (512 threads each) of the sm copy of GPURUN_P2P_DEVICE_COPY.");

const SizeParam kGpuBuffSize("GPURUN_GPU_BUFFSIZE", "4M", 64 * 1024, int64_t{1} << 30,
                             "Simple-protocol FIFO bytes per GPU connection (8 steps; NCCL_BUFFSIZE's default). "
                             "Each rank holds one FIFO per channel in its GPU memory.");

const EnumParam kGpuPath("GPURUN_GPU_PATH", "auto", {"auto", "ipc", "host"},
                         "Where the GPU path's FIFOs between two ranks of a host live: auto (the receiver's GPU "
                         "memory through CUDA IPC when the GPUs have peer access or are one GPU, else host shared "
                         "memory), ipc (CUDA IPC only: a pair without peer access is an error), host (host shared "
                         "memory for every pair).");

const StringParam kGpuRing("GPURUN_GPU_RING", "pci",
                           "Order of the ranks on the GPU ring: pci (by the PCI bus id of each rank's GPU, so "
                           "ranks sharing a GPU and GPUs on one switch are neighbours), rank (rank order), or a "
                           "comma-separated permutation of 0..N-1 for communicators of N ranks.");

const IntParam kP2pNChannels("GPURUN_P2P_NCHANNELS", 64, 1, 64,
                             "Channels (one thread block each way) of a stream-ordered GPU send/receive connection "
                             "between two ranks; every message crosses all of them.");

const SizeParam kP2pBuffSize("GPURUN_P2P_BUFFSIZE", "2M", 32 * 1024, int64_t{1} << 28,
                             "FIFO bytes per channel of a stream-ordered GPU send/receive connection (8 steps, a "
                             "multiple of 32 KiB); each rank holds channels x this per peer it has used.");

const IntParam kP2pSelfCopyBlocks("GPURUN_P2P_SELF_COPY_BLOCKS", 32, 0, 1024,
                                  "How a stream-ordered alltoall(v), gather(v) or scatter(v) copies the rank's own "
                                  "block of 1 MiB or more beside its messages (smaller ones are copied on the stream "
                                  "first): N, an SM copy kernel of N blocks (16-byte aligned buffers, else the copy "
                                  "engines); 0, the copy engines. coll/gpu/stream_p2p.h says why 32.");

std::vector<std::string> UnknownGpurunVariables() {
  std::vector<std::string> unknown;
  for (const std::string& name : EnvNamesWithPrefix("GPURUN_")) {
    const bool launcher_var =
        std::find(std::begin(kLauncherVariables), std::end(kLauncherVariables), name) != std::end(kLauncherVariables);
    if (!launcher_var && ParamRegistry::Global().Find(name) == nullptr) unknown.push_back(name);
  }
  return unknown;
}

}  // namespace gpurun::params
