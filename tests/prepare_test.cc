#include "wasserwarp/prepare.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "make_run.h"

namespace wasserwarp {
namespace {

using test_data::MakeRun;
using ::testing::DoubleEq;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

PrepareOptions Options(std::vector<std::string> channels, Align align, Scale scale) {
  PrepareOptions options;
  options.channels = std::move(channels);
  options.align = align;
  options.scale = scale;
  return options;
}

void ExpectInvalid(const absl::StatusOr<PreparedRuns>& prepared, const std::string& part) {
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(prepared.status().message()), HasSubstr(part));
}

TEST(NamesTest, RoundTrip) {
  for (Align align : {Align::kNone, Align::kStart}) {
    absl::StatusOr<Align> parsed = ParseAlign(AlignName(align));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, align);
  }
  for (Scale scale : {Scale::kNone, Scale::kReferenceStd}) {
    absl::StatusOr<Scale> parsed = ParseScale(ScaleName(scale));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, scale);
  }
  EXPECT_EQ(AlignName(Align::kStart), "start");
  EXPECT_EQ(ScaleName(Scale::kReferenceStd), "reference-std");
}

TEST(NamesTest, UnknownNamesListTheAcceptedOnes) {
  absl::StatusOr<Align> align = ParseAlign("Start");
  EXPECT_EQ(align.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(align.status().message(), "unknown alignment \"Start\"; accepted: none, start");
  absl::StatusOr<Scale> scale = ParseScale("std");
  EXPECT_EQ(scale.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(scale.status().message(), "unknown scaling \"std\"; accepted: none, reference-std");
}

TEST(PrepareRunsTest, RequiresRunsOnBothSides) {
  const std::vector<Series> runs = {MakeRun("r", {"a"}, {0.0}, {1.0})};
  ExpectInvalid(PrepareRuns({}, runs, {}), "no simulated runs");
  ExpectInvalid(PrepareRuns(runs, {}, {}), "no reference runs");
}

TEST(PrepareRunsTest, InvalidRunKeepsItsIdAndSide) {
  const Series good = MakeRun("good", {"a"}, {0.0, 1.0}, {1.0, 2.0});
  const Series bad = MakeRun("bad_7", {"a"}, {0.0, 0.0}, {1.0, 2.0});
  ExpectInvalid(PrepareRuns({bad}, {good}, {}),
                "simulation run: series \"bad_7\": sample 1: time 0 is not after");
  ExpectInvalid(PrepareRuns({good}, {good, bad}, {}), "reference run: series \"bad_7\"");
}

TEST(PrepareRunsTest, DuplicateRequestedChannel) {
  const Series run = MakeRun("r", {"a", "b"}, {0.0}, {1.0, 2.0});
  ExpectInvalid(PrepareRuns({run}, {run}, Options({"b", "a", "b"}, Align::kStart, Scale::kNone)),
                "channel \"b\" is requested more than once");
}

TEST(PrepareRunsTest, MissingChannelNamesRunAndSide) {
  const Series full = MakeRun("full", {"a", "b"}, {0.0}, {1.0, 2.0});
  const Series partial = MakeRun("ref_02", {"a"}, {0.0}, {1.0});
  ExpectInvalid(PrepareRuns({full}, {full, partial}, {}),
                "reference run \"ref_02\" has no channel \"b\" (it has: a)");
  ExpectInvalid(PrepareRuns({full, MakeRun("sim_09", {"b"}, {0.0}, {2.0})}, {full}, {}),
                "simulation run \"sim_09\" has no channel \"a\" (it has: b)");
  ExpectInvalid(PrepareRuns({full}, {full}, Options({"c"}, Align::kStart, Scale::kNone)),
                "simulation run \"full\" has no channel \"c\"");
}

TEST(PrepareRunsTest, DefaultChannelsComeFromFirstSimulationRun) {
  const Series sim = MakeRun("sim", {"b", "a"}, {0.0}, {2.0, 1.0});
  const Series ref = MakeRun("ref", {"a", "c", "b"}, {0.0}, {10.0, 30.0, 20.0});
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns({sim}, {ref}, {});
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT(prepared->channels, ElementsAre("b", "a"));
  EXPECT_THAT(prepared->reference[0].channels, ElementsAre("b", "a"));
  EXPECT_THAT(prepared->reference[0].values, ElementsAre(20.0, 10.0));
  EXPECT_THAT(prepared->simulation[0].values, ElementsAre(2.0, 1.0));
  EXPECT_THAT(prepared->channel_divisors, ElementsAre(1.0, 1.0));
}

TEST(PrepareRunsTest, SelectsAndReordersRequestedChannels) {
  const Series sim = MakeRun("sim_01", {"x", "y", "z"}, {0.0, 1.0}, {1, 2, 3, 4, 5, 6});
  const Series ref =
      MakeRun("ref_01", {"z", "x", "y", "w"}, {0.0, 1.0}, {30, 10, 20, 0, 60, 40, 50, 0});
  absl::StatusOr<PreparedRuns> prepared =
      PrepareRuns({sim}, {ref}, Options({"z", "x"}, Align::kNone, Scale::kNone));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT(prepared->channels, ElementsAre("z", "x"));
  const Series& s = prepared->simulation[0];
  EXPECT_EQ(s.id, "sim_01");
  EXPECT_THAT(s.channels, ElementsAre("z", "x"));
  EXPECT_THAT(s.values, ElementsAre(3, 1, 6, 4));
  const Series& r = prepared->reference[0];
  EXPECT_EQ(r.id, "ref_01");
  EXPECT_THAT(r.channels, ElementsAre("z", "x"));
  EXPECT_THAT(r.values, ElementsAre(30, 10, 60, 40));
}

TEST(PrepareRunsTest, AlignsEachRunToItsOwnStart) {
  const Series sim = MakeRun("sim", {"a"}, {0.0, 0.01, 0.02}, {1, 2, 3});
  const Series ref = MakeRun("ref", {"a"}, {0.3, 0.304, 0.308}, {1, 2, 3});
  absl::StatusOr<PreparedRuns> aligned =
      PrepareRuns({sim}, {ref}, Options({}, Align::kStart, Scale::kNone));
  ASSERT_TRUE(aligned.ok()) << aligned.status();
  EXPECT_THAT(aligned->simulation[0].times, ElementsAre(0.0, 0.01, 0.02));
  EXPECT_THAT(aligned->reference[0].times,
              ElementsAre(0.0, DoubleEq(0.304 - 0.3), DoubleEq(0.308 - 0.3)));
  EXPECT_EQ(aligned->reference[0].times[0], 0.0);

  absl::StatusOr<PreparedRuns> raw =
      PrepareRuns({sim}, {ref}, Options({}, Align::kNone, Scale::kNone));
  ASSERT_TRUE(raw.ok()) << raw.status();
  EXPECT_THAT(raw->reference[0].times, ElementsAre(0.3, 0.304, 0.308));
}

TEST(PrepareRunsTest, RejectsTimesMergedByAlignment) {
  // 2^53 - 1 - (-0.5) and 2^53 - (-0.5) both round to 2^53.
  const double big = 9007199254740992.0;
  const Series sim = MakeRun("sim", {"a"}, {-0.5, big - 1.0, big}, {1, 2, 3});
  const Series ref = MakeRun("ref", {"a"}, {0.0}, {1});
  ASSERT_TRUE(PrepareRuns({sim}, {ref}, Options({}, Align::kNone, Scale::kNone)).ok());
  ExpectInvalid(PrepareRuns({sim}, {ref}, Options({}, Align::kStart, Scale::kNone)),
                "simulation run after alignment, resampling and scaling: series \"sim\": sample 2");
}

TEST(PrepareRunsTest, ScalesByReferenceStd) {
  // Channel a over all reference samples: {1, 3, 5, 7}, mean 4, population
  // variance (9 + 1 + 1 + 9) / 4 = 5. Channel b: {10, 10, 10, 30}, mean 15,
  // variance (25 + 25 + 25 + 225) / 4 = 75. The simulation's own spread is
  // irrelevant.
  const Series ref1 = MakeRun("ref_1", {"a", "b"}, {0.0, 1.0}, {1, 10, 3, 10});
  const Series ref2 = MakeRun("ref_2", {"b", "a"}, {0.0, 1.0}, {10, 5, 30, 7});
  const Series sim = MakeRun("sim_1", {"a", "b"}, {0.0}, {100, 1000});
  absl::StatusOr<PreparedRuns> prepared =
      PrepareRuns({sim}, {ref1, ref2}, Options({}, Align::kStart, Scale::kReferenceStd));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const double std_a = std::sqrt(5.0);
  const double std_b = std::sqrt(75.0);
  EXPECT_THAT(prepared->channel_divisors, ElementsAre(DoubleEq(std_a), DoubleEq(std_b)));
  EXPECT_THAT(prepared->simulation[0].values,
              ElementsAre(DoubleEq(100 / std_a), DoubleEq(1000 / std_b)));
  EXPECT_THAT(prepared->reference[0].values,
              ElementsAre(DoubleEq(1 / std_a), DoubleEq(10 / std_b), DoubleEq(3 / std_a),
                          DoubleEq(10 / std_b)));
  EXPECT_THAT(prepared->reference[1].values,
              ElementsAre(DoubleEq(5 / std_a), DoubleEq(10 / std_b), DoubleEq(7 / std_a),
                          DoubleEq(30 / std_b)));
}

TEST(PrepareRunsTest, StdIsStableForLargeOffsets) {
  // A naive sum-of-squares formula loses every digit here.
  const double offset = 1e9;
  const Series ref =
      MakeRun("ref", {"a"}, {0.0, 1.0, 2.0, 3.0}, {offset + 1, offset + 3, offset + 5, offset + 7});
  absl::StatusOr<PreparedRuns> prepared =
      PrepareRuns({ref}, {ref}, Options({}, Align::kStart, Scale::kReferenceStd));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT(prepared->channel_divisors, ElementsAre(DoubleEq(std::sqrt(5.0))));
}

TEST(PrepareRunsTest, ScalingOnlyTheChosenChannels) {
  // Channel "flat" is constant in the references but not chosen.
  const Series ref = MakeRun("ref", {"flat", "a"}, {0.0, 1.0}, {2, 0, 2, 4});
  absl::StatusOr<PreparedRuns> prepared =
      PrepareRuns({ref}, {ref}, Options({"a"}, Align::kStart, Scale::kReferenceStd));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT(prepared->channel_divisors, ElementsAre(2.0));
  EXPECT_THAT(prepared->reference[0].values, ElementsAre(0.0, 2.0));
}

TEST(PrepareRunsTest, RejectsZeroStd) {
  const Series sim = MakeRun("sim", {"a", "flat"}, {0.0}, {1, 1});
  const Series ref = MakeRun("ref", {"a", "flat"}, {0.0, 1.0}, {1, 2, 2, 2});
  ExpectInvalid(PrepareRuns({sim}, {ref}, Options({}, Align::kStart, Scale::kReferenceStd)),
                "channel \"flat\": standard deviation over all reference samples is 0");
  EXPECT_TRUE(PrepareRuns({sim}, {ref}, Options({}, Align::kStart, Scale::kNone)).ok());
}

TEST(PrepareRunsTest, RejectsNonFiniteStd) {
  const Series ref = MakeRun("ref", {"huge"}, {0.0, 1.0}, {-1e300, 1e300});
  ExpectInvalid(PrepareRuns({ref}, {ref}, Options({}, Align::kStart, Scale::kReferenceStd)),
                "channel \"huge\": standard deviation over all reference samples is inf");
}

TEST(PrepareRunsTest, RejectsValuesOverflowedByScaling) {
  const Series ref = MakeRun("ref", {"a"}, {0.0, 1.0}, {0.0, 2e-150});
  const Series sim = MakeRun("sim_4", {"a"}, {0.0}, {1e200});
  ExpectInvalid(
      PrepareRuns({sim}, {ref}, Options({}, Align::kStart, Scale::kReferenceStd)),
      "simulation run after alignment, resampling and scaling: series \"sim_4\": sample 0: "
      "channel \"a\": value inf is not finite");
}

PrepareOptions Resampled(double rate, Align align = Align::kNone) {
  PrepareOptions options = Options({}, align, Scale::kNone);
  options.resample_rate = rate;
  return options;
}

TEST(PrepareRunsTest, ResamplesOntoAUniformGridFromTheFirstTimestamp) {
  // x = 10 t on irregular times; y constant.
  const Series run =
      MakeRun("r", {"x", "y"}, {0.5, 0.55, 0.8, 1.29}, {5, 1, 5.5, 1, 8, 1, 12.9, 1});
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns({run}, {run}, Resampled(10));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const Series& out = prepared->simulation[0];
  ASSERT_EQ(out.samples(), 8u);  // 0.5, 0.6, ..., 1.2
  for (size_t k = 0; k < out.samples(); ++k) {
    EXPECT_DOUBLE_EQ(out.times[k], 0.5 + k / 10.0);
    EXPECT_NEAR(out.value(k, 0), 10 * out.times[k], 1e-12);
    EXPECT_EQ(out.value(k, 1), 1.0);
  }
}

TEST(PrepareRunsTest, ResamplingAfterAlignmentGivesRunsOfAnyRateOneGrid) {
  std::vector<double> fast_times, fast_values, slow_times, slow_values;
  for (int i = 0; i <= 500; ++i) fast_times.push_back(3.0 + i / 250.0);
  for (int i = 0; i <= 200; ++i) slow_times.push_back(7.0 + i / 100.0);
  for (double t : fast_times) fast_values.push_back(std::sin(t - 3.0));
  for (double t : slow_times) slow_values.push_back(std::sin(t - 7.0));
  const Series fast = MakeRun("fast", {"a"}, fast_times, fast_values);
  const Series slow = MakeRun("slow", {"a"}, slow_times, slow_values);
  absl::StatusOr<PreparedRuns> prepared =
      PrepareRuns({slow}, {fast}, Resampled(100, Align::kStart));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  ASSERT_EQ(prepared->simulation[0].samples(), prepared->reference[0].samples());
  EXPECT_EQ(prepared->simulation[0].times, prepared->reference[0].times);
  for (size_t k = 0; k < prepared->reference[0].samples(); ++k) {
    EXPECT_NEAR(prepared->simulation[0].value(k, 0), prepared->reference[0].value(k, 0), 1e-4);
  }
}

TEST(PrepareRunsTest, ASingleSampleStaysAndBadRatesAreRefused) {
  const Series one = MakeRun("one", {"a"}, {2.0}, {4.0});
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns({one}, {one}, Resampled(50));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  EXPECT_THAT(prepared->simulation[0].values, ElementsAre(4.0));
  for (double rate : {0.0, -5.0, std::numeric_limits<double>::infinity(),
                      std::numeric_limits<double>::quiet_NaN()}) {
    ExpectInvalid(PrepareRuns({one}, {one}, Resampled(rate)), "resample_rate: must be");
  }
  const Series long_run = MakeRun("long_run", {"a"}, {0.0, 1e6}, {0.0, 1.0});
  ExpectInvalid(PrepareRuns({one}, {long_run}, Resampled(1000)),
                "reference run \"long_run\" would have 1000000001 samples");
}

}  // namespace
}  // namespace wasserwarp
