// TWED(a, b) == TWED(b, a) bit for bit, on every kernel and dispatch target: the lazy
// transport's requests (twed/pair_requests.cc) share SIMD lanes by column as well as by row,
// putting the column's run in the row's place, and rely on getting the row-major pair's bits.

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "batch_targets.h"
#include "random_runs.h"
#include "twed/twed_batch.h"
#include "twed/twed_pruned.h"
#include "twed/twed_single.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using ::wasserwarp::test_data::MakeTwedParams;
using ::wasserwarp::test_data::RandomWalkRun;

constexpr double kInf = std::numeric_limits<double>::infinity();

// One run against several, with the parameters they share.
struct Group {
  Series shared;
  std::vector<Series> others;
  TwedParams params;
};

// Random walks of 1 to 70 samples, 1 to 3 channels, p 1/2/3, nu and lambda sometimes 0; one group
// in four a million seconds late (time differences round), one in four of small integers (ties
// everywhere), one in five with near-copies of the shared run (tiny distances, mostly rounding).
Group RandomGroup(std::mt19937_64& rng, size_t count) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<size_t> length(1, 70);
  const double norms[] = {1.0, 2.0, 3.0};
  const size_t d = 1 + rng() % 3;
  const double offset = rng() % 4 == 0 ? 1e6 : 0.0;
  const bool integers = rng() % 4 == 0;
  const bool copies = rng() % 5 == 0;
  const double nu = rng() % 4 == 0 ? 0.0 : unit(rng);
  const double lambda = rng() % 4 == 0 ? 0.0 : 2.0 * unit(rng);
  const double p = norms[rng() % 3];
  const auto walk = [&](const char* id, size_t samples, double start) {
    Series run = RandomWalkRun(rng, id, samples, d, {0.05, 1.5, start});
    if (integers) {
      for (double& v : run.values) v = std::round(v);
      for (size_t i = 0; i < run.times.size(); ++i) {
        run.times[i] = std::round(4.0 * run.times[i]) / 4.0 + 0.25 * static_cast<double>(i);
      }
    }
    return run;
  };
  Group group{.shared = walk("shared", length(rng), offset),
              .others = {},
              .params = MakeTwedParams(nu, lambda, p)};
  for (size_t k = 0; k < count; ++k) {
    if (copies && k % 2 == 0) {
      Series copy = group.shared;
      for (double& v : copy.values) v += 1e-9 * (unit(rng) - 0.5);
      group.others.push_back(std::move(copy));
    } else {
      const double start = offset + 4.0 * unit(rng) - 2.0;
      group.others.push_back(walk("other", length(rng), start));
    }
  }
  return group;
}

class TwedSymmetryTest : public testing::OnEveryBatchTarget {};

TEST_P(TwedSymmetryTest, EveryKernelGivesTheTransposedPairsBits) {
  const size_t lanes = twed_internal::BatchLanes();
  std::mt19937_64 rng(19);
  int pairs = 0;
  int in_lanes = 0;
  int bounded = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    const Group g = RandomGroup(rng, 1 + trial % (lanes < 2 ? 4 : lanes));
    SCOPED_TRACE(absl::StrCat("trial ", trial, ", p ", g.params.p, ", nu ", g.params.nu,
                              ", lambda ", g.params.lambda));
    std::vector<double> forward;
    for (const Series& other : g.others) {
      const double ab = *Twed(other, g.shared, g.params);
      const double ba = *Twed(g.shared, other, g.params);
      ASSERT_EQ(ab, ba) << other.samples() << " x " << g.shared.samples() << " samples";
      for (const double threshold : {kInf, ab, 1.05 * ab, 0.9 * ab}) {
        const BoundedTwed one = *TwedWithin(other, g.shared, g.params, threshold);
        const BoundedTwed other_way = *TwedWithin(g.shared, other, g.params, threshold);
        EXPECT_EQ(one.within, other_way.within) << "threshold " << threshold;
        if (one.within) {
          EXPECT_EQ(one.value, other_way.value) << "threshold " << threshold;
        }
      }
      forward.push_back(ab);
      ++pairs;
    }
    if (lanes == 0 || !twed_internal::BatchSupports(g.shared.num_channels(), g.params)) continue;
    std::vector<const Series*> pointers;
    for (const Series& other : g.others) pointers.push_back(&other);
    const twed_internal::LaneBatch batch(pointers, g.params, lanes);
    std::vector<double> out(g.others.size());
    ASSERT_TRUE(twed_internal::BatchTwed(g.shared, batch, g.params, out).ok());
    for (size_t k = 0; k < out.size(); ++k) {
      EXPECT_EQ(out[k], forward[k]) << "lane " << k;
      ++in_lanes;
    }
    if (!twed_internal::SingleSupports(g.shared.num_channels(), g.params)) continue;
    const twed_internal::SingleOrigin origin = twed_internal::OriginAt(g.shared);
    std::vector<twed_internal::SingleRun> single_runs;
    for (const Series& other : g.others) {
      single_runs.push_back(twed_internal::ToSingleRun(other, origin, g.params));
    }
    std::vector<const twed_internal::SingleRun*> single_pointers;
    for (const twed_internal::SingleRun& run : single_runs) single_pointers.push_back(&run);
    const twed_internal::SingleLaneBatch single(single_pointers, twed_internal::SingleLanes());
    std::vector<double> bounds(g.others.size());
    ASSERT_TRUE(
        twed_internal::SingleTwedBound(twed_internal::ToSingleRun(g.shared, origin, g.params),
                                       single, g.params, bounds)
            .ok());
    for (size_t k = 0; k < bounds.size(); ++k) {
      EXPECT_LE(bounds[k], forward[k]) << "lane " << k;
      ++bounded;
    }
  }
  EXPECT_GT(pairs, 2000);
  if (lanes > 0) {
    EXPECT_GT(in_lanes, 1500);
  }
  if (twed_internal::SingleLanes() > 0) {
    EXPECT_GT(bounded, 1000);
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, TwedSymmetryTest, testing::EveryBatchTarget(),
                         testing::TargetName);

}  // namespace
}  // namespace wasserwarp
