// p2p_probe: the rank program of the point-to-point multi-process tests.
//
//   p2p_probe all [SEED]     every check below, in order, then "p2p ok rank R"
//   p2p_probe killpeer       rank 1 dies (SIGKILL) while rank 0 waits for it;
//                            rank 0 prints the error it gets and exits 0 if it
//                            names rank 1 (needs gpurun --disable-auto-cleanup)
//
// Checks: random sizes (0 B .. 1 MiB between all pairs, plus 64 MiB between
// the first and last rank) and tags with many requests outstanding; wildcard
// receives keep each sender's order; truncation writes nothing past the
// buffer; probe reports the size; split and dup communicators do not match
// each other's messages; a group (grGroupStart/grGroupEnd) of blocking sends
// to every rank listed before the receives from every rank, with an
// allreduce between, completes, and calls that cannot join a group are
// refused. Every payload is a pattern checked byte by byte.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"

namespace {

int g_rank = 0;
int g_size = 1;

#define CHECK(call)                                                                           \
  do {                                                                                        \
    grResult_t r_ = (call);                                                                   \
    if (r_ != grSuccess) Die(__LINE__, #call, grGetErrorString(r_), grGetLastErrorMessage()); \
  } while (0)
#define EXPECT(cond, ...)                                  \
  do {                                                     \
    if (!(cond)) Die(__LINE__, #cond, "check failed", ""); \
  } while (0)

[[noreturn]] void Die(int line, const char* what, const char* code, const char* message) {
  std::fprintf(stderr, "p2p_probe rank %d line %d: %s: %s: %s\n", g_rank, line, what, code, message);
  std::fflush(stderr);
  grAbort(grCommWorld(), 3);
  std::abort();
}

uint8_t PatternByte(uint64_t salt, size_t i) {
  return static_cast<uint8_t>((salt * 0x9E3779B97F4A7C15ull + i * 131) >> 29);
}

void Fill(std::vector<uint8_t>& buf, uint64_t salt) {
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = PatternByte(salt, i);
}

bool Matches(const uint8_t* buf, size_t n, uint64_t salt) {
  for (size_t i = 0; i < n; ++i) {
    if (buf[i] != PatternByte(salt, i)) return false;
  }
  return true;
}

// Size and tag of message `i` from `src` to `dst`: the same on both sides.
size_t SizeOf(uint32_t seed, int src, int dst, int i) {
  std::mt19937 rng(seed * 7919u + src * 104729u + dst * 1299709u + i);
  const int shift = static_cast<int>(rng() % 21);  // log-uniform up to 1 MiB
  return shift == 0 ? 0 : (rng() % (size_t{1} << shift));
}
uint64_t Salt(int src, int dst, int i) { return (uint64_t(src) << 40) ^ (uint64_t(dst) << 20) ^ uint64_t(i); }

// Every pair exchanges `count` messages of random sizes, all posted at once.
void RandomPairs(uint32_t seed, int count) {
  grComm_t w = grCommWorld();
  std::vector<std::vector<uint8_t>> sends, recvs;
  std::vector<grRequest_t> reqs;
  std::vector<std::pair<int, int>> recv_of;  // (peer, i) per receive
  for (int peer = 0; peer < g_size; ++peer) {
    for (int i = 0; i < count; ++i) {
      recvs.emplace_back(SizeOf(seed, peer, g_rank, i));
      reqs.push_back(GR_REQUEST_NULL);
      CHECK(grIrecv(recvs.back().data(), recvs.back().size(), grByte, peer, i, w, GR_STREAM_HOST, &reqs.back()));
      recv_of.emplace_back(peer, i);
    }
  }
  for (int peer = 0; peer < g_size; ++peer) {
    for (int i = 0; i < count; ++i) {
      sends.emplace_back(SizeOf(seed, g_rank, peer, i));
      Fill(sends.back(), Salt(g_rank, peer, i));
      reqs.push_back(GR_REQUEST_NULL);
      CHECK(grIsend(sends.back().data(), sends.back().size(), grByte, peer, i, w, GR_STREAM_HOST, &reqs.back()));
    }
  }
  std::vector<grStatus_t> st(reqs.size());
  CHECK(grWaitall(static_cast<int>(reqs.size()), reqs.data(), st.data()));
  for (size_t k = 0; k < recvs.size(); ++k) {
    const auto [peer, i] = recv_of[k];
    EXPECT(st[k].source == peer && st[k].tag == i && st[k].bytes == recvs[k].size());
    EXPECT(Matches(recvs[k].data(), recvs[k].size(), Salt(peer, g_rank, i)));
  }
}

// 64 MiB from rank 0 to the last rank and back.
void Large() {
  const int last = g_size - 1;
  if (g_size < 2 || (g_rank != 0 && g_rank != last)) return;
  std::vector<uint8_t> buf(64u << 20);
  grComm_t w = grCommWorld();
  if (g_rank == 0) {
    Fill(buf, 77);
    CHECK(grSend(buf.data(), buf.size(), grByte, last, 5, w, GR_STREAM_HOST));
    CHECK(grRecv(buf.data(), buf.size(), grByte, last, 6, w, GR_STATUS_IGNORE, GR_STREAM_HOST));
    EXPECT(Matches(buf.data(), buf.size(), 78));
  } else {
    CHECK(grRecv(buf.data(), buf.size(), grByte, 0, 5, w, GR_STATUS_IGNORE, GR_STREAM_HOST));
    EXPECT(Matches(buf.data(), buf.size(), 77));
    Fill(buf, 78);
    CHECK(grSend(buf.data(), buf.size(), grByte, 0, 6, w, GR_STREAM_HOST));
  }
}

// Rank 0 receives everything with both wildcards on a communicator of its
// own (so no other phase's message can match); each sender's messages (mixed
// sizes, increasing sequence in the payload) must arrive in order.
void WildcardOrder() {
  const int per_sender = 200;
  grComm_t w = GR_COMM_NULL;
  CHECK(grCommDup(grCommWorld(), &w));
  if (g_rank != 0) {
    for (int i = 0; i < per_sender; ++i) {
      std::vector<uint8_t> msg(i % 7 == 0 ? 100000 : 16);
      std::memcpy(msg.data(), &i, sizeof(i));
      CHECK(grSend(msg.data(), msg.size(), grByte, 0, 42 + i % 3, w, GR_STREAM_HOST));
    }
  } else {
    std::vector<int> next(g_size, 0);
    std::vector<uint8_t> buf(100000);
    for (int k = 0; k < per_sender * (g_size - 1); ++k) {
      grStatus_t st;
      CHECK(grRecv(buf.data(), buf.size(), grByte, GR_ANY_SOURCE, GR_ANY_TAG, w, &st, GR_STREAM_HOST));
      int seq = -1;
      std::memcpy(&seq, buf.data(), sizeof(seq));
      EXPECT(st.source > 0 && seq == next[st.source] && st.tag == 42 + seq % 3);
      EXPECT(st.bytes == (seq % 7 == 0 ? 100000u : 16u));
      ++next[st.source];
    }
  }
  CHECK(grCommFree(&w));
}

// A receive too small: grTruncated, nothing written past the buffer.
void Truncation() {
  if (g_size < 2 || g_rank > 1) return;
  grComm_t w = grCommWorld();
  for (size_t bytes : {size_t{64}, size_t{1} << 20}) {
    if (g_rank == 1) {
      std::vector<uint8_t> msg(bytes);
      Fill(msg, 9);
      CHECK(grSend(msg.data(), msg.size(), grByte, 0, 7, w, GR_STREAM_HOST));
      continue;
    }
    std::vector<uint8_t> buf(bytes / 2 + 64, 0xEE);
    grStatus_t st;
    const grResult_t r = grRecv(buf.data(), bytes / 2, grByte, 1, 7, w, &st, GR_STREAM_HOST);
    EXPECT(r == grTruncated && st.error == grTruncated);
    for (size_t i = bytes / 2; i < buf.size(); ++i) EXPECT(buf[i] == 0xEE);
  }
}

// Probe sees the size before the receive; Iprobe finds nothing when nothing was sent.
void ProbeSize() {
  if (g_size < 2 || g_rank > 1) return;
  grComm_t w = grCommWorld();
  if (g_rank == 1) {
    std::vector<uint8_t> msg(12345);
    Fill(msg, 3);
    CHECK(grSend(msg.data(), msg.size(), grByte, 0, 11, w, GR_STREAM_HOST));
    return;
  }
  int flag = 1;
  CHECK(grIprobe(1, 12, w, &flag, GR_STATUS_IGNORE));
  EXPECT(flag == 0);
  grStatus_t st;
  CHECK(grProbe(GR_ANY_SOURCE, 11, w, &st));
  EXPECT(st.source == 1 && st.bytes == 12345);
  std::vector<uint8_t> buf(st.bytes);
  CHECK(grRecv(buf.data(), buf.size(), grByte, st.source, st.tag, w, GR_STATUS_IGNORE, GR_STREAM_HOST));
  EXPECT(Matches(buf.data(), buf.size(), 3));
}

// Same tag on world, a dup and a split: each receive gets its own communicator's message.
void CommIsolation() {
  grComm_t w = grCommWorld(), dup = GR_COMM_NULL, half = GR_COMM_NULL;
  CHECK(grCommDup(w, &dup));
  CHECK(grCommSplit(w, g_rank % 2, -g_rank, &half));
  int half_rank = -1, half_size = 0;
  CHECK(grCommRank(half, &half_rank));
  CHECK(grCommSize(half, &half_size));
  EXPECT(half_size == (g_size + 1 - g_rank % 2) / 2);
  const int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  const int hright = (half_rank + 1) % half_size, hleft = (half_rank + half_size - 1) % half_size;
  int vals[3] = {100 + g_rank, 200 + g_rank, 300 + g_rank}, got[3] = {-1, -1, -1};
  grRequest_t r[6];
  CHECK(grIrecv(&got[2], 1, grInt32, hleft, 0, half, GR_STREAM_HOST, &r[0]));
  CHECK(grIrecv(&got[1], 1, grInt32, left, 0, dup, GR_STREAM_HOST, &r[1]));
  CHECK(grIrecv(&got[0], 1, grInt32, left, 0, w, GR_STREAM_HOST, &r[2]));
  CHECK(grIsend(&vals[0], 1, grInt32, right, 0, w, GR_STREAM_HOST, &r[3]));
  CHECK(grIsend(&vals[1], 1, grInt32, right, 0, dup, GR_STREAM_HOST, &r[4]));
  CHECK(grIsend(&vals[2], 1, grInt32, hright, 0, half, GR_STREAM_HOST, &r[5]));
  CHECK(grWaitall(6, r, GR_STATUSES_IGNORE));
  // In `half`, ranks are ordered by key = -world rank: half rank h is the h-th largest world rank of that parity.
  int hleft_world = -1;
  for (int wr = g_size - 1, h = 0; wr >= 0; --wr) {
    if (wr % 2 != g_rank % 2) continue;
    if (h++ == hleft) hleft_world = wr;
  }
  EXPECT(got[0] == 100 + left && got[1] == 200 + left && got[2] == 300 + hleft_world);
  CHECK(grCommFree(&half));
  CHECK(grCommFree(&dup));
  EXPECT(half == GR_COMM_NULL && dup == GR_COMM_NULL);
}

int KillPeer() {
  grComm_t w = grCommWorld();
  if (g_rank == 1) {
    usleep(200000);
    raise(SIGKILL);
  }
  if (g_rank != 0) {
    pause();
    return 0;
  }
  int v = 0;
  const grResult_t r = grRecv(&v, 1, grInt32, 1, 0, w, GR_STATUS_IGNORE, GR_STREAM_HOST);
  std::printf("rank 0 receive from rank 1: %s: %s\n", grGetErrorString(r), grGetLastErrorMessage());
  std::fflush(stdout);
  return r == grRemoteError && std::strstr(grGetLastErrorMessage(), "rank 1") != nullptr ? 0 : 1;
}

}  // namespace

// Blocking sends of 2 MiB (past the eager size: each waits for its
// receive) to every rank, itself too, in ascending order, an allreduce, and
// the receives in descending order, all in one group: only completes when
// grGroupEnd runs them together.
void Groups() {
  const size_t bytes = 2u << 20;
  const int n = g_size;
  std::vector<std::vector<uint8_t>> out(n), in(n);
  std::vector<grStatus_t> status(n);
  for (int p = 0; p < n; ++p) {
    out[p].resize(bytes);
    for (size_t i = 0; i < bytes; ++i) out[p][i] = PatternByte(7000 + g_rank * 64 + p, i);
    in[p].assign(bytes, 0xA5);
  }
  const int mine = g_rank + 1;
  int sum = 0;
  CHECK(grGroupStart());
  CHECK(grGroupStart());  // nested: only the outermost end runs the group
  for (int p = 0; p < n; ++p) CHECK(grSend(out[p].data(), bytes, grUint8, p, 91, grCommWorld(), GR_STREAM_HOST));
  CHECK(grGroupEnd());
  CHECK(grAllreduce(&mine, &sum, 1, grInt32, grSum, grCommWorld(), GR_STREAM_HOST));
  EXPECT(sum == 0);  // not run yet
  for (int p = n - 1; p >= 0; --p) {
    CHECK(grRecv(in[p].data(), bytes, grUint8, p, 91, grCommWorld(), &status[p], GR_STREAM_HOST));
  }
  CHECK(grGroupEnd());
  EXPECT(sum == n * (n + 1) / 2);
  for (int p = 0; p < n; ++p) {
    EXPECT(status[p].source == p && status[p].tag == 91 && status[p].bytes == bytes);
    for (size_t i = 0; i < bytes; ++i) EXPECT(in[p][i] == PatternByte(7000 + p * 64 + g_rank, i));
  }
  // Refused inside a group; the group then runs nothing and says so.
  EXPECT(grGroupEnd() == grInvalidUsage);
  grRequest_t req = GR_REQUEST_NULL;
  CHECK(grGroupStart());
  CHECK(grSend(out[0].data(), 1, grUint8, g_rank, 92, grCommWorld(), GR_STREAM_HOST));
  EXPECT(grIsend(out[0].data(), 1, grUint8, g_rank, 92, grCommWorld(), GR_STREAM_HOST, &req) == grInvalidUsage);
  EXPECT(req == GR_REQUEST_NULL);
  EXPECT(grGroupEnd() == grInvalidUsage);
  EXPECT(std::string(grGetLastErrorMessage()).find("ran nothing") != std::string::npos);
  int flag = 1;
  CHECK(grIprobe(g_rank, 92, grCommWorld(), &flag, GR_STATUS_IGNORE));
  EXPECT(flag == 0);  // the send recorded before the refusal did not run
  // An argument error is reported by grGroupEnd.
  CHECK(grGroupStart());
  CHECK(grSend(out[0].data(), 1, grUint8, g_size, 93, grCommWorld(), GR_STREAM_HOST));
  EXPECT(grGroupEnd() == grInvalidArgument);
  CHECK(grBarrier(grCommWorld(), GR_STREAM_HOST));
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "all";
  CHECK(grInit(&argc, &argv));
  CHECK(grCommRank(grCommWorld(), &g_rank));
  CHECK(grCommSize(grCommWorld(), &g_size));
  if (mode == "killpeer") return KillPeer();
  const uint32_t seed = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 1;
  RandomPairs(seed, 8);
  Large();
  WildcardOrder();
  Truncation();
  ProbeSize();
  CommIsolation();
  Groups();
  std::printf("p2p ok rank %d\n", g_rank);
  CHECK(grFinalize());
  return 0;
}
