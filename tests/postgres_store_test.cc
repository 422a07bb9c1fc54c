// The PostgreSQL layer of the shared store against a real PostgreSQL 15: values through
// libpq both ways, the retry codes of its errors, and the schema's migrations and refusals.
// The pool's tests are in postgres_pool_test.cc, of the same binary and the same server.

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "postgres_fixture.h"
#include "postgres_server.h"
#include "storage/postgres.h"
#include "storage/postgres_schema.h"
#include "storage/postgres_secrets.h"

namespace wasserwarp::service::postgres {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using PostgresConnectionTest = PostgresTest;
using PostgresSchemaTest = PostgresTest;

TEST(PostgresRedactedUrlTest, MasksEveryPassword) {
  EXPECT_EQ(RedactedUrl("postgresql://user:secret@db.example:5432/store"),
            "postgresql://user:****@db.example:5432/store");
  EXPECT_EQ(RedactedUrl("postgres://user@host/db?sslmode=require"),
            "postgres://user@host/db?sslmode=require");
  EXPECT_EQ(RedactedUrl("postgresql://host/db"), "postgresql://host/db");
  EXPECT_EQ(RedactedUrl("postgresql://u:p%40ss@host/db?sslmode=require&password=secret"),
            "postgresql://u:****@host/db?sslmode=require&password=****");
  // Unescaped '@' and '/' in the password.
  EXPECT_EQ(RedactedUrl("postgresql://u:se@cr/et@host/db"), "postgresql://u:****@host/db");
  EXPECT_EQ(RedactedUrl("host=h user=u password=secret dbname=d"),
            "host=h user=u password=**** dbname=d");
  EXPECT_EQ(RedactedUrl("password = 'sec ret\\' x' dbname=d"), "password = **** dbname=d");
  EXPECT_EQ(RedactedUrl("dbname=d"), "dbname=d");
}

TEST(PostgresErrorTest, SqlstatesMapToRetryCodes) {
  for (const char* state : {"08000", "08006", "08001", "57P01", "57P02", "57P03"})
    EXPECT_TRUE(absl::IsUnavailable(PostgresError(state, false, "db", "doing", "m"))) << state;
  EXPECT_TRUE(absl::IsUnavailable(PostgresError("", true, "db", "doing", "m")));
  EXPECT_TRUE(absl::IsAborted(PostgresError("40001", false, "db", "doing", "m")));
  EXPECT_TRUE(absl::IsAborted(PostgresError("40P01", false, "db", "doing", "m")));
  EXPECT_TRUE(absl::IsAlreadyExists(PostgresError("23505", false, "db", "doing", "m")));
  // statement_timeout and lock_timeout (--postgres_statement_timeout, --postgres_lock_timeout).
  EXPECT_TRUE(absl::IsDeadlineExceeded(PostgresError("57014", false, "db", "doing", "m")));
  EXPECT_TRUE(absl::IsUnavailable(PostgresError("55P03", false, "db", "doing", "m")));
  for (const char* state : {"42601", "23503", "57P04", ""})
    EXPECT_TRUE(absl::IsInternal(PostgresError(state, false, "db", "doing", "m"))) << state;
  EXPECT_EQ(Text(PostgresError("23505", false, "postgresql://u:****@h/d", "storing a run",
                               "duplicate key")),
            "PostgreSQL postgresql://u:****@h/d: storing a run: duplicate key [SQLSTATE 23505]");
}

TEST_F(PostgresConnectionTest, ParametersRoundTrip) {
  Connection connection = Connect();
  EXPECT_EQ(connection.database(), database_);
  EXPECT_THAT(connection.redacted_url(), HasSubstr(":****@"));
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  Result ints = Must(connection, "SELECT $1, $2, $3, $4::smallint",
                     {Param::Int64(kMin), Param::Int64(kMax), Param::Int64(0), Param::Int64(-7)});
  EXPECT_EQ(ints.GetInt64(0, 0).value(), kMin);
  EXPECT_EQ(ints.GetInt64(0, 1).value(), kMax);
  EXPECT_EQ(ints.GetInt64(0, 2).value(), 0);
  EXPECT_EQ(ints.GetInt64(0, 3).value(), -7);

  const std::vector<double> doubles = {0.1,
                                       -1e308,
                                       5e-324,
                                       1.0 / 3,
                                       -0.0,
                                       std::numeric_limits<double>::infinity(),
                                       -std::numeric_limits<double>::infinity()};
  for (double value : doubles) {
    Result result = Must(connection, "SELECT $1", {Param::Double(value)});
    EXPECT_EQ(result.GetDouble(0, 0).value(), value) << result.GetText(0, 0);
    EXPECT_EQ(std::signbit(result.GetDouble(0, 0).value()), std::signbit(value));
  }
  EXPECT_TRUE(std::isnan(
      Must(connection, "SELECT $1", {Param::Double(std::nan(""))}).GetDouble(0, 0).value()));

  const std::string text = "grüße, 'quoted' \"and\" \\ back";
  Result texts = Must(connection, "SELECT $1, $2, length($2), $3::text IS NULL, $4",
                      {Param::Text(""), Param::Text(text), Param::Null(), Param::Null()});
  EXPECT_EQ(texts.GetText(0, 0), "");
  EXPECT_FALSE(texts.IsNull(0, 0));
  EXPECT_EQ(texts.GetText(0, 1), text);
  EXPECT_EQ(texts.GetInt64(0, 2).value(), 28);  // characters, not bytes
  EXPECT_TRUE(texts.GetBool(0, 3).value());
  EXPECT_TRUE(texts.IsNull(0, 4));
  EXPECT_TRUE(absl::IsInvalidArgument(texts.GetInt64(0, 4).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(texts.GetInt64(0, 1).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(texts.GetBytes(0, 1).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(texts.GetInt64(3, 0).status()));  // no such row
}

TEST_F(PostgresConnectionTest, ByteaIsBinarySafe) {
  Connection connection = Connect();
  Must(connection, "CREATE TABLE blobs (k bigint PRIMARY KEY, b bytea)");
  std::string mebibyte(1 << 20, '\0');
  std::mt19937_64 random(15);
  for (char& byte : mebibyte) byte = static_cast<char>(random());
  const std::vector<std::string> blobs = {std::string(), std::string("\0", 1),
                                          std::string("a\0b\0\xff\x80\\x00", 10), mebibyte,
                                          std::string(1 << 20, '\0')};
  for (size_t i = 0; i < blobs.size(); ++i) {
    Must(connection, "INSERT INTO blobs VALUES ($1, $2)",
         {Param::Int64(static_cast<int64_t>(i)), Param::Bytes(blobs[i])});
  }
  Must(connection, "INSERT INTO blobs VALUES (99, $1)", {Param::Null()});
  Result result = Must(connection, "SELECT k, b, length(b) FROM blobs ORDER BY k");
  ASSERT_EQ(result.rows(), static_cast<int>(blobs.size()) + 1);
  for (size_t i = 0; i < blobs.size(); ++i) {
    const int row = static_cast<int>(i);
    EXPECT_FALSE(result.IsNull(row, 1)) << i;
    EXPECT_EQ(result.GetInt64(row, 2).value(), static_cast<int64_t>(blobs[i].size())) << i;
    EXPECT_TRUE(result.GetBytes(row, 1).value() == blobs[i]) << i;
  }
  EXPECT_TRUE(result.IsNull(static_cast<int>(blobs.size()), 1));
  // The server's escape format decodes as well.
  Must(connection, "SET bytea_output = escape");
  EXPECT_EQ(Must(connection, "SELECT b FROM blobs WHERE k = 2").GetBytes(0, 0).value(), blobs[2]);
}

TEST_F(PostgresConnectionTest, UniqueViolationIsAlreadyExists) {
  Connection connection = Connect();
  Must(connection, "CREATE TABLE sessions (id text PRIMARY KEY)");
  Must(connection, "INSERT INTO sessions VALUES ($1)", {Param::Text("s1")});
  absl::StatusOr<Result> again = connection.Exec("INSERT INTO sessions VALUES ($1)",
                                                 {Param::Text("s1")}, "creating session s1");
  EXPECT_TRUE(absl::IsAlreadyExists(again.status())) << again.status();
  EXPECT_THAT(Text(again.status()), HasSubstr("creating session s1"));
  EXPECT_THAT(Text(again.status()), HasSubstr("duplicate key"));
  EXPECT_THAT(Text(again.status()), HasSubstr(database_));
  ExpectRedacted(again.status());
  EXPECT_FALSE(connection.Broken());

  absl::StatusOr<Result> syntax = connection.Exec("SELEC 1", "testing a typo");
  EXPECT_TRUE(absl::IsInternal(syntax.status())) << syntax.status();
  EXPECT_THAT(Text(syntax.status()), HasSubstr("42601"));
}

TEST_F(PostgresConnectionTest, TransactionRollsBackUnlessCommitted) {
  Connection connection = Connect();
  Must(connection, "CREATE TABLE t (k bigint PRIMARY KEY)");
  {
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin().ok());
    Must(connection, "INSERT INTO t VALUES (1)");
  }
  EXPECT_FALSE(connection.InTransaction());
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 0);
  {
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin(Isolation::kSerializable).ok());
    Must(connection, "INSERT INTO t VALUES (2)");
    ASSERT_TRUE(transaction.Commit().ok());
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 1);
  {
    // A COMMIT after a failed statement would roll back quietly; it says so instead.
    Transaction transaction(connection);
    ASSERT_TRUE(transaction.Begin().ok());
    Must(connection, "INSERT INTO t VALUES (3)");
    EXPECT_FALSE(connection.Exec("INSERT INTO t VALUES (2)", "a duplicate").ok());
    EXPECT_FALSE(transaction.Commit().ok());
  }
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM t"), 1);
}

TEST_F(PostgresConnectionTest, StoppedServerIsUnavailable) {
  Connection connection = Connect();
  ASSERT_TRUE(server->Stop());
  absl::StatusOr<Result> lost = connection.Exec("SELECT 1", "reading after a shutdown");
  EXPECT_TRUE(absl::IsUnavailable(lost.status())) << lost.status();
  EXPECT_TRUE(connection.Broken());
  ExpectRedacted(lost.status());
  absl::StatusOr<Connection> refused = Connection::Open(url_);
  EXPECT_TRUE(absl::IsUnavailable(refused.status())) << refused.status();
  EXPECT_THAT(Text(refused.status()), HasSubstr(database_));
  EXPECT_THAT(Text(refused.status()), HasSubstr(":****@"));
  ExpectRedacted(refused.status());
  ASSERT_TRUE(server->Start());
  // No such database: a refusal of the server's own, redacted as well.
  absl::StatusOr<Connection> missing = Connection::Open(server->url("nonesuch", kPassword));
  EXPECT_TRUE(absl::IsUnavailable(missing.status())) << missing.status();
  EXPECT_THAT(Text(missing.status()), HasSubstr("nonesuch"));
  ExpectRedacted(missing.status());
}
TEST(PostgresMigrationsTest, AreOrdered) {
  const std::vector<Migration>& migrations = Migrations();
  ASSERT_FALSE(migrations.empty());
  for (size_t i = 0; i < migrations.size(); ++i)
    EXPECT_EQ(migrations[i].version, static_cast<int>(i) + 1);
  EXPECT_EQ(LatestSchemaVersion(), migrations.back().version);
}

TEST_F(PostgresSchemaTest, CreatesTablesOnceAndForAll) {
  Connection connection = Connect();
  EXPECT_EQ(SchemaVersion(connection).value(), 0);
  ASSERT_TRUE(Migrate(connection).ok());
  EXPECT_EQ(SchemaVersion(connection).value(), LatestSchemaVersion());
  EXPECT_EQ(Count(connection,
                  "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND "
                  "tablename IN ('wasserwarp_meta', 'sessions', 'runs', 'run_samples', "
                  "'validations', 'validation_tiles')"),
            6);
  EXPECT_EQ(Count(connection,
                  "SELECT count(*) FROM pg_indexes WHERE indexname IN "
                  "('validations_queue', 'validation_tiles_claim')"),
            2);
  Result meta = Must(connection, "SELECT key, value FROM wasserwarp_meta ORDER BY key");
  ASSERT_EQ(meta.rows(), 2);
  EXPECT_EQ(meta.GetText(0, 1), "wasserwarp");
  EXPECT_EQ(meta.GetText(1, 0), "schema_version");
  // Again: nothing to do.
  ASSERT_TRUE(Migrate(connection).ok());
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM wasserwarp_meta"), 2);

  // The tables hold what they are for, and a session takes its runs and validations along, and
  // they their tiles.
  Result session = Must(connection,
                        "INSERT INTO sessions (id, owner, settings, create_time_ns, last_use_ns)"
                        " VALUES ('s', 'alice', $1, $2, $2) RETURNING key",
                        {Param::Bytes(std::string("\0\1", 2)), Param::Int64(1700000000000000000)});
  const int64_t key = session.GetInt64(0, 0).value();
  Result run = Must(connection,
                    "INSERT INTO runs (session_key, role, series_id, channels, weight, samples,"
                    " commit_time_ns, checksum, bytes) VALUES ($1, 1, 'r', '', NULL, 3, 0, $2, 48)"
                    " RETURNING key",
                    {Param::Int64(key), Param::Int64(std::numeric_limits<int64_t>::min())});
  Must(connection, "INSERT INTO run_samples VALUES ($1, 0, '\\x00', '\\x00')",
       {Param::Int64(run.GetInt64(0, 0).value())});
  Result validation =
      Must(connection,
           "INSERT INTO validations (session_key, session_id, id, owner, state, request,"
           " effective_parameters, runs, create_time_ns) VALUES ($1, 's', 'v', 'alice', 0, '', '',"
           " '', 0) RETURNING key",
           {Param::Int64(key)});
  Must(connection,
       "INSERT INTO validation_tiles (validation_key, matrix, tile_index, row_begin, row_end,"
       " col_begin, col_end, cells, state, tile_values) VALUES ($1, 0, 0, 0, 1, 0, 1, 9, 3, $2)",
       {Param::Int64(validation.GetInt64(0, 0).value()), Param::Bytes(std::string(8, '\0'))});
  Must(connection, "DELETE FROM sessions");
  EXPECT_EQ(
      Count(connection, "SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM run_samples)"),
      0);
  // Validation records outlive their session's row (its tombstone is the validation store's).
  EXPECT_EQ(Count(connection,
                  "SELECT (SELECT count(*) FROM validations) + (SELECT count(*) FROM "
                  "validation_tiles)"),
            2);
}

TEST_F(PostgresSchemaTest, BringsADatabaseOfAnOlderVersionUpToDate) {
  Connection connection = Connect();
  // What a server of schema version 1 left: its tables, and a validation in them.
  Must(connection, "BEGIN");
  for (const char* statement : Migrations()[0].statements) Must(connection, statement);
  Must(connection, "INSERT INTO wasserwarp_meta VALUES ('schema_version', '1')");
  Must(connection, "COMMIT");
  Must(connection,
       "INSERT INTO sessions (key, id, owner, settings, create_time_ns, last_use_ns)"
       " VALUES (1, 's', 'alice', '', 0, 0)");
  Must(connection,
       "INSERT INTO validations (session_key, session_id, id, owner, state, request,"
       " effective_parameters, runs, create_time_ns) VALUES (1, 's', 'v', 'alice', 2, '', '',"
       " '', 0)");
  Must(connection,
       "INSERT INTO runs (session_key, role, series_id, channels, samples, commit_time_ns,"
       " checksum, bytes) VALUES (1, 1, 'r', '', 3, 0, 0, 48)");
  EXPECT_EQ(SchemaVersion(connection).value(), 1);
  ASSERT_TRUE(Migrate(connection).ok());
  EXPECT_EQ(SchemaVersion(connection).value(), LatestSchemaVersion());
  EXPECT_EQ(LatestSchemaVersion(), 7);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM validations"), 1);
  // The record's session is kept as active, and the record has its creation event.
  EXPECT_EQ(Count(connection,
                  "SELECT count(*) FROM validation_sessions WHERE key = 1 AND id = 's' AND"
                  " owner = 'alice' AND state = 1"),
            1);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM validation_events WHERE kind = 1"), 1);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM runs WHERE source_file IS NULL"), 1);
  // A run committed before units has none.
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM runs WHERE units IS NULL"), 1);
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM validation_tiles"), 0);
  // A run committed before parameter studies has no parameters and no trial.
  EXPECT_EQ(
      Count(connection, "SELECT count(*) FROM runs WHERE parameters = ''::bytea AND trial = ''"),
      1);
}

TEST_F(PostgresSchemaTest, ConcurrentMigrationsAllSucceed) {
  constexpr int kServers = 4;
  std::vector<absl::Status> results(kServers);
  std::vector<std::thread> threads;
  for (int i = 0; i < kServers; ++i) {
    threads.emplace_back([&, i] {
      absl::StatusOr<Connection> connection = Connection::Open(url_);
      results[i] = connection.ok() ? Migrate(*connection) : connection.status();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& status : results) EXPECT_TRUE(status.ok()) << status;
  Connection connection = Connect();
  EXPECT_EQ(SchemaVersion(connection).value(), LatestSchemaVersion());
}

// A refusal names the database and says why, and leaves the database as it was.
void ExpectRefusal(const absl::Status& status, const std::string& database,
                   const std::string& why) {
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(Text(status), HasSubstr("\"" + database + "\""));
  EXPECT_THAT(Text(status), HasSubstr(":****@127.0.0.1"));
  EXPECT_THAT(Text(status), HasSubstr(why));
  ExpectRedacted(status);
}

TEST_F(PostgresSchemaTest, RefusesNewerSchema) {
  Connection connection = Connect();
  ASSERT_TRUE(Migrate(connection).ok());
  Must(connection, "UPDATE wasserwarp_meta SET value = '99' WHERE key = 'schema_version'");
  ExpectRefusal(Migrate(connection), database_, "schema version 99 is newer");
  ExpectRefusal(SchemaVersion(connection).status(), database_,
                absl::StrCat("(", LatestSchemaVersion(), ")"));
  // The lock was released: another connection can take it at once.
  Connection second = Connect();
  EXPECT_TRUE(Must(second, "SELECT pg_try_advisory_lock($1)", {Param::Int64(kMigrationLockKey)})
                  .GetBool(0, 0)
                  .value());
}

TEST_F(PostgresSchemaTest, RefusesDatabaseOfUnknownTables) {
  Connection connection = Connect();
  Must(connection, "CREATE TABLE grafana_dashboards (id int)");
  ExpectRefusal(Migrate(connection), database_, "grafana_dashboards");
  EXPECT_THAT(Text(Migrate(connection)), HasSubstr("no wasserwarp_meta"));
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 1);
}

TEST_F(PostgresSchemaTest, RefusesDatabaseOfAnotherApplication) {
  Connection connection = Connect();
  Must(connection, "CREATE TABLE wasserwarp_meta (key text PRIMARY KEY, value text NOT NULL)");
  Must(connection,
       "INSERT INTO wasserwarp_meta VALUES ('application', 'grafana'), ('schema_version', '1')");
  ExpectRefusal(Migrate(connection), database_, "of another application (\"grafana\"");
  Must(connection, "DELETE FROM wasserwarp_meta WHERE key = 'application'");
  ExpectRefusal(Migrate(connection), database_, "of another application");
  EXPECT_EQ(Count(connection, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"), 1);
}

}  // namespace
}  // namespace wasserwarp::service::postgres
