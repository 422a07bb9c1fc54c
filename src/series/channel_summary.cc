#include "series/channel_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace wasserwarp {

Mdf4ChannelSummary SummarizeChannel(std::string name, std::string data_type,
                                    const std::vector<double>& times, size_t count,
                                    const std::function<double(size_t)>& value) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  Mdf4ChannelSummary out;
  out.name = std::move(name);
  out.data_type = std::move(data_type);
  out.conversion = "identity";
  out.time_first = out.time_last = out.min = out.max = out.mean = kNone;
  double sum = 0;
  for (size_t i = 0; i < std::min(count, times.size()); ++i) {
    const double x = value(i);
    if (!std::isfinite(x)) {
      ++out.non_finite_samples;
      continue;
    }
    if (out.samples == 0) {
      out.min = out.max = x;
      out.time_first = times[i];
    }
    out.min = std::min(out.min, x);
    out.max = std::max(out.max, x);
    out.time_last = times[i];
    sum += x;
    ++out.samples;
  }
  if (out.samples > 0) out.mean = sum / static_cast<double>(out.samples);
  return out;
}

}  // namespace wasserwarp
