// What keeps one replica's database work from hurting the others, against a real PostgreSQL
// 15: the timeouts every pooled connection carries (a statement over --postgres_statement_timeout
// fails DEADLINE_EXCEEDED and the pool goes on), TCP keepalives, the password file, text with a
// NUL byte refused rather than stored cut, one listening connection that hands on
// notifications, and run commits of two replicas, into one session or two, that write their
// samples side by side, their locks taken only for the limits' counts.

#include <libpq-fe.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "postgres_fixture.h"
#include "sessions/postgres_sessions.h"
#include "storage/postgres.h"
#include "storage/postgres_listener.h"
#include "storage/postgres_pool.h"
#include "storage/postgres_schema.h"
#include "storage/postgres_secrets.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::service::postgres {
namespace {

using ::testing::HasSubstr;

using PostgresHygieneTest = PostgresTest;

ConnectionSettings Short() {
  ConnectionSettings settings;
  settings.statement_timeout = absl::Milliseconds(300);
  settings.lock_timeout = absl::Milliseconds(200);
  settings.idle_in_transaction_timeout = absl::Milliseconds(300);
  settings.keepalives_idle = absl::Seconds(7);
  settings.keepalives_interval = absl::Seconds(3);
  settings.keepalives_count = 4;
  return settings;
}

absl::Status Sql(Pool& pool, const std::string& sql) {
  return RunTransaction(pool, "testing", [&](Connection& connection) {
    return connection.Exec(sql, "testing").status();
  });
}

TEST_F(PostgresHygieneTest, EveryPooledConnectionCarriesTheTimeoutsAndKeepalives) {
  Pool pool(url_, 1, Short());
  absl::StatusOr<PooledConnection> connection = pool.Acquire(absl::Seconds(10));
  ASSERT_TRUE(connection.ok()) << connection.status();
  const Result shown = Must(**connection,
                            "SELECT current_setting('statement_timeout'), "
                            "current_setting('lock_timeout'), "
                            "current_setting('idle_in_transaction_session_timeout')");
  EXPECT_EQ(shown.GetText(0, 0), "300ms");
  EXPECT_EQ(shown.GetText(0, 1), "200ms");
  EXPECT_EQ(shown.GetText(0, 2), "300ms");
  // The client's socket (loopback TCP) probes as asked.
  const int fd = PQsocket((*connection)->raw());
  int on = 0, idle = 0, interval = 0, count = 0;
  socklen_t size = sizeof(int);
  ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &size), 0);
  ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &size), 0);
  ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, &size), 0);
  ASSERT_EQ(getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, &size), 0);
  EXPECT_NE(on, 0);
  EXPECT_EQ(idle, 7);
  EXPECT_EQ(interval, 3);
  EXPECT_EQ(count, 4);
}

TEST_F(PostgresHygieneTest, AStatementOverTheTimeoutFailsClearlyAndThePoolGoesOn) {
  Pool pool(url_, 1, Short());
  const absl::Status slow = Sql(pool, "SELECT pg_sleep(30)");
  EXPECT_TRUE(absl::IsDeadlineExceeded(slow)) << slow;
  EXPECT_THAT(Text(slow), HasSubstr("statement timeout"));
  EXPECT_THAT(Text(slow), HasSubstr("SQLSTATE 57014"));
  ExpectRedacted(slow);
  // The same connection serves the next call.
  EXPECT_TRUE(Sql(pool, "SELECT 1").ok());
  EXPECT_EQ(pool.open_connections(), 1);
}

TEST_F(PostgresHygieneTest, ALockWaitOverTheTimeoutIsUnavailable) {
  Connection holder = Connect();
  Must(holder, "CREATE TABLE t (k bigint)");
  Must(holder, "BEGIN");
  Must(holder, "LOCK TABLE t IN ACCESS EXCLUSIVE MODE");
  Pool pool(url_, 1, Short());
  const absl::Status blocked = Sql(pool, "SELECT count(*) FROM t");
  EXPECT_TRUE(absl::IsUnavailable(blocked)) << blocked;
  EXPECT_THAT(Text(blocked), HasSubstr("lock timeout"));
  Must(holder, "ROLLBACK");
  EXPECT_TRUE(Sql(pool, "SELECT count(*) FROM t").ok());
}

TEST_F(PostgresHygieneTest, AnAbandonedTransactionIsEndedAndItsConnectionReplaced) {
  Pool pool(url_, 1, Short());
  {
    absl::StatusOr<PooledConnection> connection = pool.Acquire(absl::Seconds(10));
    ASSERT_TRUE(connection.ok()) << connection.status();
    ASSERT_TRUE((*connection)->Begin().ok());
    // PostgreSQL ends the session once the timeout passes; the next statement finds it gone.
    absl::SleepFor(absl::Seconds(1));
    const absl::Status late = (*connection)->Exec("SELECT 1", "testing").status();
    EXPECT_TRUE(absl::IsUnavailable(late)) << late;
  }
  EXPECT_TRUE(Sql(pool, "SELECT 1").ok());
}

TEST_F(PostgresHygieneTest, TextWithANulByteIsRefusedNotStoredCut) {
  Connection connection = Connect();
  Must(connection, "CREATE TABLE ids (id text)");
  const std::string id("run\0evil", 8);
  const absl::StatusOr<Result> inserted =
      connection.Exec("INSERT INTO ids VALUES ($1)", {Param::Text(id)}, "storing an id");
  EXPECT_TRUE(absl::IsInvalidArgument(inserted.status())) << inserted.status();
  EXPECT_THAT(Text(inserted.status()), HasSubstr("parameter $1 holds a NUL byte at offset 3"));
  EXPECT_THAT(Text(inserted.status()), HasSubstr("storing an id"));
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM ids"), 0);
}

TEST_F(PostgresHygieneTest, ThePasswordComesFromItsFile) {
  const std::string path = absl::StrCat(::testing::TempDir(), "/pgpass-", database_);
  std::ofstream(path) << "from-the-file\n";
  absl::StatusOr<std::string> password = ReadPasswordFile(path);
  ASSERT_TRUE(password.ok()) << password.status();
  EXPECT_EQ(*password, "from-the-file");
  ConnectionSettings settings;
  settings.password = *password;
  // Trust authentication ignores it; libpq still holds what it was given.
  absl::StatusOr<Connection> connection =
      Connection::Open(server->url(database_), absl::Seconds(10), settings);
  ASSERT_TRUE(connection.ok()) << connection.status();
  EXPECT_STREQ(PQpass(connection->raw()), "from-the-file");

  const absl::StatusOr<std::string> missing = ReadPasswordFile(path + ".missing");
  EXPECT_TRUE(absl::IsInvalidArgument(missing.status())) << missing.status();
  EXPECT_THAT(Text(missing.status()), HasSubstr("--postgres_password_file " + path + ".missing"));
  std::ofstream(path, std::ios::trunc) << "\n";
  EXPECT_THAT(Text(ReadPasswordFile(path).status()), HasSubstr("its first line is empty"));
}

TEST_F(PostgresHygieneTest, OneListeningConnectionHandsOnEachNotification) {
  Pool pool(url_, 1);
  absl::Mutex mu;
  std::vector<std::string> payloads;
  int missed = 0;
  Listener listener(pool, "hygiene_channel", absl::Seconds(2),
                    Listener::Callbacks{.notified =
                                            [&](std::string_view payload) {
                                              absl::MutexLock lock(&mu);
                                              payloads.emplace_back(payload);
                                            },
                                        .missed =
                                            [&] {
                                              absl::MutexLock lock(&mu);
                                              ++missed;
                                            },
                                        .reachability = nullptr});
  // Listening once the first (re)connection has been announced.
  {
    absl::MutexLock lock(&mu);
    mu.AwaitWithTimeout(absl::Condition(
                            +[](int* count) { return *count > 0; }, &missed),
                        absl::Seconds(60));
  }
  Connection sender = Connect();
  Must(sender, "SELECT pg_notify('hygiene_channel', $1)", {Param::Text("17/first")});
  Must(sender, "SELECT pg_notify('hygiene_channel', $1)", {Param::Text("17/second")});
  absl::MutexLock lock(&mu);
  mu.AwaitWithTimeout(
      absl::Condition(
          +[](std::vector<std::string>* seen) { return seen->size() >= 2; }, &payloads),
      absl::Seconds(60));
  EXPECT_THAT(payloads, ::testing::ElementsAre("17/first", "17/second"));
  EXPECT_EQ(missed, 1);
  // Outside the pool: none of its connections listens.
  EXPECT_EQ(pool.open_connections(), 0);
}

// The backends that have written samples (they hold a lock on run_samples) and wait for a
// lock: the fleet-wide commit lock, or their session's row while another commit counts.
int64_t WritersWaiting(Connection& observer) {
  return observer
      .Exec(
          "SELECT count(DISTINCT w.pid) FROM pg_locks w JOIN pg_locks s ON s.pid = w.pid "
          "JOIN pg_class c ON c.oid = s.relation WHERE NOT w.granted AND "
          "c.relname = 'run_samples' AND s.mode = 'RowExclusiveLock' AND s.granted",
          "watching locks")
      ->GetInt64(0, 0)
      .value_or(-1);
}

StoredRun RunOf(const std::string& id, size_t samples) {
  Series series;
  series.id = id;
  series.channels = {"x"};
  for (size_t i = 0; i < samples; ++i) {
    series.times.push_back(static_cast<double>(i));
    series.values.push_back(static_cast<double>(i) * 0.5);
  }
  StoredRun run;
  run.role = RunRole::kSimulation;
  run.commit_time = absl::Now();
  run.bytes = static_cast<int64_t>(samples * 16);
  run.series = std::make_shared<const Series>(std::move(series));
  return run;
}

TEST_F(PostgresHygieneTest, ReplicasWriteTheirSamplesSideBySideAndTheByteLimitStaysExact) {
  {
    Connection connection = Connect();
    ASSERT_TRUE(Migrate(connection).ok());
  }
  constexpr size_t kSamples = 20000;
  SessionLimits limits;
  // Room for one of the runs, not two.
  limits.max_total_bytes = static_cast<int64_t>(kSamples * 16 * 3 / 2);
  // Two replicas: a pool and a store each.
  Pool pool_a(url_, 3), pool_b(url_, 3);
  PostgresSessions replica_a(pool_a, limits), replica_b(pool_b, limits);
  const absl::Time now = absl::Now();
  absl::StatusOr<int64_t> session_a = replica_a.InsertSession("a", SessionSettings(), now);
  absl::StatusOr<int64_t> session_b = replica_b.InsertSession("b", SessionSettings(), now);
  ASSERT_TRUE(session_a.ok()) << session_a.status();
  ASSERT_TRUE(session_b.ok()) << session_b.status();

  // The test holds the commit lock, so that each commit stops where it takes it (or, the
  // second into session a, where it takes the session's row after the first).
  Connection holder = Connect();
  Must(holder, "SELECT pg_advisory_lock($1)", {Param::Int64(PostgresSessions::kCommitLock)});
  std::vector<absl::StatusOr<int64_t>> committed(3);
  std::vector<std::thread> commits;
  commits.emplace_back(
      [&] { committed[0] = replica_a.InsertRun(*session_a, "a", RunOf("r1", kSamples)); });
  commits.emplace_back(
      [&] { committed[1] = replica_a.InsertRun(*session_a, "a", RunOf("r2", kSamples)); });
  commits.emplace_back(
      [&] { committed[2] = replica_b.InsertRun(*session_b, "b", RunOf("r3", kSamples)); });
  // All three have written their samples before any holds the lock. (A deadline only so that a
  // broken build fails rather than hangs.)
  Connection observer = Connect();
  const absl::Time give_up = absl::Now() + absl::Seconds(60);
  while (WritersWaiting(observer) < 3 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_EQ(WritersWaiting(observer), 3);
  Must(holder, "SELECT pg_advisory_unlock($1)", {Param::Int64(PostgresSessions::kCommitLock)});
  for (std::thread& commit : commits) commit.join();
  // Exactly one fits.
  int ok = 0;
  for (const absl::StatusOr<int64_t>& one : committed) {
    if (one.ok()) {
      ++ok;
      continue;
    }
    EXPECT_TRUE(absl::IsResourceExhausted(one.status())) << one.status();
    EXPECT_EQ(ErrorLimit(one.status()), "--max_total_bytes");
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(Count(observer, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(Count(observer, "SELECT count(DISTINCT run_key) FROM run_samples"), 1);
}

}  // namespace
}  // namespace wasserwarp::service::postgres
