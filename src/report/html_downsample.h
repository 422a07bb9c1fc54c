// Fewer points to draw than a run has samples, keeping what the eye looks for.

#ifndef WASSERWARP_SRC_REPORT_HTML_DOWNSAMPLE_H_
#define WASSERWARP_SRC_REPORT_HTML_DOWNSAMPLE_H_

#include <cstddef>
#include <vector>

#include "wasserwarp/series.h"

namespace wasserwarp {

// Sample indices of `run` to draw channel `channel` with at most
// `max_points` (>= 2) points, increasing: every sample when there are few
// enough, else the minimum and the maximum of each of max_points / 2 buckets
// of consecutive samples, so that peaks and the envelope of noise survive.
std::vector<size_t> MinMaxSampleIndices(const Series& run, size_t channel, size_t max_points);

// Every k-th of `count` items, k the smallest step leaving at most
// `max_count` (>= 1): 0, k, 2k, ...
std::vector<size_t> EvenlySpacedIndices(size_t count, size_t max_count);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_HTML_DOWNSAMPLE_H_
