// --resamples and --confidence: the size of a bootstrap and the coverage of its intervals, for
// every command that resamples (compare, sensitivity, identify), checked and worded alike.

#ifndef WASSERWARP_CLIENT_BOOTSTRAP_FLAGS_H_
#define WASSERWARP_CLIENT_BOOTSTRAP_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "args.h"
#include "flag_definition.h"

namespace wasserwarp::cli {

struct BootstrapSettings {
  int resamples = 999;
  double confidence = 0.95;
};

// --resamples K, --confidence C.
std::vector<DocumentedFlag> BootstrapFlags();

// Sets what the flags given set; --resamples from 1 to kMaxResamples, --confidence in (0, 1).
absl::Status ReadBootstrapFlags(const ParsedArgs& args, BootstrapSettings& settings);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_BOOTSTRAP_FLAGS_H_
