// The bytes of a whole file, for the readers of input files.

#ifndef WASSERWARP_SRC_COMMON_FILE_CONTENTS_H_
#define WASSERWARP_SRC_COMMON_FILE_CONTENTS_H_

#include <string>

#include "absl/status/statusor.h"

namespace wasserwarp {

// The contents of `path`; errors (from errno) name the path.
absl::StatusOr<std::string> ReadFileContents(const std::string& path);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_COMMON_FILE_CONTENTS_H_
