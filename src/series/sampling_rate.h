// Sampling rates of runs and of groups of runs, and the grid the verdict is computed on.
//
// TWED sums its costs per sample, so a group recorded at a higher rate sits on a larger scale
// than one at a lower rate even when their shapes agree. W between the groups is what the user
// asked for and follows the options as given; the verdict compares distances within and
// across the groups, so it is never computed on groups whose rates differ.

#ifndef WASSERWARP_SRC_SERIES_SAMPLING_RATE_H_
#define WASSERWARP_SRC_SERIES_SAMPLING_RATE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

// Samples per second over a run's span, (samples - 1) / span; 0 for a single sample.
double SamplingRate(uint64_t samples, double first_time, double last_time);
double SamplingRate(const Series& run);

// The median of the steps between consecutive timestamps; `times` holds at least two.
double MedianStep(const std::vector<double>& times);

// The median of `rates`; 0 when empty.
double MedianRate(std::vector<double> rates);

// The median sampling rates of the two groups.
struct GroupRates {
  double simulation = 0.0;
  double reference = 0.0;
};
GroupRates MedianRates(const std::vector<Series>& simulation, const std::vector<Series>& reference);

// Medians that differ by more than this factor put the groups on different scales.
inline constexpr double kRateTolerance = 1.1;

// True when both medians are known and one exceeds the other by more than kRateTolerance.
bool RatesDiffer(const GroupRates& rates);

// `run` thinned to about `rate` samples per second: for each time first + k / rate the sample
// nearest to it, each sample at most once, with its own timestamp and values. Unlike an
// interpolation this keeps every value a measured one, so per-sample noise keeps its
// variance (an interpolated sample averages two noisy ones and would make the thinned group
// look smoother than the other); a run at or below `rate` is returned as it is.
Series ThinToRate(const Series& run, double rate);

// The rate the verdict's runs are thinned to (ThinToRate): unset when the runs can be judged
// as prepared (a resample_rate already puts them on one grid, or their rates agree), the
// lower median with Resampling::kAuto. With Resampling::kNone and differing
// rates, InvalidArgument on `resampling` that says why and what to pass instead.
absl::StatusOr<std::optional<double>> VerdictGridRate(const GroupRates& rates,
                                                      const PrepareOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_SERIES_SAMPLING_RATE_H_
