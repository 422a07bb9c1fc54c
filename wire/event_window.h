// Event windows (wasserwarp/event_window.h) on the wire: as a request's parameter and as what a
// report says of them.

#ifndef WASSERWARP_WIRE_EVENT_WINDOW_H_
#define WASSERWARP_WIRE_EVENT_WINDOW_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/event_window.h"
#include "wasserwarp/report.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::wire {

void ToProto(const EventWindow& window, v1::EventWindow& proto);
// InvalidArgument with field "window" when the condition does not parse; the values are checked
// with the other options (ValidateEventWindow).
absl::StatusOr<EventWindow> FromProto(const v1::EventWindow& proto);

// The report's window and the runs it left out, to and from its parameters.
void WindowReportToProto(const ValidationReport& report, v1::ReportParameters& params);
absl::Status WindowReportFromProto(const v1::ReportParameters& params, ValidationReport& report);

}  // namespace wasserwarp::wire

#endif  // WASSERWARP_WIRE_EVENT_WINDOW_H_
