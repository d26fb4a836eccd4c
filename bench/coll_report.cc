// nccl-tests-style text and JSON output (see coll_report.h).
#include "bench/coll_report.h"

#include <cinttypes>
#include <set>

#include "bench/compare_report.h"

namespace {

void PrintMeasure(std::FILE* out, const Measure& m) {
  if (!m.measured) {
    std::fprintf(out, "  %7s  %6s  %6s  %6s", "N/A", "N/A", "N/A", "N/A");
    return;
  }
  char wrong[24] = "N/A";
  if (m.wrong >= 0) std::snprintf(wrong, sizeof(wrong), "%" PRId64, m.wrong);
  std::fprintf(out, "  %7s  %6.2f  %6.2f  %6s", FormatTime(m.time_us).c_str(), m.algbw, m.busbw, wrong);
}

// One header line of column titles, aligned with the rows, without trailing blanks.
void PrintColumnTitles(std::FILE* out, const std::vector<std::string>& t) {
  char line[256];
  std::snprintf(line, sizeof(line), "#%11s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s", t[0].c_str(),
                t[1].c_str(), t[2].c_str(), t[3].c_str(), t[4].c_str(), t[5].c_str(), t[6].c_str(), t[7].c_str(),
                t[8].c_str(), t[9].c_str(), t[10].c_str(), t[11].c_str(), t[12].c_str());
  std::string s = line;
  s.erase(s.find_last_not_of(' ') + 1);
  std::fprintf(out, "%s\n", s.c_str());
}

}  // namespace

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string JsonNumber(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string MeasureJson(const Measure& m) {
  if (!m.measured) return "null";
  return "{\"time_us\": " + JsonNumber(m.time_us) + ", \"algbw_gbps\": " + JsonNumber(m.algbw) +
         ", \"busbw_gbps\": " + JsonNumber(m.busbw) +
         ", \"wrong\": " + (m.wrong < 0 ? std::string("null") : std::to_string(m.wrong)) + "}";
}

// nccl-tests prints times below 10 ms with 2 decimals, then fewer.
std::string FormatTime(double time_us) {
  char time[32];
  std::snprintf(time, sizeof(time), time_us < 1e4 ? "%.2f" : time_us < 1e5 ? "%.1f" : "%.0f", time_us);
  return time;
}

Measure MakeMeasure(size_t bytes, double time_us, double bus_factor, int64_t wrong) {
  Measure m;
  m.measured = true;
  m.time_us = time_us;
  m.algbw = time_us > 0 ? static_cast<double>(bytes) / time_us / 1e3 : 0;
  m.busbw = m.algbw * bus_factor;
  m.wrong = wrong;
  return m;
}

void PrintHeader(std::FILE* out, const LaunchInfo& info) {
  std::set<int> nodes;
  for (const grPeerInfo_t& p : info.peers) nodes.insert(p.node_id);
  std::fprintf(out, "# gpurun-bench %s: %d ranks on %zu node(s), %s\n", info.collective.c_str(), info.nranks,
               nodes.size(), info.path_text.c_str());
  if (!info.launch.empty()) std::fprintf(out, "# %s\n", info.launch.c_str());
  for (const std::string& note : info.notes) std::fprintf(out, "#  %s\n", note.c_str());
  if (!info.algo.empty()) std::fprintf(out, "#  GPURUN_ALGO=%s\n", info.algo.c_str());
  if (!info.proto.empty()) std::fprintf(out, "#  GPURUN_PROTO=%s\n", info.proto.c_str());
  std::fprintf(out, "#  sizes %s; %s; check iterations %d\n", info.sweep.c_str(), info.iters.c_str(), info.checks);
  for (const grPeerInfo_t& p : info.peers) {
    std::fprintf(out, "#  Rank %3d Pid %7d on %s (node %d, local rank %d of %d)\n", p.rank, p.pid, p.host, p.node_id,
                 p.local_rank, p.local_size);
  }
  if (info.compare) {
    PrintCompareColumns(out);
    return;
  }
  // The blocks start after the 52 columns of size .. root and are 33 wide.
  std::fprintf(out, "#\n#%61s%s%23s%s\n", "", "out-of-place", "", "in-place");
  PrintColumnTitles(out, {"size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw",
                          "busbw", "#wrong"});
  PrintColumnTitles(out,
                    {"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""});
  std::fflush(out);
}

void PrintRow(std::FILE* out, const Row& row) {
  std::fprintf(out, "%12zu  %12zu  %8s  %6s  %6d", row.bytes, row.count, row.type.c_str(), row.op.c_str(), row.root);
  PrintMeasure(out, row.variant[0]);
  PrintMeasure(out, row.variant[1]);
  std::fprintf(out, "\n");
  std::fflush(out);
}

double AverageBusBw(const std::vector<Row>& rows, bool nccl) {
  double sum = 0;
  int n = 0;
  for (const Row& row : rows) {
    for (const Measure& m : nccl ? row.nccl : row.variant) {
      if (!m.measured) continue;
      sum += m.busbw;
      ++n;
    }
  }
  return n > 0 ? sum / n : 0;
}

int64_t PrintFooter(std::FILE* out, const std::vector<Row>& rows) {
  int64_t wrong = 0;
  for (const Row& row : rows) {
    for (const Measure& m : row.variant) wrong += m.wrong > 0 ? m.wrong : 0;
  }
  std::fprintf(out, "# Out of bounds values : %" PRId64 " %s\n", wrong, wrong == 0 ? "OK" : "FAILED");
  std::fprintf(out, "# Avg bus bandwidth    : %g\n#\n", AverageBusBw(rows));
  std::fflush(out);
  return wrong;
}

std::string RowsToJson(const LaunchInfo& info, const std::vector<Row>& rows) {
  std::string s = "{\n  \"benchmark\": \"gpurun-bench\",\n  \"collective\": " + JsonString(info.collective) +
                  ",\n  \"ranks\": " + std::to_string(info.nranks) + ",\n  \"path\": " + JsonString(info.path) +
                  ",\n  \"algo\": " + JsonString(info.algo) + ",\n  \"proto\": " + JsonString(info.proto) +
                  ",\n  \"checks\": " + std::to_string(info.checks);
  if (!info.launch.empty()) s += ",\n  \"launch\": " + JsonString(info.launch);
  if (info.compare) s += ",\n  \"nccl_version\": " + JsonString(info.nccl_version);
  s += ",\n  \"rows\": [";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    s += (i == 0 ? "\n" : ",\n");
    s += "    {\"size\": " + std::to_string(r.bytes) + ", \"count\": " + std::to_string(r.count) +
         ", \"type\": " + JsonString(r.type) + ", \"redop\": " + JsonString(r.op) +
         ", \"root\": " + std::to_string(r.root) + ", \"out_of_place\": " + MeasureJson(r.variant[0]) +
         ", \"in_place\": " + MeasureJson(r.variant[1]) + (info.compare ? CompareJsonFields(r) : "") + "}";
  }
  s += "\n  ],\n  \"avg_busbw_gbps\": " + JsonNumber(AverageBusBw(rows));
  if (info.compare) s += ",\n  \"avg_busbw_gbps_nccl\": " + JsonNumber(AverageBusBw(rows, true));
  return s + "\n}\n";
}

bool WriteJson(const std::string& path, const LaunchInfo& info, const std::vector<Row>& rows) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  const std::string text = RowsToJson(info, rows);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  return std::fclose(f) == 0 && ok;
}

std::string JsonPathFor(const std::string& path, const std::string& collective) {
  const size_t slash = path.find_last_of('/');
  const size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  const size_t dot = path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && dot > name_start;  // not a leading dot
  if (!has_ext) return path + "." + collective;
  return path.substr(0, dot) + "." + collective + path.substr(dot);
}
