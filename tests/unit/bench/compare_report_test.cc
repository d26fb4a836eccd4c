// gpurun-bench --compare nccl output: the ratio, the 19-word rows with N/A
// where a value does not exist, the titles aligned with the rows, the footer,
// the JSON fields; and the device lines of the header and the JSON file
// names of `gpurun-bench all`.
#include "bench/compare_report.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "tests/unit/bench/text_capture.h"

namespace {

using gpurun::bench_test::Capture;
using gpurun::bench_test::Words;

std::vector<std::string> Lines(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

// 1 MiB allreduce on 2 ranks (bus factor 1): gpurun 100 us and 200 us, NCCL 50 us and 200 us.
Row SampleRow() {
  Row row;
  row.bytes = 1048576;
  row.count = 262144;
  row.type = "float";
  row.op = "sum";
  row.root = -1;
  row.variant[0] = MakeMeasure(1048576, 100.0, 1.0, 0);
  row.variant[1] = MakeMeasure(1048576, 200.0, 1.0, 0);
  row.nccl[0] = MakeMeasure(1048576, 50.0, 1.0, 0);
  row.nccl[1] = MakeMeasure(1048576, 200.0, 1.0, 2);
  return row;
}

TEST(CompareReport, RatioIsGpurunOverNccl) {
  const Row row = SampleRow();
  EXPECT_DOUBLE_EQ(*BusBwRatio(row.variant[0], row.nccl[0]), 0.5);
  EXPECT_DOUBLE_EQ(*BusBwRatio(row.variant[1], row.nccl[1]), 1.0);
  EXPECT_FALSE(BusBwRatio(row.variant[0], Measure{}).has_value());
  EXPECT_FALSE(BusBwRatio(Measure{}, row.nccl[0]).has_value());
  EXPECT_FALSE(BusBwRatio(row.variant[0], MakeMeasure(0, 1.0, 1.0, 0)).has_value());  // NCCL busbw 0
}

TEST(CompareReport, RowHasBothLibrariesAndTheRatio) {
  const std::string line = Capture([](std::FILE* f) { PrintCompareRow(f, SampleRow()); });
  EXPECT_EQ(Words(line),
            (std::vector<std::string>{"1048576", "262144", "float", "sum", "-1", "100.00", "10.49", "0", "50.00",
                                      "20.97", "0", "0.50", "200.00", "5.24", "0", "200.00", "5.24", "2", "1.00"}));
}

TEST(CompareReport, MissingMeasuresPrintNA) {
  Row row = SampleRow();
  row.nccl[1] = Measure{};    // e.g. no in-place alltoall in NCCL
  row.variant[0].wrong = -1;  // not checked
  const std::vector<std::string> w = Words(Capture([&](std::FILE* f) { PrintCompareRow(f, row); }));
  ASSERT_EQ(w.size(), 19u);
  EXPECT_EQ(w[7], "N/A");
  EXPECT_EQ(w[15], "N/A");
  EXPECT_EQ(w[16], "N/A");
  EXPECT_EQ(w[17], "N/A");
  EXPECT_EQ(w[18], "N/A");  // no ratio without NCCL's measure
}

TEST(CompareReport, TitlesLineUpWithTheRows) {
  const std::vector<std::string> lines = Lines(Capture(PrintCompareColumns));
  ASSERT_EQ(lines.size(), 5u);
  const std::string row = Capture([](std::FILE* f) { PrintCompareRow(f, SampleRow()); });
  const std::string& titles = lines[3];
  EXPECT_EQ(Words(titles).size(), 20u);      // "#" and the 19 titles
  EXPECT_EQ(titles.size(), row.size() - 1);  // the row ends in '\n'; both end with a right-aligned cell
  EXPECT_NE(lines[1].find("out-of-place"), std::string::npos);
  EXPECT_NE(lines[1].find("in-place"), std::string::npos);
  EXPECT_NE(lines[2].find("gpurun"), std::string::npos);
  EXPECT_NE(lines[2].find("nccl"), std::string::npos);
  // The ratio's title ends where the row's last word ends.
  EXPECT_EQ(titles.substr(titles.size() - 5), "ratio");
}

TEST(CompareReport, FooterCountsNcclWrongAndAveragesTheRatios) {
  std::vector<Row> rows = {SampleRow()};
  int64_t wrong = 0;
  const std::string text = Capture([&](std::FILE* f) { wrong = PrintCompareFooter(f, rows); });
  EXPECT_EQ(wrong, 2);
  EXPECT_NE(text.find("# NCCL out of bounds values : 2 FAILED"), std::string::npos) << text;
  EXPECT_NE(text.find("0.707 (geometric mean over 2 measures)"), std::string::npos) << text;  // sqrt(0.5 * 1)
  EXPECT_DOUBLE_EQ(AverageBusBw(rows, true), (rows[0].nccl[0].busbw + rows[0].nccl[1].busbw) / 2);
}

TEST(CompareReport, JsonCarriesNcclAndTheRatios) {
  LaunchInfo info;
  info.collective = "allreduce";
  info.nranks = 2;
  info.path = "cuda";
  info.launch = "launch: one process per GPU, eager launches (no CUDA graph), stream-ordered";
  info.compare = true;
  info.nccl_version = "2.28.9";
  Row row = SampleRow();
  row.nccl[1] = Measure{};
  const std::string json = RowsToJson(info, {row});
  EXPECT_NE(json.find("\"path\": \"cuda\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"launch\": \"launch: one process per GPU"), std::string::npos) << json;
  EXPECT_NE(json.find("\"nccl_version\": \"2.28.9\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"nccl_out_of_place\": {\"time_us\": 50"), std::string::npos) << json;
  EXPECT_NE(json.find("\"nccl_in_place\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"busbw_ratio_out_of_place\": 0.5"), std::string::npos) << json;
  EXPECT_NE(json.find("\"busbw_ratio_in_place\": null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"avg_busbw_gbps_nccl\": "), std::string::npos) << json;
}

TEST(CompareReport, HostJsonHasNoDeviceFields) {
  LaunchInfo info;
  info.collective = "allreduce";
  const std::string json = RowsToJson(info, {SampleRow()});
  EXPECT_NE(json.find("\"path\": \"host\""), std::string::npos);
  EXPECT_EQ(json.find("nccl"), std::string::npos) << json;
  EXPECT_EQ(json.find("launch"), std::string::npos) << json;
}

TEST(CompareReport, HeaderStatesTheDeviceLaunch) {
  LaunchInfo info;
  info.collective = "allreduce";
  info.nranks = 2;
  info.path_text = "device path (cudaMalloc buffers)";
  info.launch = "launch: one process per GPU, eager launches (no CUDA graph), stream-ordered";
  info.notes = {"NCCL 2.28.9 (libnccl.so.2), NCCL_NVLS_ENABLE=0"};
  info.compare = true;
  const std::string text = Capture([&](std::FILE* f) { PrintHeader(f, info); });
  EXPECT_NE(text.find("allreduce: 2 ranks on 0 node(s), device path (cudaMalloc buffers)\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\n# launch: one process per GPU, eager launches (no CUDA graph), stream-ordered\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#  NCCL 2.28.9 (libnccl.so.2), NCCL_NVLS_ENABLE=0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ratio"), std::string::npos) << text;
}

TEST(JsonPathFor, InsertsTheCollectiveBeforeTheExtension) {
  EXPECT_EQ(JsonPathFor("out.json", "allreduce"), "out.allreduce.json");
  EXPECT_EQ(JsonPathFor("/tmp/run.1/out.json", "bcast"), "/tmp/run.1/out.bcast.json");
  EXPECT_EQ(JsonPathFor("/tmp/run.1/out", "bcast"), "/tmp/run.1/out.bcast");
  EXPECT_EQ(JsonPathFor("out", "gather"), "out.gather");
  EXPECT_EQ(JsonPathFor(".hidden", "gather"), ".hidden.gather");
}

}  // namespace
