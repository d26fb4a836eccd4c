// What gpurun-bench prints for a collective, in nccl-tests' format
// (../shared/reference/nccl_anchor.md §2.2): header lines that state the
// launch, one row per (type, op, root, size) with an out-of-place and an
// in-place block, the "Out of bounds values" and "Avg bus bandwidth" footer;
// and the same rows as a JSON document (--json). With --compare nccl the rows
// carry NCCL's measures too and print as compare_report.h lays them out.
#ifndef GPURUN_BENCH_COLL_REPORT_H_
#define GPURUN_BENCH_COLL_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "gpurun/gpurun.h"

// How the job was launched, for the header.
struct LaunchInfo {
  std::string collective;
  int nranks = 0;
  std::string path = "host";  // "host" or "cuda" (--device), the JSON's "path"
  std::string path_text = "host path (host buffers, GR_STREAM_HOST)";
  std::string launch;              // device runs: LaunchLine (device_setup.h)
  std::vector<std::string> notes;  // further header lines (GPU, NCCL)
  bool compare = false;            // --compare nccl: rows carry Row::nccl
  std::string nccl_version;
  std::vector<grPeerInfo_t> peers;  // every rank's, in rank order
  std::string algo;                 // GPURUN_ALGO ("" when unset)
  std::string proto;                // GPURUN_PROTO
  std::string sweep;                // e.g. "8 B .. 16 MiB, x2"
  std::string iters;                // e.g. "iters: size-dependent (1000 .. 20), warmup ..."
  int checks = 0;
};

// One measured variant of a row. wrong < 0: not checked (printed N/A).
struct Measure {
  bool measured = false;  // false: the variant does not exist (barrier in place)
  double time_us = 0;
  double algbw = 0;  // GB/s
  double busbw = 0;
  int64_t wrong = -1;
};

struct Row {
  size_t bytes = 0;
  size_t count = 0;
  std::string type;
  std::string op;
  int root = -1;
  Measure variant[2];  // out of place, in place
  Measure nccl[2];     // --compare nccl: NCCL's, same order
};

// algbw in GB/s of `bytes` moved in `time_us`, and busbw = algbw * factor.
Measure MakeMeasure(size_t bytes, double time_us, double bus_factor, int64_t wrong);

void PrintHeader(std::FILE* out, const LaunchInfo& info);
void PrintRow(std::FILE* out, const Row& row);
// The footer; returns the total wrong count.
int64_t PrintFooter(std::FILE* out, const std::vector<Row>& rows);

// The mean busbw over every measured variant of every row (nccl-tests' "Avg
// bus bandwidth"): gpurun's, or with `nccl` NCCL's.
double AverageBusBw(const std::vector<Row>& rows, bool nccl = false);

// The rows as one JSON document; false (with errno set) when the file cannot be written.
bool WriteJson(const std::string& path, const LaunchInfo& info, const std::vector<Row>& rows);
std::string RowsToJson(const LaunchInfo& info, const std::vector<Row>& rows);

// The JSON file of one collective of `gpurun-bench all`: the collective's
// name before the extension ("out.json" -> "out.allreduce.json"), or appended.
std::string JsonPathFor(const std::string& path, const std::string& collective);

// Pieces shared with compare_report.cc: a time as nccl-tests prints it
// ("12.34"), and JSON values.
std::string FormatTime(double time_us);
std::string JsonString(const std::string& s);
std::string JsonNumber(double v);
std::string MeasureJson(const Measure& m);  // null when not measured

#endif  // GPURUN_BENCH_COLL_REPORT_H_
