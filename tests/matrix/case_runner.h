// Runs one case of the matrix on this rank: lays out and guards the buffers,
// poisons the outputs and writes the inputs, makes the call, then checks the
// outputs, the untouched parts, the unchanged inputs and the guards, or, for
// a call the engine must reject, that it was rejected with grInvalidUsage,
// named the variable, and left every buffer as it was. In device mode the
// buffers are mirrored to device memory around the call (device_buffer.h),
// and a collective allowed to be unsupported there may answer grUnsupported
// (leaving every buffer as it was).
#ifndef GPURUN_TESTS_MATRIX_CASE_RUNNER_H_
#define GPURUN_TESTS_MATRIX_CASE_RUNNER_H_

#include <string>

#include "tests/matrix/case_plan.h"
#include "tests/matrix/device_buffer.h"
#include "tests/matrix/guarded_buffer.h"
#include "tests/matrix/reporter.h"

namespace gpurun::matrix {

class CaseRunner {
 public:
  CaseRunner(const PlanContext& context, Reporter& reporter);

  // A call that returns an error other than grInvalidUsage may leave the
  // ranks out of step: the failure is printed and the job aborted.
  void Run(const Case& c) { RunPlan(c, MakePlan(c, x_)); }
  // Runs `plan` as the plan of `c` (tests of the checks give their own).
  void RunPlan(const Case& c, const Plan& plan);

 private:
  struct Outcome {
    grResult_t result = grSuccess;
    std::string message;  // grGetLastErrorMessage() of a failed call
  };

  void Prepare(GuardedBuffer& buf, const BufferPlan& plan, const Case& c);
  // Prepares the buffers and makes the call; in device mode on the device
  // mirrors, waited for and copied back.
  Outcome Execute(const Case& c, const Plan& plan);
  // The address the call gets for `buf`'s data: its own, or its device mirror's.
  unsigned char* Expose(Side side, GuardedBuffer& buf, const Case& c);
  // Aborts the job when a step of device mode failed (`error` not empty).
  void DeviceStep(const Case& c, const char* what, const std::string& error);
  // The call answered grUnsupported in device mode.
  void Unsupported(const Case& c, const Plan& plan, const std::string& message);
  // "" when the buffer and its guards hold what `segments` say (poison
  // outside them), else the first difference.
  std::string Check(const GuardedBuffer& buf, const BufferPlan& plan, const std::vector<Segment>& segments,
                    const Case& c, const char* name);
  // "" when every buffer holds what it held before the call.
  std::string CheckUntouched(const Plan& plan, const Case& c);
  [[noreturn]] void Fatal(const Case& c, const std::string& what);

  PlanContext x_;
  Reporter& reporter_;
  GuardedBuffer send_;
  GuardedBuffer recv_;
};

}  // namespace gpurun::matrix

#endif  // GPURUN_TESTS_MATRIX_CASE_RUNNER_H_
