/*
 * ring: a token goes around the ring of ranks; each rank adds its rank to it.
 * Rank 0 starts it at 0 and checks that it comes back as 0 + 1 + ... + (n-1).
 * Runs LAPS laps (argument, default 3) so every link carries several messages.
 *
 *   gpurun -n 4 build/bin/ring [LAPS]
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpurun/gpurun.h"

#define CHECK(call)                                                             \
  do {                                                                          \
    if ((call) != grSuccess) {                                                  \
      fprintf(stderr, "ring: %s failed: %s\n", #call, grGetLastErrorMessage()); \
      grAbort(grCommWorld(), 2);                                                \
    }                                                                           \
  } while (0)

int main(int argc, char** argv) {
  CHECK(grInit(&argc, &argv));
  grComm_t world = grCommWorld();
  int rank = 0, size = 0;
  CHECK(grCommRank(world, &rank));
  CHECK(grCommSize(world, &size));
  const int laps = argc > 1 ? atoi(argv[1]) : 3;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  const long long expected = (long long)size * (size - 1) / 2;
  int failed = 0;
  for (int lap = 0; lap < laps; ++lap) {
    long long token = 0;
    if (rank == 0) {
      if (size > 1) {
        CHECK(grSend(&token, 1, grInt64, right, lap, world, GR_STREAM_HOST));
        CHECK(grRecv(&token, 1, grInt64, left, lap, world, GR_STATUS_IGNORE, GR_STREAM_HOST));
      }
      if (token != expected) {
        fprintf(stderr, "ring: lap %d: token came back as %lld, expected %lld\n", lap, token, expected);
        failed = 1;
      }
    } else {
      grStatus_t st;
      CHECK(grRecv(&token, 1, grInt64, left, lap, world, &st, GR_STREAM_HOST));
      token += rank;
      CHECK(grSend(&token, 1, grInt64, right, lap, world, GR_STREAM_HOST));
    }
  }
  if (rank == 0 && !failed) {
    printf("ring: %d laps around %d ranks, token = %lld each time (checked)\n", laps, size, expected);
  }
  CHECK(grFinalize());
  return failed;
}
