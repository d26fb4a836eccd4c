// gpurun-bench --compare nccl output: one wide line per row with, for the
// out-of-place and then the in-place variant, gpurun's time, busbw and
// #wrong, NCCL's, and the ratio busbw(gpurun) / busbw(nccl) (above 1: gpurun
// is faster); its column titles, its footer lines, and its JSON fields.
// Every row has 19 words (N/A where a value does not exist).
#ifndef GPURUN_BENCH_COMPARE_REPORT_H_
#define GPURUN_BENCH_COMPARE_REPORT_H_

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "bench/coll_report.h"

// busbw(gpurun) / busbw(nccl); nullopt unless both were measured and NCCL's busbw is positive.
std::optional<double> BusBwRatio(const Measure& gpurun, const Measure& nccl);

// The column titles (printed by PrintHeader when LaunchInfo::compare is set).
void PrintCompareColumns(std::FILE* out);
void PrintCompareRow(std::FILE* out, const Row& row);

// Footer lines after PrintFooter's: NCCL's wrong count and average busbw, and
// the geometric mean of the ratios. Returns NCCL's wrong count.
int64_t PrintCompareFooter(std::FILE* out, const std::vector<Row>& rows);

// ", \"nccl_out_of_place\": {...}, ..., \"busbw_ratio_in_place\": 1.02": the
// fields RowsToJson appends to a row in compare mode.
std::string CompareJsonFields(const Row& row);

#endif  // GPURUN_BENCH_COMPARE_REPORT_H_
