#include "bootstrap_flags.h"

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/compare.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadResamples(absl::string_view flag, const ParsedArgs& args,
                           BootstrapSettings& settings) {
  absl::StatusOr<int> resamples = GivenInteger(args, flag);
  if (!resamples.ok()) return resamples.status();
  if (*resamples < 1 || *resamples > kMaxResamples) {
    return FlagError(flag, absl::StrCat("must be from 1 to ", kMaxResamples));
  }
  settings.resamples = *resamples;
  return absl::OkStatus();
}

absl::Status ReadConfidence(absl::string_view flag, const ParsedArgs& args,
                            BootstrapSettings& settings) {
  absl::StatusOr<double> confidence = GivenNumber(args, flag);
  if (!confidence.ok()) return confidence.status();
  if (!(*confidence > 0.0 && *confidence < 1.0)) {
    return FlagError(flag, "must be between 0 and 1, e.g. 0.95");
  }
  settings.confidence = *confidence;
  return absl::OkStatus();
}

constexpr FlagDefinition<BootstrapSettings> kBootstrapFlags[] = {
    {"--resamples", Arity::kOne, "K", "bootstrap resamples (default 999)", &ReadResamples},
    {"--confidence", Arity::kOne, "C", "coverage of the intervals, in (0, 1) (default 0.95)",
     &ReadConfidence},
};

}  // namespace

std::vector<DocumentedFlag> BootstrapFlags() {
  return Documented<BootstrapSettings>(kBootstrapFlags);
}

absl::Status ReadBootstrapFlags(const ParsedArgs& args, BootstrapSettings& settings) {
  return ReadFlags<BootstrapSettings>(kBootstrapFlags, args, settings);
}

}  // namespace wasserwarp::cli
