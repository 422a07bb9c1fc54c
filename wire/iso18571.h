// A report's ISO/TS 18571 ratings between the core's types and the protos; the report's
// conversion (convert.h) uses these.

#ifndef WASSERWARP_WIRE_ISO18571_H_
#define WASSERWARP_WIRE_ISO18571_H_

#include "absl/status/status.h"
#include "wasserwarp/report.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

void Iso18571ToProto(const ValidationReport& report, v1::ValidationReport& proto);
// InvalidArgument when a rating names a run or channel the report does not have, or the
// averages do not go one per channel.
absl::Status Iso18571FromProto(const v1::ValidationReport& proto, ValidationReport& report);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_ISO18571_H_
