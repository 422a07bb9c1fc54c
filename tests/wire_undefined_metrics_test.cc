// A metric the core leaves NaN (undefined) travels unset and comes back NaN, which the
// JSON report prints as null.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"

namespace wasserwarp::wire {
namespace {

constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

// One pair of one channel: its RMSE and lag defined, Theil's U and the rest not.
ValidationReport ReportWithUndefinedMetrics() {
  ValidationReport report;
  report.channels = {"c0"};
  report.simulation = {{"sim0", 5, 1.0}};
  report.reference = {{"ref0", 5, 1.0}};
  ChannelMetrics metrics{5, 0.25, kUndefined, kUndefined, kUndefined, kUndefined, kUndefined, -0.5};
  report.pair_metrics = {{0, 0, 0, metrics}};
  report.pair_metrics_average = {metrics};
  return report;
}

TEST(WireUndefinedMetricsTest, NanTravelsUnset) {
  v1::ValidationReport proto;
  ReportToProto(ReportWithUndefinedMetrics(), proto);
  ASSERT_EQ(proto.pair_metrics_size(), 1);
  for (const v1::ChannelMetrics& metrics :
       {proto.pair_metrics(0).metrics(), proto.pair_metrics_average(0)}) {
    EXPECT_EQ(metrics.samples(), 5);
    EXPECT_TRUE(metrics.has_rmse());
    EXPECT_EQ(metrics.rmse(), 0.25);
    EXPECT_TRUE(metrics.has_lag());
    EXPECT_EQ(metrics.lag(), -0.5);
    EXPECT_FALSE(metrics.has_theil_u());
    EXPECT_FALSE(metrics.has_q3());
    EXPECT_FALSE(metrics.has_sprague_geers_m());
    EXPECT_FALSE(metrics.has_sprague_geers_p());
    EXPECT_FALSE(metrics.has_sprague_geers_c());
  }
}

TEST(WireUndefinedMetricsTest, UnsetComesBackNanAndPrintsNull) {
  v1::ValidationReport proto;
  ReportToProto(ReportWithUndefinedMetrics(), proto);
  absl::StatusOr<ValidationReport> back = ReportFromProto(proto);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->pair_metrics.size(), 1u);
  const ChannelMetrics& metrics = back->pair_metrics[0].metrics;
  EXPECT_EQ(metrics.rmse, 0.25);
  EXPECT_EQ(metrics.lag, -0.5);
  EXPECT_TRUE(std::isnan(metrics.theil_u));
  EXPECT_TRUE(std::isnan(metrics.q3));
  EXPECT_TRUE(std::isnan(metrics.sprague_geers_m));
  EXPECT_TRUE(std::isnan(metrics.sprague_geers_p));
  EXPECT_TRUE(std::isnan(metrics.sprague_geers_c));
  EXPECT_EQ(ReportToJson(*back), ReportToJson(ReportWithUndefinedMetrics()));
  const nlohmann::json json = nlohmann::json::parse(ReportToJson(*back));
  const nlohmann::json& average = json.at("pair_metrics_average").at(0);
  EXPECT_TRUE(average.at("theil_u").is_null()) << average.dump();
  EXPECT_EQ(average.at("rmse"), 0.25);
}

}  // namespace
}  // namespace wasserwarp::wire
