#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/absl_view.h"
#include "verdict/baseline_split.h"
#include "verdict/resampling.h"
#include "verdict/resampling_summary.h"
#include "verdict/subset_distance.h"
#include "wasserwarp/compare.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/transport.h"

namespace wasserwarp {

namespace {

StudyDesign WithoutFixed(StudyDesign design);

// `runs` in the order of `run_ids`; `source` names where they came from, and a run's line
// there when it has one.
absl::StatusOr<StudyDesign> BuildDesign(const std::vector<std::string>& names, bool has_trials,
                                        const std::vector<RunParameters>& runs,
                                        const std::vector<std::string>& run_ids,
                                        absl::string_view source) {
  std::map<std::vector<double>, DesignPoint> points;
  // Per point, the row of the run that first named each trial.
  std::map<std::vector<double>, std::map<std::string, size_t>> trial_rows;
  for (size_t row = 0; row < runs.size(); ++row) {
    const RunParameters& run = runs[row];
    DesignPoint& point = points[run.values];
    point.parameters = run.values;
    point.runs.push_back(row);
    point.trials.push_back(run.trial);
    if (!has_trials) continue;
    const auto [it, inserted] = trial_rows[run.values].emplace(run.trial, row);
    if (inserted) continue;
    const RunParameters& first = runs[it->second];
    const std::string where =
        run.line > 0 ? absl::StrCat(source, ":", run.line) : std::string(source);
    const std::string other = first.line > 0 ? absl::StrCat("line ", first.line)
                                             : absl::StrCat("run \"", run_ids[it->second], "\"");
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": run \"", run_ids[row], "\" names trial \"", run.trial,
                     "\" at the same design point as ", other,
                     "; runs of one point need different random inputs"));
  }
  StudyDesign design;
  design.names = names;
  design.simulation_runs = run_ids.size();
  design.has_trials = has_trials;
  for (auto& [parameters, point] : points) design.points.push_back(std::move(point));
  return WithoutFixed(std::move(design));
}

// A sweep of one parameter with the others written down at their nominal values is the file a
// user writes first: the constant columns become fixed parameters, so that the analyses see the
// axes that vary. A design where nothing varies is left as it is, for the analyses to refuse.
StudyDesign WithoutFixed(StudyDesign design) {
  std::vector<bool> varies(design.names.size(), false);
  for (const DesignPoint& point : design.points) {
    for (size_t i = 0; i < varies.size(); ++i) {
      varies[i] = varies[i] || point.parameters[i] != design.points.front().parameters[i];
    }
  }
  if (std::find(varies.begin(), varies.end(), true) == varies.end()) return design;
  std::vector<std::string> names;
  for (size_t i = 0; i < varies.size(); ++i) {
    if (varies[i]) {
      names.push_back(design.names[i]);
    } else {
      design.fixed.push_back({design.names[i], design.points.front().parameters[i]});
    }
  }
  for (DesignPoint& point : design.points) {
    std::vector<double> kept;
    for (size_t i = 0; i < varies.size(); ++i) {
      if (varies[i]) kept.push_back(point.parameters[i]);
    }
    point.parameters = std::move(kept);
  }
  design.names = std::move(names);
  return design;
}

// The fixed parameter `name` of `design`, if it is one.
const FixedParameter* FindFixed(const StudyDesign& design, const std::string& name) {
  for (const FixedParameter& fixed : design.fixed) {
    if (fixed.name == name) return &fixed;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<StudyDesign> DesignOf(const ParameterTable& table,
                                     const std::vector<std::string>& run_ids) {
  absl::StatusOr<std::vector<RunParameters>> runs = ParametersForRuns(table, run_ids);
  if (!runs.ok()) return runs.status();
  return BuildDesign(table.names, table.has_trials, *runs, run_ids, table.source);
}

absl::StatusOr<StudyDesign> DesignOfNamedRuns(
    const std::vector<std::string>& run_ids,
    const std::vector<std::map<std::string, double>>& parameters,
    const std::vector<std::string>& trials, std::string_view source_view) {
  const absl::string_view source = AbslView(source_view);
  if (run_ids.empty()) return absl::InvalidArgumentError(absl::StrCat(source, ": no runs"));
  std::vector<std::string> names;
  for (const auto& [name, value] : parameters.front()) names.push_back(name);
  if (names.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": simulated run \"", run_ids.front(),
                     "\" carries no parameters; a study needs every run's"));
  }
  const bool has_trials = !trials.front().empty();
  std::vector<RunParameters> runs;
  for (size_t k = 0; k < run_ids.size(); ++k) {
    RunParameters run;
    for (const auto& [name, value] : parameters[k]) {
      if (run.values.size() < names.size() && names[run.values.size()] == name) {
        run.values.push_back(value);
      } else {
        run.values.clear();
        break;
      }
    }
    if (run.values.size() != names.size() || parameters[k].size() != names.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": simulated run \"", run_ids[k], "\" carries the parameters ",
          absl::StrJoin(parameters[k], ", ",
                        [](std::string* out, const auto& entry) { out->append(entry.first); }),
          " but run \"", run_ids.front(), "\" ", absl::StrJoin(names, ", "),
          "; every run of a study needs the same"));
    }
    if (trials[k].empty() == has_trials) {
      const size_t named = has_trials ? 0 : k;
      const size_t unnamed = has_trials ? k : 0;
      return absl::InvalidArgumentError(absl::StrCat(
          source, ": simulated run \"", run_ids[unnamed], "\" names no trial while run \"",
          run_ids[named], "\" does; name every run's random inputs or none"));
    }
    run.trial = trials[k];
    runs.push_back(std::move(run));
  }
  return BuildDesign(names, has_trials, runs, run_ids, source);
}

std::optional<std::vector<std::string>> SharedTrials(const StudyDesign& design,
                                                     const std::vector<size_t>& points) {
  if (!design.has_trials || points.empty()) return std::nullopt;
  std::vector<std::string> shared = design.points[points.front()].trials;
  std::sort(shared.begin(), shared.end());
  for (size_t p : points) {
    std::vector<std::string> trials = design.points[p].trials;
    std::sort(trials.begin(), trials.end());
    if (trials != shared) return std::nullopt;
  }
  return shared;
}

std::optional<size_t> FindPoint(const StudyDesign& design,
                                const std::map<std::string, double>& parameters) {
  size_t fixed_given = 0;
  for (const auto& [name, value] : parameters) {
    const FixedParameter* fixed = FindFixed(design, name);
    if (fixed == nullptr) continue;
    if (fixed->value != value) return std::nullopt;
    ++fixed_given;
  }
  if (parameters.size() != design.names.size() + fixed_given) return std::nullopt;
  std::vector<double> wanted;
  for (const std::string& name : design.names) {
    const auto it = parameters.find(name);
    if (it == parameters.end()) return std::nullopt;
    wanted.push_back(it->second);
  }
  for (size_t p = 0; p < design.points.size(); ++p) {
    if (design.points[p].parameters == wanted) return p;
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<double>> NominalVector(const StudyDesign& design,
                                                  const std::map<std::string, double>& nominal) {
  std::vector<double> values;
  for (const std::string& name : design.names) {
    const auto it = nominal.find(name);
    if (it == nominal.end()) {
      return InvalidFieldError("nominal", absl::StrCat("no value for parameter \"", name, "\""));
    }
    values.push_back(it->second);
  }
  for (const auto& [name, value] : nominal) {
    if (const FixedParameter* fixed = FindFixed(design, name); fixed != nullptr) {
      if (value == fixed->value) continue;
      return InvalidFieldError(
          "nominal", absl::StrCat("parameter \"", name, "\" is fixed at ", fixed->value,
                                  " in the design (every simulated run has it), not ", value));
    }
    if (std::find(design.names.begin(), design.names.end(), name) == design.names.end()) {
      return InvalidFieldError("nominal",
                               absl::StrCat("parameter \"", name, "\" is not in the design (",
                                            absl::StrJoin(design.names, ", "), ")"));
    }
  }
  return values;
}

absl::StatusOr<StudyCosts> StudyCostsOf(const ValidationReport& sim_ref, CostMatrix ref_ref,
                                        uint64_t ref_ref_cells) {
  if (!sim_ref.cost_matrix.has_value()) {
    return absl::InvalidArgumentError("a study needs the validation's cost matrix");
  }
  // The design holds every simulated run; references left out only drop out of the baseline.
  for (const UntriggeredRun& run : sim_ref.untriggered) {
    if (run.side != "simulation") continue;
    return InvalidFieldError(
        "skip_untriggered",
        absl::StrCat("a study needs every simulated run of its design, and the event window "
                     "left out simulated run \"",
                     run.id, "\""));
  }
  StudyCosts costs;
  costs.sim_ref = *sim_ref.cost_matrix;
  if (ref_ref.rows != costs.sim_ref.cols || ref_ref.cols != costs.sim_ref.cols) {
    return absl::InvalidArgumentError(absl::StrCat("the references' matrix is ", ref_ref.rows,
                                                   " x ", ref_ref.cols, " for ", costs.sim_ref.cols,
                                                   " reference runs"));
  }
  costs.ref_ref = std::move(ref_ref);
  for (const RunSummary& run : sim_ref.simulation) costs.simulation_ids.push_back(run.id);
  for (const RunSummary& run : sim_ref.reference) costs.reference_ids.push_back(run.id);
  costs.quantities = sim_ref.quantities;
  costs.dp_cells = sim_ref.dp_cells + ref_ref_cells;
  costs.seconds = sim_ref.seconds;
  return costs;
}

absl::Status ValidateStudyOptions(const StudyOptions& options) {
  if (absl::Status status = ValidateOrder(options.order); !status.ok()) return status;
  if (options.resamples < 1 || options.resamples > kMaxResamples) {
    return InvalidFieldError("resamples", absl::StrCat("must be from 1 to ", kMaxResamples,
                                                       ", got ", options.resamples));
  }
  if (options.splits < 1 || options.splits > kMaxResamples) {
    return InvalidFieldError(
        "splits", absl::StrCat("must be from 1 to ", kMaxResamples, ", got ", options.splits));
  }
  if (!(options.confidence > 0.0 && options.confidence < 1.0)) {
    return InvalidFieldError("confidence",
                             absl::StrCat("must be in (0, 1), got ", options.confidence));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<double>> ReferenceBaseline(const StudyCosts& costs,
                                                        const StudyOptions& options) {
  const size_t m = costs.ref_ref.rows;
  if (m < 2) return std::optional<double>();
  const size_t half = m / 2;
  const auto splits = static_cast<size_t>(options.splits);
  std::vector<double> within(splits);
  VerdictContext context;
  context.max_threads = options.max_threads;
  context.cancel = options.cancel;
  context.progress = options.progress;
  resampling::ResampleLoop loop(context, splits);
  absl::Status status = loop.Run(splits, 1, [&](size_t k) -> absl::Status {
    const resampling::BaselineSplit split =
        resampling::DrawBaselineSplit(options.seed, k, 0, 0, m, half);
    absl::StatusOr<double> w = resampling::SubsetDistance(costs.ref_ref, split.references_a, {},
                                                          split.references_b, {}, options.order);
    if (!w.ok()) return w.status();
    within[k] = *w;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return std::optional<double>(resampling::Summarise(std::move(within)).median);
}

StudySummary SummaryOf(const StudyCosts& costs, const StudyOptions& options,
                       std::chrono::steady_clock::time_point start) {
  StudySummary summary;
  summary.simulation_runs = static_cast<int>(costs.sim_ref.rows);
  summary.reference_runs = static_cast<int>(costs.sim_ref.cols);
  summary.resamples = options.resamples;
  summary.confidence = options.confidence;
  summary.seed = options.seed;
  summary.dp_cells = costs.dp_cells;
  summary.seconds = costs.seconds +
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return summary;
}

absl::StatusOr<double> PointDistance(const StudyCosts& costs, const DesignPoint& point,
                                     double order) {
  return resampling::SubsetDistance(costs.sim_ref, point.runs, {},
                                    resampling::IndexRange(0, costs.sim_ref.cols), {}, order);
}

}  // namespace wasserwarp
