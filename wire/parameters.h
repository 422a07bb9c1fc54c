// ValidationParameters, the parameters a session's defaults and a call's overrides set, their
// plain form ParameterOverrides, and the core's ValidationOptions: translated field by field
// from one table (parameters.cc).

#ifndef WASSERWARP_WIRE_PARAMETERS_H_
#define WASSERWARP_WIRE_PARAMETERS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"
#include "wire/session_resource.h"

namespace wasserwarp::wire {

// Copies every field set in `overrides` over `base`; repeated `channels`
// replace the base's when non-empty, enums when not UNSPECIFIED.
void MergeParameters(const v1::ValidationParameters& overrides, v1::ValidationParameters& base);

// Sets the fields of `options` that `params` sets; InvalidArgument for an
// enum value this build does not know. Values are checked later, by the core.
absl::Status ApplyParameters(const v1::ValidationParameters& params, ValidationOptions& options);

// The parameters `options` resolve to, every field set.
v1::ValidationParameters ParametersOf(const ValidationOptions& options);

// The fields `params` sets; InvalidArgument for an enum value this build does not know.
absl::StatusOr<ParameterOverrides> OverridesFromProto(const v1::ValidationParameters& params);

// The parameters `overrides` set, and only those: OverridesFromProto's inverse.
v1::ValidationParameters ToProto(const ParameterOverrides& overrides);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_PARAMETERS_H_
