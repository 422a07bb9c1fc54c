// The stable JSON forms of parameter studies (snake_case keys), written by `wasserwarp
// sensitivity --json` and `wasserwarp identify --json`. Parameter vectors are objects keyed by
// parameter name; numbers round-trip exactly; a value that cannot be estimated is null.

#ifndef WASSERWARP_STUDY_JSON_H_
#define WASSERWARP_STUDY_JSON_H_

#include <string>

#include "wasserwarp/identification.h"
#include "wasserwarp/sensitivity.h"

namespace wasserwarp {

// {"sensitivity": {nominal, distance_nominal, parameters: [{name, deltas, derivative,
// derivative_interval, second_derivative, remainder, normalised, variance_gain, pays_off,
// flagged, ...}], quantities: [...], ...}}.
std::string SensitivityToJson(const SensitivityReport& report, int indent = 2);

// {"identify": {points: [{parameters, runs, distance}], surface: {coefficients, r_squared,
// convex, ...}, identified, std, interval, on_boundary, nominal_difference, groups,
// predicted_distance, baseline_ref_ref_median, ...}}.
std::string IdentificationToJson(const IdentificationReport& report, int indent = 2);

}  // namespace wasserwarp

#endif  // WASSERWARP_STUDY_JSON_H_
