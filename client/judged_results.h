// What each judging command judged, as the pipeline reports' JudgedResult: a validation's
// decision rules, and the checks behind the exit status of compare, sensitivity and identify.
// Pure functions of the reports; the entry point adds the times and names what has no name.

#ifndef WASSERWARP_CLIENT_JUDGED_RESULTS_H_
#define WASSERWARP_CLIENT_JUDGED_RESULTS_H_

#include "absl/strings/string_view.h"
#include "wasserwarp/identification.h"
#include "wasserwarp/judged_result.h"
#include "wasserwarp/report.h"
#include "wasserwarp/sensitivity.h"

namespace wasserwarp::cli {

// The label that names a validation's testsuite; without it, the record's name, and without a
// record the command and its labels.
inline constexpr absl::string_view kSuiteNameLabel = "name";

// A testcase per verdict rule; without any, one passing testcase "distance". `record` is the
// stored validation's name, empty for a validation that is not one.
JudgedResult JudgedValidation(const ValidationReport& report, absl::string_view record);

// One passing testcase "difference", since compare judges nothing its exit status shows: W_a -
// W_b with the interval's ends, and which variant is closer in the basis.
JudgedResult JudgedComparison(const ComparisonReport& report);

// A testcase per parameter, failing where the parameter is flagged: its value is the largest
// change of W at the smallest tested deviation, its threshold the references' baseline spread.
JudgedResult JudgedSensitivity(const SensitivityReport& report);

// The three reasons identify fails as testcases: inside_design, convex_surface and, with
// --max-ratio, max_ratio.
JudgedResult JudgedIdentification(const IdentificationReport& report);

}  // namespace wasserwarp::cli

#endif  // WASSERWARP_CLIENT_JUDGED_RESULTS_H_
