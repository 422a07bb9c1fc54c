// Over 500 lines for one reason: the statements on the sessions and runs tables stay together,
// since the limits that every replica shares are enforced across them (creations, commits,
// expiry) and are read side by side.

#include "sessions/postgres_sessions.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "sessions/principal_quota.h"
#include "sessions/session_encoding.h"
#include "storage/byte_encoding.h"
#include "storage/postgres.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/run_checksum.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {
namespace {

using postgres::Connection;
using postgres::Param;
using postgres::Result;

// Samples are stored in rows of about this many bytes, as in the SQLite database: large
// values are cheaper to write and read in pieces.
constexpr int64_t kSampleRowBytes = int64_t{1} << 20;

int64_t ToNanos(absl::Time time) { return absl::ToUnixNanos(time); }

absl::Status Damaged(const std::string& url, const std::string& what) {
  return absl::DataLossError(absl::StrCat("PostgreSQL ", url, ": ", what));
}

std::string RunLabel(const std::string& session_id, RunRole role, const std::string& series_id) {
  return absl::StrCat("session ", wire::SessionName(session_id), ", ", std::string(RoleName(role)),
                      " run \"", series_id, "\"");
}

Param TtlParam(const std::optional<absl::Duration>& ttl, int64_t& storage) {
  if (!ttl.has_value()) return Param::Null();
  storage = absl::ToInt64Nanoseconds(*ttl);
  return Param::Int64(storage);
}

absl::StatusOr<int64_t> IntOf(const Result& result, int row, int column) {
  return result.GetInt64(row, column);
}

absl::StatusOr<PersistedSession> SessionOf(const Result& result, int row, const std::string& url) {
  PersistedSession session;
  absl::StatusOr<int64_t> key = IntOf(result, row, 0);
  absl::StatusOr<std::string> settings_bytes = result.GetBytes(row, 3);
  absl::StatusOr<int64_t> created = IntOf(result, row, 4);
  absl::StatusOr<int64_t> used = IntOf(result, row, 5);
  for (const absl::Status& status :
       {key.status(), settings_bytes.status(), created.status(), used.status()}) {
    if (!status.ok()) return status;
  }
  session.key = *key;
  session.id = std::string(result.GetText(row, 1));
  std::optional<SessionSettings> settings = SettingsFromBytes(*settings_bytes);
  if (!settings.has_value()) {
    return Damaged(url, absl::StrCat("the settings of session ", wire::SessionName(session.id),
                                     " do not parse"));
  }
  session.settings = *std::move(settings);
  session.settings.owner = std::string(result.GetText(row, 2));
  session.create_time = absl::FromUnixNanos(*created);
  session.last_use = absl::FromUnixNanos(*used);
  return session;
}

constexpr char kSessionColumns[] = "key, id, owner, settings, create_time_ns, last_use_ns";

}  // namespace

PostgresSessions::PostgresSessions(postgres::Pool& pool, const SessionLimits& limits,
                                   postgres::TransactionOptions options)
    : pool_(pool), limits_(limits), options_(std::move(options)) {}

absl::StatusOr<int64_t> PostgresSessions::InsertSession(const std::string& id,
                                                        const SessionSettings& settings,
                                                        absl::Time now) {
  const std::string settings_bytes = SettingsBytes(settings);
  int64_t ttl_storage = 0;
  int64_t key = 0;
  absl::Status status = postgres::RunTransaction(
      pool_, "creating a session",
      [&](Connection& connection) -> absl::Status {
        // An expired session's id is free, as in one server's store; its row goes now.
        absl::StatusOr<Result> freed = connection.Exec(
            "DELETE FROM sessions s WHERE id = $1 AND last_use_ns + coalesce(idle_ttl_ns, $2) "
            "<= $3 AND NOT EXISTS (SELECT 1 FROM validations v WHERE v.session_key = s.key AND "
            "v.state IN (1, 2))",
            {Param::Text(id), Param::Int64(absl::ToInt64Nanoseconds(limits_.session_idle_ttl)),
             Param::Int64(ToNanos(now))},
            "creating a session");
        if (!freed.ok()) return freed.status();
        absl::StatusOr<Result> inserted = connection.Exec(
            "INSERT INTO sessions (id, owner, settings, idle_ttl_ns, create_time_ns, last_use_ns) "
            "VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (id) DO NOTHING RETURNING key",
            {Param::Text(id), Param::Text(settings.owner), Param::Bytes(settings_bytes),
             TtlParam(settings.idle_ttl, ttl_storage), Param::Int64(ToNanos(now))},
            "creating a session");
        if (!inserted.ok()) return inserted.status();
        if (inserted->rows() == 0) {
          return absl::AlreadyExistsError(
              absl::StrCat("session ", wire::SessionName(id), " already exists"));
        }
        absl::StatusOr<int64_t> new_key = inserted->GetInt64(0, 0);
        if (!new_key.ok()) return new_key.status();
        if (absl::Status locked = connection
                                      .Exec("SELECT pg_advisory_xact_lock($1)",
                                            {Param::Int64(kCreateLock)}, "creating a session")
                                      .status();
            !locked.ok()) {
          return locked;
        }
        // Under the lock, every creation committed before is seen; this one is left out of the
        // counts, which are of the sessions held before it.
        absl::StatusOr<Result> live = connection.Exec(
            "SELECT count(*) - 1, count(*) FILTER (WHERE owner = $3) - 1 FROM sessions"
            " WHERE last_use_ns + coalesce(idle_ttl_ns, $1) > $2",
            {Param::Int64(absl::ToInt64Nanoseconds(limits_.session_idle_ttl)),
             Param::Int64(ToNanos(now)), Param::Text(settings.owner)},
            "creating a session");
        if (!live.ok()) return live.status();
        absl::StatusOr<int64_t> count = live->GetInt64(0, 0);
        if (!count.ok()) return count.status();
        if (*count >= limits_.max_sessions) {
          return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                               "the service holds ", *count,
                               " sessions, its limit (--max_sessions=", limits_.max_sessions, ")")),
                           "--max_sessions");
        }
        absl::StatusOr<int64_t> owned = live->GetInt64(0, 1);
        if (!owned.ok()) return owned.status();
        if (absl::Status status = CheckPrincipalSessions(settings.owner, *owned, limits_);
            !status.ok()) {
          return status;
        }
        key = *new_key;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return key;
}

absl::StatusOr<std::optional<PersistedSession>> PostgresSessions::FindSession(
    const std::string& id) {
  std::optional<PersistedSession> found;
  absl::Status status = postgres::RunTransaction(
      pool_, "reading a session",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> result = connection.Exec(
            absl::StrCat("SELECT ", kSessionColumns, " FROM sessions WHERE id = $1"),
            {Param::Text(id)}, "reading a session");
        if (!result.ok()) return result.status();
        found.reset();
        if (result->rows() == 0) return absl::OkStatus();
        absl::StatusOr<PersistedSession> session = SessionOf(*result, 0, connection.redacted_url());
        if (!session.ok()) return session.status();
        found = *std::move(session);
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<std::vector<int64_t>> PostgresSessions::RunKeys(int64_t session_key) {
  std::vector<int64_t> keys;
  absl::Status status = postgres::RunTransaction(
      pool_, "reading a session's runs",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> result =
            connection.Exec("SELECT key FROM runs WHERE session_key = $1 ORDER BY key",
                            {Param::Int64(session_key)}, "reading a session's runs");
        if (!result.ok()) return result.status();
        keys.clear();
        for (int row = 0; row < result->rows(); ++row) {
          absl::StatusOr<int64_t> key = result->GetInt64(row, 0);
          if (!key.ok()) return key.status();
          keys.push_back(*key);
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return keys;
}

absl::StatusOr<std::vector<StoredRun>> PostgresSessions::LoadRuns(
    const std::string& session_id, const std::vector<int64_t>& run_keys) {
  std::vector<StoredRun> runs;
  if (run_keys.empty()) return runs;
  const std::string key_array = absl::StrCat("{", absl::StrJoin(run_keys, ","), "}");
  absl::Status status = postgres::RunTransaction(
      pool_, "reading runs",
      [&](Connection& connection) -> absl::Status {
        runs.clear();
        absl::StatusOr<Result> result = connection.Exec(
            "SELECT key, role, series_id, channels, weight, samples, commit_time_ns, checksum, "
            "bytes, parameters, trial, source_file, source_sha256, units FROM runs "
            "WHERE key = ANY($1::bigint[]) ORDER BY key",
            {Param::Text(key_array)}, "reading runs");
        if (!result.ok()) return result.status();
        for (int row = 0; row < result->rows(); ++row) {
          absl::StatusOr<int64_t> key = result->GetInt64(row, 0);
          absl::StatusOr<int64_t> role_number = result->GetInt64(row, 1);
          absl::StatusOr<std::string> channel_bytes = result->GetBytes(row, 3);
          absl::StatusOr<int64_t> samples = result->GetInt64(row, 5);
          absl::StatusOr<int64_t> commit_time = result->GetInt64(row, 6);
          absl::StatusOr<int64_t> checksum = result->GetInt64(row, 7);
          absl::StatusOr<int64_t> bytes = result->GetInt64(row, 8);
          absl::StatusOr<std::string> parameter_bytes = result->GetBytes(row, 9);
          for (const absl::Status& cell :
               {key.status(), role_number.status(), channel_bytes.status(), samples.status(),
                commit_time.status(), checksum.status(), bytes.status(),
                parameter_bytes.status()}) {
            if (!cell.ok()) return cell;
          }
          const std::optional<RunRole> role = RoleFromNumber(*role_number);
          Series series;
          series.id = std::string(result->GetText(row, 2));
          const std::string label =
              RunLabel(session_id, role.value_or(RunRole::kReference), series.id);
          std::optional<std::vector<std::string>> channels = DecodeStrings(*channel_bytes);
          std::optional<std::map<std::string, double>> parameters =
              DecodeParameters(*parameter_bytes);
          if (!role.has_value() || !channels.has_value() || channels->empty() ||
              !parameters.has_value()) {
            return Damaged(connection.redacted_url(), absl::StrCat(label, " does not decode"));
          }
          series.channels = *std::move(channels);
          if (!result->IsNull(row, 13)) {
            absl::StatusOr<std::string> unit_bytes = result->GetBytes(row, 13);
            if (!unit_bytes.ok()) return unit_bytes.status();
            std::optional<std::vector<std::string>> units = DecodeStrings(*unit_bytes);
            if (!units.has_value() || units->size() != series.channels.size()) {
              return Damaged(connection.redacted_url(),
                             absl::StrCat(label, ": its channel units do not decode"));
            }
            series.units = *std::move(units);
          }
          absl::StatusOr<Result> pieces = connection.Exec(
              "SELECT time_data, value_data FROM run_samples WHERE run_key = $1 "
              "ORDER BY first_sample",
              {Param::Int64(*key)}, "reading run samples");
          if (!pieces.ok()) return pieces.status();
          for (int piece = 0; piece < pieces->rows(); ++piece) {
            absl::StatusOr<std::string> times = pieces->GetBytes(piece, 0);
            absl::StatusOr<std::string> values = pieces->GetBytes(piece, 1);
            if (!times.ok()) return times.status();
            if (!values.ok()) return values.status();
            AppendDoubles(*times, series.times);
            AppendDoubles(*values, series.values);
          }
          if (static_cast<int64_t>(series.times.size()) != *samples ||
              series.values.size() != series.times.size() * series.channels.size() ||
              RunChecksum(series) != static_cast<uint64_t>(*checksum)) {
            return Damaged(connection.redacted_url(),
                           absl::StrCat(label, ": its samples do not match their checksum"));
          }
          StoredRun run;
          run.role = *role;
          if (!result->IsNull(row, 4)) {
            absl::StatusOr<double> weight = result->GetDouble(row, 4);
            if (!weight.ok()) return weight.status();
            run.weight = *weight;
          }
          run.inputs = {*std::move(parameters), std::string(result->GetText(row, 10))};
          if (!result->IsNull(row, 11)) {
            run.source = RunSource{std::string(result->GetText(row, 11)),
                                   std::string(result->GetText(row, 12))};
          }
          run.commit_time = absl::FromUnixNanos(*commit_time);
          run.bytes = *bytes;
          run.database_key = *key;
          run.series = std::make_shared<const Series>(std::move(series));
          runs.push_back(std::move(run));
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return runs;
}

absl::StatusOr<int64_t> PostgresSessions::InsertRun(int64_t session_key,
                                                    const std::string& session_id,
                                                    const StoredRun& run) {
  const Series& series = *run.series;
  const std::string channels = EncodeStrings(series.channels);
  const std::string parameters = EncodeParameters(run.inputs.parameters);
  // Held here: a Param refers to its bytes.
  const std::string units = EncodeStrings(series.units);
  const int64_t checksum = static_cast<int64_t>(RunChecksum(series));
  const std::string label = RunLabel(session_id, run.role, series.id);
  int64_t run_key = 0;
  absl::Status status = postgres::RunTransaction(
      pool_, "committing a run",
      [&](Connection& connection) -> absl::Status {
        const auto exec = [&](const std::string& sql, const std::vector<Param>& params) {
          return connection.Exec(sql, params, "committing a run");
        };
        absl::StatusOr<Result> session =
            exec("SELECT 1 FROM sessions WHERE key = $1", {Param::Int64(session_key)});
        if (!session.ok()) return session.status();
        if (session->rows() == 0) {
          return absl::NotFoundError(
              absl::StrCat("session ", wire::SessionName(session_id), " not found"));
        }
        // The session's runs and bytes with this run's; `counted`: the table holds it already.
        const auto check_session = [&](bool counted) -> absl::Status {
          absl::StatusOr<Result> held = exec(
              "SELECT count(*), coalesce(sum(bytes), 0)::bigint FROM runs WHERE session_key = $1",
              {Param::Int64(session_key)});
          if (!held.ok()) return held.status();
          absl::StatusOr<int64_t> count = held->GetInt64(0, 0);
          absl::StatusOr<int64_t> session_bytes = held->GetInt64(0, 1);
          for (const absl::Status& cell : {count.status(), session_bytes.status()}) {
            if (!cell.ok()) return cell;
          }
          const int64_t others = *count - (counted ? 1 : 0);
          const int64_t bytes = *session_bytes + (counted ? 0 : run.bytes);
          if (others >= limits_.max_runs_per_session) {
            return WithLimit(absl::ResourceExhaustedError(
                                 absl::StrCat("session ", wire::SessionName(session_id), " holds ",
                                              others, " runs, its limit (--max_runs_per_session=",
                                              limits_.max_runs_per_session, ")")),
                             "--max_runs_per_session");
          }
          if (bytes > limits_.max_session_bytes) {
            return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                                 "session ", wire::SessionName(session_id), " would hold ", bytes,
                                 " bytes of run data, over its limit (--max_session_bytes=",
                                 limits_.max_session_bytes, ")")),
                             "--max_session_bytes");
          }
          return absl::OkStatus();
        };
        // Before the samples are written, so that a full session refuses at once; the check
        // that counts is the one after them, under the session's row lock.
        if (absl::Status full = check_session(false); !full.ok()) return full;
        std::vector<Param> params = {
            Param::Int64(session_key),
            Param::Int64(static_cast<int64_t>(run.role)),
            Param::Text(series.id),
            Param::Bytes(channels),
            run.weight.has_value() ? Param::Double(*run.weight) : Param::Null(),
            Param::Int64(static_cast<int64_t>(series.samples())),
            Param::Int64(ToNanos(run.commit_time)),
            Param::Int64(checksum),
            Param::Int64(run.bytes),
            Param::Bytes(parameters),
            Param::Text(run.inputs.trial),
            run.source.has_value() ? Param::Text(run.source->file) : Param::Null(),
            run.source.has_value() ? Param::Text(run.source->sha256) : Param::Null(),
            series.units.empty() ? Param::Null() : Param::Bytes(units)};
        absl::StatusOr<Result> inserted = exec(
            "INSERT INTO runs (session_key, role, series_id, channels, weight, samples, "
            "commit_time_ns, checksum, bytes, parameters, trial, source_file, source_sha256, "
            "units) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) "
            "ON CONFLICT (session_key, role, series_id) DO NOTHING RETURNING key",
            params);
        if (!inserted.ok()) return inserted.status();
        if (inserted->rows() == 0) {
          return absl::AlreadyExistsError(absl::StrCat(label, " already exists"));
        }
        absl::StatusOr<int64_t> key = inserted->GetInt64(0, 0);
        if (!key.ok()) return key.status();
        const size_t per_row = std::max<size_t>(
            1, static_cast<size_t>(kSampleRowBytes) /
                   (sizeof(double) * (1 + std::max<size_t>(1, series.num_channels()))));
        std::string time_scratch;
        std::string value_scratch;
        for (size_t first = 0; first < series.samples(); first += per_row) {
          const size_t count_here = std::min(per_row, series.samples() - first);
          const std::string_view times =
              DoubleBytes(series.times.data() + first, count_here, time_scratch);
          const std::string_view values =
              DoubleBytes(series.values.data() + first * series.num_channels(),
                          count_here * series.num_channels(), value_scratch);
          if (absl::Status piece =
                  exec("INSERT INTO run_samples (run_key, first_sample, time_data, value_data) "
                       "VALUES ($1, $2, $3, $4)",
                       {Param::Int64(*key), Param::Int64(static_cast<int64_t>(first)),
                        Param::Bytes(times), Param::Bytes(values)})
                      .status();
              !piece.ok()) {
            return piece;
          }
        }
        // The row lock orders the commits into one session for its count, and only from here:
        // the samples of commits into one session, as into any, are written side by side. (NO
        // KEY UPDATE: the key share each run's foreign key took on the row does not conflict.)
        if (absl::Status locked = exec("SELECT 1 FROM sessions WHERE key = $1 FOR NO KEY UPDATE",
                                       {Param::Int64(session_key)})
                                      .status();
            !locked.ok()) {
          return locked;
        }
        if (absl::Status full = check_session(true); !full.ok()) return full;
        if (absl::Status used =
                exec("UPDATE sessions SET last_use_ns = greatest(last_use_ns, $2) WHERE key = $1",
                     {Param::Int64(session_key), Param::Int64(ToNanos(run.commit_time))})
                    .status();
            !used.ok()) {
          return used;
        }
        if (absl::Status locked =
                exec("SELECT pg_advisory_xact_lock($1)", {Param::Int64(kCommitLock)}).status();
            !locked.ok()) {
          return locked;
        }
        // Under the lock, every commit before is seen, and this run is counted.
        absl::StatusOr<Result> total = exec("SELECT coalesce(sum(bytes), 0)::bigint FROM runs", {});
        if (!total.ok()) return total.status();
        absl::StatusOr<int64_t> total_bytes = total->GetInt64(0, 0);
        if (!total_bytes.ok()) return total_bytes.status();
        if (*total_bytes > limits_.max_total_bytes) {
          return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                               "the service would hold ", *total_bytes,
                               " bytes of run data, over its limit (--max_total_bytes=",
                               limits_.max_total_bytes, ")")),
                           "--max_total_bytes");
        }
        run_key = *key;
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return run_key;
}

absl::Status PostgresSessions::DeleteSession(int64_t session_key, const std::string& session_id) {
  return postgres::RunTransaction(
      pool_, "deleting a session",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> deleted =
            connection.Exec("DELETE FROM sessions WHERE key = $1 RETURNING key",
                            {Param::Int64(session_key)}, "deleting a session");
        if (!deleted.ok()) return deleted.status();
        if (deleted->rows() == 0) {
          return absl::NotFoundError(
              absl::StrCat("session ", wire::SessionName(session_id), " not found"));
        }
        return absl::OkStatus();
      },
      options_);
}

absl::Status PostgresSessions::SaveLastUse(
    const std::vector<std::pair<int64_t, absl::Time>>& last_uses) {
  if (last_uses.empty()) return absl::OkStatus();
  std::vector<int64_t> keys;
  std::vector<int64_t> times;
  for (const auto& [key, time] : last_uses) {
    keys.push_back(key);
    times.push_back(ToNanos(time));
  }
  const std::string key_array = absl::StrCat("{", absl::StrJoin(keys, ","), "}");
  const std::string time_array = absl::StrCat("{", absl::StrJoin(times, ","), "}");
  return postgres::RunTransaction(
      pool_, "saving last uses",
      [&](Connection& connection) -> absl::Status {
        return connection
            .Exec(
                "UPDATE sessions s SET last_use_ns = greatest(s.last_use_ns, u.last_use) "
                "FROM unnest($1::bigint[], $2::bigint[]) AS u(key, last_use) WHERE s.key = "
                "u.key",
                {Param::Text(key_array), Param::Text(time_array)}, "saving last uses")
            .status();
      },
      options_);
}

absl::StatusOr<std::vector<std::string>> PostgresSessions::ExpireIdle(absl::Time now,
                                                                      absl::Duration grace) {
  std::vector<std::string> expired;
  absl::Status status = postgres::RunTransaction(
      pool_, "expiring idle sessions",
      [&](Connection& connection) -> absl::Status {
        absl::StatusOr<Result> deleted = connection.Exec(
            "DELETE FROM sessions s WHERE s.last_use_ns + coalesce(s.idle_ttl_ns, $1) + $2 <= $3 "
            "AND NOT EXISTS (SELECT 1 FROM validations v WHERE v.session_key = s.key AND "
            "v.state IN (1, 2)) RETURNING s.id",
            {Param::Int64(absl::ToInt64Nanoseconds(limits_.session_idle_ttl)),
             Param::Int64(absl::ToInt64Nanoseconds(grace)), Param::Int64(ToNanos(now))},
            "expiring idle sessions");
        if (!deleted.ok()) return deleted.status();
        expired.clear();
        for (int row = 0; row < deleted->rows(); ++row) {
          expired.emplace_back(deleted->GetText(row, 0));
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return expired;
}

absl::StatusOr<std::vector<SessionSummary>> PostgresSessions::List(const std::string& owner,
                                                                   const std::string& after_id,
                                                                   int limit, absl::Time now) {
  std::vector<SessionSummary> page;
  absl::Status status = postgres::RunTransaction(
      pool_, "listing sessions",
      [&](Connection& connection) -> absl::Status {
        page.clear();
        absl::StatusOr<Result> result = connection.Exec(
            "SELECT s.key, s.id, s.owner, s.settings, s.create_time_ns, s.last_use_ns, "
            "count(r.key) FILTER (WHERE r.role = 1), count(r.key) FILTER (WHERE r.role = 2), "
            "coalesce(sum(r.bytes), 0)::bigint FROM sessions s LEFT JOIN runs r ON "
            "r.session_key = s.key WHERE s.owner = $1 AND s.id > $2 AND s.last_use_ns + "
            "coalesce(s.idle_ttl_ns, $3) > $4 GROUP BY s.key ORDER BY s.id LIMIT $5",
            {Param::Text(owner), Param::Text(after_id),
             Param::Int64(absl::ToInt64Nanoseconds(limits_.session_idle_ttl)),
             Param::Int64(ToNanos(now)), Param::Int64(limit)},
            "listing sessions");
        if (!result.ok()) return result.status();
        for (int row = 0; row < result->rows(); ++row) {
          absl::StatusOr<PersistedSession> session =
              SessionOf(*result, row, connection.redacted_url());
          if (!session.ok()) return session.status();
          absl::StatusOr<int64_t> simulation = result->GetInt64(row, 6);
          absl::StatusOr<int64_t> reference = result->GetInt64(row, 7);
          absl::StatusOr<int64_t> bytes = result->GetInt64(row, 8);
          for (const absl::Status& cell :
               {simulation.status(), reference.status(), bytes.status()}) {
            if (!cell.ok()) return cell;
          }
          page.push_back(SessionSummary{.session = *std::move(session),
                                        .simulation_runs = static_cast<int32_t>(*simulation),
                                        .reference_runs = static_cast<int32_t>(*reference),
                                        .bytes = *bytes});
        }
        return absl::OkStatus();
      },
      options_);
  if (!status.ok()) return status;
  return page;
}

}  // namespace wasserwarp::service
