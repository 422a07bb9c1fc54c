// A model's validation history from its records: the records ListValidations returned, in the
// order of one label's values (versions, dates), as the core's ValidationHistory that
// RenderHistoryHtml draws. The CLI's `validations history` and the server's /history page both
// build it here, so that they order and leave out records alike.

#ifndef WASSERWARP_WIRE_VALIDATION_HISTORY_H_
#define WASSERWARP_WIRE_VALIDATION_HISTORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/history_html.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

// The label key of a history's `by`, given as labels.KEY (as in a filter) or KEY;
// InvalidArgument for an empty key.
absl::StatusOr<std::string> HistoryLabelKey(absl::string_view by);

// The records that have the label `key` and an outcome (they SUCCEEDED), in the order of the
// label's values as CompareVersions orders them, equal values by creation time, then name; the
// others are counted. Each point's thresholds are its request's max_distance and max_ratio.
ValidationHistory HistoryOf(const std::vector<v1::Validation>& records, absl::string_view key,
                            absl::string_view filter);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_VALIDATION_HISTORY_H_
