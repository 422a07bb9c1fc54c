#include "wire/validation_history.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "wasserwarp/user_text.h"
#include "wire/convert.h"
#include "wire/version_order.h"

namespace wasserwarp::wire {
namespace {

HistoryPoint PointOf(const v1::Validation& record, const std::string& by) {
  const v1::ValidationOutcome& outcome = record.outcome();
  HistoryPoint point;
  point.name = record.name();
  point.by = by;
  point.labels.insert(record.labels().begin(), record.labels().end());
  point.distance = outcome.distance();
  if (outcome.has_ratio()) point.ratio = outcome.ratio();
  if (outcome.has_ratio_interval_lo()) point.ratio_interval_lo = outcome.ratio_interval_lo();
  if (outcome.has_ratio_interval_hi()) point.ratio_interval_hi = outcome.ratio_interval_hi();
  if (outcome.has_p_value()) point.p_value = outcome.p_value();
  if (outcome.has_passed()) point.passed = outcome.passed();
  // The request's rules are what the record was judged by; reading them here spares a
  // GetValidation per record for its report.
  const v1::VerdictParameters& verdict = record.request().verdict();
  if (verdict.has_max_distance()) point.max_distance = verdict.max_distance();
  if (verdict.has_max_ratio()) point.max_ratio = verdict.max_ratio();
  // Only records that succeeded become points, and every record has a creation time.
  point.create_time = absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", FromProtoTime(record.create_time()),
                                       absl::UTCTimeZone());
  return point;
}

}  // namespace

absl::StatusOr<std::string> HistoryLabelKey(absl::string_view by) {
  const absl::string_view key = absl::StripPrefix(by, "labels.");
  if (key.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected labels.KEY, e.g. labels.version, got ", QuotedText(by)));
  }
  return std::string(key);
}

ValidationHistory HistoryOf(const std::vector<v1::Validation>& records, absl::string_view key,
                            absl::string_view filter) {
  ValidationHistory history;
  history.by = std::string(key);
  history.filter = std::string(filter);
  struct Ordered {
    HistoryPoint point;
    google::protobuf::Timestamp created;
  };
  std::vector<Ordered> ordered;
  for (const v1::Validation& record : records) {
    const auto label = record.labels().find(std::string(key));
    if (label == record.labels().end()) {
      ++history.without_label;
    } else if (record.state() != v1::VALIDATION_STATE_SUCCEEDED || !record.has_outcome()) {
      ++history.without_outcome;
    } else {
      ordered.push_back({PointOf(record, label->second), record.create_time()});
    }
  }
  std::stable_sort(ordered.begin(), ordered.end(), [](const Ordered& a, const Ordered& b) {
    if (const int order = CompareVersions(a.point.by, b.point.by); order != 0) return order < 0;
    return std::make_tuple(a.created.seconds(), a.created.nanos(), a.point.name) <
           std::make_tuple(b.created.seconds(), b.created.nanos(), b.point.name);
  });
  for (Ordered& entry : ordered) history.points.push_back(std::move(entry.point));
  return history;
}

}  // namespace wasserwarp::wire
