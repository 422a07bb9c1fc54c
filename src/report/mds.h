// Classical (Torgerson) multidimensional scaling: points in the plane whose
// Euclidean distances approximate a matrix of distances, for drawing a map of
// runs from their pooled TWED matrix.

#ifndef WASSERWARP_SRC_REPORT_MDS_H_
#define WASSERWARP_SRC_REPORT_MDS_H_

#include <cstddef>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {

struct MdsEmbedding {
  std::vector<double> x;  // one per point, in the distances' units
  std::vector<double> y;
  // The two largest eigenvalues of B = -1/2 J D^2 J (J the centring matrix);
  // an axis whose eigenvalue is not positive has every coordinate 0.
  double eigenvalue_x = 0.0;
  double eigenvalue_y = 0.0;
  // Their positive part as a share of the sum of all positive eigenvalues
  // (1 when the distances are Euclidean in the plane; 0 when all are 0).
  double explained = 0.0;
  // Points the eigen-decomposition used: all of them, or evenly spaced
  // landmarks when there are more than max_landmarks.
  size_t landmarks = 0;
};

// The 2-D classical MDS of `distances` (square, symmetric, finite, >= 0).
// With more than `max_landmarks` points it is landmark MDS (de Silva and
// Tenenbaum): the landmarks are scaled exactly, every other point is placed
// by distance-based triangulation from its distances to them. Each axis's
// sign is fixed so that its largest coordinate in magnitude is positive;
// the result is deterministic. InvalidArgument names the offending cell.
absl::StatusOr<MdsEmbedding> ClassicalMds(const CostMatrix& distances, size_t max_landmarks = 300);

}  // namespace wasserwarp

#endif  // WASSERWARP_SRC_REPORT_MDS_H_
