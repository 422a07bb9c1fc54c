#include "wasserwarp/edit_path.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

enum Move : uint8_t { kStart, kMatch, kDeleteA, kDeleteB };

// c(u, v) = (sum_k |u_k - v_k|^p)^(1/p), with the roots of p = 1 and 2 exact.
double LpCost(const double* u, const double* v, size_t channels, double p) {
  double sum = 0.0;
  if (p == 1.0) {
    for (size_t k = 0; k < channels; ++k) sum += std::abs(u[k] - v[k]);
    return sum;
  }
  if (p == 2.0) {
    for (size_t k = 0; k < channels; ++k) sum += (u[k] - v[k]) * (u[k] - v[k]);
    return std::sqrt(sum);
  }
  for (size_t k = 0; k < channels; ++k) sum += std::pow(std::abs(u[k] - v[k]), p);
  return std::pow(sum, 1.0 / p);
}

// The cost of deleting sample i >= 1 of `s` (0-based), coming from sample i - 1.
std::vector<double> DeletionCosts(const Series& s, const TwedParams& params) {
  std::vector<double> cost(s.samples(), kInf);
  for (size_t i = 1; i < s.samples(); ++i) {
    cost[i] = LpCost(s.sample(i - 1), s.sample(i), s.num_channels(), params.p) +
              params.nu * (s.times[i] - s.times[i - 1]) + params.lambda;
  }
  return cost;
}

absl::Status ValidateInputs(const Series& a, const Series& b, const TwedParams& params) {
  if (absl::Status s = ValidateTwedParams(params); !s.ok()) return s;
  if (absl::Status s = ValidateSeries(a); !s.ok()) return s;
  if (absl::Status s = ValidateSeries(b); !s.ok()) return s;
  if (a.num_channels() != b.num_channels()) {
    return absl::InvalidArgumentError(absl::StrCat("series '", a.id, "' has ", a.num_channels(),
                                                   " channels but '", b.id, "' has ",
                                                   b.num_channels()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EditPath> TwedEditPath(const Series& a, const Series& b, const TwedParams& params,
                                      uint64_t max_cells) {
  if (absl::Status s = ValidateInputs(a, b, params); !s.ok()) return s;
  const size_t n = a.samples();
  const size_t m = b.samples();
  // Compared by division so that n * m cannot overflow.
  if (m > max_cells / n) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the edit path of '", a.id, "' (", n, " samples) and '", b.id, "' (", m,
                     " samples) needs ", n, " x ", m, " cells, more than the cap of ", max_cells));
  }
  const size_t channels = a.num_channels();
  const std::vector<double> delete_a = DeletionCosts(a, params);
  const std::vector<double> delete_b = DeletionCosts(b, params);
  const auto allowed = [&](size_t i, size_t j) {
    return !params.time_window || std::abs(a.times[i] - b.times[j]) <= *params.time_window;
  };

  // Row i of D (0-based samples) in `row`, row i - 1 in `above`. `local`
  // holds c(a_i, b_j) + nu |ta_i - tb_j|, which a match pays at both its
  // cells, so the next row reuses it as its diagonal term.
  std::vector<double> above(m, kInf);
  std::vector<double> row(m, kInf);
  std::vector<double> local_above(m, kInf);
  std::vector<double> local(m, kInf);
  std::vector<Move> moves(n * m, kStart);
  for (size_t i = 0; i < n; ++i) {
    Move* move = moves.data() + i * m;
    for (size_t j = 0; j < m; ++j) {
      local[j] = LpCost(a.sample(i), b.sample(j), channels, params.p) +
                 params.nu * std::abs(a.times[i] - b.times[j]);
      row[j] = kInf;
      if (!allowed(i, j)) continue;
      if (i == 0 && j == 0) {
        row[0] = local[0];
        move[0] = kStart;
        continue;
      }
      // Strict improvement only, so that on ties the earlier move stays.
      const auto relax = [&](double value, Move how) {
        if (value < row[j]) {
          row[j] = value;
          move[j] = how;
        }
      };
      if (i > 0 && j > 0) relax(above[j - 1] + local[j] + local_above[j - 1], kMatch);
      if (i > 0) relax(above[j] + delete_a[i], kDeleteA);
      if (j > 0) relax(row[j - 1] + delete_b[j], kDeleteB);
    }
    std::swap(above, row);
    std::swap(local_above, local);
  }

  EditPath path{.distance = above[m - 1], .matches = {}};
  if (!std::isfinite(path.distance)) {
    return absl::InvalidArgumentError(absl::StrCat("no edit path between '", a.id, "' and '", b.id,
                                                   "' within the time window of ",
                                                   params.time_window.value_or(kInf), " s"));
  }
  for (size_t i = n - 1, j = m - 1;;) {
    const Move move = moves[i * m + j];
    if (move == kStart || move == kMatch) path.matches.push_back({.a = i, .b = j});
    if (move == kStart) break;
    if (move == kMatch || move == kDeleteA) --i;
    if (move == kMatch || move == kDeleteB) --j;
  }
  std::reverse(path.matches.begin(), path.matches.end());
  return path;
}

}  // namespace wasserwarp
