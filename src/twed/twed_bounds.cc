#include "twed/twed_bounds.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "twed/twed_kernel.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

using twed_internal::Band;
using twed_internal::kInf;
using twed_internal::LocalCost;
using twed_internal::Side;

// The sum of the k smallest of `values` (k <= values.size()), which it reorders.
double SumOfSmallest(std::vector<double>& values, size_t k) {
  std::nth_element(values.begin(), values.begin() + static_cast<ptrdiff_t>(k), values.end());
  double sum = 0.0;
  for (size_t i = 0; i < k; ++i) sum += values[i];
  return sum;
}

template <class Cost>
double EndpointBound(const Cost& cost, const TwedParams& params, const Side& a, const Side& b) {
  const size_t d = cost.channels();
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  const double start =
      LocalCost(cost, a.sample(1, d), a.time(1), b.sample(1, d), b.time(1), params.nu);
  // Summed in the order the DP adds them along the single row or column that
  // a one-sample run leaves, so that there the bound is the distance to the bit.
  double all_deleted = start;
  for (ptrdiff_t i = 2; i <= n; ++i) all_deleted += a.del(i);
  for (ptrdiff_t j = 2; j <= m; ++j) all_deleted += b.del(j);
  if (n == 1 || m == 1) return all_deleted;
  const double end =
      LocalCost(cost, a.sample(n, d), a.time(n), b.sample(m, d), b.time(m), params.nu);
  return std::min(
      2.0 * start + end +
          TwedDeletionFloor(static_cast<uint64_t>(n), static_cast<uint64_t>(m), params.lambda),
      all_deleted);
}

// For each row i of `a` (element i-1), a lower bound on L(i, j) over the
// columns j of its band: a_i's distance to the per-channel range of b over
// the band plus nu times the gap to the band's nearest timestamp; +inf for an
// empty band.
template <class Cost>
std::vector<double> MatchFloors(const Cost& cost, double nu, const Side& a, const Side& b,
                                std::span<const Band> bands) {
  const size_t d = cost.channels();
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  // a's samples clamped into b's ranges: the nearest point of the box, so
  // that the same cost functor as the DP's measures the distance to it.
  std::vector<double> nearest(static_cast<size_t>(n) * d);
  for (size_t k = 0; k < d; ++k) {
    const auto value = [&](ptrdiff_t j) { return b.sample(j, d)[k]; };
    // Columns that can still be the band's minimum (maximum), in order: both
    // ends of the bands only move right, so each column enters and leaves once.
    std::deque<ptrdiff_t> lows;
    std::deque<ptrdiff_t> highs;
    ptrdiff_t next = 1;
    for (ptrdiff_t i = 1; i <= n; ++i) {
      const auto [lo, hi] = bands[i - 1];
      for (; next <= hi; ++next) {
        while (!lows.empty() && value(lows.back()) >= value(next)) lows.pop_back();
        while (!highs.empty() && value(highs.back()) <= value(next)) highs.pop_back();
        lows.push_back(next);
        highs.push_back(next);
      }
      while (!lows.empty() && lows.front() < lo) lows.pop_front();
      while (!highs.empty() && highs.front() < lo) highs.pop_front();
      if (lows.empty()) continue;  // an empty band: its floor is +inf below
      nearest[static_cast<size_t>(i - 1) * d + k] =
          std::clamp(a.sample(i, d)[k], value(lows.front()), value(highs.front()));
    }
  }
  std::vector<double> floors(n, kInf);
  ptrdiff_t after = 1;  // the first column with tb_j >= ta_i, m + 1 if none
  for (ptrdiff_t i = 1; i <= n; ++i) {
    const auto [lo, hi] = bands[i - 1];
    const double ta = a.time(i);
    while (after <= m && b.time(after) < ta) ++after;
    if (lo > hi) continue;
    const double gap = std::min(std::abs(ta - b.time(std::clamp(after - 1, lo, hi))),
                                std::abs(ta - b.time(std::clamp(after, lo, hi))));
    floors[i - 1] = cost(a.sample(i, d), &nearest[static_cast<size_t>(i - 1) * d]) + nu * gap;
  }
  return floors;
}

// The envelope bound in one direction: rows of a against columns of b.
template <class Cost>
double RowsBound(const Cost& cost, double nu, const Side& a, const Side& b,
                 std::span<const Band> bands) {
  const size_t d = cost.channels();
  const ptrdiff_t n = a.size();
  const ptrdiff_t m = b.size();
  const std::vector<double> floors = MatchFloors(cost, nu, a, b, bands);
  double bound = LocalCost(cost, a.sample(1, d), a.time(1), b.sample(1, d), b.time(1), nu);
  // Rows 2..n, each entered by a match, bounded by its two cells' floors, or by deleting a_i.
  std::vector<double> entry(n + 1, 0.0);
  for (ptrdiff_t i = 2; i <= n; ++i) entry[i] = std::min(floors[i - 1] + floors[i - 2], a.del(i));
  if (n > m) {
    // At least n - m rows are entered by deletion: at best those where it costs least over the
    // cheaper move. They then add the deletion's own cost, not entry + extra, which could round
    // above it; the extra is 0 where deleting is the cheaper move, even when both overflowed.
    std::vector<ptrdiff_t> rows;
    for (ptrdiff_t i = 2; i <= n; ++i) rows.push_back(i);
    const auto extra = [&](ptrdiff_t i) {
      return entry[i] == a.del(i) ? 0.0 : a.del(i) - entry[i];
    };
    std::nth_element(rows.begin(), rows.begin() + (n - m), rows.end(),
                     [&](ptrdiff_t x, ptrdiff_t y) { return extra(x) < extra(y); });
    for (ptrdiff_t r = 0; r < n - m; ++r) entry[rows[r]] = a.del(rows[r]);
  }
  for (ptrdiff_t i = 2; i <= n; ++i) bound += entry[i];
  if (m > n) {
    // Deletions in b enter no row, and at least m - n of them, in distinct columns, are made.
    std::vector<double> dels(b.dels() + 2, b.dels() + m + 1);
    bound += SumOfSmallest(dels, static_cast<size_t>(m - n));
  }
  return bound;
}

template <class Cost>
double EnvelopeBound(const Cost& cost, const TwedParams& params, const Side& a, const Side& b) {
  return std::max(RowsBound(cost, params.nu, a, b, twed_internal::RowBands(a, b, params)),
                  RowsBound(cost, params.nu, b, a, twed_internal::RowBands(b, a, params)));
}

// Calls f(cost, side_a, side_b) after the checks Twed makes of its inputs.
template <class F>
absl::StatusOr<double> WithSides(const Series& a, const Series& b, const TwedParams& params,
                                 F&& f) {
  if (absl::Status s = twed_internal::ValidateTwedInputs(a, b, params); !s.ok()) return s;
  return twed_internal::WithCost(a.num_channels(), params.p, [&](const auto& cost) {
    const Side sa(a, 0, cost, params.nu, params.lambda);
    const Side sb(b, 0, cost, params.nu, params.lambda);
    return f(cost, sa, sb);
  });
}

absl::Status CheckPivotDistance(double distance, const char* name) {
  if (std::isfinite(distance) && distance >= 0.0) return absl::OkStatus();
  return InvalidFieldError(name, absl::StrCat("must be a finite distance >= 0, got ", distance));
}

}  // namespace

double TwedDeletionFloor(uint64_t a_samples, uint64_t b_samples, double lambda) {
  const uint64_t gap = a_samples > b_samples ? a_samples - b_samples : b_samples - a_samples;
  return lambda * static_cast<double>(gap);
}

absl::StatusOr<double> TwedEndpointBound(const Series& a, const Series& b,
                                         const TwedParams& params) {
  return WithSides(a, b, params, [&](const auto& cost, const Side& sa, const Side& sb) {
    return EndpointBound(cost, params, sa, sb);
  });
}

absl::StatusOr<TwedEndpoints> TwedEndpointsOf(const Series& run, const TwedParams& params) {
  if (absl::Status s = ValidateTwedParams(params); !s.ok()) return s;
  if (absl::Status s = ValidateSeries(run); !s.ok()) return s;
  return twed_internal::WithCost(run.num_channels(), params.p, [&](const auto& cost) {
    const Side side(run, 0, cost, params.nu, params.lambda);
    const size_t d = cost.channels();
    const ptrdiff_t n = side.size();
    TwedEndpoints endpoints;
    endpoints.first.assign(side.sample(1, d), side.sample(1, d) + d);
    endpoints.last.assign(side.sample(n, d), side.sample(n, d) + d);
    endpoints.first_time = side.time(1);
    endpoints.last_time = side.time(n);
    endpoints.samples = static_cast<uint64_t>(n);
    for (ptrdiff_t i = 2; i <= n; ++i) endpoints.deletion_sum += side.del(i);
    return endpoints;
  });
}

namespace {

// 1e-9 of a bound or path cost covers summing each run's deletions on their own, which rounds
// differently from the DP's order by up to about n eps relative.
constexpr double kSummationMargin = 1e-9;

double StartCost(const TwedEndpoints& a, const TwedEndpoints& b, const TwedParams& params) {
  return twed_internal::WithCost(a.first.size(), params.p, [&](const auto& cost) {
    return LocalCost(cost, a.first.data(), a.first_time, b.first.data(), b.first_time, params.nu);
  });
}

}  // namespace

double TwedAllDeletedCost(const TwedEndpoints& a, const TwedEndpoints& b,
                          const TwedParams& params) {
  return (1.0 + kSummationMargin) * (StartCost(a, b, params) + a.deletion_sum + b.deletion_sum);
}

double TwedEndpointBound(const TwedEndpoints& a, const TwedEndpoints& b, const TwedParams& params) {
  const double start = StartCost(a, b, params);
  const double all_deleted = start + a.deletion_sum + b.deletion_sum;
  if (a.samples == 1 || b.samples == 1) return (1.0 - kSummationMargin) * all_deleted;
  const double end = twed_internal::WithCost(a.last.size(), params.p, [&](const auto& cost) {
    return LocalCost(cost, a.last.data(), a.last_time, b.last.data(), b.last_time, params.nu);
  });
  return (1.0 - kSummationMargin) *
         std::min(2.0 * start + end + TwedDeletionFloor(a.samples, b.samples, params.lambda),
                  all_deleted);
}

absl::StatusOr<double> TwedEnvelopeBound(const Series& a, const Series& b,
                                         const TwedParams& params) {
  return WithSides(a, b, params, [&](const auto& cost, const Side& sa, const Side& sb) {
    return EnvelopeBound(cost, params, sa, sb);
  });
}

absl::StatusOr<double> TwedPairBound(const Series& a, const Series& b, const TwedParams& params) {
  return WithSides(a, b, params, [&](const auto& cost, const Side& sa, const Side& sb) {
    return std::max(EndpointBound(cost, params, sa, sb), EnvelopeBound(cost, params, sa, sb));
  });
}

absl::StatusOr<double> TwedPivotBound(double a_to_pivot, double b_to_pivot,
                                      const TwedParams& params) {
  return TwedPivotsBound({&a_to_pivot, 1}, {&b_to_pivot, 1}, params);
}

absl::StatusOr<double> TwedPivotsBound(std::span<const double> a_to_pivots,
                                       std::span<const double> b_to_pivots,
                                       const TwedParams& params) {
  if (absl::Status s = ValidateTwedParams(params); !s.ok()) return s;
  if (params.time_window) {
    return InvalidFieldError("time_window",
                             "pivot bounds rest on the triangle inequality, which a time window "
                             "breaks: a window can forbid every path between two runs that both "
                             "align with a third");
  }
  if (a_to_pivots.size() != b_to_pivots.size()) {
    return absl::InvalidArgumentError(absl::StrCat("distances to ", a_to_pivots.size(),
                                                   " pivots for one run but to ",
                                                   b_to_pivots.size(), " for the other"));
  }
  double bound = 0.0;
  for (size_t k = 0; k < a_to_pivots.size(); ++k) {
    if (absl::Status s = CheckPivotDistance(a_to_pivots[k], "a_to_pivot"); !s.ok()) return s;
    if (absl::Status s = CheckPivotDistance(b_to_pivots[k], "b_to_pivot"); !s.ok()) return s;
    bound = std::max(bound, std::abs(a_to_pivots[k] - b_to_pivots[k]));
  }
  return bound;
}

}  // namespace wasserwarp
