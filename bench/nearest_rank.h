// The nearest-rank percentile of a sample, as the latency figures of the bench programs use it.

#ifndef WASSERWARP_BENCH_NEAREST_RANK_H_
#define WASSERWARP_BENCH_NEAREST_RANK_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace wasserwarp::bench {

// The q-quantile, q in (0, 1], of `sorted` (ascending): its ceil(q * size)-th value; 0 when
// it is empty.
inline double NearestRank(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0.0;
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace wasserwarp::bench

#endif  // WASSERWARP_BENCH_NEAREST_RANK_H_
