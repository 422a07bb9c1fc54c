#include "transport/sparse_candidates.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "tbb/blocked_range.h"
#include "tbb/parallel_for.h"

namespace wasserwarp::assignment_internal {
namespace {

// The matrix is read once, in memory order, by this many stripes of rows,
// each keeping every column's cheapest entries among its rows; the stripes'
// lists are then merged in row order. A number fixed by n alone, not by the
// threads, keeps the result independent of the thread count. (Reading column
// blocks instead, one task per block down all rows, touched a new page every
// few cache lines and took three times as long at n = 5000.)
constexpr int kMaxStripes = 8;
constexpr int kMinRowsPerStripe = 256;

// Keeps the `k` smallest (cost, id) offered, sorted, in costs[0, size) and
// ids[0, size). Ids come in ascending order, so a tie keeps the earlier one.
inline void Offer(double cost, int id, int k, int& size, double* costs, int* ids) {
  if (size == k && cost >= costs[k - 1]) return;
  int t = size < k ? size++ : k - 1;
  for (; t > 0 && costs[t - 1] > cost; --t) {
    costs[t] = costs[t - 1];
    ids[t] = ids[t - 1];
  }
  costs[t] = cost;
  ids[t] = id;
}

Candidates FromEntries(const double* c, int n, std::vector<int64_t>& entries) {
  std::sort(entries.begin(), entries.end());
  entries.erase(std::unique(entries.begin(), entries.end()), entries.end());
  Candidates arcs;
  arcs.start.assign(n + 1, 0);
  arcs.col.resize(entries.size());
  arcs.cost.resize(entries.size());
  for (size_t e = 0; e < entries.size(); ++e) {
    ++arcs.start[entries[e] / n + 1];
    arcs.col[e] = static_cast<int>(entries[e] % n);
    arcs.cost[e] = c[entries[e]];
  }
  for (int i = 0; i < n; ++i) arcs.start[i + 1] += arcs.start[i];
  return arcs;
}

}  // namespace

Candidates InitialCandidates(const double* c, int n, int k) {
  k = std::max(1, std::min(k, n));
  const size_t nk = static_cast<size_t>(n) * k;
  const int stripes = std::max(1, std::min(kMaxStripes, n / kMinRowsPerStripe));
  std::vector<int> row_best(nk);
  // Per stripe: every column's list (costs and rows), its size, and the cost
  // an entry must undercut to join it (infinite until the list is full), kept
  // apart so that the one test most entries get reads contiguous memory.
  struct ColumnLists {
    std::vector<double> costs;
    std::vector<int> rows;
    std::vector<int> sizes;
    std::vector<double> bar;
  };
  std::vector<ColumnLists> lists(stripes);
  tbb::parallel_for(0, stripes, [&](int s) {
    ColumnLists& l = lists[s];
    l.costs.resize(nk);
    l.rows.resize(nk);
    l.sizes.assign(n, 0);
    l.bar.assign(n, std::numeric_limits<double>::infinity());
    std::vector<double> row_costs(k);
    double* bar = l.bar.data();
    const int first = static_cast<int>(static_cast<int64_t>(n) * s / stripes);
    const int last = static_cast<int>(static_cast<int64_t>(n) * (s + 1) / stripes);
    for (int i = first; i < last; ++i) {
      const double* row = c + static_cast<size_t>(i) * n;
      int size = 0;
      int* ids = row_best.data() + static_cast<size_t>(i) * k;
      double row_bar = std::numeric_limits<double>::infinity();
      for (int j = 0; j < n; ++j) {
        const double cost = row[j];
        if (cost < row_bar) {
          Offer(cost, j, k, size, row_costs.data(), ids);
          if (size == k) row_bar = row_costs[k - 1];
        }
        if (cost < bar[j]) {
          const size_t at = static_cast<size_t>(j) * k;
          Offer(cost, i, k, l.sizes[j], l.costs.data() + at, l.rows.data() + at);
          if (l.sizes[j] == k) bar[j] = l.costs[at + k - 1];
        }
      }
    }
  });
  std::vector<int64_t> entries;
  entries.reserve(2 * nk + n);
  for (int i = 0; i < n; ++i) {
    const int64_t base = static_cast<int64_t>(i) * n;
    for (int t = 0; t < k; ++t) entries.push_back(base + row_best[static_cast<size_t>(i) * k + t]);
    entries.push_back(base + i);
  }
  std::vector<double> costs(k);
  std::vector<int> rows(k);
  for (int j = 0; j < n; ++j) {
    const size_t at = static_cast<size_t>(j) * k;
    int size = 0;
    // Stripes in row order, each sorted with ties in row order: as one scan would keep them.
    for (const ColumnLists& l : lists) {
      for (int t = 0; t < l.sizes[j]; ++t) {
        Offer(l.costs[at + t], l.rows[at + t], k, size, costs.data(), rows.data());
      }
    }
    for (int t = 0; t < size; ++t) entries.push_back(static_cast<int64_t>(rows[t]) * n + j);
  }
  return FromEntries(c, n, entries);
}

std::vector<std::vector<int>> Violators(const double* c, int n, const std::vector<int>& x,
                                        const std::vector<double>& v, const Candidates& arcs,
                                        int cap) {
  std::vector<std::vector<int>> found(n);
  tbb::parallel_for(tbb::blocked_range<int>(0, n), [&](const tbb::blocked_range<int>& range) {
    std::vector<std::pair<double, int>> undercut;
    for (int i = range.begin(); i < range.end(); ++i) {
      const double* row = c + static_cast<size_t>(i) * n;
      const double u = row[x[i]] - v[x[i]];
      undercut.clear();
      for (int j = 0; j < n; ++j) {
        const double reduced = row[j] - v[j];
        if (reduced < u) undercut.emplace_back(reduced, j);
      }
      if (undercut.empty()) continue;
      // Candidates may undercut by rounding in the prices; the solver has
      // already proven them.
      const int* first = arcs.col.data() + arcs.start[i];
      const int* last = arcs.col.data() + arcs.start[i + 1];
      std::erase_if(undercut, [&](const std::pair<double, int>& e) {
        return std::binary_search(first, last, e.second);
      });
      if (undercut.size() > static_cast<size_t>(cap)) {
        std::partial_sort(undercut.begin(), undercut.begin() + cap, undercut.end());
        undercut.resize(cap);
      }
      std::vector<int>& cols = found[i];
      for (const auto& e : undercut) cols.push_back(e.second);
      std::sort(cols.begin(), cols.end());
    }
  });
  return found;
}

Candidates AddCandidates(const double* c, int n, const Candidates& arcs,
                         const std::vector<std::vector<int>>& added) {
  Candidates merged;
  size_t total = arcs.col.size();
  for (const std::vector<int>& cols : added) total += cols.size();
  merged.start.assign(n + 1, 0);
  merged.col.resize(total);
  merged.cost.resize(total);
  size_t out = 0;
  for (int i = 0; i < n; ++i) {
    const double* row = c + static_cast<size_t>(i) * n;
    const std::vector<int>& extra = added[i];
    int k = arcs.start[i];
    const int end = arcs.start[i + 1];
    size_t e = 0;
    while (k < end || e < extra.size()) {
      if (e == extra.size() || (k < end && arcs.col[k] < extra[e])) {
        merged.col[out] = arcs.col[k];
        merged.cost[out++] = arcs.cost[k++];
      } else {
        merged.col[out] = extra[e];
        merged.cost[out++] = row[extra[e++]];
      }
    }
    merged.start[i + 1] = static_cast<int>(out);
  }
  return merged;
}

}  // namespace wasserwarp::assignment_internal
