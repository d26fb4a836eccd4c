// Segment names (see shm_names.h).
#include "p2p/shm/shm_names.h"

#include <dirent.h>
#include <sys/mman.h>

#include <cctype>
#include <memory>

namespace gpurun::p2p {
namespace {

// Room for "/gpurun-", "-", a rank and the terminator within NAME_MAX (255).
constexpr size_t kMaxJobChars = 200;

std::string Sanitize(const std::string& job_id) {
  std::string out;
  out.reserve(std::min(job_id.size(), kMaxJobChars));
  for (char c : job_id) {
    if (out.size() == kMaxJobChars) break;
    const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    out.push_back(plain ? c : '_');
  }
  return out;
}

}  // namespace

std::string ShmSegmentPrefix(const std::string& job_id) { return "/gpurun-" + Sanitize(job_id) + "-"; }

std::string ShmSegmentName(const std::string& job_id, int rank) {
  return ShmSegmentPrefix(job_id) + std::to_string(rank);
}

bool IsShmSegmentOf(const std::string& job_id, std::string_view file_name) {
  const std::string prefix = ShmSegmentPrefix(job_id).substr(1);
  if (file_name.size() <= prefix.size() || file_name.substr(0, prefix.size()) != prefix) return false;
  for (char c : file_name.substr(prefix.size())) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

int RemoveShmSegments(const std::string& job_id) {
  std::unique_ptr<DIR, int (*)(DIR*)> dir(opendir("/dev/shm"), closedir);
  if (!dir) return 0;
  int removed = 0;
  while (const dirent* entry = readdir(dir.get())) {
    if (!IsShmSegmentOf(job_id, entry->d_name)) continue;
    if (shm_unlink(("/" + std::string(entry->d_name)).c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace gpurun::p2p
