#include "wasserwarp/openmetrics_report.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "report/report_number.h"
#include "report/utf8_text.h"

namespace wasserwarp {
namespace {

// The label names the writer gives samples itself.
constexpr absl::string_view kRuleLabel = "rule";
constexpr absl::string_view kCodeLabel = "code";

std::string LegalLabelName(absl::string_view key) {
  std::string name(key);
  for (char& c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name.front()))) {
    name = absl::StrCat("_", name);
  }
  return name;
}

// A label value between double quotes: valid UTF-8, with \ " and newline escaped.
std::string QuotedValue(absl::string_view value) {
  std::string out = "\"";
  for (const char c : ReplaceInvalidUtf8(value)) {
    if (c == '\\') {
      out.append("\\\\");
    } else if (c == '"') {
      out.append("\\\"");
    } else if (c == '\n') {
      out.append("\\n");
    } else {
      out.push_back(c);
    }
  }
  return out + "\"";
}

using LabelSet = std::vector<std::pair<std::string, std::string>>;

// `own` first (name, value), then the result's labels under their OpenMetrics names.
std::string LabelText(const LabelSet& own, const LabelSet& result_labels) {
  std::string out;
  for (const LabelSet* set : {&own, &result_labels}) {
    for (const auto& [name, value] : *set) {
      absl::StrAppend(&out, out.empty() ? "{" : ",", name, "=", QuotedValue(value));
    }
  }
  return out.empty() ? out : out + "}";
}

// One MetricFamily of gauges; `samples` are (own labels, value), none leaves the family out.
void AppendGauge(absl::string_view name, absl::string_view help,
                 const std::vector<std::pair<LabelSet, double>>& samples,
                 const LabelSet& result_labels, std::string& out) {
  if (samples.empty()) return;
  absl::StrAppend(&out, "# TYPE ", name, " gauge\n");
  if (!help.empty()) absl::StrAppend(&out, "# HELP ", name, " ", help, "\n");
  for (const auto& [own, value] : samples) {
    absl::StrAppend(&out, name, LabelText(own, result_labels), " ", ReportNumber(value), "\n");
  }
}

void AppendRules(const JudgedResult& result, const LabelSet& labels, std::string& out) {
  std::vector<std::pair<LabelSet, double>> values, thresholds, passes;
  for (const JudgedRule& rule : result.rules) {
    const LabelSet own = {{std::string(kRuleLabel), rule.name}};
    if (rule.value.has_value()) values.push_back({own, *rule.value});
    if (rule.threshold.has_value()) thresholds.push_back({own, *rule.threshold});
    passes.push_back({own, rule.pass ? 1.0 : 0.0});
  }
  AppendGauge("wasserwarp_rule_value", "what each decision rule judged", values, labels, out);
  AppendGauge("wasserwarp_rule_threshold", "each decision rule's threshold", thresholds, labels,
              out);
  AppendGauge("wasserwarp_rule_pass", "1 where the decision rule passed, 0 where it failed", passes,
              labels, out);
}

}  // namespace

std::map<std::string, std::string> OpenMetricsLabelNames(
    const std::map<std::string, std::string>& labels) {
  std::set<std::string> taken = {std::string(kRuleLabel), std::string(kCodeLabel)};
  std::map<std::string, std::string> names;
  for (const auto& [key, value] : labels) {
    const std::string base = LegalLabelName(key);
    std::string name = base;
    for (int suffix = 2; taken.contains(name); ++suffix) name = absl::StrCat(base, "_", suffix);
    taken.insert(name);
    names[key] = name;
  }
  return names;
}

std::string JudgedResultToOpenMetrics(const JudgedResult& result) {
  LabelSet labels;
  for (const auto& [key, name] : OpenMetricsLabelNames(result.labels)) {
    labels.push_back({name, result.labels.at(key)});
  }
  std::string out;
  if (!result.error.ok()) {
    AppendGauge("wasserwarp_error", "1: the command could not run; code is its status",
                {{{{std::string(kCodeLabel), absl::StatusCodeToString(result.error.code())}}, 1.0}},
                labels, out);
  } else if (!result.skipped.has_value()) {
    for (const JudgedMeasure& measure : result.measures) {
      AppendGauge(absl::StrCat("wasserwarp_", measure.name), "", {{{}, measure.value}}, labels,
                  out);
    }
    AppendRules(result, labels, out);
  }
  return out + "# EOF\n";
}

}  // namespace wasserwarp
