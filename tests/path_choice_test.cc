// The path the default validation takes (pipeline/path_choice.h: the lazy transport where it
// pays, every pair where its solves would cost more than the TWEDs it leaves out) gives the
// report --exhaustive gives, on regimes on either side of the choice: runs of one sample, where
// a transport solve costs far more than every TWED, and long runs, where the lazy rounds pay.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {
namespace {

using test_data::RandomWalkRuns;

struct Regime {
  const char* name;
  size_t sim_runs;
  size_t ref_runs;
  size_t min_samples;
  size_t max_samples;
  size_t channels;
  const char* path;  // what the default takes
};

// The report less what says how it was computed: the time, the cells, pairs and solves spent, the
// path, and the duals (another optimal dual solution certifies the same plan).
nlohmann::json Comparable(const ValidationReport& report) {
  nlohmann::json json = nlohmann::json::parse(ReportToJson(report));
  for (const char* key : {"seconds", "dp_cells", "pairs_computed", "int16_cells", "single_cells",
                          "path", "transport_solves"}) {
    json.erase(key);
  }
  for (const char* key : {"u", "v", "dual", "primal_dual_gap"}) json["certificate"].erase(key);
  return json;
}

class PathChoiceTest : public ::testing::TestWithParam<Regime> {};

TEST_P(PathChoiceTest, DefaultReportIsTheExhaustiveOne) {
  const Regime& regime = GetParam();
  const std::vector<Series> sim = RandomWalkRuns("sim", regime.sim_runs, regime.min_samples,
                                                 regime.max_samples, regime.channels, 41);
  const std::vector<Series> ref = RandomWalkRuns("ref", regime.ref_runs, regime.min_samples,
                                                 regime.max_samples, regime.channels, 42);
  ValidationOptions options;
  options.twed.nu = 0.3;
  options.twed.lambda = 0.05;
  absl::StatusOr<ValidationReport> chosen = Validate(sim, ref, options);
  ASSERT_TRUE(chosen.ok()) << chosen.status();
  options.exhaustive = true;
  absl::StatusOr<ValidationReport> every_pair = Validate(sim, ref, options);
  ASSERT_TRUE(every_pair.ok()) << every_pair.status();

  EXPECT_EQ(chosen->path, regime.path);
  EXPECT_EQ(every_pair->path, "exhaustive");
  EXPECT_EQ(every_pair->transport_solves, 1u);
  EXPECT_EQ(every_pair->pairs_computed, every_pair->pairs_total);
  if (chosen->path == "lazy") {
    EXPECT_GT(chosen->transport_solves, 1u);
    EXPECT_LT(chosen->pairs_computed, chosen->pairs_total);
  } else {
    EXPECT_EQ(chosen->transport_solves, 1u);
  }
  EXPECT_EQ(chosen->distance, every_pair->distance);
  EXPECT_EQ(Comparable(*chosen), Comparable(*every_pair));
}

INSTANTIATE_TEST_SUITE_P(
    Regimes, PathChoiceTest,
    ::testing::Values(
        // A solve of 300 x 300 costs about a thousand times every TWED of one sample.
        Regime{"OneSampleAssignment", 300, 300, 1, 1, 1, "exhaustive"},
        Regime{"OneSampleNetworkSimplexThreeChannels", 200, 300, 1, 1, 3, "exhaustive"},
        Regime{"FewSamples", 400, 400, 5, 10, 1, "exhaustive"},
        // Pairs of 250 000 cells, and solves of 12 x 12.
        Regime{"LongRuns", 12, 12, 400, 600, 1, "lazy"},
        Regime{"LongRunsThreeChannels", 10, 14, 300, 500, 3, "lazy"}),
    [](const ::testing::TestParamInfo<Regime>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace wasserwarp
