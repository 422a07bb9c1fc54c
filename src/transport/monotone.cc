#include "transport/monotone.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "transport/row_blocks.h"

namespace wasserwarp {
namespace {

// Which side of the matrix is read as the line's coordinate first.
enum class Side { kRows, kCols };

// Entry (r, c), where r indexes the rows of `costs` when `side` is kRows and its columns when
// kCols: one code path for both orientations of the search below.
double Cost(const CostMatrix& costs, Side side, size_t r, size_t c) {
  return side == Side::kRows ? costs.at(r, c) : costs.at(c, r);
}

size_t Count(const CostMatrix& costs, Side side) {
  return side == Side::kRows ? costs.rows : costs.cols;
}

Side Other(Side side) { return side == Side::kRows ? Side::kCols : Side::kRows; }

// Indices 0..count-1 sorted by key(index), ties by index so the order is deterministic.
template <class KeyOf>
std::vector<int> SortedBy(size_t count, KeyOf key_of) {
  std::vector<std::pair<decltype(key_of(0)), int>> keyed;
  keyed.reserve(count);
  for (size_t k = 0; k < count; ++k)
    keyed.emplace_back(key_of(static_cast<int>(k)), static_cast<int>(k));
  std::sort(keyed.begin(), keyed.end());
  std::vector<int> order;
  order.reserve(count);
  for (const auto& entry : keyed) order.push_back(entry.second);
  return order;
}

// The order of `side`, measured from `anchor`, a point of the other side with every point of
// `side` on one side of it: along the axis pointing to the anchor, position = -distance. Then the
// other side's order along the same axis, from the two ends this gives: lo, farthest from the
// anchor, and hi, nearest, D = |lo - hi| apart. A point x lies beyond lo exactly when it is
// farther than D from hi and farther from hi than from lo; its position from lo is -|x - lo|
// there and |x - lo| everywhere else. (The difference |x - lo| - |x - hi| would do between lo and
// hi, but beyond either it is constant but for rounding, which would scramble points whose order
// matters for q > 1.)
MonotoneOrder OrderFrom(const CostMatrix& costs, Side side, size_t anchor) {
  const Side other = Other(side);
  std::vector<int> along = SortedBy(Count(costs, side), [&](int k) {
    return -Cost(costs, side, static_cast<size_t>(k), anchor);
  });
  const auto lo = static_cast<size_t>(along.front());
  const auto hi = static_cast<size_t>(along.back());
  const double ends_apart = Cost(costs, side, lo, anchor) - Cost(costs, side, hi, anchor);
  std::vector<int> across = SortedBy(Count(costs, other), [&](int k) {
    const auto x = static_cast<size_t>(k);
    const double to_lo = Cost(costs, other, x, lo);
    const double to_hi = Cost(costs, other, x, hi);
    return to_hi > ends_apart && to_hi > to_lo ? -to_lo : to_lo;
  });
  if (side == Side::kRows) return {.rows = std::move(along), .cols = std::move(across)};
  return {.rows = std::move(across), .cols = std::move(along)};
}

// Whether every adjacent 2 x 2 block of `costs_to_q` in `order` is Monge to within `tolerance`;
// the blocks together make the whole matrix Monge (their inequalities add up).
bool IsMonge(const CostMatrix& costs_to_q, const MonotoneOrder& order, double tolerance) {
  const size_t cols = order.cols.size();
  std::atomic<bool> monge{true};
  // Row pairs (i, i + 1) for i in [begin, end); a block stops once any block has found a miss.
  row_blocks::ForBlocks(order.rows.size() - 1, cols, [&](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) {
      if (!monge.load(std::memory_order_relaxed)) return;
      const double* up = costs_to_q.values.data() + order.rows[i] * cols;
      const double* down = costs_to_q.values.data() + order.rows[i + 1] * cols;
      double up_left = up[order.cols[0]];
      double down_left = down[order.cols[0]];
      for (size_t j = 1; j < cols; ++j) {
        const double up_right = up[order.cols[j]];
        const double down_right = down[order.cols[j]];
        if (!(up_left + down_right <= up_right + down_left + tolerance)) {
          monge.store(false, std::memory_order_relaxed);
          return;
        }
        up_left = up_right;
        down_left = down_right;
      }
    }
  });
  return monge.load();
}

}  // namespace

std::optional<MonotoneOrder> FindMonotoneOrder(const CostMatrix& costs,
                                               const CostMatrix& costs_to_q, size_t farthest,
                                               double tolerance) {
  // A farthest pair (row, col) has a point at an end of the line: were neither an end, a point
  // of each side would lie beyond the pair, and those two would be farther apart. Measured from
  // that end, every point of the other side lies on one side of it.
  const size_t row = farthest / costs.cols;
  const size_t col = farthest % costs.cols;
  for (const auto& [side, anchor] : {std::pair{Side::kCols, row}, std::pair{Side::kRows, col}}) {
    MonotoneOrder order = OrderFrom(costs, side, anchor);
    if (IsMonge(costs_to_q, order, tolerance)) return order;
  }
  return std::nullopt;
}

NetworkSimplexSolution NorthWestCorner(const CostMatrix& costs_to_q, const MonotoneOrder& order,
                                       const std::vector<int64_t>& supply,
                                       const std::vector<int64_t>& demand) {
  const size_t rows = order.rows.size();
  const size_t cols = order.cols.size();
  NetworkSimplexSolution solution;
  solution.u.assign(costs_to_q.rows, 0.0);
  solution.v.assign(costs_to_q.cols, 0.0);
  size_t i = 0;
  size_t j = 0;
  int row = order.rows[0];
  int col = order.cols[0];
  int64_t left = supply[row];
  int64_t wanted = demand[col];
  solution.v[col] = costs_to_q.at(row, col);
  // One index moves per step, so the staircase's n + m - 1 cells span every row and column, and
  // its duals are determined: each new row's u from the column it enters, each new column's v
  // from the row it enters. Where a row and a column run out together the step goes down with
  // no flow, a degenerate cell of the basis.
  while (true) {
    const int64_t flow = std::min(left, wanted);
    if (flow > 0) solution.flows.push_back({.row = row, .col = col, .flow = flow});
    left -= flow;
    wanted -= flow;
    if (i + 1 == rows && j + 1 == cols) break;
    if (i + 1 < rows && (left == 0 || j + 1 == cols)) {
      row = order.rows[++i];
      left = supply[row];
      solution.u[row] = costs_to_q.at(row, col) - solution.v[col];
    } else {
      col = order.cols[++j];
      wanted = demand[col];
      solution.v[col] = costs_to_q.at(row, col) - solution.u[row];
    }
  }
  std::sort(solution.flows.begin(), solution.flows.end(),
            [](const FlowEntry& a, const FlowEntry& b) {
              return std::tie(a.row, a.col) < std::tie(b.row, b.col);
            });
  return solution;
}

}  // namespace wasserwarp
