// Over 500 lines for one reason: the file's schema and every statement that reads or writes it
// are together, so that a change of what is stored is one file's change and reviewed as one.

#include "sessions/session_database.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "sessions/session_encoding.h"
#include "storage/byte_encoding.h"
#include "storage/data_directory.h"
#include "storage/sqlite.h"
#include "wasserwarp/run_checksum.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {
namespace {

using sqlite::Exec;
using sqlite::PragmaInt;
using sqlite::SqliteError;
using sqlite::Statement;
using sqlite::Transaction;

constexpr char kFileName[] = "sessions.db";
constexpr char kFormatName[] = "wasserwarp session database";

// Samples are stored in rows of about this many bytes: SQLite caps a blob
// below the largest run the limits allow, and smaller rows keep its copies
// small when loading.
constexpr int64_t kSampleRowBytes = int64_t{1} << 20;

// The largest page SQLite allows: the file is mostly sample blobs, which
// then take a sixteenth of the overflow pages they take with the default
// 4 KiB (uploads to disk measured 1.7 times as fast). Fixed at creation.
constexpr int kPageBytes = 65536;

// A stray backup or inspection with the sqlite3 shell may hold a lock for
// a moment; longer waits are errors.
constexpr int kBusyTimeoutMs = 5000;

// The WAL file is cut back to this size after a checkpoint, rather than
// keeping the size of the largest run ever committed.
constexpr int64_t kWalSizeLimitBytes = int64_t{64} << 20;

// Times in integer nanoseconds since the Unix epoch, exact for absl::Now()
// until the year 2262.
constexpr char kSchema[] = R"sql(
CREATE TABLE meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL);
CREATE TABLE sessions (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL,
  owner TEXT NOT NULL,
  -- wasserwarp.v1.Session with default_parameters, labels and idle_ttl
  -- (unset: the server's --session_idle_ttl).
  settings BLOB NOT NULL,
  create_time_ns INTEGER NOT NULL,
  last_use_ns INTEGER NOT NULL);
CREATE TABLE runs (
  key INTEGER PRIMARY KEY AUTOINCREMENT,
  session_key INTEGER NOT NULL REFERENCES sessions(key) ON DELETE CASCADE,
  role INTEGER NOT NULL,
  series_id TEXT NOT NULL,
  -- Each name as its length (4 bytes, little-endian) and its bytes.
  channels BLOB NOT NULL,
  weight REAL,
  samples INTEGER NOT NULL,
  commit_time_ns INTEGER NOT NULL,
  -- RunChecksum of the samples, as a signed 64-bit integer.
  checksum INTEGER NOT NULL);
CREATE INDEX runs_by_session ON runs(session_key);
-- Consecutive samples of a run: times and sample-major values as
-- little-endian IEEE doubles.
CREATE TABLE run_samples (
  run_key INTEGER NOT NULL REFERENCES runs(key) ON DELETE CASCADE,
  first_sample INTEGER NOT NULL,
  time_data BLOB NOT NULL,
  value_data BLOB NOT NULL,
  PRIMARY KEY (run_key, first_sample));
)sql";

// The parameters (EncodeParameters) and trial of the simulated runs that have either. A table
// of its own rather than a new format version: a file written before parameter studies gains it
// at its first Open here, and an older server ignores it, the rows of the runs it deletes going
// with them (the cascade is the file's, not the server's), so either server reads the other's
// file and nothing is lost.
constexpr char kRunInputsSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS run_inputs (
  run_key INTEGER PRIMARY KEY REFERENCES runs(key) ON DELETE CASCADE,
  parameters BLOB NOT NULL,
  trial TEXT NOT NULL);
)sql";

// Where runs came from (SeriesHeader.source), for the runs whose client said: a table of its
// own for the same reasons as run_inputs, so that a file of format version 1 written before run
// sources gains it at its first Open, its runs without a source.
constexpr char kRunSourcesSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS run_sources (
  run_key INTEGER PRIMARY KEY REFERENCES runs(key) ON DELETE CASCADE,
  file TEXT NOT NULL,
  sha256 TEXT NOT NULL);
)sql";

// Each channel's unit (SeriesHeader.units, EncodeStrings), for the runs that have units: a table
// of its own for the same reasons as run_inputs, so that a file written before units gains it at
// its first Open, its runs without units.
constexpr char kRunUnitsSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS run_units (
  run_key INTEGER PRIMARY KEY REFERENCES runs(key) ON DELETE CASCADE,
  units BLOB NOT NULL);
)sql";

absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string RunLabel(const std::string& session_id, RunRole role, const std::string& series_id) {
  return absl::StrCat("session ", wire::SessionName(session_id), ", ", View(RoleName(role)),
                      " run \"", series_id, "\"");
}

// `what` may be a SQLite error that names the path already.
absl::Status Damaged(const std::string& path, absl::string_view what) {
  absl::ConsumePrefix(&what, absl::StrCat(path, ": "));
  return absl::DataLossError(absl::StrCat(path, " is damaged: ", what,
                                          "; restore it from a backup, or move it away to start "
                                          "with no sessions"));
}

int64_t ToNanos(absl::Time time) { return absl::ToUnixNanos(time); }
absl::Time FromNanos(int64_t nanos) { return absl::FromUnixNanos(nanos); }

// An empty database at `path`, written under another name and renamed into
// place, so that a crash never leaves a half-made file that the next start
// would have to tell apart from a damaged one.
absl::Status CreateDatabase(const std::string& path) {
  const std::string staging = path + ".new";
  std::error_code ignored;
  std::filesystem::remove(staging, ignored);
  std::filesystem::remove(staging + "-journal", ignored);
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(staging.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  absl::Cleanup close_db = [db] { sqlite3_close(db); };
  if (rc != SQLITE_OK) return SqliteError(db, rc, staging, "creating the database");
  const std::string sql = absl::StrFormat(
      "PRAGMA page_size = %d; BEGIN; PRAGMA application_id = %d; PRAGMA user_version = %d; %s "
      "INSERT INTO meta (key, value) VALUES ('format', '%s'), ('format_version', '%d'); COMMIT;",
      kPageBytes, kSessionDatabaseApplicationId, kSessionDatabaseFormatVersion, kSchema,
      kFormatName, kSessionDatabaseFormatVersion);
  if (absl::Status status = Exec(db, staging, sql, "creating the database"); !status.ok()) {
    return status;
  }
  std::move(close_db).Invoke();
  if (rename(staging.c_str(), path.c_str()) != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot rename ", staging, " to ", path, ": ", ErrnoMessage(errno)));
  }
  return SyncDirectory(std::filesystem::path(path).parent_path().string());
}

absl::Status CheckFormat(sqlite3* db, const std::string& path) {
  absl::StatusOr<int64_t> application_id = PragmaInt(db, path, "application_id");
  if (!application_id.ok()) {
    if (application_id.status().code() == absl::StatusCode::kFailedPrecondition) {
      absl::string_view why = application_id.status().message();
      absl::ConsumePrefix(&why, absl::StrCat(path, ": "));
      return absl::FailedPreconditionError(
          absl::StrCat(path, " is not a SQLite database (", why,
                       "); move it away or choose another --data_dir"));
    }
    return Damaged(path, application_id.status().message());
  }
  if (*application_id != kSessionDatabaseApplicationId) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "%s is not a wasserwarp session database: its SQLite application_id is 0x%08x, not "
        "0x%08x; move it away or choose another --data_dir",
        path, static_cast<uint32_t>(*application_id),
        static_cast<uint32_t>(kSessionDatabaseApplicationId)));
  }
  absl::StatusOr<int64_t> version = PragmaInt(db, path, "user_version");
  if (!version.ok()) return version.status();
  if (*version > kSessionDatabaseFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " has format version ", *version, ", newer than the version ",
                     kSessionDatabaseFormatVersion,
                     " this wasserwarp-server reads; run the newer server that wrote it"));
  }
  if (*version < kSessionDatabaseFormatVersion) {
    return absl::FailedPreconditionError(
        absl::StrCat(path, " has format version ", *version, ", which this wasserwarp-server (",
                     "format version ", kSessionDatabaseFormatVersion, ") does not read"));
  }
  Statement meta(db, path, "SELECT value FROM meta WHERE key = 'format_version'");
  absl::StatusOr<bool> row = meta.Step("reading the format version");
  if (!row.ok()) return Damaged(path, row.status().message());
  if (!*row || meta.Bytes(0) != absl::StrCat(kSessionDatabaseFormatVersion)) {
    return Damaged(path, "its meta table does not hold format version " +
                             absl::StrCat(kSessionDatabaseFormatVersion));
  }
  return absl::OkStatus();
}

absl::Status Configure(sqlite3* db, const std::string& path) {
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  Statement journal(db, path, "PRAGMA journal_mode = WAL");
  absl::StatusOr<bool> row = journal.Step("switching to WAL mode");
  if (!row.ok()) return row.status();
  if (!*row || journal.Bytes(0) != "wal") {
    return absl::UnavailableError(absl::StrCat(path, ": SQLite cannot use WAL mode here"));
  }
  // FULL: a commit returns only when the WAL is on disk, so an acknowledged
  // run survives a crash of the process or of the machine.
  return Exec(db, path,
              absl::StrCat("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
                           "PRAGMA journal_size_limit = ",
                           kWalSizeLimitBytes, ";"),
              "configuring the connection");
}

absl::Status CheckIntegrity(sqlite3* db, const std::string& path) {
  Statement check(db, path, "PRAGMA quick_check(1)");
  absl::StatusOr<bool> row = check.Step("checking the database");
  if (!row.ok()) return Damaged(path, row.status().message());
  if (!*row || check.Bytes(0) != "ok") {
    absl::string_view report = *row ? View(check.Bytes(0)) : "nothing";
    absl::ConsumePrefix(&report, "*** in database main ***\n");
    return Damaged(path, absl::StrCat("SQLite's quick_check reports \"", report, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<SessionDatabase>> SessionDatabase::Open(
    const std::string& data_dir) {
  std::error_code error;
  std::filesystem::create_directories(data_dir, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("--data_dir ", data_dir, ": cannot create the directory: ", error.message()));
  }
  absl::StatusOr<int> lock_fd = LockDirectory(data_dir);
  if (!lock_fd.ok()) return lock_fd.status();
  absl::Cleanup unlock = [fd = *lock_fd] { close(fd); };

  const std::string path = (std::filesystem::path(data_dir) / kFileName).string();
  if (!std::filesystem::exists(path, error)) {
    if (absl::Status status = CreateDatabase(path); !status.ok()) return status;
  } else if (std::filesystem::file_size(path, error) == 0) {
    // SQLite would take an empty file for a new database; ours never are.
    return Damaged(path, "it is empty");
  }
  sqlite3* db = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  absl::Cleanup close_db = [db] { sqlite3_close(db); };
  if (rc != SQLITE_OK) return SqliteError(db, rc, path, "opening the database");
  // The format first: nothing is written to a file that is not ours.
  if (absl::Status status = CheckFormat(db, path); !status.ok()) return status;
  if (absl::Status status = Configure(db, path); !status.ok()) return status;
  if (absl::Status status = CheckIntegrity(db, path); !status.ok()) return status;
  if (absl::Status status =
          Exec(db, path, absl::StrCat(kRunInputsSchema, kRunSourcesSchema, kRunUnitsSchema),
               "adding the run inputs, sources and units tables");
      !status.ok()) {
    return status;
  }
  std::move(close_db).Cancel();
  std::move(unlock).Cancel();
  return std::unique_ptr<SessionDatabase>(new SessionDatabase(path, db, *lock_fd));
}

SessionDatabase::SessionDatabase(std::string path, sqlite3* db, int lock_fd)
    : path_(std::move(path)), db_(db), lock_fd_(lock_fd) {}

SessionDatabase::~SessionDatabase() {
  // Closing the last connection checkpoints the WAL into the file.
  sqlite3_close(db_);
  close(lock_fd_);
}

absl::StatusOr<std::vector<PersistedSession>> SessionDatabase::Load(
    absl::Time now, absl::Duration default_idle_ttl) {
  absl::MutexLock lock(&mu_);
  std::vector<PersistedSession> stored;
  {
    Statement query(db_, path_,
                    "SELECT key, id, owner, settings, create_time_ns, last_use_ns FROM sessions "
                    "ORDER BY key");
    for (;;) {
      absl::StatusOr<bool> row = query.Step("reading the sessions");
      if (!row.ok()) return row.status();
      if (!*row) break;
      PersistedSession session;
      session.key = query.Int(0);
      session.id = std::string(query.Bytes(1));
      std::optional<SessionSettings> settings = SettingsFromBytes(query.Bytes(3));
      if (!settings.has_value()) {
        return Damaged(path_, absl::StrCat("the settings of session ",
                                           wire::SessionName(session.id), " do not parse"));
      }
      session.settings = *std::move(settings);
      session.settings.owner = std::string(query.Bytes(2));
      session.create_time = FromNanos(query.Int(4));
      session.last_use = FromNanos(query.Int(5));
      stored.push_back(std::move(session));
    }
  }

  // An id on an older row than its newest is a deletion that had not reached
  // the disk when a new session took the id.
  std::map<std::string, int64_t> newest_key;
  for (const PersistedSession& session : stored) newest_key[session.id] = session.key;
  std::vector<PersistedSession> live;
  std::vector<int64_t> dropped;
  for (PersistedSession& session : stored) {
    const absl::Duration ttl = session.settings.idle_ttl.value_or(default_idle_ttl);
    if (newest_key[session.id] != session.key || session.last_use + ttl <= now) {
      dropped.push_back(session.key);
    } else {
      live.push_back(std::move(session));
    }
  }
  if (absl::Status status = DeleteLocked(dropped); !status.ok()) return status;

  Statement runs(
      db_, path_,
      "SELECT key, role, series_id, channels, weight, samples, commit_time_ns, "
      "checksum, ifnull(parameters, x''), ifnull(trial, ''), file, sha256, units FROM runs "
      "LEFT JOIN run_inputs ON run_inputs.run_key = key "
      "LEFT JOIN run_sources ON run_sources.run_key = key "
      "LEFT JOIN run_units ON run_units.run_key = key "
      "WHERE session_key = ? ORDER BY key");
  Statement samples(db_, path_,
                    "SELECT first_sample, time_data, value_data FROM run_samples "
                    "WHERE run_key = ? ORDER BY first_sample");
  for (PersistedSession& session : live) {
    runs.Reset();
    runs.Bind(1, session.key);
    for (;;) {
      absl::StatusOr<bool> row = runs.Step("reading the runs");
      if (!row.ok()) return row.status();
      if (!*row) break;
      const int64_t run_key = runs.Int(0);
      Series series;
      series.id = std::string(runs.Bytes(2));
      // Stored as the API's role number.
      const std::optional<RunRole> role = RoleFromNumber(runs.Int(1));
      // A run of an unknown role is labelled as the non-simulation side it is not.
      const std::string label = RunLabel(session.id, role.value_or(RunRole::kReference), series.id);
      if (!role.has_value()) return Damaged(path_, absl::StrCat(label, " has role ", runs.Int(1)));
      std::optional<std::vector<std::string>> channels = DecodeStrings(runs.Bytes(3));
      if (!channels.has_value() || channels->empty()) {
        return Damaged(path_, absl::StrCat(label, ": its channel names do not decode"));
      }
      series.channels = *std::move(channels);
      if (!runs.IsNull(12)) {
        std::optional<std::vector<std::string>> units = DecodeStrings(runs.Bytes(12));
        if (!units.has_value() || units->size() != series.channels.size()) {
          return Damaged(path_, absl::StrCat(label, ": its channel units do not decode"));
        }
        series.units = *std::move(units);
      }
      std::optional<std::map<std::string, double>> parameters = DecodeParameters(runs.Bytes(8));
      if (!parameters.has_value()) {
        return Damaged(path_, absl::StrCat(label, ": its parameters do not decode"));
      }
      StoredRun run;
      run.role = *role;
      if (!runs.IsNull(4)) run.weight = runs.Double(4);
      run.inputs = {*std::move(parameters), std::string(runs.Bytes(9))};
      if (!runs.IsNull(10)) {
        run.source = RunSource{std::string(runs.Bytes(10)), std::string(runs.Bytes(11))};
      }
      const int64_t expected_samples = runs.Int(5);
      run.commit_time = FromNanos(runs.Int(6));
      const uint64_t expected_checksum = std::bit_cast<uint64_t>(runs.Int(7));

      samples.Reset();
      samples.Bind(1, run_key);
      const size_t width = series.num_channels();
      for (;;) {
        absl::StatusOr<bool> chunk = samples.Step("reading the samples");
        if (!chunk.ok()) return chunk.status();
        if (!*chunk) break;
        const std::string_view times = samples.Bytes(1);
        const std::string_view values = samples.Bytes(2);
        const size_t count = times.size() / sizeof(double);
        if (samples.Int(0) != static_cast<int64_t>(series.samples()) ||
            times.size() % sizeof(double) != 0 || values.size() != count * width * sizeof(double)) {
          return Damaged(path_, absl::StrCat(label, ": the samples stored from sample ",
                                             samples.Int(0), " do not fit the run"));
        }
        AppendDoubles(times, series.times);
        AppendDoubles(values, series.values);
      }
      if (static_cast<int64_t>(series.samples()) != expected_samples) {
        return Damaged(path_, absl::StrCat(label, " holds ", series.samples(), " samples of ",
                                           expected_samples));
      }
      if (RunChecksum(series) != expected_checksum) {
        return Damaged(path_, absl::StrCat(label, ": its samples do not match their checksum"));
      }
      series.times.shrink_to_fit();
      series.values.shrink_to_fit();
      run.bytes = HeaderBytes(series.id, series.channels, run.inputs, series.units) +
                  SampleBytes(static_cast<int64_t>(series.times.size()),
                              static_cast<int64_t>(series.values.size()));
      run.series = std::make_shared<const Series>(std::move(series));
      session.runs.push_back(std::move(run));
    }
  }
  return live;
}

absl::StatusOr<int64_t> SessionDatabase::InsertSession(const std::string& id,
                                                       const SessionSettings& settings,
                                                       absl::Time create_time) {
  const std::string settings_bytes = SettingsBytes(settings);
  absl::MutexLock lock(&mu_);
  Statement insert(db_, path_,
                   "INSERT INTO sessions (id, owner, settings, create_time_ns, last_use_ns) "
                   "VALUES (?, ?, ?, ?, ?)");
  insert.BindText(1, id);
  insert.BindText(2, settings.owner);
  insert.BindBlob(3, settings_bytes);
  insert.Bind(4, ToNanos(create_time));
  insert.Bind(5, ToNanos(create_time));
  if (absl::Status status = insert.Run(absl::StrCat("storing session ", wire::SessionName(id)));
      !status.ok()) {
    return status;
  }
  return sqlite3_last_insert_rowid(db_);
}

absl::Status SessionDatabase::InsertRun(int64_t session_key, const StoredRun& run) {
  const Series& series = *run.series;
  const std::string channels = EncodeStrings(series.channels);
  const uint64_t checksum = RunChecksum(series);
  const std::string doing =
      absl::StrCat("storing ", View(RoleName(run.role)), " run \"", series.id, "\"");
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  {
    Statement touch(db_, path_,
                    "UPDATE sessions SET last_use_ns = max(last_use_ns, ?) WHERE key = ?");
    touch.Bind(1, ToNanos(run.commit_time));
    touch.Bind(2, session_key);
    if (absl::Status status = touch.Run(doing); !status.ok()) return status;
    if (sqlite3_changes(db_) == 0) {
      return absl::NotFoundError(
          absl::StrCat(path_, ": ", doing, ": its session is no longer stored"));
    }
  }
  Statement insert(db_, path_,
                   "INSERT INTO runs (session_key, role, series_id, channels, weight, samples, "
                   "commit_time_ns, checksum) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  insert.Bind(1, session_key);
  insert.Bind(2, static_cast<int64_t>(run.role));
  insert.BindText(3, series.id);
  insert.BindBlob(4, channels);
  if (run.weight.has_value()) {
    insert.Bind(5, *run.weight);
  } else {
    insert.BindNull(5);
  }
  insert.Bind(6, static_cast<int64_t>(series.samples()));
  insert.Bind(7, ToNanos(run.commit_time));
  insert.Bind(8, std::bit_cast<int64_t>(checksum));
  if (absl::Status status = insert.Run(doing); !status.ok()) return status;
  const int64_t run_key = sqlite3_last_insert_rowid(db_);
  if (!run.inputs.parameters.empty() || !run.inputs.trial.empty()) {
    Statement inputs(db_, path_,
                     "INSERT INTO run_inputs (run_key, parameters, trial) VALUES (?, ?, ?)");
    const std::string parameters = EncodeParameters(run.inputs.parameters);
    inputs.Bind(1, run_key);
    inputs.BindBlob(2, parameters);
    inputs.BindText(3, run.inputs.trial);
    if (absl::Status status = inputs.Run(doing); !status.ok()) return status;
  }
  if (run.source.has_value()) {
    Statement source(db_, path_,
                     "INSERT INTO run_sources (run_key, file, sha256) VALUES (?, ?, ?)");
    source.Bind(1, run_key);
    source.BindText(2, run.source->file);
    source.BindText(3, run.source->sha256);
    if (absl::Status status = source.Run(doing); !status.ok()) return status;
  }
  if (!series.units.empty()) {
    Statement units(db_, path_, "INSERT INTO run_units (run_key, units) VALUES (?, ?)");
    const std::string unit_bytes = EncodeStrings(series.units);
    units.Bind(1, run_key);
    units.BindBlob(2, unit_bytes);
    if (absl::Status status = units.Run(doing); !status.ok()) return status;
  }

  const size_t width = series.num_channels();
  const size_t row_samples = std::max<size_t>(1, kSampleRowBytes / (sizeof(double) * (1 + width)));
  Statement rows(db_, path_,
                 "INSERT INTO run_samples (run_key, first_sample, time_data, value_data) "
                 "VALUES (?, ?, ?, ?)");
  std::string time_scratch;
  std::string value_scratch;
  for (size_t begin = 0; begin < series.samples(); begin += row_samples) {
    const size_t count = std::min(row_samples, series.samples() - begin);
    rows.Reset();
    rows.Bind(1, run_key);
    rows.Bind(2, static_cast<int64_t>(begin));
    rows.BindBlob(3, DoubleBytes(series.times.data() + begin, count, time_scratch));
    rows.BindBlob(4,
                  DoubleBytes(series.values.data() + begin * width, count * width, value_scratch));
    if (absl::Status status = rows.Run(doing); !status.ok()) return status;
  }
  return transaction.Commit();
}

absl::Status SessionDatabase::DeleteSessions(const std::vector<int64_t>& keys) {
  absl::MutexLock lock(&mu_);
  return DeleteLocked(keys);
}

absl::Status SessionDatabase::DeleteLocked(const std::vector<int64_t>& keys) {
  if (keys.empty()) return absl::OkStatus();
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement erase(db_, path_, "DELETE FROM sessions WHERE key = ?");
  for (int64_t key : keys) {
    erase.Reset();
    erase.Bind(1, key);
    if (absl::Status status = erase.Run("deleting sessions"); !status.ok()) return status;
  }
  return transaction.Commit();
}

absl::Status SessionDatabase::SaveLastUse(
    const std::vector<std::pair<int64_t, absl::Time>>& last_use) {
  absl::MutexLock lock(&mu_);
  Transaction transaction(db_, path_);
  if (absl::Status status = transaction.Begin(); !status.ok()) return status;
  Statement update(db_, path_,
                   "UPDATE sessions SET last_use_ns = max(last_use_ns, ?) WHERE key = ?");
  for (const auto& [key, time] : last_use) {
    update.Reset();
    update.Bind(1, ToNanos(time));
    update.Bind(2, key);
    if (absl::Status status = update.Run("saving last-use times"); !status.ok()) return status;
  }
  return transaction.Commit();
}

}  // namespace wasserwarp::service
