#include "study/study_draws.h"

#include <algorithm>

#include "verdict/resampling_rng.h"
#include "verdict/subset_distance.h"

namespace wasserwarp::study {
namespace {

// The streams of one resample; a point's own draws use kPointStreams + its index.
enum Stream : uint64_t {
  kReferenceStream = 1,
  kTrialStream = 2,
  kPointStreams = 16,
};

}  // namespace

using resampling::DrawCounts;

std::vector<double> DrawReferences(size_t references, uint64_t seed, uint64_t resample) {
  return DrawCounts(references, resampling::ResampleRng(seed, resample, kReferenceStream));
}

std::vector<double> DrawPointRuns(const DesignPoint& point, size_t p, uint64_t seed,
                                  uint64_t resample) {
  return DrawCounts(point.runs.size(), resampling::ResampleRng(seed, resample, kPointStreams + p));
}

std::vector<double> DrawTrials(const std::vector<std::string>& shared, uint64_t seed,
                               uint64_t resample) {
  return DrawCounts(shared.size(), resampling::ResampleRng(seed, resample, kTrialStream));
}

std::vector<double> PairedPointRuns(const DesignPoint& point, const std::vector<double>& trials,
                                    const std::vector<std::string>& shared) {
  std::vector<double> counts(point.runs.size(), 0.0);
  for (size_t k = 0; k < point.runs.size(); ++k) {
    const auto it = std::lower_bound(shared.begin(), shared.end(), point.trials[k]);
    counts[k] = trials[static_cast<size_t>(it - shared.begin())];
  }
  return counts;
}

absl::StatusOr<double> WeightedPointDistance(const StudyCosts& costs, const DesignPoint& point,
                                             const std::vector<double>& run_counts,
                                             const std::vector<size_t>& ref_columns,
                                             const std::vector<double>& ref_counts, double order) {
  std::vector<size_t> rows;
  std::vector<double> row_weights;
  for (size_t k = 0; k < point.runs.size(); ++k) {
    if (run_counts.empty() || run_counts[k] > 0.0) {
      rows.push_back(point.runs[k]);
      if (!run_counts.empty()) row_weights.push_back(run_counts[k]);
    }
  }
  std::vector<size_t> cols;
  std::vector<double> col_weights;
  for (size_t k = 0; k < ref_columns.size(); ++k) {
    if (ref_counts.empty() || ref_counts[k] > 0.0) {
      cols.push_back(ref_columns[k]);
      if (!ref_counts.empty()) col_weights.push_back(ref_counts[k]);
    }
  }
  return resampling::SubsetDistance(costs.sim_ref, rows, row_weights, cols, col_weights, order);
}

double Variance(const std::vector<double>& values) {
  if (values.size() < 2) return 0.0;
  double mean = 0.0;
  for (double value : values) mean += value;
  mean /= static_cast<double>(values.size());
  double sum = 0.0;
  for (double value : values) sum += (value - mean) * (value - mean);
  return sum / static_cast<double>(values.size() - 1);
}

}  // namespace wasserwarp::study
