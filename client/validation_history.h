// `validations history`: a model's validation records in the order of one label's values
// (versions, dates; wire/validation_history.h orders them), as a table and a JSON array. Pure
// functions of the history, so that the shapes are tested without a server.

#ifndef WASSERWARP_CLIENT_VALIDATION_HISTORY_H_
#define WASSERWARP_CLIENT_VALIDATION_HISTORY_H_

#include <string>

#include "wasserwarp/history_html.h"

namespace wasserwarp::cli {

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
