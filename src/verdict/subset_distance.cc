#include "verdict/subset_distance.h"

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"
#include "wasserwarp/transport.h"

namespace wasserwarp::resampling {

absl::StatusOr<double> SubsetDistance(const CostMatrix& costs, const std::vector<size_t>& rows,
                                      const std::vector<double>& row_counts,
                                      const std::vector<size_t>& cols,
                                      const std::vector<double>& col_counts, double order) {
  CostMatrix subset(rows.size(), cols.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t c = 0; c < cols.size(); ++c) subset.at(r, c) = costs.at(rows[r], cols[c]);
  }
  TransportOptions options;
  options.order = order;
  options.row_weights = row_counts;
  options.col_weights = col_counts;
  absl::StatusOr<TransportResult> result = SolveTransport(subset, options);
  if (!result.ok()) return result.status();
  return result->distance;
}

}  // namespace wasserwarp::resampling
