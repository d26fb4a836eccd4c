/*
 * allreduce: every rank contributes a vector, grAllreduce sums them, and every
 * rank checks every element of the result against its closed form.
 *
 * Rank r's element i is (r + 1) * (i % 100 + 1): integer-valued floats, so the
 * sum is exact whatever order the ranks are added in, and equals
 * (i % 100 + 1) * n(n + 1)/2 on n ranks. The sum is done twice: out of place
 * (separate input and output) and in place (the output overwrites the input).
 * A rank that finds a wrong element says which and exits non-zero; rank 0
 * prints a few results and the verdict of all ranks.
 *
 *   gpurun -n 4 build/bin/allreduce [COUNT]   (COUNT floats per rank, default 1000003)
 */
#include <stdio.h>
#include <stdlib.h>

#include "gpurun/gpurun.h"

#define CHECK(call)                                                                  \
  do {                                                                               \
    if ((call) != grSuccess) {                                                       \
      fprintf(stderr, "allreduce: %s failed: %s\n", #call, grGetLastErrorMessage()); \
      grAbort(grCommWorld(), 2);                                                     \
    }                                                                                \
  } while (0)

static float input(int rank, size_t i) { return (float)((rank + 1) * (int)(i % 100 + 1)); }

static float expected(int size, size_t i) { return (float)((int)(i % 100 + 1) * size * (size + 1) / 2); }

static void fill(float* v, size_t count, int rank) {
  for (size_t i = 0; i < count; ++i) v[i] = input(rank, i);
}

/* Number of wrong elements; the first one is reported on stderr. */
static size_t count_wrong(const float* v, size_t count, int rank, int size, const char* what) {
  size_t wrong = 0;
  for (size_t i = 0; i < count; ++i) {
    if (v[i] == expected(size, i)) continue;
    if (wrong++ == 0) {
      fprintf(stderr, "allreduce: rank %d, %s: element %zu is %g, expected %g\n", rank, what, i, v[i],
              expected(size, i));
    }
  }
  return wrong;
}

int main(int argc, char** argv) {
  CHECK(grInit(&argc, &argv));
  grComm_t world = grCommWorld();
  int rank = 0, size = 0;
  CHECK(grCommRank(world, &rank));
  CHECK(grCommSize(world, &size));
  const size_t count = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000003;
  float* in = malloc(count * sizeof(float) + 1);
  float* out = malloc(count * sizeof(float) + 1);
  if (in == NULL || out == NULL) {
    fprintf(stderr, "allreduce: rank %d: cannot allocate 2 x %zu floats\n", rank, count);
    grAbort(world, 2);
  }

  fill(in, count, rank);
  CHECK(grAllreduce(in, out, count, grFloat32, grSum, world, GR_STREAM_HOST));
  size_t wrong = count_wrong(out, count, rank, size, "out of place");

  fill(in, count, rank);
  CHECK(grAllreduce(in, in, count, grFloat32, grSum, world, GR_STREAM_HOST));
  wrong += count_wrong(in, count, rank, size, "in place");

  /* Every rank's verdict, summed at every rank (each rank also exits non-zero on its own). */
  long long wrong_all = (long long)wrong;
  CHECK(grAllreduce(&wrong_all, &wrong_all, 1, grInt64, grSum, world, GR_STREAM_HOST));
  if (rank == 0) {
    printf("allreduce: %d ranks, %zu floats each; rank r holds (r+1)*(i%%100+1), the sum is (i%%100+1)*%d\n", size,
           count, size * (size + 1) / 2);
    for (size_t i = 0; i < count && i < 3; ++i) printf("  sum[%zu] = %g\n", i, out[i]);
    if (count > 3) printf("  sum[%zu] = %g\n", count - 1, out[count - 1]);
    if (wrong_all == 0) {
      printf("allreduce: out of place and in place, every element on every rank is right (checked)\n");
    } else {
      printf("allreduce: %lld wrong elements over all ranks\n", wrong_all);
    }
  }
  free(in);
  free(out);
  CHECK(grFinalize());
  return wrong != 0 || wrong_all != 0;
}
