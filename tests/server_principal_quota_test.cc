// What one principal may hold of an in-process server (issue 40): sessions and bytes per
// principal, so that one creating a thousand sessions leaves room for the others; labels
// bounded and counted, and a ComputeTwed's inputs counted; each refusal names its flag in a
// QuotaFailure or a BadRequest.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/rpc/error_details.pb.h"
#include "scratch_dir.h"
#include "server_test_util.h"
#include "status_details.h"

namespace wasserwarp::service::testing {
namespace {

using test_support::FindDetail;
using test_support::ScratchDir;
using test_support::WriteFile;
using ::testing::HasSubstr;

class PrincipalQuotaTest : public ServerTest {
 protected:
  void SetUp() override {}
  void TearDown() override { server_.reset(); }

  void Start(ServerConfig config) {
    const std::filesystem::path tokens = dir_.root() / "tokens";
    WriteFile(tokens, "alice:tok-alice\nbob:tok-bob\n");
    config.auth_tokens_file = tokens.string();
    StartServer(config);
  }

  // A call's context carrying `principal`'s token.
  static std::unique_ptr<grpc::ClientContext> As(const std::string& principal) {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", absl::StrCat("Bearer tok-", principal));
    return context;
  }

  grpc::Status Create(const std::string& principal, const std::string& id,
                      const v1::Session& settings = {}) {
    v1::CreateSessionRequest request;
    request.set_session_id(id);
    *request.mutable_session() = settings;
    v1::CreateSessionResponse response;
    return stub_->CreateSession(As(principal).get(), request, &response);
  }

  static std::string QuotaSubject(const grpc::Status& status) {
    const std::optional<google::rpc::QuotaFailure> quota =
        FindDetail<google::rpc::QuotaFailure>(status);
    return quota.has_value() && quota->violations_size() > 0 ? quota->violations(0).subject() : "";
  }

  static std::string BadField(const grpc::Status& status) {
    const std::optional<google::rpc::BadRequest> bad = FindDetail<google::rpc::BadRequest>(status);
    return bad.has_value() && bad->field_violations_size() > 0 ? bad->field_violations(0).field()
                                                               : "";
  }

  const ScratchDir dir_{"quota_"};
};

TEST_F(PrincipalQuotaTest, AThousandSessionsOfOnePrincipalLeaveRoomForAnother) {
  const ServerConfig defaults = TestConfig();
  ASSERT_EQ(defaults.sessions.max_sessions, 1000);
  ASSERT_LT(defaults.sessions.max_sessions_per_principal, defaults.sessions.max_sessions);
  Start(defaults);
  int created = 0;
  grpc::Status refused;
  for (int i = 0; i < 1000; ++i) {
    const grpc::Status status = Create("alice", absl::StrCat("alice-", i));
    if (status.ok()) {
      ++created;
    } else if (refused.ok()) {
      refused = status;
    }
  }
  EXPECT_EQ(created, defaults.sessions.max_sessions_per_principal);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr(absl::StrCat("principal \"alice\" holds ", created, " sessions")));
  EXPECT_THAT(refused.error_message(),
              HasSubstr(absl::StrCat("--max_sessions_per_principal=", created)));
  EXPECT_EQ(QuotaSubject(refused), "--max_sessions_per_principal");
  const grpc::Status other = Create("bob", "bob-0");
  EXPECT_TRUE(other.ok()) << other.error_message();
}

TEST_F(PrincipalQuotaTest, LabelsOverTheBoundAreRefusedNamingTheLabel) {
  ServerConfig config = TestConfig();
  config.sessions.max_label_bytes = 100;
  Start(config);
  v1::Session settings;
  (*settings.mutable_labels())["a"] = std::string(59, 'x');
  (*settings.mutable_labels())["b"] = std::string(59, 'y');
  const grpc::Status big = Create("alice", "big", settings);
  EXPECT_EQ(big.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(big.error_message(), HasSubstr("session.labels[b]"));
  EXPECT_THAT(big.error_message(), HasSubstr("120 bytes"));
  EXPECT_THAT(big.error_message(), HasSubstr("--max_label_bytes=100"));
  EXPECT_EQ(BadField(big), "session.labels[b]");
  EXPECT_EQ(QuotaSubject(big), "--max_label_bytes");

  settings.mutable_labels()->erase("b");
  EXPECT_TRUE(Create("alice", "fits", settings).ok());

  Start(TestConfig());
  v1::Session many;
  for (int i = 0; i < 65; ++i) (*many.mutable_labels())[absl::StrCat("k", 100 + i)] = "";
  const grpc::Status too_many = Create("alice", "many", many);
  EXPECT_EQ(too_many.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(too_many.error_message(), HasSubstr("at most 64 labels"));
  EXPECT_EQ(BadField(too_many), "session.labels[k164]");
}

TEST_F(PrincipalQuotaTest, LabelsCountTowardThePrincipalsBytes) {
  ServerConfig config = TestConfig();
  config.sessions.max_bytes_per_principal = 150;
  Start(config);
  v1::Session settings;
  (*settings.mutable_labels())["note"] = std::string(96, 'x');
  ASSERT_TRUE(Create("alice", "first", settings).ok());
  const grpc::Status second = Create("alice", "second", settings);
  EXPECT_EQ(second.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(second.error_message(), HasSubstr("would hold 200 bytes of run data and labels"));
  EXPECT_EQ(QuotaSubject(second), "--max_bytes_per_principal");
  EXPECT_TRUE(Create("bob", "bobs", settings).ok());
}

// A ComputeTwed holds its request and its runs twice while it waits and runs.
TEST_F(PrincipalQuotaTest, AComputeTwedsInputsCountTowardThePrincipalsBytes) {
  ServerConfig config = TestConfig();
  config.sessions.max_bytes_per_principal = 4000;
  Start(config);
  const auto twed = [this](const std::string& principal, int samples) {
    v1::ComputeTwedRequest request;
    for (v1::InlineSeries* run : {request.mutable_a(), request.mutable_b()}) {
      run->add_channels("x");
      for (int i = 0; i < samples; ++i) {
        run->add_times(i);
        run->add_values(i % 7);
      }
    }
    v1::ComputeTwedResponse response;
    return stub_->ComputeTwed(As(principal).get(), request, &response);
  };
  // 2 runs x 100 samples x 16 bytes, twice, and the request: over 4000 bytes.
  const grpc::Status big = twed("alice", 100);
  EXPECT_EQ(big.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(big.error_message(), HasSubstr("--max_bytes_per_principal=4000"));
  EXPECT_EQ(QuotaSubject(big), "--max_bytes_per_principal");
  // Released once a call ends: small ones go through, one after another.
  for (int i = 0; i < 3; ++i) {
    const grpc::Status small = twed("alice", 20);
    EXPECT_TRUE(small.ok()) << small.error_message();
  }
}

}  // namespace
}  // namespace wasserwarp::service::testing
