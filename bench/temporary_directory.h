// A directory of a bench program's own under the system's temporary directory, removed with
// everything in it when the program is done: the data directory and log of the server it runs.

#ifndef WASSERWARP_BENCH_TEMPORARY_DIRECTORY_H_
#define WASSERWARP_BENCH_TEMPORARY_DIRECTORY_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace wasserwarp::bench {

class TemporaryDirectory {
 public:
  // Creates `<temporary directory>/<prefix>XXXXXX`.
  explicit TemporaryDirectory(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }

  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;

  ~TemporaryDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }

  // Empty when it could not be created.
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace wasserwarp::bench

#endif  // WASSERWARP_BENCH_TEMPORARY_DIRECTORY_H_
