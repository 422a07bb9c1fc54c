// Parameter studies as self-contained HTML pages, like the validation's (wasserwarp/html_report.h):
// Chart.js, the pages' script and style inlined, every network request forbidden. `wasserwarp
// sensitivity --report` and `wasserwarp identify --report` write them.

#ifndef WASSERWARP_STUDY_HTML_H_
#define WASSERWARP_STUDY_HTML_H_

#include <string>

#include "absl/status/statusor.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/sensitivity.h"

namespace wasserwarp {

// Which parameters move W beyond the references' own spread, first; then a tornado chart of the
// change of W at the smallest tested deviation either side of the nominal vector against that
// spread, each parameter's derivative with its interval, remainder and the pay-off of pairing,
// the tested deviations, the quantities' derivatives and the design points. Of `options` only
// the title, tool version and time are used. InvalidArgument for a report whose vectors do not
// fit its parameter names.
absl::StatusOr<std::string> RenderSensitivityHtml(const SensitivityReport& report,
                                                  const HtmlReportOptions& options);

// Whether the identified vector can be trusted, first; then the identified vector with its
// spreads, W against each parameter (design points, the fitted surface through the identified
// vector with its bootstrap band, the identified and nominal values), for two parameters a heat
// map of the fitted surface over the design's box, the reference groups' vectors, the surface's
// coefficients and the design points with their residuals. Of `options` only the title, tool
// version and time are used. InvalidArgument for a report whose vectors do not fit its parameter
// names.
absl::StatusOr<std::string> RenderIdentificationHtml(const IdentificationReport& report,
                                                     const HtmlReportOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_STUDY_HTML_H_
