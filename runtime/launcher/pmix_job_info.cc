// Job description for PMIx_server_register_nspace (see pmix_job_info.h).
#include "runtime/launcher/pmix_job_info.h"

#include <pmix.h>

#include <cstdlib>
#include <memory>

namespace gpurun::launcher {
namespace {

Status PmixError(const std::string& what, pmix_status_t rc) { return SystemError(what + ": " + PMIx_Error_string(rc)); }

// RAII over PMIx_Info_list_start/add/convert/release.
class InfoList {
 public:
  InfoList() : list_(PMIx_Info_list_start()) {}
  ~InfoList() { PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  // Copies *value of PMIx type `type`; the first failure is kept for Convert.
  void Add(const char* key, const void* value, pmix_data_type_t type) {
    const pmix_status_t rc = PMIx_Info_list_add(list_, key, value, type);
    if (rc != PMIX_SUCCESS && status_.ok()) status_ = PmixError(std::string("adding ") + key, rc);
  }
  void AddUint32(const char* key, uint32_t value) { Add(key, &value, PMIX_UINT32); }
  void AddUint16(const char* key, uint16_t value) { Add(key, &value, PMIX_UINT16); }
  void AddRank(const char* key, pmix_rank_t value) { Add(key, &value, PMIX_PROC_RANK); }
  void AddString(const char* key, const std::string& value) { Add(key, value.c_str(), PMIX_STRING); }

  StatusOr<PmixInfoArray> Convert() {
    GR_RETURN_IF_ERROR(status_);
    pmix_data_array_t array{};
    const pmix_status_t rc = PMIx_Info_list_convert(list_, &array);
    if (rc != PMIX_SUCCESS) return PmixError("PMIx_Info_list_convert", rc);
    return PmixInfoArray(array);
  }

 private:
  void* list_;
  Status status_;
};

// A PMIx_generate_regex / PMIx_generate_ppn result, added as PMIX_REGEX.
Status AddRegex(InfoList& list, const char* key, const std::string& input, bool ppn) {
  char* regex = nullptr;
  const pmix_status_t rc = ppn ? PMIx_generate_ppn(input.c_str(), &regex) : PMIx_generate_regex(input.c_str(), &regex);
  if (rc != PMIX_SUCCESS) return PmixError(ppn ? "PMIx_generate_ppn" : "PMIx_generate_regex", rc);
  std::unique_ptr<char, decltype(&std::free)> owned(regex, &std::free);
  list.Add(key, regex, PMIX_REGEX);
  return OkStatus();
}

StatusOr<PmixInfoArray> ProcData(const JobLayout& layout, int rank) {
  const RankPlace& place = layout.rank(rank);
  InfoList proc;
  proc.AddRank(PMIX_RANK, static_cast<pmix_rank_t>(rank));  // must come first
  proc.AddRank(PMIX_GLOBAL_RANK, static_cast<pmix_rank_t>(rank));
  proc.AddRank(PMIX_APP_RANK, static_cast<pmix_rank_t>(rank));
  proc.AddUint32(PMIX_APPNUM, 0);
  proc.AddUint16(PMIX_LOCAL_RANK, static_cast<uint16_t>(place.local_rank));
  proc.AddUint16(PMIX_NODE_RANK, static_cast<uint16_t>(place.local_rank));
  proc.AddUint32(PMIX_NODEID, static_cast<uint32_t>(place.node));
  proc.AddString(PMIX_HOSTNAME, layout.hostname_of(rank));
  return proc.Convert();
}

}  // namespace

PmixInfoArray::~PmixInfoArray() {
  if (array_.array != nullptr) PMIx_Data_array_destruct(&array_);
}

StatusOr<PmixInfoArray> BuildJobInfo(const JobLayout& layout, int this_node, const std::string& job_id) {
  const NodePlace& node = layout.node(this_node);
  const auto size = static_cast<uint32_t>(layout.num_ranks());
  InfoList job;
  job.AddString(PMIX_JOBID, job_id);
  job.AddUint32(PMIX_UNIV_SIZE, size);
  job.AddUint32(PMIX_JOB_SIZE, size);
  job.AddUint32(PMIX_MAX_PROCS, size);
  job.AddUint32(PMIX_JOB_NUM_APPS, 1);
  job.AddUint32(PMIX_APP_SIZE, size);
  job.AddRank(PMIX_APPLDR, 0);
  job.AddRank(PMIX_NPROC_OFFSET, 0);
  job.AddUint32(PMIX_NUM_NODES, static_cast<uint32_t>(layout.num_nodes()));
  GR_RETURN_IF_ERROR(AddRegex(job, PMIX_NODE_MAP, layout.NodeList(), false));
  GR_RETURN_IF_ERROR(AddRegex(job, PMIX_PROC_MAP, layout.ProcList(), true));
  job.AddString(PMIX_HOSTNAME, node.hostname);
  job.AddUint32(PMIX_NODEID, static_cast<uint32_t>(this_node));
  job.AddUint32(PMIX_LOCAL_SIZE, static_cast<uint32_t>(node.ranks.size()));
  job.AddUint32(PMIX_NODE_SIZE, static_cast<uint32_t>(node.ranks.size()));
  if (!node.ranks.empty()) {
    job.AddString(PMIX_LOCAL_PEERS, layout.LocalPeers(this_node));
    job.AddRank(PMIX_LOCALLDR, static_cast<pmix_rank_t>(node.ranks.front()));
  }
  for (int r = 0; r < layout.num_ranks(); ++r) {
    GR_ASSIGN_OR_RETURN(PmixInfoArray proc, ProcData(layout, r));
    pmix_data_array_t array{PMIX_INFO, proc.size(), proc.data()};
    job.Add(PMIX_PROC_DATA, &array, PMIX_DATA_ARRAY);  // deep copy
  }
  return job.Convert();
}

}  // namespace gpurun::launcher
