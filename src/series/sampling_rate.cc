#include "series/sampling_rate.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_format.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp {

double SamplingRate(uint64_t samples, double first_time, double last_time) {
  const double span = last_time - first_time;
  return samples > 1 && span > 0 ? static_cast<double>(samples - 1) / span : 0.0;
}

double MedianStep(const std::vector<double>& times) {
  std::vector<double> steps(times.size() - 1);
  for (size_t i = 0; i + 1 < times.size(); ++i) steps[i] = times[i + 1] - times[i];
  const size_t middle = steps.size() / 2;
  std::nth_element(steps.begin(), steps.begin() + middle, steps.end());
  if (steps.size() % 2 == 1) return steps[middle];
  const double below = *std::max_element(steps.begin(), steps.begin() + middle);
  return 0.5 * (below + steps[middle]);
}

double SamplingRate(const Series& run) {
  if (run.times.empty()) return 0.0;
  return SamplingRate(run.samples(), run.times.front(), run.times.back());
}

double MedianRate(std::vector<double> rates) {
  if (rates.empty()) return 0.0;
  std::sort(rates.begin(), rates.end());
  const size_t half = rates.size() / 2;
  return rates.size() % 2 == 1 ? rates[half] : 0.5 * (rates[half - 1] + rates[half]);
}

GroupRates MedianRates(const std::vector<Series>& simulation,
                       const std::vector<Series>& reference) {
  const auto median = [](const std::vector<Series>& runs) {
    std::vector<double> rates;
    rates.reserve(runs.size());
    for (const Series& run : runs) rates.push_back(SamplingRate(run));
    return MedianRate(std::move(rates));
  };
  return {.simulation = median(simulation), .reference = median(reference)};
}

Series ThinToRate(const Series& run, double rate) {
  if (run.samples() < 2 || SamplingRate(run) <= rate) return run;
  Series thinned;
  thinned.id = run.id;
  thinned.channels = run.channels;
  thinned.units = run.units;
  const size_t channels = run.num_channels();
  const double start = run.times.front();
  size_t j = 0;
  for (uint64_t k = 0;; ++k) {
    const double t = start + static_cast<double>(k) / rate;
    if (t > run.times.back()) break;
    while (j + 1 < run.samples() && run.times[j + 1] <= t) ++j;
    const size_t nearest =
        j + 1 < run.samples() && run.times[j + 1] - t < t - run.times[j] ? j + 1 : j;
    if (!thinned.times.empty() && thinned.times.back() >= run.times[nearest]) continue;
    thinned.times.push_back(run.times[nearest]);
    thinned.values.insert(thinned.values.end(), run.values.begin() + nearest * channels,
                          run.values.begin() + (nearest + 1) * channels);
  }
  return thinned;
}

bool RatesDiffer(const GroupRates& rates) {
  const double low = std::min(rates.simulation, rates.reference);
  const double high = std::max(rates.simulation, rates.reference);
  return low > 0 && high > kRateTolerance * low;
}

absl::StatusOr<std::optional<double>> VerdictGridRate(const GroupRates& rates,
                                                      const PrepareOptions& options) {
  if (options.resample_rate.has_value() || !RatesDiffer(rates)) return std::nullopt;
  const double lower = std::min(rates.simulation, rates.reference);
  if (options.resampling == Resampling::kAuto) return lower;
  return InvalidFieldError(
      "resampling",
      absl::StrFormat(
          "none, but simulated runs are sampled at %.4g Hz and reference runs at %.4g Hz "
          "(medians, more than %.0f%% apart); TWED sums its costs per sample, so the verdict's "
          "permutation test and baseline would compare distances on different scales and lean "
          "towards PASS. Use resampling auto (the verdict on runs resampled to %.4g Hz) or a "
          "resample rate",
          rates.simulation, rates.reference, 100 * (kRateTolerance - 1), lower));
}

}  // namespace wasserwarp
