// ValidationParameters, the parameters a session's defaults and a call's overrides set, and the
// core's form of them, ParameterOverrides (wasserwarp/parameter_overrides.h), translated field
// by field from one table (parameters.cc). How overrides combine and resolve to the core's
// options is the core's rule, not the wire's.

#ifndef WASSERWARP_WIRE_PARAMETERS_H_
#define WASSERWARP_WIRE_PARAMETERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/parameter_overrides.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::wire {

// Sets the fields of `options` that `params` sets; InvalidArgument for an
// enum value this build does not know. Values are checked later, by the core.
absl::Status ApplyParameters(const v1::ValidationParameters& params, ValidationOptions& options);

// The parameters `options` resolve to, every field set.
v1::ValidationParameters ParametersOf(const ValidationOptions& options);

// The fields `params` sets; InvalidArgument for an enum value this build does not know, and for
// a resampling mode beside a rate.
absl::StatusOr<ParameterOverrides> OverridesFromProto(const v1::ValidationParameters& params);

// The parameters `overrides` set, and only those: OverridesFromProto's inverse.
v1::ValidationParameters ToProto(const ParameterOverrides& overrides);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_PARAMETERS_H_
