// The flags that set a validation's parameters: the comparison flags with --scale and --order.
// `validate` and `compare` compute with the options they set; a session's defaults and the
// overrides of a validation on a session take only the flags given, so that whatever the command
// line leaves out is decided by the session or the server.

#ifndef WASSERWARP_CLIENT_VALIDATION_FLAGS_H_
#define WASSERWARP_CLIENT_VALIDATION_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "args.h"
#include "comparison_flags.h"
#include "flag_definition.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::cli {

// --nu, --lambda, --p, --time-window, --align, --channels, --resample, --scale, --order.
std::vector<DocumentedFlag> ValidationParameterFlags();

// Sets what the parameter flags given set; checks every value.
absl::StatusOr<ParameterSettings> ReadValidationParameterFlags(const ParsedArgs& args);

// The parameters given on the command line, checked as above; the others stay unset.
absl::StatusOr<v1::ValidationParameters> GivenParameters(const ParsedArgs& args);

// `validate` rates its plan pairs with it, `compare` each variant's.
inline constexpr DocumentedFlag kIso18571Flag = {
    "--iso18571", Arity::kSwitch, "",
    "rate every plan pair and channel by ISO/TS 18571 (r, corridor,\n"
    "phase, magnitude, slope, grade); --min-iso-rating does too"};

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VALIDATION_FLAGS_H_
