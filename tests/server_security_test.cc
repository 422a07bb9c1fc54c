// Access control and transport security of the in-process service:
// UNAUTHENTICATED calls, sessions private to their principal, token reloads,
// and TLS and mutual TLS with certificates made at test time. The token file
// itself is server_auth_tokens_test.cc's.

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "channel_security.h"
#include "generic_call.h"
#include "ops/auth_tokens.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "server_test_util.h"
#include "test_certificates.h"
#include "validation_client.h"

namespace wasserwarp::service::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

using test_support::ScratchDir;
using test_support::WriteFile;

// --- access control ---

using test_support::CallGeneric;
class AccessControlTest : public ServerTest {
 protected:
  void SetUp() override {
    tokens_file_ = dir_.root() / "tokens";
    WriteFile(tokens_file_, "alice:tok-alice\nbob:tok-bob\n");
    ServerConfig config = TestConfig();
    config.auth_tokens_file = tokens_file_.string();
    StartServer(config);
  }

  void TearDown() override { server_.reset(); }

  // A stub whose calls carry `authorization: <header>`; none for "".
  std::unique_ptr<v1::ValidationService::Stub> StubWithHeader(const std::string& header) {
    return StubWith(client::AuthorizationInterceptors(header));
  }

  // A stub that sends `token` the way the client library does.
  std::unique_ptr<v1::ValidationService::Stub> StubFor(const std::string& token) {
    return StubWith(client::BearerTokenInterceptors(token));
  }

  std::unique_ptr<v1::ValidationService::Stub> StubWith(
      std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>>
          interceptors) {
    return v1::ValidationService::NewStub(grpc::experimental::CreateCustomChannelWithInterceptors(
        server_->address(), grpc::InsecureChannelCredentials(), grpc::ChannelArguments(),
        std::move(interceptors)));
  }

  static grpc::Status Create(v1::ValidationService::Stub& stub, const std::string& id) {
    grpc::ClientContext context;
    v1::CreateSessionRequest request;
    request.set_session_id(id);
    v1::CreateSessionResponse response;
    return stub.CreateSession(&context, request, &response);
  }

  static grpc::Status Get(v1::ValidationService::Stub& stub, const std::string& name,
                          v1::Session* session = nullptr) {
    grpc::ClientContext context;
    v1::GetSessionRequest request;
    request.set_name(name);
    v1::GetSessionResponse response;
    grpc::Status status = stub.GetSession(&context, request, &response);
    if (session != nullptr) *session = response.session();
    return status;
  }

  static grpc::Status List(v1::ValidationService::Stub& stub, std::vector<std::string>& names) {
    grpc::ClientContext context;
    v1::ListSessionsRequest request;
    v1::ListSessionsResponse response;
    grpc::Status status = stub.ListSessions(&context, request, &response);
    names.clear();
    for (const v1::Session& session : response.sessions()) names.push_back(session.name());
    return status;
  }

  static grpc::Status Delete(v1::ValidationService::Stub& stub, const std::string& name) {
    grpc::ClientContext context;
    v1::DeleteSessionRequest request;
    request.set_name(name);
    v1::DeleteSessionResponse response;
    return stub.DeleteSession(&context, request, &response);
  }

  static grpc::Status UploadOne(v1::ValidationService::Stub& stub, const std::string& name,
                                v1::Role role, const Series& run) {
    std::vector<v1::UploadSeriesRequest> messages;
    AppendRun(name, role, run, messages);
    grpc::ClientContext context;
    v1::UploadSeriesResponse response;
    std::unique_ptr<grpc::ClientWriter<v1::UploadSeriesRequest>> writer =
        stub.UploadSeries(&context, &response);
    for (const v1::UploadSeriesRequest& message : messages) {
      if (!writer->Write(message)) break;
    }
    writer->WritesDone();
    return writer->Finish();
  }

  static grpc::Status Validate(v1::ValidationService::Stub& stub, const std::string& name) {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<v1::ValidateResponse>> reader =
        stub.Validate(&context, ValidateRequestFor(name));
    v1::ValidateResponse event;
    while (reader->Read(&event)) {
    }
    return reader->Finish();
  }

  static grpc::Status Twed(v1::ValidationService::Stub& stub) {
    grpc::ClientContext context;
    v1::ComputeTwedRequest request;
    for (v1::InlineSeries* run : {request.mutable_a(), request.mutable_b()}) {
      run->add_channels("x");
      run->add_times(0.0);
      run->add_values(1.0);
    }
    v1::ComputeTwedResponse response;
    return stub.ComputeTwed(&context, request, &response);
  }

  static Series Run(const std::string& id) {
    std::mt19937_64 rng(std::hash<std::string>()(id));
    return test_data::RandomWalkRun(rng, id, 20, 1);
  }

  const ScratchDir dir_{"security_"};
  std::filesystem::path tokens_file_;
};

TEST_F(AccessControlTest, EveryMethodRefusesCallsWithoutAValidToken) {
  // A session the refused calls could otherwise reach.
  ASSERT_TRUE(Create(*StubFor("tok-alice"), "bench").ok());
  for (const std::string& header :
       {std::string(), std::string("Bearer wrong"), std::string("Bearer"),
        std::string("Basic tok-alice"), std::string("tok-alice"), std::string("Bearer tok-alic"),
        std::string("Bearer tok-alicee")}) {
    SCOPED_TRACE(absl::StrCat("authorization: \"", header, "\""));
    std::unique_ptr<v1::ValidationService::Stub> stub = StubWithHeader(header);
    std::vector<std::string> names;
    for (const grpc::Status& status :
         {Create(*stub, "other"), Get(*stub, "sessions/bench"), List(*stub, names),
          Delete(*stub, "sessions/bench"),
          UploadOne(*stub, "sessions/bench", v1::ROLE_REFERENCE, Run("ref")),
          Validate(*stub, "sessions/bench"), Twed(*stub)}) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
    }
    EXPECT_THAT(names, IsEmpty());
  }
  // Nothing the refused calls sent arrived.
  v1::Session session;
  ASSERT_TRUE(Get(*StubFor("tok-alice"), "sessions/bench", &session).ok());
  EXPECT_EQ(session.runs_size(), 0);
  EXPECT_EQ(Get(*StubFor("tok-alice"), "sessions/other").error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(AccessControlTest, TheMessageSaysHowToSendAToken) {
  std::vector<std::string> names;
  const grpc::Status missing = List(*StubWithHeader(""), names);
  EXPECT_THAT(missing.error_message(), HasSubstr("authorization: Bearer <token>"));
  EXPECT_THAT(missing.error_message(), HasSubstr("--token-file"));
  const grpc::Status wrong = List(*StubFor("tok-alicf"), names);
  EXPECT_EQ(wrong.error_message(), "the access token is not valid");
}

TEST_F(AccessControlTest, TheBearerSchemeIsCaseInsensitive) {
  std::vector<std::string> names;
  EXPECT_TRUE(List(*StubWithHeader("bearer tok-bob"), names).ok());
  EXPECT_TRUE(List(*StubWithHeader("BEARER  tok-bob"), names).ok());
}

TEST_F(AccessControlTest, HealthNeedsNoToken) {
  std::string response;
  const grpc::Status status = CallGeneric(channel_, "/grpc.health.v1.Health/Check", "", response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  // HealthCheckResponse{status: SERVING}: field 1 = 1.
  EXPECT_EQ(response, std::string("\x08\x01", 2));
}

TEST_F(AccessControlTest, SessionsAreInvisibleToOtherPrincipals) {
  std::unique_ptr<v1::ValidationService::Stub> alice = StubFor("tok-alice");
  std::unique_ptr<v1::ValidationService::Stub> bob = StubFor("tok-bob");
  ASSERT_TRUE(Create(*alice, "bench").ok());
  ASSERT_TRUE(UploadOne(*alice, "sessions/bench", v1::ROLE_SIMULATION, Run("sim")).ok());
  ASSERT_TRUE(UploadOne(*alice, "sessions/bench", v1::ROLE_REFERENCE, Run("ref")).ok());
  ASSERT_TRUE(Create(*bob, "bob-bench").ok());

  // To bob, alice's session is exactly an unknown one.
  const grpc::Status unknown = Get(*bob, "sessions/nosuch");
  ASSERT_EQ(unknown.error_code(), grpc::StatusCode::NOT_FOUND);
  const grpc::Status get = Get(*bob, "sessions/bench");
  EXPECT_EQ(get.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(get.error_message(), "session sessions/bench not found");
  for (const grpc::Status& status :
       {UploadOne(*bob, "sessions/bench", v1::ROLE_REFERENCE, Run("intruder")),
        Validate(*bob, "sessions/bench"), Delete(*bob, "sessions/bench")}) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << status.error_message();
    EXPECT_EQ(status.error_message(), "session sessions/bench not found");
  }
  std::vector<std::string> names;
  ASSERT_TRUE(List(*bob, names).ok());
  EXPECT_THAT(names, ElementsAre("sessions/bob-bench"));
  ASSERT_TRUE(List(*alice, names).ok());
  EXPECT_THAT(names, ElementsAre("sessions/bench"));

  // Ids are one namespace: bob cannot take alice's, and learns only that it is taken.
  EXPECT_EQ(Create(*bob, "bench").error_code(), grpc::StatusCode::ALREADY_EXISTS);

  // Alice's session is untouched and hers to use.
  v1::Session session;
  ASSERT_TRUE(Get(*alice, "sessions/bench", &session).ok());
  EXPECT_EQ(session.runs_size(), 2);
  EXPECT_TRUE(Validate(*alice, "sessions/bench").ok());
  EXPECT_TRUE(Delete(*alice, "sessions/bench").ok());
}

TEST_F(AccessControlTest, ReloadRotatesTokensAndKeepsThemOnABadFile) {
  std::unique_ptr<v1::ValidationService::Stub> alice = StubFor("tok-alice");
  ASSERT_TRUE(Create(*alice, "bench").ok());

  WriteFile(tokens_file_, "# rotated\nalice:tok-alice-2\ncarol:tok-carol\n");
  ASSERT_TRUE(server_->ReloadAuthTokens().ok());
  std::vector<std::string> names;
  EXPECT_EQ(List(*alice, names).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(List(*StubFor("tok-bob"), names).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // Sessions belong to the principal, not to the token: the new token sees them.
  ASSERT_TRUE(List(*StubFor("tok-alice-2"), names).ok());
  EXPECT_THAT(names, ElementsAre("sessions/bench"));
  ASSERT_TRUE(List(*StubFor("tok-carol"), names).ok());
  EXPECT_THAT(names, IsEmpty());

  WriteFile(tokens_file_, "alice:tok-alice-3\ncarol\n");
  const absl::Status bad = server_->ReloadAuthTokens();
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.message(), HasSubstr(absl::StrCat(tokens_file_.string(), ":2:")));
  EXPECT_TRUE(List(*StubFor("tok-alice-2"), names).ok());
  EXPECT_TRUE(List(*StubFor("tok-carol"), names).ok());
  EXPECT_EQ(List(*StubFor("tok-alice-3"), names).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AccessControlTest, TheClientLibrarySendsItsToken) {
  client::ClientOptions options;
  options.token = "tok-alice";
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> alice =
      client::ValidationClient::Connect(server_->address(), options);
  ASSERT_TRUE(alice.ok()) << alice.status();
  ASSERT_TRUE((*alice)->CreateSession("bench", v1::Session()).ok());
  ASSERT_TRUE((*alice)->UploadRuns("bench", {Run("sim")}, {Run("ref")}).ok());
  absl::StatusOr<std::vector<v1::Session>> sessions = (*alice)->ListSessions();
  ASSERT_TRUE(sessions.ok()) << sessions.status();
  EXPECT_EQ(sessions->size(), 1u);

  absl::StatusOr<std::unique_ptr<client::ValidationClient>> anonymous =
      client::ValidationClient::Connect(server_->address());
  ASSERT_TRUE(anonymous.ok()) << anonymous.status();
  EXPECT_EQ((*anonymous)->ListSessions().status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(AccessControlTest, ReloadWithoutATokensFileIsRefused) {
  ServerConfig config = TestConfig();
  StartServer(config);
  EXPECT_EQ(server_->ReloadAuthTokens().code(), absl::StatusCode::kFailedPrecondition);
  // Without access control a token is ignored: everyone is the anonymous principal.
  std::vector<std::string> names;
  ASSERT_TRUE(Create(*StubFor("anything"), "shared").ok());
  ASSERT_TRUE(List(*StubWithHeader(""), names).ok());
  EXPECT_THAT(names, ElementsAre("sessions/shared"));
}

TEST(AccessControlConfigTest, ABadTokensFileStopsTheStart) {
  const ScratchDir dir("security_");
  WriteFile(dir.root() / "tokens", "alice tok-alice\n");
  ServerConfig config = TestConfig();
  config.auth_tokens_file = dir.Path("tokens");
  absl::StatusOr<std::unique_ptr<ValidationServer>> server = ValidationServer::Start(config);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(server.status().message(), HasSubstr(absl::StrCat(config.auth_tokens_file, ":1:")));
}

// --- TLS ---

class TlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    spdlog::set_level(spdlog::level::warn);
    if (!wasserwarp::testing::HasOpenssl()) return;
    dir_ = new ScratchDir("security_");
    certificates_ = new wasserwarp::testing::TestCertificates();
    const absl::Status made =
        wasserwarp::testing::MakeTestCertificates(dir_->root(), *certificates_);
    ASSERT_TRUE(made.ok()) << made;
  }

  static void TearDownTestSuite() {
    delete dir_;
    delete certificates_;
    dir_ = nullptr;
    certificates_ = nullptr;
  }

  void SetUp() override {
    if (certificates_ == nullptr) GTEST_SKIP() << "no openssl command to make certificates";
  }

  const wasserwarp::testing::TestCertificates& certs() const { return *certificates_; }

  void StartServer(bool mutual, const std::string& tokens_file = "") {
    ServerConfig config = TestConfig();
    config.tls.cert_file = certs().server_cert;
    config.tls.key_file = certs().server_key;
    if (mutual) config.tls.client_ca_file = certs().ca;
    config.auth_tokens_file = tokens_file;
    absl::StatusOr<std::unique_ptr<ValidationServer>> server = ValidationServer::Start(config);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  // Connects with `tls` and lists the sessions: the first call completes the
  // handshake, whose client-certificate check TLS 1.3 may leave until then.
  absl::Status ConnectAndList(std::optional<client::ClientTls> tls, const std::string& token = "",
                              const std::string& address = "") {
    client::ClientOptions options;
    options.tls = std::move(tls);
    options.token = token;
    options.connect_timeout = absl::Seconds(10);
    absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
        client::ValidationClient::Connect(address.empty() ? server_->address() : address, options);
    if (!client.ok()) return client.status();
    return (*client)->ListSessions().status();
  }

  static ScratchDir* dir_;
  static wasserwarp::testing::TestCertificates* certificates_;
  std::unique_ptr<ValidationServer> server_;
};

ScratchDir* TlsTest::dir_ = nullptr;
wasserwarp::testing::TestCertificates* TlsTest::certificates_ = nullptr;

TEST_F(TlsTest, HandshakeWithTheTrustedCa) {
  StartServer(/*mutual=*/false);
  EXPECT_TRUE(ConnectAndList(client::ClientTls{.ca_file = certs().ca}).ok());
  // The certificate names localhost too.
  const std::string port = server_->address().substr(server_->address().rfind(':'));
  EXPECT_TRUE(
      ConnectAndList(client::ClientTls{.ca_file = certs().ca}, "", "localhost" + port).ok());
}

TEST_F(TlsTest, AClientTrustingAnotherCaRefusesTheServer) {
  StartServer(/*mutual=*/false);
  const absl::Status status = ConnectAndList(client::ClientTls{.ca_file = certs().other_ca});
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr("cannot reach server"));
}

TEST_F(TlsTest, APlaintextClientIsRefused) {
  StartServer(/*mutual=*/false);
  EXPECT_FALSE(ConnectAndList(std::nullopt).ok());
}

TEST_F(TlsTest, MutualTlsNeedsAClientCertificateOfTheClientCa) {
  StartServer(/*mutual=*/true);
  EXPECT_TRUE(ConnectAndList(client::ClientTls{.ca_file = certs().ca,
                                               .cert_file = certs().client_cert,
                                               .key_file = certs().client_key})
                  .ok());
  EXPECT_FALSE(ConnectAndList(client::ClientTls{.ca_file = certs().ca}).ok());
  EXPECT_FALSE(ConnectAndList(client::ClientTls{.ca_file = certs().ca,
                                                .cert_file = certs().other_client_cert,
                                                .key_file = certs().other_client_key})
                   .ok());
  EXPECT_FALSE(ConnectAndList(std::nullopt).ok());
}

TEST_F(TlsTest, MutualTlsAndTokensTogether) {
  WriteFile(dir_->root() / "tokens", "bench-a:tok-a\n");
  StartServer(/*mutual=*/true, dir_->Path("tokens"));
  const client::ClientTls tls = {
      .ca_file = certs().ca, .cert_file = certs().client_cert, .key_file = certs().client_key};
  EXPECT_TRUE(ConnectAndList(tls, "tok-a").ok());
  EXPECT_EQ(ConnectAndList(tls).code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(TlsTest, BadTlsFilesStopTheStartNamingTheFlag) {
  ServerConfig config = TestConfig();
  config.tls.cert_file = certs().server_cert;
  EXPECT_THAT(ValidationServer::Start(config).status().message(),
              HasSubstr("--tls_cert needs --tls_key"));
  config.tls.cert_file.clear();
  config.tls.client_ca_file = certs().ca;
  EXPECT_THAT(ValidationServer::Start(config).status().message(),
              HasSubstr("--tls_client_ca needs --tls_cert and --tls_key"));

  config.tls = {.cert_file = dir_->Path("missing.pem"), .key_file = certs().server_key};
  EXPECT_THAT(ValidationServer::Start(config).status().message(),
              HasSubstr(absl::StrCat("--tls_cert: cannot read ", config.tls.cert_file)));
  config.tls = {.cert_file = certs().server_cert, .key_file = dir_->Path("server.ext")};
  EXPECT_THAT(ValidationServer::Start(config).status().message(),
              HasSubstr(absl::StrCat("--tls_key: ", config.tls.key_file, " holds no PEM block")));
  config.tls = {.cert_file = certs().server_cert,
                .key_file = certs().server_key,
                .client_ca_file = dir_->Path("missing-ca.pem")};
  EXPECT_THAT(ValidationServer::Start(config).status().message(),
              HasSubstr("--tls_client_ca: cannot read"));
}

TEST_F(TlsTest, BadClientTlsFilesAreNamed) {
  StartServer(/*mutual=*/false);
  EXPECT_THAT(ConnectAndList(client::ClientTls{.ca_file = dir_->Path("none.pem")}).message(),
              HasSubstr(absl::StrCat("cannot read TLS CA ", dir_->Path("none.pem"))));
  EXPECT_THAT(
      ConnectAndList(client::ClientTls{.ca_file = certs().ca, .cert_file = certs().client_cert})
          .message(),
      HasSubstr("a TLS client certificate needs its key"));
  EXPECT_THAT(ConnectAndList(client::ClientTls{.ca_file = dir_->Path("client.ext")}).message(),
              HasSubstr("holds no PEM block"));
}

}  // namespace
}  // namespace wasserwarp::service::testing
