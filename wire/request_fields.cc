#include "wire/request_fields.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/field_error.h"

namespace wasserwarp::wire {
namespace {

enum class Scope { kParameters, kRequest };

struct RequestField {
  absl::string_view core;
  Scope scope;
  absl::string_view path;  // relative to the scope
};

constexpr RequestField kRequestFields[] = {
    {"nu", Scope::kParameters, "nu"},
    {"lambda", Scope::kParameters, "deletion_penalty"},
    {"p", Scope::kParameters, "p"},
    {"time_window", Scope::kParameters, "time_window"},
    {"align", Scope::kParameters, "align"},
    {"scale", Scope::kParameters, "scale"},
    {"order", Scope::kParameters, "order"},
    {"channels", Scope::kParameters, "channels"},
    {"resample_rate", Scope::kParameters, "resample_rate"},
    {"resampling", Scope::kParameters, "resampling"},
    {"window", Scope::kParameters, "window.condition"},
    {"window_before", Scope::kParameters, "window.before"},
    {"window_after", Scope::kParameters, "window.after"},
    {"window_hysteresis", Scope::kParameters, "window.hysteresis"},
    {"skip_untriggered", Scope::kParameters, "window.skip_untriggered"},
    {"channel_map", Scope::kParameters, "channel_map"},
    {"strict_units", Scope::kParameters, "strict_units"},
    {"verdict", Scope::kRequest, "verdict"},
    {"permutations", Scope::kRequest, "verdict.permutations"},
    {"seed", Scope::kRequest, "verdict.seed"},
    {"max_distance", Scope::kRequest, "verdict.max_distance"},
    {"max_ratio", Scope::kRequest, "verdict.max_ratio"},
    {"alpha", Scope::kRequest, "verdict.alpha"},
    {"ratio_rule", Scope::kRequest, "verdict.ratio_rule"},
    {"ratio_confidence", Scope::kRequest, "verdict.ratio_confidence"},
    {"min_iso_rating", Scope::kRequest, "verdict.min_iso_rating"},
    {"iso18571", Scope::kRequest, "iso18571"},
    {"keep_cost_matrix", Scope::kRequest, "include_cost_matrix"},
    {"keep_pooled_cost_matrix", Scope::kRequest, "include_pooled_cost_matrix"},
    {"html_report", Scope::kRequest, "include_html_report"},
    {"bands", Scope::kRequest, "bands"},
    {"band_min_inside", Scope::kRequest, "verdict.band_min_inside"},
    // Sizes that follow from the runs alone are the session's.
    {"runs", Scope::kRequest, "session"},
};

}  // namespace

absl::Status InRequestTerms(const absl::Status& status, absl::string_view parameters) {
  const std::string field = ErrorField(status);
  for (const RequestField& known : kRequestFields) {
    if (known.core != field) continue;
    return RenameField(status, known.scope == Scope::kParameters
                                   ? absl::StrCat(parameters, ".", known.path)
                                   : std::string(known.path));
  }
  return status;
}

}  // namespace wasserwarp::wire
