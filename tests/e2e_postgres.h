// The fixture of end-to-end suites whose real servers share one real PostgreSQL (Debian's,
// started in a scratch directory): one server for the suite, since initdb is most of its cost,
// and a fresh database for each test.

#ifndef WASSERWARP_TESTS_E2E_POSTGRES_H_
#define WASSERWARP_TESTS_E2E_POSTGRES_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "postgres_server.h"

namespace wasserwarp::e2e {

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
