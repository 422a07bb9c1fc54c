// A judged result in the OpenMetrics text format, which GitLab's metrics report reads: a gauge
// per number (wasserwarp_distance, wasserwarp_p_value, ...), per rule wasserwarp_rule_value,
// wasserwarp_rule_threshold and wasserwarp_rule_pass labelled rule="<name>", and for a command
// that could not run wasserwarp_error labelled code="<STATUS_CODE>". Every sample carries the
// result's labels.

#ifndef WASSERWARP_OPENMETRICS_REPORT_H_
#define WASSERWARP_OPENMETRICS_REPORT_H_

#include <map>
#include <string>

#include "wasserwarp/judged_result.h"

namespace wasserwarp {

// Label keys as OpenMetrics label names: every character outside [a-zA-Z0-9_] becomes '_'
// ("vehicle/variant" is vehicle_variant). Where two keys, or a key and a name the writer uses
// itself ("rule", "code"), come out the same, the later key in key order takes the suffix _2,
// _3, ... that is free first, so that the names are the same for the same labels every time.
std::map<std::string, std::string> OpenMetricsLabelNames(
    const std::map<std::string, std::string>& labels);

// The exposition, ending "# EOF\n". A result with nothing judged yet has no family.
std::string JudgedResultToOpenMetrics(const JudgedResult& result);

}  // namespace wasserwarp

#endif  // WASSERWARP_OPENMETRICS_REPORT_H_
