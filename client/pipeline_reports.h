// The files a release pipeline reads besides the exit status: the JUnit XML (--junit) and the
// OpenMetrics text (--openmetrics) of what a command judged, or of why it could not judge. The
// entry point writes them, for every outcome, in one place.

#ifndef WASSERWARP_CLIENT_PIPELINE_REPORTS_H_
#define WASSERWARP_CLIENT_PIPELINE_REPORTS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "args.h"
#include "command.h"
#include "flag_definition.h"
#include "wasserwarp/judged_result.h"

namespace wasserwarp::cli {

inline constexpr DocumentedFlag kJunitFlag = {
    "--junit", Arity::kOne, "FILE",
    "write the result as JUnit XML for a CI's test report: a testcase\n"
    "per decision rule, with a failure where it failed, in a suite\n"
    "named by the label \"name\"; written also when the command\n"
    "cannot run, as an error"};
inline constexpr DocumentedFlag kOpenMetricsFlag = {
    "--openmetrics", Arity::kOne, "FILE",
    "write the result's numbers (W, p, ratio, each rule's value,\n"
    "threshold and pass) as OpenMetrics text, e.g. for GitLab's metrics\n"
    "report; written also when the command cannot run"};

// Both flags, for a command's output section.
std::vector<DocumentedFlag> PipelineReportFlags();

struct PipelineReportPaths {
  std::optional<std::string> junit;
  std::optional<std::string> openmetrics;
};

// Where the reports go, for a command that takes `flags`: from `parsed`, or where the arguments
// could not be parsed, from the first `--junit FILE` or `--junit=FILE` among `args`, so that a
// usage error reaches the pipeline's report too.
PipelineReportPaths PipelineReportPathsOf(const std::vector<std::string>& args,
                                          const std::vector<FlagSpec>& flags,
                                          const absl::StatusOr<ParsedArgs>& parsed);

// What to report of command `command`'s outcome (its error in the words the user read):
// the result it judged, an error, or where it judged nothing (a validation that has not ended)
// a skipped verdict; timed from `started`.
// A result without a name of its own is named after the command and its labels.
JudgedResult PipelineResultOf(const absl::StatusOr<Judged>& outcome, absl::string_view command,
                              absl::Time started);

// Writes the reports `paths` asks for; the first error.
absl::Status WritePipelineReports(const PipelineReportPaths& paths, const JudgedResult& result);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_PIPELINE_REPORTS_H_
