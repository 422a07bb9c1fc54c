// Safe by default (issue 40) with the real binaries: the server refusing to listen open beyond
// loopback, certificate holders as principals of their own, the token file and the TLS
// certificate rotated on disk without a signal, and the CLI refusing to send a token in
// plaintext beyond loopback.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "e2e_process.h"
#include "tls_server_test_base.h"

namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using wasserwarp::e2e::ServerProcess;
using wasserwarp::test_support::ProgramResult;

// Calls come fast; the poll of the credential files is what the tests wait for.
constexpr char kRefresh[] = "--credentials_refresh_interval=1s";

class E2eSecurityDefaultsTest : public wasserwarp::testing::TlsServerTestBase {
 protected:
  E2eSecurityDefaultsTest() : TlsServerTestBase("e2e_security_defaults_") {}

  std::vector<std::string> MutualTls() const {
    return {"--tls_cert",      certs_.server_cert, "--tls_key",
            certs_.server_key, "--tls_client_ca",  certs_.ca};
  }

  // `wasserwarp args... --server ADDRESS --tls-ca CA extra...`.
  ProgramResult Cli(std::vector<std::string> args, const std::vector<std::string>& extra) const {
    args.insert(args.end(), {"--server", server_->address(), "--tls-ca", certs_.ca});
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(WASSERWARP_CLI, std::move(args));
  }

  // The CLI presenting a client certificate.
  ProgramResult CliWith(const std::string& cert, const std::string& key,
                        std::vector<std::string> args) const {
    return Cli(std::move(args), {"--tls-cert", cert, "--tls-key", key});
  }

  // Waits until the server's log holds `text`: the poll runs on the server's own time.
  bool LogShows(const std::string& text) const {
    for (int i = 0; i < 1500; ++i) {
      if (absl::StrContains(server_->Log(), text)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
};

TEST_F(E2eSecurityDefaultsTest, AnOpenServerBeyondLoopbackStartsOnlyWhenAllowed) {
  const absl::Status refused = StartServer({"--listen", "0.0.0.0:0"});
  EXPECT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(),
              AllOf(HasSubstr("--listen 0.0.0.0:0 is not a loopback address"),
                    HasSubstr("--auth_tokens_file"), HasSubstr("--allow_unauthenticated")));

  ASSERT_TRUE(StartServer({"--listen", "0.0.0.0:0", "--allow_unauthenticated"}).ok());
  EXPECT_THAT(server_->Log(),
              AllOf(HasSubstr("[warning]"), HasSubstr("every caller shares one principal"),
                    HasSubstr("allow_unauthenticated=true")));
}

TEST_F(E2eSecurityDefaultsTest, EachCertificateHolderIsAPrincipalOfItsOwn) {
  // Without a map: bench-a by its CN, bench-b by its SAN URI (the default prefers it).
  ASSERT_TRUE(StartServer(MutualTls()).ok());
  ProgramResult result =
      CliWith(certs_.client_cert, certs_.client_key, {"sessions", "create", "--session", "of-a"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = CliWith(certs_.second_client_cert, certs_.second_client_key,
                   {"sessions", "create", "--session", "of-b"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = CliWith(certs_.second_client_cert, certs_.second_client_key, {"sessions", "list"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, AllOf(HasSubstr("of-b"), Not(HasSubstr("of-a"))));
  result = CliWith(certs_.client_cert, certs_.client_key, {"sessions", "list"});
  EXPECT_THAT(result.out, AllOf(HasSubstr("of-a"), Not(HasSubstr("of-b"))));
  result =
      CliWith(certs_.client_cert, certs_.client_key, {"sessions", "show", "--session", "of-b"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("not found"));
  ASSERT_EQ(server_->Stop(), 0) << server_->Log();
  EXPECT_THAT(server_->Log(),
              AllOf(HasSubstr("bench-a"), HasSubstr(wasserwarp::testing::kSecondClientUri)));

  // Through a map: two principals again; a third holder the map does not list is refused.
  dir_.Write("principals", absl::StrCat("# identity principal\nbench-a alice\n",
                                        wasserwarp::testing::kSecondClientUri, " bob\n"));
  std::vector<std::string> args = MutualTls();
  args.insert(args.end(), {"--tls_principal_map", Path("principals")});
  ASSERT_TRUE(StartServer(args).ok());
  result = CliWith(certs_.client_cert, certs_.client_key,
                   {"sessions", "create", "--session", "of-alice"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = CliWith(certs_.second_client_cert, certs_.second_client_key, {"sessions", "list"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, Not(HasSubstr("of-alice")));
  result = CliWith(certs_.third_client_cert, certs_.third_client_key, {"sessions", "list"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("not in --tls_principal_map"));
  // With tokens too, a call that sends one is its token's principal; a mapped certificate
  // needs none.
  ASSERT_EQ(server_->Stop(), 0) << server_->Log();
  args.insert(args.end(), {"--auth_tokens_file", Path("tokens")});
  ASSERT_TRUE(StartServer(args).ok());
  result = CliWith(certs_.client_cert, certs_.client_key,
                   {"sessions", "create", "--session", "of-alice-again"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = Cli({"sessions", "list"}, {"--tls-cert", certs_.client_cert, "--tls-key",
                                      certs_.client_key, "--token-file", Path("tok-b")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, Not(HasSubstr("of-alice-again")));
  result = CliWith(certs_.third_client_cert, certs_.third_client_key, {"sessions", "list"});
  EXPECT_NE(result.exit_code, 0);
}

// Kubernetes mounts a Secret's files as symlinks into `..data`, itself a symlink that an
// update swaps to a new directory at once: each file `name` is dir/..data/name.
void SwapSecret(const fs::path& dir, const std::vector<std::pair<std::string, std::string>>& files,
                int version) {
  const std::string data = absl::StrCat("..v", version);
  fs::create_directories(dir / data);
  for (const auto& [name, content] : files) {
    wasserwarp::test_support::WriteFile(dir / data / name, content);
  }
  fs::create_directory_symlink(data, dir / "..data_tmp");
  fs::rename(dir / "..data_tmp", dir / "..data");
  for (const auto& [name, content] : files) {
    if (!fs::is_symlink(dir / name)) fs::create_symlink(fs::path("..data") / name, dir / name);
  }
}

TEST_F(E2eSecurityDefaultsTest, TheTokenFileIsReloadedWhenItChangesWithoutASignal) {
  const fs::path secret = dir_.root() / "secret";
  SwapSecret(secret, {{"tokens", "bench-a:tok-a\n"}}, 1);
  ASSERT_TRUE(StartServer({"--auth_tokens_file", (secret / "tokens").string(), kRefresh}).ok());
  // Written with the umask's 0644: the start warns.
  EXPECT_THAT(server_->Log(), HasSubstr("is readable by others"));
  const auto list = [&](const std::string& token_file) {
    return wasserwarp::test_support::RunProgram(
        WASSERWARP_CLI,
        {"sessions", "list", "--server", server_->address(), "--token-file", Path(token_file)},
        dir_.root());
  };
  EXPECT_EQ(list("tok-a").exit_code, 0);

  SwapSecret(secret, {{"tokens", "bench-b:tok-b\n"}}, 2);
  ASSERT_TRUE(LogShows("reloaded 1 auth tokens")) << server_->Log();
  EXPECT_EQ(list("tok-b").exit_code, 0);
  const ProgramResult old = list("tok-a");
  EXPECT_NE(old.exit_code, 0);
  EXPECT_THAT(old.err, HasSubstr("the access token is not valid"));

  SwapSecret(secret, {{"tokens", "bench-b tok-b\n"}}, 3);
  ASSERT_TRUE(LogShows("auth tokens not reloaded")) << server_->Log();
  EXPECT_THAT(server_->Log(), HasSubstr("tokens:1: expected principal:token"));
  EXPECT_EQ(list("tok-b").exit_code, 0);
}

// The serial number of the certificate the server at `address` presents.
std::string ServedSerial(const std::string& address, const std::string& dir) {
  const std::string out = dir + "/served.txt";
  const std::string command = absl::StrCat("openssl s_client -connect ", address,
                                           " -alpn h2 </dev/null 2>/dev/null | openssl x509 "
                                           "-noout -serial >'",
                                           out, "' 2>/dev/null");
  if (std::system(command.c_str()) != 0) return "";
  return wasserwarp::test_support::ReadFile(out);
}

TEST_F(E2eSecurityDefaultsTest, ARenewedCertificateIsServedWithoutARestart) {
  using wasserwarp::test_support::ReadFile;
  const fs::path secret = dir_.root() / "tls";
  SwapSecret(secret,
             {{"tls.crt", ReadFile(certs_.server_cert)}, {"tls.key", ReadFile(certs_.server_key)}},
             1);
  ASSERT_TRUE(
      StartServer({"--tls_cert", (secret / "tls.crt").string(), "--tls_key",
                   (secret / "tls.key").string(), "--auth_tokens_file", Path("tokens"), kRefresh})
          .ok());
  const std::string before = ServedSerial(server_->address(), dir_.root().string());
  ASSERT_THAT(before, HasSubstr("serial="));
  // A new key and certificate from the same CA, as cert-manager renews them.
  const std::string renew = absl::StrCat(
      "cd '", dir_.root().string(), "' && (",
      wasserwarp::testing::SignCertificateCommand("renewed", "ca", "server.ext", "localhost"),
      ") >renew.log 2>&1");
  ASSERT_EQ(std::system(renew.c_str()), 0) << ReadFile(Path("renew.log"));
  SwapSecret(
      secret,
      {{"tls.crt", ReadFile(Path("renewed.pem"))}, {"tls.key", ReadFile(Path("renewed.key"))}}, 2);
  std::string after = before;
  for (int i = 0; i < 150 && after == before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    after = ServedSerial(server_->address(), dir_.root().string());
  }
  EXPECT_THAT(after, HasSubstr("serial="));
  EXPECT_NE(after, before);
  EXPECT_TRUE(LogShows("reloaded the TLS certificate")) << server_->Log();

  // A key that is not the certificate's: refused, the renewed certificate still served.
  SwapSecret(secret,
             {{"tls.crt", ReadFile(Path("renewed.pem"))}, {"tls.key", ReadFile(certs_.server_key)}},
             3);
  ASSERT_TRUE(LogShows("TLS files not reloaded")) << server_->Log();
  EXPECT_THAT(server_->Log(), HasSubstr("is not the key of --tls_cert"));
  // Past gRPC's own next read of the copies.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(ServedSerial(server_->address(), dir_.root().string()), after);
  const ProgramResult result = Cli({"sessions", "list"}, {"--token-file", Path("tok-a")});
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

TEST(E2eClientRefusalTest, TheCliSendsNoTokenInPlaintextBeyondLoopback) {
  const wasserwarp::test_support::ScratchDir dir("e2e_plaintext_token_");
  dir.Write("token", "tok-a\n");
  // 192.0.2.1 is TEST-NET-1: the CLI refuses before it connects, so nothing is sent anywhere.
  const ProgramResult result = wasserwarp::test_support::RunProgram(
      WASSERWARP_CLI,
      {"sessions", "list", "--server", "192.0.2.1:50051", "--token-file", dir.Path("token")},
      dir.root());
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, AllOf(HasSubstr("refusing to send the access token in plaintext to "
                                          "192.0.2.1"),
                                HasSubstr("--tls-ca"), HasSubstr("--insecure")));
}

}  // namespace
