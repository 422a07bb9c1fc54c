// A model's validation history as one self-contained HTML page, like the validation's
// (wasserwarp/html_report.h): W and the baseline ratio's interval over the values of one label
// (versions, dates), each record marked PASS or FAIL, with the thresholds its rules judged by.
// `wasserwarp validations history --report` writes it.

#ifndef WASSERWARP_HISTORY_HTML_H_
#define WASSERWARP_HISTORY_HTML_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "wasserwarp/html_report.h"

namespace wasserwarp {

// One validation record of the history: what its outcome and request say.
struct HistoryPoint {
  // The record's name, sessions/S/validations/V.
  std::string name;
  // The value of the history's label on this record: the x axis.
  std::string by;
  std::map<std::string, std::string> labels;
  double distance = 0.0;
  std::optional<double> ratio;
  std::optional<double> ratio_interval_lo;
  std::optional<double> ratio_interval_hi;
  std::optional<double> p_value;
  // Unset without a decision rule.
  std::optional<bool> passed;
  // The decision rules the request gave, unset when it gave none.
  std::optional<double> max_distance;
  std::optional<double> max_ratio;
  // RFC 3339.
  std::string create_time;
};

struct ValidationHistory {
  // The label key the records are ordered by, without "labels.".
  std::string by;
  // The ListValidations filter that found them, as given.
  std::string filter;
  // In the order of `by`'s values, ties by creation time.
  std::vector<HistoryPoint> points;
  // Records that matched but could not be drawn: without the label, or without an outcome.
  int without_label = 0;
  int without_outcome = 0;
};

// The latest record's verdict first, then W per value of the label with each record's
// max_distance, the baseline ratio with its interval and max_ratio (when a record has a
// baseline), and one table row per record. Of `options` only the title, tool version and time
// are used.
std::string RenderHistoryHtml(const ValidationHistory& history, const HtmlReportOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_HISTORY_HTML_H_
