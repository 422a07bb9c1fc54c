// A validation's outcome as its record keeps it beside the report: the few numbers that lists
// and filters read without decoding reports.

#ifndef WASSERWARP_SERVER_JOBS_VALIDATION_OUTCOME_H_
#define WASSERWARP_SERVER_JOBS_VALIDATION_OUTCOME_H_

#include "validations/validation_record.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

// W, and with a verdict its decision (when rules were given), p-value and baseline ratio with
// its interval (with a baseline).
ValidationOutcome OutcomeOf(const v1::ValidationReport& report);

v1::ValidationOutcome ToProto(const ValidationOutcome& outcome);

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_JOBS_VALIDATION_OUTCOME_H_
