// Session RPCs through the in-process service, with health, reflection and
// idle expiry.

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "generic_call.h"
#include "postgres_server.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "server_test_util.h"
#include "wire/convert.h"

namespace wasserwarp::service::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

class SessionsTest : public ServerTest {
 protected:
  grpc::Status List(int page_size, const std::string& token, v1::ListSessionsResponse& response) {
    grpc::ClientContext context;
    v1::ListSessionsRequest request;
    request.set_page_size(page_size);
    request.set_page_token(token);
    return stub_->ListSessions(&context, request, &response);
  }

  grpc::Status Delete(const std::string& name) {
    grpc::ClientContext context;
    v1::DeleteSessionRequest request;
    request.set_name(name);
    v1::DeleteSessionResponse response;
    return stub_->DeleteSession(&context, request, &response);
  }

  // A unary call by method path with serialized messages, for services this
  // test has no generated stubs of.
  grpc::Status CallGeneric(const std::string& method, const std::string& request,
                           std::string& response) {
    return test_support::CallGeneric(channel_, method, request, response);
  }
};

TEST_F(SessionsTest, CreateWithSettingsThenGet) {
  v1::Session settings;
  settings.mutable_default_parameters()->set_deletion_penalty(0.3);
  settings.mutable_default_parameters()->set_scale(v1::SCALING_REFERENCE_STD);
  (*settings.mutable_labels())["bench"] = "hil-3";
  settings.mutable_idle_ttl()->set_seconds(3600);
  grpc::ClientContext context;
  v1::CreateSessionRequest request;
  request.set_session_id("lane-change_2.v1");
  *request.mutable_session() = settings;
  v1::CreateSessionResponse response;
  ASSERT_TRUE(stub_->CreateSession(&context, request, &response).ok());
  const v1::Session& session = response.session();
  EXPECT_EQ(session.name(), "sessions/lane-change_2.v1");
  EXPECT_EQ(session.default_parameters().deletion_penalty(), 0.3);
  EXPECT_EQ(session.labels().at("bench"), "hil-3");
  EXPECT_EQ(session.idle_ttl().seconds(), 3600);
  EXPECT_EQ(wire::FromProtoTime(session.expire_time()) - wire::FromProtoTime(session.create_time()),
            absl::Hours(1));

  ASSERT_TRUE(Upload("sessions/lane-change_2.v1", test_data::RandomWalkRuns("sim", 2, 10, 10, 2, 1),
                     test_data::RandomWalkRuns("ref", 1, 20, 20, 2, 2))
                  .ok());
  absl::StatusOr<v1::Session> got = GetSession("sessions/lane-change_2.v1");
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->runs_size(), 3);
  EXPECT_EQ(got->runs(2).series_id(), "ref0");
  EXPECT_EQ(got->runs(2).role(), v1::ROLE_REFERENCE);
  EXPECT_EQ(got->runs(2).samples(), 20);
  EXPECT_THAT(got->runs(2).channels(), ElementsAre("c0", "c1"));
  EXPECT_EQ(got->simulation_run_count(), 2);
  EXPECT_EQ(got->reference_run_count(), 1);
  // Samples, and each header's text: a 4-character id and 2 channel names of 2.
  EXPECT_EQ(got->bytes_held(), 8 * (2 * 10 * 3 + 20 * 3) + 3 * (4 + 2 * 2));
}

// A simulated run's parameters, trial and units in a durable store: what GetSession shows of
// them after an upload, it shows after a restart.
class RunInputsTest : public SessionsTest {
 protected:
  // Session "study": a simulated run with parameters and a trial, and a reference run.
  void UploadStudy() {
    ASSERT_TRUE(CreateSession("study").ok());
    std::vector<v1::UploadSeriesRequest> messages;
    AppendRun("sessions/study", v1::ROLE_SIMULATION,
              test_data::RandomWalkRuns("sim", 1, 30, 30, 2, 5)[0], messages);
    AppendRun("sessions/study", v1::ROLE_REFERENCE,
              test_data::RandomWalkRuns("ref", 1, 30, 30, 2, 6)[0], messages);
    v1::SeriesHeader& header = *messages[0].mutable_header();
    (*header.mutable_parameters())["mass"] = 1234.5;
    (*header.mutable_parameters())["cf.front"] = 1.0 / 3;
    header.set_trial("road-3");
    header.add_units("deg/s");
    header.add_units("m s-2");
    const grpc::Status status = UploadMessages(messages);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  void ExpectStudy() {
    absl::StatusOr<v1::Session> session = GetSession("sessions/study");
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_EQ(session->runs_size(), 2);
    const v1::RunInfo& sim = session->runs(0);
    const std::map<std::string, double> parameters(sim.parameters().begin(),
                                                   sim.parameters().end());
    EXPECT_THAT(parameters, ElementsAre(Pair("cf.front", 1.0 / 3), Pair("mass", 1234.5)));
    EXPECT_EQ(sim.trial(), "road-3");
    EXPECT_TRUE(session->runs(1).parameters().empty());
    EXPECT_TRUE(session->runs(1).trial().empty());
    EXPECT_THAT(sim.units(), ElementsAre("deg/s", "m s-2"));
    EXPECT_TRUE(session->runs(1).units().empty());
  }

  // On a server with `config`, before and after it restarts on the same store; the server is
  // shut down at the end, before its store goes away.
  void ExpectInputsAcrossARestart(const ServerConfig& config) {
    StartServer(config);
    UploadStudy();
    ExpectStudy();
    const int64_t bytes = GetSession("sessions/study")->bytes_held();
    server_->Shutdown(absl::Seconds(1));
    StartServer(config);
    ExpectStudy();
    EXPECT_EQ(GetSession("sessions/study")->bytes_held(), bytes);
    server_->Shutdown(absl::Seconds(1));
    stub_.reset();
    server_.reset();
  }
};

TEST_F(RunInputsTest, SqliteKeepsParametersTrialAndUnitsAcrossARestart) {
  test_support::ScratchDir dir("run_inputs");
  ServerConfig config = TestConfig();
  config.data_dir = dir.root().string();
  ExpectInputsAcrossARestart(config);
}

TEST_F(RunInputsTest, PostgresKeepsParametersTrialAndUnitsAcrossARestart) {
  test_support::PostgresServer postgres;
  ASSERT_TRUE(postgres.ok()) << postgres.error();
  ASSERT_TRUE(postgres.CreateDatabase("run_inputs"));
  ServerConfig config = TestConfig();
  config.postgres_url = postgres.url("run_inputs");
  ExpectInputsAcrossARestart(config);
}

TEST_F(SessionsTest, CreateErrors) {
  grpc::Status status = CreateSession("Upper");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("\"Upper\""));
  EXPECT_EQ(CreateSession(std::string(64, 'a')).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(CreateSession("taken").ok());
  status = CreateSession("taken");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(status.error_message(), HasSubstr("sessions/taken"));

  v1::Session bad_p;
  bad_p.mutable_default_parameters()->set_p(0.5);
  EXPECT_EQ(CreateSession("p", bad_p).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::Session bad_order;
  bad_order.mutable_default_parameters()->set_order(0.5);
  EXPECT_EQ(CreateSession("q", bad_order).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  v1::Session bad_ttl;
  bad_ttl.mutable_idle_ttl()->set_seconds(-1);
  EXPECT_EQ(CreateSession("t", bad_ttl).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
}

TEST_F(SessionsTest, ServicePicksAnIdWhenNoneIsGiven) {
  grpc::ClientContext context;
  v1::CreateSessionResponse response;
  ASSERT_TRUE(stub_->CreateSession(&context, v1::CreateSessionRequest(), &response).ok());
  EXPECT_THAT(response.session().name(), ::testing::MatchesRegex("sessions/[0-9a-f]{16}"));
  EXPECT_TRUE(GetSession(response.session().name()).ok());
}

TEST_F(SessionsTest, GetAndDeleteErrors) {
  absl::StatusOr<v1::Session> missing = GetSession("sessions/missing");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("sessions/missing"));
  EXPECT_EQ(GetSession("missing").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(GetSession("").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Delete("sessions/missing").error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Delete("sessions/Bad").error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  ASSERT_TRUE(CreateSession("gone").ok());
  EXPECT_TRUE(Delete("sessions/gone").ok());
  EXPECT_EQ(GetSession("sessions/gone").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(Delete("sessions/gone").error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(SessionsTest, ListsPageByPageInIdOrder) {
  for (const char* id : {"e", "b", "g", "a", "d", "c", "f"}) ASSERT_TRUE(CreateSession(id).ok());
  std::vector<std::string> names;
  std::string token;
  int pages = 0;
  do {
    v1::ListSessionsResponse response;
    ASSERT_TRUE(List(3, token, response).ok());
    EXPECT_LE(response.sessions_size(), 3);
    for (const v1::Session& session : response.sessions()) {
      names.push_back(session.name());
      EXPECT_EQ(session.runs_size(), 0);
    }
    token = response.next_page_token();
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  EXPECT_THAT(names, ElementsAre("sessions/a", "sessions/b", "sessions/c", "sessions/d",
                                 "sessions/e", "sessions/f", "sessions/g"));

  v1::ListSessionsResponse all;
  ASSERT_TRUE(List(0, "", all).ok());
  EXPECT_EQ(all.sessions_size(), 7);
  EXPECT_TRUE(all.next_page_token().empty());
  EXPECT_EQ(List(-1, "", all).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  const grpc::Status status = List(3, "not a token!", all);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("page_token"));
}

TEST_F(SessionsTest, MaxSessions) {
  ServerConfig config = TestConfig();
  config.sessions.max_sessions = 2;
  StartServer(config);
  ASSERT_TRUE(CreateSession("a").ok());
  ASSERT_TRUE(CreateSession("b").ok());
  const grpc::Status status = CreateSession("c");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("--max_sessions=2"));
  ASSERT_TRUE(Delete("sessions/a").ok());
  EXPECT_TRUE(CreateSession("c").ok());
}

TEST_F(SessionsTest, IdleSessionsExpire) {
  v1::Session hour;
  hour.mutable_idle_ttl()->set_seconds(3600);
  ASSERT_TRUE(CreateSession("hour", hour).ok());
  ASSERT_TRUE(CreateSession("day").ok());
  const absl::Time now = absl::Now();
  EXPECT_TRUE(server_->ExpireIdleSessions(now).empty());
  EXPECT_THAT(server_->ExpireIdleSessions(now + absl::Hours(2)), ElementsAre("hour"));
  EXPECT_EQ(GetSession("sessions/hour").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(GetSession("sessions/day").ok());

  // Without a sweep, an expired session is already gone.
  v1::Session instant;
  instant.mutable_idle_ttl()->set_nanos(1000);
  ASSERT_TRUE(CreateSession("instant", instant).ok());
  EXPECT_EQ(GetSession("sessions/instant").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(SessionsTest, HealthIsServing) {
  std::string response;
  // grpc.health.v1.HealthCheckRequest{service: ""} is empty on the wire;
  // HealthCheckResponse{status: SERVING} is field 1 = 1.
  grpc::Status status = CallGeneric("/grpc.health.v1.Health/Check", "", response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response, std::string("\x08\x01", 2));
  const std::string service = "wasserwarp.v1.ValidationService";
  status = CallGeneric("/grpc.health.v1.Health/Check",
                       std::string("\x0a") + static_cast<char>(service.size()) + service, response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response, std::string("\x08\x01", 2));
}

TEST_F(SessionsTest, ReflectionListsTheService) {
  grpc::GenericStub stub(channel_);
  grpc::ClientContext context;
  grpc::CompletionQueue queue;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &queue);
  void* tag = nullptr;
  bool ok = false;
  const auto next = [&] { return queue.Next(&tag, &ok) && ok; };
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(next());
  // ServerReflectionRequest{list_services: ""}: field 7, length 0.
  grpc::Slice slice(std::string("\x3a\x00", 2));
  grpc::ByteBuffer request(&slice, 1);
  call->Write(request, reinterpret_cast<void*>(2));
  ASSERT_TRUE(next());
  grpc::ByteBuffer response;
  call->Read(&response, reinterpret_cast<void*>(3));
  ASSERT_TRUE(next());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(response.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& part : slices) {
    bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  EXPECT_THAT(bytes, HasSubstr("wasserwarp.v1.ValidationService"));
  EXPECT_THAT(bytes, HasSubstr("grpc.health.v1.Health"));
  context.TryCancel();
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(4));
  queue.Next(&tag, &ok);
  queue.Shutdown();
  while (queue.Next(&tag, &ok)) {
  }
}

}  // namespace
}  // namespace wasserwarp::service::testing
