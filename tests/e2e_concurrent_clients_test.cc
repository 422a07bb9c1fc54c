// Sixteen benches at once: each client creates its own session on one real server, uploads
// its runs and validates them. Every validation must succeed and equal the embedded one.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e_process.h"
#include "random_runs.h"
#include "validation_client.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/parameters.h"

namespace wasserwarp {
namespace {

constexpr int kClients = 16;

// The JSON report without its wall time, the one field that differs between computations.
std::string JsonWithoutSeconds(ValidationReport report) {
  report.seconds = 0.0;
  return ReportToJson(report);
}

struct Bench {
  std::vector<Series> simulation;
  std::vector<Series> reference;
  ValidationOptions options;
};

// Different data and parameters for each client, so that a mix-up between sessions or
// jobs shows.
Bench BenchData(int k) {
  Bench bench;
  bench.simulation = test_data::RandomWalkRuns("sim", 6 + k % 3, 300, 500, 2, 1000 + k);
  bench.reference = test_data::RandomWalkRuns("ref", 6, 300, 500, 2, 2000 + k);
  bench.options.twed.nu = 0.1 * (k + 1);
  bench.options.twed.lambda = 0.5;
  bench.options.order = 1 + k % 2;
  bench.options.prepare.scale = k % 2 == 0 ? Scale::kNone : Scale::kReferenceStd;
  return bench;
}

TEST(E2eConcurrentClientsTest, SixteenClientsEachValidateTheirOwnSession) {
  const test_support::ScratchDir scratch("e2e_concurrent_");
  ASSERT_FALSE(scratch.root().empty());
  absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server =
      e2e::ServerProcess::Start(WASSERWARP_SERVER, scratch.root().string());
  ASSERT_TRUE(server.ok()) << server.status();

  std::vector<Bench> benches;
  std::vector<std::string> expected;
  for (int k = 0; k < kClients; ++k) {
    benches.push_back(BenchData(k));
    absl::StatusOr<ValidationReport> report =
        Validate(benches[k].simulation, benches[k].reference, benches[k].options);
    ASSERT_TRUE(report.ok()) << report.status();
    expected.push_back(JsonWithoutSeconds(*std::move(report)));
  }

  std::vector<absl::Status> outcomes(kClients);
  std::vector<std::string> results(kClients);
  std::vector<std::thread> clients;
  for (int k = 0; k < kClients; ++k) {
    clients.emplace_back([&, k] {
      const Bench& bench = benches[k];
      absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
          client::ValidationClient::Connect((*server)->address());
      if (!client.ok()) {
        outcomes[k] = client.status();
        return;
      }
      const std::string id = absl::StrCat("bench-", k);
      v1::Session settings;
      *settings.mutable_default_parameters() = wire::ParametersOf(bench.options);
      if (absl::StatusOr<v1::Session> session = (*client)->CreateSession(id, settings);
          !session.ok()) {
        outcomes[k] = session.status();
        return;
      }
      if (absl::StatusOr<v1::UploadSeriesResponse> uploaded =
              (*client)->UploadRuns(id, bench.simulation, bench.reference);
          !uploaded.ok()) {
        outcomes[k] = uploaded.status();
        return;
      }
      absl::StatusOr<ValidationReport> report =
          (*client)->Validate(id, v1::ValidationParameters(), /*include_cost_matrix=*/false);
      if (!report.ok()) {
        outcomes[k] = report.status();
        return;
      }
      results[k] = JsonWithoutSeconds(*std::move(report));
      outcomes[k] = (*client)->DeleteSession(id);
    });
  }
  for (std::thread& thread : clients) thread.join();

  for (int k = 0; k < kClients; ++k) {
    EXPECT_TRUE(outcomes[k].ok()) << "client " << k << ": " << outcomes[k];
    EXPECT_EQ(results[k], expected[k]) << "client " << k;
  }
  EXPECT_EQ((*server)->Stop(), 0) << (*server)->Log();
}

}  // namespace
}  // namespace wasserwarp
