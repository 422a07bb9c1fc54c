#include "validation_flags.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "comparison_flags.h"
#include "wire/convert.h"

namespace wasserwarp::cli {

std::vector<FlagSpec> ValidationParameterFlags() {
  std::vector<FlagSpec> flags = ComparisonFlags();
  flags.insert(flags.end(), {{"--scale", Arity::kOne}, {"--order", Arity::kOne}});
  return flags;
}

std::string ValidationParameterFlagsUsage() {
  return absl::StrCat(
      kComparisonFlagsUsage,
      "  --scale none|reference-std\n"
      "                       reference-std: divide each channel by its standard deviation\n"
      "                       over all reference samples (default none)\n"
      "  --order Q            order of the Wasserstein distance, >= 1 (default 1)\n");
}

absl::Status ReadValidationParameterFlags(const ParsedArgs& args, ValidationOptions& options) {
  if (absl::Status status = ReadComparisonFlags(args, options.twed, options.prepare);
      !status.ok()) {
    return status;
  }
  if (const std::string* scale = args.Value("--scale")) {
    absl::StatusOr<Scale> parsed = ParseScale(*scale);
    if (!parsed.ok()) return FlagError("--scale", parsed.status().message());
    options.prepare.scale = *parsed;
  }
  absl::StatusOr<double> order = args.Number("--order", options.order);
  if (!order.ok()) return order.status();
  options.order = *order;
  return absl::OkStatus();
}

absl::StatusOr<v1::ValidationParameters> GivenParameters(const ParsedArgs& args) {
  ValidationOptions options;
  if (absl::Status status = ReadValidationParameterFlags(args, options); !status.ok()) {
    return status;
  }
  const v1::ValidationParameters all = wire::ParametersOf(options);
  v1::ValidationParameters given;
  if (args.Has("--nu")) given.set_nu(all.nu());
  if (args.Has("--lambda")) given.set_deletion_penalty(all.deletion_penalty());
  if (args.Has("--p")) given.set_p(all.p());
  if (args.Has("--time-window")) given.set_time_window(all.time_window());
  if (args.Has("--align")) given.set_align(all.align());
  if (args.Has("--scale")) given.set_scale(all.scale());
  if (args.Has("--order")) given.set_order(all.order());
  if (args.Has("--channels")) *given.mutable_channels() = all.channels();
  if (args.Has("--resample")) given.set_resample_rate(all.resample_rate());
  return given;
}

}  // namespace wasserwarp::cli
