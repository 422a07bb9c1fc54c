// The shared fixture of the PostgreSQL layer's tests (postgres_store_test.cc and
// postgres_pool_test.cc, one binary): one real PostgreSQL for the whole binary, since initdb
// is most of the cost, and a fresh database for each test.

#ifndef WASSERWARP_TESTS_POSTGRES_FIXTURE_H_
#define WASSERWARP_TESTS_POSTGRES_FIXTURE_H_

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "postgres_server.h"
#include "storage/postgres.h"

namespace wasserwarp::service::postgres {

// In every test's URL; trust authentication ignores it, and no message may show it.
inline constexpr char kPassword[] = "s3cret-Pa55";

inline test_support::PostgresServer* server = nullptr;

// One PostgreSQL for every test of the binary: initdb is most of the cost.
class PostgresEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { server = new test_support::PostgresServer(); }
  void TearDown() override {
    delete server;
    server = nullptr;
  }
};
inline ::testing::Environment* const environment =
    ::testing::AddGlobalTestEnvironment(new PostgresEnvironment);

inline std::string Text(const absl::Status& status) { return std::string(status.message()); }

// What every message that names the database must look like.
inline void ExpectRedacted(const absl::Status& status) {
  EXPECT_THAT(Text(status), ::testing::Not(::testing::HasSubstr(kPassword))) << status;
}

class PostgresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(server, nullptr);
    ASSERT_TRUE(server->ok()) << server->error();
    // A test that failed half-way through a restart leaves the server down.
    if (!server->running()) {
      ASSERT_TRUE(server->Start());
    }
    static int serial = 0;
    database_ = absl::AsciiStrToLower(absl::StrCat(
        "t", ++serial, "_", ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    database_.resize(std::min<size_t>(database_.size(), 60));
    ASSERT_TRUE(server->CreateDatabase(database_));
    url_ = server->url(database_, kPassword);
  }

  Connection Connect() {
    absl::StatusOr<Connection> connection = Connection::Open(url_);
    EXPECT_TRUE(connection.ok()) << connection.status();
    if (!connection.ok()) {
      // Nothing to go on with; the server must not outlive the test.
      delete server;
      std::abort();
    }
    return *std::move(connection);
  }

  // Runs `sql` and fails the test when it fails.
  Result Must(Connection& connection, const std::string& sql,
              const std::vector<Param>& params = {}) {
    absl::StatusOr<Result> result = connection.Exec(sql, params, "testing");
    EXPECT_TRUE(result.ok()) << sql << ": " << result.status();
    return result.ok() ? *result : Result();
  }

  int64_t Count(Connection& connection, const std::string& sql) {
    absl::StatusOr<int64_t> count = Must(connection, sql).GetInt64(0, 0);
    EXPECT_TRUE(count.ok()) << count.status();
    return count.value_or(-1);
  }

  std::string database_;
  std::string url_;
};

}  // namespace wasserwarp::service::postgres

#endif  // WASSERWARP_TESTS_POSTGRES_FIXTURE_H_
