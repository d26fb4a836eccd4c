// p2p_check_phases_messages.cc: the phases of device_p2p_check whose calls
// all run with GR_STREAM_HOST (on host and device buffers, every mix):
// blocking, self, sendrecv, inflight, order, truncation and probe, with the
// message sizes and buffer leads they use.
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"
#include "tests/gpu/p2p_check_phases.h"
#include "tests/gpu/p2p_check_support.h"

namespace gpurun::p2p_check {
namespace {

const Msg kSizes[] = {{grUint8, 0},        {grUint8, 1},      {grUint8, 7},
                      {grInt32, 7},        {grFloat32, 1024}, {grInt32, (1u << 18) + 3},
                      {grUint8, 64u << 20}};
constexpr size_t kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]);
constexpr size_t kHuge = kNumSizes - 1;  // 64 MiB: between rank^1 partners only

size_t LeadFor(int index) { return index % 3 == 0 ? 0 : index % 3 == 1 ? 12 : 4100; }

constexpr int kInflight = 12;
Message InflightMessage(int k, int src, int dst) {
  static constexpr Msg kMsgs[] = {{grUint8, 0},        {grUint8, 1},          {grUint8, 7},
                                  {grInt32, 1024 + 1}, {grFloat64, 8192 + 3}, {grInt32, (1u << 18) + 3}};
  // Every mix three times; each size from and into both memories.
  const Mem smem = (k + k / 6) % 2 == 1 ? Mem::kDevice : Mem::kHost, rmem = k / 2 % 2 == 1 ? Mem::kDevice : Mem::kHost;
  return Make(smem, rmem, kMsgs[k % 6], src, dst, 3000 + k, 4, k);
}

constexpr int kPerSender = 24;
Message OrderMessage(int seq, int src) {
  static constexpr Msg kMsgs[] = {{grInt32, (1u << 16) + 3}, {grUint8, 5}, {grUint8, 4096}, {grUint8, 0}};
  const Mem smem = (seq + seq / 4) % 2 == 0 ? Mem::kDevice : Mem::kHost;  // each size from both
  return Make(smem, Mem::kHost, kMsgs[seq % 4], src, 0, 42 + seq % 3, 5, seq);
}

}  // namespace

void Blocking() {
  for (int bit = 1; bit < g.size; bit <<= 1) {
    const int partner = g.rank ^ bit;
    if (partner >= g.size) continue;
    int index = 0;
    for (Mem s : kMems) {
      for (Mem r : kMems) {
        for (size_t k = 0; k < kNumSizes; ++k, ++index) {
          if (k == kHuge && bit != 1) continue;
          for (int turn = 0; turn < 2; ++turn) {  // the lower rank sends first
            const bool sending = (turn == 0) == (g.rank < partner);
            const int src = sending ? g.rank : partner, dst = sending ? partner : g.rank;
            const Message x = Make(s, r, kSizes[k], src, dst, 1000 + index, 1, index + 100 * bit);
            sending ? SendOne(x, LeadFor(index)) : RecvOne(x, LeadFor(index + 1));
          }
        }
      }
    }
  }
}

void Self() {
  const int me = g.rank;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (size_t k = 0; k < kHuge; ++k, ++index) {
        grStatus_t st{}, sst{};
        {  // Isend, Recv, Wait.
          const Message x = Make(s, r, kSizes[k], me, me, 2000 + index, 2, 3 * index);
          const auto sb = SendBuffer(x);
          const auto rb = RecvBuffer(x, LeadFor(index));
          grRequest_t req = GR_REQUEST_NULL;
          Ok(grIsend(sb->data(), x.m.count, x.m.type, me, x.tag, g.world, GR_STREAM_HOST, &req),
             x.Describe() + ": grIsend");
          const grResult_t res = grRecv(rb->data(), x.cap, x.m.type, me, x.tag, g.world, &st, GR_STREAM_HOST);
          JudgeRecv(x, "grRecv after grIsend to itself", res, st, *rb);
          Ok(grWait(&req, &sst), x.Describe() + ": grWait of the grIsend");
          Expect(req == GR_REQUEST_NULL, x.Describe() + ": grWait left the request");
          CheckSendBuffer(x, *sb, x.data());
        }
        {  // Irecv, Send, Wait.
          const Message x = Make(s, r, kSizes[k], me, me, 2000 + index, 2, 3 * index + 1);
          const auto sb = SendBuffer(x);
          const auto rb = RecvBuffer(x);
          grRequest_t req = GR_REQUEST_NULL;
          Ok(grIrecv(rb->data(), x.cap, x.m.type, me, x.tag, g.world, GR_STREAM_HOST, &req),
             x.Describe() + ": grIrecv");
          Ok(grSend(sb->data(), x.m.count, x.m.type, me, x.tag, g.world, GR_STREAM_HOST),
             x.Describe() + ": grSend to itself after grIrecv");
          const grResult_t res = grWait(&req, &st);
          JudgeRecv(x, "grWait of the grIrecv", res, st, *rb);
        }
        {  // Sendrecv.
          const Message x = Make(s, r, kSizes[k], me, me, 2000 + index, 2, 3 * index + 2);
          const auto sb = SendBuffer(x);
          const auto rb = RecvBuffer(x, LeadFor(index + 1));
          const grResult_t res = grSendrecv(sb->data(), x.m.count, x.m.type, me, x.tag, rb->data(), x.cap, x.m.type, me,
                                            x.tag, g.world, &st, GR_STREAM_HOST);
          JudgeRecv(x, "grSendrecv to itself", res, st, *rb);
          CheckSendBuffer(x, *sb, x.data());
        }
      }
    }
  }
}

void SendrecvRing() {
  const int right = (g.rank + 1) % g.size, left = (g.rank + g.size - 1) % g.size;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (size_t k = 0; k < kHuge; ++k, ++index) {
        const Message out = Make(s, r, kSizes[k], g.rank, right, 2500 + index, 3, index);
        const Message in = Make(s, r, kSizes[k], left, g.rank, 2500 + index, 3, index);
        const auto sb = SendBuffer(out, LeadFor(index));
        const auto rb = RecvBuffer(in);
        grStatus_t st{};
        const grResult_t res = grSendrecv(sb->data(), out.m.count, out.m.type, right, out.tag, rb->data(), in.cap,
                                          in.m.type, left, in.tag, g.world, &st, GR_STREAM_HOST);
        JudgeRecv(in, "grSendrecv", res, st, *rb);
        CheckSendBuffer(out, *sb, out.data());
      }
    }
  }
}

void Inflight() {
  std::vector<Message> rx, tx;
  std::vector<std::unique_ptr<Buffer>> rbufs, sbufs;
  std::vector<grRequest_t> rreq, sreq;
  auto post_recvs = [&](int parity) {
    for (int k = kInflight - 1; k >= 0; --k) {
      if (k % 2 != parity) continue;
      for (int peer = 0; peer < g.size; ++peer) {
        rx.push_back(InflightMessage(k, peer, g.rank));
        rbufs.push_back(RecvBuffer(rx.back(), LeadFor(k)));
        rreq.push_back(GR_REQUEST_NULL);
        Ok(grIrecv(rbufs.back()->data(), rx.back().cap, rx.back().m.type, peer, rx.back().tag, g.world, GR_STREAM_HOST,
                   &rreq.back()),
           rx.back().Describe() + ": grIrecv");
      }
    }
  };
  post_recvs(1);
  for (int k = 0; k < kInflight; ++k) {
    for (int d = 1; d <= g.size; ++d) {
      const int peer = (g.rank + d) % g.size;  // itself last
      tx.push_back(InflightMessage(k, g.rank, peer));
      sbufs.push_back(SendBuffer(tx.back()));
      sreq.push_back(GR_REQUEST_NULL);
      Ok(grIsend(sbufs.back()->data(), tx.back().m.count, tx.back().m.type, peer, tx.back().tag, g.world,
                 GR_STREAM_HOST, &sreq.back()),
         tx.back().Describe() + ": grIsend");
    }
  }
  post_recvs(0);
  for (size_t done = 0; done < rreq.size(); ++done) {
    int i = -1;
    grStatus_t st{};
    const grResult_t r = grWaitany(static_cast<int>(rreq.size()), rreq.data(), &i, &st);
    if (i < 0 || i >= static_cast<int>(rreq.size())) Fatal("grWaitany gave index " + std::to_string(i));
    JudgeRecv(rx[i], "grWaitany", r, st, *rbufs[i]);
    Expect(rreq[i] == GR_REQUEST_NULL, rx[i].Describe() + ": grWaitany left the request");
  }
  std::vector<grStatus_t> sst(sreq.size());
  Ok(grWaitall(static_cast<int>(sreq.size()), sreq.data(), sst.data()), "grWaitall of the sends");
  for (size_t i = 0; i < tx.size(); ++i) CheckSendBuffer(tx[i], *sbufs[i], tx[i].data());
}

// On a communicator of its own, so that no other message can match.
void Order() {
  grComm_t comm = GR_COMM_NULL;
  Ok(grCommDup(g.world, &comm), "grCommDup");
  if (g.rank != 0) {
    std::vector<std::unique_ptr<Buffer>> bufs;
    std::vector<grRequest_t> reqs(kPerSender, GR_REQUEST_NULL);
    for (int seq = 0; seq < kPerSender; ++seq) {
      const Message x = OrderMessage(seq, g.rank);
      bufs.push_back(SendBuffer(x));
      Ok(grIsend(bufs.back()->data(), x.m.count, x.m.type, 0, x.tag, comm, GR_STREAM_HOST, &reqs[seq]),
         x.Describe() + ": grIsend");
    }
    Ok(grWaitall(kPerSender, reqs.data(), GR_STATUSES_IGNORE), "grWaitall of the sends");
  } else {
    std::vector<int> next(g.size, 0);
    const size_t cap = ((1u << 16) + 3) * 4;
    for (int k = 0; k < kPerSender * (g.size - 1); ++k) {
      Buffer b(k % 2 == 1 ? Mem::kDevice : Mem::kHost, cap);
      grStatus_t st{};
      const grResult_t r = grRecv(b.data(), cap, grUint8, GR_ANY_SOURCE, GR_ANY_TAG, comm, &st, GR_STREAM_HOST);
      if (r != grSuccess) Fatal("grRecv from GR_ANY_SOURCE with GR_ANY_TAG failed: " + ErrorText(r));
      if (!Expect(st.source > 0 && st.source < g.size, "GR_ANY_SOURCE: status source " + std::to_string(st.source))) {
        continue;
      }
      Message x = OrderMessage(next[st.source]++, st.source);
      x.rmem = k % 2 == 1 ? Mem::kDevice : Mem::kHost;
      const std::string what = x.Describe() + ": receive " + std::to_string(k) + " with both wildcards";
      char got[96];
      std::snprintf(got, sizeof(got), ": out of order or wrong status: got tag %d, %zu B", st.tag, st.bytes);
      Expect(st.tag == x.tag && st.bytes == x.bytes() && st.count == x.bytes() && st.error == grSuccess, what + got);
      const std::string diff = Differs(b.Image(), b, x.data());
      Expect(diff.empty(), std::string(what).append(": receive buffer: ").append(diff));
    }
  }
  Ok(grCommFree(&comm), "grCommFree");
}

void Truncation() {
  struct Trunc {
    Msg m;
    size_t cap;
  };
  static constexpr Trunc kTruncs[] = {
      {{grUint8, 7}, 3}, {{grUint8, 1}, 0}, {{grInt32, 1025}, 256}, {{grInt32, (1u << 18) + 3}, (1u << 17) + 1}};
  const int right = (g.rank + 1) % g.size, left = (g.rank + g.size - 1) % g.size;
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (const Trunc& t : kTruncs) {
        const Message out = Make(s, r, t.m, g.rank, right, 3500 + index, 6, index);
        Message in = Make(s, r, t.m, left, g.rank, 3500 + index, 6, index);
        in.cap = t.cap;
        const auto sb = SendBuffer(out);
        const auto rb = RecvBuffer(in, LeadFor(index));
        grRequest_t sreq = GR_REQUEST_NULL, rreq = GR_REQUEST_NULL;
        Ok(grIsend(sb->data(), out.m.count, out.m.type, right, out.tag, g.world, GR_STREAM_HOST, &sreq),
           out.Describe() + ": grIsend");
        grStatus_t st{};
        if (index % 2 == 0) {
          const grResult_t res = grRecv(rb->data(), in.cap, in.m.type, left, in.tag, g.world, &st, GR_STREAM_HOST);
          JudgeRecv(in, "grRecv", res, st, *rb);
        } else {
          Ok(grIrecv(rb->data(), in.cap, in.m.type, left, in.tag, g.world, GR_STREAM_HOST, &rreq),
             in.Describe() + ": grIrecv");
          const grResult_t res = grWait(&rreq, &st);
          JudgeRecv(in, "grWait of the grIrecv", res, st, *rb);
        }
        // MPI: truncation is the receiver's error; the send completes normally.
        Ok(grWait(&sreq, GR_STATUS_IGNORE), out.Describe() + ": grWait of the send of a truncated message");
        ++index;
      }
    }
  }
}

void Probe() {
  static constexpr Msg kMsgs[] = {{grUint8, 7}, {grUint8, 4097}, {grInt32, (1u << 18) + 3}};
  const int right = (g.rank + 1) % g.size, left = (g.rank + g.size - 1) % g.size;
  int flag = 1;
  grStatus_t st{};
  Ok(grIprobe(left, 3999, g.world, &flag, &st), "grIprobe of a tag never sent");
  Expect(flag == 0, "grIprobe found a message with a tag never sent");
  int index = 0;
  for (Mem s : kMems) {
    for (Mem r : kMems) {
      for (const Msg& m : kMsgs) {
        const Message out = Make(s, r, m, g.rank, right, 4000 + index, 7, index);
        Message in = Make(s, r, m, left, g.rank, 4000 + index, 7, index);
        if (index % 2 == 1) in.cap = m.count / 2;  // probe, then a truncating receive
        const auto sb = SendBuffer(out);
        grRequest_t sreq = GR_REQUEST_NULL;
        Ok(grIsend(sb->data(), out.m.count, out.m.type, right, out.tag, g.world, GR_STREAM_HOST, &sreq),
           out.Describe() + ": grIsend");
        const std::string what = in.Describe() + ": ";
        st = {};
        Ok(grProbe(index % 2 == 0 ? left : GR_ANY_SOURCE, in.tag, g.world, &st), what + "grProbe");
        CheckStatus(what + "grProbe", st, grSuccess, left, in.tag, in.bytes(), grByte);
        size_t count = 0;
        Ok(grGetCount(&st, grInt32, &count), what + "grGetCount(grInt32) of the probe");
        Expect(count == in.bytes() / 4, what + "grGetCount(grInt32) of the probe gave " + std::to_string(count));
        flag = 0;
        st = {};
        Ok(grIprobe(GR_ANY_SOURCE, GR_ANY_TAG, g.world, &flag, &st), what + "grIprobe");
        Expect(flag == 1, what + "grIprobe after grProbe found nothing");
        if (flag == 1) CheckStatus(what + "grIprobe", st, grSuccess, left, in.tag, in.bytes(), grByte);
        RecvOne(in);
        Ok(grWait(&sreq, GR_STATUS_IGNORE), out.Describe() + ": grWait of the send");
        ++index;
      }
    }
  }
}

}  // namespace gpurun::p2p_check
