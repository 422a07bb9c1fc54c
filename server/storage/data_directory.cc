#include "storage/data_directory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"

namespace wasserwarp::service {
namespace {

constexpr char kLockFileName[] = "LOCK";

}  // namespace

void KeepNewFilesPrivate() { umask(077); }

std::string ErrnoMessage(int error) {
  return std::error_code(error, std::generic_category()).message();
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::UnavailableError(absl::StrCat(dir, ": ", ErrnoMessage(errno)));
  const int rc = fsync(fd);
  const int error = errno;
  close(fd);
  return rc == 0 ? absl::OkStatus()
                 : absl::UnavailableError(absl::StrCat("fsync ", dir, ": ", ErrnoMessage(error)));
}

absl::StatusOr<int> LockDirectory(const std::string& data_dir) {
  const std::string path = (std::filesystem::path(data_dir) / kLockFileName).string();
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("--data_dir ", data_dir, ": cannot open ", path, ": ", ErrnoMessage(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    close(fd);
    if (error == EWOULDBLOCK) {
      return absl::FailedPreconditionError(absl::StrCat("--data_dir ", data_dir,
                                                        " is in use by another wasserwarp-server (",
                                                        path, " is locked)"));
    }
    return absl::FailedPreconditionError(
        absl::StrCat("--data_dir ", data_dir, ": cannot lock ", path, ": ", ErrnoMessage(error)));
  }
  return fd;
}

}  // namespace wasserwarp::service
