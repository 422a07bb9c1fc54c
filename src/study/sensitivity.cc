// Each resample yields the derivative twice: from points resampled on their own and from points
// resampled by shared trials. The spread of the first over that of the second is the variance
// gain of pairing, measured on the data rather than assumed.

#include "wasserwarp/sensitivity.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "study/study_draws.h"
#include "verdict/baseline_split.h"
#include "verdict/bootstrap_interval.h"
#include "verdict/resampling.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

// The points along one parameter's axis through the nominal point, by ascending deviation.
struct Axis {
  size_t parameter = 0;
  std::vector<size_t> points;  // without the nominal point
  std::vector<double> deltas;
  std::optional<std::vector<std::string>> shared_trials;  // over the points and the nominal
  size_t compared = 0;  // index into points of the remainder's point
};

// The index (into deltas) of the nearest forward deviation, else the nearest backward one.
size_t ComparedPoint(const std::vector<double>& deltas) {
  const auto forward = std::upper_bound(deltas.begin(), deltas.end(), 0.0);
  if (forward != deltas.end()) return static_cast<size_t>(forward - deltas.begin());
  return deltas.size() - 1;
}

std::vector<Axis> AxesOf(const StudyDesign& design, size_t nominal) {
  const std::vector<double>& h0 = design.points[nominal].parameters;
  std::vector<Axis> axes;
  for (size_t k = 0; k < design.names.size(); ++k) {
    Axis axis;
    axis.parameter = k;
    std::vector<std::pair<double, size_t>> along;
    for (size_t p = 0; p < design.points.size(); ++p) {
      const std::vector<double>& h = design.points[p].parameters;
      bool on_axis = h[k] != h0[k];
      for (size_t j = 0; j < h.size() && on_axis; ++j) on_axis = j == k || h[j] == h0[j];
      if (on_axis) along.emplace_back(h[k] - h0[k], p);
    }
    if (along.empty()) continue;
    std::sort(along.begin(), along.end());
    for (const auto& [delta, p] : along) {
      axis.deltas.push_back(delta);
      axis.points.push_back(p);
    }
    std::vector<size_t> all = axis.points;
    all.push_back(nominal);
    axis.shared_trials = SharedTrials(design, all);
    axis.compared = ComparedPoint(axis.deltas);
    axes.push_back(std::move(axis));
  }
  return axes;
}

absl::StatusOr<size_t> NominalPoint(const StudyDesign& design,
                                    const std::map<std::string, double>& nominal) {
  absl::StatusOr<std::vector<double>> vector = NominalVector(design, nominal);
  if (!vector.ok()) return vector.status();
  const std::optional<size_t> point = FindPoint(design, nominal);
  if (!point.has_value()) {
    return InvalidFieldError("nominal",
                             "no simulated run has exactly these parameter values; sensitivity "
                             "needs runs at the nominal point");
  }
  return *point;
}

double Mean(const std::vector<double>& values) {
  double sum = 0.0;
  for (double value : values) sum += value;
  return sum / static_cast<double>(values.size());
}

// The statistic of one quantity at one point: its AVM against the references or its mean.
double QuantityStatistic(const QuantityComparison& quantity, const DesignPoint& point, bool avm) {
  std::vector<double> values;
  for (size_t row : point.runs) values.push_back(quantity.sim_values[row]);
  return avm ? AreaValidationMetric(values, {}, quantity.ref_values, {}) : Mean(values);
}

double VarianceGain(double independent, double paired) {
  if (paired > 0.0) return independent / paired;
  return independent > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
}

// The resampled W of every point an axis uses, independent and paired.
struct ResampledAxis {
  std::vector<double> independent;  // derivative per resample
  std::vector<double> paired;
  std::vector<double> nominal;   // W at the nominal point, independent
  std::vector<double> compared;  // W at the compared point, independent
};

}  // namespace

double ParameterSensitivity::change_at_smallest_deviation() const {
  double smallest = std::numeric_limits<double>::infinity();
  double change = 0.0;
  for (size_t k = 0; k < deltas.size() && k < changes.size(); ++k) {
    const double size = std::abs(deltas[k]);
    if (size < smallest) {
      smallest = size;
      change = std::abs(changes[k]);
    } else if (size == smallest) {
      change = std::max(change, std::abs(changes[k]));
    }
  }
  return change;
}

bool SensitivityReport::flagged() const {
  return std::any_of(parameters.begin(), parameters.end(),
                     [](const ParameterSensitivity& p) { return p.flagged; });
}

DerivativeEstimate EstimateDerivative(double h0, double f0, const std::vector<double>& deltas,
                                      const std::vector<double>& values) {
  DerivativeEstimate estimate;
  const auto forward = std::upper_bound(deltas.begin(), deltas.end(), 0.0);
  const size_t plus = static_cast<size_t>(forward - deltas.begin());
  const bool has_plus = plus < deltas.size();
  const bool has_minus = plus > 0;
  if (has_plus && has_minus) {
    const double a = -deltas[plus - 1];
    const double b = deltas[plus];
    const double fm = values[plus - 1];
    const double fp = values[plus];
    const double denominator = a * b * (a + b);
    estimate.scheme = "central";
    estimate.derivative = (a * a * fp - b * b * fm - (a * a - b * b) * f0) / denominator;
    estimate.second_derivative = 2.0 * (a * fp + b * fm - (a + b) * f0) / denominator;
    estimate.remainder = fp - f0 - estimate.derivative * b;
  } else {
    // The nearest deviation, and the next one on the same side when there is one.
    const size_t near = has_plus ? plus : deltas.size() - 1;
    const std::optional<size_t> far =
        has_plus ? (near + 1 < deltas.size() ? std::optional<size_t>(near + 1) : std::nullopt)
                 : (near > 0 ? std::optional<size_t>(near - 1) : std::nullopt);
    const double d1 = deltas[near];
    estimate.scheme = has_plus ? "forward" : "backward";
    estimate.derivative = (values[near] - f0) / d1;
    if (far.has_value()) {
      const double d2 = deltas[*far];
      estimate.second_derivative =
          2.0 * ((values[*far] - f0) / d2 - (values[near] - f0) / d1) / (d2 - d1);
      estimate.remainder = values[*far] - f0 - estimate.derivative * d2;
    }
  }
  if (f0 != 0.0) estimate.normalised = h0 / f0 * estimate.derivative;
  return estimate;
}

absl::StatusOr<SensitivityReport> AnalyseSensitivity(const StudyDesign& design,
                                                     const StudyCosts& costs,
                                                     const SensitivityOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const StudyOptions& study = options.study;
  if (absl::Status status = ValidateStudyOptions(study); !status.ok()) return status;
  if (!(options.pair_cost > 0.0 && std::isfinite(options.pair_cost))) {
    return InvalidFieldError("pair_cost",
                             absl::StrCat("must be a positive number, got ", options.pair_cost));
  }
  absl::StatusOr<size_t> nominal = NominalPoint(design, options.nominal);
  if (!nominal.ok()) return nominal.status();
  const std::vector<Axis> axes = AxesOf(design, *nominal);
  if (axes.empty()) {
    return InvalidFieldError(
        "nominal",
        "no design point differs from the nominal vector in one parameter only; sensitivity "
        "needs runs at the nominal point and at deviations of one parameter at a time");
  }

  SensitivityReport report;
  report.names = design.names;
  report.fixed = design.fixed;
  report.nominal = design.points[*nominal].parameters;
  std::vector<double> distances(design.points.size());
  for (size_t p = 0; p < design.points.size(); ++p) {
    absl::StatusOr<double> w = PointDistance(costs, design.points[p], study.order);
    if (!w.ok()) return w.status();
    distances[p] = *w;
    report.points.push_back({.parameters = design.points[p].parameters,
                             .runs = static_cast<int>(design.points[p].runs.size()),
                             .distance = *w});
  }
  report.distance_nominal = distances[*nominal];
  report.nominal_runs = static_cast<int>(design.points[*nominal].runs.size());
  absl::StatusOr<std::optional<double>> baseline = ReferenceBaseline(costs, study);
  if (!baseline.ok()) return baseline.status();
  report.baseline_ref_ref_median = *baseline;

  const size_t resamples = static_cast<size_t>(study.resamples);
  const std::vector<size_t> columns = resampling::IndexRange(0, costs.sim_ref.cols);
  std::vector<ResampledAxis> resampled(axes.size());
  for (ResampledAxis& axis : resampled) {
    for (std::vector<double>* values :
         {&axis.independent, &axis.paired, &axis.nominal, &axis.compared}) {
      values->resize(resamples);
    }
  }
  VerdictContext context;
  context.max_threads = study.max_threads;
  context.cancel = study.cancel;
  context.progress = study.progress;
  resampling::ResampleLoop loop(context, resamples * design.points.size());
  absl::Status status = loop.Run(resamples, design.points.size(), [&](size_t r) -> absl::Status {
    const std::vector<double> refs = study::DrawReferences(columns.size(), study.seed, r);
    const auto distance = [&](size_t p, const std::vector<double>& counts) {
      return study::WeightedPointDistance(costs, design.points[p], counts, columns, refs,
                                          study.order);
    };
    const auto independent = [&](size_t p) {
      return distance(p, study::DrawPointRuns(design.points[p], p, study.seed, r));
    };
    absl::StatusOr<double> w0 = independent(*nominal);
    if (!w0.ok()) return w0.status();
    for (size_t a = 0; a < axes.size(); ++a) {
      const Axis& axis = axes[a];
      const double h0 = report.nominal[axis.parameter];
      std::vector<double> values;
      for (size_t p : axis.points) {
        absl::StatusOr<double> w = independent(p);
        if (!w.ok()) return w.status();
        values.push_back(*w);
      }
      resampled[a].independent[r] = EstimateDerivative(h0, *w0, axis.deltas, values).derivative;
      resampled[a].nominal[r] = *w0;
      resampled[a].compared[r] = values[axis.compared];
      if (!axis.shared_trials.has_value()) continue;
      const std::vector<double> trials = study::DrawTrials(*axis.shared_trials, study.seed, r);
      const auto paired = [&](size_t p) {
        return distance(p, study::PairedPointRuns(design.points[p], trials, *axis.shared_trials));
      };
      absl::StatusOr<double> paired_w0 = paired(*nominal);
      if (!paired_w0.ok()) return paired_w0.status();
      for (size_t k = 0; k < axis.points.size(); ++k) {
        absl::StatusOr<double> w = paired(axis.points[k]);
        if (!w.ok()) return w.status();
        values[k] = *w;
      }
      resampled[a].paired[r] = EstimateDerivative(h0, *paired_w0, axis.deltas, values).derivative;
    }
    return absl::OkStatus();
  });
  if (study.cancel != nullptr && study.cancel->cancelled()) {
    return absl::CancelledError("sensitivity analysis cancelled");
  }
  if (!status.ok()) return status;

  for (size_t a = 0; a < axes.size(); ++a) {
    const Axis& axis = axes[a];
    ParameterSensitivity parameter;
    parameter.name = design.names[axis.parameter];
    parameter.nominal = report.nominal[axis.parameter];
    parameter.deltas = axis.deltas;
    for (size_t k = 0; k < axis.points.size(); ++k) {
      const double w = distances[axis.points[k]];
      parameter.distances.push_back(w);
      parameter.changes.push_back(w - report.distance_nominal);
      parameter.runs.push_back(static_cast<int>(design.points[axis.points[k]].runs.size()));
    }
    parameter.estimate = EstimateDerivative(parameter.nominal, report.distance_nominal,
                                            parameter.deltas, parameter.distances);
    parameter.paired = axis.shared_trials.has_value();
    const resampling::BootstrapInterval interval = resampling::BcaInterval(
        parameter.estimate.derivative,
        parameter.paired ? resampled[a].paired : resampled[a].independent, 0.0, study.confidence);
    parameter.interval_lo = interval.lo;
    parameter.interval_hi = interval.hi;
    const double nominal_variance = study::Variance(resampled[a].nominal);
    if (nominal_variance > 0.0) {
      parameter.variance_ratio = study::Variance(resampled[a].compared) / nominal_variance;
    }
    if (parameter.paired) {
      const double gain = VarianceGain(study::Variance(resampled[a].independent),
                                       study::Variance(resampled[a].paired));
      parameter.variance_gain = gain;
      if (parameter.variance_ratio.has_value()) {
        parameter.pays_off = (1.0 + *parameter.variance_ratio) / gain < 1.0;
        parameter.pays_off_in_time =
            (1.0 + *parameter.variance_ratio) * options.pair_cost / gain < 1.0;
      }
    }
    parameter.flagged = report.baseline_ref_ref_median.has_value() &&
                        parameter.change_at_smallest_deviation() > *report.baseline_ref_ref_median;
    report.parameters.push_back(std::move(parameter));

    for (const QuantityComparison& quantity : costs.quantities) {
      for (const bool avm : {true, false}) {
        QuantitySensitivity sensitivity;
        sensitivity.quantity = absl::StrCat(quantity.channel, ":", quantity.quantity);
        sensitivity.statistic = avm ? "avm" : "mean";
        sensitivity.parameter = design.names[axis.parameter];
        sensitivity.nominal_value = QuantityStatistic(quantity, design.points[*nominal], avm);
        for (size_t p : axis.points) {
          sensitivity.values.push_back(QuantityStatistic(quantity, design.points[p], avm));
        }
        sensitivity.estimate =
            EstimateDerivative(report.nominal[axis.parameter], sensitivity.nominal_value,
                               axis.deltas, sensitivity.values);
        report.quantities.push_back(std::move(sensitivity));
      }
    }
  }
  for (size_t k = 0; k < design.names.size(); ++k) {
    if (std::none_of(axes.begin(), axes.end(), [k](const Axis& a) { return a.parameter == k; })) {
      report.summary.warnings.push_back(absl::StrCat("parameter \"", design.names[k],
                                                     "\": no design point differs from the nominal "
                                                     "vector in it alone; no derivative"));
    }
  }
  if (!report.baseline_ref_ref_median.has_value()) {
    report.summary.warnings.push_back(
        "fewer than 2 reference runs: no baseline spread, so no parameter is flagged");
  }
  report.pair_cost = options.pair_cost;
  StudySummary summary = SummaryOf(costs, study, start);
  summary.warnings = std::move(report.summary.warnings);
  report.summary = std::move(summary);
  return report;
}

}  // namespace wasserwarp
