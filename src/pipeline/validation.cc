#include "wasserwarp/validation.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "pipeline/lazy_transport.h"
#include "pipeline/path_choice.h"
#include "pipeline/validation_bands.h"
#include "pipeline/validation_iso18571.h"
#include "pipeline/validation_pairs.h"
#include "series/sampling_rate.h"
#include "wasserwarp/engine_info.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/request_digest.h"

namespace wasserwarp {
namespace {

// `triggers` is empty without a window, else one per run.
std::vector<RunSummary> SummariseRuns(const std::vector<Series>& runs,
                                      const std::vector<double>& weights,
                                      const std::vector<double>& triggers) {
  std::vector<RunSummary> summaries;
  summaries.reserve(runs.size());
  for (size_t i = 0; i < runs.size(); ++i) {
    RunSummary summary;
    summary.id = runs[i].id;
    summary.samples = runs[i].samples();
    summary.weight = weights[i];
    if (!triggers.empty()) summary.trigger_time = triggers[i];
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

// `weights` (empty: uniform) without those of the runs of `side` that the window left out.
std::vector<double> KeptWeights(const std::vector<double>& weights,
                                const std::vector<UntriggeredRun>& untriggered,
                                std::string_view side) {
  if (weights.empty()) return weights;
  std::vector<bool> left_out(weights.size(), false);
  for (const UntriggeredRun& run : untriggered) {
    if (run.side == side && run.index < weights.size()) left_out[run.index] = true;
  }
  std::vector<double> kept;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!left_out[i]) kept.push_back(weights[i]);
  }
  return kept;
}

// The quantities of interest on the runs as the window cut them when there is one (PrepareRuns
// kept them), with the weights of the runs it kept.
absl::StatusOr<std::vector<QuantityComparison>> QuantitiesOf(const RunsView& simulation,
                                                             const RunsView& reference,
                                                             const PreparedRuns& prepared,
                                                             const ValidationOptions& options) {
  return CompareQuantities(RunsAsCut(prepared.windowed_simulation, simulation),
                           options.simulation_weights,
                           RunsAsCut(prepared.windowed_reference, reference),
                           options.reference_weights, options.quantities, options.prepare.align);
}

absl::Status CheckNotCancelled(const CancellationToken* cancel) {
  if (cancel != nullptr && cancel->cancelled()) {
    return absl::CancelledError("validation cancelled");
  }
  return absl::OkStatus();
}

// What a reader of the verdict must know to judge it.
std::vector<std::string> VerdictWarnings(const PreparedRuns& runs, const ValidationOptions& options,
                                         const std::optional<double>& grid_rate) {
  std::vector<std::string> warnings;
  if (grid_rate.has_value()) {
    const GroupRates rates = MedianRates(runs.simulation, runs.reference);
    warnings.push_back(absl::StrFormat(
        "simulated runs are sampled at %.4g Hz and reference runs at %.4g Hz (medians); TWED sums "
        "its costs per sample, so the permutation test and the baseline were computed on every "
        "run thinned to %.4g Hz (the measured sample nearest each grid time), while W and the "
        "plan are on the runs as given",
        rates.simulation, rates.reference, *grid_rate));
  }
  if (!options.simulation_weights.empty() || !options.reference_weights.empty()) {
    warnings.push_back(
        "the permutation test and the baseline weigh every run equally; only max_distance judges "
        "the weighted distance");
  }
  return warnings;
}

// The runs of `runs` thinned to the verdict's rate.
PreparedRuns OnVerdictGrid(const PreparedRuns& runs, double rate) {
  PreparedRuns thinned = runs;
  for (Series& run : thinned.simulation) run = ThinToRate(run, rate);
  for (Series& run : thinned.reference) run = ThinToRate(run, rate);
  return thinned;
}

uint64_t PairCells(const std::vector<Series>& a, const std::vector<Series>& b) {
  uint64_t cells = 0;
  for (const Series& x : a) {
    for (const Series& y : b) cells += TwedCells(x, y);
  }
  return cells;
}

uint64_t WithinGroupCells(const std::vector<Series>& group) {
  uint64_t cells = 0;
  for (size_t i = 0; i < group.size(); ++i) {
    for (size_t j = i + 1; j < group.size(); ++j) cells += TwedCells(group[i], group[j]);
  }
  return cells;
}

// The pooled matrix of the verdict's runs, from the source when there is one.
absl::StatusOr<CostMatrix> PooledCosts(const ValidationRuns& all, const CostMatrix& sim_ref,
                                       const ValidationOptions& options) {
  const bool on_grid = all.verdict_runs.has_value();
  const PreparedRuns& runs = on_grid ? *all.verdict_runs : all.prepared;
  CostMatrixSource* source = options.cost_source;
  if (source == nullptr) {
    return ComputePooledCostMatrix(runs.simulation, runs.reference, options.twed, options.compute,
                                   on_grid ? nullptr : &sim_ref);
  }
  const auto compute = [&](CostMatrixKind kind) {
    return source->Compute(kind, all, options.twed, options.compute);
  };
  std::optional<CostMatrix> grid_sim_ref;
  if (on_grid) {
    absl::StatusOr<CostMatrix> costs = compute(CostMatrixKind::kVerdictSimulationReference);
    if (!costs.ok()) return costs.status();
    grid_sim_ref = *std::move(costs);
  }
  absl::StatusOr<CostMatrix> sim_sim = compute(CostMatrixKind::kSimulationSimulation);
  if (!sim_sim.ok()) return sim_sim.status();
  absl::StatusOr<CostMatrix> ref_ref = compute(CostMatrixKind::kReferenceReference);
  if (!ref_ref.ok()) return ref_ref.status();
  return AssemblePooledCostMatrix(on_grid ? *grid_sim_ref : sim_ref, *sim_sim, *ref_ref);
}

// On the verdict's grid when there is one, on which every pair is computed again; otherwise on
// the runs as prepared, whose sim-ref block is `sim_ref`.
absl::StatusOr<Verdict> DecideOnPooledRuns(const ValidationRuns& all, const CostMatrix& sim_ref,
                                           double distance, double order,
                                           const ValidationOptions& options,
                                           std::optional<CostMatrix>& kept_pooled,
                                           uint64_t& dp_cells) {
  const auto enter = [&](ValidationPhase phase) {
    if (options.on_phase) options.on_phase(phase);
  };
  enter(ValidationPhase::kPooledCostMatrix);
  const PreparedRuns& prepared = all.prepared;
  const std::optional<double>& grid_rate = all.verdict_grid_rate;
  const PreparedRuns& runs = all.verdict_runs.has_value() ? *all.verdict_runs : prepared;
  if (all.verdict_runs.has_value()) dp_cells += PairCells(runs.simulation, runs.reference);
  absl::StatusOr<CostMatrix> pooled = PooledCosts(all, sim_ref, options);
  if (!pooled.ok()) return pooled.status();
  dp_cells += WithinGroupCells(runs.simulation) + WithinGroupCells(runs.reference);

  const VerdictOptions& verdict_options = *options.verdict;
  const bool subtract_floor = verdict_options.subtract_sampling_floor && options.twed.lambda > 0;
  if (options.keep_pooled_cost_matrix) kept_pooled = *pooled;
  if (subtract_floor) {
    std::vector<uint64_t> samples;
    for (const Series& run : runs.simulation) samples.push_back(run.samples());
    for (const Series& run : runs.reference) samples.push_back(run.samples());
    SubtractSamplingFloor(samples, options.twed.lambda, *pooled);
  }

  enter(ValidationPhase::kResampling);
  VerdictContext context;
  context.max_threads = options.compute.max_threads;
  context.cancel = options.compute.cancel;
  context.progress = options.verdict_progress;
  context.progress_interval_ms = options.compute.progress_interval_ms;
  absl::StatusOr<Verdict> verdict =
      DecideVerdict(*pooled, runs.simulation.size(), distance, order, verdict_options, context);
  if (!verdict.ok()) return verdict.status();
  verdict->sampling_floor_subtracted = subtract_floor;
  verdict->resample_rate = grid_rate.has_value() ? grid_rate : options.prepare.resample_rate;
  verdict->same_grid_as_distance = !grid_rate.has_value();
  std::vector<std::string> warnings = VerdictWarnings(prepared, options, grid_rate);
  verdict->warnings.insert(verdict->warnings.begin(), warnings.begin(), warnings.end());
  return verdict;
}

// Whether the sim-ref matrix must be computed whole: it is kept, the verdict pools it, or a
// source computes it. Otherwise the lazy transport gives the same W from the pairs that matter.
bool NeedsFullMatrix(const ValidationOptions& options) {
  return options.exhaustive || options.keep_cost_matrix || options.verdict.has_value() ||
         options.cost_source != nullptr;
}

// The transport problem between the simulated and the reference runs: checked before the
// costs are computed, solved after.
TransportOptions TransportOptionsOf(const ValidationOptions& options) {
  TransportOptions transport;
  transport.order = options.order;
  transport.row_weights = options.simulation_weights;
  transport.col_weights = options.reference_weights;
  return transport;
}

// The simulation x reference transport and what it took: the full matrix where the options ask
// for it, else the pairs the lazy solve needs; counted as ValidationReport counts them.
struct SolvedPairs {
  TransportResult transport;
  std::optional<CostMatrix> costs;  // only where NeedsFullMatrix
  uint64_t dp_cells = 0;
  uint64_t dp_cells_full = 0;
  uint64_t pairs_computed = 0;
  uint64_t pairs_total = 0;
  uint64_t int16_cells = 0;
  uint64_t single_cells = 0;
  std::string path = "exhaustive";
  uint64_t transport_solves = 1;
};

absl::StatusOr<SolvedPairs> SolvePairs(const ValidationRuns& all, const ValidationOptions& options,
                                       absl::FunctionRef<void(ValidationPhase)> enter) {
  const PreparedRuns& runs = all.prepared;
  SolvedPairs solved;
  // The lazy rounds where the TWEDs they can leave out cost more than the solves they add
  // (pipeline/path_choice.h); the same W either way.
  if (!NeedsFullMatrix(options) &&
      LazyPathPays(runs.simulation, runs.reference, TransportOptionsOf(options))) {
    absl::StatusOr<LazyTransportResult> lazy =
        SolveLazyTransport(runs.simulation, runs.reference, options.twed,
                           TransportOptionsOf(options), options.compute);
    if (!lazy.ok()) return lazy.status();
    solved.dp_cells = lazy->stats.dp_cells;
    solved.dp_cells_full = lazy->stats.dp_cells_full;
    solved.pairs_computed = lazy->stats.pairs_computed;
    solved.pairs_total = lazy->stats.pairs_total;
    solved.int16_cells = lazy->stats.int16_cells;
    solved.single_cells = lazy->stats.single_cells;
    solved.path = lazy->stats.exhaustive ? "exhaustive" : "lazy";
    solved.transport_solves = static_cast<uint64_t>(lazy->stats.rounds);
    // The transport was solved along with the costs; its phase is entered for the order.
    enter(ValidationPhase::kTransport);
    solved.transport = std::move(lazy->transport);
    return solved;
  }
  absl::StatusOr<CostMatrix> computed =
      options.cost_source != nullptr
          ? options.cost_source->Compute(CostMatrixKind::kSimulationReference, all, options.twed,
                                         options.compute)
          : ComputeCostMatrix(runs.simulation, runs.reference, options.twed, options.compute);
  if (!computed.ok()) return computed.status();
  solved.dp_cells_full = PairCells(runs.simulation, runs.reference);
  solved.dp_cells = solved.dp_cells_full;
  solved.pairs_total = runs.simulation.size() * runs.reference.size();
  solved.pairs_computed = solved.pairs_total;
  enter(ValidationPhase::kTransport);
  absl::StatusOr<TransportResult> transport =
      SolveTransport(*computed, TransportOptionsOf(options));
  if (!transport.ok()) return transport.status();
  solved.transport = *std::move(transport);
  solved.costs = *std::move(computed);
  return solved;
}

}  // namespace

absl::Status ValidateValidationOptions(const ValidationOptions& options, size_t simulation_runs,
                                       size_t reference_runs) {
  if (absl::Status status = ValidateTwedParams(options.twed); !status.ok()) return status;
  if (absl::Status status = ValidateResampleRate(options.prepare.resample_rate); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateEventWindow(options.prepare.window); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateChannelMap(options.prepare.channel_map); !status.ok()) {
    return status;
  }
  if (absl::Status status =
          ValidateTransportOptions(TransportOptionsOf(options), simulation_runs, reference_runs);
      !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateToleranceBands(options.bands); !status.ok()) return status;
  if (!options.verdict.has_value()) return absl::OkStatus();
  if (options.verdict->band_min_inside.has_value() && options.bands.empty()) {
    return InvalidFieldError("band_min_inside", "judges tolerance bands: give at least one band");
  }
  return ValidateVerdictOptions(*options.verdict);
}

bool RatesIso18571(const ValidationOptions& options) {
  return options.iso18571 ||
         (options.verdict.has_value() && options.verdict->min_iso_rating.has_value());
}

absl::StatusOr<ValidationRuns> PrepareValidationRuns(const RunsView& simulation,
                                                     const RunsView& reference,
                                                     const ValidationOptions& options) {
  absl::StatusOr<PreparedRuns> prepared = PrepareRuns(simulation, reference, options.prepare);
  if (!prepared.ok()) return prepared.status();
  ValidationRuns runs;
  runs.prepared = *std::move(prepared);
  if (options.verdict.has_value()) {
    absl::StatusOr<std::optional<double>> rate = VerdictGridRate(
        MedianRates(runs.prepared.simulation, runs.prepared.reference), options.prepare);
    if (!rate.ok()) return rate.status();
    runs.verdict_grid_rate = *rate;
    if (rate->has_value()) runs.verdict_runs = OnVerdictGrid(runs.prepared, **rate);
  }
  return runs;
}

std::vector<CostMatrixKind> CostMatricesOf(const ValidationRuns& runs,
                                           const ValidationOptions& options) {
  std::vector<CostMatrixKind> kinds{CostMatrixKind::kSimulationReference};
  if (!options.verdict.has_value()) return kinds;
  if (runs.verdict_runs.has_value()) kinds.push_back(CostMatrixKind::kVerdictSimulationReference);
  kinds.push_back(CostMatrixKind::kSimulationSimulation);
  kinds.push_back(CostMatrixKind::kReferenceReference);
  return kinds;
}

absl::StatusOr<MatrixRuns> RunsOf(const ValidationRuns& runs, CostMatrixKind kind) {
  const bool on_grid =
      kind != CostMatrixKind::kSimulationReference && runs.verdict_runs.has_value();
  if (kind == CostMatrixKind::kVerdictSimulationReference && !on_grid) {
    return absl::FailedPreconditionError(
        "the verdict of this validation is on the runs as prepared: there is no matrix on a "
        "verdict grid");
  }
  const PreparedRuns& prepared = on_grid ? *runs.verdict_runs : runs.prepared;
  switch (kind) {
    case CostMatrixKind::kSimulationReference:
    case CostMatrixKind::kVerdictSimulationReference:
      return MatrixRuns{&prepared.simulation, &prepared.reference};
    case CostMatrixKind::kSimulationSimulation:
      return MatrixRuns{&prepared.simulation, &prepared.simulation};
    case CostMatrixKind::kReferenceReference:
      return MatrixRuns{&prepared.reference, &prepared.reference};
  }
  return absl::InvalidArgumentError("unknown cost matrix kind");
}

absl::StatusOr<ValidationReport> Validate(const RunsView& simulation, const RunsView& reference,
                                          const ValidationOptions& given) {
  const auto start = std::chrono::steady_clock::now();
  if (absl::Status status = ValidateValidationOptions(given, simulation.size(), reference.size());
      !status.ok()) {
    return status;
  }
  const auto enter = [&](ValidationPhase phase) {
    if (given.on_phase) given.on_phase(phase);
  };
  enter(ValidationPhase::kPreparing);
  absl::StatusOr<ValidationRuns> all = PrepareValidationRuns(simulation, reference, given);
  if (!all.ok()) return all.status();
  const PreparedRuns* runs = &all->prepared;
  // The weights of the runs a window left out go with them.
  ValidationOptions options = given;
  options.simulation_weights =
      KeptWeights(given.simulation_weights, runs->untriggered, "simulation");
  options.reference_weights = KeptWeights(given.reference_weights, runs->untriggered, "reference");
  // Quantities of interest are cheap and may name a missing channel: they go before the costs.
  std::vector<QuantityComparison> quantities;
  if (!options.quantities.empty()) {
    absl::StatusOr<std::vector<QuantityComparison>> compared =
        QuantitiesOf(simulation, reference, *runs, options);
    if (!compared.ok()) return compared.status();
    quantities = *std::move(compared);
  }
  absl::StatusOr<std::vector<size_t>> band_channels = BandChannels(options.bands, runs->channels);
  if (!band_channels.ok()) return band_channels.status();

  enter(ValidationPhase::kCostMatrix);
  ValidationReport report;
  absl::StatusOr<SolvedPairs> solved = SolvePairs(*all, options, enter);
  if (!solved.ok()) return solved.status();
  report.dp_cells = solved->dp_cells;
  report.dp_cells_full = solved->dp_cells_full;
  report.pairs_computed = solved->pairs_computed;
  report.pairs_total = solved->pairs_total;
  report.int16_cells = solved->int16_cells;
  report.single_cells = solved->single_cells;
  report.path = solved->path;
  report.transport_solves = solved->transport_solves;
  std::optional<CostMatrix>& costs = solved->costs;
  TransportResult& transport = solved->transport;
  if (absl::Status status = CheckNotCancelled(options.compute.cancel); !status.ok()) {
    return status;
  }

  enter(ValidationPhase::kDiagnostics);
  absl::StatusOr<std::vector<PairDiagnostics>> pairs =
      DiagnosePairs(*runs, transport.plan, options.twed, options.compute);
  if (!pairs.ok()) return pairs.status();
  report.bands = ScoreBands(*runs, transport.plan, options.bands, *band_channels, options.compute);
  report.tolerance_bands = options.bands;

  if (options.verdict.has_value()) {
    absl::StatusOr<Verdict> verdict =
        DecideOnPooledRuns(*all, *costs, transport.distance, transport.order, options,
                           report.pooled_cost_matrix, report.dp_cells);
    if (!verdict.ok()) return verdict.status();
    if (options.verdict->band_min_inside.has_value()) {
      AddVerdictRule(BandRule(report.bands, *options.verdict->band_min_inside), *verdict);
    }
    report.verdict = *std::move(verdict);
  }
  report.pair_metrics = MeasurePairs(*runs, transport.plan, options.compute);
  report.pair_metrics_average =
      PlanWeightedMetrics(report.pair_metrics, transport.plan, runs->channels.size());
  if (RatesIso18571(options)) {
    PlanIso18571 iso = RatePlanPairs(*runs, transport.plan, options.compute.max_threads);
    if (report.verdict.has_value() && options.verdict->min_iso_rating.has_value()) {
      AddVerdictRule(MinIsoRatingRule(iso.averages, *options.verdict->min_iso_rating),
                     *report.verdict);
    }
    report.iso18571 = std::move(iso.pairs);
    report.iso18571_average = std::move(iso.averages);
    report.iso18571_warnings = std::move(iso.warnings);
  }
  report.quantities = std::move(quantities);
  report.distance = transport.distance;
  report.order = transport.order;
  report.solver = transport.solver;
  report.twed = options.twed;
  report.align = options.prepare.align;
  report.scale = options.prepare.scale;
  report.resample_rate = options.prepare.resample_rate;
  report.resampling = options.prepare.resampling;
  report.channels = runs->channels;
  report.channel_units = runs->units;
  report.simulation_channels = runs->simulation_channels;
  report.channel_map = options.prepare.channel_map;
  report.unit_warnings = runs->unit_notes;
  report.simulation =
      SummariseRuns(runs->simulation, transport.row_weights, runs->simulation_triggers);
  report.reference =
      SummariseRuns(runs->reference, transport.col_weights, runs->reference_triggers);
  report.plan = std::move(transport.plan);
  report.sim_contributions = std::move(transport.row_contributions);
  report.ref_contributions = std::move(transport.col_contributions);
  report.pairs = *std::move(pairs);
  report.certificate = std::move(transport.certificate);
  report.weight_rounding_bound = transport.weight_rounding_bound;
  if (options.keep_cost_matrix) report.cost_matrix = std::move(costs);
  report.window = options.prepare.window;
  report.untriggered = runs->untriggered;
  // What the report is evidence of, the same wherever it is computed; labels and run sources are
  // the front end's to add.
  report.engine = ThisEngine();
  report.request_digest = RequestDigest(given, simulation, reference);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace wasserwarp
