// Where a run came from, as the client that read it says: the file's name and the SHA-256 of its
// bytes. It travels with the run into a server's session and into every report of it, so that a
// result names the files it was computed from.

#ifndef WASSERWARP_RUN_SOURCE_H_
#define WASSERWARP_RUN_SOURCE_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace wasserwarp {

struct RunSource {
  std::string file;    // as the client named it
  std::string sha256;  // 64 lowercase hexadecimal digits, or empty when not known
  friend bool operator==(const RunSource&, const RunSource&) = default;
};

inline constexpr size_t kMaxRunSourceFileLength = 1024;

// Ok when `file` has at most kMaxRunSourceFileLength characters (bytes) and `sha256` is empty or
// 64 lowercase hexadecimal digits; otherwise InvalidArgument on `<field_path>.file` or
// `<field_path>.sha256`.
absl::Status CheckRunSource(const RunSource& source, absl::string_view field_path);

}  // namespace wasserwarp

#endif  // WASSERWARP_RUN_SOURCE_H_
