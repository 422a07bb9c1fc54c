// Issue 40's rules, without a server process: which addresses are loopback, when the server
// refuses to start open, when it serves reflection (in-process servers probed over gRPC), the
// --tls_principal_from and --tls_principal_map syntax, the client's refusal to send a token in
// plaintext beyond loopback, and the token file and principal map reloaded when their content
// changes.

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "channel_security.h"
#include "grpc/reflection/v1/reflection.pb.h"
#include "ops/auth_tokens.h"
#include "ops/certificate_principal.h"
#include "ops/exposure_rules.h"
#include "scratch_dir.h"
#include "server.h"
#include "validation_client.h"
#include "wire/loopback_address.h"

namespace wasserwarp::service {
namespace {

using test_support::ScratchDir;
using test_support::WriteFile;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(LoopbackAddressTest, OnlyThisMachinesAddressesAreLoopback) {
  for (const char* address :
       {"127.0.0.1:50051", "127.1.2.3:0", "localhost:50051", "LocalHost:1", "[::1]:50051",
        "[::ffff:127.0.0.1]:5", "::1", "dns:///localhost:50051", "ipv4:127.0.0.1:1",
        "unix:/run/wasserwarp.sock"}) {
    EXPECT_TRUE(wire::IsLoopbackAddress(address)) << address;
  }
  for (const char* address :
       {"0.0.0.0:50051", "[::]:50051", ":50051", "192.0.2.1:50051", "10.0.0.1:1", "128.0.0.1:1",
        "[2001:db8::1]:443", "wasserwarp.lab:50051", "localhost.example.com:1",
        "dns:///wasserwarp.lab:443"}) {
    EXPECT_FALSE(wire::IsLoopbackAddress(address)) << address;
  }
  EXPECT_EQ(wire::HostOfAddress("[2001:db8::1]:443"), "2001:db8::1");
  EXPECT_EQ(wire::HostOfAddress("dns://8.8.8.8/wasserwarp.lab:443"), "wasserwarp.lab");
}

ServerConfig Listening(const std::string& listen) {
  ServerConfig config;
  config.listen = listen;
  return config;
}

TEST(ExposureRuleTest, AnOpenNonLoopbackListenIsRefusedNamingTheFlags) {
  for (const char* listen : {"0.0.0.0:50051", "[::]:50051", "192.0.2.1:50051", ":50051"}) {
    const absl::Status status = CheckExposure(Listening(listen));
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << listen;
    EXPECT_THAT(status.message(),
                AllOf(HasSubstr(listen), HasSubstr("--auth_tokens_file"),
                      HasSubstr("--tls_client_ca"), HasSubstr("--allow_unauthenticated")));
    // ValidationServer::Start checks it before it touches anything.
    EXPECT_EQ(ValidateConfig(Listening(listen)).code(), absl::StatusCode::kFailedPrecondition);
  }
  for (const char* listen : {"127.0.0.1:0", "localhost:50051", "[::1]:0"}) {
    EXPECT_TRUE(CheckExposure(Listening(listen)).ok()) << listen;
  }
  ServerConfig config = Listening("0.0.0.0:50051");
  config.auth_tokens_file = "tokens";
  EXPECT_TRUE(CheckExposure(config).ok());
  config = Listening("0.0.0.0:50051");
  config.tls = {.cert_file = "s.pem", .key_file = "s.key", .client_ca_file = "ca.pem"};
  EXPECT_TRUE(CheckExposure(config).ok());
  // TLS without client certificates authenticates nobody.
  config.tls.client_ca_file.clear();
  EXPECT_FALSE(CheckExposure(config).ok());
  config.allow_unauthenticated = true;
  EXPECT_TRUE(CheckExposure(config).ok());
  EXPECT_TRUE(ServesUnauthenticatedBeyondLoopback(config));
  EXPECT_THAT(UnauthenticatedWarning(config), HasSubstr("every caller shares one principal"));
  // The web view has no client certificates: beyond loopback it needs tokens.
  config = Listening("127.0.0.1:0");
  config.http.listen = "0.0.0.0:8443";
  EXPECT_THAT(CheckExposure(config).message(),
              AllOf(HasSubstr("--http_listen 0.0.0.0:8443"), HasSubstr("--auth_tokens_file")));
  config.auth_tokens_file = "tokens";
  EXPECT_TRUE(CheckExposure(config).ok());
}

TEST(ExposureRuleTest, ReflectionIsOnByDefaultOnlyOnLoopback) {
  ServerConfig config = Listening("127.0.0.1:0");
  EXPECT_TRUE(ServesReflection(config));
  config.listen = "0.0.0.0:50051";
  EXPECT_FALSE(ServesReflection(config));
  config.reflection = ReflectionMode::kOn;
  EXPECT_TRUE(ServesReflection(config));
  config.listen = "127.0.0.1:0";
  config.reflection = ReflectionMode::kOff;
  EXPECT_FALSE(ServesReflection(config));
  for (const char* name : {"auto", "on", "off"}) {
    absl::StatusOr<ReflectionMode> mode = ParseReflectionMode(name);
    ASSERT_TRUE(mode.ok()) << name;
    EXPECT_EQ(ReflectionModeName(*mode), name);
  }
  EXPECT_THAT(ParseReflectionMode("yes").status().message(),
              HasSubstr("--reflection must be auto, on or off"));
}

// The status of one ServerReflectionInfo stream of `method` asking for the services: OK where
// reflection is served, UNIMPLEMENTED where not.
grpc::StatusCode ReflectionStatus(const std::string& address, const std::string& method) {
  using grpc::reflection::v1::ServerReflectionRequest;
  using grpc::reflection::v1::ServerReflectionResponse;
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::TemplatedGenericStub<ServerReflectionRequest, ServerReflectionResponse> stub(channel);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  grpc::CompletionQueue queue;
  auto stream = stub.PrepareCall(&context, method, &queue);
  void* tag = nullptr;
  bool ok = false;
  stream->StartCall(&tag);
  queue.Next(&tag, &ok);
  ServerReflectionRequest request;
  request.set_list_services("");
  stream->Write(request, &tag);
  queue.Next(&tag, &ok);
  ServerReflectionResponse response;
  stream->Read(&response, &tag);
  queue.Next(&tag, &ok);
  stream->WritesDone(&tag);
  queue.Next(&tag, &ok);
  grpc::Status status;
  stream->Finish(&status, &tag);
  queue.Next(&tag, &ok);
  return status.error_code();
}

constexpr char kV1[] = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
constexpr char kV1Alpha[] = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";

TEST(ReflectionFlagTest, OnOffAndAuto) {
  struct Case {
    std::string listen;
    ReflectionMode mode;
    grpc::StatusCode expected;
  };
  for (const Case& c : {Case{"127.0.0.1:0", ReflectionMode::kAuto, grpc::StatusCode::OK},
                        Case{"127.0.0.1:0", ReflectionMode::kOff, grpc::StatusCode::UNIMPLEMENTED},
                        Case{"0.0.0.0:0", ReflectionMode::kAuto, grpc::StatusCode::UNIMPLEMENTED},
                        Case{"0.0.0.0:0", ReflectionMode::kOn, grpc::StatusCode::OK}}) {
    ServerConfig config = Listening(c.listen);
    config.reflection = c.mode;
    config.allow_unauthenticated = true;
    absl::StatusOr<std::unique_ptr<ValidationServer>> server = ValidationServer::Start(config);
    ASSERT_TRUE(server.ok()) << server.status();
    // Probed over loopback, whatever the server listens on.
    const std::string port = (*server)->address().substr((*server)->address().rfind(':'));
    for (const char* method : {kV1, kV1Alpha}) {
      EXPECT_EQ(ReflectionStatus("127.0.0.1" + port, method), c.expected)
          << c.listen << " --reflection=" << ReflectionModeName(c.mode) << " " << method;
    }
    (*server)->Shutdown(absl::ZeroDuration());
  }
}

TEST(CertificatePrincipalTest, SourcesInOrderOfPreference) {
  absl::StatusOr<std::vector<PrincipalSource>> sources = ParsePrincipalSources("cn, san_uri");
  ASSERT_TRUE(sources.ok()) << sources.status();
  EXPECT_THAT(*sources,
              ::testing::ElementsAre(PrincipalSource::kCommonName, PrincipalSource::kSanUri));
  EXPECT_THAT(ParsePrincipalSources("san_uri,email").status().message(),
              HasSubstr("--tls_principal_from: \"email\" is none of san_uri, san_dns and cn"));
  EXPECT_THAT(ParsePrincipalSources("cn,cn").status().message(), HasSubstr("cn is listed twice"));
  EXPECT_FALSE(ParsePrincipalSources("").ok());
}

TEST(CertificatePrincipalTest, TheMapFile) {
  absl::StatusOr<PrincipalMap> map = ParsePrincipalMap(
      "# identity principal\n"
      "spiffe://lab/bench-3 bench-3\n"
      "\n"
      "  Lab Bench 4\tbench-4  \n",
      "map");
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_EQ(map->at("spiffe://lab/bench-3"), "bench-3");
  EXPECT_EQ(map->at("Lab Bench 4"), "bench-4");
  EXPECT_THAT(ParsePrincipalMap("a b\nlonely\n", "map").status().message(),
              HasSubstr("map:2: expected identity principal"));
  EXPECT_THAT(ParsePrincipalMap("a b\na c\n", "map").status().message(),
              HasSubstr("map:2: identity \"a\" is listed before"));
  ServerConfig config = Listening("127.0.0.1:0");
  config.tls.principal_map_file = "map";
  EXPECT_THAT(ValidateConfig(config).message(),
              HasSubstr("--tls_principal_map needs --tls_client_ca"));
}

TEST(CertificatePrincipalTest, TheMapIsReadAgainWhenItChangesAndKeptOnABadFile) {
  const ScratchDir dir("principal_map_");
  WriteFile(dir.Path("map"), "spiffe://lab/bench-3 bench-3\n");
  TlsConfig tls;
  tls.principal_map_file = dir.Path("map");
  absl::StatusOr<std::unique_ptr<CertificatePrincipals>> principals =
      CertificatePrincipals::Make(tls);
  ASSERT_TRUE(principals.ok()) << principals.status();
  absl::StatusOr<bool> reloaded = (*principals)->ReloadMapIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_FALSE(*reloaded);

  WriteFile(dir.Path("map"), "spiffe://lab/bench-4 bench-4\n");
  reloaded = (*principals)->ReloadMapIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_TRUE(*reloaded);

  // A bad file is reported once, and the map in use stays.
  WriteFile(dir.Path("map"), "lonely\n");
  reloaded = (*principals)->ReloadMapIfChanged();
  EXPECT_THAT(reloaded.status().message(), HasSubstr(dir.Path("map") + ":1:"));
  reloaded = (*principals)->ReloadMapIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_FALSE(*reloaded);
  EXPECT_TRUE((*principals)->has_map());

  tls.principal_map_file = dir.Path("missing");
  EXPECT_THAT(CertificatePrincipals::Make(tls).status().message(), HasSubstr("missing"));
}

TEST(PlaintextTokenTest, AClientRefusesToSendATokenInPlaintextBeyondLoopback) {
  // 192.0.2.1 is TEST-NET-1: the refusal comes before any connection is tried.
  const absl::Status refused = client::PlaintextTokenCheck("192.0.2.1:50051", false, "t", false);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), AllOf(HasSubstr("in plaintext to 192.0.2.1"), HasSubstr("use TLS"),
                                       HasSubstr("--insecure")));
  EXPECT_TRUE(client::PlaintextTokenCheck("192.0.2.1:50051", false, "t", true).ok());
  EXPECT_TRUE(client::PlaintextTokenCheck("192.0.2.1:50051", true, "t", false).ok());
  EXPECT_TRUE(client::PlaintextTokenCheck("192.0.2.1:50051", false, "", false).ok());
  EXPECT_TRUE(client::PlaintextTokenCheck("127.0.0.1:50051", false, "t", false).ok());

  client::ClientOptions options;
  options.token = "t";
  const absl::Status status =
      client::ValidationClient::Connect("192.0.2.1:50051", options).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(), HasSubstr("192.0.2.1"));
}

TEST(TokenRotationTest, ReloadIfChangedFollowsTheContentAndKeepsTokensOnABadFile) {
  const ScratchDir dir("token_rotation_");
  WriteFile(dir.Path("tokens"), "bench-a:tok-a\n");
  chmod(dir.Path("tokens").c_str(), 0600);
  absl::StatusOr<std::unique_ptr<AuthTokens>> tokens = AuthTokens::Load(dir.Path("tokens"));
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_EQ(TokenFilePermissionWarning(dir.Path("tokens")), std::nullopt);
  absl::StatusOr<bool> reloaded = (*tokens)->ReloadIfChanged();
  ASSERT_TRUE(reloaded.ok());
  EXPECT_FALSE(*reloaded);

  WriteFile(dir.Path("tokens"), "bench-b:tok-b\n");
  reloaded = (*tokens)->ReloadIfChanged();
  ASSERT_TRUE(reloaded.ok()) << reloaded.status();
  EXPECT_TRUE(*reloaded);
  EXPECT_EQ((*tokens)->PrincipalOf("tok-a"), std::nullopt);
  EXPECT_EQ((*tokens)->PrincipalOf("tok-b"), "bench-b");

  // A bad file is reported once and keeps the tokens in use.
  WriteFile(dir.Path("tokens"), "bench-b tok-b\n");
  reloaded = (*tokens)->ReloadIfChanged();
  EXPECT_THAT(reloaded.status().message(), HasSubstr(dir.Path("tokens") + ":1:"));
  reloaded = (*tokens)->ReloadIfChanged();
  ASSERT_TRUE(reloaded.ok());
  EXPECT_FALSE(*reloaded);
  EXPECT_EQ((*tokens)->PrincipalOf("tok-b"), "bench-b");

  chmod(dir.Path("tokens").c_str(), 0640);
  EXPECT_EQ(TokenFilePermissionWarning(dir.Path("tokens")), std::nullopt);
  chmod(dir.Path("tokens").c_str(), 0644);
  EXPECT_THAT(TokenFilePermissionWarning(dir.Path("tokens")).value_or(""),
              AllOf(HasSubstr(dir.Path("tokens")), HasSubstr("readable by others"),
                    HasSubstr("chmod 600")));
}

}  // namespace
}  // namespace wasserwarp::service
