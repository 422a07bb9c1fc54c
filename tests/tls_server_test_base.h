// The fixture of the end-to-end tests against a real wasserwarp-server with TLS: a scratch
// directory holding a CA, server and client certificates and token files (test_certificates.h),
// and the server a test starts there, stopped cleanly at its end.

#ifndef WASSERWARP_TESTS_TLS_SERVER_TEST_BASE_H_
#define WASSERWARP_TESTS_TLS_SERVER_TEST_BASE_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "e2e_process.h"
#include "scratch_dir.h"
#include "test_certificates.h"

namespace wasserwarp::testing {

class TlsServerTestBase : public ::testing::Test {
 protected:
  explicit TlsServerTestBase(const std::string& scratch_prefix) : dir_(scratch_prefix) {}

  void SetUp() override {
    if (!HasOpenssl()) GTEST_SKIP() << "no openssl command";
    // The CLI would otherwise send the developer's own token.
    unsetenv("WASSERWARP_TOKEN");
    ASSERT_FALSE(dir_.root().empty());
    const absl::Status made = MakeCertificatesAndTokens(dir_.root(), certs_);
    ASSERT_TRUE(made.ok()) << made;
  }

  void TearDown() override {
    if (server_ != nullptr) {
      EXPECT_EQ(server_->Stop(), 0) << server_->Log();
    }
  }

  // Starts `wasserwarp-server args...` in the scratch directory; its error when it exits first.
  absl::Status StartServer(std::vector<std::string> args) {
    absl::StatusOr<std::unique_ptr<e2e::ServerProcess>> server =
        e2e::ServerProcess::Start(WASSERWARP_SERVER, dir_.root().string(), std::move(args));
    if (!server.ok()) return server.status();
    server_ = *std::move(server);
    return absl::OkStatus();
  }

  std::string Path(const std::string& name) const { return dir_.Path(name); }

  test_support::ProgramResult Run(const std::string& program, std::vector<std::string> args) const {
    return test_support::RunProgram(program, std::move(args), dir_.root());
  }

  const test_support::ScratchDir dir_;
  TestCertificates certs_;
  std::unique_ptr<e2e::ServerProcess> server_;
};

}  // namespace wasserwarp::testing

#endif  // WASSERWARP_TESTS_TLS_SERVER_TEST_BASE_H_
