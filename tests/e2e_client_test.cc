// The C++ client library against a real `wasserwarp-server`: what it promises beyond the
// wire contract (chunking, all pages, progress, errors as absl::Status) holds end to end.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "e2e_process.h"
#include "random_runs.h"
#include "validation_client.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/parameters.h"
#include "wire/resource_names.h"

namespace wasserwarp {
namespace {

using client::ClientOptions;
using client::ValidationClient;
using ::testing::HasSubstr;

class E2eClientTest : public e2e::ServerTest {
 protected:
  std::unique_ptr<ValidationClient> Connect(const ClientOptions& options = ClientOptions()) {
    absl::StatusOr<std::unique_ptr<ValidationClient>> client =
        ValidationClient::Connect(server_->address(), options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }
};

TEST_F(E2eClientTest, SmallChunksCarryRunsIntact) {
  ClientOptions options;
  options.chunk_bytes = 1000;  // dozens of chunks per run
  std::unique_ptr<ValidationClient> client = Connect(options);
  ASSERT_NE(client, nullptr);
  const std::vector<Series> sim = test_data::RandomWalkRuns("sim", 3, 300, 600, 3, 1);
  const std::vector<Series> ref = test_data::RandomWalkRuns("ref", 2, 300, 600, 3, 2);
  ASSERT_TRUE(client->CreateSession("chunks", v1::Session()).ok());
  absl::StatusOr<v1::UploadSeriesResponse> uploaded =
      client->UploadRuns("chunks", sim, ref, {1, 2, 3}, {});
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  EXPECT_EQ(uploaded->committed_runs_size(), 5);

  absl::StatusOr<v1::Session> session = client->GetSession("chunks");
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ(session->runs_size(), 5);
  EXPECT_EQ(session->runs(0).series_id(), "sim0");
  EXPECT_EQ(session->runs(0).samples(), static_cast<int64_t>(sim[0].samples()));
  EXPECT_EQ(session->runs(2).weight(), 3.0);
  EXPECT_FALSE(session->runs(3).has_weight());

  ValidationOptions options_here;
  options_here.simulation_weights = {1, 2, 3};
  options_here.keep_cost_matrix = true;
  absl::StatusOr<ValidationReport> expected = Validate(sim, ref, options_here);
  ASSERT_TRUE(expected.ok());
  absl::StatusOr<ValidationReport> report = client->Validate("chunks", {}, true);
  ASSERT_TRUE(report.ok()) << report.status();
  report->seconds = expected->seconds;
  EXPECT_EQ(ReportToJson(*report), ReportToJson(*expected));
}

TEST_F(E2eClientTest, ValidateReportsProgressThenTheReport) {
  std::unique_ptr<ValidationClient> client = Connect();
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->CreateSession("progress", v1::Session()).ok());
  ASSERT_TRUE(client
                  ->UploadRuns("progress", test_data::RandomWalkRuns("sim", 6, 800, 800, 1, 3),
                               test_data::RandomWalkRuns("ref", 6, 800, 800, 1, 4))
                  .ok());
  std::vector<v1::ValidateProgress> events;
  absl::StatusOr<ValidationReport> report = client->Validate(
      "progress", {}, false,
      [&events](const v1::ValidateProgress& progress) { events.push_back(progress); });
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_TRUE(std::isfinite(report->distance));
  ASSERT_FALSE(events.empty());
  for (const v1::ValidateProgress& progress : events) {
    EXPECT_LE(progress.pairs_done(), progress.pairs_total());
    EXPECT_LE(progress.cells_done(), progress.cells_total());
  }
}

TEST_F(E2eClientTest, ListSessionsReadsEveryPage) {
  ClientOptions options;
  options.list_page_size = 2;
  std::unique_ptr<ValidationClient> client = Connect(options);
  ASSERT_NE(client, nullptr);
  for (int k = 0; k < 5; ++k) {
    ASSERT_TRUE(client->CreateSession(absl::StrCat("s", k), v1::Session()).ok());
  }
  absl::StatusOr<std::vector<v1::Session>> sessions = client->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  ASSERT_EQ(sessions->size(), 5u);
  for (int k = 0; k < 5; ++k) {
    EXPECT_EQ(wire::SessionIdOf((*sessions)[k].name()), absl::StrCat("s", k));
  }
  ASSERT_TRUE(client->DeleteSession("s3").ok());
  sessions = client->ListSessions();
  ASSERT_TRUE(sessions.ok());
  EXPECT_EQ(sessions->size(), 4u);
}

TEST_F(E2eClientTest, ComputeTwedEqualsTheCore) {
  std::unique_ptr<ValidationClient> client = Connect();
  ASSERT_NE(client, nullptr);
  const std::vector<Series> runs = test_data::RandomWalkRuns("run", 2, 200, 400, 2, 5);
  ValidationOptions options;
  options.twed.nu = 0.3;
  options.twed.lambda = 0.2;
  options.twed.p = 1;
  absl::StatusOr<v1::ComputeTwedResponse> response =
      client->ComputeTwed(runs[0], runs[1], wire::ParametersOf(options));
  ASSERT_TRUE(response.ok()) << response.status();
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns({runs[0]}, {runs[1]}, options.prepare);
  ASSERT_TRUE(prepared.ok());
  absl::StatusOr<double> expected =
      Twed(prepared->simulation[0], prepared->reference[0], options.twed);
  ASSERT_TRUE(expected.ok());
  EXPECT_EQ(response->twed(), *expected);
  EXPECT_GT(response->matches(), 0);
}

TEST_F(E2eClientTest, ErrorsKeepTheServiceCodeAndMessage) {
  std::unique_ptr<ValidationClient> client = Connect();
  ASSERT_NE(client, nullptr);
  absl::StatusOr<v1::Session> missing = client->GetSession("missing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("missing"));

  const std::vector<Series> ref = test_data::RandomWalkRuns("ref", 1, 10, 10, 1, 6);
  ASSERT_TRUE(client->CreateSession("errors", v1::Session()).ok());
  EXPECT_EQ(client->CreateSession("errors", v1::Session()).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(client->UploadRuns("errors", {}, ref).ok());
  absl::StatusOr<v1::UploadSeriesResponse> again = client->UploadRuns("errors", {}, ref);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("ref0"));

  // Checked here, before anything is sent.
  EXPECT_EQ(client->UploadRuns("errors", ref, {}, {1, 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  Series broken = ref[0];
  broken.times[1] = broken.times[0];
  EXPECT_EQ(client->UploadRuns("errors", {broken}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(client->UploadRuns("errors", {}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(E2eClientTest, StoppedServerIsUnavailable) {
  std::unique_ptr<ValidationClient> client = Connect();
  ASSERT_NE(client, nullptr);
  const std::string address = server_->address();
  ASSERT_EQ(server_->Stop(), 0) << server_->Log();
  server_.reset();

  const absl::Status listed = client->ListSessions().status();
  EXPECT_EQ(listed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(listed.message(), HasSubstr("cannot reach server " + address));

  const auto start = std::chrono::steady_clock::now();
  const absl::Status connected = ValidationClient::Connect(address).status();
  EXPECT_EQ(connected.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(connected.message(), HasSubstr("cannot reach server " + address));
  // A refused connection is an answer; it does not wait for the connect timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace wasserwarp
