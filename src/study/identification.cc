// Each resample refits the surface to W resampled at every point and takes its minimum: the
// spread of those minima is the identified vector's uncertainty from the finite runs and
// references, which the per-group repetition complements with the spread between campaigns.

#include "wasserwarp/identification.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "study/study_draws.h"
#include "verdict/baseline_split.h"
#include "verdict/resampling.h"
#include "verdict/resampling_summary.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp {
namespace {

constexpr size_t kSliceSamples = 41;
// Below this R^2 the quadratic misses the shape of W over the design.
constexpr double kPoorFit = 0.9;

std::vector<std::vector<double>> Coordinates(const StudyDesign& design) {
  std::vector<std::vector<double>> points;
  for (const DesignPoint& point : design.points) points.push_back(point.parameters);
  return points;
}

double ResponseOf(SurfaceResponse response, double distance) {
  return response == SurfaceResponse::kSquaredDistance ? distance * distance : distance;
}

struct Fitted {
  QuadraticSurface surface;
  SurfaceMinimum minimum;
};

absl::StatusOr<Fitted> FitAndMinimise(const StudyDesign& design, SurfaceResponse response,
                                      const std::vector<double>& distances) {
  std::vector<double> values;
  for (double w : distances) values.push_back(ResponseOf(response, w));
  absl::StatusOr<QuadraticSurface> surface =
      FitQuadraticSurface(design.names, Coordinates(design), values);
  if (!surface.ok()) return surface.status();
  Fitted fitted;
  fitted.surface = *std::move(surface);
  fitted.minimum = MinimizeInBox(fitted.surface);
  fitted.minimum.value = DistanceOf(response, fitted.minimum.value);
  return fitted;
}

// W at every point against the references `columns` (uniform weights).
absl::StatusOr<std::vector<double>> Distances(const StudyDesign& design, const StudyCosts& costs,
                                              const std::vector<size_t>& columns, double order) {
  std::vector<double> distances;
  for (const DesignPoint& point : design.points) {
    absl::StatusOr<double> w = study::WeightedPointDistance(costs, point, {}, columns, {}, order);
    if (!w.ok()) return w.status();
    distances.push_back(*w);
  }
  return distances;
}

double StandardDeviation(const std::vector<double>& values) {
  return std::sqrt(study::Variance(values));
}

std::vector<SurfaceSlice> Slices(const IdentificationReport& report,
                                 const std::vector<QuadraticSurface>& resampled,
                                 double confidence) {
  std::vector<SurfaceSlice> slices;
  const QuadraticSurface& surface = report.surface;
  for (size_t i = 0; i < report.names.size(); ++i) {
    SurfaceSlice slice;
    slice.parameter = report.names[i];
    std::vector<double> x = report.identified;
    for (size_t s = 0; s < kSliceSamples; ++s) {
      x[i] = surface.lower[i] + (surface.upper[i] - surface.lower[i]) * static_cast<double>(s) /
                                    static_cast<double>(kSliceSamples - 1);
      slice.x.push_back(x[i]);
      slice.fitted.push_back(DistanceOf(report.response, EvaluateSurface(surface, x)));
      std::vector<double> band;
      band.reserve(resampled.size());
      for (const QuadraticSurface& other : resampled) {
        band.push_back(DistanceOf(report.response, EvaluateSurface(other, x)));
      }
      std::sort(band.begin(), band.end());
      slice.lo.push_back(resampling::Quantile(band, 0.5 * (1.0 - confidence)));
      slice.hi.push_back(resampling::Quantile(band, 0.5 * (1.0 + confidence)));
    }
    slices.push_back(std::move(slice));
  }
  return slices;
}

absl::Status IdentifyGroups(const StudyDesign& design, const StudyCosts& costs,
                            const std::vector<std::string>& groups, double order,
                            IdentificationReport& report) {
  const SurfaceResponse response = report.response;
  if (groups.size() != costs.sim_ref.cols) {
    return InvalidFieldError(
        "reference_groups",
        absl::StrCat(groups.size(), " groups for ", costs.sim_ref.cols, " reference runs"));
  }
  std::map<std::string, std::vector<size_t>> columns;
  for (size_t c = 0; c < groups.size(); ++c) columns[groups[c]].push_back(c);
  for (const auto& [group, cols] : columns) {
    absl::StatusOr<std::vector<double>> distances = Distances(design, costs, cols, order);
    if (!distances.ok()) return distances.status();
    absl::StatusOr<Fitted> fitted = FitAndMinimise(design, response, *distances);
    if (!fitted.ok()) return fitted.status();
    report.groups.push_back({.group = group,
                             .reference_runs = static_cast<int>(cols.size()),
                             .identified = fitted->minimum.x,
                             .on_boundary = fitted->minimum.on_boundary,
                             .predicted_distance = fitted->minimum.value});
  }
  if (report.groups.size() >= 2) {
    for (size_t i = 0; i < design.names.size(); ++i) {
      std::vector<double> values;
      for (const GroupIdentification& group : report.groups) values.push_back(group.identified[i]);
      report.group_std.push_back(StandardDeviation(values));
    }
  }
  return absl::OkStatus();
}

}  // namespace

double DistanceOf(SurfaceResponse response, double value) {
  return response == SurfaceResponse::kSquaredDistance ? std::sqrt(std::max(0.0, value)) : value;
}

const char* SurfaceResponseName(SurfaceResponse response) {
  return response == SurfaceResponse::kSquaredDistance ? "squared_distance" : "distance";
}

bool IdentificationReport::within_max_ratio() const {
  return !(max_ratio.has_value() && predicted_ratio.has_value() && *predicted_ratio > *max_ratio);
}

bool IdentificationReport::flagged() const {
  return on_boundary || !surface.convex || !within_max_ratio();
}

absl::StatusOr<IdentificationReport> Identify(const StudyDesign& design, const StudyCosts& costs,
                                              const IdentifyOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const StudyOptions& study = options.study;
  if (absl::Status status = ValidateStudyOptions(study); !status.ok()) return status;
  if (options.max_ratio.has_value() && !(*options.max_ratio > 0.0)) {
    return InvalidFieldError("max_ratio",
                             absl::StrCat("must be a positive number, got ", *options.max_ratio));
  }
  std::optional<std::vector<double>> nominal;
  if (options.nominal.has_value()) {
    absl::StatusOr<std::vector<double>> vector = NominalVector(design, *options.nominal);
    if (!vector.ok()) return vector.status();
    nominal = *std::move(vector);
  }
  const std::vector<size_t> columns = resampling::IndexRange(0, costs.sim_ref.cols);
  absl::StatusOr<std::vector<double>> distances = Distances(design, costs, columns, study.order);
  if (!distances.ok()) return distances.status();
  absl::StatusOr<Fitted> fitted = FitAndMinimise(design, options.response, *distances);
  if (!fitted.ok()) return fitted.status();

  IdentificationReport report;
  report.names = design.names;
  report.fixed = design.fixed;
  report.response = options.response;
  for (size_t p = 0; p < design.points.size(); ++p) {
    report.points.push_back({.parameters = design.points[p].parameters,
                             .runs = static_cast<int>(design.points[p].runs.size()),
                             .distance = (*distances)[p]});
  }
  report.surface = fitted->surface;
  report.identified = fitted->minimum.x;
  report.on_boundary = fitted->minimum.on_boundary;
  report.predicted_distance = fitted->minimum.value;

  std::vector<size_t> all_points = resampling::IndexRange(0, design.points.size());
  const std::optional<std::vector<std::string>> shared = SharedTrials(design, all_points);
  report.paired = shared.has_value();
  const size_t resamples = static_cast<size_t>(study.resamples);
  std::vector<std::vector<double>> identified(resamples);
  std::vector<QuadraticSurface> surfaces(resamples);
  VerdictContext context;
  context.max_threads = study.max_threads;
  context.cancel = study.cancel;
  context.progress = study.progress;
  resampling::ResampleLoop loop(context, resamples * design.points.size());
  absl::Status status = loop.Run(resamples, design.points.size(), [&](size_t r) -> absl::Status {
    const std::vector<double> refs = study::DrawReferences(columns.size(), study.seed, r);
    std::vector<double> trials;
    if (shared.has_value()) trials = study::DrawTrials(*shared, study.seed, r);
    std::vector<double> values;
    for (size_t p = 0; p < design.points.size(); ++p) {
      const DesignPoint& point = design.points[p];
      const std::vector<double> counts = shared.has_value()
                                             ? study::PairedPointRuns(point, trials, *shared)
                                             : study::DrawPointRuns(point, p, study.seed, r);
      absl::StatusOr<double> w =
          study::WeightedPointDistance(costs, point, counts, columns, refs, study.order);
      if (!w.ok()) return w.status();
      values.push_back(*w);
    }
    absl::StatusOr<Fitted> refit = FitAndMinimise(design, options.response, values);
    if (!refit.ok()) return refit.status();
    identified[r] = refit->minimum.x;
    surfaces[r] = std::move(refit->surface);
    return absl::OkStatus();
  });
  if (study.cancel != nullptr && study.cancel->cancelled()) {
    return absl::CancelledError("identification cancelled");
  }
  if (!status.ok()) return status;

  for (size_t i = 0; i < design.names.size(); ++i) {
    std::vector<double> values;
    for (const std::vector<double>& x : identified) values.push_back(x[i]);
    report.std.push_back(StandardDeviation(values));
    std::sort(values.begin(), values.end());
    report.interval_lo.push_back(resampling::Quantile(values, 0.5 * (1.0 - study.confidence)));
    report.interval_hi.push_back(resampling::Quantile(values, 0.5 * (1.0 + study.confidence)));
  }
  report.slices = Slices(report, surfaces, study.confidence);
  if (nominal.has_value()) {
    report.nominal = *nominal;
    std::vector<NominalDifference> differences;
    for (size_t i = 0; i < design.names.size(); ++i) {
      NominalDifference difference;
      difference.difference = report.identified[i] - (*nominal)[i];
      if (report.std[i] > 0.0) difference.z = difference.difference / report.std[i];
      differences.push_back(difference);
    }
    report.nominal_difference = std::move(differences);
  }
  if (options.reference_groups.has_value()) {
    if (absl::Status status =
            IdentifyGroups(design, costs, *options.reference_groups, study.order, report);
        !status.ok()) {
      return status;
    }
  }
  absl::StatusOr<std::optional<double>> baseline = ReferenceBaseline(costs, study);
  if (!baseline.ok()) return baseline.status();
  report.baseline_ref_ref_median = *baseline;
  if (report.baseline_ref_ref_median.has_value() && *report.baseline_ref_ref_median > 0.0) {
    report.predicted_ratio = report.predicted_distance / *report.baseline_ref_ref_median;
  }
  report.max_ratio = options.max_ratio;

  if (report.on_boundary) {
    report.summary.warnings.push_back(
        "the minimum of the surface lies on the boundary of the design: the best parameter "
        "values may lie outside it; extend the design in that direction");
  }
  if (!report.surface.convex) {
    report.summary.warnings.push_back(
        "the fitted surface is not convex: W has no clear minimum over the design");
  }
  if (report.surface.r_squared < kPoorFit) {
    report.summary.warnings.push_back(absl::StrFormat(
        "the quadratic surface explains only %.0f%% of the variation of %s over the design (R^2 "
        "%.3f); a design closer around the minimum fits better",
        100.0 * std::max(0.0, report.surface.r_squared),
        report.response == SurfaceResponse::kSquaredDistance ? "W^2" : "W",
        report.surface.r_squared));
  }
  StudySummary summary = SummaryOf(costs, study, start);
  summary.warnings = std::move(report.summary.warnings);
  report.summary = std::move(summary);
  return report;
}

}  // namespace wasserwarp
