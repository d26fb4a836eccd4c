// UCP configuration gpurun applies on top of what UCX reads from UCX_*
// variables. Internal to p2p/ucx.
#ifndef GPURUN_P2P_UCX_UCX_CONFIG_H_
#define GPURUN_P2P_UCX_UCX_CONFIG_H_

#include <ucp/api/ucp.h>

#include <cstdint>

#include "runtime/base/status.h"

namespace gpurun::p2p {

// TCP's receive segment where UCX_TCP_RX_SEG_SIZE is unset (UCX's default:
// 64 KiB). UCX's TCP transport reads every message into a segment of its own
// and splits a zero-copy send into pieces of at most one segment, so a larger
// one costs fewer reads, headers and fragment handlers per byte. Measured
// 2026-12-02 between two simulated nodes on this 2-core machine (gpurun -n 2
// --nodes 2 --bind-to core gpurun-bench allreduce -b 256K -e 4M, UCX_NET_DEVICES=lo,
// median of 5 alternating rounds, Open MPI's TCP BTL in the same rounds):
// 64 KiB 158 / 289 / 593 / 1175 / 2521 us at 256 KiB ... 4 MiB, 512 KiB
// 137 / 264 / 508 / 984 / 2165, Open MPI 135 / 225 / 441 / 897 / 1909;
// 256 KiB and 1 MiB segments were between the two. The segments come from a
// pool that grows by 8 (4 MiB) when a connection has a message in flight.
inline constexpr const char* kTcpRxSegSize = "512k";

// What gpurun sets in `config` unless the environment says otherwise (the
// environment always wins):
//  - messages of up to `eager_bytes` go eagerly (RNDV_THRESH = eager_bytes +
//    1; none when 0): over TCP a rendezvous costs a round trip (RTS, RTR,
//    then the data) that eager skips;
//  - TCP_RX_SEG_SIZE = kTcpRxSegSize.
// `who` names the caller in errors.
Status ApplyConfigDefaults(ucp_config_t* config, uint64_t eager_bytes, const char* who);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_UCX_UCX_CONFIG_H_
