#include "wasserwarp/quantity_of_interest.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "brute_force.h"
#include "make_run.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {
namespace {

using test_data::MakeRun;
using ::testing::HasSubstr;

QuantityOfInterest Parsed(std::string_view spec) {
  absl::StatusOr<QuantityOfInterest> parsed = ParseQuantityOfInterest(spec);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : QuantityOfInterest{};
}

template <typename T>
void ExpectInvalid(const absl::StatusOr<T>& result, const std::string& part) {
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr(part));
}

// ---- parsing ----

TEST(ParseQuantityOfInterestTest, ReadsChannelKindAndTime) {
  const QuantityOfInterest peak = Parsed("ay:max");
  EXPECT_EQ(peak.channel, "ay");
  EXPECT_EQ(peak.kind, QuantityKind::kMax);
  const QuantityOfInterest at = Parsed("yaw_rate:value_at:1.5");
  EXPECT_EQ(at.channel, "yaw_rate");
  EXPECT_EQ(at.kind, QuantityKind::kValueAt);
  EXPECT_EQ(at.at, 1.5);
  EXPECT_EQ(at.quantity(), "value_at:1.5");
  EXPECT_EQ(Parsed("a:value_at:-2e-3").at, -0.002);
}

TEST(ParseQuantityOfInterestTest, QuantityRoundTrips) {
  for (const char* spec : {"c:max", "c:min", "c:mean", "c:final", "c:value_at:0.1", "c:integral",
                           "c:time_of_max", "c:value_at:3", "c:value_at:0.30000000000000004"}) {
    const QuantityOfInterest parsed = Parsed(spec);
    EXPECT_EQ("c:" + parsed.quantity(), spec);
    const QuantityOfInterest again = Parsed("c:" + parsed.quantity());
    EXPECT_EQ(again.kind, parsed.kind);
    EXPECT_EQ(again.at, parsed.at);
  }
}

TEST(ParseQuantityOfInterestTest, ErrorsNameTheSpecAndTheProblem) {
  ExpectInvalid(ParseQuantityOfInterest("ay"),
                "quantity of interest \"ay\": expected channel:quantity");
  ExpectInvalid(ParseQuantityOfInterest(":max"), "quantity of interest \":max\": missing channel");
  ExpectInvalid(ParseQuantityOfInterest("ay:peak"),
                "quantity of interest \"ay:peak\": unknown quantity \"peak\"; accepted: max, min, "
                "mean, final, value_at:T, integral, time_of_max");
  ExpectInvalid(ParseQuantityOfInterest("ay:"), "unknown quantity \"\"");
  ExpectInvalid(ParseQuantityOfInterest("ay:max:2"), "\"ay:max:2\": max takes no argument");
  ExpectInvalid(ParseQuantityOfInterest("ay:value_at"), "value_at needs a time in seconds");
  ExpectInvalid(ParseQuantityOfInterest("ay:value_at:"), "time \"\" after value_at:");
  ExpectInvalid(ParseQuantityOfInterest("ay:value_at:1.5s"),
                "\"ay:value_at:1.5s\": time \"1.5s\" after value_at: is not a finite number");
  ExpectInvalid(ParseQuantityOfInterest("ay:value_at:x"), "time \"x\"");
  ExpectInvalid(ParseQuantityOfInterest("ay:value_at:inf"), "time \"inf\"");
  ExpectInvalid(ParseQuantityOfInterest("ay:value_at:nan"), "time \"nan\"");
}

TEST(ParseQuantitiesOfInterestTest, SplitsOnCommas) {
  absl::StatusOr<std::vector<QuantityOfInterest>> list =
      ParseQuantitiesOfInterest("ay:max, yaw_rate:value_at:1.5 ,ay:time_of_max");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].channel, "ay");
  EXPECT_EQ((*list)[1].channel, "yaw_rate");
  EXPECT_EQ((*list)[1].at, 1.5);
  EXPECT_EQ((*list)[2].kind, QuantityKind::kTimeOfMax);

  absl::StatusOr<std::vector<QuantityOfInterest>> empty = ParseQuantitiesOfInterest(" ");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  ExpectInvalid(ParseQuantitiesOfInterest("ay:max,,ay:min"), "item 2 is empty");
  ExpectInvalid(ParseQuantitiesOfInterest("ay:max,"), "item 2 is empty");
  ExpectInvalid(ParseQuantitiesOfInterest("ay:max,ay:top"), "\"ay:top\": unknown quantity");
}

// ---- evaluation ----

// Channel ay: 1, 3, 2 at t = 10, 11, 13 (t = 0, 1, 3 aligned to start).
Series Run1() { return MakeRun("run_1", {"ax", "ay"}, {10, 11, 13}, {0, 1, 0, 3, 0, 2}); }

double Evaluate(const Series& run, std::string_view spec, Align align) {
  absl::StatusOr<double> value = EvaluateQuantity(run, Parsed(spec), align);
  EXPECT_TRUE(value.ok()) << spec << ": " << value.status();
  return value.ok() ? *value : std::nan("");
}

TEST(EvaluateQuantityTest, HandComputedQuantities) {
  EXPECT_EQ(Evaluate(Run1(), "ay:max", Align::kStart), 3.0);
  EXPECT_EQ(Evaluate(Run1(), "ay:min", Align::kStart), 1.0);
  EXPECT_EQ(Evaluate(Run1(), "ay:final", Align::kStart), 2.0);
  // Trapezoids: (1 + 3) / 2 * 1 + (3 + 2) / 2 * 2 = 2 + 5 = 7 over 3 s.
  EXPECT_DOUBLE_EQ(Evaluate(Run1(), "ay:integral", Align::kStart), 7.0);
  EXPECT_DOUBLE_EQ(Evaluate(Run1(), "ay:mean", Align::kStart), 7.0 / 3.0);
  // Halfway from (1, 3) to (3, 2).
  EXPECT_DOUBLE_EQ(Evaluate(Run1(), "ay:value_at:2", Align::kStart), 2.5);
  EXPECT_EQ(Evaluate(Run1(), "ay:value_at:1", Align::kStart), 3.0);
  EXPECT_EQ(Evaluate(Run1(), "ay:value_at:0", Align::kStart), 1.0);
  EXPECT_EQ(Evaluate(Run1(), "ay:value_at:3", Align::kStart), 2.0);
  EXPECT_EQ(Evaluate(Run1(), "ay:time_of_max", Align::kStart), 1.0);
}

TEST(EvaluateQuantityTest, TimesAsGivenWithoutAlignment) {
  EXPECT_EQ(Evaluate(Run1(), "ay:time_of_max", Align::kNone), 11.0);
  EXPECT_DOUBLE_EQ(Evaluate(Run1(), "ay:value_at:12", Align::kNone), 2.5);
  EXPECT_DOUBLE_EQ(Evaluate(Run1(), "ay:integral", Align::kNone), 7.0);
  ExpectInvalid(EvaluateQuantity(Run1(), Parsed("ay:value_at:2"), Align::kNone),
                "run \"run_1\", quantity of interest \"ay:value_at:2\": time 2 s lies outside "
                "the run's times [10, 13] s");
  ExpectInvalid(EvaluateQuantity(Run1(), Parsed("ay:value_at:3.5"), Align::kStart),
                "[0, 3] s (aligned to start at 0)");
}

TEST(EvaluateQuantityTest, TimeOfMaxTakesTheFirstPeak) {
  const Series plateau = MakeRun("plateau", {"v"}, {0, 1, 2, 3}, {1, 4, 4, 0});
  EXPECT_EQ(Evaluate(plateau, "v:time_of_max", Align::kStart), 1.0);
}

TEST(EvaluateQuantityTest, SingleSampleRun) {
  const Series single = MakeRun("single", {"v"}, {5}, {2.5});
  EXPECT_EQ(Evaluate(single, "v:mean", Align::kStart), 2.5);
  EXPECT_EQ(Evaluate(single, "v:integral", Align::kStart), 0.0);
  EXPECT_EQ(Evaluate(single, "v:value_at:0", Align::kStart), 2.5);
  EXPECT_EQ(Evaluate(single, "v:time_of_max", Align::kNone), 5.0);
}

TEST(EvaluateQuantityTest, MissingChannelNamesRunAndChannel) {
  ExpectInvalid(EvaluateQuantity(Run1(), Parsed("yaw:max"), Align::kStart),
                "run \"run_1\", quantity of interest \"yaw:max\": the run has no channel \"yaw\"");
  const Series empty = MakeRun("empty", {"ay"}, {}, {});
  ExpectInvalid(EvaluateQuantity(empty, Parsed("ay:max"), Align::kStart), "run \"empty\"");
}

// ---- area validation metric ----

TEST(AreaValidationMetricTest, HandComputed) {
  // F_sim: 1/2 from 1, 1 from 2; F_ref: 1/2 from 2, 1 from 3. |F_s - F_r| is
  // 1/2 on [1, 2) and 1/2 on [2, 3): area 1.
  EXPECT_DOUBLE_EQ(AreaValidationMetric({1, 2}, {}, {2, 3}, {}), 1.0);
  EXPECT_DOUBLE_EQ(AreaValidationMetric({2, 1}, {}, {3, 2}, {}), 1.0);
  // Weights 3:1 on {0, 1} against all mass at 0: |3/4 - 1| on [0, 1).
  EXPECT_DOUBLE_EQ(AreaValidationMetric({0, 1}, {3, 1}, {0}, {}), 0.25);
  // Unequal sizes: {0, 1, 2} against {1}: 1/3 on [0, 1), |2/3 - 1| on [1, 2).
  EXPECT_DOUBLE_EQ(AreaValidationMetric({0, 1, 2}, {}, {1}, {}), 2.0 / 3.0);
  // Ties and zero weights.
  EXPECT_DOUBLE_EQ(AreaValidationMetric({1, 1, 5}, {1, 1, 0}, {1}, {}), 0.0);
  EXPECT_DOUBLE_EQ(AreaValidationMetric({4, 4}, {}, {4, 4, 4}, {}), 0.0);
  // Both sides weighted: sim 1 (1/4), 3 (3/4); ref 2 (1/2), 3 (1/2).
  // [1, 2): 1/4 - 0; [2, 3): |1/4 - 1/2|. Area 1/4 + 1/4.
  EXPECT_DOUBLE_EQ(AreaValidationMetric({1, 3}, {1, 3}, {2, 3}, {5, 5}), 0.5);
  EXPECT_TRUE(std::isnan(AreaValidationMetric({}, {}, {1}, {})));
}

TEST(AreaValidationMetricTest, EqualsWassersteinOneByPermutations) {
  std::mt19937_64 rng(21);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 20; ++trial) {
    const size_t n = 1 + trial % 6;
    std::vector<double> sim(n);
    std::vector<double> ref(n);
    for (double& x : sim) x = normal(rng);
    for (double& x : ref) x = 2.0 * normal(rng) + 0.5;
    CostMatrix costs(n, n);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) costs.at(i, j) = std::abs(sim[i] - ref[j]);
    }
    EXPECT_NEAR(AreaValidationMetric(sim, {}, ref, {}),
                test_data::MinPermutationCost(costs) / static_cast<double>(n), 1e-12)
        << "trial " << trial;
  }
}

TEST(AreaValidationMetricTest, EqualsWassersteinOneByTransportWithWeights) {
  std::mt19937_64 rng(22);
  std::normal_distribution<double> normal;
  std::uniform_int_distribution<int> size(1, 12);
  std::uniform_real_distribution<double> weight(0.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    const size_t n = size(rng);
    const size_t m = size(rng);
    std::vector<double> sim(n);
    std::vector<double> ref(m);
    for (double& x : sim) x = normal(rng);
    for (double& x : ref) x = std::round(4.0 * normal(rng)) / 4.0;  // with ties
    std::vector<double> sim_weights;
    std::vector<double> ref_weights;
    if (trial % 2 == 1) {
      for (size_t i = 0; i < n; ++i) sim_weights.push_back(0.1 + weight(rng));
      for (size_t j = 0; j < m; ++j) ref_weights.push_back(0.1 + weight(rng));
    }
    CostMatrix costs(n, m);
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < m; ++j) costs.at(i, j) = std::abs(sim[i] - ref[j]);
    }
    TransportOptions options;
    options.row_weights = sim_weights;
    options.col_weights = ref_weights;
    absl::StatusOr<TransportResult> transport = SolveTransport(costs, options);
    ASSERT_TRUE(transport.ok()) << transport.status();
    EXPECT_NEAR(AreaValidationMetric(sim, sim_weights, ref, ref_weights), transport->distance,
                1e-9 + transport->weight_rounding_bound)
        << "trial " << trial << ", " << n << " x " << m;
  }
}

// ---- comparing runs ----

TEST(CompareQuantitiesTest, EvaluatesEveryRunAndTheirArea) {
  const std::vector<Series> sim = {MakeRun("s0", {"v"}, {0, 1}, {1, 2}),
                                   MakeRun("s1", {"v"}, {5, 6}, {0, 1})};
  const std::vector<Series> ref = {MakeRun("r0", {"v"}, {0, 2}, {2, 3}),
                                   MakeRun("r1", {"v"}, {0, 1}, {3, 2})};
  absl::StatusOr<std::vector<QuantityComparison>> compared = CompareQuantities(
      sim, {}, ref, {}, {Parsed("v:max"), Parsed("v:value_at:0.5")}, Align::kStart);
  ASSERT_TRUE(compared.ok()) << compared.status();
  ASSERT_EQ(compared->size(), 2u);
  const QuantityComparison& peak = (*compared)[0];
  EXPECT_EQ(peak.channel, "v");
  EXPECT_EQ(peak.quantity, "max");
  EXPECT_EQ(peak.sim_values, (std::vector<double>{2, 1}));
  EXPECT_EQ(peak.ref_values, (std::vector<double>{3, 3}));
  // {1, 2} against {3, 3}: 1/2 on [1, 2), 1 on [2, 3).
  EXPECT_DOUBLE_EQ(peak.avm, 1.5);
  const QuantityComparison& middle = (*compared)[1];
  EXPECT_EQ(middle.quantity, "value_at:0.5");
  EXPECT_EQ(middle.sim_values, (std::vector<double>{1.5, 0.5}));
  EXPECT_EQ(middle.ref_values, (std::vector<double>{2.25, 2.5}));

  // Weights as the transport uses them.
  absl::StatusOr<std::vector<QuantityComparison>> weighted =
      CompareQuantities(sim, {1, 3}, ref, {}, {Parsed("v:max")}, Align::kStart);
  ASSERT_TRUE(weighted.ok()) << weighted.status();
  // {2 (1/4), 1 (3/4)} against {3}: 3/4 on [1, 2), 1 on [2, 3).
  EXPECT_DOUBLE_EQ((*weighted)[0].avm, 1.75);
}

TEST(CompareQuantitiesTest, ErrorsNameTheRun) {
  const std::vector<Series> sim = {MakeRun("s0", {"v"}, {0, 1}, {1, 2})};
  const std::vector<Series> ref = {MakeRun("r0", {"w"}, {0, 1}, {1, 2})};
  ExpectInvalid(CompareQuantities(sim, {}, ref, {}, {Parsed("v:max")}, Align::kStart),
                "run \"r0\", quantity of interest \"v:max\": the run has no channel \"v\"");
  ExpectInvalid(CompareQuantities(sim, {1, 2}, sim, {}, {Parsed("v:max")}, Align::kStart),
                "simulation weights: 2 weights for 1 runs");
  ExpectInvalid(CompareQuantities(sim, {}, sim, {-1}, {Parsed("v:max")}, Align::kStart),
                "reference weights: weight 0 is -1");
}

}  // namespace
}  // namespace wasserwarp
