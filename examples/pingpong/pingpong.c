/*
 * pingpong: ranks 0 and 1 bounce a message of each size back and forth, check
 * every byte that comes back, and rank 0 prints the one-way latency. Other
 * ranks only take part in init and finalize.
 *
 *   gpurun -n 2 build/bin/pingpong [MAX_BYTES] [ITERATIONS]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpurun/gpurun.h"

#define CHECK(call)                                                                 \
  do {                                                                              \
    if ((call) != grSuccess) {                                                      \
      fprintf(stderr, "pingpong: %s failed: %s\n", #call, grGetLastErrorMessage()); \
      grAbort(grCommWorld(), 2);                                                    \
    }                                                                               \
  } while (0)

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void fill(unsigned char* buf, size_t n, size_t salt) {
  for (size_t i = 0; i < n; ++i) buf[i] = (unsigned char)((i * 131 + salt) & 0xff);
}

/* Bounces `bytes` bytes `iters` times; returns the average one-way time in µs. */
static double bounce(int rank, unsigned char* buf, unsigned char* expect, size_t bytes, int iters) {
  grComm_t world = grCommWorld();
  const double t0 = now_us();
  for (int i = 0; i < iters; ++i) {
    if (rank == 0) {
      CHECK(grSend(buf, bytes, grByte, 1, 1, world, GR_STREAM_HOST));
      CHECK(grRecv(buf, bytes, grByte, 1, 1, world, GR_STATUS_IGNORE, GR_STREAM_HOST));
    } else {
      CHECK(grRecv(buf, bytes, grByte, 0, 1, world, GR_STATUS_IGNORE, GR_STREAM_HOST));
      CHECK(grSend(buf, bytes, grByte, 0, 1, world, GR_STREAM_HOST));
    }
  }
  const double t = (now_us() - t0) / (2.0 * iters);
  if (memcmp(buf, expect, bytes) != 0) {
    fprintf(stderr, "pingpong: rank %d: %zu-byte message came back changed\n", rank, bytes);
    grAbort(world, 3);
  }
  return t;
}

int main(int argc, char** argv) {
  CHECK(grInit(&argc, &argv));
  int rank = 0, size = 0;
  CHECK(grCommRank(grCommWorld(), &rank));
  CHECK(grCommSize(grCommWorld(), &size));
  const size_t max_bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (1u << 20);
  const int iters = argc > 2 ? atoi(argv[2]) : 200;
  if (size < 2) {
    fprintf(stderr, "pingpong: needs at least 2 ranks\n");
    grFinalize();
    return 1;
  }
  unsigned char* buf = malloc(max_bytes ? max_bytes : 1);
  unsigned char* expect = malloc(max_bytes ? max_bytes : 1);
  if (rank == 0) printf("%12s %14s\n", "bytes", "one-way us");
  for (size_t bytes = 0; rank < 2 && bytes <= max_bytes; bytes = bytes ? bytes * 4 : 1) {
    fill(buf, bytes, bytes);
    fill(expect, bytes, bytes);
    const double us = bounce(rank, buf, expect, bytes, iters);
    if (rank == 0) printf("%12zu %14.2f\n", bytes, us);
  }
  if (rank == 0) printf("pingpong: every message came back intact\n");
  free(buf);
  free(expect);
  CHECK(grFinalize());
  return 0;
}
