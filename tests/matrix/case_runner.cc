// One case of the matrix: buffers, call and checks (case_runner.h).
#include "tests/matrix/case_runner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/matrix/elem_codec.h"

namespace gpurun::matrix {

// Device mode's host buffers have the device's lead, so each mirrors its
// device image byte for byte (device_buffer.h).
CaseRunner::CaseRunner(const PlanContext& context, Reporter& reporter)
    : x_(context),
      reporter_(reporter),
      send_(context.device != nullptr ? kDeviceLead : GuardedBuffer::kAlign),
      recv_(context.device != nullptr ? kDeviceLead : GuardedBuffer::kAlign) {}

void CaseRunner::Prepare(GuardedBuffer& buf, const BufferPlan& plan, const Case& c) {
  const size_t elem = TypeBytes(c.type);
  buf.Prepare(plan.elems * elem, c.offset);
  std::memset(buf.data(), kPoisonByte, plan.elems * elem);
  for (const Segment& s : plan.before) s.pattern->Fill(buf.data() + s.at * elem, s.count, s.first);
}

std::string CaseRunner::Check(const GuardedBuffer& buf, const BufferPlan& plan, const std::vector<Segment>& segments,
                              const Case& c, const char* name) {
  const size_t elem = TypeBytes(c.type);
  const Pattern& poison = x_.patterns->Poison(c.type);
  const unsigned char* data = buf.data();
  std::vector<Segment> sorted = segments;
  std::sort(sorted.begin(), sorted.end(), [](const Segment& a, const Segment& b) { return a.at < b.at; });
  // Walk the buffer: poison up to each segment, the segment, poison after the last.
  size_t at = 0;
  auto check = [&](size_t from, size_t count, const Pattern* p, size_t first) -> std::string {
    if (p == nullptr || count == 0) return "";
    const size_t bad = p->FirstMismatch(data + from * elem, count, first);
    if (bad == Pattern::npos) return "";
    const size_t index = from + bad;
    char head[96];
    std::snprintf(head, sizeof(head), "%s buffer: first wrong index %zu: got ", name, index);
    const std::string expected = p->poison() ? "poison (untouched)" : FormatElem(c.type, p->At(first + bad));
    return head + FormatElem(c.type, data + index * elem) + " expected " + expected;
  };
  for (const Segment& s : sorted) {
    if (s.at > at) {
      if (std::string e = check(at, s.at - at, &poison, 0); !e.empty()) return e;
    }
    if (std::string e = check(s.at, s.count, s.pattern, s.first); !e.empty()) return e;
    at = std::max(at, s.at + s.count);
  }
  if (plan.elems > at) {
    if (std::string e = check(at, plan.elems - at, &poison, 0); !e.empty()) return e;
  }
  return buf.CheckGuards(name);
}

void CaseRunner::Fatal(const Case& c, const std::string& what) {
  reporter_.Fail(c, what + " (aborting the job: the ranks may be out of step)");
  std::fflush(stdout);
  grAbort(x_.comm, 2);
  std::abort();
}

CaseRunner::Outcome CaseRunner::Execute(const Case& c, const Plan& plan) {
  const size_t elem = TypeBytes(c.type);
  Prepare(recv_, plan.recv, c);
  if (!plan.in_place) Prepare(send_, plan.send, c);
  unsigned char* recv = Expose(Side::kRecv, recv_, c);
  const unsigned char* send = plan.in_place ? recv + plan.send_at * elem : Expose(Side::kSend, send_, c);
  Outcome out;
  if (x_.graph) DeviceStep(c, "beginning the stream capture", x_.device->BeginCapture());
  out.result = plan.call(send, recv + (plan.in_place ? plan.recv_at * elem : 0));
  if (out.result != grSuccess) out.message = grGetLastErrorMessage();
  if (x_.graph) {
    // Out of place the call is a function of its input: a second launch of
    // the graph (the channels' step counters moved on) must give the same.
    const int launches = out.result != grSuccess ? 0 : plan.in_place ? 1 : 2;
    DeviceStep(c, "replaying the captured graph", x_.device->EndCaptureAndLaunch(launches));
  }
  if (x_.device != nullptr) {
    DeviceStep(c, "waiting for the call's stream", x_.device->Wait());
    DeviceStep(c, "copying the receive buffer back", x_.device->Download(Side::kRecv, recv_));
    if (!plan.in_place) DeviceStep(c, "copying the send buffer back", x_.device->Download(Side::kSend, send_));
  }
  return out;
}

unsigned char* CaseRunner::Expose(Side side, GuardedBuffer& buf, const Case& c) {
  if (x_.device == nullptr) return buf.data();
  unsigned char* data = nullptr;
  DeviceStep(c, "copying a buffer to the device", x_.device->Upload(side, buf, &data));
  return data;
}

void CaseRunner::DeviceStep(const Case& c, const char* what, const std::string& error) {
  if (!error.empty()) Fatal(c, std::string(what) + ": " + error);
}

std::string CaseRunner::CheckUntouched(const Plan& plan, const Case& c) {
  std::string wrong = Check(recv_, plan.recv, plan.recv.before, c, plan.in_place ? "in-place" : "receive");
  if (wrong.empty() && !plan.in_place) wrong = Check(send_, plan.send, plan.send.before, c, "send");
  return wrong;
}

void CaseRunner::Unsupported(const Case& c, const Plan& plan, const std::string& message) {
  if (!MayBeUnsupported(x_, c.coll)) {
    reporter_.Fail(c, "unsupported on device buffers, but --device-collectives names it: " + message);
  } else if (std::string wrong = CheckUntouched(plan, c); !wrong.empty()) {
    reporter_.Fail(c, "unsupported, but changed a buffer: " + wrong);
  } else {
    reporter_.Unsupported(c, message);
  }
}

void CaseRunner::RunPlan(const Case& c, const Plan& plan) {
  const Outcome out = Execute(c, plan);
  const grResult_t result = out.result;
  const std::string& message = out.message;
  const bool device = x_.device != nullptr;
  const bool reject =
      device ? ExpectRejectedOnDevice(c.coll, c.algo, c.proto) : ExpectRejected(c.coll, c.algo, c.proto);
  auto rejecting_variable = [&] {
    return device ? RejectingVariableOnDevice(c.coll, c.algo, c.proto) : RejectingVariable(c.coll, c.algo, c.proto);
  };
  const char* in_name = plan.in_place ? "in-place" : "receive";
  if (result == grUnsupported && x_.device != nullptr) {
    Unsupported(c, plan, message);
    return;
  }
  if (result != grSuccess && result != grInvalidUsage) {
    Fatal(c, std::string("call failed: ") + grGetErrorString(result) + ": " + message);
  }
  if (reject && result == grInvalidUsage) {
    // Rejected as expected: the message names the variable; nothing was written.
    const char* variable = rejecting_variable();
    if (std::string wrong = CheckUntouched(plan, c); !wrong.empty()) {
      reporter_.Fail(c, "rejected, but changed a buffer: " + wrong);
    } else if (message.find(variable) == std::string::npos) {
      reporter_.Fail(c, std::string("rejected with a message that does not name ") + variable + ": " + message);
    } else {
      reporter_.Skip(c, message);
    }
    return;
  }
  if (result == grInvalidUsage) {
    reporter_.Fail(c, "rejected unexpectedly: invalid usage: " + message);
    return;
  }
  if (reject) {
    reporter_.Fail(
        c, std::string("accepted, but ") + rejecting_variable() + " leaves nothing for it: expected grInvalidUsage");
    return;
  }
  std::string wrong = Check(recv_, plan.recv, plan.recv.after, c, in_name);
  if (wrong.empty() && !plan.in_place) wrong = Check(send_, plan.send, plan.send.after, c, "send");
  if (wrong.empty()) {
    reporter_.Pass();
  } else {
    reporter_.Fail(c, wrong);
  }
}

}  // namespace gpurun::matrix
