// p2p_check_phases.h: the phases of device_p2p_check, in the order main runs
// them (each on every rank, a barrier after each; what each checks is in
// device_p2p_check.cc's file comment). The message phases are in
// p2p_check_phases_messages.cc, the stream and memory-kind ones in
// p2p_check_phases_streams.cc. Failures are counted in `g` (p2p_check_support.h).
#ifndef GPURUN_TESTS_GPU_P2P_CHECK_PHASES_H_
#define GPURUN_TESTS_GPU_P2P_CHECK_PHASES_H_

namespace gpurun::p2p_check {

// ---- p2p_check_phases_messages.cc: calls with GR_STREAM_HOST ----------------

void Blocking();      // "blocking": grSend/grRecv with partners rank^1, rank^2, ...
void Self();          // "self": a rank to itself
void SendrecvRing();  // "sendrecv": grSendrecv around the ring
void Inflight();      // "inflight": many messages in flight, grWaitany
void Order();         // "order": wildcard receives see each sender's order
void Truncation();    // "truncation": a receive buffer too small
void Probe();         // "probe": grProbe/grIprobe

// ---- p2p_check_phases_streams.cc: streams and memory kinds ------------------

void Streams();               // "stream": device buffers with a stream
void StreamErrors();          // "stream-errors": refusals and late errors of stream-ordered calls
void HostBufferWithStream();  // "stream-host": host buffers with a stream
void Pool();                  // "pool": cudaMallocAsync memory

// ---- p2p_check_phases_group.cc ---------------------------------------------

void Group();  // "group": grGroupStart / grGroupEnd all-to-all, host and device

// ---- p2p_check_phases_coll_group.cc ----------------------------------------

void CollGroup();   // "coll-group": device collectives fused in groups, and in a graph
void CollDirect();  // "coll-direct": small allreduces in groups and a graph (one-shot batches)

}  // namespace gpurun::p2p_check

#endif  // GPURUN_TESTS_GPU_P2P_CHECK_PHASES_H_
