#include "wasserwarp/large_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {
namespace {

using LargeVector = std::vector<double, LargeBufferAllocator<double>>;

uintptr_t Address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

TEST(LargeBufferTest, AnArrayOfSeveralMegabytesStartsOnAHugePage) {
  const LargeVector values(kLargeBufferBytes / sizeof(double) + 1, 1.5);
  EXPECT_EQ(Address(values.data()) % (size_t{2} << 20), 0u);
  EXPECT_EQ(values.front(), 1.5);
  EXPECT_EQ(values.back(), 1.5);
}

TEST(LargeBufferTest, ASmallArrayIsAnOrdinaryOne) {
  LargeVector values(1000);
  std::iota(values.begin(), values.end(), 0.0);
  EXPECT_EQ(Address(values.data()) % alignof(double), 0u);
  EXPECT_EQ(values[999], 999.0);
}

TEST(LargeBufferTest, GrowingAcrossTheThresholdKeepsEveryValue) {
  LargeVector values;
  for (size_t k = 0; k < kLargeBufferBytes / sizeof(double) * 3; ++k) {
    values.push_back(static_cast<double>(k));
  }
  LargeVector copy = values;
  values.clear();
  values.shrink_to_fit();
  for (size_t k = 0; k < copy.size(); k += 4099) ASSERT_EQ(copy[k], static_cast<double>(k));
  EXPECT_EQ(copy.back(), static_cast<double>(copy.size() - 1));
}

TEST(LargeBufferTest, ACostMatrixOfThousandsOfRunsIsFilledAndReadAsBefore) {
  CostMatrix matrix(1500, 1000, 0.25);
  matrix.at(1499, 999) = 7.0;
  EXPECT_EQ(matrix.values.size(), 1500u * 1000u);
  EXPECT_EQ(matrix.at(0, 0), 0.25);
  EXPECT_EQ(matrix.at(1499, 999), 7.0);
  const CostMatrix copy = matrix;
  EXPECT_EQ(copy.values, matrix.values);
}

}  // namespace
}  // namespace wasserwarp
