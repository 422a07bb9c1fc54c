// A time series as measured or simulated: one run of a manoeuvre.
//
// Values are stored row-major (samples x channels) so that one sample's
// channels are contiguous, which is what the TWED kernels read.

#ifndef WASSERWARP_SERIES_H_
#define WASSERWARP_SERIES_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace wasserwarp {

struct Series {
  std::string id;
  std::vector<std::string> channels;
  std::vector<double> times;   // seconds, one per sample
  std::vector<double> values;  // samples x channels, row-major
  // Each channel's unit as its file or header spelled it (wasserwarp/units.h), "" where it has
  // none; empty when the run carries no units at all, as most callers build it.
  std::vector<std::string> units;

  size_t samples() const { return times.size(); }
  size_t num_channels() const { return channels.size(); }
  double value(size_t sample, size_t channel) const {
    return values[sample * channels.size() + channel];
  }
  const double* sample(size_t i) const { return values.data() + i * channels.size(); }
  const std::string& unit(size_t channel) const {
    static const std::string kNone;
    return units.empty() ? kNone : units[channel];
  }
};

// Timestamps beyond this magnitude (seconds) are rejected, so that every
// difference of two timestamps is finite.
inline constexpr double kMaxAbsTime = 1e300;

// Ok when `series` can enter a distance computation: at least one sample and
// one channel, values.size() == samples x channels, finite times and values,
// strictly increasing times within +-kMaxAbsTime, no units or one per channel. Errors are
// InvalidArgument and name the series id and the sample index (and channel) at fault.
absl::Status ValidateSeries(const Series& series);

}  // namespace wasserwarp

#endif  // WASSERWARP_SERIES_H_
