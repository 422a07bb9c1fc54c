// Augmenting row reduction (Jonker & Volgenant 1987), the speed-up both assignment solvers
// run before their exact augmentations: each free row takes its cheapest column by reduced cost
// c(i, j) - v(j), lowering that column's price to the second cheapest so that the row it takes
// the column from may go on elsewhere. The dense solver scans every column, the sparse one its
// candidates; what a row does with its two cheapest is the same, and is here.

#ifndef WASSERWARP_SRC_TRANSPORT_ROW_REDUCTION_H_
#define WASSERWARP_SRC_TRANSPORT_ROW_REDUCTION_H_

#include <cstddef>
#include <limits>
#include <vector>

namespace wasserwarp::assignment_internal {

// Augmenting row reduction may bounce a free row between nearly equal columns
// for a long time (each step lowering a price by a tiny amount, a known
// weakness on matrices with many equal or almost equal entries). Its steps
// are only a speed-up, so each pass stops reducing after this many steps per
// row and leaves the rest to the augmentation phase, which is exact. At
// n = 2000, 2 to 8 were fastest on metric and uniform costs; unbounded, a
// 2-D metric instance ran for more than ten minutes.
inline constexpr size_t kRowReductionStepsPerRow = 4;

// A row's two cheapest columns by reduced cost, offered one column at a time.
struct TwoCheapest {
  double min1 = std::numeric_limits<double>::infinity();
  double min2 = std::numeric_limits<double>::infinity();
  int j1 = -1;
  int j2 = -1;

  void Offer(double reduced, int j) {
    if (reduced >= min2) return;
    if (reduced >= min1) {
      min2 = reduced;
      j2 = j;
    } else {
      min2 = min1;
      j2 = j1;
      min1 = reduced;
      j1 = j;
    }
  }
};

// The assignment and prices one pass of augmenting row reduction works on.
struct RowReduction {
  std::vector<int>& x;     // row -> column, -1 when free
  std::vector<int>& y;     // column -> row, -1 when free
  std::vector<double>& v;  // column prices
  std::vector<int>& free_rows;
  size_t next = 0;        // position in free_rows of the next row to process
  size_t still_free = 0;  // rows kept for the next pass or augmentation; <= next
  size_t steps = 0;
  size_t step_budget = 0;

  // Row i, with its two cheapest columns found, takes j1 (or j2 on a tie); the row that held
  // the column is processed next if the price fell, else kept for later.
  void Take(int i, TwoCheapest cheapest) {
    int j1 = cheapest.j1;
    int i0 = y[j1];
    // Compare the new price rather than min1 < min2: a gap too small to
    // change v(j1) must count as a tie, or the chain below never ends. A row
    // with a single column has no second price to lower to.
    const double lowered = v[j1] - (cheapest.min2 - cheapest.min1);
    const bool within_budget = ++steps <= step_budget;
    const bool lowers = within_budget && cheapest.j2 >= 0 && lowered < v[j1];
    if (lowers) {
      v[j1] = lowered;
    } else if (within_budget && i0 >= 0 && cheapest.j2 >= 0) {
      // Tie: j2 is as cheap for row i and may be free, ending the chain.
      j1 = cheapest.j2;
      i0 = y[j1];
    }
    x[i] = j1;
    y[j1] = i;
    if (i0 < 0) return;
    x[i0] = -1;
    if (lowers) {
      free_rows[--next] = i0;  // continue the chain with the row that lost j1
    } else {
      free_rows[still_free++] = i0;
    }
  }
};

}  // namespace wasserwarp::assignment_internal

#endif  // WASSERWARP_SRC_TRANSPORT_ROW_REDUCTION_H_
