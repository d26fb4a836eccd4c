// Whole-line output splitting and tagging (see line_tagger.h).
#include "runtime/launcher/line_tagger.h"

namespace gpurun::launcher {

LineTagger::LineTagger(int rank, bool tag) : prefix_(tag ? "[" + std::to_string(rank) + "] " : "") {}

void LineTagger::EmitLine(std::string_view line, bool add_newline, std::string& out) const {
  out += prefix_;
  out += line;
  if (add_newline) out += '\n';
}

std::string LineTagger::Feed(std::string_view bytes) {
  std::string out;
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      partial_ += bytes;
      break;
    }
    if (partial_.empty()) {
      EmitLine(bytes.substr(0, nl + 1), false, out);
    } else {
      partial_ += bytes.substr(0, nl + 1);
      EmitLine(partial_, false, out);
      partial_.clear();
    }
    bytes.remove_prefix(nl + 1);
  }
  while (partial_.size() >= kMaxLine) {
    EmitLine(std::string_view(partial_).substr(0, kMaxLine), !prefix_.empty(), out);
    partial_.erase(0, kMaxLine);
  }
  return out;
}

std::string LineTagger::Finish() {
  std::string out;
  if (!partial_.empty()) EmitLine(partial_, !prefix_.empty(), out);
  partial_.clear();
  return out;
}

}  // namespace gpurun::launcher
