// The content of a file a server flag names, read whole: the token file, the principal map and
// the TLS files, whose errors name the flag and the path.

#ifndef WASSERWARP_SERVER_OPS_FLAG_FILE_H_
#define WASSERWARP_SERVER_OPS_FLAG_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::service {

// InvalidArgument "--FLAG: cannot read PATH: REASON" when it cannot be read.
absl::StatusOr<std::string> ReadFlagFile(absl::string_view flag, const std::string& path);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_OPS_FLAG_FILE_H_
