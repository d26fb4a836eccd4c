// The --compare nccl rows, titles, footer and JSON fields (see compare_report.h).
#include "bench/compare_report.h"

#include <cinttypes>
#include <cmath>
#include <iterator>

namespace {

// Widths of the row's words: size, count, type, redop, root, then per variant
// gpurun's time, busbw, #wrong, NCCL's time, busbw, #wrong, and the ratio.
constexpr int kPrefixWidths[] = {12, 12, 8, 6, 6};
constexpr int kBlockWidths[] = {8, 7, 6, 8, 7, 6, 6};
constexpr size_t kPrefixCols = std::size(kPrefixWidths);
constexpr size_t kBlockCols = std::size(kBlockWidths);

int Width(size_t col) {
  return col < kPrefixCols ? kPrefixWidths[col] : kBlockWidths[(col - kPrefixCols) % kBlockCols];
}

// The cells right-aligned to their widths, two blanks apart; a header line
// starts with '#' inside the first cell's width. No trailing blanks.
std::string Line(const std::vector<std::string>& cells, bool header) {
  std::string s = header ? "#" : "";
  for (size_t i = 0; i < cells.size(); ++i) {
    if (i > 0) s += "  ";
    const int width = Width(i) - (header && i == 0 ? 1 : 0);
    if (static_cast<int>(cells[i].size()) < width) s.append(width - cells[i].size(), ' ');
    s += cells[i];
  }
  s.erase(s.find_last_not_of(' ') + 1);
  return s;
}

// Where column `col` starts in a Line.
size_t ColumnStart(size_t col) {
  size_t at = 0;
  for (size_t i = 0; i < col; ++i) at += Width(i) + 2;
  return at;
}

// Writes `text` into `line` from column `at`, padding with blanks.
void Place(std::string& line, size_t at, const std::string& text) {
  if (line.size() < at + text.size()) line.resize(at + text.size(), ' ');
  line.replace(at, text.size(), text);
}

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

void AppendMeasure(std::vector<std::string>& cells, const Measure& m) {
  if (!m.measured) {
    cells.insert(cells.end(), {"N/A", "N/A", "N/A"});
    return;
  }
  cells.push_back(FormatTime(m.time_us));
  cells.push_back(Fixed(m.busbw));
  cells.push_back(m.wrong < 0 ? "N/A" : std::to_string(m.wrong));
}

std::string RatioText(const Row& row, int v) {
  const auto ratio = BusBwRatio(row.variant[v], row.nccl[v]);
  return ratio ? Fixed(*ratio) : "N/A";
}

std::string RatioJson(const Row& row, int v) {
  const auto ratio = BusBwRatio(row.variant[v], row.nccl[v]);
  return ratio ? JsonNumber(*ratio) : "null";
}

}  // namespace

std::optional<double> BusBwRatio(const Measure& gpurun, const Measure& nccl) {
  if (!gpurun.measured || !nccl.measured || !(nccl.busbw > 0)) return std::nullopt;
  return gpurun.busbw / nccl.busbw;
}

void PrintCompareColumns(std::FILE* out) {
  std::string groups = "#", libs = "#";
  for (int v = 0; v < 2; ++v) {
    const size_t block = kPrefixCols + v * kBlockCols;
    Place(groups, ColumnStart(block), v == 0 ? "out-of-place" : "in-place");
    Place(libs, ColumnStart(block), "gpurun");
    Place(libs, ColumnStart(block + 3), "nccl");
    Place(libs, ColumnStart(block + 6), "gr/nc");
  }
  const std::vector<std::string> block = {"time", "busbw", "#wrong", "time", "busbw", "#wrong", "ratio"};
  const std::vector<std::string> units = {"(us)", "(GB/s)", "", "(us)", "(GB/s)", "", "busbw"};
  std::vector<std::string> titles = {"size", "count", "type", "redop", "root"};
  std::vector<std::string> unit_titles = {"(B)", "(elements)", "", "", ""};
  for (int v = 0; v < 2; ++v) {
    titles.insert(titles.end(), block.begin(), block.end());
    unit_titles.insert(unit_titles.end(), units.begin(), units.end());
  }
  std::fprintf(out, "#\n%s\n%s\n%s\n%s\n", groups.c_str(), libs.c_str(), Line(titles, true).c_str(),
               Line(unit_titles, true).c_str());
  std::fflush(out);
}

void PrintCompareRow(std::FILE* out, const Row& row) {
  std::vector<std::string> cells = {std::to_string(row.bytes), std::to_string(row.count), row.type, row.op,
                                    std::to_string(row.root)};
  for (int v = 0; v < 2; ++v) {
    AppendMeasure(cells, row.variant[v]);
    AppendMeasure(cells, row.nccl[v]);
    cells.push_back(RatioText(row, v));
  }
  std::fprintf(out, "%s\n", Line(cells, false).c_str());
  std::fflush(out);
}

int64_t PrintCompareFooter(std::FILE* out, const std::vector<Row>& rows) {
  int64_t wrong = 0;
  double log_sum = 0;
  int ratios = 0;
  for (const Row& row : rows) {
    for (int v = 0; v < 2; ++v) {
      wrong += row.nccl[v].wrong > 0 ? row.nccl[v].wrong : 0;
      const auto ratio = BusBwRatio(row.variant[v], row.nccl[v]);
      if (ratio && *ratio > 0) {
        log_sum += std::log(*ratio);
        ++ratios;
      }
    }
  }
  std::fprintf(out, "# NCCL out of bounds values : %" PRId64 " %s\n", wrong, wrong == 0 ? "OK" : "FAILED");
  std::fprintf(out, "# NCCL avg bus bandwidth    : %g\n", AverageBusBw(rows, true));
  if (ratios > 0) {
    std::fprintf(out, "# busbw gpurun/nccl         : %.3f (geometric mean over %d measures)\n#\n",
                 std::exp(log_sum / ratios), ratios);
  } else {
    std::fprintf(out, "# busbw gpurun/nccl         : N/A\n#\n");
  }
  std::fflush(out);
  return wrong;
}

std::string CompareJsonFields(const Row& row) {
  return ", \"nccl_out_of_place\": " + MeasureJson(row.nccl[0]) + ", \"nccl_in_place\": " + MeasureJson(row.nccl[1]) +
         ", \"busbw_ratio_out_of_place\": " + RatioJson(row, 0) + ", \"busbw_ratio_in_place\": " + RatioJson(row, 1);
}
