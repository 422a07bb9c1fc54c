// The SIMD TWED lanes against the scalar kernel, bit for bit, under every
// dispatch target this CPU supports (the portable scalar one included, where
// the cost matrix must fall back to Twed()).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "twed/twed_batch.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::twed_internal {

void PrintTo(const BatchTarget& target, std::ostream* os) { *os << target.name; }

namespace {

using test_data::MakeTwedParams;
using test_data::RandomWalkRun;
using test_data::Sampling;

std::vector<const Series*> Pointers(const std::vector<Series>& series) {
  std::vector<const Series*> pointers;
  for (const Series& s : series) pointers.push_back(&s);
  return pointers;
}

// One dispatch target, and on AVX-512 whether FmaSqrt takes the square roots: each CPU uses it
// only where it is faster than the divider, and both must give the scalar kernel's bits.
struct SimdCase {
  BatchTarget target;
  std::optional<bool> fma_sqrt;
  const std::string& name() const { return target.name; }
};
void PrintTo(const SimdCase& c, std::ostream* os) { *os << c.target.name; }

std::vector<SimdCase> SimdCases() {
  std::vector<SimdCase> cases;
  for (const BatchTarget& target : AvailableBatchTargets()) {
    if (target.name.starts_with("AVX3")) {
      cases.push_back({target, true});
      cases.push_back({target, false});
    } else {
      cases.push_back({target, std::nullopt});
    }
  }
  return cases;
}

// Runs every test under one case, restoring the best target and the default square root after.
class TwedSimdTest : public ::testing::TestWithParam<SimdCase> {
 protected:
  void SetUp() override {
    ForceBatchTarget(GetParam().target.id);
    ForceFmaSqrtForTest(GetParam().fma_sqrt);
  }
  void TearDown() override {
    ForceBatchTarget(0);
    ForceFmaSqrtForTest(std::nullopt);
  }
};

TEST_P(TwedSimdTest, EveryLaneEqualsTheScalarKernel) {
  const size_t lanes = BatchLanes();
  if (lanes == 0) GTEST_SKIP() << "no lanes on " << GetParam().name();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double norms[] = {1.0, 2.0, 3.0};
  for (int trial = 0; trial < 360; ++trial) {
    const size_t channels = 1 + trial % 4;
    const TwedParams params = MakeTwedParams(unit(rng), 2.0 * unit(rng), norms[trial / 4 % 3]);
    // Several channels under p = 3 stay on the scalar kernel (see below).
    if (!BatchSupports(channels, params)) continue;
    std::uniform_int_distribution<size_t> length(1, 60);
    // Irregular gaps and start offsets make time mismatch matter.
    const Series a = RandomWalkRun(rng, "a", length(rng), channels, {0.05, 1.5, 0.0});
    std::vector<Series> b;
    const size_t count = 1 + trial % lanes;
    for (size_t k = 0; k < count; ++k) {
      b.push_back(RandomWalkRun(rng, absl::StrCat("b", k), length(rng), channels,
                                {0.05, 1.5, 4.0 * unit(rng) - 2.0}));
    }
    const LaneBatch batch(Pointers(b), params, lanes);
    std::vector<double> out(count);
    ASSERT_TRUE(BatchTwed(a, batch, params, out).ok());
    for (size_t k = 0; k < count; ++k) {
      const absl::StatusOr<double> expected = Twed(a, b[k], params);
      ASSERT_TRUE(expected.ok()) << expected.status();
      EXPECT_EQ(std::bit_cast<uint64_t>(out[k]), std::bit_cast<uint64_t>(*expected))
          << "trial " << trial << " lane " << k << ": " << out[k] << " vs " << *expected
          << ", lengths " << a.samples() << " x " << b[k].samples() << ", " << channels
          << " channels, p = " << params.p;
    }
  }
}

// `count` pairs that share no run, for lanes: random walks of 1 to 60 samples on clocks of their
// own, every third column a copy of its row (TWED 0), every value passed through `shape`.
struct LanePairs {
  std::vector<Series> rows;
  std::vector<Series> cols;
};
template <class Shape>
LanePairs RandomLanePairs(std::mt19937_64& rng, size_t count, size_t channels, const Shape& shape) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<size_t> length(1, 60);
  LanePairs pairs;
  for (size_t k = 0; k < count; ++k) {
    pairs.rows.push_back(RandomWalkRun(rng, absl::StrCat("a", k), length(rng), channels,
                                       {0.05, 1.5, 4.0 * unit(rng) - 2.0}));
    pairs.cols.push_back(k % 3 == 2 ? pairs.rows.back()
                                    : RandomWalkRun(rng, absl::StrCat("b", k), length(rng),
                                                    channels, {0.05, 1.5, 4.0 * unit(rng) - 2.0}));
    for (Series* s : {&pairs.rows.back(), &pairs.cols.back()}) {
      for (double& v : s->values) v = shape(v);
    }
  }
  return pairs;
}

// Lanes of pairs that share no run, each lane with its own row series of its own length, ending
// at its own row: every lane Twed's bits, on moderate and extreme values and on identical runs.
TEST_P(TwedSimdTest, PairLanesEqualTheScalarKernel) {
  const size_t lanes = BatchLanes();
  if (lanes == 0) GTEST_SKIP() << "no lanes on " << GetParam().name();
  std::mt19937_64 rng(17);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const double norms[] = {1.0, 2.0, 3.0};
  const double scales[] = {1.0, 1.0, 1e-150, 1e150};
  int compared = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const size_t channels = 1 + trial % 5;
    const TwedParams params = MakeTwedParams(unit(rng), 2.0 * unit(rng), norms[trial / 5 % 3]);
    if (!PairsSupport(channels, params)) {
      EXPECT_TRUE(channels > 4 || !BatchSupports(channels, params));
      continue;
    }
    const double scale = scales[trial / 15 % 4];
    const auto [rows, cols] =
        RandomLanePairs(rng, 1 + trial % lanes, channels, [&](double v) { return v * scale; });
    const LaneBatch row_batch(Pointers(rows), params, lanes);
    const LaneBatch batch(Pointers(cols), params, lanes);
    std::vector<double> out(rows.size());
    ASSERT_TRUE(BatchTwedPairs(row_batch, batch, params, out).ok());
    for (size_t k = 0; k < rows.size(); ++k) {
      const absl::StatusOr<double> expected = Twed(rows[k], cols[k], params);
      ASSERT_TRUE(expected.ok()) << expected.status();
      EXPECT_EQ(std::bit_cast<uint64_t>(out[k]), std::bit_cast<uint64_t>(*expected))
          << "trial " << trial << " lane " << k << ": " << out[k] << " vs " << *expected
          << ", lengths " << rows[k].samples() << " x " << cols[k].samples() << ", " << channels
          << " channels, p = " << params.p << ", scale " << scale;
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
}

// The edit paths of pairs on lanes are TwedWithPath's: the same distance bits, match counts and
// time-shift sums, ties broken as the scalar kernel breaks them. Integer values make ties common
// (equal costs along different paths), as do identical runs.
TEST_P(TwedSimdTest, PairPathLanesEqualTheScalarKernel) {
  const size_t lanes = BatchLanes();
  if (lanes == 0) GTEST_SKIP() << "no lanes on " << GetParam().name();
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const size_t channels = 1 + trial % 4;
    const TwedParams params = MakeTwedParams(trial % 3 == 0 ? 0.0 : unit(rng),
                                             trial % 2 == 0 ? 0.0 : unit(rng), 1.0 + trial % 2);
    const auto [rows, cols] = RandomLanePairs(rng, 1 + trial % lanes, channels, [&](double v) {
      return trial % 4 == 1 ? std::round(v) : v;
    });
    const LaneBatch row_batch(Pointers(rows), params, lanes);
    const LaneBatch batch(Pointers(cols), params, lanes);
    std::vector<EditPathSummary> out(rows.size());
    ASSERT_TRUE(BatchTwedPairsWithPath(row_batch, batch, params, out).ok());
    for (size_t k = 0; k < rows.size(); ++k) {
      const absl::StatusOr<EditPathSummary> expected = TwedWithPath(rows[k], cols[k], params);
      ASSERT_TRUE(expected.ok()) << expected.status();
      const std::string where = absl::StrCat("trial ", trial, " lane ", k, ", lengths ",
                                             rows[k].samples(), " x ", cols[k].samples());
      EXPECT_EQ(std::bit_cast<uint64_t>(out[k].distance),
                std::bit_cast<uint64_t>(expected->distance))
          << where;
      EXPECT_EQ(out[k].matches, expected->matches) << where;
      EXPECT_EQ(out[k].a_deletions, expected->a_deletions) << where;
      EXPECT_EQ(out[k].b_deletions, expected->b_deletions) << where;
      EXPECT_EQ(std::bit_cast<uint64_t>(out[k].mean_time_shift),
                std::bit_cast<uint64_t>(expected->mean_time_shift))
          << where;
      ++compared;
    }
  }
  EXPECT_GT(compared, 500);
}

// Values outside FmaSqrt's domain send the squares roots to the divider;
// equal samples (zero costs) make FmaSqrt fall back within a vector.
TEST_P(TwedSimdTest, ExtremeAndEqualValuesStayExact) {
  const size_t lanes = BatchLanes();
  if (lanes == 0) GTEST_SKIP() << "no lanes on " << GetParam().name();
  std::mt19937_64 rng(8);
  const TwedParams params = MakeTwedParams(0.3, 0.1, 2.0);
  for (const double scale : {1.0, 1e-150, 1e150}) {
    const Series a = RandomWalkRun(rng, "a", 40, 3, {0.05, 1.5, 0.0});
    std::vector<Series> b;
    for (size_t k = 0; k < lanes; ++k) b.push_back(RandomWalkRun(rng, "b", 30 + k, 3));
    b.front() = a;  // TWED(a, a) = 0, through cells of cost 0
    for (Series& s : b) {
      for (double& v : s.values) v *= scale;
    }
    Series scaled_a = a;
    for (double& v : scaled_a.values) v *= scale;
    const LaneBatch batch(Pointers(b), params, lanes);
    std::vector<double> out(lanes);
    ASSERT_TRUE(BatchTwed(scaled_a, batch, params, out).ok());
    for (size_t k = 0; k < lanes; ++k) {
      EXPECT_EQ(out[k], *Twed(scaled_a, b[k], params)) << "scale " << scale << " lane " << k;
    }
    EXPECT_EQ(out.front(), 0.0);
  }
}

TEST_P(TwedSimdTest, SquareRootsAreCorrectlyRounded) {
  const size_t lanes = std::max<size_t>(BatchLanes(), 1);
  std::mt19937_64 rng(9);
  std::vector<double> x;
  // Random doubles over the whole domain [2^-904, 2^805].
  std::uniform_int_distribution<int> exponent(-904, 804);
  std::uniform_real_distribution<double> mantissa(1.0, 2.0);
  for (int i = 0; i < 200000; ++i) x.push_back(std::ldexp(mantissa(rng), exponent(rng)));
  // Exact squares, squares of midpoints between neighbouring doubles and
  // their neighbours (the hardest to round), and around powers of two.
  for (int i = 0; i < 50000; ++i) {
    const double r = std::ldexp(mantissa(rng), exponent(rng) / 2);
    const double mid = r + (std::nextafter(r, 2 * r) - r) / 2;
    for (double v : {r * r, mid * mid}) {
      x.push_back(std::nextafter(v, 0.0));
      x.push_back(v);
      x.push_back(std::nextafter(v, 2 * v));
    }
  }
  for (int e = -904; e <= 804; e += 7) {
    const double p = std::ldexp(1.0, e);
    x.insert(x.end(), {std::nextafter(p, 0.0), p, std::nextafter(p, 2 * p)});
  }
  x.insert(x.end(), {0.0, 0x1p-904, 0x1p805});
  while (x.size() % lanes != 0) x.push_back(1.0);
  std::vector<double> out(x.size());
  LaneSqrtForTest(x, out);
  size_t wrong = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::bit_cast<uint64_t>(out[i]) != std::bit_cast<uint64_t>(std::sqrt(x[i])) &&
        ++wrong <= 10) {
      ADD_FAILURE() << "sqrt(" << x[i] << ") = " << out[i] << ", expected " << std::sqrt(x[i]);
    }
  }
  EXPECT_EQ(wrong, 0u);
}

// The portable target is the scalar fallback: no lanes, so the cost matrix
// calls Twed() (CostMatrixEqualsTwedOnEveryPath runs under it too).
TEST_P(TwedSimdTest, OnlyThePortableTargetHasNoLanes) {
  const bool portable = GetParam().name() == "SCALAR" || GetParam().name() == "EMU128";
  EXPECT_EQ(BatchLanes() == 0, portable) << GetParam().name();
}

TEST_P(TwedSimdTest, BatchesOnlyWhatItComputesExactly) {
  EXPECT_TRUE(BatchSupports(1, MakeTwedParams(0.1, 0.1, 3.0)));  // one channel: |u - v| for every p
  EXPECT_TRUE(BatchSupports(3, MakeTwedParams(0.1, 0.1, 1.0)));
  EXPECT_TRUE(BatchSupports(3, MakeTwedParams(0.1, 0.1, 2.0)));
  EXPECT_FALSE(BatchSupports(3, MakeTwedParams(0.1, 0.1, 3.0)));
  EXPECT_FALSE(BatchSupports(1, MakeTwedParams(0.1, 0.1, 2.0, 5.0)));
}

// Every path of the cost matrix (lanes, windowed pairs and p = 3 on the scalar
// kernel, the scalar target) against Twed() pair by pair, with lengths and
// counts that leave lanes empty and batches of one column.
TEST_P(TwedSimdTest, CostMatrixEqualsTwedOnEveryPath) {
  for (const size_t channels : {size_t{1}, size_t{3}}) {
    for (const double p : {1.0, 2.0, 3.0}) {
      for (const std::optional<double> window : {std::optional<double>(), std::optional(40.0)}) {
        const TwedParams params = MakeTwedParams(0.2, 0.5, p, window);
        const std::vector<Series> rows = test_data::RandomWalkRuns("r", 5, 5, 70, channels, 11);
        for (const size_t count : {size_t{1}, size_t{9}, size_t{19}}) {
          const std::vector<Series> cols =
              test_data::RandomWalkRuns("c", count, 5, 70, channels, 12 + count);
          const absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(rows, cols, params);
          ASSERT_TRUE(costs.ok()) << costs.status();
          for (size_t i = 0; i < rows.size(); ++i) {
            for (size_t j = 0; j < cols.size(); ++j) {
              EXPECT_EQ(costs->at(i, j), *Twed(rows[i], cols[j], params))
                  << i << "," << j << ": " << channels << " channels, p = " << p
                  << (window ? " windowed" : "");
            }
          }
        }
      }
    }
  }
}

// Lanes overflow to +inf where Twed() reports an error; the matrix must
// report the first such pair in row-major order, whichever batch it sits in.
TEST_P(TwedSimdTest, CostMatrixReportsTheFirstOverflowingPair) {
  std::vector<Series> rows = test_data::RandomWalkRuns("r", 3, 20, 20, 1, 13);
  std::vector<Series> cols = test_data::RandomWalkRuns("c", 10, 20, 30, 1, 14);
  // 9e307 - -9e307 overflows, and so do 20 costs of about 9e307.
  for (double& v : rows[1].values) v = 9e307;
  for (double& v : cols[7].values) v = -9e307;
  const TwedParams params = MakeTwedParams(0.1, 0.1, 2.0);
  std::optional<absl::Status> expected;
  for (size_t i = 0; i < rows.size() && !expected; ++i) {
    for (size_t j = 0; j < cols.size() && !expected; ++j) {
      if (absl::StatusOr<double> d = Twed(rows[i], cols[j], params); !d.ok()) expected = d.status();
    }
  }
  ASSERT_TRUE(expected.has_value()) << "no pair overflows";
  const absl::StatusOr<CostMatrix> costs = ComputeCostMatrix(rows, cols, params);
  EXPECT_EQ(costs.status(), *expected);
}

INSTANTIATE_TEST_SUITE_P(Targets, TwedSimdTest, ::testing::ValuesIn(SimdCases()),
                         [](const ::testing::TestParamInfo<SimdCase>& info) {
                           if (!info.param.fma_sqrt.has_value()) return info.param.target.name;
                           return info.param.target.name +
                                  (*info.param.fma_sqrt ? "_FmaSqrt" : "_Divider");
                         });

}  // namespace
}  // namespace wasserwarp::twed_internal
