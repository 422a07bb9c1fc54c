#include "wasserwarp/junit_report.h"

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "report/report_number.h"
#include "report/utf8_text.h"

namespace wasserwarp {
namespace {

// XML 1.0's Char production.
bool AllowedInXml(uint32_t c) {
  return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
         (c >= 0xE000 && c <= 0xFFFD) || c >= 0x10000;
}

// Text safe in element content and in double-quoted attribute values. White space other than a
// space is written as a character reference, since an attribute's value would otherwise have
// it normalised to a space.
std::string EscapeXml(absl::string_view text) {
  std::string out;
  for (const char c : ReplaceInvalidUtf8(text, &AllowedInXml)) {
    switch (c) {
      case '&':
        out.append("&amp;");
        break;
      case '<':
        out.append("&lt;");
        break;
      case '>':
        out.append("&gt;");
        break;
      case '"':
        out.append("&quot;");
        break;
      case '\'':
        out.append("&apos;");
        break;
      case '\t':
        out.append("&#9;");
        break;
      case '\n':
        out.append("&#10;");
        break;
      case '\r':
        out.append("&#13;");
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

void AppendProperty(absl::string_view name, absl::string_view value, std::string& out) {
  absl::StrAppend(&out, "      <property name=\"", EscapeXml(name), "\" value=\"", EscapeXml(value),
                  "\"/>\n");
}

std::string FailureMessage(const JudgedRule& rule) {
  std::string message;
  if (rule.value.has_value()) absl::StrAppend(&message, "value ", ReportNumber(*rule.value));
  if (rule.threshold.has_value()) {
    absl::StrAppend(&message, message.empty() ? "" : ", ", "threshold ",
                    ReportNumber(*rule.threshold));
  }
  if (!rule.basis.empty()) {
    absl::StrAppend(&message, message.empty() ? "" : "; basis: ", rule.basis);
  }
  return message;
}

// The testcase's opening tag; what it holds and its closing tag follow.
std::string TestcaseStart(absl::string_view name, const JudgedResult& result) {
  return absl::StrCat("    <testcase name=\"", EscapeXml(name), "\" classname=\"",
                      EscapeXml(result.classname), "\">\n");
}

std::string Testcases(const JudgedResult& result) {
  constexpr absl::string_view kEnd = "    </testcase>\n";
  if (!result.error.ok()) {
    return absl::StrCat(TestcaseStart("run", result), "      <error type=\"",
                        absl::StatusCodeToString(result.error.code()), "\" message=\"",
                        EscapeXml(result.error.message()), "\">", EscapeXml(result.error.message()),
                        "</error>\n", kEnd);
  }
  if (result.skipped.has_value()) {
    return absl::StrCat(TestcaseStart("verdict", result), "      <skipped message=\"",
                        EscapeXml(*result.skipped), "\"/>\n", kEnd);
  }
  std::string out;
  for (const JudgedRule& rule : result.rules) {
    absl::StrAppend(&out, TestcaseStart(rule.name, result));
    if (!rule.pass) {
      const std::string message = EscapeXml(FailureMessage(rule));
      absl::StrAppend(&out, "      <failure type=\"", EscapeXml(rule.name), "\" message=\"",
                      message, "\">", message, "</failure>\n");
    }
    absl::StrAppend(&out, kEnd);
  }
  return out;
}

std::string Properties(const JudgedResult& result) {
  std::string out;
  for (const JudgedMeasure& measure : result.measures) {
    AppendProperty(absl::StrCat("wasserwarp.", measure.name), ReportNumber(measure.value), out);
  }
  for (const auto& [key, value] : result.texts) {
    if (!value.empty()) AppendProperty(absl::StrCat("wasserwarp.", key), value, out);
  }
  for (const auto& [key, value] : result.labels) {
    AppendProperty(absl::StrCat("label.", key), value, out);
  }
  return out.empty() ? out : absl::StrCat("    <properties>\n", out, "    </properties>\n");
}

}  // namespace

std::string JudgedResultToJunit(const JudgedResult& result) {
  size_t tests = 1, failures = 0, errors = 0, skipped = 0;
  if (!result.error.ok()) {
    errors = 1;
  } else if (result.skipped.has_value()) {
    skipped = 1;
  } else {
    tests = result.rules.size();
    for (const JudgedRule& rule : result.rules) failures += rule.pass ? 0 : 1;
  }
  const std::string counts =
      absl::StrCat("tests=\"", tests, "\" failures=\"", failures, "\" errors=\"", errors,
                   "\" skipped=\"", skipped, "\" time=\"", ReportNumber(result.seconds), "\"");
  return absl::StrCat(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "<testsuites name=\"wasserwarp\" ", counts,
      ">\n", "  <testsuite name=\"", EscapeXml(result.suite), "\" ", counts, " timestamp=\"",
      absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", result.timestamp, absl::UTCTimeZone()), "\">\n",
      Properties(result), Testcases(result), "  </testsuite>\n", "</testsuites>\n");
}

}  // namespace wasserwarp
