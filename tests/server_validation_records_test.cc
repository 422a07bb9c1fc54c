// Validation records as release evidence through the in-process service: they outlive their
// session's run data (expired or deleted, the session a tombstone), say what was validated
// (labels, engine, digest, outcome, events), are found across sessions by filters, are deleted
// by their owner only, and survive a restart of a server with --data_dir.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "channel_security.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "server_test_util.h"
#include "status_details.h"
#include "wire/convert.h"

namespace wasserwarp::service::testing {
namespace {

using test_data::RandomWalkRuns;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kSession[] = "sessions/bench";

absl::Status AsStatus(const grpc::Status& status) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

class ValidationRecordsTest : public ServerTest {
 protected:
  void UploadSmallSession(v1::ValidationService::Stub& stub, const std::string& id = "bench") {
    grpc::ClientContext context;
    v1::CreateSessionRequest create;
    create.set_session_id(id);
    (*create.mutable_session()->mutable_labels())["campaign"] = "spring";
    v1::CreateSessionResponse created;
    ASSERT_TRUE(stub.CreateSession(&context, create, &created).ok());
    std::vector<v1::UploadSeriesRequest> messages;
    for (const Series& run : RandomWalkRuns("sim", 3, 40, 120, 2, 11)) {
      AppendRun(created.session().name(), v1::ROLE_SIMULATION, run, messages);
    }
    for (const Series& run : RandomWalkRuns("ref", 3, 40, 120, 2, 12)) {
      AppendRun(created.session().name(), v1::ROLE_REFERENCE, run, messages);
    }
    grpc::ClientContext upload_context;
    v1::UploadSeriesResponse response;
    auto writer = stub.UploadSeries(&upload_context, &response);
    for (const v1::UploadSeriesRequest& message : messages) ASSERT_TRUE(writer->Write(message));
    writer->WritesDone();
    ASSERT_TRUE(writer->Finish().ok());
  }

  // A validation with a verdict that passes when W is at most `max_distance`.
  static v1::ValidateRequest Request(const std::map<std::string, std::string>& labels,
                                     double max_distance = 1e12,
                                     const std::string& session = kSession) {
    v1::ValidateRequest request = ValidateRequestFor(session);
    request.mutable_labels()->insert(labels.begin(), labels.end());
    request.mutable_verdict()->set_permutations(19);
    request.mutable_verdict()->set_max_distance(max_distance);
    return request;
  }

  absl::StatusOr<v1::Validation> Create(const v1::ValidateRequest& request,
                                        v1::ValidationService::Stub* stub = nullptr,
                                        grpc::Status* status_out = nullptr) {
    grpc::ClientContext context;
    v1::CreateValidationRequest create;
    *create.mutable_request() = request;
    v1::CreateValidationResponse response;
    const grpc::Status status =
        (stub != nullptr ? *stub : *stub_).CreateValidation(&context, create, &response);
    if (status_out != nullptr) *status_out = status;
    if (!status.ok()) return AsStatus(status);
    return response.validation();
  }

  // Follows the validation to its end; returns it as GetValidation gives it then.
  absl::StatusOr<v1::Validation> Ended(const std::string& name) {
    grpc::ClientContext context;
    v1::WatchValidationRequest request;
    request.set_name(name);
    auto reader = stub_->WatchValidation(&context, request);
    v1::WatchValidationResponse event;
    while (reader->Read(&event)) {
    }
    if (grpc::Status status = reader->Finish(); !status.ok()) return AsStatus(status);
    return Get(name);
  }

  absl::StatusOr<v1::Validation> Get(const std::string& name) {
    grpc::ClientContext context;
    v1::GetValidationRequest request;
    request.set_name(name);
    v1::GetValidationResponse response;
    const grpc::Status status = stub_->GetValidation(&context, request, &response);
    if (!status.ok()) return AsStatus(status);
    return response.validation();
  }

  // The names of every record `parent` and `filter` select, page by page.
  std::vector<std::string> Names(const std::string& parent, const std::string& filter = "",
                                 const std::string& order_by = "",
                                 v1::ValidationService::Stub* stub = nullptr) {
    std::vector<std::string> names;
    v1::ListValidationsRequest request;
    request.set_parent(parent);
    request.set_filter(filter);
    request.set_order_by(order_by);
    request.set_page_size(1);
    do {
      grpc::ClientContext context;
      v1::ListValidationsResponse response;
      const grpc::Status status =
          (stub != nullptr ? *stub : *stub_).ListValidations(&context, request, &response);
      if (!status.ok()) return {absl::StrCat("error: ", status.error_message())};
      for (const v1::Validation& validation : response.validations()) {
        names.push_back(validation.name());
      }
      request.set_page_token(response.next_page_token());
    } while (!request.page_token().empty());
    return names;
  }

  grpc::Status DeleteSession(const std::string& name) {
    grpc::ClientContext context;
    v1::DeleteSessionRequest request;
    request.set_name(name);
    v1::DeleteSessionResponse response;
    return stub_->DeleteSession(&context, request, &response);
  }

  grpc::Status DeleteValidation(const std::string& name) {
    grpc::ClientContext context;
    v1::DeleteValidationRequest request;
    request.set_name(name);
    v1::DeleteValidationResponse response;
    return stub_->DeleteValidation(&context, request, &response);
  }

  std::vector<std::string> SessionNames(bool show_deleted) {
    grpc::ClientContext context;
    v1::ListSessionsRequest request;
    request.set_show_deleted(show_deleted);
    v1::ListSessionsResponse response;
    if (!stub_->ListSessions(&context, request, &response).ok()) return {"error"};
    std::vector<std::string> names;
    for (const v1::Session& session : response.sessions()) names.push_back(session.name());
    return names;
  }

  static std::vector<v1::ValidationEvent::Kind> Kinds(const v1::Validation& validation) {
    std::vector<v1::ValidationEvent::Kind> kinds;
    for (const v1::ValidationEvent& event : validation.events()) kinds.push_back(event.kind());
    return kinds;
  }

  // What a record must say of what it validated, whatever became of its session.
  static void ExpectEvidence(const v1::Validation& record) {
    EXPECT_EQ(record.state(), v1::VALIDATION_STATE_SUCCEEDED);
    EXPECT_TRUE(record.has_report());
    EXPECT_EQ(record.labels().at("model"), "vdyn");
    EXPECT_FALSE(record.engine().version().empty());
    EXPECT_FALSE(record.engine().simd_target().empty());
    EXPECT_EQ(record.request_digest().size(), 64u);
    EXPECT_EQ(record.request_digest(), record.report().request_digest());
    EXPECT_EQ(record.outcome().distance(), record.report().distance());
    ASSERT_TRUE(record.outcome().has_passed());
    EXPECT_EQ(record.outcome().passed(), record.report().verdict().passed());
    ASSERT_EQ(record.runs_size(), 6);
    EXPECT_EQ(record.runs(0).channels_size(), 2);
    EXPECT_GT(record.runs(0).median_sampling_rate(), 0);
    EXPECT_LT(record.runs(0).first_time(), record.runs(0).last_time());
  }
};

TEST_F(ValidationRecordsTest, AnExpiredSessionsRecordsStayWithItsTombstone) {
  ServerConfig config = TestConfig();
  config.sessions.session_idle_ttl = absl::Seconds(1);
  config.sweep_interval = absl::Milliseconds(200);
  StartServer(config);
  UploadSmallSession(*stub_);
  absl::StatusOr<v1::Validation> created = Create(Request({{"model", "vdyn"}}));
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(Ended(created->name()).ok());

  absl::StatusOr<v1::Session> tombstone;
  for (int i = 0; i < 50; ++i) {
    tombstone = GetSession(kSession);
    if (tombstone.ok() && tombstone->state() == v1::Session::STATE_EXPIRED) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  ASSERT_TRUE(tombstone.ok()) << tombstone.status();
  ASSERT_EQ(tombstone->state(), v1::Session::STATE_EXPIRED);
  EXPECT_TRUE(tombstone->has_delete_time());
  EXPECT_EQ(tombstone->labels().at("campaign"), "spring");
  EXPECT_EQ(tombstone->runs_size(), 6);
  EXPECT_EQ(tombstone->bytes_held(), 0);

  absl::StatusOr<v1::Validation> kept = Get(created->name());
  ASSERT_TRUE(kept.ok()) << kept.status();
  ExpectEvidence(*kept);
  EXPECT_THAT(Kinds(*kept),
              ElementsAre(v1::ValidationEvent::KIND_CREATE, v1::ValidationEvent::KIND_START,
                          v1::ValidationEvent::KIND_END, v1::ValidationEvent::KIND_SESSION_EXPIRE));

  EXPECT_TRUE(SessionNames(false).empty());
  EXPECT_THAT(SessionNames(true), ElementsAre(kSession));
  EXPECT_THAT(Names(kSession), ElementsAre(created->name()));
  EXPECT_THAT(Names("sessions/-", "labels.model = \"vdyn\""), ElementsAre(created->name()));

  // No new validation of a tombstone, and its id stays taken while it is kept.
  grpc::Status refused;
  EXPECT_TRUE(
      absl::IsFailedPrecondition(Create(Request({{"model", "vdyn"}}), nullptr, &refused).status()));
  std::optional<google::rpc::PreconditionFailure> failure =
      test_support::FindDetail<google::rpc::PreconditionFailure>(refused);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->violations(0).type(), "SESSION_ACTIVE");
  EXPECT_EQ(CreateSession("bench").error_code(), grpc::StatusCode::ALREADY_EXISTS);

  // Deleting the tombstone purges its records; the id is free again.
  ASSERT_TRUE(DeleteSession(kSession).ok());
  EXPECT_TRUE(absl::IsNotFound(Get(created->name()).status()));
  EXPECT_TRUE(absl::IsNotFound(GetSession(kSession).status()));
  EXPECT_TRUE(CreateSession("bench").ok());
}

TEST_F(ValidationRecordsTest, ADeletedSessionsRecordsSurviveARestartUntilDeleted) {
  test_support::ScratchDir dir("records");
  ServerConfig config = TestConfig();
  config.data_dir = dir.root().string();
  StartServer(config);
  UploadSmallSession(*stub_);
  absl::StatusOr<v1::Validation> created = Create(Request({{"model", "vdyn"}}));
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_TRUE(Ended(created->name()).ok());
  ASSERT_TRUE(DeleteSession(kSession).ok());

  server_->Shutdown(absl::Seconds(1));
  StartServer(config);
  absl::StatusOr<v1::Session> tombstone = GetSession(kSession);
  ASSERT_TRUE(tombstone.ok()) << tombstone.status();
  EXPECT_EQ(tombstone->state(), v1::Session::STATE_DELETED);
  absl::StatusOr<v1::Validation> kept = Get(created->name());
  ASSERT_TRUE(kept.ok()) << kept.status();
  ExpectEvidence(*kept);
  EXPECT_EQ(Kinds(*kept).back(), v1::ValidationEvent::KIND_SESSION_DELETE);

  // The owner deletes the record; the tombstone, left without records, goes with it.
  ASSERT_TRUE(DeleteValidation(created->name()).ok());
  EXPECT_TRUE(absl::IsNotFound(Get(created->name()).status()));
  EXPECT_EQ(DeleteValidation(created->name()).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::IsNotFound(GetSession(kSession).status()));
}

TEST_F(ValidationRecordsTest, FiltersFindRecordsAcrossSessionsInTheOrderAsked) {
  UploadSmallSession(*stub_, "bench");
  UploadSmallSession(*stub_, "other");
  std::vector<std::string> names;
  for (const auto& [session, version, max_distance] :
       {std::tuple{"sessions/bench", "4.9.2", 1e12}, std::tuple{"sessions/other", "4.10.0", 0.0},
        std::tuple{"sessions/bench", "4.10.0", 1e12}}) {
    absl::StatusOr<v1::Validation> created =
        Create(Request({{"model", "vdyn"}, {"version", version}}, max_distance, session));
    ASSERT_TRUE(created.ok()) << created.status();
    ASSERT_TRUE(Ended(created->name()).ok());
    names.push_back(created->name());
  }
  EXPECT_THAT(Names("sessions/-"), ElementsAre(names[2], names[1], names[0]));
  EXPECT_THAT(Names("sessions/-", "", "create_time"), ElementsAre(names[0], names[1], names[2]));
  EXPECT_THAT(Names(kSession), ElementsAre(names[2], names[0]));
  EXPECT_THAT(Names("sessions/-", "labels.version = \"4.10.0\""), ElementsAre(names[2], names[1]));
  EXPECT_THAT(Names("sessions/-", "outcome.passed = false"), ElementsAre(names[1]));
  EXPECT_THAT(Names("sessions/-", "state = SUCCEEDED AND labels.version != \"4.10.0\""),
              ElementsAre(names[0]));
  absl::StatusOr<v1::Validation> second = Get(names[1]);
  ASSERT_TRUE(second.ok());
  const std::string since = absl::FormatTime(
      absl::RFC3339_full, wire::FromProtoTime(second->create_time()), absl::UTCTimeZone());
  EXPECT_THAT(Names("sessions/-", absl::StrCat("create_time >= \"", since, "\"")),
              ElementsAre(names[2], names[1]));
  EXPECT_THAT(Names("sessions/-", absl::StrCat("create_time < \"", since, "\"")),
              ElementsAre(names[0]));

  // A filter that does not parse names the field and the position.
  grpc::ClientContext context;
  v1::ListValidationsRequest bad;
  bad.set_parent("sessions/-");
  bad.set_filter("state = SUCCEEDED AND colour = \"red\"");
  v1::ListValidationsResponse response;
  const grpc::Status status = stub_->ListValidations(&context, bad, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("position 23"));
  std::optional<google::rpc::BadRequest> bad_request =
      test_support::FindDetail<google::rpc::BadRequest>(status);
  ASSERT_TRUE(bad_request.has_value());
  EXPECT_EQ(bad_request->field_violations(0).field(), "filter");
}

TEST_F(ValidationRecordsTest, LabelsAreBoundedAndARunningRecordIsNotDeleted) {
  UploadSmallSession(*stub_);
  std::map<std::string, std::string> labels;
  for (int i = 0; i < 65; ++i) labels[absl::StrCat("key", i)] = "v";
  grpc::Status refused;
  EXPECT_TRUE(absl::IsInvalidArgument(Create(Request(labels), nullptr, &refused).status()));
  std::optional<google::rpc::BadRequest> bad_request =
      test_support::FindDetail<google::rpc::BadRequest>(refused);
  ASSERT_TRUE(bad_request.has_value());
  EXPECT_THAT(bad_request->field_violations(0).field(), HasSubstr("labels["));
  EXPECT_TRUE(absl::IsInvalidArgument(Create(Request({{"Model", "x"}})).status()));
  EXPECT_TRUE(
      absl::IsInvalidArgument(Create(Request({{"model", std::string(257, 'x')}})).status()));

  v1::ValidateRequest slow = Request({{"model", "vdyn"}});
  slow.mutable_verdict()->set_permutations(999999);
  absl::StatusOr<v1::Validation> created = Create(slow);
  ASSERT_TRUE(created.ok()) << created.status();
  const grpc::Status not_yet = DeleteValidation(created->name());
  EXPECT_EQ(not_yet.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(not_yet.error_message(), HasSubstr("cancel it"));
  grpc::ClientContext context;
  v1::CancelValidationRequest cancel;
  cancel.set_name(created->name());
  v1::CancelValidationResponse cancelled;
  ASSERT_TRUE(stub_->CancelValidation(&context, cancel, &cancelled).ok());
  absl::StatusOr<v1::Validation> ended = Ended(created->name());
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->state(), v1::VALIDATION_STATE_CANCELLED);
  // A validation that ran names the build it ran on, whatever its end.
  const std::vector<v1::ValidationEvent::Kind> kinds = Kinds(*ended);
  if (std::find(kinds.begin(), kinds.end(), v1::ValidationEvent::KIND_START) != kinds.end()) {
    EXPECT_FALSE(ended->engine().version().empty());
  }
  EXPECT_THAT(Kinds(*ended), ::testing::Contains(v1::ValidationEvent::KIND_CANCEL));
  EXPECT_TRUE(DeleteValidation(created->name()).ok());
}

TEST_F(ValidationRecordsTest, APrincipalSeesOnlyItsOwnRecordsAcrossSessions) {
  test_support::ScratchDir dir("tokens");
  const std::string tokens = dir.Path("tokens");
  {
    std::ofstream file(tokens);
    file << "alice:tok-alice\nbob:tok-bob\n";
  }
  ServerConfig config = TestConfig();
  config.auth_tokens_file = tokens;
  StartServer(config);
  const auto stub_for = [&](const std::string& token) {
    return v1::ValidationService::NewStub(grpc::experimental::CreateCustomChannelWithInterceptors(
        server_->address(), grpc::InsecureChannelCredentials(), grpc::ChannelArguments(),
        client::BearerTokenInterceptors(token)));
  };
  std::unique_ptr<v1::ValidationService::Stub> alice = stub_for("tok-alice");
  std::unique_ptr<v1::ValidationService::Stub> bob = stub_for("tok-bob");
  UploadSmallSession(*alice);
  absl::StatusOr<v1::Validation> created = Create(Request({{"model", "vdyn"}}), alice.get());
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->principal(), "alice");
  EXPECT_THAT(Names("sessions/-", "", "", alice.get()), ElementsAre(created->name()));
  EXPECT_TRUE(Names("sessions/-", "", "", bob.get()).empty());
  EXPECT_THAT(Names(kSession, "", "", bob.get()), ElementsAre(HasSubstr("not found")));
}

// tests/data/release-0.1.0 holds the data directory of a server of the release before records
// (commit 8a71501): session rig7 with 2 simulated and 3 reference runs and two validations of
// it, one passing max_ratio 100 and one failing max_distance 0 (W 24.427417620479876).
TEST_F(ValidationRecordsTest, ADataDirectoryOfTheReleaseBeforeOpensAndMigrates) {
  test_support::ScratchDir dir("release");
  for (const char* file : {"sessions.db", "validations.db"}) {
    std::filesystem::copy_file(std::filesystem::path(WASSERWARP_RELEASE_DATA) / file,
                               dir.root() / file);
  }
  ServerConfig config = TestConfig();
  config.data_dir = dir.root().string();
  // The session was last used on 2026-12-05: the default idle TTL of a day would sweep it on
  // open from the next day on, and this test is about the migration, not the expiry.
  config.sessions.max_session_ttl = absl::Hours(24 * 36525);
  config.sessions.session_idle_ttl = config.sessions.max_session_ttl;
  StartServer(config);
  absl::StatusOr<v1::Session> session = GetSession("sessions/rig7");
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(session->state(), v1::Session::STATE_ACTIVE);
  EXPECT_EQ(session->runs_size(), 5);
  const std::vector<std::string> names = Names("sessions/-");
  ASSERT_EQ(names.size(), 2u) << ::testing::PrintToString(names);
  std::vector<bool> passed;
  for (const std::string& name : names) {
    absl::StatusOr<v1::Validation> record = Get(name);
    ASSERT_TRUE(record.ok()) << record.status();
    EXPECT_EQ(record->state(), v1::VALIDATION_STATE_SUCCEEDED);
    EXPECT_EQ(record->report().distance(), 24.427417620479876);
    EXPECT_EQ(record->outcome().distance(), 24.427417620479876);
    EXPECT_THAT(Kinds(*record), ElementsAre(v1::ValidationEvent::KIND_CREATE));
    EXPECT_EQ(record->runs_size(), 5);
    passed.push_back(record->outcome().passed());
  }
  EXPECT_THAT(passed, ElementsAre(false, true));

  // The migrated session takes new validations, with labels, and keeps them as records.
  absl::StatusOr<v1::Validation> created =
      Create(Request({{"model", "vdyn"}}, 1e12, "sessions/rig7"));
  ASSERT_TRUE(created.ok()) << created.status();
  absl::StatusOr<v1::Validation> ended = Ended(created->name());
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->report().distance(), 24.427417620479876);
  EXPECT_THAT(Names("sessions/-", "labels.model = vdyn"), ElementsAre(created->name()));
}

}  // namespace
}  // namespace wasserwarp::service::testing
