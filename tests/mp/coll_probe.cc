// coll_probe: the rank program of the multi-process collective tests
// (coll_api_mp_test.cc), run under gpurun.
//
//   coll_probe p2p        every point-to-point collective (alltoall(v),
//                         gather(v), scatter(v), allgatherv) and the barrier,
//                         with exact results: every root, in place and out of
//                         place, counts 0, small and large (rendezvous)
//                         blocks, blocks with gaps that must stay poisoned;
//                         prints "coll p2p ok rank R"
//   coll_probe ringtree   the ring/tree collectives on int32 (exact sums),
//                         in place and out of place; "coll ringtree ok rank R"
//   coll_probe killgather the last rank dies (SIGKILL) before its fourth
//                         gather; every other rank goes on through gathers
//                         with rotating roots and prints the first error it
//                         gets, "rank R gather: CODE: MESSAGE"; it exits 0 if
//                         that error is grRemoteError naming the dead rank
//                         (needs gpurun --disable-auto-cleanup)
//   coll_probe killallreduce
//                         the same with allreduces (the ring / tree / oneshot
//                         engine, over NET across gpurun --nodes): the last
//                         rank dies before its fourth; the others print
//                         "rank R allreduce: CODE: MESSAGE" for the first
//                         error and exit 0 if it is grRemoteError naming it
// Any failed check prints "coll_probe rank R line L: ..." and aborts the job.
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"

namespace {

int g_rank = 0;
int g_size = 1;

[[noreturn]] void Die(int line, const char* what, const char* code, const char* message) {
  std::fprintf(stderr, "coll_probe rank %d line %d: %s: %s: %s\n", g_rank, line, what, code, message);
  std::fflush(stderr);
  grAbort(grCommWorld(), 3);
  std::abort();
}

#define CHECK(call)                                                                           \
  do {                                                                                        \
    grResult_t r_ = (call);                                                                   \
    if (r_ != grSuccess) Die(__LINE__, #call, grGetErrorString(r_), grGetLastErrorMessage()); \
  } while (0)
#define EXPECT(cond)                                       \
  do {                                                     \
    if (!(cond)) Die(__LINE__, #cond, "check failed", ""); \
  } while (0)

constexpr int32_t kPoison = -7;
const grStream_t kHost = GR_STREAM_HOST;

// Element i that rank src sends rank dst (in a call tagged `salt`).
int32_t Value(int src, int dst, size_t i, int salt = 0) {
  return src * 10000000 + dst * 100000 + salt * 1000 + static_cast<int32_t>(i % 1000);
}

void ExpectBlock(const int32_t* got, size_t count, int src, int dst, int salt, int line) {
  for (size_t i = 0; i < count; ++i) {
    if (got[i] != Value(src, dst, i, salt)) {
      std::fprintf(stderr, "coll_probe rank %d line %d: element %zu from rank %d is %d, expected %d\n", g_rank, line, i,
                   src, got[i], Value(src, dst, i, salt));
      Die(line, "block", "wrong data", "");
    }
  }
}

const size_t kCounts[] = {0, 1, 1000, 100000};  // 400 KB: the shm wire's rendezvous path

void Alltoall(size_t count, bool in_place) {
  const int n = g_size, me = g_rank;
  std::vector<int32_t> send(n * count), recv(n * count, kPoison);
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < count; ++i) send[j * count + i] = Value(me, j, i, 1);
  if (in_place) recv = send;
  CHECK(grAlltoall(in_place ? recv.data() : send.data(), recv.data(), count, grInt32, grCommWorld(), kHost));
  for (int j = 0; j < n; ++j) ExpectBlock(&recv[j * count], count, j, me, 1, __LINE__);
}

// Alltoallv: block i → j of (i + j) % 3 * base elements (symmetric, so it
// also serves in place); receive blocks in reverse order with a gap after each.
void Alltoallv(size_t base, bool in_place) {
  const int n = g_size, me = g_rank;
  std::vector<size_t> counts(n), rdispls(n), sdispls(n);
  size_t rat = 0, sat = 0;
  for (int j = n - 1; j >= 0; --j) {
    counts[j] = static_cast<size_t>((me + j) % 3) * base;
    rdispls[j] = rat;
    rat += counts[j] + 1;
  }
  for (int j = 0; j < n; ++j) {
    sdispls[j] = sat;
    sat += counts[j];
  }
  std::vector<int32_t> send(sat), recv(rat, kPoison);
  for (int j = 0; j < n; ++j)
    for (size_t i = 0; i < counts[j]; ++i) send[sdispls[j] + i] = Value(me, j, i, 2);
  if (in_place) {
    for (int j = 0; j < n; ++j)
      for (size_t i = 0; i < counts[j]; ++i) recv[rdispls[j] + i] = Value(me, j, i, 2);
    CHECK(grAlltoallv(recv.data(), nullptr, nullptr, recv.data(), counts.data(), rdispls.data(), grInt32, grCommWorld(),
                      kHost));
  } else {
    CHECK(grAlltoallv(send.data(), counts.data(), sdispls.data(), recv.data(), counts.data(), rdispls.data(), grInt32,
                      grCommWorld(), kHost));
  }
  for (int j = 0; j < n; ++j) {
    ExpectBlock(&recv[rdispls[j]], counts[j], j, me, 2, __LINE__);
    EXPECT(recv[rdispls[j] + counts[j]] == kPoison);
  }
}

// Per-rank layout of the v calls: rank r's block has count + r elements, in
// reverse rank order with a gap of one after each.
struct Layout {
  std::vector<size_t> counts, displs;
  size_t extent = 0;
  Layout(size_t count, bool v) : counts(g_size), displs(g_size) {
    for (int r = g_size - 1; r >= 0; --r) {
      counts[r] = v ? count + r : count;
      displs[r] = v ? extent : r * count;
      extent = v ? extent + counts[r] + 1 : g_size * count;
    }
  }
};

void Gather(size_t count, int root, bool in_place, bool v) {
  const int me = g_rank;
  const Layout l(count, v);
  std::vector<int32_t> recv(me == root ? l.extent : 0, kPoison), send(l.counts[me]);
  for (size_t i = 0; i < send.size(); ++i) send[i] = Value(me, root, i, 3);
  const int32_t* sb = send.data();
  if (in_place && me == root) {
    std::memcpy(&recv[l.displs[me]], send.data(), send.size() * 4);
    sb = &recv[l.displs[me]];
  }
  int32_t* rb = me == root ? recv.data() : nullptr;
  if (v) {
    CHECK(grGatherv(sb, l.counts[me], rb, l.counts.data(), l.displs.data(), grInt32, root, grCommWorld(), kHost));
  } else {
    CHECK(grGather(sb, rb, count, grInt32, root, grCommWorld(), kHost));
  }
  if (me != root) return;
  for (int r = 0; r < g_size; ++r) {
    ExpectBlock(&recv[l.displs[r]], l.counts[r], r, root, 3, __LINE__);
    if (v) EXPECT(recv[l.displs[r] + l.counts[r]] == kPoison);
  }
}

void Scatter(size_t count, int root, bool in_place, bool v) {
  const int me = g_rank;
  const Layout l(count, v);
  std::vector<int32_t> send(me == root ? l.extent : 0, kPoison), recv(l.counts[me], kPoison);
  if (me == root) {
    for (int r = 0; r < g_size; ++r)
      for (size_t i = 0; i < l.counts[r]; ++i) send[l.displs[r] + i] = Value(root, r, i, 4);
  }
  int32_t* rb = in_place && me == root ? &send[l.displs[me]] : recv.data();
  const int32_t* sb = me == root ? send.data() : nullptr;
  if (v) {
    CHECK(grScatterv(sb, l.counts.data(), l.displs.data(), rb, l.counts[me], grInt32, root, grCommWorld(), kHost));
  } else {
    CHECK(grScatter(sb, rb, count, grInt32, root, grCommWorld(), kHost));
  }
  ExpectBlock(rb, l.counts[me], root, me, 4, __LINE__);
}

void Allgatherv(size_t count, bool in_place, bool v) {
  const int me = g_rank;
  const Layout l(count, v);
  std::vector<int32_t> recv(l.extent, kPoison), send(l.counts[me]);
  for (size_t i = 0; i < send.size(); ++i) send[i] = Value(me, 0, i, 5);
  const int32_t* sb = send.data();
  if (in_place) {
    std::memcpy(&recv[l.displs[me]], send.data(), send.size() * 4);
    sb = &recv[l.displs[me]];
  }
  CHECK(grAllgatherv(sb, l.counts[me], recv.data(), l.counts.data(), l.displs.data(), grInt32, grCommWorld(), kHost));
  for (int r = 0; r < g_size; ++r) {
    ExpectBlock(&recv[l.displs[r]], l.counts[r], r, 0, 5, __LINE__);
    if (v) EXPECT(recv[l.displs[r] + l.counts[r]] == kPoison);
  }
}

int P2p() {
  for (size_t count : kCounts) {
    for (bool in_place : {false, true}) {
      Alltoall(count, in_place);
      Alltoallv(count, in_place);
      for (bool v : {false, true}) {
        Allgatherv(count, in_place, v);
        for (int root = 0; root < g_size; ++root) {
          Gather(count, root, in_place, v);
          Scatter(count, root, in_place, v);
        }
      }
      CHECK(grBarrier(grCommWorld(), kHost));
    }
  }
  // A split communicator runs them on its own contexts.
  grComm_t half = GR_COMM_NULL;
  CHECK(grCommSplit(grCommWorld(), g_rank % 2, g_rank, &half));
  int hsize = 0, hrank = 0;
  CHECK(grCommSize(half, &hsize));
  CHECK(grCommRank(half, &hrank));
  std::vector<int32_t> mine(3, hrank), all(3 * hsize, kPoison);
  CHECK(grGather(mine.data(), all.data(), 3, grInt32, hsize - 1, half, kHost));
  if (hrank == hsize - 1) {
    for (int r = 0; r < hsize; ++r) EXPECT(all[3 * r] == r && all[3 * r + 2] == r);
  }
  CHECK(grBarrier(half, kHost));
  CHECK(grCommFree(&half));
  std::printf("coll p2p ok rank %d\n", g_rank);
  return 0;
}

int RingTree() {
  const int n = g_size, me = g_rank;
  for (size_t count : {size_t{0}, size_t{1}, size_t{1000}, size_t{300000}}) {
    for (bool in_place : {false, true}) {
      std::vector<int32_t> in(count), out(count, kPoison);
      for (size_t i = 0; i < count; ++i) in[i] = static_cast<int32_t>(me + i % 7);
      if (in_place) out = in;
      CHECK(grAllreduce(in_place ? out.data() : in.data(), out.data(), count, grInt32, grSum, grCommWorld(), kHost));
      for (size_t i = 0; i < count; ++i) EXPECT(out[i] == static_cast<int32_t>(n * (n - 1) / 2 + n * (i % 7)));
      for (int root = 0; root < n; ++root) {
        std::vector<int32_t> b(count, me == root ? 5 : kPoison);
        CHECK(grBcast(b.data(), count, grInt32, root, grCommWorld(), kHost));
        for (size_t i = 0; i < count; ++i) EXPECT(b[i] == 5);
        std::vector<int32_t> r(count, kPoison);
        CHECK(grReduce(in.data(), me == root ? r.data() : nullptr, count, grInt32, grMax, root, grCommWorld(), kHost));
        if (me == root) {
          for (size_t i = 0; i < count; ++i) EXPECT(r[i] == static_cast<int32_t>(n - 1 + i % 7));
        }
      }
      std::vector<int32_t> all(n * count, kPoison);
      CHECK(grAllgather(in.data(), all.data(), count, grInt32, grCommWorld(), kHost));
      for (int r = 0; r < n; ++r)
        for (size_t i = 0; i < count; ++i) EXPECT(all[r * count + i] == static_cast<int32_t>(r + i % 7));
      std::vector<int32_t> blocks(n * count, 1), mine(count, kPoison);
      CHECK(grReduceScatter(blocks.data(), mine.data(), count, grInt32, grSum, grCommWorld(), kHost));
      for (size_t i = 0; i < count; ++i) EXPECT(mine[i] == n);
    }
  }
  CHECK(grBarrier(grCommWorld(), kHost));
  std::printf("coll ringtree ok rank %d\n", g_rank);
  return 0;
}

// The last rank dies (SIGKILL) before call 3 of `name`; the others go on to
// call 3 + size, print the first error as "rank R NAME: CODE: MESSAGE" and
// return 0 if it is grRemoteError naming the dead rank. `linger`: survivors
// wait a second before leaving, so that none is a dead peer to the others
// while steps it sent them are still on their way.
template <typename Call>
int KillAndReport(const char* name, bool linger, Call&& call) {
  const int dead = g_size - 1;
  grResult_t first = grSuccess;
  std::string message;
  for (int it = 0; it < 3 + g_size; ++it) {
    if (it == 3 && g_rank == dead) raise(SIGKILL);
    const grResult_t r = call(it);
    if (r != grSuccess && first == grSuccess) {
      first = r;
      message = grGetLastErrorMessage();
    }
    if (it < 3 && r != grSuccess) {
      Die(__LINE__, (std::string(name) + " before the death").c_str(), grGetErrorString(r), message.c_str());
    }
  }
  std::printf("rank %d %s: %s: %s\n", g_rank, name, grGetErrorString(first), message.c_str());
  std::fflush(stdout);
  if (linger) sleep(1);
  const std::string named = "rank " + std::to_string(dead);
  return first == grRemoteError && message.find(named) != std::string::npos ? 0 : 1;
}

// By call 3 + size every live rank has been the root once without the dead one.
int KillGather() {
  return KillAndReport("gather", false, [](int it) {
    std::vector<int32_t> send(4, g_rank), recv(4 * static_cast<size_t>(g_size), kPoison);
    return grGather(send.data(), recv.data(), 4, grInt32, it % g_size, grCommWorld(), kHost);
  });
}

int KillAllreduce() {
  return KillAndReport("allreduce", true, [](int it) {
    std::vector<int32_t> send(1000, g_rank + it), recv(1000, kPoison);
    return grAllreduce(send.data(), recv.data(), send.size(), grInt32, grSum, grCommWorld(), kHost);
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "p2p";
  CHECK(grInit(&argc, &argv));
  CHECK(grCommRank(grCommWorld(), &g_rank));
  CHECK(grCommSize(grCommWorld(), &g_size));
  if (mode == "killgather") return KillGather();  // no grFinalize: a rank is gone
  if (mode == "killallreduce") return KillAllreduce();
  int rc = 1;
  if (mode == "p2p") rc = P2p();
  if (mode == "ringtree") rc = RingTree();
  if (rc == 1) std::fprintf(stderr, "coll_probe: unknown mode %s\n", mode.c_str());
  CHECK(grFinalize());
  return rc;
}
