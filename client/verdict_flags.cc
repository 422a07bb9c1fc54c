#include "verdict_flags.h"

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "convert.h"
#include "execution_flags.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/verdict.h"

namespace wasserwarp::cli {
namespace {

constexpr char kMaxDistance[] = "--max-distance";
constexpr char kMaxRatio[] = "--max-ratio";
constexpr char kAlpha[] = "--alpha";
constexpr char kPermutations[] = "--permutations";
constexpr char kKeepFloor[] = "--keep-sampling-floor";
constexpr char kQoi[] = "--qoi";

absl::Status ReadQuantities(const ParsedArgs& args, ValidationOptions& options) {
  for (const std::string& list : args.Values(kQoi)) {
    absl::StatusOr<std::vector<QuantityOfInterest>> quantities = ParseQuantitiesOfInterest(list);
    if (!quantities.ok()) return FlagError(kQoi, quantities.status().message());
    options.quantities.insert(options.quantities.end(), quantities->begin(), quantities->end());
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<FlagSpec> VerdictFlags() {
  return {{kMaxDistance, Arity::kOne},
          {kMaxRatio, Arity::kOne},
          {kAlpha, Arity::kOne},
          {kPermutations, Arity::kOne},
          kSeedFlag,
          {kKeepFloor, Arity::kSwitch},
          {kQoi, Arity::kMany}};
}

const char kVerdictFlagsUsage[] =
    "  --max-distance X     PASS only if the distance is at most X\n"
    "  --max-ratio K        PASS only if the baseline ratio (simulations against references\n"
    "                       over references against references, same-size groups) is at most K\n"
    "  --alpha A            PASS only if the permutation test's p-value is at least A\n"
    "  --permutations K     relabellings of the permutation test and splits of the baseline\n"
    "                       (default 999); any rule or this flag runs the test and baseline\n"
    "  --seed S             seed of the permutations and splits (default 1)\n"
    "  --keep-sampling-floor\n"
    "                       do not subtract lambda * |n_i - n_j| from TWED before the test\n"
    "                       and the baseline\n"
    "  --qoi LIST           quantities of interest, \"channel:quantity,...\" with quantity one\n"
    "                       of max, min, mean, final, value_at:T, integral, time_of_max; each\n"
    "                       gets the area validation metric in the channel's units\n";

absl::Status ReadVerdictFlags(const ParsedArgs& args, ValidationOptions& options) {
  if (absl::Status status = ReadQuantities(args, options); !status.ok()) return status;
  if (!args.Has(kMaxDistance) && !args.Has(kMaxRatio) && !args.Has(kAlpha) &&
      !args.Has(kPermutations)) {
    for (absl::string_view flag : {kSeedFlag.name, absl::string_view(kKeepFloor)}) {
      if (args.Has(flag)) {
        return FlagError(flag,
                         "needs a decision rule (--max-distance, --max-ratio, --alpha) "
                         "or --permutations");
      }
    }
    return absl::OkStatus();
  }
  VerdictOptions verdict;
  for (auto [flag, field] :
       {std::pair{kMaxDistance, &verdict.max_distance}, std::pair{kMaxRatio, &verdict.max_ratio},
        std::pair{kAlpha, &verdict.alpha}}) {
    absl::StatusOr<std::optional<double>> value = args.Number(flag);
    if (!value.ok()) return value.status();
    *field = *value;
  }
  absl::StatusOr<std::optional<int>> permutations = args.Integer(kPermutations);
  if (!permutations.ok()) return permutations.status();
  if (permutations->has_value()) verdict.permutations = **permutations;
  if (absl::Status status = ReadFlag(kSeedFlag, args, verdict.seed); !status.ok()) return status;
  verdict.subtract_sampling_floor = !args.Has(kKeepFloor);
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
}

}  // namespace wasserwarp::cli
