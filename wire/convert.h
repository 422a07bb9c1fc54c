// Translation between the wire contract (wasserwarp.v1) and the core
// library's value types, shared by the service and its C++ client.

#ifndef WASSERWARP_WIRE_CONVERT_H_
#define WASSERWARP_WIRE_CONVERT_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"
#include "wire/verdict.h"

namespace wasserwarp::wire {

absl::StatusOr<Series> SeriesFromInline(const v1::InlineSeries& inline_series);
v1::InlineSeries InlineFromSeries(const Series& series);

void ReportToProto(const ValidationReport& report, v1::ValidationReport& proto);
// InvalidArgument when the proto is not a consistent report.
absl::StatusOr<ValidationReport> ReportFromProto(const v1::ValidationReport& proto);

google::protobuf::Timestamp ToProtoTime(absl::Time time);
absl::Time FromProtoTime(const google::protobuf::Timestamp& time);
google::protobuf::Duration ToProtoDuration(absl::Duration duration);
absl::Duration FromProtoDuration(const google::protobuf::Duration& duration);
// InvalidArgument naming `field` for a Duration outside its definition: seconds within
// +-315,576,000,000, nanos within +-999,999,999 and of the same sign as the seconds.
absl::StatusOr<absl::Duration> FromProtoDuration(const google::protobuf::Duration& duration,
                                                 absl::string_view field);

v1::Alignment ToProto(Align align);
v1::Scaling ToProto(Scale scale);
v1::Resampling ToProto(Resampling resampling);
v1::Solver ToProto(TransportSolver solver);
v1::Phase ToProto(ValidationPhase phase);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_CONVERT_H_
