// How a parameter study's costs are computed: two validations, of every simulated run against
// the references and of the references against themselves, each keeping its cost matrix. The
// CLI sends the same two to a server, so that both give the same numbers.

#ifndef WASSERWARP_STUDY_COSTS_H_
#define WASSERWARP_STUDY_COSTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/series.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {

// `options` for the simulation-reference validation: the cost matrix kept; no weights (each
// design point weighs its runs alike), no verdict.
ValidationOptions StudyValidationOptions(const ValidationOptions& options);

// For the reference-reference validation, after the first: its options on exactly the
// `channels` the first compared, without quantities.
ValidationOptions ReferenceValidationOptions(const ValidationOptions& study,
                                             const std::vector<std::string>& channels);

// The two validations here, and StudyCostsOf them; the first's report goes to `sim_ref` when
// given.
absl::StatusOr<StudyCosts> ComputeStudyCosts(const std::vector<Series>& simulation,
                                             const std::vector<Series>& reference,
                                             const ValidationOptions& options,
                                             ValidationReport* sim_ref = nullptr);

}  // namespace wasserwarp

#endif  // WASSERWARP_STUDY_COSTS_H_
