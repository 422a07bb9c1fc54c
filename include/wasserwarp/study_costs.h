// How a parameter study's costs are computed: a validation of every simulated run against the
// references, keeping its cost matrix, and the matrix of the references against each other.
// The server runs the same function for a study, so that both give the same numbers.

#ifndef WASSERWARP_STUDY_COSTS_H_
#define WASSERWARP_STUDY_COSTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/validation.h"

namespace wasserwarp {

// `options` for the simulation-reference validation: the cost matrix kept; no weights (each
// design point weighs its runs alike), no verdict.
ValidationOptions StudyValidationOptions(const ValidationOptions& options);

// The references against themselves as a validation would compute them, on exactly the
// `channels` the first compared and without quantities: what bounds that matrix's size.
ValidationOptions ReferenceValidationOptions(const ValidationOptions& study,
                                             const std::vector<std::string>& channels);

// The validation and the references' matrix here (its pairs i < j, as the verdict's), and
// StudyCostsOf them; the validation's report goes to `sim_ref` when given.
absl::StatusOr<StudyCosts> ComputeStudyCosts(const RunsView& simulation, const RunsView& reference,
                                             const ValidationOptions& options,
                                             ValidationReport* sim_ref = nullptr);

}  // namespace wasserwarp

#endif  // WASSERWARP_STUDY_COSTS_H_
