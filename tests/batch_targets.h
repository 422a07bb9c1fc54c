// Tests that run once per SIMD dispatch target compiled in and supported by this CPU
// (twed/twed_batch.h), the portable scalar one included:
//
//   class MyTest : public testing::OnEveryBatchTarget {};
//   TEST_P(MyTest, ...) { ... }
//   INSTANTIATE_TEST_SUITE_P(Targets, MyTest, testing::EveryBatchTarget(), testing::TargetName);

#ifndef WASSERWARP_TESTS_BATCH_TARGETS_H_
#define WASSERWARP_TESTS_BATCH_TARGETS_H_

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "twed/twed_batch.h"

namespace wasserwarp {
namespace twed_internal {
inline void PrintTo(const BatchTarget& target, std::ostream* os) { *os << target.name; }
}  // namespace twed_internal

namespace testing {

// Dispatches to the test's target for the test, and back to the best one after it.
class OnEveryBatchTarget : public ::testing::TestWithParam<twed_internal::BatchTarget> {
 protected:
  void SetUp() override { twed_internal::ForceBatchTarget(GetParam().id); }
  void TearDown() override { twed_internal::ForceBatchTarget(0); }
};

inline auto EveryBatchTarget() {
  return ::testing::ValuesIn(twed_internal::AvailableBatchTargets());
}

inline std::string TargetName(const ::testing::TestParamInfo<twed_internal::BatchTarget>& info) {
  return info.param.name;
}

}  // namespace testing
}  // namespace wasserwarp

#endif  // WASSERWARP_TESTS_BATCH_TARGETS_H_
