#include "wire/event_window.h"

#include <utility>

namespace wasserwarp::wire {

void ToProto(const EventWindow& window, v1::EventWindow& proto) {
  proto.set_condition(WindowConditionText(window));
  proto.set_before(window.before);
  proto.set_after(window.after);
  proto.set_hysteresis(window.hysteresis);
  proto.set_skip_untriggered(window.skip_untriggered);
}

absl::StatusOr<EventWindow> FromProto(const v1::EventWindow& proto) {
  EventWindow window;
  if (absl::Status status = ParseWindowCondition(proto.condition(), window); !status.ok()) {
    return status;
  }
  window.before = proto.before();
  window.after = proto.after();
  window.hysteresis = proto.hysteresis();
  window.skip_untriggered = proto.skip_untriggered();
  return window;
}

void WindowReportToProto(const ValidationReport& report, v1::ReportParameters& params) {
  if (!report.window.has_value()) return;
  ToProto(*report.window, *params.mutable_window());
  for (const UntriggeredRun& run : report.untriggered) {
    v1::UntriggeredRun* out = params.add_untriggered();
    out->set_side(run.side);
    out->set_id(run.id);
  }
}

absl::Status WindowReportFromProto(const v1::ReportParameters& params, ValidationReport& report) {
  if (!params.has_window()) return absl::OkStatus();
  absl::StatusOr<EventWindow> window = FromProto(params.window());
  if (!window.ok()) return window.status();
  report.window = *std::move(window);
  for (const v1::UntriggeredRun& run : params.untriggered()) {
    report.untriggered.push_back({run.side(), run.id(), 0});
  }
  return absl::OkStatus();
}

}  // namespace wasserwarp::wire
