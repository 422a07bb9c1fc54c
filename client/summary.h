// The few lines `validate` prints for a person or a CI log; the JSON report is the complete,
// stable form.

#ifndef WASSERWARP_CLIENT_SUMMARY_H_
#define WASSERWARP_CLIENT_SUMMARY_H_

#include <string>
#include <string_view>
#include <vector>

#include "wasserwarp/validation.h"

namespace wasserwarp::cli {

// `total_seconds` is the whole command's wall time, reading the runs included.
std::string FormatSummary(const ValidationReport& report, double total_seconds);

// The plan-weighted ISO/TS 18571 rating of each channel and the warnings of the pairs left
// unrated; `prefix` ("" for a validation, "variant A: " in a comparison) opens each block's lines.
void AppendIso18571Averages(std::string_view prefix, const std::vector<std::string>& channels,
                            const std::vector<Iso18571Average>& averages,
                            const std::vector<std::string>& warnings, std::string& out);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_SUMMARY_H_
