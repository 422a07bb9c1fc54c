// The flags that ask `validate` for a verdict and quantities of interest: decision rules,
// the permutation test's size and seed, and "channel:quantity" lists.
#ifndef WASSERWARP_CLIENT_VERDICT_FLAGS_H_
#define WASSERWARP_CLIENT_VERDICT_FLAGS_H_

#include <vector>

#include "absl/status/status.h"
#include "args.h"
#include "flag_definition.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

// --max-distance, --max-ratio, --alpha, --permutations, --seed, --keep-sampling-floor, --qoi.
std::vector<DocumentedFlag> VerdictFlags();

// --qoi LIST alone, for commands that take quantities without a verdict.
extern const FlagDefinition<std::vector<QuantityOfInterest>> kQoiFlag;

// Sets options.verdict when a decision rule or --permutations is given (the permutation test
// and the baseline run only then), and options.quantities from --qoi; checks every value.
absl::Status ReadVerdictFlags(const ParsedArgs& args, ValidationOptions& options);

// The same options as fields of a Validate request.
void AddVerdictToRequest(const ValidationOptions& options, v1::ValidateRequest& request);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VERDICT_FLAGS_H_
