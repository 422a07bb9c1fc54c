// The session database on its own and under the session store: what goes in
// comes out bit for bit, expired and deleted sessions leave the file, and a
// foreign, newer, damaged or truncated file is refused with an error naming
// it rather than read.
// Over 500 lines: every test shares the file fixtures, and the migrations are tested on them.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "random_runs.h"
#include "scratch_dir.h"
#include "session_protos.h"
#include "sessions/session_database.h"
#include "sessions/session_store.h"
#include "sessions/sqlite_session_backend.h"
#include "storage/byte_encoding.h"
#include "wasserwarp/run_checksum.h"
#include "wire/parameters.h"

namespace wasserwarp::service {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;

StoredRun RunOf(RunRole role, Series series, absl::Time commit_time,
                std::optional<double> weight = std::nullopt, SimulationInputs inputs = {}) {
  StoredRun run;
  run.role = role;
  run.weight = weight;
  run.commit_time = commit_time;
  run.inputs = std::move(inputs);
  run.bytes = HeaderBytes(series.id, series.channels, run.inputs) +
              SampleBytes(static_cast<int64_t>(series.times.size()),
                          static_cast<int64_t>(series.values.size()));
  run.series = std::make_shared<const Series>(std::move(series));
  return run;
}

Series Walk(const std::string& id, size_t samples, size_t channels, uint64_t seed) {
  std::mt19937_64 rng(seed);
  return test_data::RandomWalkRun(rng, id, samples, channels);
}

// Runs `sql` on the database file directly, as another program would.
void ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error != nullptr ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << message;
}

// One bit of the first stored value flipped, the file otherwise sound.
void FlipFirstValueBit(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT value_data FROM run_samples", -1, &select, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(select), SQLITE_ROW);
  std::string bytes(static_cast<const char*>(sqlite3_column_blob(select, 0)),
                    static_cast<size_t>(sqlite3_column_bytes(select, 0)));
  sqlite3_finalize(select);
  bytes[0] ^= 1;
  sqlite3_stmt* update = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE run_samples SET value_data = ?", -1, &update, nullptr),
            SQLITE_OK);
  sqlite3_bind_blob(update, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
  EXPECT_EQ(sqlite3_step(update), SQLITE_DONE);
  sqlite3_finalize(update);
  sqlite3_close(db);
}

int64_t QueryInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  int64_t value = -1;
  if (sqlite3_step(statement) == SQLITE_ROW) value = sqlite3_column_int64(statement, 0);
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return value;
}

class SessionDatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(scratch_.root().empty()); }

  std::unique_ptr<SessionDatabase> OpenOrDie() {
    absl::StatusOr<std::unique_ptr<SessionDatabase>> db = SessionDatabase::Open(dir_);
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }

  // A database holding session "s" with one run of `samples` samples.
  void WriteOneRun(size_t samples) {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    absl::StatusOr<int64_t> key = db->InsertSession("s", {}, now_);
    ASSERT_TRUE(key.ok()) << key.status();
    ASSERT_TRUE(
        db->InsertRun(*key, RunOf(RunRole::kSimulation, Walk("sim", samples, 2, 1), now_)).ok());
  }

  // The runs of the one session the file holds, from a fresh Open; `key` gets its key.
  std::vector<StoredRun> RunsOfTheSession(int64_t* key = nullptr) {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    if (db == nullptr) return {};
    absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (!loaded.ok() || loaded->size() != 1) {
      ADD_FAILURE() << "expected one session";
      return {};
    }
    if (key != nullptr) *key = loaded->front().key;
    return loaded->front().runs;
  }

  const absl::Time now_ = absl::FromUnixSeconds(1'750'000'000) + absl::Nanoseconds(123);
  const test_support::ScratchDir scratch_{"session_db_"};
  const std::string dir_ = scratch_.Path("data");
  const std::string path_ = (fs::path(dir_) / "sessions.db").string();
};

TEST_F(SessionDatabaseTest, WhatGoesInComesOutBitForBit) {
  v1::ValidationParameters defaults;
  defaults.set_nu(0.25);
  defaults.set_scale(v1::SCALING_REFERENCE_STD);
  defaults.add_channels("yaw_rate");
  SessionSettings settings;
  settings.default_parameters = *wire::OverridesFromProto(defaults);
  settings.labels = {{"rig", "7"}, {"model", "v12"}};
  settings.idle_ttl = absl::Hours(720) + absl::Nanoseconds(1);
  settings.owner = "bench-7";
  // Over a megabyte, so its samples take several rows; odd channel names too.
  Series large = Walk("large", 90'000, 3, 2);
  large.channels = {"", "a,b", std::string("nul\0inside", 10)};
  const SimulationInputs inputs = {
      .parameters = {{"mass", 1234.5}, {"cf.front", -0.0}, {"_tiny", 5e-324}},
      .trial = "road 3/seed=17"};
  const std::vector<StoredRun> runs = {
      RunOf(RunRole::kReference, Walk("ref", 1, 1, 3), now_ + absl::Seconds(1), 0.5),
      RunOf(RunRole::kSimulation, large, now_ + absl::Seconds(2), std::nullopt, inputs),
      RunOf(RunRole::kSimulation, Walk("ref", 17, 2, 4), now_ + absl::Seconds(3), 0.0,
            {.parameters = {}, .trial = "trial-only"}),
  };
  {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    absl::StatusOr<int64_t> key = db->InsertSession("bench", settings, now_);
    ASSERT_TRUE(key.ok()) << key.status();
    ASSERT_TRUE(db->InsertSession("empty", {}, now_).ok());
    for (const StoredRun& run : runs) ASSERT_TRUE(db->InsertRun(*key, run).ok());
  }
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 2u);
  const PersistedSession& bench = (*loaded)[0];
  EXPECT_EQ(bench.id, "bench");
  EXPECT_EQ(bench.settings.owner, "bench-7");
  EXPECT_EQ(bench.settings.labels, settings.labels);
  EXPECT_EQ(bench.settings.idle_ttl, settings.idle_ttl);
  EXPECT_EQ(wire::ToProto(bench.settings.default_parameters).SerializeAsString(),
            wire::ToProto(settings.default_parameters).SerializeAsString());
  EXPECT_EQ(bench.create_time, now_);
  EXPECT_EQ(bench.last_use, now_ + absl::Seconds(3));
  ASSERT_EQ(bench.runs.size(), runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE(runs[i].series->id);
    const StoredRun& got = bench.runs[i];
    EXPECT_EQ(got.role, runs[i].role);
    EXPECT_EQ(got.weight, runs[i].weight);
    EXPECT_EQ(got.inputs.parameters, runs[i].inputs.parameters);
    EXPECT_EQ(got.inputs.trial, runs[i].inputs.trial);
    EXPECT_EQ(got.commit_time, runs[i].commit_time);
    EXPECT_EQ(got.bytes, runs[i].bytes);
    EXPECT_EQ(got.series->id, runs[i].series->id);
    EXPECT_EQ(got.series->channels, runs[i].series->channels);
    EXPECT_EQ(got.series->times, runs[i].series->times);
    EXPECT_EQ(got.series->values, runs[i].series->values);
    EXPECT_EQ(RunChecksum(*got.series), RunChecksum(*runs[i].series));
  }
  EXPECT_EQ((*loaded)[1].id, "empty");
  EXPECT_FALSE((*loaded)[1].settings.idle_ttl.has_value());
  EXPECT_TRUE((*loaded)[1].runs.empty());
  EXPECT_GT(QueryInt(path_, "SELECT count(*) FROM run_samples"), 3);
  // -0.0 keeps its sign, bit for bit.
  EXPECT_TRUE(std::signbit(bench.runs[1].inputs.parameters.at("cf.front")));
  // Only the runs that have inputs have a row of them.
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM run_inputs"), 2);
}

TEST_F(SessionDatabaseTest, ParametersAreStoredInNameOrderAndOnlyThatOrderDecodes) {
  const std::map<std::string, double> parameters = {{"b", 2.0}, {"a", 1.0}, {"c", -3.5}};
  const std::string bytes = EncodeParameters(parameters);
  EXPECT_EQ(DecodeParameters(bytes), parameters);
  EXPECT_EQ(bytes.find('a'), 4u + 8u);
  EXPECT_EQ(EncodeParameters({}), "");
  EXPECT_EQ(DecodeParameters(""), (std::map<std::string, double>{}));
  // Entries out of order or a name twice are damage, not another order.
  const std::string a = EncodeParameters({{"a", 1.0}});
  const std::string b = EncodeParameters({{"b", 1.0}});
  EXPECT_EQ(DecodeParameters(a + b), (std::map<std::string, double>{{"a", 1.0}, {"b", 1.0}}));
  EXPECT_EQ(DecodeParameters(b + a), std::nullopt);
  EXPECT_EQ(DecodeParameters(a + a), std::nullopt);
  EXPECT_EQ(DecodeParameters(EncodeStrings({"short"})), std::nullopt);
}

TEST_F(SessionDatabaseTest, AFileWrittenBeforeRunInputsGainsTheirTable) {
  WriteOneRun(10);
  // What a server from before parameter studies left: the same format version, no table.
  ExecSql(path_, "DROP TABLE run_inputs");
  {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_EQ(loaded->size(), 1u);
    ASSERT_EQ((*loaded)[0].runs.size(), 1u);
    EXPECT_TRUE((*loaded)[0].runs[0].inputs.parameters.empty());
    EXPECT_TRUE((*loaded)[0].runs[0].inputs.trial.empty());
    ASSERT_TRUE(db->InsertRun((*loaded)[0].key,
                              RunOf(RunRole::kSimulation, Walk("next", 10, 2, 2), now_,
                                    std::nullopt, {.parameters = {{"k", 1.0}}, .trial = "t"}))
                    .ok());
  }
  EXPECT_EQ(QueryInt(path_, "PRAGMA user_version"), kSessionDatabaseFormatVersion);
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ((*loaded)[0].runs.size(), 2u);
  EXPECT_EQ((*loaded)[0].runs[1].inputs.parameters.at("k"), 1.0);
  EXPECT_EQ((*loaded)[0].runs[1].inputs.trial, "t");
  // Deleting the session takes the run's inputs along.
  ASSERT_TRUE(db->DeleteSessions({(*loaded)[0].key}).ok());
  db.reset();
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM run_inputs"), 0);
}

TEST_F(SessionDatabaseTest, AFileWrittenBeforeRunSourcesGainsTheirTable) {
  WriteOneRun(10);
  // What a server from before run sources left: the same format version, no table.
  ExecSql(path_, "DROP TABLE run_sources");
  StoredRun sourced = RunOf(RunRole::kReference, Walk("measured", 10, 1, 5), now_);
  sourced.source = RunSource{"rig/measured.csv", std::string(64, 'a')};
  {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_EQ(loaded->size(), 1u);
    ASSERT_EQ((*loaded)[0].runs.size(), 1u);
    // The run from before has none.
    EXPECT_FALSE((*loaded)[0].runs[0].source.has_value());
    ASSERT_TRUE(db->InsertRun((*loaded)[0].key, sourced).ok());
  }
  EXPECT_EQ(QueryInt(path_, "PRAGMA user_version"), kSessionDatabaseFormatVersion);
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ((*loaded)[0].runs.size(), 2u);
  EXPECT_FALSE((*loaded)[0].runs[0].source.has_value());
  EXPECT_EQ((*loaded)[0].runs[1].source, sourced.source);
  ASSERT_TRUE(db->DeleteSessions({(*loaded)[0].key}).ok());
  db.reset();
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM run_sources"), 0);
}

TEST_F(SessionDatabaseTest, AFileWrittenBeforeUnitsGainsTheirTable) {
  WriteOneRun(10);
  // What a server from before units left: the same format version, no table.
  ExecSql(path_, "DROP TABLE run_units");
  int64_t key = 0;
  std::vector<StoredRun> runs = RunsOfTheSession(&key);
  ASSERT_EQ(runs.size(), 1u);
  // The run from before has none.
  EXPECT_TRUE(runs[0].series->units.empty());
  Series measured = Walk("measured", 10, 2, 6);
  measured.units = {"deg/s", ""};
  {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(db->InsertRun(key, RunOf(RunRole::kReference, measured, now_)).ok());
  }
  runs = RunsOfTheSession();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_TRUE(runs[0].series->units.empty());
  EXPECT_EQ(runs[1].series->units, measured.units);
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM run_units"), 1);
}

TEST_F(SessionDatabaseTest, RunInputsAndUnitsThatDoNotDecodeAreNamed) {
  const struct {
    const char* sql;
    const char* what;
  } kCases[] = {
      {"INSERT INTO run_inputs SELECT key, x'05000000', '' FROM runs",
       "its parameters do not decode"},
      {"INSERT INTO run_units SELECT key, x'05000000' FROM runs",
       "its channel units do not decode"},
  };
  for (const auto& [sql, what] : kCases) {
    fs::remove_all(dir_);  // a fresh file for each case
    WriteOneRun(10);
    ExecSql(path_, sql);
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss) << sql;
    EXPECT_THAT(loaded.status().message(),
                AllOf(HasSubstr(path_), HasSubstr("simulation run \"sim\""), HasSubstr(what)));
  }
}

TEST_F(SessionDatabaseTest, ChecksumSeesEveryValueAndTheShape) {
  const Series run = Walk("r", 50, 2, 5);
  Series changed = run;
  changed.values[77] = std::nextafter(changed.values[77], 1e300);
  EXPECT_NE(RunChecksum(changed), RunChecksum(run));
  Series swapped = run;
  std::swap(swapped.times[3], swapped.times[4]);
  EXPECT_NE(RunChecksum(swapped), RunChecksum(run));
  Series reshaped = run;
  reshaped.channels = {"c0", "c1", "c2", "c3"};
  reshaped.times.resize(25);
  EXPECT_NE(RunChecksum(reshaped), RunChecksum(run));
}

TEST_F(SessionDatabaseTest, CarriesItsApplicationIdAndFormatVersion) {
  ASSERT_NE(OpenOrDie(), nullptr);
  EXPECT_EQ(QueryInt(path_, "PRAGMA application_id"), kSessionDatabaseApplicationId);
  EXPECT_EQ(QueryInt(path_, "PRAGMA user_version"), kSessionDatabaseFormatVersion);
  EXPECT_EQ(QueryInt(path_, "SELECT value FROM meta WHERE key = 'format_version'"),
            kSessionDatabaseFormatVersion);
}

TEST_F(SessionDatabaseTest, RefusesANewerFormat) {
  ASSERT_NE(OpenOrDie(), nullptr);
  ExecSql(path_, "PRAGMA user_version = 2");
  absl::StatusOr<std::unique_ptr<SessionDatabase>> db = SessionDatabase::Open(dir_);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(db.status().message(), AllOf(HasSubstr(path_), HasSubstr("format version 2")));
}

TEST_F(SessionDatabaseTest, RefusesAnotherApplicationsDatabaseAndLeavesItAlone) {
  fs::create_directories(dir_);
  ExecSql(path_, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('ada');");
  absl::StatusOr<std::unique_ptr<SessionDatabase>> db = SessionDatabase::Open(dir_);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(db.status().message(),
              AllOf(HasSubstr(path_), HasSubstr("not a wasserwarp session database")));
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM contacts"), 1);
  EXPECT_FALSE(fs::exists(path_ + "-wal"));
}

TEST_F(SessionDatabaseTest, RefusesAFileThatIsNotSqlite) {
  fs::create_directories(dir_);
  std::ofstream(path_) << "time,yaw_rate\n0,0\n" << std::string(5000, 'x');
  absl::StatusOr<std::unique_ptr<SessionDatabase>> db = SessionDatabase::Open(dir_);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(db.status().message(),
              AllOf(HasSubstr(path_), HasSubstr("is not a SQLite database")));
}

TEST_F(SessionDatabaseTest, RefusesADamagedFile) {
  WriteOneRun(20'000);
  const uintmax_t size = fs::file_size(path_);
  ASSERT_GT(size, 100'000u);
  {
    // Garbage over pages in the middle, the header left intact.
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(8192);
    const std::string garbage(static_cast<size_t>(size / 2), '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  absl::StatusOr<std::unique_ptr<SessionDatabase>> db = SessionDatabase::Open(dir_);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(db.status().message(), AllOf(HasSubstr(path_), HasSubstr("is damaged")));
}

TEST_F(SessionDatabaseTest, RefusesATruncatedFile) {
  WriteOneRun(20'000);
  fs::resize_file(path_, fs::file_size(path_) / 2);
  absl::StatusOr<std::unique_ptr<SessionDatabase>> db = SessionDatabase::Open(dir_);
  EXPECT_FALSE(db.ok());
  EXPECT_THAT(db.status().message(), HasSubstr(path_));

  fs::resize_file(path_, 0);
  db = SessionDatabase::Open(dir_);
  EXPECT_EQ(db.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(db.status().message(), AllOf(HasSubstr(path_), HasSubstr("empty")));
}

TEST_F(SessionDatabaseTest, ARunThatNoLongerMatchesItsChecksumIsNamed) {
  WriteOneRun(100);
  FlipFirstValueBit(path_);
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(loaded.status().message(),
              AllOf(HasSubstr(path_), HasSubstr("sessions/s"), HasSubstr("simulation run \"sim\""),
                    HasSubstr("checksum")));
}

TEST_F(SessionDatabaseTest, ExpiredSessionsAreNotLoadedAndLeaveTheFile) {
  {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    SessionSettings short_lived;
    short_lived.idle_ttl = absl::Minutes(5);
    absl::StatusOr<int64_t> old_key = db->InsertSession("old", short_lived, now_);
    ASSERT_TRUE(old_key.ok());
    ASSERT_TRUE(
        db->InsertRun(*old_key, RunOf(RunRole::kReference, Walk("r", 10, 1, 6), now_)).ok());
    // Its own TTL of five minutes has passed; the default hour has not.
    ASSERT_TRUE(db->InsertSession("default", {}, now_).ok());
    absl::StatusOr<int64_t> used = db->InsertSession("used", short_lived, now_);
    ASSERT_TRUE(used.ok());
    ASSERT_TRUE(db->SaveLastUse({{*used, now_ + absl::Minutes(8)}}).ok());
  }
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  absl::StatusOr<std::vector<PersistedSession>> loaded =
      db->Load(now_ + absl::Minutes(10), absl::Hours(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].id, "default");
  EXPECT_EQ((*loaded)[1].id, "used");
  EXPECT_EQ((*loaded)[1].last_use, now_ + absl::Minutes(8));
  db.reset();
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM sessions WHERE id = 'old'"), 0);
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM runs"), 0);
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM run_samples"), 0);
}

TEST_F(SessionDatabaseTest, DeletingASessionDeletesItsRuns) {
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  absl::StatusOr<int64_t> gone = db->InsertSession("gone", {}, now_);
  absl::StatusOr<int64_t> kept = db->InsertSession("kept", {}, now_);
  ASSERT_TRUE(gone.ok() && kept.ok());
  ASSERT_TRUE(db->InsertRun(*gone, RunOf(RunRole::kReference, Walk("r", 10, 1, 7), now_)).ok());
  ASSERT_TRUE(db->InsertRun(*kept, RunOf(RunRole::kReference, Walk("r", 10, 1, 8), now_)).ok());
  ASSERT_TRUE(db->DeleteSessions({*gone}).ok());
  EXPECT_EQ(db->InsertRun(*gone, RunOf(RunRole::kSimulation, Walk("s", 10, 1, 9), now_)).code(),
            absl::StatusCode::kNotFound);
  db.reset();
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM runs"), 1);
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM run_samples"), 1);
}

TEST_F(SessionDatabaseTest, TheNewestSessionOfAnIdWins) {
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  // As after a crash between a deletion in memory and on disk, when a new
  // session had taken the id.
  absl::StatusOr<int64_t> older = db->InsertSession("s", {}, now_);
  ASSERT_TRUE(older.ok());
  ASSERT_TRUE(db->InsertRun(*older, RunOf(RunRole::kReference, Walk("r", 10, 1, 7), now_)).ok());
  ASSERT_TRUE(db->InsertSession("s", {}, now_ + absl::Seconds(1)).ok());
  absl::StatusOr<std::vector<PersistedSession>> loaded = db->Load(now_, absl::Hours(1));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 1u);
  EXPECT_EQ((*loaded)[0].create_time, now_ + absl::Seconds(1));
  EXPECT_TRUE((*loaded)[0].runs.empty());
}

TEST_F(SessionDatabaseTest, OneServerPerDirectory) {
  std::unique_ptr<SessionDatabase> first = OpenOrDie();
  ASSERT_NE(first, nullptr);
  absl::StatusOr<std::unique_ptr<SessionDatabase>> second = SessionDatabase::Open(dir_);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(second.status().message(), AllOf(HasSubstr(dir_), HasSubstr("in use")));
  first.reset();
  EXPECT_NE(OpenOrDie(), nullptr);
}

TEST_F(SessionDatabaseTest, TheStoreWritesThroughAndRestores) {
  const Series sim = Walk("sim", 300, 2, 10);
  {
    std::unique_ptr<SessionDatabase> db = OpenOrDie();
    ASSERT_NE(db, nullptr);
    SessionStore store(SessionLimits{}, std::make_unique<SqliteSessionBackend>(*db));
    SessionSettings settings;
    settings.owner = "alice";
    ASSERT_TRUE(store.Create("kept", settings).ok());
    ASSERT_TRUE(store.Create("deleted", {}).ok());
    absl::StatusOr<SessionRef> kept = store.Open("kept", "alice");
    ASSERT_TRUE(kept.ok());
    StoredRun run = RunOf(RunRole::kSimulation, sim, absl::Time(), 2.0,
                          {.parameters = {{"mass", 1500.0}}, .trial = "seed-3"});
    ASSERT_TRUE(store.Reserve(*kept, run.bytes).ok());
    ASSERT_TRUE(store.Commit(*kept, run).ok());
    ASSERT_TRUE(store.Delete("deleted").ok());
    EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM sessions WHERE id = 'deleted'"), 0);
    store.Touch("kept");
    ASSERT_TRUE(store.Save().ok());
  }
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  SessionLimits limits;
  limits.max_runs_per_session = 1;
  limits.max_session_bytes = 100;
  SessionStore store(limits, std::make_unique<SqliteSessionBackend>(*db));
  absl::StatusOr<std::vector<absl::Status>> loaded = store.Restore(absl::Now());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const std::vector<absl::Status> over = *std::move(loaded);
  ASSERT_EQ(over.size(), 1u);
  EXPECT_THAT(over[0].message(),
              AllOf(HasSubstr("sessions/kept"), HasSubstr("--max_session_bytes=100")));
  absl::StatusOr<v1::Session> restored = test_data::AsProto(store.Get("kept", "alice"));
  ASSERT_TRUE(restored.ok()) << restored.status();
  ASSERT_EQ(restored->runs_size(), 1);
  EXPECT_EQ(restored->runs(0).series_id(), "sim");
  EXPECT_EQ(restored->runs(0).weight(), 2.0);
  EXPECT_EQ(restored->runs(0).parameters().at("mass"), 1500.0);
  EXPECT_EQ(restored->runs(0).trial(), "seed-3");
  EXPECT_EQ(restored->bytes_held(), RunOf(RunRole::kSimulation, sim, absl::Time(), 2.0,
                                          {.parameters = {{"mass", 1500.0}}, .trial = "seed-3"})
                                        .bytes);
  EXPECT_EQ(store.Get("deleted").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<SessionSnapshot> snapshot = store.Snapshot("kept", "alice");
  ASSERT_TRUE(snapshot.ok());
  EXPECT_EQ(snapshot->simulation[0].series->values, sim.values);
  // Over the run limit it takes no more runs.
  const SessionRef ref = *store.Open("kept", "alice");
  EXPECT_EQ(store.CheckNewRun(ref, RunRole::kReference, "ref").code(),
            absl::StatusCode::kResourceExhausted);
}

TEST_F(SessionDatabaseTest, ExpiryInTheStoreReachesTheFileAtTheNextSync) {
  std::unique_ptr<SessionDatabase> db = OpenOrDie();
  ASSERT_NE(db, nullptr);
  SessionStore store(SessionLimits{}, std::make_unique<SqliteSessionBackend>(*db));
  SessionSettings settings;
  settings.idle_ttl = absl::Seconds(1);
  ASSERT_TRUE(store.Create("brief", settings).ok());
  ASSERT_EQ(store.ExpireIdle(absl::Now() + absl::Seconds(2)).size(), 1u);
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM sessions"), 1);
  ASSERT_TRUE(store.Save().ok());
  EXPECT_EQ(QueryInt(path_, "SELECT count(*) FROM sessions"), 0);
}

}  // namespace
}  // namespace wasserwarp::service
