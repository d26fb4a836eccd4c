// The GPU path's tuning constants on 2 x H200 joined by 18 NVLinks (the
// lent GPU machine), one rank per GPU, NCCL 2.28.3 alongside in every job,
// and where each comes from. All from run 10 of 2026-11-30 (closing note of
// issue 6), `gpurun -n 2 gpurun-bench FUNC --device cuda --compare nccl
// -b 8 -e 16M -f 2 -c 1` with GPURUN_ALGO=ring and GPURUN_PROTO=ll or simple
// forced (out-of-place time: the mean of back-to-back calls, as nccl-tests),
// the one-shot rows from the unforced allreduce of the same run (-e 64M),
// and the LL channel sweep GPURUN_NCHANNELS=1..64 GPURUN_ALGO=ring
// GPURUN_PROTO=ll gpurun-bench allreduce|allgather -b 1K -e 4M -f 4.
//
// How each is fitted (gpu_model.h's formula, 2 ranks: steps 2 for
// allreduce, 1 otherwise; factor 1 for allreduce, broadcast and reduce, 1/2
// for allgather and reducescatter, whose bytes are the whole buffer):
//   base + steps x hop  the flat time at 8 B..4 KiB. With one rank count
//                       only, base and hop split by allreduce (two steps)
//                       against allgather / reducescatter (one): LL 7.4 /
//                       5.8 us, Simple 17.2 / 10.4 us. Broadcast and reduce
//                       move their chain in one step per chunk: their flat
//                       time (LL 5.6 / 5.3, Simple 5.9 / 5.7 us) sets base,
//                       with the hop of the others. Longer rings (3+ GPUs)
//                       extrapolate these hops: not measured (issue 9).
//   channel_gbps        LL: one channel's rate in the sweep (4 MiB with
//                       GPURUN_NCHANNELS=1: allreduce 1466 us, allgather
//                       761 us: 2.8 GB/s of factor-weighted bytes; linear
//                       to 16 channels). Simple: (t - flat) at 1 MiB, where
//                       the 64 KiB rule gives 16 channels, over 16.
//   max_gbps            the rate of the largest sizes with 128 channels,
//                       (t - flat) at 16 MiB (Simple allreduce / allgather /
//                       reducescatter at 64 MiB, from the unforced runs).
//                       LL reducescatter: 100, below its 16 MiB fit (125),
//                       because run 13 chose it at 512 KiB on 128 channels
//                       and took 10.4 us eager / 8.3 graph-replayed (NCCL
//                       11.1 / 7.5) where LL128 on 32 took 8.8 in run 12.
//   min_channel_bytes   LL: the sweep's best channel count for 16 KiB..1 MiB
//                       allreduce (4-16 channels at 16 KiB: 9.5-8.3 us
//                       against 11.6 with 1; 16 at 64 KiB; 64-128 from
//                       256 KiB): about 4 KiB a channel. Simple: 64 KiB, the
//                       rule before this table (not swept).
//   one-shot            flat 5.0-5.4 us to 128 KiB; 160 GB/s from (t - 5) at
//                       1 and 2 MiB (6.6 / 12.8 us over factor 1).
//   LL128               run 12 of the same day, the same commands with
//                       GPURUN_PROTO=ll128 -e 64M, and the sweep
//                       GPURUN_NCHANNELS=8|32|128 GPURUN_ALGO=ring
//                       GPURUN_PROTO=ll128 gpurun-bench allreduce -b 64K
//                       -e 64M -f 4. Flat times: allreduce 8.8, allgather
//                       5.35, reducescatter 6.4, broadcast 4.5, reduce 4.6
//                       us; the hop is LL's (the split is not measurable on
//                       two ranks) and base the rest. Per channel 4.8 GB/s
//                       (4 MiB allreduce on 8 and 32 channels: 116.8 and
//                       36.1 us); the caps from 4-64 MiB on 128 channels.
//                       16 KiB a channel: 64 channels at 1 MiB (13.6 us).
//   tree allreduce      run 16 of 2026-11-30, `bench/tune/gpu_choice_check.sh
//                       BIN allreduce 2 8 268435456 4` (GPURUN_ALGO=tree and
//                       each protocol, 16 tree channels: the most the tree
//                       makes). Two ranks: two steps (up, down), the hop
//                       taken as the ring's for LL / LL128 and base the rest
//                       of the flat time (LL 7.5, LL128 8.1 us at 8 B..2 KiB);
//                       Simple's flat 12.5 us split as base 3.6 (the ring's)
//                       + 2 x 4.45. Rates from (t - flat) at 8, 32 and 128 MiB
//                       on 16 channels: LL 48, LL128 87-98, Simple 194-214
//                       GB/s, over 16 for the per-channel figure. On two
//                       ranks the tree never wins (the ring took 40.3 us at
//                       8 MiB where the tree's best, Simple, took 55.8); the
//                       depth-based hops for more ranks are not measured
//                       (issue 9).
//   two-shot allreduce  run 19 of 2026-11-30, `bench/tune/gpu_choice_check.sh
//                       BIN allreduce 2 8 4194304 4` (GPURUN_ALGO=twoshot
//                       beside oneshot): flat 5.65-5.8 us to 32 KiB where
//                       one-shot took 4.6-4.9, so with one-shot's single
//                       step b + h = 4.7 and two-shot's b + 2h = 5.7: hop
//                       1.0, base 3.7. Rate from (t - flat) at 512 KiB and
//                       2 MiB (8.62 / 19.86 us, factor 1 on two ranks):
//                       180 / 148 GB/s, so 150. On two ranks it moves the
//                       same bytes as one-shot with one more hop and never
//                       wins (one-shot 17.69 us at 2 MiB); with more ranks
//                       it moves 2/n of one-shot's (not measured: the lent
//                       machines have two GPUs, and two ranks sharing a GPU
//                       time-slice, 2250 us a call; issue 9).
#include "coll/tuner/gpu_model.h"

namespace gpurun::coll {
namespace {

constexpr int kLL = static_cast<int>(Protocol::kLL);
constexpr int kSimple = static_cast<int>(Protocol::kSimple);

struct Row {
  Func func;
  Algo algo;
  Protocol proto;
  double base_us, hop_us, channel_gbps, max_gbps;
};

// clang-format off
constexpr Row kRows[] = {
    // func               algo           proto             base  hop   per-ch  max
    {Func::kAllReduce,     Algo::kRing,    Protocol::kLL,     4.2, 1.6,   2.8, 147},
    {Func::kAllGather,     Algo::kRing,    Protocol::kLL,     4.2, 1.6,   2.8, 145},
    {Func::kReduceScatter, Algo::kRing,    Protocol::kLL,     4.2, 1.6,   2.8, 100},
    {Func::kBroadcast,     Algo::kRing,    Protocol::kLL,     4.0, 1.6,   2.8, 185},
    {Func::kReduce,        Algo::kRing,    Protocol::kLL,     3.7, 1.6,   2.8, 180},
    {Func::kAllReduce,     Algo::kRing,    Protocol::kSimple, 3.6, 6.8,   7.2, 300},
    {Func::kAllGather,     Algo::kRing,    Protocol::kSimple, 3.6, 6.8,   6.2, 285},
    {Func::kReduceScatter, Algo::kRing,    Protocol::kSimple, 3.6, 6.8,   5.4, 233},
    {Func::kBroadcast,     Algo::kRing,    Protocol::kSimple, 3.7, 2.2,  17.0, 360},
    {Func::kReduce,        Algo::kRing,    Protocol::kSimple, 3.5, 2.2,  17.0, 360},
    {Func::kAllReduce,     Algo::kOneShot, Protocol::kLL,     5.0, 0.0, 160.0, 160},
    // Two-shot: run 19 (below).
    {Func::kAllReduce,     Algo::kTwoShot, Protocol::kLL,     3.7, 1.0, 150.0, 150},
    {Func::kAllReduce,     Algo::kRing,    Protocol::kLL128,  5.6, 1.6,   4.8, 260},
    // Tree allreduce: run 16 (below).
    {Func::kAllReduce,     Algo::kTree,    Protocol::kLL,     4.3, 1.6,   3.0,  48},
    {Func::kAllReduce,     Algo::kTree,    Protocol::kSimple, 3.6, 4.45, 13.0, 214},
    {Func::kAllReduce,     Algo::kTree,    Protocol::kLL128,  4.9, 1.6,   5.8,  95},
    {Func::kAllGather,     Algo::kRing,    Protocol::kLL128,  3.8, 1.6,   4.8, 235},
    {Func::kReduceScatter, Algo::kRing,    Protocol::kLL128,  4.8, 1.6,   4.8, 200},
    {Func::kBroadcast,     Algo::kRing,    Protocol::kLL128,  2.9, 1.6,   4.8, 330},
    {Func::kReduce,        Algo::kRing,    Protocol::kLL128,  3.0, 1.6,   4.8, 300},
};
// clang-format on

constexpr GpuTunerTables MakeTables() {
  GpuTunerTables t{};
  for (const Row& r : kRows) {
    const int f = static_cast<int>(r.func), a = static_cast<int>(r.algo), p = static_cast<int>(r.proto);
    t.implemented[f][a][p] = true;
    t.base_us[f][a][p] = r.base_us;
    t.hop_us[f][a][p] = r.hop_us;
    t.channel_gbps[f][a][p] = r.channel_gbps;
    t.max_gbps[f][a][p] = r.max_gbps;
  }
  t.min_channel_bytes[kLL] = 4 * 1024;
  t.min_channel_bytes[kSimple] = 64 * 1024;
  t.min_channel_bytes[static_cast<int>(Protocol::kLL128)] = 16 * 1024;  // LL128 row above
  return t;
}

}  // namespace

const GpuTunerTables kH200NvlinkTables = MakeTables();

}  // namespace gpurun::coll
