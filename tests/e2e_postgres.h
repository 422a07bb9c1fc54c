// The fixture of end-to-end suites whose real servers share one real PostgreSQL (Debian's,
// started in a scratch directory): one server for the suite, since initdb is most of its cost,
// and a fresh database for each test.

#ifndef WASSERWARP_TESTS_E2E_POSTGRES_H_
#define WASSERWARP_TESTS_E2E_POSTGRES_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "e2e_process.h"
#include "gtest/gtest.h"
#include "postgres_server.h"
#include "validation_client.h"

namespace wasserwarp::e2e {

// The server binary `server` on the database `url` as a replica with a short lease, one job
// thread and `extra` flags, its files in `scratch`; null (the test failed) when it does not
// start.
inline std::unique_ptr<ServerProcess> StartReplica(const std::string& server,
                                                   const std::string& scratch,
                                                   const std::string& url,
                                                   const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"--postgres_url", url, "--log_level=info", "--job_lease=2s",
                                   "--job_threads=1"};
  args.insert(args.end(), extra.begin(), extra.end());
  absl::StatusOr<std::unique_ptr<ServerProcess>> started =
      ServerProcess::Start(server, scratch, args);
  EXPECT_TRUE(started.ok()) << started.status();
  return started.ok() ? *std::move(started) : nullptr;
}

// Waits until the validation `name` runs, as `client` sees it; a failure when it has not begun
// within a minute.
inline ::testing::AssertionResult WaitUntilRunning(client::ValidationClient& client,
                                                   const std::string& name) {
  for (const absl::Time give_up = absl::Now() + absl::Seconds(60);;) {
    absl::StatusOr<v1::Validation> now = client.GetValidation(name);
    if (!now.ok()) return ::testing::AssertionFailure() << now.status();
    if (now->state() == v1::VALIDATION_STATE_RUNNING) return ::testing::AssertionSuccess();
    if (absl::Now() > give_up) return ::testing::AssertionFailure() << name << " never ran";
    absl::SleepFor(absl::Milliseconds(20));
  }
}

// A client of `server`; null (the test failed) when it cannot connect.
inline std::unique_ptr<client::ValidationClient> Connect(const ServerProcess& server) {
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> connected =
      client::ValidationClient::Connect(server.address());
  EXPECT_TRUE(connected.ok()) << connected.status();
  return connected.ok() ? *std::move(connected) : nullptr;
}

class PostgresSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { postgres_ = new test_support::PostgresServer(); }
  static void TearDownTestSuite() {
    delete postgres_;
    postgres_ = nullptr;
  }

  void SetUp() override {
    ASSERT_TRUE(postgres_->ok()) << postgres_->error();
    database_ = absl::StrCat("e2e_", ++databases_);
    ASSERT_TRUE(postgres_->CreateDatabase(database_));
  }

  static inline test_support::PostgresServer* postgres_ = nullptr;
  static inline int databases_ = 0;
  std::string database_;
};

}  // namespace wasserwarp::e2e

#endif  // WASSERWARP_TESTS_E2E_POSTGRES_H_
