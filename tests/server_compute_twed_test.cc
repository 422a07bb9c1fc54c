// ComputeTwed through the in-process service: the TWED and edit path the core computes, and
// the refusals of bad runs, bad parameters and runs over the limits.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

#include "random_runs.h"
#include "server_test_util.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"
#include "wire/convert.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;

using ComputeTwedTest = ServerTest;

v1::ComputeTwedRequest TwedRequest(const Series& a, const Series& b) {
  v1::ComputeTwedRequest request;
  *request.mutable_a() = wire::InlineFromSeries(a);
  *request.mutable_b() = wire::InlineFromSeries(b);
  return request;
}

TEST_F(ComputeTwedTest, EqualsTheCliComputation) {
  const std::vector<Series> runs = RandomWalkRuns("run", 2, 50, 90, 3, 17);
  v1::ComputeTwedRequest request = TwedRequest(runs[0], runs[1]);
  v1::ValidationParameters* params = request.mutable_parameters();
  params->set_nu(0.2);
  params->set_deletion_penalty(0.1);
  params->set_p(1.0);
  params->set_align(v1::ALIGNMENT_NONE);
  params->add_channels("c2");
  params->add_channels("c0");
  // Read by validations only: ComputeTwed never scales.
  params->set_scale(v1::SCALING_REFERENCE_STD);
  grpc::ClientContext context;
  v1::ComputeTwedResponse response;
  const grpc::Status status = stub_->ComputeTwed(&context, request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();

  TwedParams twed;
  twed.nu = 0.2;
  twed.lambda = 0.1;
  twed.p = 1.0;
  PrepareOptions prepare{.channels = {"c2", "c0"}, .align = Align::kNone};
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns({runs[0]}, {runs[1]}, prepare);
  ASSERT_TRUE(prepared.ok());
  absl::StatusOr<double> distance = Twed(prepared->simulation[0], prepared->reference[0], twed);
  ASSERT_TRUE(distance.ok());
  EXPECT_EQ(response.twed(), *distance);
  absl::StatusOr<EditPathSummary> path =
      TwedWithPath(prepared->simulation[0], prepared->reference[0], twed);
  ASSERT_TRUE(path.ok());
  EXPECT_EQ(response.matches(), static_cast<int64_t>(path->matches));
  EXPECT_EQ(response.a_deletions(), static_cast<int64_t>(path->a_deletions));
  EXPECT_EQ(response.b_deletions(), static_cast<int64_t>(path->b_deletions));
  EXPECT_EQ(response.mean_time_shift(), path->mean_time_shift);
}

TEST_F(ComputeTwedTest, Errors) {
  const std::vector<Series> runs = RandomWalkRuns("run", 2, 20, 30, 1, 18);
  Series bad = runs[0];
  bad.times[3] = bad.times[2];
  grpc::ClientContext context;
  v1::ComputeTwedResponse response;
  grpc::Status status = stub_->ComputeTwed(&context, TwedRequest(bad, runs[1]), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("sample 3"));

  v1::ComputeTwedRequest bad_p = TwedRequest(runs[0], runs[1]);
  bad_p.mutable_parameters()->set_p(0.5);
  grpc::ClientContext p_context;
  status = stub_->ComputeTwed(&p_context, bad_p, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  ServerConfig config = TestConfig();
  config.sessions.max_samples_per_run = 25;
  StartServer(config);
  const std::vector<Series> long_runs = RandomWalkRuns("run", 2, 26, 26, 1, 19);
  grpc::ClientContext limit_context;
  status = stub_->ComputeTwed(&limit_context, TwedRequest(long_runs[0], long_runs[1]), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max_samples_per_run"));
}

}  // namespace
}  // namespace wasserwarp::service::testing
