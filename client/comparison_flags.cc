#include "comparison_flags.h"

#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace wasserwarp::cli {

const char kComparisonFlagsUsage[] =
    "  --nu X               stiffness: cost per second of time mismatch (default 0.001)\n"
    "  --lambda X           cost of each deletion (default 0)\n"
    "  --p X                Lp norm across channels, >= 1 (default 2)\n"
    "  --time-window S      match only samples at most S seconds apart (default: no window)\n"
    "  --align none|start   start: shift each run to begin at time 0 (default start)\n"
    "  --channels a,b       channels to compare (default: every channel of the first\n"
    "                       simulated run)\n"
    "  --resample HZ        interpolate every run onto a uniform grid at HZ first, so that\n"
    "                       runs recorded at different rates compare like for like\n"
    "                       (default: each run at its own timestamps)\n";

std::vector<FlagSpec> ComparisonFlags() {
  return {{"--nu", Arity::kOne},          {"--lambda", Arity::kOne}, {"--p", Arity::kOne},
          {"--time-window", Arity::kOne}, {"--align", Arity::kOne},  {"--channels", Arity::kOne},
          {"--resample", Arity::kOne}};
}

absl::Status ReadComparisonFlags(const ParsedArgs& args, TwedParams& twed,
                                 PrepareOptions& prepare) {
  for (auto [flag, field] : {std::pair{"--nu", &twed.nu}, std::pair{"--lambda", &twed.lambda},
                             std::pair{"--p", &twed.p}}) {
    absl::StatusOr<double> value = args.Number(flag, *field);
    if (!value.ok()) return value.status();
    *field = *value;
  }
  absl::StatusOr<std::optional<double>> window = args.Number("--time-window");
  if (!window.ok()) return window.status();
  if (window->has_value()) twed.time_window = *window;
  if (absl::Status valid = ValidateTwedParams(twed); !valid.ok()) return valid;

  if (const std::string* align = args.Value("--align")) {
    absl::StatusOr<Align> parsed = ParseAlign(*align);
    if (!parsed.ok()) return FlagError("--align", parsed.status().message());
    prepare.align = *parsed;
  }
  absl::StatusOr<std::optional<double>> rate = args.Number("--resample");
  if (!rate.ok()) return rate.status();
  if (rate->has_value()) {
    if (**rate <= 0) return FlagError("--resample", "must be a rate in Hz > 0");
    prepare.resample_rate = *rate;
  }
  if (const std::string* channels = args.Value("--channels")) {
    prepare.channels.clear();
    for (absl::string_view name : absl::StrSplit(*channels, ',')) {
      name = absl::StripAsciiWhitespace(name);
      if (name.empty()) {
        return FlagError("--channels", absl::StrCat("empty channel name in \"", *channels, "\""));
      }
      prepare.channels.emplace_back(name);
    }
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::cli
