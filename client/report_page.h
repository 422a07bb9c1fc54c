// The HTML pages of the commands that write one (--report FILE.html): their footer and file.

#ifndef WASSERWARP_CLIENT_REPORT_PAGE_H_
#define WASSERWARP_CLIENT_REPORT_PAGE_H_

#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "args.h"
#include "wasserwarp/html_report.h"

namespace wasserwarp::cli {

// The tool's version and the time now, for the page's footer.
HtmlReportOptions PageOptionsNow();

// Renders and writes the page to the file --report names, when it is given.
absl::Status WritePageIfAsked(const ParsedArgs& args,
                              absl::FunctionRef<absl::StatusOr<std::string>()> render);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_REPORT_PAGE_H_
