#include "report_output.h"

#include <cstdio>

#include "judged_results.h"
#include "output_file.h"
#include "summary.h"
#include "wasserwarp/report_json.h"

namespace wasserwarp::cli {

Judgement JudgementOf(const ValidationReport& report) {
  const bool failed = report.verdict.has_value() && report.verdict->pass == false;
  return failed ? Judgement::kFail : Judgement::kPass;
}

absl::StatusOr<Judged> WriteResults(const ParsedArgs& args, const ValidationReport& report,
                                    const std::string& html_report,
                                    std::chrono::steady_clock::time_point start,
                                    absl::string_view record) {
  if (const std::string* report_path = args.Value(kReportFlag.name)) {
    if (absl::Status written = WriteOutputFile(*report_path, html_report); !written.ok()) {
      return written;
    }
  }
  absl::StatusOr<std::FILE*> summary_stream = WriteJsonIfAsked(
      args, [&] { return ReportJsonDocument(report, args.Has(kCostMatrixFlag.name)); });
  if (!summary_stream.ok()) return summary_stream.status();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fputs(FormatSummary(report, seconds).c_str(), *summary_stream);
  return Judged(JudgementOf(report), JudgedValidation(report, record));
}

}  // namespace wasserwarp::cli
