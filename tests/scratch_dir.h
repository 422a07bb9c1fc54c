// A directory of a test's own under GoogleTest's temporary directory, removed with everything
// in it when the test is done, so that tests can run in parallel and leave nothing behind.

#ifndef WASSERWARP_TESTS_SCRATCH_DIR_H_
#define WASSERWARP_TESTS_SCRATCH_DIR_H_

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "gtest/gtest.h"

namespace wasserwarp::test_support {

// `text` as the whole of the file at `path`, replacing what it held.
inline void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

class ScratchDir {
 public:
  // Creates `<temporary directory>/<prefix>XXXXXX`; when that fails, the current test fails
  // and root() is empty.
  explicit ScratchDir(const std::string& prefix) {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / (prefix + "XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "cannot create a directory " << pattern << ": " << std::strerror(errno);
      return;
    }
    root_ = pattern;
  }

  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  ~ScratchDir() {
    if (root_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }

  const std::filesystem::path& root() const { return root_; }

  // `name` inside the directory; the directory itself, with a trailing '/', for "".
  std::string Path(const std::string& name = "") const { return (root_ / name).string(); }

  // Writes `content` to `name` (which may contain subdirectories, created as needed) and
  // returns its path.
  std::string Write(const std::string& name, const std::string& content) const {
    const std::filesystem::path file = root_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }

 private:
  std::filesystem::path root_;
};

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_SCRATCH_DIR_H_
