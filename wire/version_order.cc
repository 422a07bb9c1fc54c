#include "wire/version_order.h"

#include <cstddef>

#include "absl/strings/ascii.h"

namespace wasserwarp::wire {
namespace {

// The run of digits, or of other characters, that starts at `at`.
absl::string_view RunAt(absl::string_view text, size_t at) {
  const bool digits = absl::ascii_isdigit(static_cast<unsigned char>(text[at]));
  size_t end = at;
  while (end < text.size() &&
         absl::ascii_isdigit(static_cast<unsigned char>(text[end])) == digits) {
    ++end;
  }
  return text.substr(at, end - at);
}

// Digit runs by value without converting them, so that no length overflows.
int CompareNumbers(absl::string_view a, absl::string_view b) {
  while (a.size() > 1 && a.front() == '0') a.remove_prefix(1);
  while (b.size() > 1 && b.front() == '0') b.remove_prefix(1);
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  return a.compare(b);
}

bool IsDigitRun(absl::string_view run) {
  return absl::ascii_isdigit(static_cast<unsigned char>(run.front()));
}

// A release's pre-releases (4.2.0-rc1, 4.2.0~beta) come before it; a '-' before a digit
// (2026-03-01, Debian's 4.2.0-1) separates numbers instead.
bool IsPreReleaseSuffix(absl::string_view rest) {
  return rest.size() > 1 && (rest[0] == '-' || rest[0] == '~') &&
         absl::ascii_isalpha(static_cast<unsigned char>(rest[1]));
}

}  // namespace

int CompareVersions(absl::string_view a, absl::string_view b) {
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    const absl::string_view run_a = RunAt(a, i);
    const absl::string_view run_b = RunAt(b, j);
    const bool digits_a = IsDigitRun(run_a);
    const bool digits_b = IsDigitRun(run_b);
    if (digits_a != digits_b) return digits_a ? -1 : 1;
    const int order = digits_a ? CompareNumbers(run_a, run_b) : run_a.compare(run_b);
    if (order != 0) {
      // 4.2.0-rc1 before 4.2.0.1 and 4.2.0+build: a pre-release loses to whatever else
      // follows the same release, whichever byte comes first.
      const bool pre_a = IsPreReleaseSuffix(a.substr(i));
      const bool pre_b = IsPreReleaseSuffix(b.substr(j));
      if (pre_a != pre_b) return pre_a ? -1 : 1;
      return order < 0 ? -1 : 1;
    }
    i += run_a.size();
    j += run_b.size();
  }
  const absl::string_view rest_a = a.substr(i);
  const absl::string_view rest_b = b.substr(j);
  if (rest_a.empty() && rest_b.empty()) return 0;
  if (rest_a.empty()) return IsPreReleaseSuffix(rest_b) ? 1 : -1;
  return IsPreReleaseSuffix(rest_a) ? -1 : 1;
}

}  // namespace wasserwarp::wire
