// The host shared-memory path's tuning constants, and where each comes from.
// All measured on the development machine (a 2-vCPU AMD EPYC VM, Debian 12,
// shared with other builds, so every figure is a minimum over repeats) on
// 2026-11-30:
//
//   B  bench/tune/sweep.sh -B build-h2 -n 2 -r 5 COLL -b 8 -e 16M -f 4 -n 40 -w 5
//      for COLL = allreduce (twice: 10 runs), allgather, bcast,
//      reducescatter, reduce, then bench/tune/fit_sweep.py -n 2 over the five
//      tables; 02:51-02:55 UTC, load 3-4: gpurun-bench
//      (out-of-place time, per-iteration average of back-to-back calls, as
//      nccl-tests) with each (GPURUN_ALGO, GPURUN_PROTO) forced, 2 ranks, the
//      host executor of coll/host at that time, float sum. Fits: side
//      bandwidth = sides * bytes / (t(8 MiB) - t(2 MiB)) (sides: host_model.h;
//      1 for every function but allreduce with 2 ranks, 2 for allreduce);
//      latencies by least squares over 32 and 128 B (ring) and 128 and 512 B
//      (tree), bandwidth part removed, t = base + work + hops * hop (+ one
//      more work for the second tree); residuals <= 0.12 us.
//   B1 the same for allreduce at 03:03-03:07 UTC (load 2-5), with oneshot,
//      which the executor gained after B: at 32-128 B oneshot (1 hop) is
//      0.22-0.29 us against the ring's (2 hops) 0.26-0.41, about one hop less
//      as the model has it (same base and hop as the ring).
//   P  build-h2/bin/gpurun-tune-probe --repeats 9 (bench/tune/shm_probe.cc),
//      02:16 UTC, load ~1, and --repeats 7 at 02:58 UTC, load ~1.5: one
//      isolated shared-memory hop between two processes through the real wire
//      formats (half a ping-pong): at 8 B LL 0.290 / 0.311, LL128 0.456 /
//      0.502, Simple 0.319 / 0.326 us; raw cross-core store 0.277 / 0.306 us.
//      Its two-way exchange (both ranks send and receive at once) takes about
//      twice a one-way hop's time per byte (per side: LL 1.11 against 1.00,
//      LL128 2.31 / 1.82, Simple 17.6 / 21.3 GB/s), which is host_model.h's
//      count of sides. The back-to-back calls of B hide most of a hop; P
//      ranks the protocols where B cannot tell them apart.
//   C  bench/tune/sweep.sh -n 2 -r 3 COLL -b 8 -e 16M -f 4 for the five
//      functions, 03:48 UTC, load 0.8 (the machine otherwise idle), after the
//      plan cache and vectorised reductions: used for oneshot/Simple below.
//   F  2026-12-01 22:40 UTC, 2 ranks --bind-to core, best of 5 alternating
//      rounds with Open MPI: GPURUN_ALGO=ring|oneshot GPURUN_PROTO=simple
//      gpurun-bench allgather -b 8K -e 128K -n 300 -w 20: 32 KiB (16 KiB
//      blocks, eager) ring 2.86 against oneshot 4.48 us, 64 KiB (32 KiB
//      blocks, rendezvous) 5.84 against 4.57; bcast 16 KiB (eager) ring 1.61
//      against 2.79. The oneshot rule was off by one (a block of exactly the
//      eager limit counted as copied once).
//   N  UCX_NET_DEVICES=lo build/bin/gpurun -n 2 --nodes 2 build/bin/gpurun-bench
//      latency -b 8 -e 1M -f 8 (and `bw -b 64K -e 16M -f 4`): point-to-point
//      between two virtual nodes over UCX loopback: 10.4-10.8 us one way up
//      to 4 KiB; 3.53-4.14 GB/s streaming (the NET terms before the NET
//      connectors).
//   X  the NET connectors (coll/host/net_proxy.h), 2026-11-30 19:49-19:53
//      UTC on the Slurm cluster of scripts/slurm_cluster.sh (4 simulated
//      nodes, UCX_NET_DEVICES=lo), load 8-10 on the 2 vCPUs (other builds):
//      srun --mpi=pmix -N2 -n2 env GPURUN_ALGO=A GPURUN_PROTO=P
//      build-net/bin/gpurun-bench allreduce -b 8 -e 4M -f 4|8 -c 0|1 -n 50|100
//      for A = ring, tree and P = ll, simple (one rank per node, so every hop
//      is a NET hop: the ring allreduce has 2, the trees 4), two runs each.
//      The times spread from tens of microseconds to milliseconds between
//      runs of the same size (ranks and proxy threads waiting for a core), so
//      the figures below are the MINIMA, and no more than a rough guide;
//      refit on an idle machine or a real network.
//   Y  the NET connectors after the proxy hand-over and ring Simple's one
//      step per chunk on NET (coll/planner/planner.h PlanSteps), 2026-11-30
//      22:20 UTC: UCX_NET_DEVICES=lo chrt -f 10 build/bin/gpurun -n 2
//      --nodes 2 build/bin/gpurun-bench allreduce -b 8 -e 4K -f 8 -n 200
//      with GPURUN_PROTO=ll and simple, two runs each. chrt keeps the other
//      jobs on the 2 vCPUs (load 4-6) off the ranks, as on an idle machine.
//   Z  oneshot across nodes, 2026-12-01 02:50 UTC, idle machine:
//      UCX_NET_DEVICES=lo build/bin/gpurun -n 2 --nodes 2 build/bin/gpurun-bench
//      allreduce -b 4096 -e 4M -f 4 -c 0 -n 50 -w 5 with GPURUN_ALGO=ring and
//      oneshot, GPURUN_PROTO=simple, alternating, two rounds (and -b 8 -e 64K
//      -f 8 -n 200 for ring, tree and oneshot with ll and simple). At 8 B
//      oneshot took 3.8-4.5 us, ring 8.4-8.8, tree 7.4: one NET hop against
//      two, as the model has it. That day every NET time was about 2.7 times
//      shorter than Y's (ring/Simple 8-512 B: 8.4-9.3 us against 23.4); the
//      ratios are what the choice uses.
//   D  oneshot allgather and broadcast (point-to-point messages,
//      coll/host/oneshot_messages.h), 2026-12-01 07:00-07:40 UTC, idle
//      machine (by then a 2-vCPU Intel Xeon VM, 2 MiB L2 a core):
//      GPURUN_ALGO=oneshot|ring GPURUN_PROTO=simple build/bin/gpurun -n 2
//      --bind-to core build/bin/gpurun-bench allgather|bcast -b 8 -e 8M -f 2
//      -c 1, alternating, two rounds, after the p2p engine's core-sharing fix
//      (p2p/core_sharing.h). Allgather (out of place, total bytes), oneshot
//      against ring: 8 KiB 1.15-1.21 / 1.20-1.27 us, 16 KiB 1.72 / 1.68-1.72,
//      32 KiB 2.66 / 3.28-3.33, 64 KiB 3.11 / 5.81, 512 KiB 13.9 / 32.3,
//      2 MiB 121-135 / 175-182, 8 MiB 574-629 / 721-750. Broadcast in
//      place: 8 KiB 1.08-1.10 / 0.88-0.95, 32 KiB 1.84-1.89 / 1.80-2.50,
//      512 KiB 16.0-16.4 / 27.5-28.8, 2 MiB 168-169 / 141-252, 8 MiB 718-722 /
//      615-619; out of place the ring is slower (2 MiB 260-268, 8 MiB
//      1088-1161) and oneshot the same.
//   E  twoshot allreduce (point-to-point messages,
//      coll/host/twoshot_messages.h), 2026-12-01 10:50-11:00 UTC, idle
//      machine (a 2-vCPU AMD EPYC VM again that day), against ring/simple in
//      the same runs, alternating, two rounds, float sum:
//      one host: GPURUN_ALGO=twoshot|ring GPURUN_PROTO=simple build/bin/gpurun
//      -n 2 --bind-to core build/bin/gpurun-bench allreduce -b 1K -e 8M -f 4
//      -c 1: twoshot 1 KiB 1.18-1.19 / 1.02-1.12 us, 64 KiB 19.3-19.6 /
//      7.0-7.1, 1 MiB 183 / 66.5, 4 MiB 708-741 / 278-279 (out of place).
//      That VM's process_vm_readv is slow: oneshot allgather no longer beat
//      the ring there (64 KiB 6.4 against 3.3 us, 1 MiB 50.6 against 40.7).
//      Across 2 virtual nodes x 1 rank: UCX_NET_DEVICES=lo
//      GPURUN_ALGO=twoshot|ring GPURUN_PROTO=simple build/bin/gpurun -n 2
//      --nodes 2 build/bin/gpurun-bench allreduce -b 8 -e 4M -f 4 -c 0 -n 50
//      -w 5: twoshot 8 B-8 KiB 33-47 / 27-52 us, 32 KiB 74-76 / 41-49,
//      128 KiB 132-142 / 111-151, 512 KiB 401-404 / 423-537, 2 MiB 1208 /
//      1888-1955 (that VM's loopback TCP was ~4x slower than Z's).
//   E2 the same across nodes after the UCX wire's eager limit went from 8 to
//      64 KiB (p2p/ucx/ucx_wire.h), 11:30 UTC, -b 8K -e 2M -f 2: twoshot
//      against ring 8-64 KiB 37-64 / 32-45 us (4-22 us more), 128 KiB
//      107-111 / 105-110, 256 KiB 198-210 / 205-213, 512 KiB 387-389 /
//      401-403, 1 MiB 614-689 / 849-896, 2 MiB 1110-1171 / 1613-1621.
//   M  oneshot allgather and broadcast across nodes against ring/simple,
//      2026-12-02 04:00 UTC, idle machine, UCX's TCP receive segment 512 KiB
//      (p2p/ucx/ucx_config.h): UCX_NET_DEVICES=lo GPURUN_ALGO=ring|oneshot
//      build/bin/gpurun -n 2 --nodes 2 --bind-to core build/bin/gpurun-bench
//      allgather|bcast -b 128K -e 4M -c 0 -n 50 -w 5, alternating, median
//      of 5 rounds (Open MPI's TCP BTL in the same rounds). Allgather ring /
//      oneshot / Open MPI: 128 KiB 38.8 / 43.2 / 59.5 us, 256 KiB 76.8 /
//      67.5 / 77.1, 1 MiB 347.9 / 317.2 / 220.5, 4 MiB 1373.4 / 1138.2 /
//      879.7; broadcast 128 KiB 42.6 / 37.5 / 42.3, 256 KiB 82.3 / 73.7 /
//      62.9, 1 MiB 370.3 / 320.4 / 183.4, 4 MiB 1485.3 / 1178.9 / 753.1.
//
//   F  oneshot allgather against ring/simple on one host, again on a 2-vCPU
//      AMD EPYC VM (AVX-512, 1 MiB L2 a core), 2026-12-02 06:20 UTC:
//      GPURUN_ALGO=ring|oneshot GPURUN_PROTO=simple build/bin/gpurun -n 2
//      --bind-to core build/bin/gpurun-bench allgather -b 1M -e 16M -c 0,
//      alternating with Open MPI, best of 5, ring / oneshot / Open MPI:
//      1 MiB 46.4 / 64.5 / 59.7 us, 2 MiB 93.0 / 122.4 / 117.0, 4 MiB
//      189.6 / 240.4 / 257.1, 8 MiB 594.5 / 629.0 / 619.3, 16 MiB 1521 /
//      2390 / 2088. That VM's process_vm_readv copies 12-13 GB/s against
//      memcpy's 43-49 (one process reading itself, 256 KiB-4 MiB), so there
//      the ring wins from 1 MiB, where D (Intel) had oneshot winning; the
//      tables keep D's choice (one table for both VMs; which one is faster
//      depends on the host, see the stop note of 2026-12-02).
//   G  the same on another 2-vCPU AMD EPYC VM, 2026-12-02 12:20-13:05 UTC,
//      idle (memcpy 17-24 GB/s, process_vm_readv 7-8 in one process):
//      GPURUN_ALGO=ring|oneshot GPURUN_PROTO=simple build/bin/gpurun -n 2
//      --bind-to core build/bin/gpurun-bench allgather -b 1M -e 1M -c 0
//      -n 1000 -w 50, alternating, six rounds: ring 231, 239, 91, 95, 214,
//      62 us; oneshot 93, 121, 113, 133, 109, 95. The ring's time is bimodal
//      from one run to the next, and so is the cross-core latency:
//      build/bin/gpurun-tune-probe --repeats 1, six runs: a raw 8-byte store
//      took 0.066-0.092 us (Simple two-way 6.9-7.8 GB/s a side) or
//      0.267-0.301 us (3.6-4.4 GB/s): whether the two vCPUs share a cache
//      changes between runs. The single copy varies less. A probe of the
//      host's process_vm_readv / memcpy ratio (one process reading itself,
//      1 MiB) as a tuner input was tried and dropped: it read 0.35-0.44
//      here, where oneshot won on average, and 0.27 on F's VM, where the
//      ring won, and it cannot see the cross-core cost nor its changes. So
//      oneshot stays: at worst 1.3x (F) to 1.5x (G's fast rounds) the ring's
//      time, against the ring's 2-2.5x oneshot's in G's slow ones. Against
//      Open MPI the same hour (bench/coll_compare.sh 3, COLLS="bcast
//      allgather"): allgather 1 MiB 108 / 114 us, 2 MiB 221 / 220, 4 MiB
//      440 / 434, 8 MiB 2215 / 1732, 16 MiB 4598 / 4050; four more
//      alternating runs of 8-16 MiB spread as widely on both sides (8 MiB
//      1700-2414 / 1611-2686 us, 16 MiB 4383-5494 / 3914-5499): one single
//      copy per byte on both, bound by memory.
//   H  the shared copy of large shm rendezvous payloads (p2p/shm/shm_share.h:
//      a waiting sender writes chunks of its receiver's copy), 2026-12-02
//      14:55-15:05 UTC, another 2-vCPU AMD EPYC VM, idle: A/B runs of
//      GPURUN_SHM_SHARE_CHUNK=0|128K|256K|512K|1M build/bin/gpurun -n 2
//      --bind-to core build/bin/gpurun-bench bcast -b 256K -e 16M -c 0 -n 50
//      -w 5, alternating, best of 3 (in place): off / 128K / 256K: 256 KiB
//      22.0 / 13.2 / 20.4 us, 1 MiB 80.2 / 49.6 / 46.8, 4 MiB 329 / 181 /
//      213, 16 MiB 2819 / 1298 / 1342. Allgather (every rank busy with its
//      own receive, so it helps only after) the same within the noise:
//      -b 512K -e 8M -f 4 -n 100, five rounds, 2 MiB 116-170 off / 129-179
//      on / Open MPI 123-139 us. The one-shot broadcast's table value below
//      (1.2x the ring's copy rate) stays: the tuner takes it from 32 KiB,
//      below any shared payload, and with the share it only wins by more.
//      Against Open MPI the same hour (bench/coll_compare.sh 3, COLLS="bcast
//      allgather"): broadcast 256 KiB 14.0 / 22.3 us, 1 MiB 55.7 / 80.9,
//      4 MiB 208 / 347, 16 MiB 1398 / 2890. The ring allgather on that VM
//      (GPURUN_ALGO=ring GPURUN_PROTO=simple, -b 1M -e 1M -n 100, 16 runs):
//      43-52 us in most runs against oneshot's 68-86 and Open MPI's 71-74,
//      but 123-331 us in about one run of five, also with
//      GPURUN_PROGRESS_SPIN=2ms (so not the backoff's sleeps), with one
//      channel, with no steal time; oneshot stays the choice (see G). The
//      split is the machine's: build/bin/gpurun-stream-probe --runs 40
//      (bench/tune/stream_probe.cc: two processes on CPUs 0 and 1 stream
//      512 KiB both ways through 8 x 64 KiB shared slots, nothing of gpurun)
//      took 40-55 us in 31 runs and 154-434 us in 9, in streaks of runs, at
//      15:58 UTC; a single process's memcpy stayed steady (1 MiB 39-46
//      GB/s in 16 fresh processes).
// Not measurable here: anything with more than 2 ranks (4 ranks on 2 vCPUs
// measure oversubscription: 40-120 us at 8 B), so hop costs for longer rings
// and deeper trees are the 2-rank fits. To refit on a machine with a core per
// rank: bench/tune/sweep.sh -n 4 COLL > COLL.txt for each function, then
// bench/tune/fit_sweep.py -n 4 allreduce=allreduce.txt allgather=... (the fits
// above), and compare with `gpurun-tune allreduce -n 4`, which prints the
// model's time for every pair at the same sizes.
#include "coll/tuner/tuner_tables.h"

#include <initializer_list>

namespace gpurun::coll {
namespace {

constexpr int kLL = static_cast<int>(Protocol::kLL);
constexpr int kLL128 = static_cast<int>(Protocol::kLL128);
constexpr int kSimple = static_cast<int>(Protocol::kSimple);
constexpr int kTree = static_cast<int>(Algo::kTree);
constexpr int kRing = static_cast<int>(Algo::kRing);
constexpr int kOneShot = static_cast<int>(Algo::kOneShot);
constexpr int kTwoShot = static_cast<int>(Algo::kTwoShot);

constexpr TunerTables MakeHostTables() {
  TunerTables t{};
  // Ring for all five functions; tree, oneshot and twoshot for allreduce,
  // oneshot for allgather and broadcast (coll/planner HostAlgoExists;
  // tuner_test checks they agree). A tree broadcast / reduce is one more
  // `true` here. NVLS does not exist on the host path: false.
  for (int f = 0; f < kNumFuncs; ++f) t.implemented[f][kRing] = true;
  t.implemented[static_cast<int>(Func::kAllReduce)][kTree] = true;
  t.implemented[static_cast<int>(Func::kAllReduce)][kOneShot] = true;  // across nodes over NET too (host_model.h)
  // Oneshot allgather and broadcast: point-to-point messages, simple only
  // (copy_gbps below; LL and LL128 stay 0).
  t.implemented[static_cast<int>(Func::kAllGather)][kOneShot] = true;
  t.implemented[static_cast<int>(Func::kBroadcast)][kOneShot] = true;
  // Twoshot allreduce: point-to-point messages too, simple only.
  t.implemented[static_cast<int>(Func::kAllReduce)][kTwoShot] = true;

  for (int a : {kTree, kRing, kOneShot, kTwoShot}) {
    // B: base + work 0.311 (LL), 0.286 (Simple) us, less the work below;
    // oneshot the same (B1).
    // LL128's own fit (0.470 with a negative hop) is noise; with LL's hop it
    // is 0.304, LL's within the residuals: LL's value.
    t.base_us[a][kLL] = 0.27;
    t.base_us[a][kLL128] = 0.27;
    t.base_us[a][kSimple] = 0.25;
    // B: hop 0.067 (LL), 0.111 (Simple) us, one value for ring and tree.
    // LL128: B's fit is negative (-0.077, noise); LL's scaled by P's
    // isolated-hop ratio LL128 / LL (0.456 / 0.290 = 1.57; 1.61 at 02:58).
    t.hop_us[a][kLL] = 0.067;
    t.hop_us[a][kLL128] = 0.105;
    t.hop_us[a][kSimple] = 0.111;
  }
  // B: the tree's second work, 0.039 us (LL fit; Simple's -0.08 and LL128's
  // are noise around it).
  t.work_us[kLL] = t.work_us[kLL128] = t.work_us[kSimple] = 0.04;
  // Y, ring allreduce 8-512 B (2 NET hops, less the base): LL 23.1-23.4
  // us, 11.4 us a hop; Simple 23.4-23.6 us, 11.6 us a hop (one message per
  // step and a step per chunk; with X's chunk of 4 steps, 3 of them empty
  // messages for a small call, it was 39 us a hop). Ring and tree alike. No
  // NET edge for LL128.
  t.net_hop_us[kLL] = 11.4;
  t.net_hop_us[kSimple] = 11.6;

  // B, allreduce (ring: min of 10 runs; tree: 10 runs), 2-8 MiB.
  t.reduce_gbps[kRing][kLL] = 2.64;
  t.reduce_gbps[kRing][kLL128] = 4.55;
  t.reduce_gbps[kRing][kSimple] = 13.70;
  t.reduce_gbps[kTree][kLL] = 2.53;
  t.reduce_gbps[kTree][kLL128] = 4.20;
  t.reduce_gbps[kTree][kSimple] = 13.59;
  // B1 (oneshot, added to the executor after B): the ring's, divided by the
  // oneshot / ring time ratio of the same run at 2 and 8 MiB, where two ranks
  // move the same bytes both ways (LL 1.03, LL128 1.24, Simple 1.51-1.85:
  // oneshot moves one step per chunk); the run's own slopes were depressed by
  // load (ring LL 1.13 against B's 2.64).
  t.reduce_gbps[kOneShot][kLL] = 2.56;
  t.reduce_gbps[kOneShot][kLL128] = 3.67;
  // C (below): an effective value, not a slope. With the ring's base and hop
  // it puts the 2-rank crossover oneshot/Simple -> ring/Simple at ~64 KiB, as
  // C measured (oneshot 4.16 against ring 4.82 us at 32 KiB, 15.20 against
  // 12.76 at 128 KiB). The raw 0.5-2 MiB slope (C: 21 GB/s per side, ring
  // 30) would move the crossover to ~1 KiB: the model has no term for the
  // ring's per-slice cost at mid sizes, which this value stands in for.
  t.reduce_gbps[kOneShot][kSimple] = 13.5;
  // B, allgather, 2-8 MiB (broadcast: 2.62, 1.84, 20.98; reducescatter and
  // reduce, which the reduce figures above stand for: LL 2.17 / 2.65, LL128
  // 3.18 / 2.44, Simple 15.40 / 10.28).
  t.copy_gbps[kRing][kLL] = 2.49;
  t.copy_gbps[kRing][kLL128] = 3.27;
  t.copy_gbps[kRing][kSimple] = 21.40;
  // D, oneshot allgather / broadcast (simple only: LL and LL128 stay 0, so
  // the tuner never offers them and a forced one is refused). Effective
  // values, not the messages' own costs, chosen so that the model's
  // crossover with ring/simple falls where D measured it, 16-32 KiB: the
  // 2-8 MiB slope ratio ring / oneshot of D's allgather (90 / 75 ns a KiB:
  // 1.2) on the ring's copy bandwidth, and a fixed cost of 0.2 us per
  // peer's message (the rendezvous itself costs ~1.3 us, D's 64-512 KiB
  // intercept, but the ring's per-slice cost at mid sizes, which the model
  // has no term for, is larger still). Only 2 ranks were measured: with
  // more, the per-peer cost is the model's guess, and ChooseHost takes these
  // only for messages that are copied once, larger than the eager limit
  // (TuneInput::message_eager_bytes; F: a 16 KiB block, the limit itself, is
  // eager and made oneshot lose at 32 KiB). From 2 MiB an in-place broadcast is 1.2x
  // faster on the ring (D); the choice has no in-place input, and an out-of-place one is 1.5x faster as oneshot, so
  // broadcast stays oneshot there too.
  t.copy_gbps[kOneShot][kSimple] = 1.2 * t.copy_gbps[kRing][kSimple];
  t.message_us = 0.2;
  // Not measured (no tree broadcast on the host yet): the ring's, so that
  // implementing one is a one-line change above.
  for (int p = 0; p < kNumProtocols; ++p) t.copy_gbps[kTree][p] = t.copy_gbps[kRing][p];
  // X, ring allreduce (2 sides per byte): Simple 2 x 512 KiB in 605.6 us
  // (1.73 GB/s a side; 128-512 KiB in the same run), LL 2 x 256 KiB in
  // 1651 us at best (0.32 GB/s; 4 KiB of data per message).
  for (int a : {kRing, kTree, kOneShot}) {
    t.net_gbps[a][kLL] = 0.32;
    t.net_gbps[a][kSimple] = 1.73;
  }
  // Z, oneshot/Simple across 2 nodes x 1 rank against ring/Simple, two
  // alternating rounds: 1 MiB 570.1 against 538.8 us at best, 4 MiB 2376
  // against 2118 (0.945 and 0.891 of the ring's rate: one step per chunk,
  // no pipelining within a chunk); 0.92 of the ring's. LL: oneshot/LL took
  // 62.0 us at 32 KiB against ring/LL's 117.8, so the ring's value is a
  // floor.
  t.net_gbps[kOneShot][kSimple] = 0.92 * t.net_gbps[kRing][kSimple];
  // M, oneshot allgather and broadcast (messages) across 2 nodes x 1 rank:
  // the 2-4 MiB slopes against ring/simple's of the same rounds, allgather
  // 549.6 against 680.2 us per 2 MiB, broadcast 538.4 against 732.5. In the
  // model's sides (host_model.cc MessageCost: allgather 1 NET + 0.5 local,
  // broadcast 1 + 1, the local ones at copy_gbps[kOneShot]) allgather's
  // ratio 0.808 gives 1.29x the ring's NET rate, broadcast's 0.735 1.50x;
  // the lower of the two, so that both cross over to the messages where M
  // has them faster (from 256 KiB: allgather 67 against 77 us, broadcast 74
  // against 82; at 128 KiB the ring's 39 against 43 for allgather).
  t.net_message_gbps = 1.29 * t.net_gbps[kRing][kSimple];
  // E, twoshot/simple. One host: its 1-4 MiB slope, one side per byte with
  // 2 ranks (host_model.cc MessageCost): 3 MiB in 541-557 us, 5.8 GB/s. The
  // ring's 2 sides at 13.7 stay 1.18x cheaper per byte and its latency is
  // lower, so on one host the model never takes twoshot, as E measured.
  // Across nodes the ratio to the ring of the same run, 512 KiB-2 MiB slopes
  // with 2 sides each (twoshot 1.5 MiB in 806 us, ring in 1365-1418): 1.79.
  // The base and hop are the ring's (set above): at 8 B-8 KiB across nodes
  // E has both at 2 NET hops and about the same time.
  // Across nodes E2's twoshot took 4-22 us more than the ring up to 64 KiB,
  // where both have two NET hops: a fixed cost per NET message in each
  // round, about 3 us (UCX's handling of a message to another host,
  // beyond the hop). The ring's pipelined steps keep up with twoshot up to
  // 256 KiB (E2), which a linear model cannot say with one constant: across
  // hosts the tuner takes the message algorithms only from messages UCX
  // sends without a copy (TuneInput::net_message_eager_bytes, tuner.h).
  t.net_message_us = 3;
  t.reduce_gbps[kTwoShot][kSimple] = 5.8;
  t.net_gbps[kTwoShot][kSimple] = 1.79 * t.net_gbps[kRing][kSimple];
  return t;
}

}  // namespace

const TunerTables kHostTables = MakeHostTables();

}  // namespace gpurun::coll
