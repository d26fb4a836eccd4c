// Names of the shared-memory wire's POSIX segments. Each rank of a job creates
// at most one segment, "/gpurun-<job>-<rank>", where <job> is the job id with
// every character outside [A-Za-z0-9._-] replaced by '_' (and long ids cut to
// fit NAME_MAX). The wire unlinks its segment as soon as its peers have mapped
// it; the launcher removes whatever a dying rank left behind with
// RemoveShmSegments (or by matching ShmSegmentPrefix itself).
//
// Thread safety: pure functions, except RemoveShmSegments, which touches
// /dev/shm.
#ifndef GPURUN_P2P_SHM_SHM_NAMES_H_
#define GPURUN_P2P_SHM_SHM_NAMES_H_

#include <string>
#include <string_view>

namespace gpurun::p2p {

// "/gpurun-<job>-": the shm_open name every segment of job `job_id` starts
// with; what follows it is the decimal world rank and nothing else. The file
// under /dev/shm has the same name without the leading '/'.
std::string ShmSegmentPrefix(const std::string& job_id);

// The shm_open name of `rank`'s segment in job `job_id`.
std::string ShmSegmentName(const std::string& job_id, int rank);

// Whether `file_name` (an entry of /dev/shm, no leading '/') is a segment of
// job `job_id`: the prefix followed by digits only, so that job "a" never
// matches job "a-1".
bool IsShmSegmentOf(const std::string& job_id, std::string_view file_name);

// Unlinks every segment of job `job_id` still in /dev/shm; returns how many it
// removed. For the launcher, after a rank died; harmless when none is left.
int RemoveShmSegments(const std::string& job_id);

}  // namespace gpurun::p2p

#endif  // GPURUN_P2P_SHM_SHM_NAMES_H_
