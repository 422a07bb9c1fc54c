#include "wasserwarp/series.h"

#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/units.h"

namespace wasserwarp {
namespace {

// Shortest round-trip form: two distinct times must never print alike, which
// absl::StrCat's six significant digits would do for 1.2500001 and 1.25.
std::string FormatNumber(double x) {
  char buffer[32];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), x);
  return std::string(buffer, result.ptr);
}

// `field` is the offending field of the series ("times[3]", "values[7]", "channels[1]").
absl::Status SeriesError(const Series& series, absl::string_view field, absl::string_view what) {
  return WithField(absl::InvalidArgumentError(absl::StrCat("series \"", series.id, "\": ", what)),
                   field);
}

std::string Indexed(absl::string_view field, size_t index) {
  return absl::StrCat(field, "[", index, "]");
}

absl::Status ValidateChannels(const Series& series) {
  if (series.channels.empty()) return SeriesError(series, "channels", "no channels");
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t c = 0; c < series.channels.size(); ++c) {
    const std::string& name = series.channels[c];
    if (name.empty()) {
      return SeriesError(series, Indexed("channels", c),
                         absl::StrCat("channel ", c, " has an empty name"));
    }
    const auto [it, inserted] = seen.emplace(name, c);
    if (!inserted) {
      return SeriesError(series, Indexed("channels", c),
                         absl::StrCat("channel \"", name, "\" appears twice (channels ", it->second,
                                      " and ", c, ")"));
    }
  }
  if (const std::string fault = UnitCountFault(series.units.size(), series.channels.size());
      !fault.empty()) {
    return SeriesError(series, "units", fault);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateSeries(const Series& series) {
  if (absl::Status status = ValidateChannels(series); !status.ok()) return status;
  const size_t samples = series.samples();
  const size_t channels = series.num_channels();
  if (samples == 0) return SeriesError(series, "times", "no samples");
  if (series.values.size() != samples * channels) {
    return SeriesError(series, "values",
                       absl::StrCat(series.values.size(), " values for ", samples, " samples x ",
                                    channels, " channels (expected ", samples * channels, ")"));
  }
  for (size_t i = 0; i < samples; ++i) {
    const double t = series.times[i];
    if (!std::isfinite(t)) {
      return SeriesError(series, Indexed("times", i),
                         absl::StrCat("sample ", i, ": time ", FormatNumber(t), " is not finite"));
    }
    // TWED multiplies time differences by nu, which may be 0: a difference
    // that overflowed to inf would make 0 * inf = NaN.
    if (std::abs(t) > kMaxAbsTime) {
      return SeriesError(series, Indexed("times", i),
                         absl::StrCat("sample ", i, ": time ", FormatNumber(t), " s is beyond +-",
                                      FormatNumber(kMaxAbsTime), " s"));
    }
    if (i > 0 && t <= series.times[i - 1]) {
      return SeriesError(
          series, Indexed("times", i),
          absl::StrCat("sample ", i, ": time ", FormatNumber(t), " is not after the previous time ",
                       FormatNumber(series.times[i - 1])));
    }
    const double* row = series.sample(i);
    for (size_t c = 0; c < channels; ++c) {
      if (!std::isfinite(row[c])) {
        return SeriesError(series, Indexed("values", i * channels + c),
                           absl::StrCat("sample ", i, ": channel \"", series.channels[c],
                                        "\": value ", FormatNumber(row[c]), " is not finite"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp
