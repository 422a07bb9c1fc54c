#include "wasserwarp/study_costs.h"

#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

#include "wasserwarp/prepare.h"
#include "wasserwarp/twed.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

// The channel map for references against themselves: every channel under its reference name,
// converted to the mapping's unit as the validation converted it.
std::vector<ChannelMapping> ReferenceSideMap(std::vector<ChannelMapping> channel_map) {
  for (ChannelMapping& mapping : channel_map) mapping.simulation = mapping.reference;
  return channel_map;
}

}  // namespace

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
  references.prepare.channel_map = ReferenceSideMap(references.prepare.channel_map);
  references.quantities.clear();
  return references;
}

absl::StatusOr<StudyCosts> ComputeStudyCosts(const RunsView& simulation, const RunsView& reference,
                                             const ValidationOptions& options,
                                             ValidationReport* sim_ref_report) {
  const auto start = std::chrono::steady_clock::now();
  const ValidationOptions study = StudyValidationOptions(options);
  absl::StatusOr<ValidationReport> sim_ref = Validate(simulation, reference, study);
  if (!sim_ref.ok()) return sim_ref.status();
  // The references as that validation prepared them (their preparation depends on them and the
  // options only), each pair once, as the verdict's within-group matrix is computed.
  PrepareOptions prepare = study.prepare;
  prepare.channels = sim_ref->channels;
  prepare.channel_map = ReferenceSideMap(prepare.channel_map);
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns(reference, reference, prepare);
  if (!prepared.ok()) return prepared.status();
  if (study.on_phase) study.on_phase(ValidationPhase::kPooledCostMatrix);
  absl::StatusOr<CostMatrix> ref_ref =
      ComputePooledCostMatrix({}, prepared->reference, study.twed, study.compute);
  if (!ref_ref.ok()) return ref_ref.status();
  uint64_t cells = 0;
  const std::vector<Series>& runs = prepared->reference;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t j = i + 1; j < runs.size(); ++j) cells += TwedCells(runs[i], runs[j]);
  }
  absl::StatusOr<StudyCosts> costs = StudyCostsOf(*sim_ref, *std::move(ref_ref), cells);
  if (!costs.ok()) return costs.status();
  costs->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (sim_ref_report != nullptr) *sim_ref_report = *std::move(sim_ref);
  return costs;
}

}  // namespace wasserwarp
