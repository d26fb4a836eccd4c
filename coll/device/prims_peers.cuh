// The connections one device primitives object drives (PrimsSimple, PrimsLL,
// PrimsLL128), copied into shared memory by the kernel: up to Fan receiving
// and Fan sending connections and their step counters. A ring block has one
// of each (Fan 1: its previous and next rank); a tree block two objects of
// Fan 2 — the up phase receives from up to two children and sends to the
// parent, the down phase receives from the parent and sends to up to two
// children. A receiving call reduces every receiving connection's data (in
// index order, after the source) and a sending call writes every sending
// connection's FIFO; all receiving connections move in step, as do all
// sending ones, so one counter each is enough.
#ifndef GPURUN_COLL_DEVICE_PRIMS_PEERS_CUH_
#define GPURUN_COLL_DEVICE_PRIMS_PEERS_CUH_

#include <cstdint>

#include "coll/device/dev_launch.h"
#include "coll/device/sync.cuh"

namespace gpurun::coll::dev {

template <int Fan>
struct DevPeers {
  DevRecvConn recv[Fan];
  DevSendConn send[Fan];
  int32_t recv_rank[Fan];  // communicator ranks for error records; -1: a ring neighbour
  int32_t send_rank[Fan];
  int32_t nrecv;
  int32_t nsend;
  uint64_t recv_step;  // steps received so far (every receiving connection)
  uint64_t send_step;  // steps sent so far
  uint32_t channel;

  // What a wait on receiving (or sending) connection k is for.
  __device__ WaitWhat What(int k, bool sending) const {
    const int32_t rank = sending ? send_rank[k] : recv_rank[k];
    if (rank < 0) return WaitWhat{channel, sending ? 1u : 0u};
    return WaitWhat{channel | kTreeWaitFlag, sending ? 1u : 0u, static_cast<uint32_t>(rank)};
  }
};

// A ring block's peers: its channel's connections (thread 0 fills them).
__device__ inline void LoadRingPeers(const DevChannel& c, uint32_t channel, DevPeers<1>* p) {
  p->recv[0] = c.recv;
  p->send[0] = c.send;
  p->recv_rank[0] = -1;
  p->send_rank[0] = -1;
  p->nrecv = 1;
  p->nsend = 1;
  p->recv_step = c.recv_step;
  p->send_step = c.send_step;
  p->channel = channel;
}

}  // namespace gpurun::coll::dev

#endif  // GPURUN_COLL_DEVICE_PRIMS_PEERS_CUH_
