#include "wasserwarp/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "brute_force.h"
#include "nlohmann/json.hpp"
#include "random_runs.h"
#include "wasserwarp/report_json.h"

namespace wasserwarp {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

// W_q by enumerating every permutation of the TWED matrix computed pair by pair.
double BruteForceDistance(const std::vector<Series>& sim, const std::vector<Series>& ref,
                          const TwedParams& params, double order) {
  CostMatrix costs_to_q(sim.size(), ref.size());
  for (size_t i = 0; i < sim.size(); ++i) {
    for (size_t j = 0; j < ref.size(); ++j) {
      costs_to_q.at(i, j) = std::pow(*Twed(sim[i], ref[j], params), order);
    }
  }
  return std::pow(test_data::MinPermutationCost(costs_to_q) / sim.size(), 1.0 / order);
}

ValidationOptions NoAlignment() {
  ValidationOptions options;
  options.prepare.align = Align::kNone;
  options.twed.nu = 0.3;
  options.twed.lambda = 0.05;
  return options;
}

TEST(ValidationTest, DistanceMatchesBruteForceOverPermutations) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 5, 10, 40, 2, 21);
  const std::vector<Series> ref = RandomWalkRuns("ref", 5, 10, 40, 2, 22);
  for (double order : {1.0, 2.0}) {
    ValidationOptions options = NoAlignment();
    options.order = order;
    absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
    ASSERT_TRUE(report.ok()) << report.status();
    EXPECT_EQ(report->solver, TransportSolver::kAssignment);
    EXPECT_NEAR(report->distance, BruteForceDistance(sim, ref, options.twed, order),
                1e-12 * report->distance);
  }
}

TEST(ValidationTest, PairsDescribeThePlanAndAddUp) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 4, 10, 60, 3, 23);
  const std::vector<Series> ref = RandomWalkRuns("ref", 6, 10, 60, 3, 24);
  ValidationOptions options = NoAlignment();
  options.keep_cost_matrix = true;
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->solver, TransportSolver::kNetworkSimplex);
  ASSERT_EQ(report->pairs.size(), report->plan.size());
  ASSERT_TRUE(report->cost_matrix.has_value());
  double total_mass = 0.0;
  for (size_t k = 0; k < report->plan.size(); ++k) {
    const PlanEntry& entry = report->plan[k];
    const PairDiagnostics& pair = report->pairs[k];
    total_mass += entry.mass;
    EXPECT_EQ(pair.sim, entry.row);
    EXPECT_EQ(pair.ref, entry.col);
    EXPECT_EQ(pair.twed, report->cost_matrix->at(entry.row, entry.col));
    EXPECT_EQ(entry.cost, pair.twed);
    EXPECT_EQ(pair.matches + pair.sim_deletions, sim[pair.sim].samples());
    EXPECT_EQ(pair.matches + pair.ref_deletions, ref[pair.ref].samples());
  }
  EXPECT_NEAR(total_mass, 1.0, 1e-12);
  EXPECT_LE(report->plan.size(), sim.size() + ref.size() - 1);
  const double sim_total =
      std::accumulate(report->sim_contributions.begin(), report->sim_contributions.end(), 0.0);
  const double ref_total =
      std::accumulate(report->ref_contributions.begin(), report->ref_contributions.end(), 0.0);
  EXPECT_NEAR(sim_total, report->distance, 1e-9 * report->distance);
  EXPECT_NEAR(ref_total, report->distance, 1e-9 * report->distance);
  EXPECT_LE(report->certificate.max_dual_violation, 1e-9);
  EXPECT_LE(report->certificate.primal_dual_gap, 1e-9);
}

TEST(ValidationTest, WholeReportDoesNotDependOnThreadCount) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 7, 20, 200, 2, 25);
  const std::vector<Series> ref = RandomWalkRuns("ref", 9, 20, 200, 2, 26);
  std::vector<std::string> documents;
  for (int threads : {1, 2, 5}) {
    ValidationOptions options;
    options.keep_cost_matrix = true;
    options.compute.max_threads = threads;
    absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
    ASSERT_TRUE(report.ok()) << report.status();
    report->seconds = 0.0;
    documents.push_back(ReportToJson(*report));
  }
  EXPECT_EQ(documents[0], documents[1]);
  EXPECT_EQ(documents[0], documents[2]);
}

TEST(ValidationTest, StartAlignmentRemovesAConstantRecordingOffset) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 30, 30, 1, 27);
  std::vector<Series> ref = sim;
  for (size_t k = 0; k < ref.size(); ++k) {
    ref[k].id = "ref" + std::to_string(k);
    for (double& t : ref[k].times) t += 2.5 * (k + 1);
  }
  ValidationOptions options;
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  // Shifting by the offset and back rounds the times by an ulp or so.
  EXPECT_NEAR(report->distance, 0.0, 1e-12);
  for (const PairDiagnostics& pair : report->pairs) {
    EXPECT_EQ(pair.sim, pair.ref);
    EXPECT_EQ(pair.sim_deletions, 0u);
    EXPECT_NEAR(pair.mean_time_shift, 0.0, 1e-12);
  }
}

TEST(ValidationTest, UserWeightsUseTheNetworkSimplexAndAreNormalised) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 3, 10, 30, 1, 28);
  const std::vector<Series> ref = RandomWalkRuns("ref", 3, 10, 30, 1, 29);
  ValidationOptions options;
  options.simulation_weights = {1.0, 2.0, 1.0};
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->solver, TransportSolver::kNetworkSimplex);
  // The solver transports integer supplies: weights are exact up to its rounding.
  EXPECT_NEAR(report->simulation[1].weight, 0.5, 1e-12);
  EXPECT_NEAR(report->reference[0].weight, 1.0 / 3.0, 1e-12);
  EXPECT_LE(report->weight_rounding_bound, 1e-12 * report->distance);
}

TEST(ValidationTest, ErrorsNameTheRunAtFault) {
  std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 10, 1, 30);
  const std::vector<Series> ref = RandomWalkRuns("ref", 2, 10, 10, 1, 31);
  sim[1].values[4] = std::nan("");
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, ValidationOptions{});
  ASSERT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(report.status().message(), HasSubstr("sim1"));
  EXPECT_THAT(report.status().message(), HasSubstr("4"));
}

TEST(ValidationTest, BadTransportOptionsFailBeforeAnyDistance) {
  std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 10, 1, 35);
  std::vector<Series> ref = RandomWalkRuns("ref", 2, 10, 10, 1, 36);
  for (double& t : ref[0].times) t += 100.0;
  ValidationOptions options = NoAlignment();
  options.twed.time_window = 1.0;  // no path for ref0: the cost matrix would fail
  options.order = 0.5;
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(report.status().message(), HasSubstr("order"));
  options.order = 1.0;
  options.reference_weights = {1.0, 2.0, 3.0};
  report = Validate(sim, ref, options);
  ASSERT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(report.status().message(), HasSubstr("3 entries"));
}

TEST(ValidationTest, ReportsEveryPhaseInOrder) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 10, 1, 37);
  std::vector<ValidationPhase> phases;
  ValidationOptions options;
  options.on_phase = [&](ValidationPhase phase) { phases.push_back(phase); };
  ASSERT_TRUE(Validate(sim, sim, options).ok());
  EXPECT_THAT(phases,
              ::testing::ElementsAre(ValidationPhase::kPreparing, ValidationPhase::kCostMatrix,
                                     ValidationPhase::kTransport, ValidationPhase::kDiagnostics));
}

TEST(ValidationTest, CancelledBeforeStartReturnsCancelled) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 10, 1, 32);
  CancellationToken token;
  token.Cancel();
  ValidationOptions options;
  options.compute.cancel = &token;
  EXPECT_EQ(Validate(sim, sim, options).status().code(), absl::StatusCode::kCancelled);
}

TEST(ReportJsonTest, HoldsTheDocumentedKeys) {
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 10, 20, 1, 33);
  const std::vector<Series> ref = RandomWalkRuns("ref", 3, 10, 20, 1, 34);
  ValidationOptions options;
  absl::StatusOr<ValidationReport> report = Validate(sim, ref, options);
  ASSERT_TRUE(report.ok()) << report.status();
  nlohmann::json json = nlohmann::json::parse(ReportToJson(*report));
  for (const char* key :
       {"distance", "order", "solver", "params", "simulation", "reference", "plan",
        "sim_contributions", "ref_contributions", "pairs", "certificate"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_FALSE(json.contains("cost_matrix"));
  for (const char* key : {"nu", "lambda", "p", "time_window", "align", "scale"}) {
    EXPECT_TRUE(json["params"].contains(key)) << key;
  }
  EXPECT_TRUE(json["params"]["time_window"].is_null());
  EXPECT_EQ(json["params"]["align"], "start");
  EXPECT_EQ(json["solver"], "network_simplex");
  EXPECT_EQ(json["distance"].get<double>(), report->distance);
  for (const char* key : {"id", "samples", "weight"}) {
    EXPECT_TRUE(json["simulation"][0].contains(key)) << key;
  }
  for (const char* key : {"sim", "ref", "mass", "cost"}) {
    EXPECT_TRUE(json["plan"][0].contains(key)) << key;
  }
  for (const char* key :
       {"sim", "ref", "twed", "matches", "sim_deletions", "ref_deletions", "mean_time_shift"}) {
    EXPECT_TRUE(json["pairs"][0].contains(key)) << key;
  }
  EXPECT_TRUE(json["certificate"].contains("max_dual_violation"));
  EXPECT_TRUE(json["certificate"].contains("primal_dual_gap"));

  report->cost_matrix = CostMatrix(2, 3, 1.5);
  json = nlohmann::json::parse(ReportToJson(*report));
  ASSERT_TRUE(json.contains("cost_matrix"));
  EXPECT_EQ(json["cost_matrix"].size(), 2u);
  EXPECT_EQ(json["cost_matrix"][1].size(), 3u);
}

}  // namespace
}  // namespace wasserwarp
