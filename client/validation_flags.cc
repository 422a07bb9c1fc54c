#include "validation_flags.h"

#include <string>
#include <utility>

#include "wasserwarp/prepare.h"
#include "wire/convert.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadScale(absl::string_view flag, const ParsedArgs& args,
                       ParameterSettings& settings) {
  absl::StatusOr<Scale> scale = ParseScale(*args.Value(flag));
  if (!scale.ok()) return FlagError(flag, scale.status().message());
  settings.options.prepare.scale = *scale;
  settings.given.set_scale(wire::ToProto(*scale));
  return absl::OkStatus();
}

// The core checks the range, as for every caller; flag_terms.h puts its error in flag terms.
absl::Status ReadOrder(absl::string_view flag, const ParsedArgs& args,
                       ParameterSettings& settings) {
  absl::StatusOr<double> order = GivenNumber(args, flag);
  if (!order.ok()) return order.status();
  settings.options.order = *order;
  settings.given.set_order(*order);
  return absl::OkStatus();
}

constexpr FlagDefinition<ParameterSettings> kValidationOnlyFlags[] = {
    {"--scale", Arity::kOne, "none|reference-std",
     "reference-std: divide each channel by its standard deviation\n"
     "over all reference samples (default none)",
     &ReadScale},
    {"--order", Arity::kOne, "Q", "order of the Wasserstein distance, >= 1 (default 1)",
     &ReadOrder},
};

}  // namespace

std::vector<DocumentedFlag> ValidationParameterFlags() {
  std::vector<DocumentedFlag> flags = ComparisonFlags();
  const std::vector<DocumentedFlag> own = Documented<ParameterSettings>(kValidationOnlyFlags);
  flags.insert(flags.end(), own.begin(), own.end());
  return flags;
}

absl::StatusOr<ParameterSettings> ReadValidationParameterFlags(const ParsedArgs& args) {
  ParameterSettings settings;
  if (absl::Status status = ReadComparisonFlags(args, settings); !status.ok()) return status;
  if (absl::Status status = ReadFlags<ParameterSettings>(kValidationOnlyFlags, args, settings);
      !status.ok()) {
    return status;
  }
  return settings;
}

absl::StatusOr<v1::ValidationParameters> GivenParameters(const ParsedArgs& args) {
  absl::StatusOr<ParameterSettings> settings = ReadValidationParameterFlags(args);
  if (!settings.ok()) return settings.status();
  return std::move(settings->given);
}

}  // namespace wasserwarp::cli
