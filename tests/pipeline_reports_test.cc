// The JUnit XML and OpenMetrics writers (wasserwarp/junit_report.h,
// wasserwarp/openmetrics_report.h): their shape, escaping, non-finite numbers, labels, failed
// rules and the reports of a command that could not run.

#include <cmath>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "wasserwarp/junit_report.h"
#include "wasserwarp/openmetrics_report.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

JudgedResult FailedValidation() {
  JudgedResult result;
  result.suite = "release 2.4";
  result.classname = "wasserwarp.validate";
  result.timestamp = absl::FromUnixSeconds(1764967489);  // 2025-12-05T20:44:49Z
  result.seconds = 1.5;
  result.measures = {{"distance", 0.25}, {"p_value", 0.001}};
  result.texts = {{"engine_version", "0.1.0"}, {"link", ""}};
  result.labels = {{"name", "release 2.4"}, {"vehicle/variant", "sport"}};
  result.rules = {
      {.name = "max_distance", .pass = true, .value = 0.25, .threshold = 1.0, .basis = "distance"},
      {.name = "alpha",
       .pass = false,
       .value = 0.001,
       .threshold = 0.05,
       .basis = "permutation test p-value"}};
  return result;
}

TEST(JunitReportTest, OneSuiteWithPropertiesAndATestcasePerRule) {
  const std::string xml = JudgedResultToJunit(FailedValidation());
  EXPECT_TRUE(absl::StartsWith(xml, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"release 2.4\" tests=\"2\" failures=\"1\" "
                             "errors=\"0\" skipped=\"0\" time=\"1.5\" "
                             "timestamp=\"2025-12-05T20:44:49Z\">"));
  EXPECT_THAT(xml, HasSubstr("<property name=\"wasserwarp.distance\" value=\"0.25\"/>"));
  EXPECT_THAT(xml, HasSubstr("<property name=\"wasserwarp.engine_version\" value=\"0.1.0\"/>"));
  EXPECT_THAT(xml, Not(HasSubstr("wasserwarp.link")));  // empty: no link known
  EXPECT_THAT(xml, HasSubstr("<property name=\"label.vehicle/variant\" value=\"sport\"/>"));
  EXPECT_THAT(xml, HasSubstr("<testcase name=\"max_distance\" classname=\"wasserwarp.validate\">"
                             "\n    </testcase>"));
  EXPECT_THAT(xml,
              HasSubstr("<failure type=\"alpha\" message=\"value 0.001, threshold 0.05; basis: "
                        "permutation test p-value\">"));
  EXPECT_TRUE(absl::EndsWith(xml, "</testsuites>\n"));
}

TEST(JunitReportTest, EscapesMarkupAndReplacesCharactersXmlForbids) {
  JudgedResult result = FailedValidation();
  result.labels = {{"note", "a<b & \"c\" 'd'\x01\ttab\nline \xff end"}};
  const std::string xml = JudgedResultToJunit(result);
  EXPECT_THAT(xml, HasSubstr("value=\"a&lt;b &amp; &quot;c&quot; &apos;d&apos;\xEF\xBF\xBD&#9;tab"
                             "&#10;line \xEF\xBF\xBD end\""));
  EXPECT_THAT(xml, Not(HasSubstr("\x01")));
}

TEST(JunitReportTest, NonFiniteNumbersAreSpelledOut) {
  JudgedResult result = FailedValidation();
  result.measures = {{"ratio", std::numeric_limits<double>::infinity()},
                     {"p_value", std::nan("")},
                     {"distance", 0.1},
                     {"third", 1.0 / 3.0}};
  const std::string xml = JudgedResultToJunit(result);
  EXPECT_THAT(xml, HasSubstr("name=\"wasserwarp.distance\" value=\"0.1\""));
  EXPECT_THAT(xml, HasSubstr("name=\"wasserwarp.third\" value=\"0.3333333333333333\""));
  EXPECT_THAT(xml, HasSubstr("name=\"wasserwarp.ratio\" value=\"+Inf\""));
  EXPECT_THAT(xml, HasSubstr("name=\"wasserwarp.p_value\" value=\"NaN\""));
}

TEST(JunitReportTest, ACommandThatCouldNotRunIsOneError) {
  JudgedResult result;
  result.suite = "validate";
  result.classname = "wasserwarp.validate";
  result.error = absl::InvalidArgumentError("--sim: no such file \"<x>\"");
  const std::string xml = JudgedResultToJunit(result);
  EXPECT_THAT(xml, HasSubstr("tests=\"1\" failures=\"0\" errors=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<error type=\"INVALID_ARGUMENT\" message=\"--sim: no such file "
                             "&quot;&lt;x&gt;&quot;\">"));
  EXPECT_THAT(xml, Not(HasSubstr("<properties>")));
}

TEST(JunitReportTest, NothingJudgedYetIsSkipped) {
  JudgedResult result;
  result.suite = "validations show";
  result.skipped = "the validation has not ended";
  const std::string xml = JudgedResultToJunit(result);
  EXPECT_THAT(xml, HasSubstr("tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"1\""));
  EXPECT_THAT(xml, HasSubstr("<skipped message=\"the validation has not ended\"/>"));
}

TEST(OpenMetricsReportTest, GaugesPerNumberAndRuleEndingWithEof) {
  const std::string text = JudgedResultToOpenMetrics(FailedValidation());
  EXPECT_THAT(text, HasSubstr("# TYPE wasserwarp_distance gauge\n"
                              "wasserwarp_distance{name=\"release 2.4\",vehicle_variant=\"sport\"}"
                              " 0.25\n"));
  EXPECT_THAT(text, HasSubstr("wasserwarp_rule_value{rule=\"alpha\",name=\"release 2.4\","
                              "vehicle_variant=\"sport\"} 0.001\n"));
  EXPECT_THAT(text, HasSubstr("wasserwarp_rule_pass{rule=\"alpha\","));
  EXPECT_THAT(text, HasSubstr("\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE wasserwarp_rule_threshold gauge\n"));
  EXPECT_TRUE(absl::EndsWith(text, "\n# EOF\n"));
}

TEST(OpenMetricsReportTest, EscapesLabelValuesAndSpellsNonFiniteValues) {
  JudgedResult result;
  result.labels = {{"note", "back\\slash \"quoted\"\nnext"}};
  result.measures = {{"ratio", -std::numeric_limits<double>::infinity()},
                     {"p_value", std::nan("")}};
  const std::string text = JudgedResultToOpenMetrics(result);
  EXPECT_THAT(text,
              HasSubstr("wasserwarp_ratio{note=\"back\\\\slash \\\"quoted\\\"\\nnext\"} -Inf\n"));
  EXPECT_THAT(text, HasSubstr("wasserwarp_p_value{note=\"back\\\\slash"));
  EXPECT_THAT(text, HasSubstr("} NaN\n"));
}

TEST(OpenMetricsReportTest, LabelNamesAreSanitizedWithoutCollisions) {
  const std::map<std::string, std::string> names = OpenMetricsLabelNames(
      {{"a.b", "1"}, {"a_b", "2"}, {"a-b", "3"}, {"rule", "4"}, {"x/y", "5"}});
  EXPECT_EQ(names.at("a-b"), "a_b");
  EXPECT_EQ(names.at("a.b"), "a_b_2");
  EXPECT_EQ(names.at("a_b"), "a_b_3");
  EXPECT_EQ(names.at("rule"), "rule_2");
  EXPECT_EQ(names.at("x/y"), "x_y");
}

TEST(OpenMetricsReportTest, ACommandThatCouldNotRunIsAnErrorGauge) {
  JudgedResult result;
  result.error = absl::UnavailableError("cannot connect");
  EXPECT_EQ(JudgedResultToOpenMetrics(result),
            "# TYPE wasserwarp_error gauge\n"
            "# HELP wasserwarp_error 1: the command could not run; code is its status\n"
            "wasserwarp_error{code=\"UNAVAILABLE\"} 1\n"
            "# EOF\n");
}

TEST(OpenMetricsReportTest, NothingJudgedYetIsOnlyEof) {
  JudgedResult result;
  result.skipped = "queued";
  EXPECT_EQ(JudgedResultToOpenMetrics(result), "# EOF\n");
}

}  // namespace
}  // namespace wasserwarp
