#include "report/iso18571_json.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace wasserwarp {
namespace {

using Json = nlohmann::ordered_json;

// A pair too short to rate has NaN scores, which JSON cannot hold: null.
Json Score(double value) { return std::isnan(value) ? Json(nullptr) : Json(value); }

void AddRatings(const std::vector<std::string>& channels, const std::vector<PairIso18571>& ratings,
                const std::vector<Iso18571Average>& channel_averages,
                const std::vector<std::string>& warnings, Json& json) {
  if (ratings.empty()) return;
  Json pairs = Json::array();
  for (const PairIso18571& pair : ratings) {
    const Iso18571Rating& rating = pair.rating;
    const bool rated = !std::isnan(rating.r);
    pairs.push_back(
        {{"sim", pair.sim},
         {"ref", pair.ref},
         {"channel", channels[pair.channel]},
         {"samples", rating.samples},
         {"r", Score(rating.r)},
         {"z", Score(rating.z)},
         {"ep", Score(rating.ep)},
         {"em", Score(rating.em)},
         {"es", Score(rating.es)},
         {"shift_samples", rated ? Json(rating.shift_samples) : Json(nullptr)},
         {"shift_seconds", Score(rating.shift_seconds)},
         {"grade", rated ? Json(std::string(Iso18571Grade(rating.r))) : Json(nullptr)}});
  }
  Json averages = Json::array();
  for (size_t c = 0; c < channel_averages.size(); ++c) {
    const Iso18571Average& average = channel_averages[c];
    averages.push_back({{"channel", channels[c]},
                        {"r", Score(average.r)},
                        {"z", Score(average.z)},
                        {"ep", Score(average.ep)},
                        {"em", Score(average.em)},
                        {"es", Score(average.es)},
                        {"min_r", Score(average.min_r)}});
  }
  json["iso18571"] = std::move(pairs);
  json["iso18571_average"] = std::move(averages);
  if (!warnings.empty()) json["iso18571_warnings"] = warnings;
}

}  // namespace

void AddIso18571Json(const ValidationReport& report, Json& json) {
  AddRatings(report.channels, report.iso18571, report.iso18571_average, report.iso18571_warnings,
             json);
}

void AddIso18571Json(const VariantIso18571& report, Json& json) {
  AddRatings(report.channels, report.iso18571, report.iso18571_average, report.iso18571_warnings,
             json);
}

}  // namespace wasserwarp
