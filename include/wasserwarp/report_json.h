// The stable JSON form of a validation report (snake_case keys), shared by
// the CLI and the service's web view.

#ifndef WASSERWARP_REPORT_JSON_H_
#define WASSERWARP_REPORT_JSON_H_

#include <string>

#include "wasserwarp/report.h"

namespace wasserwarp {

// The document described in the README; "cost_matrix" is present only when
// the report holds one. Numbers round-trip exactly.
std::string ReportToJson(const ValidationReport& report, int indent = 2);

// The document `validate --json` and `validations show --json` write, and the web view's
// report.json serves: the report without its cost matrices unless `with_cost_matrices`
// (--cost-matrix), which are too large for a default.
std::string ReportJsonDocument(const ValidationReport& report, bool with_cost_matrices);

}  // namespace wasserwarp

#endif  // WASSERWARP_REPORT_JSON_H_
