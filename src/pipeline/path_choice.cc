#include "pipeline/path_choice.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace wasserwarp {
namespace {

// The cost model, in wall seconds on the 2-core machine the project is measured on, read off the
// `seconds` of `wasserwarp validate --exhaustive` reports and bench/path_sweep.cc, which prints
// both paths on every regime. The machine was shared with other builds, so the figures vary by
// 2x between runs and only the constants' ratio decides; it errs towards the solve, whose
// overestimate costs a lost speed-up where underestimating it makes the default slower than
// --exhaustive (1000 x 1000 runs of 100 samples, at a ratio of 8: 10.5 s against 5.2 s):
// - a DP cell of one channel: 200 x 200 runs of 100 samples, 4e8 cells in 0.2 s, 20 x 20 of 2000,
//   1.6e9 cells in 0.8 to 1.5 s, 1000 x 1000 of 100, 1e10 cells in 5.2 s: 0.5 ns; three channels
//   under L2 about twice that;
// - a dense transport solve of n x m, on runs of one sample, whose DP is nothing: 500 x 500 in
//   0.04 to 0.07 s, 1000 x 1000 in 0.3 to 1.3 s, 2000 x 2000 in 0.6 to 2.4 s on the
//   Jonker-Volgenant assignment, up to n * m * sqrt(min(n, m)) * 1e-8 s; the network simplex
//   (n != m, or weights) about 1.5 times that: 2000 x 3000 in 1.7 to 4.4 s.
// A lazy round also passes over every pair (stand-ins, pricing) at a few ns each, which the solve's
// term covers.
constexpr double kSecondsPerCell = 0.5e-9;
constexpr double kSecondsPerSolveUnit = 1e-8;
constexpr double kNetworkSimplexFactor = 1.5;

// The lazy rounds may spend this share of the exhaustive path's estimate on solves.
constexpr double kSolveShare = 0.1;
// Twice the seed, 16-bit bound, single-precision bound and last solve that even runs that prune
// well take: with 4, 100 x 100 runs of 100 samples (a budget of 5) started lazily, gave up after
// 5 solves and took 1.2 times --exhaustive's time.
constexpr int kFewestLazyRounds = 8;

double SolveSeconds(size_t n, size_t m, const TransportOptions& transport) {
  const bool assignment = n == m && transport.row_weights.empty() && transport.col_weights.empty();
  const double units = static_cast<double>(n) * static_cast<double>(m) *
                       std::sqrt(static_cast<double>(std::min(n, m)));
  return units * kSecondsPerSolveUnit * (assignment ? 1.0 : kNetworkSimplexFactor);
}

double ExhaustiveSeconds(const std::vector<Series>& rows, const std::vector<Series>& cols,
                         const TransportOptions& transport) {
  // Sum over pairs of n_i * m_j, TwedCells's count, is the product of the sums.
  double row_samples = 0.0;
  for (const Series& run : rows) row_samples += static_cast<double>(run.samples());
  double col_samples = 0.0;
  for (const Series& run : cols) col_samples += static_cast<double>(run.samples());
  const size_t channels = rows.empty() ? 1 : rows.front().num_channels();
  const double per_cell = kSecondsPerCell * (1.0 + 0.5 * static_cast<double>(channels - 1));
  return row_samples * col_samples * per_cell + SolveSeconds(rows.size(), cols.size(), transport);
}

}  // namespace

int LazyRoundBudget(const std::vector<Series>& rows, const std::vector<Series>& cols,
                    const TransportOptions& transport) {
  const double solve = SolveSeconds(rows.size(), cols.size(), transport);
  if (solve <= 0.0) return kFewestLazyRounds;
  const double rounds = kSolveShare * ExhaustiveSeconds(rows, cols, transport) / solve;
  return static_cast<int>(std::min(rounds, 1e6));
}

bool LazyPathPays(const std::vector<Series>& rows, const std::vector<Series>& cols,
                  const TransportOptions& transport) {
  return LazyRoundBudget(rows, cols, transport) >= kFewestLazyRounds;
}

}  // namespace wasserwarp
