// ListValidations' `filter` and `order_by` (AIP-160 and AIP-132 subsets), parsed into plain
// values that know no SQL and no proto, so that each store can translate them its own way
// (validation_filter_sql.h) and the service can reject a bad filter before it reaches a store.
//
// The filter is comparisons joined with AND, each one of
//   labels.KEY = "value"     labels.KEY != "value"
//   state = SUCCEEDED        state != FAILED          (VALIDATION_STATE_SUCCEEDED also)
//   outcome.passed = true    outcome.passed != false
//   create_time >= "2026-03-01T00:00:00Z"             (=, !=, <, <=, >, >=; RFC 3339)
// AND is case-sensitive, as in AIP-160; whitespace around tokens is optional. A value is either
// double-quoted, with \" and \\ as its only escapes, or one unquoted word (no whitespace, no
// quote, no operator character); quoting changes nothing else, so `state = "SUCCEEDED"` and
// `outcome.passed = "true"` are accepted too. OR, NOT and parentheses are not part of the subset.
//
// Every error is INVALID_ARGUMENT about the field `filter` (InvalidFieldError), its message
// "at position N: ..." where N is the 1-based character (UTF-8 code point) the problem starts at,
// or one past the last character where the filter ended too soon.

#ifndef WASSERWARP_SERVER_VALIDATIONS_VALIDATION_FILTER_H_
#define WASSERWARP_SERVER_VALIDATIONS_VALIDATION_FILTER_H_

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "validations/validation_record.h"

namespace wasserwarp::service {

// Bounds on what a caller may make the service parse and the database evaluate.
inline constexpr int kMaxFilterCharacters = 2048;
inline constexpr int kMaxFilterTerms = 32;

enum class FilterField {
  kLabel,       // labels.KEY: a std::string value
  kState,       // state: a ValidationState value
  kPassed,      // outcome.passed: a bool value
  kCreateTime,  // create_time: an absl::Time value
};

// kLabel, kState and kPassed take only kEqual and kNotEqual.
enum class FilterOperator {
  kEqual,
  kNotEqual,
  kLess,
  kLessOrEqual,
  kGreater,
  kGreaterOrEqual,
};

struct FilterTerm {
  FilterField field = FilterField::kState;
  // kLabel only: the label's key, e.g. "model" or "example.com/model".
  std::string label_key;
  FilterOperator op = FilterOperator::kEqual;
  // The alternative that `field` names (see FilterField).
  std::variant<std::string, ValidationState, bool, absl::Time> value;

  bool operator==(const FilterTerm&) const = default;
};

// Every term must hold (AND); no terms: every validation matches.
struct ValidationFilter {
  std::vector<FilterTerm> terms;

  bool operator==(const ValidationFilter&) const = default;
};

// The operator as the filter writes it ("=", "!=", "<", ...); SQL reads it the same way.
const char* FilterOperatorText(FilterOperator op);

// Parses `text` as described at the top of this file; empty or blank text has no terms.
absl::StatusOr<ValidationFilter> ParseValidationFilter(std::string_view text);

// Whether `key` is a label key as ValidateRequest.labels allows: [a-z][a-z0-9_.-]{0,62}, with
// an optional "domain/" prefix of the same form. The filter rejects other keys rather than
// match nothing, so that a typo is an error rather than an empty page.
bool IsValidLabelKey(std::string_view key);

enum class ValidationOrder {
  kNewestFirst,  // "create_time desc", and the default
  kOldestFirst,  // "create_time"
};

// Parses ListValidationsRequest.order_by: empty (the default), "create_time desc" or
// "create_time", whitespace-tolerant. Anything else is INVALID_ARGUMENT about `order_by`.
absl::StatusOr<ValidationOrder> ParseValidationOrder(std::string_view order_by);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_VALIDATIONS_VALIDATION_FILTER_H_
