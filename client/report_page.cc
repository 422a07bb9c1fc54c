#include "report_page.h"

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "output_file.h"
#include "report_output.h"

namespace wasserwarp::cli {

HtmlReportOptions PageOptionsNow() {
  HtmlReportOptions options;
  options.tool_version = WASSERWARP_VERSION;
  options.generated_at = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  return options;
}

absl::Status WritePageIfAsked(const ParsedArgs& args,
                              absl::FunctionRef<absl::StatusOr<std::string>()> render) {
  if (!args.Has(kReportFlag.name)) return absl::OkStatus();
  absl::StatusOr<std::string> page = render();
  if (!page.ok()) return page.status();
  return WriteOutputFile(*args.Value(kReportFlag.name), *page);
}

}  // namespace wasserwarp::cli
