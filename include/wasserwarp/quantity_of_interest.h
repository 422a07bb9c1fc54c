// Scalar quantities of interest of a run (the peak of a channel, its value
// at a time, ...) and Oberkampf and Roy's area validation metric between
// their simulated and reference distributions.
#ifndef WASSERWARP_QUANTITY_OF_INTEREST_H_
#define WASSERWARP_QUANTITY_OF_INTEREST_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/runs_view.h"
#include "wasserwarp/series.h"

namespace wasserwarp {

enum class QuantityKind { kMax, kMin, kMean, kFinal, kValueAt, kIntegral, kTimeOfMax };

struct QuantityOfInterest {
  std::string channel;
  QuantityKind kind = QuantityKind::kMax;
  double at = 0.0;  // seconds, for kValueAt
  // "max", "min", "mean", "final", "value_at:T", "integral", "time_of_max".
  std::string quantity() const;
};

// "channel:quantity", e.g. "ay:max" or "yaw_rate:value_at:1.5" (the channel
// is everything before the first ':').
absl::StatusOr<QuantityOfInterest> ParseQuantityOfInterest(std::string_view spec);
// A comma-separated list of the above, spaces around items ignored; empty
// for an empty list, an error for an empty item.
absl::StatusOr<std::vector<QuantityOfInterest>> ParseQuantitiesOfInterest(std::string_view list);

// The quantity of one run, in the channel's units, on the run's timestamps
// shifted as `align` says. mean and integral use the trapezoid rule;
// value_at interpolates linearly; mean is the integral over the duration
// (a one-sample run: its value, and integral 0); time_of_max is the first
// time of the maximum. InvalidArgument naming the run and channel when the
// run is invalid (ValidateSeries), the channel is missing or T lies outside
// the run.
absl::StatusOr<double> EvaluateQuantity(const Series& run, const QuantityOfInterest& quantity,
                                        Align align);

// The area between the weighted empirical CDFs of `sim` and `ref`
// (1-D Wasserstein-1), in the values' units. Weights empty: uniform;
// otherwise non-negative with a positive sum. NaN when either side is empty.
double AreaValidationMetric(const std::vector<double>& sim, const std::vector<double>& sim_weights,
                            const std::vector<double>& ref, const std::vector<double>& ref_weights);

struct QuantityComparison {
  std::string channel;
  std::string quantity;
  double avm = 0.0;
  std::vector<double> sim_values;  // one per simulated run, run order
  std::vector<double> ref_values;
};

// Every quantity on every run, and its AVM; weights as the transport used.
// InvalidArgument for weights of the wrong count, negative or summing to
// zero, and for the first run a quantity cannot be evaluated on.
absl::StatusOr<std::vector<QuantityComparison>> CompareQuantities(
    const RunsView& simulation, const std::vector<double>& simulation_weights,
    const RunsView& reference, const std::vector<double>& reference_weights,
    const std::vector<QuantityOfInterest>& quantities, Align align);

}  // namespace wasserwarp

#endif  // WASSERWARP_QUANTITY_OF_INTEREST_H_
