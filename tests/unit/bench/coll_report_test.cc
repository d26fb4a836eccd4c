// gpurun-bench's nccl-tests-style output: the row columns, N/A for what was
// not checked or does not exist, the footer's totals, and the JSON document.
#include "bench/coll_report.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/unit/bench/text_capture.h"

namespace {

using gpurun::bench_test::Capture;
using gpurun::bench_test::Words;

Row SampleRow() {
  Row row;
  row.bytes = 1048576;
  row.count = 262144;
  row.type = "float";
  row.op = "sum";
  row.root = -1;
  row.variant[0] = MakeMeasure(1048576, 100.0, 1.5, 0);
  row.variant[1] = MakeMeasure(1048576, 200.0, 1.5, 3);
  return row;
}

TEST(CollReport, MeasureComputesBandwidths) {
  const Measure m = MakeMeasure(1000000, 100.0, 1.5, 0);  // 1e6 B in 100 us = 10 GB/s
  EXPECT_DOUBLE_EQ(m.algbw, 10.0);
  EXPECT_DOUBLE_EQ(m.busbw, 15.0);
}

TEST(CollReport, RowHasNcclTestsColumns) {
  const std::string line = Capture([](std::FILE* f) { PrintRow(f, SampleRow()); });
  EXPECT_EQ(Words(line), (std::vector<std::string>{"1048576", "262144", "float", "sum", "-1", "100.00", "10.49",
                                                   "15.73", "0", "200.00", "5.24", "7.86", "3"}));
}

TEST(CollReport, UncheckedAndMissingVariantsPrintNA) {
  Row row = SampleRow();
  row.variant[0].wrong = -1;
  row.variant[1] = Measure{};
  const std::vector<std::string> w = Words(Capture([&](std::FILE* f) { PrintRow(f, row); }));
  ASSERT_EQ(w.size(), 13u);
  EXPECT_EQ(w[8], "N/A");
  EXPECT_EQ(w[9], "N/A");
  EXPECT_EQ(w[12], "N/A");
}

TEST(CollReport, FooterSumsWrongAndAveragesBusBw) {
  std::vector<Row> rows = {SampleRow(), SampleRow()};
  rows[1].variant[1] = Measure{};  // not measured: left out of the average
  int64_t wrong = 0;
  const std::string text = Capture([&](std::FILE* f) { wrong = PrintFooter(f, rows); });
  EXPECT_EQ(wrong, 3);
  EXPECT_NE(text.find("# Out of bounds values : 3 FAILED"), std::string::npos) << text;
  const double expected = (rows[0].variant[0].busbw * 2 + rows[0].variant[1].busbw) / 3;
  EXPECT_DOUBLE_EQ(AverageBusBw(rows), expected);
  EXPECT_NE(text.find("# Avg bus bandwidth    : "), std::string::npos);
}

TEST(CollReport, HeaderStatesTheLaunch) {
  LaunchInfo info;
  info.collective = "allreduce";
  info.nranks = 2;
  info.algo = "ring";
  for (int r = 0; r < 2; ++r) {
    grPeerInfo_t p{};
    p.rank = r;
    p.pid = 100 + r;
    std::snprintf(p.host, sizeof(p.host), "node-a");
    info.peers.push_back(p);
  }
  const std::string text = Capture([&](std::FILE* f) { PrintHeader(f, info); });
  EXPECT_NE(text.find("allreduce: 2 ranks on 1 node(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("GPURUN_ALGO=ring"), std::string::npos);
  EXPECT_EQ(text.find("GPURUN_PROTO"), std::string::npos);  // unset: not printed
  EXPECT_NE(text.find("Pid     101 on node-a"), std::string::npos) << text;
  EXPECT_NE(text.find("#wrong"), std::string::npos);
}

TEST(CollReport, JsonHasOneRecordPerRow) {
  LaunchInfo info;
  info.collective = "bcast";
  info.nranks = 4;
  info.proto = "ll\"x";
  std::vector<Row> rows = {SampleRow(), SampleRow()};
  rows[1].variant[1] = Measure{};
  const std::string json = RowsToJson(info, rows);
  size_t records = 0;
  for (size_t at = json.find("\"size\": "); at != std::string::npos; at = json.find("\"size\": ", at + 1)) ++records;
  EXPECT_EQ(records, 2u);
  EXPECT_NE(json.find("\"collective\": \"bcast\""), std::string::npos);
  EXPECT_NE(json.find("\"proto\": \"ll\\\"x\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"in_place\": null"), std::string::npos);
  EXPECT_NE(json.find("\"wrong\": 3"), std::string::npos);
}

}  // namespace
