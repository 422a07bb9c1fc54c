// The report's tolerance bands (wasserwarp/tolerance_band.h) between the core's types and the
// protos; the report's conversion (convert.h) uses these.

#ifndef WASSERWARP_WIRE_TOLERANCE_BANDS_H_
#define WASSERWARP_WIRE_TOLERANCE_BANDS_H_

#include "absl/status/status.h"
#include "wasserwarp/report.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

void BandsToProto(const ValidationReport& report, v1::ValidationReport& proto);
// InvalidArgument for a scored band that names a run or band the report does not have.
absl::Status BandsFromProto(const v1::ValidationReport& proto, ValidationReport& report);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_TOLERANCE_BANDS_H_
