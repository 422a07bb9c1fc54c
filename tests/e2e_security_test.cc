// The `wasserwarp` CLI against a real `wasserwarp-server` with TLS, mutual TLS and access
// tokens: the --tls-* and --token-file flags, WASSERWARP_TOKEN, and SIGHUP reloading the
// server's token file.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "e2e_process.h"
#include "tls_server_test_base.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using wasserwarp::test_support::ProgramResult;

// The pid of this process's child running `program`. ServerProcess keeps its pid to itself,
// and SIGHUP must reach that process alone.
pid_t ChildRunning(const std::string& program) {
  const fs::path wanted = fs::canonical(program);
  for (const fs::directory_entry& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code error;
    if (fs::read_symlink(entry.path() / "exe", error) != wanted || error) continue;
    // /proc/PID/stat: "pid (comm) state ppid ..."; comm may hold spaces, not ')'.
    const std::string stat = wasserwarp::test_support::ReadFile(entry.path() / "stat");
    const std::vector<std::string> fields = absl::StrSplit(stat.substr(stat.rfind(')') + 2), ' ');
    if (fields.size() > 1 && std::stoi(fields[1]) == getpid()) return std::stoi(name);
  }
  return -1;
}

// Sets an environment variable for the length of a scope; the CLI inherits it.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const std::string& value) : name_(name) {
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnvironment() { unsetenv(name_); }

 private:
  const char* const name_;
};

class E2eSecurityTest : public wasserwarp::testing::TlsServerTestBase {
 protected:
  E2eSecurityTest() : TlsServerTestBase("e2e_security_") {}

  void SetUp() override {
    TlsServerTestBase::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    const ProgramResult data =
        Run(WASSERWARP_EXAMPLE_DATA, {"--out", Path("data"), "--sim-runs", "2", "--ref-runs", "2"});
    ASSERT_EQ(data.exit_code, 0) << data.err;
  }

  // With TLS and the token file; `mutual`: client certificates from the test CA too.
  void StartWithTokens(bool mutual) {
    std::vector<std::string> args = {"--tls_cert",      certs_.server_cert,   "--tls_key",
                                     certs_.server_key, "--auth_tokens_file", Path("tokens")};
    if (mutual) args.insert(args.end(), {"--tls_client_ca", certs_.ca});
    const absl::Status started = StartServer(std::move(args));
    ASSERT_TRUE(started.ok()) << started;
  }

  void Write(const std::string& name, const std::string& content) const {
    dir_.Write(name, content);
  }

  // `wasserwarp args... --server ADDRESS extra...`.
  ProgramResult Cli(std::vector<std::string> args, const std::vector<std::string>& extra) const {
    args.insert(args.end(), {"--server", server_->address()});
    args.insert(args.end(), extra.begin(), extra.end());
    return Run(WASSERWARP_CLI, std::move(args));
  }

  // The CLI with the CA and a token file.
  ProgramResult CliAs(const std::string& token_file, std::vector<std::string> args) const {
    return Cli(std::move(args), {"--tls-ca", certs_.ca, "--token-file", Path(token_file)});
  }
};

TEST_F(E2eSecurityTest, UploadAndValidateOverTlsWithAToken) {
  StartWithTokens(/*mutual=*/false);
  ProgramResult result = CliAs("tok-a", {"sessions", "create", "--session", "bench"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = CliAs("tok-a", {"upload", "--session", "bench", "--sim", Path("data/sim_a"), "--ref",
                           Path("data/ref")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  result = CliAs("tok-a", {"validate", "--session", "bench"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, HasSubstr("distance"));

  // Another principal's token: the session does not exist for it.
  result = CliAs("tok-b", {"sessions", "show", "--session", "bench"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("not found"));
  result = CliAs("tok-b", {"sessions", "list"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_THAT(result.out, Not(HasSubstr("bench")));
}

TEST_F(E2eSecurityTest, TheTokenComesFromTheFileElseTheEnvironment) {
  StartWithTokens(/*mutual=*/false);
  ProgramResult result = Cli({"sessions", "list"}, {"--tls-ca", certs_.ca});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("requires an access token"));
  {
    ScopedEnvironment token("WASSERWARP_TOKEN", "tok-a");
    result = Cli({"sessions", "list"}, {"--tls-ca", certs_.ca});
    EXPECT_EQ(result.exit_code, 0) << result.err;
  }
  {
    // --token-file wins over the environment.
    ScopedEnvironment token("WASSERWARP_TOKEN", "wrong");
    result = CliAs("tok-a", {"sessions", "list"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    Write("wrong", "wrong\n");
    result = CliAs("wrong", {"sessions", "list"});
    EXPECT_NE(result.exit_code, 0);
    EXPECT_THAT(result.err, HasSubstr("the access token is not valid"));
  }
  result = CliAs("missing", {"sessions", "list"});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr(absl::StrCat("--token-file: cannot read ", Path("missing"))));
}

TEST_F(E2eSecurityTest, WithoutTheCaTheConnectionFails) {
  StartWithTokens(/*mutual=*/false);
  ProgramResult result = Cli({"sessions", "list"}, {"--token-file", Path("tok-a")});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("cannot reach server"));
  result = Cli({"sessions", "list"}, {"--tls-ca", certs_.other_ca, "--token-file", Path("tok-a")});
  EXPECT_NE(result.exit_code, 0);
  EXPECT_THAT(result.err, HasSubstr("TLS handshake"));
}

TEST_F(E2eSecurityTest, MutualTlsWithTheCliCertificate) {
  StartWithTokens(/*mutual=*/true);
  ProgramResult result =
      Cli({"sessions", "list"}, {"--tls-ca", certs_.ca, "--tls-cert", certs_.client_cert,
                                 "--tls-key", certs_.client_key, "--token-file", Path("tok-a")});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  result = CliAs("tok-a", {"sessions", "list"});
  EXPECT_NE(result.exit_code, 0);
  result = Cli({"sessions", "list"},
               {"--tls-ca", certs_.ca, "--tls-cert", certs_.other_client_cert, "--tls-key",
                certs_.other_client_key, "--token-file", Path("tok-a")});
  EXPECT_NE(result.exit_code, 0);
  result = Cli({"sessions", "list"}, {"--tls-ca", certs_.ca, "--tls-cert", certs_.client_cert});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--tls-cert: needs --tls-key"));
}

TEST_F(E2eSecurityTest, SighupReloadsTheTokensAndABadFileKeepsThem) {
  StartWithTokens(/*mutual=*/false);
  const pid_t pid = ChildRunning(WASSERWARP_SERVER);
  ASSERT_GT(pid, 0);
  Write("tok-c", "tok-c\n");
  Write("tokens", "bench-c:tok-c\n");
  ASSERT_EQ(kill(pid, SIGHUP), 0);
  // The reload happens on the server's own time; wait for its log line.
  for (int i = 0; i < 500 && !absl::StrContains(server_->Log(), "reloaded 1 auth tokens"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_THAT(server_->Log(), HasSubstr("reloaded 1 auth tokens"));
  EXPECT_EQ(CliAs("tok-c", {"sessions", "list"}).exit_code, 0);
  EXPECT_NE(CliAs("tok-a", {"sessions", "list"}).exit_code, 0);

  Write("tokens", "bench-c tok-c\n");
  ASSERT_EQ(kill(pid, SIGHUP), 0);
  for (int i = 0; i < 500 && !absl::StrContains(server_->Log(), "not reloaded"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_THAT(server_->Log(), HasSubstr(absl::StrCat(Path("tokens"), ":1:")));
  EXPECT_EQ(CliAs("tok-c", {"sessions", "list"}).exit_code, 0);
}

}  // namespace
