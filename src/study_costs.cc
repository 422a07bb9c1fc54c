#include "wasserwarp/study_costs.h"

#include <utility>

namespace wasserwarp {

ValidationOptions StudyValidationOptions(const ValidationOptions& options) {
  ValidationOptions study = options;
  study.keep_cost_matrix = true;
  study.simulation_weights.clear();
  study.reference_weights.clear();
  study.verdict.reset();
  study.keep_pooled_cost_matrix = false;
  return study;
}

ValidationOptions ReferenceValidationOptions(const ValidationOptions& study,
                                             const std::vector<std::string>& channels) {
  ValidationOptions references = study;
  references.prepare.channels = channels;
  references.quantities.clear();
  return references;
}

absl::StatusOr<StudyCosts> ComputeStudyCosts(const std::vector<Series>& simulation,
                                             const std::vector<Series>& reference,
                                             const ValidationOptions& options,
                                             ValidationReport* sim_ref_report) {
  const ValidationOptions study = StudyValidationOptions(options);
  absl::StatusOr<ValidationReport> sim_ref = Validate(simulation, reference, study);
  if (!sim_ref.ok()) return sim_ref.status();
  ValidationOptions references = ReferenceValidationOptions(study, sim_ref->channels);
  // The references' pairs are the study's within-group matrix, as the verdict's are; the rest
  // of that validation is not a phase of the study.
  if (study.on_phase) {
    references.on_phase = [&study](ValidationPhase phase) {
      if (phase == ValidationPhase::kCostMatrix) study.on_phase(ValidationPhase::kPooledCostMatrix);
    };
  }
  absl::StatusOr<ValidationReport> ref_ref = Validate(reference, reference, references);
  if (!ref_ref.ok()) return ref_ref.status();
  absl::StatusOr<StudyCosts> costs = StudyCostsOf(*sim_ref, *ref_ref);
  if (costs.ok() && sim_ref_report != nullptr) *sim_ref_report = *std::move(sim_ref);
  return costs;
}

}  // namespace wasserwarp
