#include "transport/transport_weights.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace wasserwarp::transport_weights {
namespace {

// Total of the integer supplies that stand in for user weights: as large as
// possible for a small rounding error (each weight moves by less than 1 /
// total), small enough that every flow and partial sum is an exactly
// representable double (< 2^53) and that the largest-remainder rounding below
// cannot overshoot (see RoundToTotal).
constexpr int64_t kWeightTotal = int64_t{1} << 50;

// Largest-remainder rounding of alpha * total to integers summing to total.
// alpha_i = (w_i / max w) / S with S the compensated sum of those quotients,
// so the alpha_i sum to 1 within 3 eps (2 from S, 1 from the division);
// scaling by total <= 2^50 is exact, so sum alpha_i * total is within
// 3 eps * 2^50 = 3/8 of total and the floors sum to between total - count and
// total: 0 <= deficit <= count.
absl::StatusOr<std::vector<int64_t>> RoundToTotal(const std::vector<double>& alpha, int64_t total) {
  const size_t count = alpha.size();
  std::vector<int64_t> rounded(count);
  std::vector<double> remainder(count);
  int64_t sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const double scaled = alpha[i] * static_cast<double>(total);
    const double floor = std::floor(scaled);
    rounded[i] = static_cast<int64_t>(floor);
    remainder[i] = scaled - floor;
    sum += rounded[i];
  }
  const int64_t deficit = total - sum;
  if (deficit < 0 || deficit > static_cast<int64_t>(count)) {
    return absl::InternalError(
        absl::StrCat("rounding weights to integer supplies missed the total by ", -deficit));
  }
  std::vector<size_t> order(count);
  std::iota(order.begin(), order.end(), size_t{0});
  // Stable: equal remainders go to the lower index, for deterministic plans.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (int64_t k = 0; k < deficit; ++k) ++rounded[order[k]];
  return rounded;
}

// Total variation distance between alpha and the rounded weights / total.
double RoundingVariation(const std::vector<double>& alpha, const std::vector<int64_t>& rounded,
                         int64_t total) {
  double l1 = 0.0;
  for (size_t i = 0; i < alpha.size(); ++i) {
    l1 += std::abs(alpha[i] - static_cast<double>(rounded[i]) / static_cast<double>(total));
  }
  return 0.5 * l1;
}

// Integer supplies of one side: total / count each when uniform, else the
// rounded normalised weights; `variation` gets TV(requested, transported).
absl::StatusOr<std::vector<int64_t>> Supplies(const SideWeights& side, size_t count, int64_t total,
                                              double& variation) {
  variation = 0.0;
  if (side.uniform) return std::vector<int64_t>(count, total / static_cast<int64_t>(count));
  absl::StatusOr<std::vector<int64_t>> rounded = RoundToTotal(side.normalised, total);
  if (rounded.ok()) variation = RoundingVariation(side.normalised, *rounded, total);
  return rounded;
}

}  // namespace

absl::StatusOr<SideWeights> NormaliseWeights(absl::string_view name,
                                             const std::vector<double>& weights, size_t count,
                                             absl::string_view unit) {
  SideWeights side;
  if (weights.empty()) return side;
  if (weights.size() != count) {
    return absl::InvalidArgumentError(absl::StrCat(
        name, " has ", weights.size(), " entries but the cost matrix has ", count, " ", unit));
  }
  double max_weight = 0.0;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (!std::isfinite(weights[i])) {
      return absl::InvalidArgumentError(absl::StrCat(name, "[", i, "] is not finite"));
    }
    if (weights[i] < 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, "[", i, "] = ", weights[i], " is negative"));
    }
    max_weight = std::max(max_weight, weights[i]);
  }
  if (max_weight == 0.0) {
    return absl::InvalidArgumentError(absl::StrCat(name, " sum to zero"));
  }
  if (std::all_of(weights.begin(), weights.end(), [&](double w) { return w == weights.front(); })) {
    return side;
  }
  side.uniform = false;
  // Dividing by the largest weight first keeps the sum finite for any finite
  // weights; Neumaier's compensated sum keeps its relative error near eps for
  // any count, which RoundToTotal relies on.
  side.normalised.resize(count);
  double sum = 0.0;
  double compensation = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double w = weights[i] / max_weight;
    side.normalised[i] = w;
    const double t = sum + w;
    compensation += std::abs(sum) >= std::abs(w) ? (sum - t) + w : (w - t) + sum;
    sum = t;
  }
  sum += compensation;
  for (double& w : side.normalised) w /= sum;
  return side;
}

absl::StatusOr<IntegerSides> ToIntegerSides(const SideWeights& rows, size_t n,
                                            const SideWeights& cols, size_t m) {
  IntegerSides sides;
  // Uniform sides need a total divisible by their count to be exact.
  sides.total = static_cast<int64_t>(n * m);
  if (!rows.uniform || !cols.uniform) {
    const auto unit = static_cast<int64_t>(rows.uniform ? n : (cols.uniform ? m : 1));
    sides.total = kWeightTotal / unit * unit;
  }
  double row_variation = 0.0;
  double col_variation = 0.0;
  absl::StatusOr<std::vector<int64_t>> supply = Supplies(rows, n, sides.total, row_variation);
  if (!supply.ok()) return supply.status();
  absl::StatusOr<std::vector<int64_t>> demand = Supplies(cols, m, sides.total, col_variation);
  if (!demand.ok()) return demand.status();
  sides.supply = *std::move(supply);
  sides.demand = *std::move(demand);
  sides.variation = row_variation + col_variation;
  return sides;
}

}  // namespace wasserwarp::transport_weights
