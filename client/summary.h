// The few lines `validate` prints for a person or a CI log; the JSON report is the complete,
// stable form.

#ifndef WASSERWARP_CLIENT_SUMMARY_H_
#define WASSERWARP_CLIENT_SUMMARY_H_

#include <string>

#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

// `total_seconds` is the whole command's wall time, reading the runs included.
std::string FormatSummary(const ValidationReport& report, double total_seconds);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_SUMMARY_H_
