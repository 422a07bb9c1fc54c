// A leading '+' is accepted on numbers because spreadsheets export it; "nan" and "inf" are
// rejected like any other non-finite value. Fields are not quoted.

#include "series/csv_fields.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp::csv {

absl::Status ErrorAt(absl::string_view source, size_t line, size_t column,
                     absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(source, ":", line, ":", column, ": ", message));
}

std::vector<absl::string_view> Lines(absl::string_view content) {
  absl::ConsumePrefix(&content, "\xEF\xBB\xBF");
  return absl::StrSplit(content, '\n');
}

std::vector<absl::string_view> Fields(absl::string_view line) {
  std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
  for (absl::string_view& field : fields) field = absl::StripAsciiWhitespace(field);
  return fields;
}

bool IsBlank(absl::string_view line) { return absl::StripAsciiWhitespace(line).empty(); }

bool IsBlankOrComment(absl::string_view line) {
  return IsBlank(line) || absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "#");
}

absl::StatusOr<double> ParseFinite(absl::string_view text) {
  absl::string_view number = text;
  if (number.size() > 1 && number[0] == '+' && number[1] != '-') number.remove_prefix(1);
  double value = 0.0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error == std::errc::result_out_of_range) {
    return absl::InvalidArgumentError(absl::StrCat("number out of range: ", QuotedText(text)));
  }
  if (number.empty() || error != std::errc() || end != number.data() + number.size()) {
    return absl::InvalidArgumentError(absl::StrCat("expected a number, got ", QuotedText(text)));
  }
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a finite number, got ", QuotedText(text)));
  }
  return value;
}

absl::StatusOr<double> ParseFiniteAt(absl::string_view text, absl::string_view source, size_t line,
                                     size_t column) {
  absl::StatusOr<double> value = ParseFinite(text);
  if (!value.ok()) return ErrorAt(source, line, column, value.status().message());
  return value;
}

}  // namespace wasserwarp::csv
