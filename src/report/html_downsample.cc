#include "report/html_downsample.h"

#include <cstddef>
#include <numeric>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp {

std::vector<size_t> MinMaxSampleIndices(const Series& run, size_t channel, size_t max_points) {
  const size_t n = run.samples();
  std::vector<size_t> indices;
  if (n <= max_points) {
    indices.resize(n);
    std::iota(indices.begin(), indices.end(), size_t{0});
    return indices;
  }
  const size_t buckets = max_points / 2;
  indices.reserve(2 * buckets);
  for (size_t b = 0; b < buckets; ++b) {
    const size_t begin = b * n / buckets;
    const size_t end = (b + 1) * n / buckets;
    size_t low = begin;
    size_t high = begin;
    for (size_t i = begin + 1; i < end; ++i) {
      if (run.value(i, channel) < run.value(low, channel)) low = i;
      if (run.value(i, channel) > run.value(high, channel)) high = i;
    }
    if (low == high) {
      indices.push_back(low);
    } else {
      indices.push_back(low < high ? low : high);
      indices.push_back(low < high ? high : low);
    }
  }
  return indices;
}

std::vector<size_t> EvenlySpacedIndices(size_t count, size_t max_count) {
  const size_t step = count <= max_count ? 1 : (count + max_count - 1) / max_count;
  std::vector<size_t> indices;
  for (size_t i = 0; i < count; i += step) indices.push_back(i);
  return indices;
}

}  // namespace wasserwarp
