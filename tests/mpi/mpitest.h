/*
 * What the MPI test programs share (plain MPI, C11): each rank appends result
 * lines to a report; at the end rank 0 prints every rank's report in rank
 * order, so the output is the same from run to run and can be compared line by
 * line between MPI libraries (tests/mpi/compare.sh). Results are integers (or
 * integer-valued floating point), exact in any reduction order.
 *
 * MPI_COMM_WORLD returns errors (MPI_ERRORS_RETURN, inherited by the
 * communicators made from it): OK(call) records a call that does not return
 * MPI_SUCCESS as a failure, with its line and error class, and the program
 * goes on. CHECK(cond) records a wrong result. mt_finish() prints the reports
 * and a last line with the failure count; its value is the exit status.
 */
#ifndef GPURUN_TESTS_MPI_MPITEST_H_
#define GPURUN_TESTS_MPI_MPITEST_H_

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMtReportBytes = 1 << 16 };
static char mt_report[kMtReportBytes];
static int mt_len, mt_failures, mt_rank, mt_size;
static const char* mt_name = "mpitest";

/* Appends one line (no newline needed) to this rank's report. */
static inline void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void say(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int room = kMtReportBytes - mt_len - 1;
  const int n = room > 0 ? vsnprintf(mt_report + mt_len, (size_t)room, fmt, ap) : 0;
  va_end(ap);
  mt_len += n < room ? n : room;
  if (mt_len < kMtReportBytes - 1) mt_report[mt_len++] = '\n';
}

/* The name of an error class ("MPI_ERR_RANK"), or "class N". */
static inline const char* mt_class_name(int cls) {
  static char other[32];
  const struct {
    int cls;
    const char* name;
  } classes[] = {
      {MPI_SUCCESS, "MPI_SUCCESS"},
      {MPI_ERR_BUFFER, "MPI_ERR_BUFFER"},
      {MPI_ERR_COUNT, "MPI_ERR_COUNT"},
      {MPI_ERR_TYPE, "MPI_ERR_TYPE"},
      {MPI_ERR_TAG, "MPI_ERR_TAG"},
      {MPI_ERR_COMM, "MPI_ERR_COMM"},
      {MPI_ERR_RANK, "MPI_ERR_RANK"},
      {MPI_ERR_REQUEST, "MPI_ERR_REQUEST"},
      {MPI_ERR_ROOT, "MPI_ERR_ROOT"},
      {MPI_ERR_GROUP, "MPI_ERR_GROUP"},
      {MPI_ERR_OP, "MPI_ERR_OP"},
      {MPI_ERR_TOPOLOGY, "MPI_ERR_TOPOLOGY"},
      {MPI_ERR_DIMS, "MPI_ERR_DIMS"},
      {MPI_ERR_ARG, "MPI_ERR_ARG"},
      {MPI_ERR_UNKNOWN, "MPI_ERR_UNKNOWN"},
      {MPI_ERR_TRUNCATE, "MPI_ERR_TRUNCATE"},
      {MPI_ERR_OTHER, "MPI_ERR_OTHER"},
      {MPI_ERR_INTERN, "MPI_ERR_INTERN"},
      {MPI_ERR_IN_STATUS, "MPI_ERR_IN_STATUS"},
      {MPI_ERR_PENDING, "MPI_ERR_PENDING"},
      {MPI_ERR_UNSUPPORTED_OPERATION, "MPI_ERR_UNSUPPORTED_OPERATION"},
  };
  for (size_t i = 0; i < sizeof classes / sizeof classes[0]; ++i) {
    if (classes[i].cls == cls) return classes[i].name;
  }
  snprintf(other, sizeof other, "class %d", cls);
  return other;
}

static inline int mt_ok(int rc, const char* call, int line) {
  if (rc == MPI_SUCCESS) return 1;
  int cls = 0;
  MPI_Error_class(rc, &cls);
  ++mt_failures;
  fprintf(stderr, "%s:%d: rank %d: %s returned %s\n", mt_name, line, mt_rank, call, mt_class_name(cls));
  say("FAILED line %d: %s returned %s", line, call, mt_class_name(cls));
  return 0;
}

static inline int mt_check(int ok, const char* cond, int line) {
  if (ok) return 1;
  ++mt_failures;
  fprintf(stderr, "%s:%d: rank %d: check failed: %s\n", mt_name, line, mt_rank, cond);
  say("FAILED line %d: %s", line, cond);
  return 0;
}

#define OK(call) mt_ok((call), #call, __LINE__)
#define CHECK(cond) mt_check((cond) ? 1 : 0, #cond, __LINE__)

/* Appends "label: v0 v1 ..." to the report. */
static inline void say_ints(const char* label, const int* v, int n) {
  char line[1024];
  int len = snprintf(line, sizeof line, "%s:", label);
  for (int i = 0; i < n && len < (int)sizeof line - 16; ++i)
    len += snprintf(line + len, sizeof line - (size_t)len, " %d", v[i]);
  say("%s", line);
}

/* MPI_Init, the world's rank and size, and MPI_ERRORS_RETURN on MPI_COMM_WORLD. */
static inline void mt_init(int* argc, char*** argv, const char* name) {
  mt_name = name;
  MPI_Init(argc, argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
}

/* Rank 0 prints every rank's report in rank order ("[r] line"), then the job's
 * failure count (its own count plus one if the sum over the ranks failed).
 * Returns the exit status (1 if any rank failed), the same on every rank when
 * the sum succeeded; call it before MPI_Finalize. */
static inline int mt_finish(void) {
  if (mt_rank == 0) {
    char* other = malloc(kMtReportBytes);
    for (int r = 0; r < mt_size; ++r) {
      int len = mt_len;
      const char* text = mt_report;
      if (r > 0) {
        MPI_Recv(&len, 1, MPI_INT, r, 9000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(other, len, MPI_CHAR, r, 9001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        text = other;
      }
      for (int i = 0; i < len;) {
        const char* nl = memchr(text + i, '\n', (size_t)(len - i));
        const int end = nl ? (int)(nl - text) : len;
        printf("[%d] %.*s\n", r, end - i, text + i);
        i = end + 1;
      }
    }
    free(other);
  } else {
    MPI_Send(&mt_len, 1, MPI_INT, 0, 9000, MPI_COMM_WORLD);
    MPI_Send(mt_report, mt_len, MPI_CHAR, 0, 9001, MPI_COMM_WORLD);
  }
  int failures = 0;
  /* A job whose count cannot be summed has failed: say so rather than 0. */
  if (MPI_Allreduce(&mt_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
    failures = mt_failures + 1;
  if (mt_rank == 0) printf("%s on %d ranks: %d failed checks\n", mt_name, mt_size, failures);
  fflush(stdout);
  return failures != 0;
}

#endif  // GPURUN_TESTS_MPI_MPITEST_H_
