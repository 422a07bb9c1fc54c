#include "verdict_flags.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "execution_flags.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/tolerance_band.h"
#include "wasserwarp/verdict.h"
#include "wire/convert.h"
#include "wire/parameters.h"

namespace wasserwarp::cli {
namespace {

// A decision rule's threshold; ValidateVerdictOptions checks it with the others.
template <std::optional<double> VerdictOptions::*threshold>
absl::Status ReadThreshold(absl::string_view flag, const ParsedArgs& args,
                           VerdictOptions& verdict) {
  absl::StatusOr<double> value = GivenNumber(args, flag);
  if (!value.ok()) return value.status();
  verdict.*threshold = *value;
  return absl::OkStatus();
}

absl::Status ReadPermutations(absl::string_view flag, const ParsedArgs& args,
                              VerdictOptions& verdict) {
  absl::StatusOr<int> permutations = GivenInteger(args, flag);
  if (!permutations.ok()) return permutations.status();
  verdict.permutations = *permutations;
  return absl::OkStatus();
}

absl::Status ReadRatioRule(absl::string_view flag, const ParsedArgs& args,
                           VerdictOptions& verdict) {
  absl::StatusOr<RatioRule> rule = ParseRatioRule(*args.Value(flag));
  if (!rule.ok()) return FlagError(flag, rule.status().message());
  verdict.ratio_rule = *rule;
  return absl::OkStatus();
}

absl::Status ReadRatioConfidence(absl::string_view flag, const ParsedArgs& args,
                                 VerdictOptions& verdict) {
  absl::StatusOr<double> confidence = GivenNumber(args, flag);
  if (!confidence.ok()) return confidence.status();
  verdict.ratio_confidence = *confidence;
  return absl::OkStatus();
}

absl::Status ReadKeepFloor(absl::string_view, const ParsedArgs&, VerdictOptions& verdict) {
  verdict.subtract_sampling_floor = false;
  return absl::OkStatus();
}

absl::Status ReadQuantities(absl::string_view flag, const ParsedArgs& args,
                            std::vector<QuantityOfInterest>& quantities) {
  for (const std::string& list : args.Values(flag)) {
    absl::StatusOr<std::vector<QuantityOfInterest>> parsed = ParseQuantitiesOfInterest(list);
    if (!parsed.ok()) return FlagError(flag, parsed.status().message());
    quantities.insert(quantities.end(), parsed->begin(), parsed->end());
  }
  return absl::OkStatus();
}

absl::Status ReadBands(absl::string_view flag, const ParsedArgs& args,
                       std::vector<ToleranceBand>& bands) {
  for (const std::string& spec : args.Values(flag)) {
    absl::StatusOr<ToleranceBand> band = ParseToleranceBand(spec);
    if (!band.ok()) return FlagError(flag, band.status().message());
    bands.push_back(*std::move(band));
  }
  return absl::OkStatus();
}

// Any of these asks for the permutation test and the baseline.
constexpr FlagDefinition<VerdictOptions> kTestFlags[] = {
    {"--max-distance", Arity::kOne, "X", "PASS only if the distance is at most X",
     &ReadThreshold<&VerdictOptions::max_distance>},
    {"--max-ratio", Arity::kOne, "K",
     "PASS only if the baseline ratio (simulations against references\n"
     "over references against references, same-size groups) is at most\n"
     "K: by default the upper end of its bootstrap interval\n"
     "(--ratio-rule); needs 3 reference runs, and 6 or more to say much",
     &ReadThreshold<&VerdictOptions::max_ratio>},
    {"--alpha", Arity::kOne, "A", "PASS only if the permutation test's p-value is at least A",
     &ReadThreshold<&VerdictOptions::alpha>},
    {"--band-min-inside", Arity::kOne, "F",
     "PASS only if every matched pair has at least the share F of its\n"
     "samples inside every --band",
     &ReadThreshold<&VerdictOptions::band_min_inside>},
    {"--min-iso-rating", Arity::kOne, "R",
     "PASS only if every channel's plan-weighted mean ISO/TS 18571\n"
     "rating is at least R, in [0, 1]; rates the pairs (--iso18571)",
     &ReadThreshold<&VerdictOptions::min_iso_rating>},
    {"--permutations", Arity::kOne, "K",
     "relabellings of the permutation test and splits of the baseline\n"
     "(default 999); any rule or this flag runs the test and baseline",
     &ReadPermutations},
};

// These tune the test, so they need one of kTestFlags, as --seed does.
constexpr FlagDefinition<VerdictOptions> kTuningFlags[] = {
    {"--keep-sampling-floor", Arity::kSwitch, "",
     "do not subtract lambda * |n_i - n_j| from TWED before the test\n"
     "and the baseline",
     &ReadKeepFloor},
    {"--ratio-rule", Arity::kOne, "interval|median",
     "what --max-ratio judges: interval (default), the upper end of\n"
     "the ratio's bootstrap interval; median, the median ratio over\n"
     "splits (the earlier rule, which has no error rate)",
     &ReadRatioRule},
    {"--ratio-confidence", Arity::kOne, "C",
     "confidence of the ratio's bootstrap interval, in (0, 1)\n"
     "(default 0.95)",
     &ReadRatioConfidence},
};

}  // namespace

const FlagDefinition<std::vector<QuantityOfInterest>> kQoiFlag = {
    "--qoi", Arity::kMany, "LIST",
    "quantities of interest, \"channel:quantity,...\" with quantity one\n"
    "of max, min, mean, final, value_at:T, integral, time_of_max; each\n"
    "gets the area validation metric in the channel's units",
    &ReadQuantities};

namespace {

const FlagDefinition<std::vector<ToleranceBand>> kBandFlag = {
    "--band", Arity::kMany, "CHANNEL:abs=A,rel=R,lead=S,lag=S",
    "a tolerance band around each matched reference run (repeatable):\n"
    "at each reference sample, the reference's min and max over the\n"
    "S seconds lag before and lead after it, widened by max(A, R|ref|);\n"
    "reports the share of the simulated run inside, per pair",
    &ReadBands};

bool AsksForTest(const ParsedArgs& args) {
  for (const FlagDefinition<VerdictOptions>& flag : kTestFlags) {
    if (args.Has(flag.name)) return true;
  }
  return false;
}

}  // namespace

std::vector<DocumentedFlag> VerdictFlags() {
  std::vector<DocumentedFlag> flags = Documented<VerdictOptions>(kTestFlags);
  flags.insert(flags.end(),
               {DescribedAs(kSeedFlag, "seed of the permutations and splits (default 1)")});
  const std::vector<DocumentedFlag> tuning = Documented<VerdictOptions>(kTuningFlags);
  flags.insert(flags.end(), tuning.begin(), tuning.end());
  flags.push_back(kQoiFlag);
  flags.push_back(kBandFlag);
  return flags;
}

absl::Status ReadVerdictFlags(const ParsedArgs& args, ValidationOptions& options) {
  if (absl::Status status = ReadFlag(kQoiFlag, args, options.quantities); !status.ok()) {
    return status;
  }
  if (absl::Status status = ReadFlag(kBandFlag, args, options.bands); !status.ok()) return status;
  if (!AsksForTest(args)) {
    std::vector<FlagSpec> tuning = {FlagSpec(kSeedFlag)};
    for (const FlagDefinition<VerdictOptions>& flag : kTuningFlags) tuning.emplace_back(flag);
    for (const FlagSpec& flag : tuning) {
      if (args.Has(flag.name)) {
        return FlagError(flag.name,
                         "needs a decision rule (--max-distance, --max-ratio, --alpha, "
                         "--band-min-inside, --min-iso-rating) or --permutations");
      }
    }
    return absl::OkStatus();
  }
  VerdictOptions verdict;
  if (absl::Status status = ReadFlags<VerdictOptions>(kTestFlags, args, verdict); !status.ok()) {
    return status;
  }
  if (absl::Status status = ReadFlag(kSeedFlag, args, verdict.seed); !status.ok()) return status;
  if (absl::Status status = ReadFlags<VerdictOptions>(kTuningFlags, args, verdict); !status.ok()) {
    return status;
  }
  if (absl::Status status = ValidateVerdictOptions(verdict); !status.ok()) return status;
  options.verdict = verdict;
  return absl::OkStatus();
}

void AddVerdictToRequest(const ValidationOptions& options, v1::ValidateRequest& request) {
  if (options.verdict.has_value()) {
    *request.mutable_verdict() = wire::VerdictParametersOf(*options.verdict);
  }
  for (const QuantityOfInterest& quantity : options.quantities) {
    request.add_quantities(absl::StrCat(quantity.channel, ":", quantity.quantity()));
  }
  for (const ToleranceBand& band : options.bands) request.add_bands(ToleranceBandSpec(band));
}

}  // namespace wasserwarp::cli
