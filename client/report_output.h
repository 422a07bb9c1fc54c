// How a validation's report leaves the CLI: the summary, the JSON report (--json), the HTML page
// (--report) and the verdict's exit status, the same for `validate` and `validations show`.

#ifndef WASSERWARP_CLIENT_REPORT_OUTPUT_H_
#define WASSERWARP_CLIENT_REPORT_OUTPUT_H_

#include <chrono>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "args.h"
#include "command.h"
#include "flag_definition.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

// Their values are read by WriteResults.
inline constexpr DocumentedFlag kReportFlag = {
    "--report", Arity::kOne, "FILE.html",
    "write a self-contained HTML report (verdict, charts of the\n"
    "worst and best runs, cost matrix, map of all runs, metrics)"};
inline constexpr DocumentedFlag kCostMatrixFlag = {
    "--cost-matrix", Arity::kSwitch, "",
    "include the TWED cost matrix in the JSON report, and with a\n"
    "verdict the pooled matrix of all runs"};

// The one rule for a report's exit status: FAIL when it has a verdict that failed, PASS
// otherwise (no verdict asked for, or no decision rule given).
Judgement JudgementOf(const ValidationReport& report);

// Writes `html_report` to the file --report names, the JSON report where --json says (with the
// matrices only given --cost-matrix) and the summary, whose time is the command's since
// `start`; the judgement is JudgementOf(report), with what was judged for the pipeline
// reports. `record` is the name of the stored validation shown, if one is.
absl::StatusOr<Judged> WriteResults(const ParsedArgs& args, const ValidationReport& report,
                                    const std::string& html_report,
                                    std::chrono::steady_clock::time_point start,
                                    absl::string_view record = {});

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_REPORT_OUTPUT_H_
