#include "pipeline_reports.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "output_file.h"
#include "wasserwarp/junit_report.h"
#include "wasserwarp/openmetrics_report.h"

namespace wasserwarp::cli {
namespace {

bool Takes(const std::vector<FlagSpec>& flags, absl::string_view name) {
  return std::any_of(flags.begin(), flags.end(),
                     [name](const FlagSpec& flag) { return flag.name == name; });
}

// The value of `flag` in arguments the parser refused.
std::optional<std::string> ScannedValue(const std::vector<std::string>& args,
                                        absl::string_view flag) {
  const std::string with_value = absl::StrCat(flag, "=");
  for (size_t i = 0; i < args.size(); ++i) {
    if (absl::StartsWith(args[i], with_value)) return args[i].substr(with_value.size());
    if (args[i] == flag && i + 1 < args.size()) return args[i + 1];
  }
  return std::nullopt;
}

// "validate", or "validate [release=2.4,variant=sport]" with labels.
std::string SuiteName(absl::string_view command, const std::map<std::string, std::string>& labels) {
  if (labels.empty()) return std::string(command);
  return absl::StrCat(command, " [", absl::StrJoin(labels, ",", absl::PairFormatter("=")), "]");
}

}  // namespace

std::vector<DocumentedFlag> PipelineReportFlags() { return {kJunitFlag, kOpenMetricsFlag}; }

PipelineReportPaths PipelineReportPathsOf(const std::vector<std::string>& args,
                                          const std::vector<FlagSpec>& flags,
                                          const absl::StatusOr<ParsedArgs>& parsed) {
  PipelineReportPaths paths;
  for (auto [flag, path] : {std::pair{kJunitFlag.name, &paths.junit},
                            std::pair{kOpenMetricsFlag.name, &paths.openmetrics}}) {
    if (!Takes(flags, flag)) continue;
    if (!parsed.ok()) {
      *path = ScannedValue(args, flag);
    } else if (const std::string* value = parsed->Value(flag)) {
      *path = *value;
    }
  }
  return paths;
}

JudgedResult PipelineResultOf(const absl::StatusOr<Judged>& outcome, absl::string_view command,
                              absl::Time started) {
  JudgedResult result;
  if (!outcome.ok()) {
    result.error = outcome.status();
  } else if (outcome->result.has_value()) {
    result = *outcome->result;
  } else {
    // A validation still queued or running, or one --detach has just queued.
    result.skipped = "nothing judged yet: the validation has not ended";
  }
  if (result.suite.empty()) result.suite = SuiteName(command, result.labels);
  if (result.classname.empty()) result.classname = absl::StrCat("wasserwarp.", command);
  result.timestamp = started;
  result.seconds = absl::ToDoubleSeconds(absl::Now() - started);
  return result;
}

absl::Status WritePipelineReports(const PipelineReportPaths& paths, const JudgedResult& result) {
  if (paths.junit.has_value()) {
    if (absl::Status written = WriteOutputFile(*paths.junit, JudgedResultToJunit(result));
        !written.ok()) {
      return written;
    }
  }
  if (paths.openmetrics.has_value()) {
    return WriteOutputFile(*paths.openmetrics, JudgedResultToOpenMetrics(result));
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::cli
