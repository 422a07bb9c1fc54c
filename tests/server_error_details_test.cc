// Every kind of error the service answers carries a google.rpc.Status in
// grpc-status-details-bin, which a client decodes without parsing English: the request field
// at fault (BadRequest), the limit hit (QuotaFailure), the session state missing
// (PreconditionFailure), the resource not found (ResourceInfo) and when to retry (RetryInfo).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"
#include "random_runs.h"
#include "server_test_util.h"
#include "status_details.h"
#include "wire/convert.h"

namespace wasserwarp::service {
namespace {

using test_data::RandomWalkRuns;
using ::testing::HasSubstr;
using testing::ServerTest;
using ::testing::StartsWith;
using testing::ValidateRequestFor;

constexpr char kSession[] = "sessions/bench";

// The status's details, decoded; fails the test when there are none.
google::rpc::Status Details(const grpc::Status& status) {
  google::rpc::Status rich;
  EXPECT_TRUE(rich.ParseFromString(status.error_details())) << status.error_message();
  EXPECT_EQ(rich.code(), static_cast<int>(status.error_code()));
  EXPECT_EQ(rich.message(), status.error_message());
  return rich;
}

template <typename Detail>
std::optional<Detail> Find(const grpc::Status& status) {
  Details(status);
  return test_support::FindDetail<Detail>(status);
}

// The field of the status's BadRequest; "" when it has none.
std::string BadField(const grpc::Status& status) {
  const std::optional<google::rpc::BadRequest> bad = Find<google::rpc::BadRequest>(status);
  if (!bad.has_value() || bad->field_violations_size() != 1) return "";
  EXPECT_EQ(bad->field_violations(0).description(), status.error_message());
  return bad->field_violations(0).field();
}

std::string QuotaSubject(const grpc::Status& status) {
  const std::optional<google::rpc::QuotaFailure> quota = Find<google::rpc::QuotaFailure>(status);
  return quota.has_value() && quota->violations_size() == 1 ? quota->violations(0).subject() : "";
}

class ErrorDetailsTest : public ServerTest {
 protected:
  void UploadSmallSession() {
    ASSERT_TRUE(CreateSession("bench").ok());
    ASSERT_TRUE(Upload(kSession, test_data::RandomWalkRuns("sim", 2, 20, 30, 1, 1),
                       test_data::RandomWalkRuns("ref", 3, 20, 30, 1, 2))
                    .ok());
  }

  grpc::Status Validate(const v1::ValidateRequest& request) {
    std::vector<v1::ValidateResponse> events;
    return ValidateAll(request, events);
  }

  grpc::Status Twed(const v1::ComputeTwedRequest& request) {
    grpc::ClientContext context;
    v1::ComputeTwedResponse response;
    return stub_->ComputeTwed(&context, request, &response);
  }

  grpc::Status Create(const v1::Session& session) {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    *request.mutable_session() = session;
    v1::CreateSessionResponse response;
    return stub_->CreateSession(&context, request, &response);
  }
};

TEST_F(ErrorDetailsTest, BadParametersNameTheirRequestField) {
  UploadSmallSession();
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_parameters()->set_nu(-1);
  grpc::Status status = Validate(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "parameters.nu: must be >= 0, got -1");
  EXPECT_EQ(BadField(status), "parameters.nu");

  request = ValidateRequestFor(kSession);
  request.mutable_verdict()->set_permutations(0);
  status = Validate(request);
  EXPECT_EQ(BadField(status), "verdict.permutations");
  EXPECT_THAT(status.error_message(), StartsWith("verdict.permutations: must be between 1 and"));
  // Server messages speak of request fields, never of CLI flags.
  EXPECT_THAT(status.error_message(), ::testing::Not(HasSubstr("--")));

  request = ValidateRequestFor(kSession);
  request.mutable_verdict()->set_min_iso_rating(1.5);
  status = Validate(request);
  EXPECT_EQ(BadField(status), "verdict.min_iso_rating");
  EXPECT_EQ(status.error_message(), "verdict.min_iso_rating: must be between 0 and 1, got 1.5");

  request = ValidateRequestFor(kSession);
  request.add_quantities("c0:max");
  request.add_quantities("c0:nonsense");
  EXPECT_EQ(BadField(Validate(request)), "quantities[1]");

  request = ValidateRequestFor(kSession);
  request.mutable_parameters()->set_resample_rate(-3);
  EXPECT_EQ(BadField(Validate(request)), "parameters.resample_rate");

  v1::Session session;
  session.mutable_default_parameters()->set_p(0.5);
  status = Create(session);
  EXPECT_EQ(BadField(status), "session.default_parameters.p");
  EXPECT_THAT(status.error_message(), StartsWith("session.default_parameters.p: must be >= 1"));
}

TEST_F(ErrorDetailsTest, SizesOverTheLimitsNameTheFieldAndTheLimit) {
  UploadSmallSession();
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_parameters()->set_resample_rate(2.5e8);
  grpc::Status status = Validate(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(BadField(status), "parameters.resample_rate");
  EXPECT_EQ(QuotaSubject(status), "--max_samples_per_run");
  EXPECT_THAT(
      status.error_message(),
      HasSubstr("samples at 2.5e+08 Hz, over the limit of 1000000 (--max_samples_per_run)"));

  request.mutable_parameters()->set_resample_rate(2.5e6);
  status = Validate(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(QuotaSubject(status), "--max_job_bytes");
  EXPECT_THAT(status.error_message(), HasSubstr("over the limit of 1.0 GiB (--max_job_bytes)"));
}

TEST_F(ErrorDetailsTest, SessionStateIsAPreconditionAndAMissingSessionAResource) {
  ASSERT_TRUE(CreateSession("bench").ok());
  grpc::Status status = Validate(ValidateRequestFor(kSession));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  const std::optional<google::rpc::PreconditionFailure> failure =
      Find<google::rpc::PreconditionFailure>(status);
  ASSERT_TRUE(failure.has_value()) << status.error_message();
  ASSERT_EQ(failure->violations_size(), 1);
  EXPECT_EQ(failure->violations(0).type(), "SESSION_RUNS");
  EXPECT_EQ(failure->violations(0).subject(), kSession);

  status = Validate(ValidateRequestFor("sessions/nothing"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  const std::optional<google::rpc::ResourceInfo> info = Find<google::rpc::ResourceInfo>(status);
  ASSERT_TRUE(info.has_value());
  EXPECT_EQ(info->resource_type(), "wasserwarp.v1.Session");
  EXPECT_EQ(info->resource_name(), "sessions/nothing");

  EXPECT_EQ(BadField(Validate(ValidateRequestFor("session/x"))), "session");
}

TEST_F(ErrorDetailsTest, QuotasNameTheirFlag) {
  ServerConfig config = testing::TestConfig();
  config.sessions.max_sessions = 1;
  StartServer(config);
  ASSERT_TRUE(CreateSession("one").ok());
  const grpc::Status status = CreateSession("two");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(QuotaSubject(status), "--max_sessions");
}

TEST_F(ErrorDetailsTest, UploadErrorsNameTheRunAndSampleOfTheStream) {
  ASSERT_TRUE(CreateSession("bench").ok());
  std::vector<v1::UploadSeriesRequest> messages;
  const std::vector<Series> runs = test_data::RandomWalkRuns("sim", 2, 10, 10, 1, 3);
  AppendRun(kSession, v1::ROLE_SIMULATION, runs[0], messages);
  Series bad = runs[1];
  bad.times[7] = bad.times[6];
  AppendRun(kSession, v1::ROLE_SIMULATION, bad, messages);
  grpc::Status status = UploadMessages(messages);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(BadField(status), "series[1].times[7]");
  EXPECT_THAT(status.error_message(), StartsWith("series[1].times[7]: simulation run \"sim1\""));

  v1::UploadSeriesRequest empty;
  empty.set_session(kSession);
  status = UploadMessages({empty});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(BadField(status), "part");

  messages.clear();
  AppendRun(kSession, v1::ROLE_REFERENCE, runs[0], messages, /*weight=*/-1.0);
  status = UploadMessages(messages);
  EXPECT_EQ(BadField(status), "series[0].header.weight");
  // The header's own field path gives way to the stream's, rather than following it.
  EXPECT_THAT(status.error_message(),
              StartsWith("series[0].header.weight: reference run \"sim0\": weight must be"));
}

TEST_F(ErrorDetailsTest, ComputeTwedNamesTheMissingOrBadRun) {
  grpc::Status status = Twed({});
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(BadField(status), "a");
  EXPECT_THAT(status.error_message(), StartsWith("a: is missing"));

  v1::ComputeTwedRequest request;
  const std::vector<Series> runs = test_data::RandomWalkRuns("r", 2, 10, 10, 1, 4);
  *request.mutable_a() = wire::InlineFromSeries(runs[0]);
  status = Twed(request);
  EXPECT_EQ(BadField(status), "b");
  Series bad = runs[1];
  bad.values[4] = std::numeric_limits<double>::quiet_NaN();
  *request.mutable_b() = wire::InlineFromSeries(bad);
  EXPECT_EQ(BadField(Twed(request)), "b.values[4]");
  *request.mutable_b() = wire::InlineFromSeries(runs[1]);
  request.mutable_parameters()->set_resample_rate(1e9);
  status = Twed(request);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(BadField(status), "parameters.resample_rate");
}

TEST_F(ErrorDetailsTest, DurationsAreValidAndTtlsCapped) {
  v1::Session session;
  session.mutable_idle_ttl()->set_seconds(315'576'000'000);
  grpc::Status status = Create(session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(BadField(status), "session.idle_ttl");
  EXPECT_EQ(QuotaSubject(status), "--max_session_ttl");

  session.mutable_idle_ttl()->set_seconds(1);
  session.mutable_idle_ttl()->set_nanos(-1);
  status = Create(session);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(BadField(status), "session.idle_ttl");
  EXPECT_THAT(status.error_message(), HasSubstr("not a valid google.protobuf.Duration"));

  // The longest TTL allowed still gives an expire_time every client can decode.
  session.mutable_idle_ttl()->set_seconds(
      absl::ToInt64Seconds(ServerConfig().sessions.max_session_ttl));
  session.mutable_idle_ttl()->set_nanos(0);
  ASSERT_TRUE(Create(session).ok());
}

TEST_F(ErrorDetailsTest, ValidateBadVerdictOrQuantityIsInvalidArgument) {
  ASSERT_TRUE(CreateSession("bench").ok());
  ASSERT_TRUE(Upload(kSession, RandomWalkRuns("sim", 2, 10, 20, 1, 17),
                     RandomWalkRuns("ref", 2, 10, 20, 1, 18))
                  .ok());
  v1::ValidateRequest request = ValidateRequestFor(kSession);
  request.mutable_verdict()->set_alpha(2.0);
  std::vector<v1::ValidateResponse> events;
  grpc::Status status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("alpha"));

  request = ValidateRequestFor(kSession);
  request.add_quantities("c0:max");
  request.add_quantities("c0:median");
  events.clear();
  status = ValidateAll(request, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("quantities[1]"));
}

TEST_F(ErrorDetailsTest, ValidateErrors) {
  std::vector<v1::ValidateResponse> events;
  grpc::Status status = ValidateAll(ValidateRequestFor("sessions/nothing"), events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("sessions/nothing"));
  status = ValidateAll(ValidateRequestFor("session/x"), events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  ASSERT_TRUE(CreateSession("bench").ok());
  status = ValidateAll(ValidateRequestFor(kSession), events);
  // What is missing is in the session, not in the request.
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("holds no simulated runs"));

  std::vector<v1::UploadSeriesRequest> messages;
  const std::vector<Series> sim = RandomWalkRuns("sim", 2, 20, 30, 1, 15);
  AppendRun(kSession, v1::ROLE_SIMULATION, sim[0], messages, 1.0);
  AppendRun(kSession, v1::ROLE_SIMULATION, sim[1], messages);
  AppendRun(kSession, v1::ROLE_REFERENCE, RandomWalkRuns("ref", 1, 20, 30, 1, 16)[0], messages);
  ASSERT_TRUE(UploadMessages(messages).ok());
  status = ValidateAll(ValidateRequestFor(kSession), events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("simulation run \"sim1\" has no weight"));

  ASSERT_TRUE(CreateSession("other").ok());
  ASSERT_TRUE(Upload("sessions/other", sim, RandomWalkRuns("ref", 1, 20, 30, 1, 16)).ok());
  v1::ValidateRequest bad_nu = ValidateRequestFor("sessions/other");
  bad_nu.mutable_parameters()->set_nu(-1.0);
  events.clear();
  status = ValidateAll(bad_nu, events);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("nu"));
  EXPECT_TRUE(events.empty());
}

TEST(TimestampTest, TimesPastYear9999GoOutAsItsEnd) {
  const google::protobuf::Timestamp end =
      wire::ToProtoTime(absl::FromUnixSeconds(253'402'300'799) + absl::Hours(24 * 365 * 50));
  EXPECT_EQ(end.seconds(), 253'402'300'799);
  EXPECT_EQ(end.nanos(), 0);
}

}  // namespace
}  // namespace wasserwarp::service
