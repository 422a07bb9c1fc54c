// A textbook TWED for tests: the full (n+1) x (m+1) matrix, written straight
// from shared/spec/twed.md with none of the kernels' rearrangements, plus
// random series to feed it.

#ifndef WASSERWARP_TESTS_REFERENCE_TWED_H_
#define WASSERWARP_TESTS_REFERENCE_TWED_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp::testing {

// c(u, v) = (sum_k |u_k - v_k|^p)^(1/p) between u = s.sample(i) and v = r.sample(j), 0-based.
inline double ReferenceLpCost(const Series& s, size_t i, const Series& r, size_t j, double p) {
  double sum = 0.0;
  for (size_t k = 0; k < s.num_channels(); ++k) {
    sum += std::pow(std::abs(s.value(i, k) - r.value(j, k)), p);
  }
  return std::pow(sum, 1.0 / p);
}

struct ReferenceResult {
  double distance = std::numeric_limits<double>::infinity();  // +inf when no path exists
  uint64_t matches = 0;
  uint64_t a_deletions = 0;
  uint64_t b_deletions = 0;
  double shift_sum = 0.0;  // sum of tb_j - ta_i over the matched cells
};

// The spec's recurrence, 1-based as written there, and one optimal path found
// by walking back from (n, m) preferring match, then delete in a, then delete in b.
inline ReferenceResult ReferenceTwedWithPath(const Series& a, const Series& b,
                                             const TwedParams& params) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  enum Move : uint8_t { kStart, kMatch, kDeleteA, kDeleteB };
  const size_t n = a.samples();
  const size_t m = b.samples();
  const double nu = params.nu;
  const double lambda = params.lambda;
  const double p = params.p;
  const auto ta = [&](size_t i) { return a.times[i - 1]; };
  const auto tb = [&](size_t j) { return b.times[j - 1]; };
  const auto c_ab = [&](size_t i, size_t j) { return ReferenceLpCost(a, i - 1, b, j - 1, p); };
  const auto allowed = [&](size_t i, size_t j) {
    return !params.time_window || std::abs(ta(i) - tb(j)) <= *params.time_window;
  };

  std::vector<std::vector<double>> D(n + 1, std::vector<double>(m + 1, kInf));
  std::vector<std::vector<Move>> move(n + 1, std::vector<Move>(m + 1, kStart));
  D[0][0] = 0.0;
  // Strict improvement only, so that on ties the earlier move in the order above stays.
  const auto relax = [&](size_t i, size_t j, double value, Move how) {
    if (value < D[i][j]) {
      D[i][j] = value;
      move[i][j] = how;
    }
  };
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      if (!allowed(i, j)) continue;
      if (i == 1 && j == 1) {
        D[1][1] = c_ab(1, 1) + nu * std::abs(ta(1) - tb(1));
        continue;
      }
      if (i >= 2 && j >= 2) {
        const double match = D[i - 1][j - 1] + c_ab(i, j) + c_ab(i - 1, j - 1) +
                             nu * (std::abs(ta(i) - tb(j)) + std::abs(ta(i - 1) - tb(j - 1)));
        relax(i, j, match, kMatch);
      }
      if (i >= 2) {
        const double del_a = D[i - 1][j] + ReferenceLpCost(a, i - 2, a, i - 1, p) +
                             nu * (ta(i) - ta(i - 1)) + lambda;
        relax(i, j, del_a, kDeleteA);
      }
      if (j >= 2) {
        const double del_b = D[i][j - 1] + ReferenceLpCost(b, j - 2, b, j - 1, p) +
                             nu * (tb(j) - tb(j - 1)) + lambda;
        relax(i, j, del_b, kDeleteB);
      }
    }
  }

  ReferenceResult result{.distance = D[n][m]};
  if (std::isinf(result.distance)) return result;
  for (size_t i = n, j = m; i > 0 && j > 0;) {
    switch (move[i][j]) {
      case kStart:
      case kMatch:
        ++result.matches;
        result.shift_sum += tb(j) - ta(i);
        --i;
        --j;
        break;
      case kDeleteA:
        ++result.a_deletions;
        --i;
        break;
      case kDeleteB:
        ++result.b_deletions;
        --j;
        break;
    }
  }
  return result;
}

inline double ReferenceTwed(const Series& a, const Series& b, const TwedParams& params) {
  return ReferenceTwedWithPath(a, b, params).distance;
}

// One channel at times 0, 1, 2, ..., as in the spec's table of published values.
inline Series UnitSpacedSeries(std::string id, std::vector<double> values) {
  Series s{.id = std::move(id), .channels = {"x"}, .times = {}, .values = std::move(values)};
  for (size_t i = 0; i < s.values.size(); ++i) s.times.push_back(static_cast<double>(i));
  return s;
}

}  // namespace wasserwarp::testing

#endif  // WASSERWARP_TESTS_REFERENCE_TWED_H_
