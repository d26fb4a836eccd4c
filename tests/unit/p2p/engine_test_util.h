// Helpers shared by the engine tests: argument builders for the world
// context of a FakeNetwork, and a fixture that sets GPURUN_TIMEOUT.
#ifndef GPURUN_TESTS_UNIT_P2P_ENGINE_TEST_UTIL_H_
#define GPURUN_TESTS_UNIT_P2P_ENGINE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "p2p/engine.h"
#include "p2p/request.h"
#include "runtime/base/params.h"

namespace gpurun::p2p::testing {

// Arguments on context `ctx` whose ranks are the world ranks.
inline SendArgs SendTo(int from, int to, int tag, const void* data, size_t bytes, uint32_t ctx = 0) {
  return SendArgs{ctx, from, to, to, tag, data, bytes, "send"};
}
inline RecvArgs RecvFrom(int source, int tag, void* data, size_t capacity, uint32_t ctx = 0) {
  return RecvArgs{ctx, source, source == GR_ANY_SOURCE ? -1 : source, tag, data, capacity, 1, "recv"};
}

// Starts an operation, failing the test if it cannot start.
inline Request* Start(Engine& engine, const SendArgs& args) {
  StatusOr<Request*> r = engine.Isend(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}
inline Request* Start(Engine& engine, const RecvArgs& args) {
  StatusOr<Request*> r = engine.Irecv(args);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : nullptr;
}

// Sets GPURUN_TIMEOUT (and a short spin) for the test; restores the defaults after.
class ParamsFixture : public ::testing::Test {
 protected:
  void SetUp() override { SetTimeout("20"); }
  void TearDown() override { ParamRegistry::Global().Reset(); }
  static void SetTimeout(const std::string& value) {
    ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_TIMEOUT", value).ok());
  }
};

}  // namespace gpurun::p2p::testing

#endif  // GPURUN_TESTS_UNIT_P2P_ENGINE_TEST_UTIL_H_
