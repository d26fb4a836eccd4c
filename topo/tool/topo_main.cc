// gpurun-topo: prints this node's GPUs as gpurun sees them — PCI ids, size,
// NUMA/CPU locality, the peer access and NVLink matrices, and the ring hints
// (topo/local_gpus.h) — or one "no CUDA device" line. GPURUN_DEBUG=INFO
// GPURUN_DEBUG_SUBSYS=TOPO shows how discovery went. Exit status 0 on success
// (also with no device), 1 when discovery fails, 2 on bad usage.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/env.h"
#include "runtime/base/log.h"
#include "runtime/base/params.h"
#include "topo/local_gpus.h"
#include "topo/ring_links.h"

namespace gpurun::topo {
namespace {

constexpr const char* kUsage =
    "usage: gpurun-topo\n"
    "Prints the CUDA devices of this node: PCI bus id, SMs, memory, NUMA node and local CPUs,\n"
    "which GPU can map which (peer access), NVLinks between them, and gpurun's ring hints.\n";

void PrintGpus(const std::vector<GpuInfo>& gpus) {
  std::printf("gpurun-topo: %zu CUDA device(s)\n", gpus.size());
  for (const GpuInfo& gpu : gpus) {
    const double gib = static_cast<double>(gpu.total_memory) / (1024.0 * 1024.0 * 1024.0);
    const std::string numa = gpu.numa_node == kUnknown ? "?" : std::to_string(gpu.numa_node);
    std::printf("GPU%d  %s  %s  sm_%d%d  %d SMs  %.1f GiB  NUMA %s  CPUs %s\n", gpu.cuda_ordinal, gpu.bus_id.c_str(),
                gpu.name.c_str(), gpu.cc_major, gpu.cc_minor, gpu.sm_count, gib, numa.c_str(),
                gpu.local_cpus.empty() ? "?" : gpu.local_cpus.c_str());
  }
}

// An n x n table with GPU headers; `cell(i, j)` for i != j, "X" on the diagonal.
void PrintMatrix(const char* title, size_t n, const std::function<std::string(size_t, size_t)>& cell) {
  std::printf("\n%s\n%6s", title, "");
  for (size_t j = 0; j < n; ++j) std::printf("%6s", ("GPU" + std::to_string(j)).c_str());
  std::printf("\n");
  for (size_t i = 0; i < n; ++i) {
    std::printf("%6s", ("GPU" + std::to_string(i)).c_str());
    for (size_t j = 0; j < n; ++j) std::printf("%6s", i == j ? "X" : cell(i, j).c_str());
    std::printf("\n");
  }
}

std::string PeerCell(size_t i, size_t j) {
  StatusOr<bool> can = PeerAccess(static_cast<int>(i), static_cast<int>(j));
  if (!can.ok()) return "err";
  return *can ? "yes" : "no";
}

// One ring over every GPU, one rank each: its order and gpurun's channels for it.
void PrintRingHint(const std::vector<GpuInfo>& gpus) {
  std::vector<std::string> bus_ids;
  bus_ids.reserve(gpus.size());
  for (const GpuInfo& gpu : gpus) bus_ids.push_back(gpu.bus_id);
  const std::vector<int> order = RingOrder(bus_ids);
  std::string text;
  for (int k : order) text += " GPU" + std::to_string(k);
  GpuRingShape shape;
  shape.narrowest_nvlinks = NarrowestRingHopFromNvml(bus_ids, order);
  shape.sm_count = gpus[0].sm_count;
  const std::string hop = shape.narrowest_nvlinks == kNoGpuHop  ? "none (one GPU)"
                          : shape.narrowest_nvlinks == kUnknown ? "unknown"
                                                                : std::to_string(shape.narrowest_nvlinks) + " NVLinks";
  std::printf("\nRing hint: order%s, narrowest hop %s -> %d GPU ring channels (one rank per GPU, CUDA IPC)\n",
              text.c_str(), hop.c_str(), GpuRingChannels(shape));
}

int Run(int argc, char** argv) {
  if (argc > 1) {
    const std::string_view arg = argv[1];
    (void)std::fputs(kUsage, (arg == "-h" || arg == "--help") ? stdout : stderr);
    return (arg == "-h" || arg == "--help") ? 0 : 2;
  }
  if (Status status = ParamRegistry::Global().Load(ProcessEnv()); !status.ok()) {
    (void)std::fprintf(stderr, "gpurun-topo: %s\n", status.ToString().c_str());
    return 2;
  }
  Logger::SetRole("gpurun-topo");
  Logger::ConfigureFromParams();
  StatusOr<std::vector<GpuInfo>> gpus = DiscoverLocalGpus();
  if (!gpus.ok()) {
    (void)std::fprintf(stderr, "gpurun-topo: GPU discovery failed: %s\n", gpus.status().ToString().c_str());
    return 1;
  }
  if (gpus->empty()) {
    std::printf("gpurun-topo: no CUDA device (no GPU, no driver, or a build without CUDA)\n");
    return 0;
  }
  PrintGpus(*gpus);
  const size_t n = gpus->size();
  if (n > 1) {
    PrintMatrix("Peer access (row can map column's memory):", n, PeerCell);
    PrintMatrix("NVLinks (row to column, ? = unknown):", n, [&](size_t i, size_t j) {
      const int links = (*gpus)[i].nvlinks[j];
      return links == kUnknown ? std::string("?") : std::to_string(links);
    });
    PrintRingHint(*gpus);
  }
  return 0;
}

}  // namespace
}  // namespace gpurun::topo

int main(int argc, char** argv) { return gpurun::topo::Run(argc, argv); }
