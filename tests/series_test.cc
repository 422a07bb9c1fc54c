#include "wasserwarp/series.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

Series ThreeSamples() {
  return Series{.id = "sim_03",
                .channels = {"steering_angle", "yaw_rate"},
                .times = {0.0, 0.5, 1.25},
                .values = {0.0, 0.1, 0.01, 0.2, 0.02, 0.3}};
}

void ExpectInvalid(const Series& series, const std::vector<std::string>& parts) {
  const absl::Status status = ValidateSeries(series);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  for (const std::string& part : parts) {
    EXPECT_THAT(std::string(status.message()), HasSubstr(part));
  }
}

TEST(ValidateSeriesTest, AcceptsWellFormedSeries) {
  EXPECT_TRUE(ValidateSeries(ThreeSamples()).ok());
}

TEST(ValidateSeriesTest, AcceptsSingleSample) {
  Series series{.id = "one", .channels = {"a"}, .times = {-3.0}, .values = {7.0}};
  EXPECT_TRUE(ValidateSeries(series).ok());
}

TEST(ValidateSeriesTest, RejectsNoSamples) {
  Series series{.id = "empty", .channels = {"a"}, .times = {}, .values = {}};
  ExpectInvalid(series, {"series \"empty\"", "no samples"});
}

TEST(ValidateSeriesTest, RejectsNoChannels) {
  Series series{.id = "bare", .channels = {}, .times = {0.0, 1.0}, .values = {}};
  ExpectInvalid(series, {"series \"bare\"", "no channels"});
}

TEST(ValidateSeriesTest, RejectsValueCountMismatch) {
  Series series = ThreeSamples();
  series.values.pop_back();
  ExpectInvalid(series, {"series \"sim_03\"", "5 values for 3 samples x 2 channels (expected 6)"});
}

TEST(ValidateSeriesTest, RejectsEmptyChannelName) {
  Series series = ThreeSamples();
  series.channels[1] = "";
  ExpectInvalid(series, {"series \"sim_03\"", "channel 1 has an empty name"});
}

TEST(ValidateSeriesTest, RejectsDuplicateChannelName) {
  Series series{.id = "dup", .channels = {"a", "b", "a"}, .times = {0.0}, .values = {1, 2, 3}};
  ExpectInvalid(series, {"series \"dup\"", "channel \"a\" appears twice (channels 0 and 2)"});
}

TEST(ValidateSeriesTest, RejectsNonFiniteTime) {
  Series series = ThreeSamples();
  series.times[1] = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(series, {"series \"sim_03\": sample 1: time nan is not finite"});
  series.times[1] = 0.5;
  series.times[2] = std::numeric_limits<double>::infinity();
  ExpectInvalid(series, {"series \"sim_03\": sample 2: time inf is not finite"});
}

TEST(ValidateSeriesTest, RejectsTimesWhoseDifferencesCouldOverflow) {
  Series series = ThreeSamples();
  series.times = {-1e308, 0.0, 1e308};
  ExpectInvalid(series, {"series \"sim_03\": sample 0: time -1e+308 s is beyond +-1e+300 s"});
}

TEST(ValidateSeriesTest, RejectsNonFiniteValue) {
  Series series = ThreeSamples();
  series.values[5] = -std::numeric_limits<double>::infinity();
  ExpectInvalid(series, {"series \"sim_03\": sample 2: channel \"yaw_rate\": value -inf is not "
                         "finite"});
  series.values[5] = 0.0;
  series.values[0] = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(series, {"sample 0: channel \"steering_angle\": value nan"});
}

TEST(ValidateSeriesTest, RejectsRepeatedTime) {
  Series series = ThreeSamples();
  series.times[1] = 1.25;
  series.times[2] = 1.25;
  ExpectInvalid(series,
                {"series \"sim_03\": sample 2: time 1.25 is not after the previous time 1.25"});
}

TEST(ValidateSeriesTest, RejectsDecreasingTime) {
  Series series = ThreeSamples();
  series.times[2] = 0.25;
  ExpectInvalid(series, {"sample 2: time 0.25 is not after the previous time 0.5"});
}

TEST(ValidateSeriesTest, PrintsTimesThatDifferInTheLastDigitApart) {
  Series series = ThreeSamples();
  series.times[1] = 1.2500001;
  ExpectInvalid(series, {"time 1.25 is not after the previous time 1.2500001"});
}

}  // namespace
}  // namespace wasserwarp
