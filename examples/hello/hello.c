/*
 * hello: every rank prints who it is, then checks that it sees every other
 * rank of the job through the table the bootstrap all-gathered at grInit:
 * each entry is the rank it claims to be, pids on one host differ, and the
 * local ranks of every node are exactly 0..local_size-1.
 *
 *   gpurun -n 4 build/bin/hello
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpurun/gpurun.h"

#define CHECK(call)                                                              \
  do {                                                                           \
    grResult_t r_ = (call);                                                      \
    if (r_ != grSuccess) {                                                       \
      fprintf(stderr, "hello: %s failed: %s\n", #call, grGetLastErrorMessage()); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

/* Returns the number of problems found in the peer table (0 when consistent). */
static int check_peers(grComm_t world, int size, int* num_nodes) {
  grPeerInfo_t* peers = calloc((size_t)size, sizeof(grPeerInfo_t));
  int problems = 0;
  *num_nodes = 0;
  for (int r = 0; r < size; ++r) {
    if (grCommPeerInfo(world, r, &peers[r]) != grSuccess || peers[r].rank != r) {
      fprintf(stderr, "hello: entry %d of the peer table is wrong\n", r);
      ++problems;
    }
    if (peers[r].node_id + 1 > *num_nodes) *num_nodes = peers[r].node_id + 1;
  }
  for (int a = 0; a < size; ++a) {
    int same_node = 0;
    for (int b = 0; b < size; ++b) {
      if (peers[b].node_id != peers[a].node_id) continue;
      ++same_node;
      if (b != a && peers[b].local_rank == peers[a].local_rank) ++problems;
      if (b != a && peers[b].pid == peers[a].pid && strcmp(peers[a].host, peers[b].host) == 0) ++problems;
    }
    if (same_node != peers[a].local_size || peers[a].local_rank >= peers[a].local_size) ++problems;
  }
  free(peers);
  return problems;
}

int main(int argc, char** argv) {
  CHECK(grInit(&argc, &argv));
  grComm_t world = grCommWorld();
  int rank = 0, size = 0, num_nodes = 0;
  CHECK(grCommRank(world, &rank));
  CHECK(grCommSize(world, &size));
  grPeerInfo_t me;
  CHECK(grCommPeerInfo(world, rank, &me));
  printf("hello from rank %d of %d on %s (local rank %d of %d, node %d, pid %d)\n", rank, size, me.host, me.local_rank,
         me.local_size, me.node_id, me.pid);
  fflush(stdout);
  const int problems = check_peers(world, size, &num_nodes);
  if (problems != 0) {
    fprintf(stderr, "hello: rank %d found %d problems in the peer table\n", rank, problems);
    grAbort(world, 3);
  }
  if (rank == 0)
    printf("rank 0: all %d ranks see each other (%d node%s)\n", size, num_nodes, num_nodes == 1 ? "" : "s");
  CHECK(grFinalize());
  return 0;
}
