// What the `wasserwarp` CLI prints, less the wall time: the one part that differs between two
// runs of the same computation, so that tests can compare the rest exactly.

#ifndef WASSERWARP_TESTS_CLI_OUTPUT_H_
#define WASSERWARP_TESTS_CLI_OUTPUT_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace wasserwarp::test_support {

// The JSON report without its "seconds" key; keys keep their order, which is part of the format.
inline nlohmann::ordered_json ReportWithoutSeconds(const std::string& json) {
  nlohmann::ordered_json report = nlohmann::ordered_json::parse(json);
  report.erase("seconds");
  return report;
}

// The summary without its "time: " line.
inline std::string SummaryWithoutTime(std::string_view summary) {
  std::string kept;
  for (;;) {
    const size_t end = summary.find('\n');
    const std::string_view line = summary.substr(0, end);
    if (!line.starts_with("time: ")) kept.append(line).append("\n");
    if (end == std::string_view::npos) return kept;
    summary.remove_prefix(end + 1);
  }
}

}  // namespace wasserwarp::test_support

#endif  // WASSERWARP_TESTS_CLI_OUTPUT_H_
