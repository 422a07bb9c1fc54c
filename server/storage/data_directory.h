// The --data_dir of a server: who may read what the server creates, the lock that keeps a
// second server off it, and the fsync that makes a new entry in it durable.

#ifndef WASSERWARP_SERVER_STORAGE_DATA_DIRECTORY_H_
#define WASSERWARP_SERVER_STORAGE_DATA_DIRECTORY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace wasserwarp::service {

// Makes every file the process creates from now on 0600 and every directory 0700 (umask 077):
// the data directory, SQLite's database and its -wal and -shm files, which SQLite creates with
// the database's mode, and the lock. Sessions hold other principals' data, so no other user of
// the machine may read them. A directory that exists keeps its mode (a volume's may be shared
// with a group on purpose).
void KeepNewFilesPrivate();

// errno's words.
std::string ErrnoMessage(int error);

// Unavailable when `dir`'s entries cannot be made durable.
absl::Status SyncDirectory(const std::string& dir);

// An exclusive flock on `data_dir`/LOCK, held while the returned descriptor is open: two
// servers on one directory would each believe they own every session. FailedPrecondition
// naming --data_dir when another server holds it.
absl::StatusOr<int> LockDirectory(const std::string& data_dir);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_STORAGE_DATA_DIRECTORY_H_
