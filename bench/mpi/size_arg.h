/*
 * Byte counts on the MPI comparison programs' command lines, as gpurun-bench
 * takes them: digits with an optional K, M or G (x 1024, 1024^2, 1024^3).
 * Anything else is refused: before 2026-12-02 p2p_mpi read "64K" as 64 and
 * bench/slurm_compare.sh (LAT_MAX=64K) then compared gpurun's latency up to
 * 64 KiB with Open MPI's up to 64 B.
 */
#ifndef GPURUN_BENCH_MPI_SIZE_ARG_H_
#define GPURUN_BENCH_MPI_SIZE_ARG_H_

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* Returns 1 and sets *out when `s` is a byte count, else 0. */
static inline int parse_size_arg(const char* s, size_t* out) {
  if (s == NULL || !isdigit((unsigned char)s[0])) return 0;
  char* end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0) return 0;
  int shift = 0;
  if (*end == 'K') shift = 10;
  if (*end == 'M') shift = 20;
  if (*end == 'G') shift = 30;
  if (shift != 0) ++end;
  if (*end != '\0' || v > (SIZE_MAX >> shift)) return 0;
  *out = (size_t)(v << shift);
  return 1;
}

#endif /* GPURUN_BENCH_MPI_SIZE_ARG_H_ */
