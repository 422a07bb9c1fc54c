#include "wasserwarp/quantity_of_interest.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/absl_view.h"

namespace wasserwarp {
namespace {

struct KindName {
  QuantityKind kind;
  std::string_view name;
};

constexpr KindName kKindNames[] = {
    {QuantityKind::kMax, "max"},
    {QuantityKind::kMin, "min"},
    {QuantityKind::kMean, "mean"},
    {QuantityKind::kFinal, "final"},
    {QuantityKind::kValueAt, "value_at"},
    {QuantityKind::kIntegral, "integral"},
    {QuantityKind::kTimeOfMax, "time_of_max"},
};

constexpr std::string_view kAccepted = "max, min, mean, final, value_at:T, integral, time_of_max";

std::string_view KindNameOf(QuantityKind kind) {
  for (const KindName& named : kKindNames) {
    if (named.kind == kind) return named.name;
  }
  return "unknown";
}

// The shortest decimal that reads back as the same double, so that
// quantity() parses back to the same T.
std::string ShortestDecimal(double value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, error == std::errc() ? end : buffer);
}

absl::Status SpecError(std::string_view spec, std::string_view problem) {
  return absl::InvalidArgumentError(
      absl::StrCat("quantity of interest \"", AbslView(spec), "\": ", AbslView(problem)));
}

std::string_view StripSpaces(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

// Linear interpolation on the increasing `times`; `t` within their range.
double InterpolateAt(const std::vector<double>& times, const std::vector<double>& values,
                     double t) {
  const size_t after = std::upper_bound(times.begin(), times.end(), t) - times.begin();
  if (after == 0) return values.front();
  if (after == times.size()) return values.back();
  const size_t before = after - 1;
  if (times[before] == t) return values[before];
  const double fraction = (t - times[before]) / (times[after] - times[before]);
  return (1.0 - fraction) * values[before] + fraction * values[after];
}

double TrapezoidIntegral(const std::vector<double>& times, const std::vector<double>& values) {
  double integral = 0.0;
  for (size_t i = 0; i + 1 < times.size(); ++i) {
    integral += 0.5 * (values[i] + values[i + 1]) * (times[i + 1] - times[i]);
  }
  return integral;
}

absl::Status CheckWeights(const std::vector<double>& weights, size_t runs, std::string_view side) {
  if (weights.empty()) return absl::OkStatus();
  if (weights.size() != runs) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(side), " weights: ", weights.size(), " weights for ", runs, " runs"));
  }
  double sum = 0.0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i]) || weights[i] < 0.0) {
      return absl::InvalidArgumentError(absl::StrCat(AbslView(side), " weights: weight ", i, " is ",
                                                     weights[i],
                                                     "; weights must be finite and "
                                                     "non-negative"));
    }
    sum += weights[i];
  }
  if (!(sum > 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat(AbslView(side), " weights sum to zero"));
  }
  return absl::OkStatus();
}

// Values sorted increasingly with their weights normalised to sum to 1.
std::vector<std::pair<double, double>> WeightedSorted(const std::vector<double>& values,
                                                      const std::vector<double>& weights) {
  std::vector<std::pair<double, double>> sorted(values.size());
  const double total = weights.empty() ? static_cast<double>(values.size())
                                       : std::accumulate(weights.begin(), weights.end(), 0.0);
  for (size_t i = 0; i < values.size(); ++i) {
    sorted[i] = {values[i], (weights.empty() ? 1.0 : weights[i]) / total};
  }
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return sorted;
}

}  // namespace

std::string QuantityOfInterest::quantity() const {
  if (kind == QuantityKind::kValueAt) return absl::StrCat("value_at:", ShortestDecimal(at));
  return std::string(KindNameOf(kind));
}

absl::StatusOr<QuantityOfInterest> ParseQuantityOfInterest(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos) {
    return SpecError(spec, "expected channel:quantity, e.g. ay:max");
  }
  QuantityOfInterest parsed;
  parsed.channel = std::string(spec.substr(0, colon));
  if (parsed.channel.empty()) return SpecError(spec, "missing channel before ':'");
  const std::string_view quantity = spec.substr(colon + 1);
  const size_t argument_colon = quantity.find(':');
  const std::string_view name = quantity.substr(0, argument_colon);
  const auto named = std::find_if(std::begin(kKindNames), std::end(kKindNames),
                                  [&](const KindName& k) { return k.name == name; });
  if (named == std::end(kKindNames)) {
    return SpecError(spec, absl::StrCat("unknown quantity \"", AbslView(name),
                                        "\"; accepted: ", AbslView(kAccepted)));
  }
  parsed.kind = named->kind;
  if (parsed.kind != QuantityKind::kValueAt) {
    if (argument_colon != std::string_view::npos) {
      return SpecError(spec, absl::StrCat(AbslView(name), " takes no argument"));
    }
    return parsed;
  }
  if (argument_colon == std::string_view::npos) {
    return SpecError(spec, "value_at needs a time in seconds, e.g. value_at:1.5");
  }
  const std::string_view time = quantity.substr(argument_colon + 1);
  const auto [end, error] = std::from_chars(time.data(), time.data() + time.size(), parsed.at);
  if (time.empty() || error != std::errc() || end != time.data() + time.size() ||
      !std::isfinite(parsed.at)) {
    return SpecError(spec, absl::StrCat("time \"", AbslView(time),
                                        "\" after value_at: is not a finite number of seconds"));
  }
  return parsed;
}

absl::StatusOr<std::vector<QuantityOfInterest>> ParseQuantitiesOfInterest(std::string_view list) {
  std::vector<QuantityOfInterest> quantities;
  if (StripSpaces(list).empty()) return quantities;
  size_t position = 0;
  for (int item = 1;; ++item) {
    const size_t comma = list.find(',', position);
    const std::string_view spec = StripSpaces(list.substr(position, comma - position));
    if (spec.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("quantities of interest \"", AbslView(list),
                                                     "\": item ", item, " is empty"));
    }
    absl::StatusOr<QuantityOfInterest> parsed = ParseQuantityOfInterest(spec);
    if (!parsed.ok()) return parsed.status();
    quantities.push_back(*std::move(parsed));
    if (comma == std::string_view::npos) break;
    position = comma + 1;
  }
  return quantities;
}

absl::StatusOr<double> EvaluateQuantity(const Series& run, const QuantityOfInterest& quantity,
                                        Align align) {
  const std::string context = absl::StrCat("run \"", run.id, "\", quantity of interest \"",
                                           quantity.channel, ":", quantity.quantity(), "\"");
  if (absl::Status status = ValidateSeries(run); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(context, ": ", status.message()));
  }
  const auto channel = std::find(run.channels.begin(), run.channels.end(), quantity.channel);
  if (channel == run.channels.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(context, ": the run has no channel \"", quantity.channel, "\""));
  }
  const size_t c = channel - run.channels.begin();
  std::vector<double> values(run.samples());
  for (size_t i = 0; i < run.samples(); ++i) values[i] = run.value(i, c);
  std::vector<double> times = run.times;
  if (align == Align::kStart) {
    const double start = times.front();
    for (double& t : times) t -= start;
  }
  const double duration = times.back() - times.front();
  switch (quantity.kind) {
    case QuantityKind::kMax:
      return *std::max_element(values.begin(), values.end());
    case QuantityKind::kMin:
      return *std::min_element(values.begin(), values.end());
    case QuantityKind::kMean:
      if (duration == 0.0) return values.front();
      return TrapezoidIntegral(times, values) / duration;
    case QuantityKind::kFinal:
      return values.back();
    case QuantityKind::kValueAt:
      if (quantity.at < times.front() || quantity.at > times.back()) {
        return absl::InvalidArgumentError(absl::StrCat(
            context, ": time ", quantity.at, " s lies outside the run's times [", times.front(),
            ", ", times.back(), "] s", align == Align::kStart ? " (aligned to start at 0)" : ""));
      }
      return InterpolateAt(times, values, quantity.at);
    case QuantityKind::kIntegral:
      return TrapezoidIntegral(times, values);
    case QuantityKind::kTimeOfMax:
      return times[std::max_element(values.begin(), values.end()) - values.begin()];
  }
  return absl::InternalError(absl::StrCat(context, ": unhandled quantity kind"));
}

double AreaValidationMetric(const std::vector<double>& sim, const std::vector<double>& sim_weights,
                            const std::vector<double>& ref,
                            const std::vector<double>& ref_weights) {
  if (sim.empty() || ref.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::pair<double, double>> s = WeightedSorted(sim, sim_weights);
  const std::vector<std::pair<double, double>> r = WeightedSorted(ref, ref_weights);
  // Both CDFs are constant between consecutive values of the merged order;
  // the area is the sum of |F_sim - F_ref| times each gap.
  double area = 0.0;
  double sim_cdf = 0.0;
  double ref_cdf = 0.0;
  size_t i = 0;
  size_t j = 0;
  double x = std::min(s[0].first, r[0].first);
  while (i < s.size() || j < r.size()) {
    while (i < s.size() && s[i].first == x) sim_cdf += s[i++].second;
    while (j < r.size() && r[j].first == x) ref_cdf += r[j++].second;
    if (i == s.size() && j == r.size()) break;
    double next;
    if (i == s.size()) {
      next = r[j].first;
    } else if (j == r.size()) {
      next = s[i].first;
    } else {
      next = std::min(s[i].first, r[j].first);
    }
    area += std::abs(sim_cdf - ref_cdf) * (next - x);
    x = next;
  }
  return area;
}

absl::StatusOr<std::vector<QuantityComparison>> CompareQuantities(
    const RunsView& simulation, const std::vector<double>& simulation_weights,
    const RunsView& reference, const std::vector<double>& reference_weights,
    const std::vector<QuantityOfInterest>& quantities, Align align) {
  if (absl::Status status = CheckWeights(simulation_weights, simulation.size(), "simulation");
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckWeights(reference_weights, reference.size(), "reference");
      !status.ok()) {
    return status;
  }
  std::vector<QuantityComparison> comparisons;
  comparisons.reserve(quantities.size());
  for (const QuantityOfInterest& quantity : quantities) {
    QuantityComparison comparison;
    comparison.channel = quantity.channel;
    comparison.quantity = quantity.quantity();
    for (const auto& [runs, values] : {std::pair{&simulation, &comparison.sim_values},
                                       std::pair{&reference, &comparison.ref_values}}) {
      for (const Series& run : *runs) {
        absl::StatusOr<double> value = EvaluateQuantity(run, quantity, align);
        if (!value.ok()) return value.status();
        values->push_back(*value);
      }
    }
    comparison.avm = AreaValidationMetric(comparison.sim_values, simulation_weights,
                                          comparison.ref_values, reference_weights);
    comparisons.push_back(std::move(comparison));
  }
  return comparisons;
}

}  // namespace wasserwarp
