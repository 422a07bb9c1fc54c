#include "validations/validation_filter.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp::service {
namespace {

constexpr char kKnownFields[] = "labels.KEY, state, outcome.passed and create_time";
constexpr std::string_view kStatePrefix = "VALIDATION_STATE_";
// Longest piece of the caller's text an error message repeats.
constexpr size_t kMaxQuoted = 40;

// Debian 12's Abseil has its own absl::string_view, which its string functions want.
absl::string_view View(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// What a field path is made of; anything else ends it, so that `labels.model:x` reports the
// missing operator after `labels.model` rather than a strange key.
bool IsFieldChar(char c) {
  return IsLower(c) || (c >= 'A' && c <= 'Z') || IsDigit(c) || c == '_' || c == '.' || c == '-' ||
         c == '/';
}
// What ends an unquoted word: a word may hold ':' and '+' (an RFC 3339 time) but no operator.
bool EndsWord(char c) {
  return IsSpace(c) || c == '"' || c == '=' || c == '!' || c == '<' || c == '>' || c == '(' ||
         c == ')';
}
bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Positions count characters, not bytes, so that a client counting what it typed agrees.
int Position(std::string_view text, size_t offset) {
  int position = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (!IsContinuationByte(text[i])) ++position;
  }
  return position;
}

std::string Quote(std::string_view text) { return QuotedText(View(text), kMaxQuoted); }

bool IsLabelKeyPart(std::string_view part) {
  if (part.empty() || part.size() > 63 || !IsLower(part[0])) return false;
  for (char c : part.substr(1)) {
    if (!IsLower(c) && !IsDigit(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

std::optional<ValidationState> StateNamed(std::string_view name) {
  if (name.starts_with(kStatePrefix)) name.remove_prefix(kStatePrefix.size());
  if (name == "QUEUED") return ValidationState::kQueued;
  if (name == "RUNNING") return ValidationState::kRunning;
  if (name == "SUCCEEDED") return ValidationState::kSucceeded;
  if (name == "FAILED") return ValidationState::kFailed;
  if (name == "CANCELLED") return ValidationState::kCancelled;
  return std::nullopt;
}

// A hand-written parser over the filter's bytes, one token of lookahead; `pos_` is a byte
// offset into `text_`, positions in messages count characters.
class FilterParser {
 public:
  explicit FilterParser(std::string_view text) : text_(text) {}

  absl::StatusOr<ValidationFilter> Parse() {
    if (absl::Status status = CheckLength(); !status.ok()) return status;
    ValidationFilter filter;
    SkipSpace();
    if (AtEnd()) return filter;
    while (true) {
      if (filter.terms.size() == static_cast<size_t>(kMaxFilterTerms)) {
        return Error(pos_, absl::StrCat("more than ", kMaxFilterTerms, " comparisons"));
      }
      absl::StatusOr<FilterTerm> term = Term();
      if (!term.ok()) return term.status();
      filter.terms.push_back(*std::move(term));
      SkipSpace();
      if (AtEnd()) return filter;
      if (absl::Status status = And(); !status.ok()) return status;
    }
  }

 private:
  // The bound holds before any parsing, so that an oversized filter costs no more than its
  // length to reject.
  absl::Status CheckLength() const {
    int characters = 0;
    for (size_t i = 0; i < text_.size(); ++i) {
      if (IsContinuationByte(text_[i])) continue;
      if (++characters > kMaxFilterCharacters) {
        return Error(
            i, absl::StrCat("the filter is longer than ", kMaxFilterCharacters, " characters"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status Error(size_t offset, std::string_view message) const {
    return InvalidFieldError(
        "filter", absl::StrCat("at position ", Position(text_, offset), ": ", View(message)));
  }

  bool AtEnd() const { return pos_ >= text_.size(); }
  void SkipSpace() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }
  // What is at `pos_`, for "got ..." in messages.
  std::string Got() const {
    if (AtEnd()) return "the end of the filter";
    size_t end = pos_;
    while (end < text_.size() && !EndsWord(text_[end])) ++end;
    return Quote(text_.substr(pos_, end == pos_ ? 1 : end - pos_));
  }

  std::string_view Take(bool (*belongs)(char)) {
    const size_t start = pos_;
    while (!AtEnd() && belongs(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::string_view Word() {
    return Take([](char c) { return !EndsWord(c); });
  }

  // Between two comparisons: AND, then at least one more comparison.
  absl::Status And() {
    const size_t at = pos_;
    const std::string got = Got();
    const std::string_view word = Word();
    if (word == "AND") {
      SkipSpace();
      if (AtEnd()) return Error(pos_, "expected a comparison after AND");
      return absl::OkStatus();
    }
    if (word == "OR") return Error(at, "OR is not supported; only AND joins comparisons");
    if (word == "and") return Error(at, "expected AND, in upper case as AIP-160 has it");
    return Error(at, absl::StrCat("expected AND or the end of the filter, got ", got));
  }

  absl::StatusOr<FilterTerm> Term() {
    const size_t field_at = pos_;
    if (AtEnd()) return Error(pos_, "expected a comparison");
    if (text_[pos_] == '(' || text_[pos_] == ')') {
      return Error(pos_, "parentheses are not supported; join comparisons with AND");
    }
    const std::string got = Got();
    const std::string_view field = Take(IsFieldChar);
    if (field.empty()) {
      return Error(field_at, absl::StrCat("expected a field (", kKnownFields, "), got ", got));
    }
    if (field == "NOT" || field.starts_with('-')) {
      return Error(field_at, "negation is not supported; use !=");
    }
    FilterTerm term;
    if (field == "state") {
      term.field = FilterField::kState;
    } else if (field == "outcome.passed") {
      term.field = FilterField::kPassed;
    } else if (field == "create_time") {
      term.field = FilterField::kCreateTime;
    } else if (field.starts_with("labels.")) {
      term.field = FilterField::kLabel;
      term.label_key = std::string(field.substr(7));
      if (!IsValidLabelKey(term.label_key)) {
        return Error(field_at + 7,
                     absl::StrCat(Quote(term.label_key),
                                  " is not a label key: [a-z][a-z0-9_.-]{0,62}, with an optional "
                                  "\"domain/\" prefix of the same form"));
      }
    } else if (field == "labels") {
      return Error(field_at, "labels needs a key: labels.KEY");
    } else {
      return Error(field_at,
                   absl::StrCat("unknown field ", Quote(field), "; the fields are ", kKnownFields));
    }

    SkipSpace();
    const size_t op_at = pos_;
    absl::StatusOr<FilterOperator> op = Operator(field);
    if (!op.ok()) return op.status();
    term.op = *op;
    if (term.field != FilterField::kCreateTime && term.op != FilterOperator::kEqual &&
        term.op != FilterOperator::kNotEqual) {
      return Error(op_at, absl::StrCat(View(field), " takes only = and !=, not ",
                                       FilterOperatorText(term.op)));
    }

    SkipSpace();
    const size_t value_at = pos_;
    absl::StatusOr<std::string> value = Value(term.op);
    if (!value.ok()) return value.status();
    if (absl::Status status = SetValue(*value, value_at, term); !status.ok()) return status;
    return term;
  }

  absl::StatusOr<FilterOperator> Operator(std::string_view field) {
    const std::string_view rest = text_.substr(pos_);
    FilterOperator op = FilterOperator::kEqual;
    size_t length = 2;
    if (rest.starts_with("!=")) {
      op = FilterOperator::kNotEqual;
    } else if (rest.starts_with("<=")) {
      op = FilterOperator::kLessOrEqual;
    } else if (rest.starts_with(">=")) {
      op = FilterOperator::kGreaterOrEqual;
    } else if (rest.starts_with("==")) {
      return Error(pos_, "== is not an operator; use =");
    } else {
      length = 1;
      if (rest.starts_with("=")) {
        op = FilterOperator::kEqual;
      } else if (rest.starts_with("<")) {
        op = FilterOperator::kLess;
      } else if (rest.starts_with(">")) {
        op = FilterOperator::kGreater;
      } else {
        return Error(pos_, absl::StrCat("expected \"=\", \"!=\", \"<\", \"<=\", \">\" or \">=\" "
                                        "after ",
                                        View(field), ", got ", Got()));
      }
    }
    pos_ += length;
    return op;
  }

  // The value's text, its quotes and escapes removed.
  absl::StatusOr<std::string> Value(FilterOperator op) {
    if (AtEnd() || text_[pos_] != '"') {
      const std::string got = Got();
      const std::string_view word = Word();
      // An unquoted AND is far more likely a missing value than a comparison with "AND".
      if (word.empty() || word == "AND") {
        return Error(pos_ - word.size(), absl::StrCat("expected a value after ",
                                                      FilterOperatorText(op), ", got ", got));
      }
      return std::string(word);
    }
    const size_t open = pos_;
    std::string value;
    for (++pos_; !AtEnd(); ++pos_) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return value;
      }
      if (c == '\\') {
        if (pos_ + 1 >= text_.size()) break;
        const char escaped = text_[pos_ + 1];
        if (escaped != '"' && escaped != '\\') {
          return Error(pos_, "unknown escape; only \\\" and \\\\ are allowed in quotes");
        }
        value.push_back(escaped);
        ++pos_;
        continue;
      }
      value.push_back(c);
    }
    return Error(open, "the quoted value has no closing \"");
  }

  absl::Status SetValue(const std::string& value, size_t value_at, FilterTerm& term) const {
    switch (term.field) {
      case FilterField::kLabel:
        term.value = value;
        return absl::OkStatus();
      case FilterField::kState: {
        std::optional<ValidationState> state = StateNamed(value);
        if (!state.has_value()) {
          return Error(value_at, absl::StrCat(Quote(value),
                                              " is not a validation state; the states are "
                                              "QUEUED, RUNNING, SUCCEEDED, FAILED and CANCELLED"));
        }
        term.value = *state;
        return absl::OkStatus();
      }
      case FilterField::kPassed:
        if (value != "true" && value != "false") {
          return Error(value_at,
                       absl::StrCat("outcome.passed is true or false, not ", Quote(value)));
        }
        term.value = value == "true";
        return absl::OkStatus();
      case FilterField::kCreateTime: {
        absl::Time time;
        std::string error;
        // ParseTime also takes "infinite-future" and "infinite-past", which are no RFC 3339.
        if (!absl::ParseTime(absl::RFC3339_full, value, &time, &error) ||
            time == absl::InfiniteFuture() || time == absl::InfinitePast()) {
          return Error(value_at, absl::StrCat("create_time wants an RFC 3339 time such as "
                                              "\"2026-03-01T00:00:00Z\", not ",
                                              Quote(value)));
        }
        term.value = time;
        return absl::OkStatus();
      }
    }
    return absl::OkStatus();
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<ValidationFilter> ParseValidationFilter(std::string_view text) {
  return FilterParser(text).Parse();
}

bool IsValidLabelKey(std::string_view key) {
  const size_t slash = key.find('/');
  if (slash == std::string_view::npos) return IsLabelKeyPart(key);
  return IsLabelKeyPart(key.substr(0, slash)) && IsLabelKeyPart(key.substr(slash + 1));
}

absl::StatusOr<ValidationOrder> ParseValidationOrder(std::string_view order_by) {
  const std::vector<absl::string_view> words =
      absl::StrSplit(View(order_by), absl::ByAnyChar(" \t\n\r\f\v"), absl::SkipEmpty());
  if (words.empty()) return ValidationOrder::kNewestFirst;
  if (words[0] == "create_time") {
    if (words.size() == 1) return ValidationOrder::kOldestFirst;
    if (words.size() == 2 && words[1] == "desc") return ValidationOrder::kNewestFirst;
  }
  return InvalidFieldError(
      "order_by", absl::StrCat(Quote(order_by),
                               " is not an order; use \"create_time desc\" (the default) or "
                               "\"create_time\""));
}

const char* FilterOperatorText(FilterOperator op) {
  switch (op) {
    case FilterOperator::kEqual:
      return "=";
    case FilterOperator::kNotEqual:
      return "!=";
    case FilterOperator::kLess:
      return "<";
    case FilterOperator::kLessOrEqual:
      return "<=";
    case FilterOperator::kGreater:
      return ">";
    case FilterOperator::kGreaterOrEqual:
      return ">=";
  }
  return "?";
}

}  // namespace wasserwarp::service
