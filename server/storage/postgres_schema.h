// The shape of the shared store's tables in PostgreSQL, and the migrations that bring a
// database to it when a server starts. Several servers may start at once against one database:
// migrations run under an advisory lock, one server at a time, each in its own transaction.
// The database marks itself as wasserwarp's, with its schema version, in wasserwarp_meta; a
// database of another application, one with tables but no mark, or one of a newer schema than
// this binary knows is refused, never changed.

#ifndef WASSERWARP_SERVER_STORAGE_POSTGRES_SCHEMA_H_
#define WASSERWARP_SERVER_STORAGE_POSTGRES_SCHEMA_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "storage/postgres.h"

namespace wasserwarp::service::postgres {

// wasserwarp_meta's application of a wasserwarp database.
inline constexpr char kApplication[] = "wasserwarp";
// The pg_advisory_lock key under which servers migrate, one at a time per database.
inline constexpr int64_t kMigrationLockKey = 0x7761737365727770;  // "wasserwp"

// One step from schema version `version - 1` to `version`; statements run in order, in one
// transaction with the update of schema_version.
struct Migration {
  int version;
  const char* description;
  std::vector<const char*> statements;
};

// Every migration, in order of version (1, 2, ...).
const std::vector<Migration>& Migrations();
// The schema version this binary creates and understands: the last migration's.
int LatestSchemaVersion();

// The schema version of the database `connection` is connected to (in its current_schema);
// 0 for a database without tables. FailedPrecondition, naming the database, for a database
// that is not wasserwarp's or whose schema version is newer than LatestSchemaVersion().
absl::StatusOr<int> SchemaVersion(Connection& connection);

// Brings the database to LatestSchemaVersion(), creating the tables in an empty database;
// nothing to do when it is there already. Refuses what SchemaVersion refuses. Holds the
// migration lock throughout, so a second server's Migrate waits and then finds nothing to do.
absl::Status Migrate(Connection& connection);

}  // namespace wasserwarp::service::postgres

#endif  // WASSERWARP_SERVER_STORAGE_POSTGRES_SCHEMA_H_
