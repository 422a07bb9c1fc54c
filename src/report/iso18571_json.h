// The ISO/TS 18571 part of a validation report's JSON: "iso18571" and "iso18571_average",
// present only when the validation rated its pairs, and "iso18571_warnings" only when a pair
// was too short to rate (as the Python client writes them).

#ifndef WASSERWARP_SRC_REPORT_ISO18571_JSON_H_
#define WASSERWARP_SRC_REPORT_ISO18571_JSON_H_

#include "nlohmann/json.hpp"
#include "wasserwarp/report.h"

namespace wasserwarp {

void AddIso18571Json(const ValidationReport& report, nlohmann::ordered_json& json);
// The same keys for one variant of a comparison.
void AddIso18571Json(const VariantIso18571& report, nlohmann::ordered_json& json);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_ISO18571_JSON_H_
