// The stable JSON form of a validation report (snake_case keys), shared by
// the CLI and, later, by the service.

#ifndef WASSERWARP_REPORT_JSON_H_
#define WASSERWARP_REPORT_JSON_H_

#include <string>

#include "wasserwarp/report.h"

namespace wasserwarp {

// The document described in the README; "cost_matrix" is present only when
// the report holds one. Numbers round-trip exactly.
std::string ReportToJson(const ValidationReport& report, int indent = 2);

}  // namespace wasserwarp

#endif  // WASSERWARP_REPORT_JSON_H_
