#include "network_simplex.h"

#include <lemon/network_simplex.h>
#include <lemon/static_graph.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <new>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp {
namespace {

using Digraph = lemon::StaticDigraph;
using Simplex = lemon::NetworkSimplex<Digraph, int64_t, double>;

// Generates the arcs (i, rows + j) of the complete bipartite digraph in
// row-major order, so that StaticDigraph::build numbers arc (i, j) as
// i * cols + j, the index of its cost, without materialising an arc list.
class BipartiteArcIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = std::pair<int, int>;
  using difference_type = std::ptrdiff_t;
  using pointer = const value_type*;
  using reference = value_type;

  BipartiteArcIterator(int rows, int cols, int row) : rows_(rows), cols_(cols), row_(row) {}

  value_type operator*() const { return {row_, rows_ + col_}; }
  BipartiteArcIterator& operator++() {
    if (++col_ == cols_) {
      col_ = 0;
      ++row_;
    }
    return *this;
  }
  bool operator==(const BipartiteArcIterator& other) const {
    return row_ == other.row_ && col_ == other.col_;
  }
  bool operator!=(const BipartiteArcIterator& other) const { return !(*this == other); }

 private:
  int rows_;
  int cols_;
  int row_;
  int col_ = 0;
};

// LEMON reads costs through a map; this one scales on the fly instead of
// copying the n x m matrix.
class ScaledCostMap {
 public:
  using Key = Digraph::Arc;
  using Value = double;

  ScaledCostMap(const std::vector<double>& costs, double scale) : costs_(costs), scale_(scale) {}
  Value operator[](const Key& arc) const { return costs_[Digraph::index(arc)] * scale_; }

 private:
  const std::vector<double>& costs_;
  double scale_;
};

// Row nodes supply, column nodes demand (negative supply in LEMON's terms).
class SupplyMap {
 public:
  using Key = Digraph::Node;
  using Value = int64_t;

  SupplyMap(const std::vector<int64_t>& supply, const std::vector<int64_t>& demand)
      : supply_(supply), demand_(demand) {}
  Value operator[](const Key& node) const {
    const size_t k = Digraph::index(node);
    return k < supply_.size() ? supply_[k] : -demand_[k - supply_.size()];
  }

 private:
  const std::vector<int64_t>& supply_;
  const std::vector<int64_t>& demand_;
};

Simplex::PivotRule ToLemon(PivotRule rule) {
  switch (rule) {
    case PivotRule::kBlockSearch:
      return Simplex::BLOCK_SEARCH;
    case PivotRule::kCandidateList:
      return Simplex::CANDIDATE_LIST;
    case PivotRule::kAlteringList:
      return Simplex::ALTERING_LIST;
  }
  return Simplex::BLOCK_SEARCH;
}

absl::StatusOr<NetworkSimplexSolution> Solve(const CostMatrix& costs,
                                             const std::vector<int64_t>& supply,
                                             const std::vector<int64_t>& demand,
                                             const NetworkSimplexOptions& options) {
  const int rows = static_cast<int>(costs.rows);
  const int cols = static_cast<int>(costs.cols);

  // LEMON gives its artificial arcs cost (max cost + 1) * nodes: next to tiny
  // costs the + 1 would dominate the potentials and their rounding, and huge
  // costs could overflow. Scaling by a power of two (exact) to a maximum in
  // [0.5, 1) avoids both whatever the units.
  double max_cost = 0.0;
  for (double c : costs.values) max_cost = std::max(max_cost, c);
  int exponent = 0;
  std::frexp(max_cost, &exponent);

  Digraph graph;
  graph.build(rows + cols, BipartiteArcIterator(rows, cols, 0),
              BipartiteArcIterator(rows, cols, rows));
  Simplex simplex(graph, options.arc_mixing);
  simplex.costMap(ScaledCostMap(costs.values, std::ldexp(1.0, -exponent)))
      .supplyMap(SupplyMap(supply, demand));
  const Simplex::ProblemType status = simplex.run(ToLemon(options.pivot_rule));
  if (status != Simplex::OPTIMAL) {
    return absl::InternalError(absl::StrCat(
        "network simplex did not find an optimum (LEMON status ", static_cast<int>(status),
        ") on a ", rows, " x ", cols, " transportation problem"));
  }

  NetworkSimplexSolution solution;
  // A basic solution has at most rows + cols - 1 positive flows.
  solution.flows.reserve(rows + cols);
  std::vector<int64_t> row_flow(rows, 0);
  std::vector<int64_t> col_flow(cols, 0);
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) {
      const int64_t flow = simplex.flow(Digraph::arc(i * cols + j));
      if (flow < 0) {
        return absl::InternalError(
            absl::StrCat("network simplex returned negative flow on (", i, ", ", j, ")"));
      }
      if (flow == 0) continue;
      solution.flows.push_back({.row = i, .col = j, .flow = flow});
      row_flow[i] += flow;
      col_flow[j] += flow;
    }
  }
  for (int i = 0; i < rows; ++i) {
    if (row_flow[i] != supply[i]) {
      return absl::InternalError(absl::StrCat("network simplex ships ", row_flow[i], " from row ",
                                              i, " instead of ", supply[i]));
    }
  }
  for (int j = 0; j < cols; ++j) {
    if (col_flow[j] != demand[j]) {
      return absl::InternalError(absl::StrCat("network simplex ships ", col_flow[j], " to column ",
                                              j, " instead of ", demand[j]));
    }
  }

  // LEMON's optimality condition is cost(a) + pi(source) - pi(target) >= 0 on
  // every arc that may carry more flow (all arcs here: capacities are
  // unbounded), i.e. pi(n + j) - pi(i) <= c_ij: u_i = -pi(i), v_j = pi(n + j).
  solution.u.resize(rows);
  solution.v.resize(cols);
  for (int i = 0; i < rows; ++i) {
    solution.u[i] = std::ldexp(-simplex.potential(Digraph::node(i)), exponent);
  }
  for (int j = 0; j < cols; ++j) {
    solution.v[j] = std::ldexp(simplex.potential(Digraph::node(rows + j)), exponent);
  }
  return solution;
}

}  // namespace

absl::StatusOr<NetworkSimplexSolution> SolveNetworkSimplex(const CostMatrix& costs,
                                                           const std::vector<int64_t>& supply,
                                                           const std::vector<int64_t>& demand,
                                                           const NetworkSimplexOptions& options) {
  // LEMON indexes nodes and arcs with int and adds up to two artificial arcs
  // per node.
  const size_t nodes = costs.rows + costs.cols;
  if (costs.rows > static_cast<size_t>(INT_MAX) || costs.cols > static_cast<size_t>(INT_MAX) ||
      nodes > static_cast<size_t>(INT_MAX) / 4 ||
      costs.rows * costs.cols > static_cast<size_t>(INT_MAX) - 2 * nodes) {
    return absl::InvalidArgumentError(absl::StrCat("a ", costs.rows, " x ", costs.cols,
                                                   " transportation problem is too large for "
                                                   "the network simplex"));
  }
  if (costs.values.size() != costs.rows * costs.cols) {
    return absl::InvalidArgumentError(absl::StrCat("cost matrix of ", costs.rows, " x ", costs.cols,
                                                   " holds ", costs.values.size(), " values"));
  }
  if (supply.size() != costs.rows || demand.size() != costs.cols) {
    return absl::InvalidArgumentError(
        absl::StrCat("network simplex got ", supply.size(), " supplies and ", demand.size(),
                     " demands for a ", costs.rows, " x ", costs.cols, " cost matrix"));
  }
  // Totals below 2^62 each cannot overflow int64 in LEMON's sums.
  constexpr int64_t kMaxTotal = int64_t{1} << 62;
  int64_t total_supply = 0;
  int64_t total_demand = 0;
  for (int64_t s : supply) {
    if (s < 0 || s > kMaxTotal - total_supply) {
      return absl::InvalidArgumentError("supplies must be non-negative and sum below 2^62");
    }
    total_supply += s;
  }
  for (int64_t d : demand) {
    if (d < 0 || d > kMaxTotal - total_demand) {
      return absl::InvalidArgumentError("demands must be non-negative and sum below 2^62");
    }
    total_demand += d;
  }
  if (total_supply != total_demand) {
    return absl::InvalidArgumentError(
        absl::StrCat("supplies sum to ", total_supply, " but demands to ", total_demand));
  }
  try {
    return Solve(costs, supply, demand, options);
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError(absl::StrCat("out of memory in the network simplex on a ",
                                                     costs.rows, " x ", costs.cols,
                                                     " transportation problem"));
  }
}

}  // namespace wasserwarp
