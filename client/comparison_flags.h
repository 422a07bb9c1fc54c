// The flags that say how two runs are compared, shared by `twed`, `validate`, `compare` and the
// defaults of a session, so that every command prepares and compares runs the same way.

#ifndef WASSERWARP_CLIENT_COMPARISON_FLAGS_H_
#define WASSERWARP_CLIENT_COMPARISON_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "args.h"
#include "flag_definition.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

// What the parameter flags set, each flag both ways at once: `options` for a validation computed
// here, the defaults where a flag is absent; `given` for a server's request, only the flags given,
// so that the session or the server decides the others.
struct ParameterSettings {
  ValidationOptions options;
  v1::ValidationParameters given;
};

// --nu, --lambda, --p, --time-window, --align, --channels, --resample, --map-file, --map,
// --strict-units and the window flags (window_flags.h).
std::vector<DocumentedFlag> ComparisonFlags();

// Sets what the comparison flags given set. Checks the TWED parameters before any file is read.
absl::Status ReadComparisonFlags(const ParsedArgs& args, ParameterSettings& settings);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_COMPARISON_FLAGS_H_
