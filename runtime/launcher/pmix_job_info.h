// The job description handed to PMIx_server_register_nspace: job-level keys
// (sizes, node and proc maps, this node's peers) and one PMIX_PROC_DATA array
// per rank. Without the maps a client's PMIx_Init fails or hangs.
#ifndef GPURUN_RUNTIME_LAUNCHER_PMIX_JOB_INFO_H_
#define GPURUN_RUNTIME_LAUNCHER_PMIX_JOB_INFO_H_

#include <pmix_server.h>

#include <string>

#include "runtime/base/status.h"
#include "runtime/launcher/job_layout.h"

namespace gpurun::launcher {

// An owned array of pmix_info_t (released with PMIx_Data_array_destruct).
class PmixInfoArray {
 public:
  PmixInfoArray() = default;
  explicit PmixInfoArray(pmix_data_array_t array) : array_(array) {}
  PmixInfoArray(PmixInfoArray&& other) noexcept : array_(other.array_) { other.array_ = {}; }
  PmixInfoArray& operator=(PmixInfoArray&&) = delete;
  PmixInfoArray(const PmixInfoArray&) = delete;
  ~PmixInfoArray();

  pmix_info_t* data() { return static_cast<pmix_info_t*>(array_.array); }
  size_t size() const { return array_.size; }

 private:
  pmix_data_array_t array_{};
};

// Describes the job for the PMIx server running on node `this_node`.
StatusOr<PmixInfoArray> BuildJobInfo(const JobLayout& layout, int this_node, const std::string& job_id);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_PMIX_JOB_INFO_H_
