// One optimal TWED edit path in full: which samples of the two runs it
// matches, for drawing the alignment. Unlike TwedWithPath, which keeps only
// counts in linear memory, this keeps one move per DP cell, so it refuses
// pairs whose matrix exceeds a cell cap.

#ifndef WASSERWARP_EDIT_PATH_H_
#define WASSERWARP_EDIT_PATH_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/series.h"
#include "wasserwarp/twed.h"

namespace wasserwarp {

// 0-based sample indices of one matched pair of samples.
struct EditPathMatch {
  size_t a = 0;
  size_t b = 0;
};

struct EditPath {
  double distance = 0.0;               // TWED(a, b)
  std::vector<EditPathMatch> matches;  // in path order: both indices increase
};

// 2e7 cells keep the move matrix at 20 MB.
inline constexpr uint64_t kDefaultMaxEditPathCells = 20'000'000;

// The distance and the matches of one optimal edit path, ties broken as
// TwedWithPath breaks them (match, then deletion in a, then deletion in b),
// so the match count equals TwedWithPath's. The start cell (0, 0) is a match.
// ResourceExhausted when a.samples() * b.samples() > max_cells;
// InvalidArgument for invalid runs or parameters, different channel counts,
// or a time window that leaves no path (naming both runs).
absl::StatusOr<EditPath> TwedEditPath(const Series& a, const Series& b, const TwedParams& params,
                                      uint64_t max_cells = kDefaultMaxEditPathCells);

}  // namespace wasserwarp

#endif  // WASSERWARP_EDIT_PATH_H_
