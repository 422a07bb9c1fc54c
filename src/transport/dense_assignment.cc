// Jonker & Volgenant, "A shortest augmenting path algorithm for dense and
// sparse linear assignment problems", Computing 38 (1987) 325-340: column
// reduction, reduction transfer and augmenting row reduction give a cheap
// partial assignment with feasible prices, and a Dijkstra search per
// remaining free row completes it.
//
// Invariant throughout, with u_i = c(i, x_i) - v(x_i) for every assigned row:
// c(i, j) - v(j) >= u_i for all j, i.e. every assigned pair is a row minimum of
// the reduced costs. It makes (u, v) a dual certificate at the end.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "transport/assignment_internal.h"
#include "transport/row_reduction.h"

namespace wasserwarp::assignment_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class JonkerVolgenant {
 public:
  // `c`: row-major n x n finite costs, kept alive by the caller.
  JonkerVolgenant(const double* c, int n)
      : c_(c), n_(n), x_(n, -1), y_(n, -1), v_(n, 0.0), d_(n), pred_(n), cols_(n) {}

  void Solve() {
    std::vector<int> free_rows = ReduceColumns();
    // Two passes, as in the paper: the second one catches rows freed by the first.
    for (int pass = 0; pass < 2 && !free_rows.empty(); ++pass) {
      ReduceAugmentingRows(free_rows);
    }
    for (int row : free_rows) Augment(row);
  }

  const std::vector<int>& row_to_col() const { return x_; }
  const std::vector<double>& v() const { return v_; }

 private:
  const double* Row(int i) const { return c_ + static_cast<size_t>(i) * n_; }

  // Column reduction (v_j = column minimum, each column given to its minimum
  // row if that row is still free) followed by reduction transfer. Returns the
  // rows left unassigned.
  std::vector<int> ReduceColumns() {
    std::vector<int> argmin(n_, 0);
    for (int j = 0; j < n_; ++j) v_[j] = c_[j];
    // Row by row rather than column by column: the matrix is row-major.
    for (int i = 1; i < n_; ++i) {
      const double* row = Row(i);
      for (int j = 0; j < n_; ++j) {
        if (row[j] < v_[j]) {
          v_[j] = row[j];
          argmin[j] = i;
        }
      }
    }
    std::vector<int> matches(n_, 0);
    // Reverse column order, as in the paper, tends to leave fewer free rows.
    for (int j = n_ - 1; j >= 0; --j) {
      const int i = argmin[j];
      if (++matches[i] == 1) {
        x_[i] = j;
        y_[j] = i;
      }
    }
    std::vector<int> free_rows;
    for (int i = 0; i < n_; ++i) {
      if (matches[i] == 0) {
        free_rows.push_back(i);
      } else if (matches[i] == 1 && n_ > 1) {
        // Row i owns only its column j1: lower v(j1) so that the row's
        // reduced cost there equals its second smallest one, which keeps
        // (i, j1) a row minimum and gives other rows room to take j1.
        const int j1 = x_[i];
        const double* row = Row(i);
        double second = kInf;
        for (int j = 0; j < n_; ++j) {
          if (j != j1) second = std::min(second, row[j] - v_[j]);
        }
        v_[j1] -= second;
      }
    }
    return free_rows;
  }

  // One pass of augmenting row reduction over `free_rows`, which it replaces
  // by the rows still free afterwards.
  void ReduceAugmentingRows(std::vector<int>& free_rows) {
    RowReduction pass{.x = x_, .y = y_, .v = v_, .free_rows = free_rows};
    pass.step_budget = kRowReductionStepsPerRow * static_cast<size_t>(n_);
    const size_t count = free_rows.size();
    while (pass.next < count) {
      const int i = free_rows[pass.next++];
      const double* row = Row(i);
      TwoCheapest cheapest;
      for (int j = 0; j < n_; ++j) cheapest.Offer(row[j] - v_[j], j);
      pass.Take(i, cheapest);
    }
    free_rows.resize(pass.still_free);
  }

  // Shortest augmenting path from `free_row` over reduced costs, with the
  // dense scan of the paper: cols_[0, low) are done (distance final),
  // cols_[low, up) are at the current minimum distance waiting to be scanned,
  // cols_[up, n) are the rest.
  void Augment(int free_row) {
    const double* start = Row(free_row);
    for (int j = 0; j < n_; ++j) {
      d_[j] = start[j] - v_[j];
      pred_[j] = free_row;
      cols_[j] = j;
    }
    int low = 0;
    int up = 0;
    int last = 0;  // columns cols_[0, last) get their prices updated
    int end_of_path = -1;
    double min = 0.0;
    while (end_of_path < 0) {
      if (up == low) {
        // Some column is unassigned and is never scanned (every scanned
        // column is assigned), so up < n here.
        last = low;
        min = d_[cols_[up++]];
        for (int k = up; k < n_; ++k) {
          const int j = cols_[k];
          const double h = d_[j];
          if (h <= min) {
            if (h < min) {
              up = low;
              min = h;
            }
            cols_[k] = cols_[up];
            cols_[up++] = j;
          }
        }
        for (int k = low; k < up; ++k) {
          if (y_[cols_[k]] < 0) {
            end_of_path = cols_[k];
            break;
          }
        }
        if (end_of_path >= 0) break;
      }
      const int j1 = cols_[low++];
      const int i = y_[j1];
      const double* row = Row(i);
      const double h = row[j1] - v_[j1] - min;
      for (int k = up; k < n_; ++k) {
        const int j = cols_[k];
        const double dist = row[j] - v_[j] - h;
        if (dist < d_[j]) {
          pred_[j] = i;
          if (dist == min) {
            if (y_[j] < 0) {
              end_of_path = j;
              break;
            }
            cols_[k] = cols_[up];
            cols_[up++] = j;
          }
          d_[j] = dist;
        }
      }
    }
    for (int k = 0; k < last; ++k) {
      const int j = cols_[k];
      v_[j] += d_[j] - min;
    }
    int i = -1;
    do {
      i = pred_[end_of_path];
      y_[end_of_path] = i;
      std::swap(x_[i], end_of_path);
    } while (i != free_row);
  }

  const double* c_;
  const int n_;
  std::vector<int> x_;     // row -> column, -1 while free
  std::vector<int> y_;     // column -> row, -1 while free
  std::vector<double> v_;  // column prices
  // Scratch space of Augment().
  std::vector<double> d_;
  std::vector<int> pred_;
  std::vector<int> cols_;
};

}  // namespace

PricedAssignment SolveDense(const double* c, int n) {
  JonkerVolgenant solver(c, n);
  solver.Solve();
  return {.row_to_col = solver.row_to_col(), .v = solver.v()};
}

}  // namespace wasserwarp::assignment_internal
