// The MDF 4 reader on arbitrary bytes, through InspectMdf4 and ParseMdf4Run, under small limits
// so that each input is quick. Either the input is refused with an InvalidArgument (a malformed
// file) or a ResourceExhausted (a limit) whose message starts with the file's name, or what was
// read holds together: every channel is readable or says why not, its counts fit its group's and
// its statistics are in order; a run is valid.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/mdf4.h"
#include "wasserwarp/series.h"

namespace wasserwarp::fuzz {
namespace {

constexpr char kSource[] = "fuzz.mf4";
constexpr Mdf4Limits kLimits = {.max_data_bytes = 1 << 20, .max_values = 1 << 22};

void Require(bool condition, std::string_view what) {
  if (condition) return;
  std::fprintf(stderr, "mdf4_fuzz: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

void RequireRefusal(const absl::Status& status) {
  Require(status.code() == absl::StatusCode::kInvalidArgument ||
              status.code() == absl::StatusCode::kResourceExhausted,
          absl::StrCat("unexpected status ", status.ToString()));
  Require(absl::StartsWith(status.message(), kSource),
          absl::StrCat("error does not name the file: ", status.message()));
}

void CheckChannel(const Mdf4GroupSummary& group, const Mdf4ChannelSummary& channel) {
  Require(channel.readable == channel.reason.empty(),
          absl::StrCat("channel \"", channel.name, "\": readable and reason disagree"));
  if (!channel.readable) {
    Require(absl::StartsWith(channel.reason, kSource), "a reason that does not name the file");
    return;
  }
  Require(channel.samples + channel.invalid_samples + channel.non_finite_samples <= group.samples,
          "more samples in a channel than records in its group");
  if (channel.samples == 0) return;
  Require(std::isfinite(channel.min) && std::isfinite(channel.max) && channel.min <= channel.max,
          "min and max out of order or not finite");
  // A mean of finite values may overflow to infinity; it is otherwise between them, to rounding.
  const double slack = 1e-9 * std::max(std::abs(channel.min), std::abs(channel.max));
  Require(!std::isfinite(channel.mean) ||
              (channel.mean >= channel.min - slack && channel.mean <= channel.max + slack),
          absl::StrCat("channel \"", channel.name, "\": mean outside min and max"));
}

void CheckInspect(std::string_view content) {
  const absl::StatusOr<Mdf4FileSummary> summary = InspectMdf4(content, kSource, kLimits);
  if (!summary.ok()) {
    RequireRefusal(summary.status());
    return;
  }
  for (const Mdf4GroupSummary& group : summary->groups) {
    for (const Mdf4ChannelSummary& channel : group.channels) CheckChannel(group, channel);
  }
}

void CheckRun(std::string_view content) {
  const absl::StatusOr<Mdf4Run> run = ParseMdf4Run(content, kSource, "fuzz", {}, kLimits);
  if (!run.ok()) {
    RequireRefusal(run.status());
    return;
  }
  Require(ValidateSeries(run->series).ok(), "a run read from a file fails ValidateSeries");
}

}  // namespace
}  // namespace wasserwarp::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view content(reinterpret_cast<const char*>(data), size);
  wasserwarp::fuzz::CheckInspect(content);
  wasserwarp::fuzz::CheckRun(content);
  return 0;
}
