// The embedded engine holds a validation to what this machine can hold, as a server holds it
// to its flags: the sizes a command implies are computed and checked before any work
// (wasserwarp/validation_size.h), so that a huge --resample rate is refused, not swapped to
// death.

#ifndef WASSERWARP_CLIENT_EMBEDDED_LIMITS_H_
#define WASSERWARP_CLIENT_EMBEDDED_LIMITS_H_

#include <vector>

#include "absl/status/status.h"
#include "wasserwarp/series.h"
#include "wasserwarp/validation.h"
#include "wasserwarp/validation_size.h"

namespace wasserwarp::cli {

// Runs of at most kMaxResampledSamples samples, and at most three quarters of this machine's
// physical memory; no limit on DP cells, which cost only time.
ValidationLimits EmbeddedLimits(bool html_report);

// Ok, or ResourceExhausted naming the option and this machine's limit.
absl::Status CheckEmbeddedValidation(const std::vector<Series>& simulation,
                                     const std::vector<Series>& reference,
                                     const ValidationOptions& options, bool html_report);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_EMBEDDED_LIMITS_H_
