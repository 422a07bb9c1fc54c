#include "flag_terms.h"

#include <string>

#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::cli {
namespace {

struct FlagTerm {
  absl::string_view field;
  absl::string_view flag;
};

constexpr FlagTerm kFlagTerms[] = {
    {"nu", "--nu"},
    {"lambda", "--lambda"},
    {"p", "--p"},
    {"time_window", "--time-window"},
    {"align", "--align"},
    {"scale", "--scale"},
    {"order", "--order"},
    {"channels", "--channels"},
    {"resample_rate", "--resample"},
    {"resampling", "--resample"},
    {"permutations", "--permutations"},
    {"seed", "--seed"},
    {"max_distance", "--max-distance"},
    {"max_ratio", "--max-ratio"},
    {"alpha", "--alpha"},
    {"ratio_rule", "--ratio-rule"},
    {"ratio_confidence", "--ratio-confidence"},
    {"min_iso_rating", "--min-iso-rating"},
    {"iso18571", "--iso18571"},
    {"keep_cost_matrix", "--cost-matrix"},
    {"keep_pooled_cost_matrix", "--cost-matrix"},
    {"html_report", "--report"},
    {"verdict",
     "the verdict (--max-distance, --max-ratio, --alpha, --min-iso-rating, --permutations)"},
    {"runs", "--sim/--ref"},
    {"resamples", "--resamples"},
    {"confidence", "--confidence"},
    {"splits", "--splits"},
    {"nominal", "--nominal"},
    {"pair_cost", "--pair-cost"},
    {"reference_groups", "--ref-groups"},
    {"bands", "--band"},
    {"band_min_inside", "--band-min-inside"},

    {"window", "--window"},
    {"window_before", "--window-before"},
    {"window_after", "--window-after"},
    {"window_hysteresis", "--window-hysteresis"},
    {"skip_untriggered", "--skip-untriggered"},
    {"channel_map", "--map"},
    {"strict_units", "--strict-units"},
};

}  // namespace

absl::Status InFlagTerms(const absl::Status& status) {
  const std::string field = ErrorField(status);
  for (const FlagTerm& term : kFlagTerms) {
    if (term.field == field) return RenameField(status, term.flag);
  }
  return status;
}

}  // namespace wasserwarp::cli
