// `validations history`: a model's validation records in the order of one label's values
// (versions, dates), as a table, a JSON array and the history page. Pure functions of the
// records ListValidations returned, so that the order and the shapes are tested without a
// server.

#ifndef WASSERWARP_CLIENT_VALIDATION_HISTORY_H_
#define WASSERWARP_CLIENT_VALIDATION_HISTORY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "wasserwarp/history_html.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::cli {

// The label key of --by, given as labels.KEY (as in a filter) or KEY; InvalidArgument for an
// empty key.
absl::StatusOr<std::string> HistoryLabelKey(absl::string_view by);

// The records that have the label `key` and an outcome (they SUCCEEDED), in the order of the
// label's values as CompareVersions orders them, equal values by creation time, then name; the
// others are counted. Each point's thresholds are its request's max_distance and max_ratio.
ValidationHistory HistoryOf(const std::vector<v1::Validation>& records, absl::string_view key,
                            absl::string_view filter);

// One line per point: the label's value, W, ratio and interval, p, verdict and the record's
// name, under a header line.
std::string FormatHistoryTable(const ValidationHistory& history);

// A JSON array, in the history's order, of {name, by, labels, distance, ratio,
// ratio_interval: [lo, hi], p_value, passed, create_time}; what a record lacks is null.
std::string HistoryToJson(const ValidationHistory& history);

// What was left out and why, for stderr; empty when nothing was.
std::string HistoryNote(const ValidationHistory& history);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_VALIDATION_HISTORY_H_
