// The flags that say how two runs are compared, shared by `twed` and `validate` so that both
// commands prepare and compare runs the same way.

#ifndef WASSERWARP_CLIENT_COMPARISON_FLAGS_H_
#define WASSERWARP_CLIENT_COMPARISON_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "args.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::cli {

// --nu, --lambda, --p, --time-window, --align, --channels.
std::vector<FlagSpec> ComparisonFlags();

// Their lines of the usage text.
extern const char kComparisonFlagsUsage[];

// Overwrites the fields of `twed` and `prepare` whose flags were given; the others keep their
// defaults. Checks the TWED parameters before any file is read.
absl::Status ReadComparisonFlags(const ParsedArgs& args, TwedParams& twed, PrepareOptions& prepare);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_COMPARISON_FLAGS_H_
