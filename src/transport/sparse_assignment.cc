// Jonker-Volgenant on a sparse set of candidate entries, made exact for the
// whole matrix by pricing, as the network simplex does (network_simplex.cc).
//
// An assignment whose column prices v leave every assigned pair a row minimum
// of c(i, j) - v(j) over the candidates is optimal among them; if no entry of
// the matrix undercuts its row's assigned one, (u, v) is feasible for the
// whole matrix and the assignment is optimal there too, by LP duality. The
// entries that do undercut join the candidates, their rows are freed, and the
// solve resumes from the prices and the rest of the assignment. Each round
// adds an entry, so this ends: after one to four rounds on uniform and
// TWED-like matrices at n = 2000 and 5000, a dozen on points on a line; each
// round is one pass over the matrix plus augmentations on a few percent of
// its entries, where the dense solver's every augmentation scans whole rows.
//
// The candidates start as each row's and each column's cheapest entries,
// which hold nearly all of an optimal assignment, and the diagonal, which
// holds a perfect matching, so that the restricted problem is always feasible.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"
#include "transport/assignment_internal.h"
#include "transport/row_reduction.h"
#include "transport/sparse_candidates.h"

namespace wasserwarp::assignment_internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Candidates beyond this share of the matrix cost more than they save (the
// augmentations' heap and arc lists against the dense scans): the dense
// solver takes over.
constexpr size_t kMaxArcShareDenominator = 8;

class SparseJonkerVolgenant {
 public:
  SparseJonkerVolgenant(const double* c, int n)
      : c_(c), n_(n), x_(n, -1), y_(n, -1), v_(n, 0.0), d_(n, kInf), pred_(n), done_(n, 0) {}

  void set_arcs(const Candidates* arcs) { arcs_ = arcs; }

  // Column reduction and reduction transfer over the candidates, then augmenting
  // row reduction as in the dense solver; returns the rows left free.
  std::vector<int> Start() {
    const Candidates& a = *arcs_;
    std::vector<int> argmin(n_, -1);
    std::fill(v_.begin(), v_.end(), kInf);
    for (int i = 0; i < n_; ++i) {
      for (int k = a.start[i]; k < a.start[i + 1]; ++k) {
        const int j = a.col[k];
        if (a.cost[k] < v_[j]) {
          v_[j] = a.cost[k];
          argmin[j] = i;
        }
      }
    }
    std::vector<int> matches(n_, 0);
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
      } else if (matches[i] == 1) {
        const int j1 = x_[i];
        double second = kInf;
        for (int k = a.start[i]; k < a.start[i + 1]; ++k) {
          if (a.col[k] != j1) second = std::min(second, a.cost[k] - v_[a.col[k]]);
        }
        if (second < kInf) v_[j1] -= second;
      }
    }
    for (int pass = 0; pass < 2 && !free_rows.empty(); ++pass) ReduceAugmentingRows(free_rows);
    return free_rows;
  }

  // Frees `rows` (their assigned entries no longer being row minima).
  void Unassign(const std::vector<int>& rows) {
    for (int i : rows) {
      y_[x_[i]] = -1;
      x_[i] = -1;
    }
  }

  // Shortest augmenting path from `free_row` over reduced costs of the
  // candidates (Dijkstra with a binary heap, ties to the lower column, for
  // determinism); false if no free column is reachable.
  bool Augment(int free_row) {
    const Candidates& a = *arcs_;
    heap_.clear();
    for (int k = a.start[free_row]; k < a.start[free_row + 1]; ++k) {
      Relax(a.col[k], a.cost[k] - v_[a.col[k]], free_row);
    }
    int end_of_path = -1;
    double min = 0.0;
    while (end_of_path < 0 && !heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
      const auto [dist, j1] = heap_.back();
      heap_.pop_back();
      if (done_[j1] || dist > d_[j1]) continue;  // a stale entry
      if (y_[j1] < 0) {
        end_of_path = j1;
        min = dist;
        break;
      }
      done_[j1] = 1;
      scanned_.push_back(j1);
      const int i = y_[j1];
      scanned_arcs_ += static_cast<uint64_t>(a.start[i + 1] - a.start[i]);
      const double h = c_[static_cast<size_t>(i) * n_ + j1] - v_[j1] - dist;
      for (int k = a.start[i]; k < a.start[i + 1]; ++k) {
        const int j = a.col[k];
        if (done_[j]) continue;
        const double d = a.cost[k] - v_[j] - h;
        if (d < d_[j]) {
          // Nothing is nearer than dist: a free column at that distance ends the search.
          if (y_[j] < 0 && d <= dist) {
            d_[j] = d;
            pred_[j] = i;
            touched_.push_back(j);
            end_of_path = j;
            min = d;
            break;
          }
          Relax(j, d, i);
        }
      }
    }
    if (end_of_path >= 0) {
      for (int j : scanned_) v_[j] += d_[j] - min;
    }
    for (int j : touched_) {
      d_[j] = kInf;
      done_[j] = 0;
    }
    touched_.clear();
    scanned_.clear();
    if (end_of_path < 0) return false;
    int i = -1;
    do {
      i = pred_[end_of_path];
      y_[end_of_path] = i;
      std::swap(x_[i], end_of_path);
    } while (i != free_row);
    return true;
  }

  const std::vector<int>& row_to_col() const { return x_; }
  const std::vector<double>& v() const { return v_; }
  // Candidates that Augment has scanned so far: its work, beside the rounds' pricing passes.
  uint64_t scanned_arcs() const { return scanned_arcs_; }

 private:
  void Relax(int j, double d, int row) {
    if (!(d < d_[j])) return;
    if (d_[j] == kInf) touched_.push_back(j);
    d_[j] = d;
    pred_[j] = row;
    heap_.emplace_back(d, j);
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  }

  // Augmenting row reduction (row_reduction.h), over the candidates.
  void ReduceAugmentingRows(std::vector<int>& free_rows) {
    const Candidates& a = *arcs_;
    RowReduction pass{.x = x_, .y = y_, .v = v_, .free_rows = free_rows};
    pass.step_budget = kRowReductionStepsPerRow * static_cast<size_t>(n_);
    const size_t count = free_rows.size();
    while (pass.next < count) {
      const int i = free_rows[pass.next++];
      TwoCheapest cheapest;
      for (int k = a.start[i]; k < a.start[i + 1]; ++k) {
        cheapest.Offer(a.cost[k] - v_[a.col[k]], a.col[k]);
      }
      pass.Take(i, cheapest);
    }
    free_rows.resize(pass.still_free);
  }

  const double* c_;
  const int n_;
  const Candidates* arcs_ = nullptr;
  std::vector<int> x_;
  std::vector<int> y_;
  std::vector<double> v_;
  // Scratch space of Augment(), reset to kInf and 0 where touched.
  std::vector<double> d_;
  std::vector<int> pred_;
  std::vector<char> done_;
  std::vector<int> touched_;
  std::vector<int> scanned_;
  std::vector<std::pair<double, int>> heap_;
  uint64_t scanned_arcs_ = 0;
};

}  // namespace

PricedAssignment SolveSparse(const double* c, int n, const SparseOptions& options,
                             SparseStats* stats) {
  SparseStats local;
  SparseStats& s = stats != nullptr ? *stats : local;
  s = SparseStats{};
  // Offsets into the candidates are ints.
  const size_t max_arcs = std::min<size_t>(static_cast<size_t>(n) * n / kMaxArcShareDenominator,
                                           std::numeric_limits<int>::max());
  const auto max_scanned_arcs =
      static_cast<uint64_t>(options.max_scanned_arcs_per_entry * static_cast<double>(n) * n);
  Candidates arcs = InitialCandidates(c, n, options.candidates);
  SparseJonkerVolgenant solver(c, n);
  solver.set_arcs(&arcs);
  std::vector<int> free_rows = solver.Start();
  while (true) {
    ++s.rounds;
    for (int row : free_rows) {
      // A row that reaches no free column (not while the diagonal is a candidate), or paths past
      // their budget: the dense solver answers instead.
      if (!solver.Augment(row) || solver.scanned_arcs() > max_scanned_arcs) {
        s.scanned_arcs = solver.scanned_arcs();
        s.fell_back = true;
        return SolveDense(c, n);
      }
    }
    std::vector<std::vector<int>> violators =
        Violators(c, n, solver.row_to_col(), solver.v(), arcs, options.violators_per_row);
    free_rows.clear();
    size_t added = 0;
    for (int i = 0; i < n; ++i) {
      if (!violators[i].empty()) {
        free_rows.push_back(i);
        added += violators[i].size();
      }
    }
    s.arcs = arcs.col.size();
    s.scanned_arcs = solver.scanned_arcs();
    if (free_rows.empty()) break;
    if (arcs.col.size() + added > max_arcs) {
      s.fell_back = true;
      return SolveDense(c, n);
    }
    arcs = AddCandidates(c, n, arcs, violators);
    solver.set_arcs(&arcs);
    solver.Unassign(free_rows);
  }
  return {.row_to_col = solver.row_to_col(), .v = solver.v()};
}

}  // namespace wasserwarp::assignment_internal
