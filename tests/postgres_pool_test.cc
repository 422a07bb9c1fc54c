// The pool of PostgreSQL connections and its retried transactions against a real PostgreSQL
// 15: the bound on connections, waiting (for a busy pool longer than for a database that is
// down) and giving up, a server that restarts or crashes under load, serialization failures,
// and which errors are retried.

#include "storage/postgres_pool.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "postgres_fixture.h"
#include "postgres_server.h"
#include "storage/postgres.h"

namespace wasserwarp::service::postgres {
namespace {

using ::testing::HasSubstr;

using PostgresPoolTest = PostgresTest;

TEST_F(PostgresPoolTest, NeverMoreThanMaxConnections) {
  constexpr int kMax = 3;
  Pool pool(url_, kMax);
  std::atomic<int> lent{0};
  std::atomic<int> most_lent{0};
  std::atomic<int> most_on_server{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 15; ++i) {
        absl::StatusOr<PooledConnection> connection = pool.Acquire(absl::Seconds(20));
        if (!connection.ok()) {
          ++failures;
          continue;
        }
        const int now = ++lent;
        for (int seen = most_lent; now > seen && !most_lent.compare_exchange_weak(seen, now);) {
        }
        absl::StatusOr<Result> result = (*connection)
                                            ->Exec(
                                                "SELECT count(*), pg_sleep(0.002) FROM "
                                                "pg_stat_activity WHERE datname = "
                                                "current_database()",
                                                "counting connections");
        if (!result.ok()) ++failures;
        const int on_server = result.ok() ? static_cast<int>(result->GetInt64(0, 0).value()) : 0;
        for (int seen = most_on_server;
             on_server > seen && !most_on_server.compare_exchange_weak(seen, on_server);) {
        }
        --lent;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_LE(most_lent, kMax);
  EXPECT_GE(most_lent, 2);  // the threads did overlap
  EXPECT_LE(most_on_server, kMax);
  EXPECT_LE(pool.open_connections(), kMax);
}

TEST_F(PostgresPoolTest, AcquireWaitsThenGivesUp) {
  Pool pool(url_, 1);
  absl::StatusOr<PooledConnection> held = pool.Acquire(absl::Seconds(5));
  ASSERT_TRUE(held.ok()) << held.status();
  const absl::Time start = absl::Now();
  absl::StatusOr<PooledConnection> none = pool.Acquire(absl::Milliseconds(150));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(150));
  EXPECT_TRUE(absl::IsUnavailable(none.status())) << none.status();
  EXPECT_THAT(Text(none.status()), HasSubstr(database_));
  ExpectRedacted(none.status());
  // Given back, the connection is lent again: the pool opens no second one.
  { PooledConnection returned = *std::move(held); }
  EXPECT_TRUE(pool.Acquire(absl::Milliseconds(150)).ok());
  EXPECT_EQ(pool.open_connections(), 1);
}

// A busy pool (every connection lent) is waited on for `busy_wait`, a database that cannot be
// reached only for `open_wait`: the service's calls queue for a busy database's connections but
// answer UNAVAILABLE soon when it is down.
TEST_F(PostgresPoolTest, ABusyPoolIsWaitedOnLongerThanADatabaseThatIsDown) {
  Pool pool(url_, 1);
  absl::StatusOr<PooledConnection> held = pool.Acquire(absl::Seconds(5));
  ASSERT_TRUE(held.ok()) << held.status();
  std::thread giver([&] {
    absl::SleepFor(absl::Milliseconds(600));
    PooledConnection returned = *std::move(held);
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<PooledConnection> waited =
      pool.Acquire(/*open_wait=*/absl::Milliseconds(100), /*busy_wait=*/absl::Seconds(10));
  EXPECT_TRUE(waited.ok()) << waited.status();
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(500));
  giver.join();

  const int port = test_support::FreeLoopbackPort();
  Pool down(absl::StrCat("postgresql://wasserwarp:", kPassword, "@127.0.0.1:", port, "/nowhere"),
            1);
  const absl::Time tried = absl::Now();
  absl::StatusOr<PooledConnection> none =
      down.Acquire(/*open_wait=*/absl::Milliseconds(300), /*busy_wait=*/absl::Seconds(30));
  EXPECT_TRUE(absl::IsUnavailable(none.status())) << none.status();
  EXPECT_LT(absl::Now() - tried, absl::Seconds(5));
}

TEST_F(PostgresPoolTest, UnreachableDatabaseIsUnavailableAfterBackoff) {
  const int port = test_support::FreeLoopbackPort();
  Pool pool(absl::StrCat("postgresql://wasserwarp:", kPassword, "@127.0.0.1:", port, "/nowhere"),
            2);
  const absl::Time start = absl::Now();
  absl::StatusOr<PooledConnection> connection = pool.Acquire(absl::Milliseconds(400));
  const absl::Duration waited = absl::Now() - start;
  EXPECT_TRUE(absl::IsUnavailable(connection.status())) << connection.status();
  EXPECT_GE(waited, absl::Milliseconds(400));
  EXPECT_LT(waited, absl::Seconds(5));
  EXPECT_THAT(Text(connection.status()), HasSubstr("postgresql://wasserwarp:****@127.0.0.1"));
  EXPECT_THAT(Text(connection.status()), HasSubstr("attempts"));
  ExpectRedacted(connection.status());
  EXPECT_EQ(pool.open_connections(), 0);
}

TEST_F(PostgresPoolTest, ReconnectsAfterRestart) {
  Pool pool(url_, 2);
  auto insert = [&](int64_t k) {
    return RunTransaction(pool, "inserting a row", [k](Connection& connection) {
      return connection
          .Exec("INSERT INTO t VALUES ($1) ON CONFLICT DO NOTHING", {Param::Int64(k)}, "inserting")
          .status();
    });
  };
  ASSERT_TRUE(
      RunTransaction(pool, "creating t", [](Connection& connection) {
        return connection.Exec("CREATE TABLE t (k bigint PRIMARY KEY)", "creating").status();
      }).ok());
  {
    // Two idle connections, both stale once the server restarts.
    absl::StatusOr<PooledConnection> a = pool.Acquire(absl::Seconds(5));
    absl::StatusOr<PooledConnection> b = pool.Acquire(absl::Seconds(5));
    ASSERT_TRUE(a.ok() && b.ok());
  }
  ASSERT_TRUE(server->Stop());
  TransactionOptions quick;
  quick.acquire_wait = absl::Milliseconds(200);
  absl::Status down = RunTransaction(
      pool, "reading while down", [](Connection&) { return absl::OkStatus(); }, quick);
  EXPECT_TRUE(absl::IsUnavailable(down)) << down;
  ExpectRedacted(down);
  ASSERT_TRUE(server->Start());
  EXPECT_TRUE(insert(1).ok());
  EXPECT_TRUE(insert(2).ok());

  // Under load: the server goes away in the middle of transactions and comes back.
  constexpr int kThreads = 4;
  constexpr int kRows = 40;
  std::vector<absl::Status> results(kThreads * kRows);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRows; ++i) {
        results[t * kRows + i] = insert(100 + t * kRows + i);
        absl::SleepFor(absl::Milliseconds(5));
      }
    });
  }
  absl::SleepFor(absl::Milliseconds(100));
  ASSERT_TRUE(server->Stop());
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_TRUE(server->Start());
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& status : results) EXPECT_TRUE(status.ok()) << status;
  Connection connection = Connect();
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 2 + kThreads * kRows);
  EXPECT_LE(pool.open_connections(), 2);
}

TEST_F(PostgresPoolTest, RetriesWhenTheConnectionBreaksMidTransaction) {
  Pool pool(url_, 2);
  int attempts = 0;
  std::thread restarter;
  const absl::Status status = RunTransaction(pool, "creating t", [&](Connection& connection) {
    if (++attempts == 1) {
      // The server crashes under this attempt and is back a little later.
      EXPECT_TRUE(server->Kill());
      restarter = std::thread([] {
        absl::SleepFor(absl::Milliseconds(300));
        EXPECT_TRUE(server->Start());
      });
    }
    return connection.Exec("CREATE TABLE IF NOT EXISTS t (k int)", "creating").status();
  });
  restarter.join();
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(attempts, 2);
  EXPECT_LE(pool.open_connections(), 2);
}

TEST_F(PostgresPoolTest, RetriesSerializationFailure) {
  Pool pool(url_, 2);
  Connection other = Connect();
  Must(other, "CREATE TABLE counter (k int PRIMARY KEY, n bigint NOT NULL)");
  Must(other, "INSERT INTO counter VALUES (1, 0)");
  int attempts = 0;
  TransactionOptions serializable;
  serializable.isolation = Isolation::kSerializable;
  const absl::Status status = RunTransaction(
      pool, "incrementing the counter",
      [&](Connection& connection) -> absl::Status {
        ++attempts;
        absl::StatusOr<Result> read =
            connection.Exec("SELECT n FROM counter WHERE k = 1", "reading");
        if (!read.ok()) return read.status();
        absl::StatusOr<int64_t> n = read->GetInt64(0, 0);
        if (!n.ok()) return n.status();
        if (attempts == 1) {
          // Another serializable transaction changes the row after this one read it.
          Transaction theirs(other);
          if (absl::Status begun = theirs.Begin(Isolation::kSerializable); !begun.ok())
            return begun;
          Must(other, "UPDATE counter SET n = n + 100 WHERE k = 1");
          if (absl::Status committed = theirs.Commit(); !committed.ok()) return committed;
        }
        return connection
            .Exec("UPDATE counter SET n = $1 WHERE k = 1", {Param::Int64(*n + 1)}, "writing")
            .status();
      },
      serializable);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(Count(other, "SELECT n FROM counter"), 101);
}

TEST_F(PostgresPoolTest, RetriesOnlyWhatMaySucceedAgain) {
  Pool pool(url_, 1);
  TransactionOptions options;
  options.max_attempts = 3;
  options.first_backoff = absl::Milliseconds(1);
  int calls = 0;
  absl::Status aborted = RunTransaction(
      pool, "colliding",
      [&](Connection&) {
        ++calls;
        return absl::AbortedError("collided");
      },
      options);
  EXPECT_TRUE(absl::IsAborted(aborted));
  EXPECT_EQ(calls, 3);
  EXPECT_THAT(Text(aborted), HasSubstr("gave up after 3 attempts"));

  calls = 0;
  absl::Status invalid = RunTransaction(
      pool, "refusing",
      [&](Connection& connection) {
        ++calls;
        (void)connection.Exec("CREATE TABLE t (k int)", "creating");
        return absl::InvalidArgumentError("no");
      },
      options);
  EXPECT_EQ(invalid, absl::InvalidArgumentError("no"));
  EXPECT_EQ(calls, 1);
  // The failed attempt was rolled back.
  absl::StatusOr<PooledConnection> connection = pool.Acquire(absl::Seconds(5));
  ASSERT_TRUE(connection.ok());
  EXPECT_EQ(Count(**connection, "SELECT count(*) FROM pg_tables WHERE tablename = 't'"), 0);
  EXPECT_FALSE((*connection)->InTransaction());
}

}  // namespace
}  // namespace wasserwarp::service::postgres
