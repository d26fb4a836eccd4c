// The NVML loader without NVML (this is how CI machines are) and against a
// fake libnvidia-ml (fake_nvml.c) that models NVLink bridges and switches.
#include "topo/nvml_loader.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "runtime/base/log.h"

namespace gpurun::topo {
namespace {

bool RealNvmlPresent() {
  void* handle = dlopen(NvmlLibrary::kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

void ExpectUnavailable(const Status& status, std::string_view detail) {
  EXPECT_EQ(status.code(), grUnsupported);
  EXPECT_EQ(status.message().rfind("NVML unavailable: ", 0), 0u) << status.message();
  EXPECT_NE(status.message().find(detail), std::string::npos) << status.message();
}

TEST(NvmlLoader, MissingLibraryIsUnavailableNotACrash) {
  const StatusOr<std::unique_ptr<NvmlLibrary>> nvml = NvmlLibrary::Open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(nvml.ok());
  ExpectUnavailable(nvml.status(), "cannot load /nonexistent/libnvidia-ml.so.1");
}

TEST(NvmlLoader, DriverNvmlAbsentHere) {
  if (RealNvmlPresent()) GTEST_SKIP() << "this machine has " << NvmlLibrary::kSoname;
  const StatusOr<std::unique_ptr<NvmlLibrary>> nvml = NvmlLibrary::Open();
  ASSERT_FALSE(nvml.ok());
  ExpectUnavailable(nvml.status(), NvmlLibrary::kSoname);
}

TEST(NvmlLoader, LibraryWithoutTheEntryPointsIsUnavailable) {
  const StatusOr<std::unique_ptr<NvmlLibrary>> nvml = NvmlLibrary::Open("libm.so.6");
  ASSERT_FALSE(nvml.ok());
  ExpectUnavailable(nvml.status(), "libm.so.6 lacks nvmlInit_v2, nvmlShutdown");
}

TEST(NvmlLoader, SharedFailureIsLoggedOnceAndRemembered) {
  if (RealNvmlPresent()) GTEST_SKIP() << "this machine has " << NvmlLibrary::kSoname;
  Logger::Configure(LogLevel::kWarn, kAllSubsys);
  ::testing::internal::CaptureStderr();
  const StatusOr<const NvmlLibrary*> first = NvmlLibrary::Shared();
  const StatusOr<const NvmlLibrary*> second = NvmlLibrary::Shared();
  const std::string log = ::testing::internal::GetCapturedStderr();
  ASSERT_FALSE(first.ok());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(first.status().message(), second.status().message());
  size_t lines = 0;
  for (size_t at = log.find("NVML unavailable"); at != std::string::npos; at = log.find("NVML unavailable", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << log;
  EXPECT_NE(log.find("NVLink counts unknown"), std::string::npos) << log;
}

TEST(NvmlLoader, FakeInitFailureIsUnavailable) {
  setenv("FAKE_NVML_INIT_FAIL", "1", 1);
  const StatusOr<std::unique_ptr<NvmlLibrary>> nvml = NvmlLibrary::Open(GPURUN_FAKE_NVML);
  unsetenv("FAKE_NVML_INIT_FAIL");
  ASSERT_FALSE(nvml.ok());
  ExpectUnavailable(nvml.status(), "nvmlInit_v2: Driver Not Loaded");
}

class FakeNvml : public ::testing::Test {
 protected:
  void SetUp() override {
    StatusOr<std::unique_ptr<NvmlLibrary>> opened = NvmlLibrary::Open(GPURUN_FAKE_NVML);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    nvml_ = std::move(*opened);
  }
  std::unique_ptr<NvmlLibrary> nvml_;
};

TEST_F(FakeNvml, BridgedPairHasEighteenLinksToEachOther) {
  for (const auto& [self, peer] : {std::pair{"00000000:18:00.0", "0000:2a:00.0"}, {"0000:2A:00.0", "0000:18:00.0"}}) {
    const StatusOr<std::vector<NvLinkEnd>> links = nvml_->ActiveNvLinks(self);
    ASSERT_TRUE(links.ok()) << links.status().ToString();
    ASSERT_EQ(links->size(), 18u);
    for (size_t l = 0; l < links->size(); ++l) {
      EXPECT_EQ((*links)[l].link, static_cast<int>(l));
      EXPECT_EQ((*links)[l].kind, NvLinkPeerKind::kGpu);
      EXPECT_EQ((*links)[l].remote_bus_id, peer);
    }
  }
}

TEST_F(FakeNvml, GpuWithoutNvLinkHasNoLinks) {
  const StatusOr<std::vector<NvLinkEnd>> links = nvml_->ActiveNvLinks("0000:3b:00.0");
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  EXPECT_TRUE(links->empty());
}

TEST_F(FakeNvml, SwitchLinksSkipDownAndAbsentLinks) {
  const StatusOr<std::vector<NvLinkEnd>> links = nvml_->ActiveNvLinks("0000:5d:00.0");
  ASSERT_TRUE(links.ok()) << links.status().ToString();
  ASSERT_EQ(links->size(), 4u) << "links 0..3 up, 4 down, 5.. absent";
  for (const NvLinkEnd& end : *links) {
    EXPECT_EQ(end.kind, NvLinkPeerKind::kSwitch);
    EXPECT_EQ(end.remote_bus_id, "0000:c0:00.0");
  }
}

TEST_F(FakeNvml, UnknownOrMalformedBusIds) {
  const StatusOr<std::vector<NvLinkEnd>> unknown = nvml_->ActiveNvLinks("0000:99:00.0");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), grSystemError);
  EXPECT_NE(unknown.status().message().find("0000:99:00.0"), std::string::npos);
  const StatusOr<std::vector<NvLinkEnd>> malformed = nvml_->ActiveNvLinks("gpu0");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), grInvalidArgument);
}

}  // namespace
}  // namespace gpurun::topo
