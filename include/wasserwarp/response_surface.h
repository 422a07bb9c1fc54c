// A quadratic response surface: the least-squares quadratic polynomial through values measured
// at design points in 1 to kMaxSurfaceParameters parameters, and its minimum inside the
// design's bounding box. What identification fits to W over the design points.

#ifndef WASSERWARP_RESPONSE_SURFACE_H_
#define WASSERWARP_RESPONSE_SURFACE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace wasserwarp {

inline constexpr size_t kMaxSurfaceParameters = 6;

// f(x) = constant + sum_i linear[i] x_i + sum_{i <= j} quadratic[k(i, j)] x_i x_j in the units
// of the parameters, k running over (0,0), (0,1), ..., (0,p-1), (1,1), ... (row-major upper
// triangle). The fit is made on coordinates scaled to [-1, 1] over the box; these coefficients
// are its expansion in the original units.
struct QuadraticSurface {
  std::vector<std::string> names;
  double constant = 0.0;
  std::vector<double> linear;
  std::vector<double> quadratic;
  std::vector<double> lower;  // the bounding box of the design points
  std::vector<double> upper;
  double r_squared = 0.0;         // 1 when every value is the same and fitted exactly
  std::vector<double> residuals;  // value - fitted, one per point
  bool convex = false;            // the Hessian is positive definite
  // The fit in scaled coordinates u = (x - centre) / half_width, from which the minimum and
  // values are computed (better conditioned than the expansion).
  std::vector<double> scaled;  // 1, u_i..., u_i u_j (i <= j) coefficients
};

// The number of coefficients of a quadratic in `parameters` variables: (p + 1)(p + 2) / 2.
size_t QuadraticTerms(size_t parameters);

// The term names in coefficient order: "1", then each name, then "a*b" and "a^2".
std::vector<std::string> QuadraticTermNames(const std::vector<std::string>& names);

// Fits the surface to `values` at `points` (each of names.size() coordinates). InvalidArgument
// for 0 or more than kMaxSurfaceParameters parameters, for a parameter with fewer than 3
// distinct values, for fewer points than terms, and for a rank-deficient design, naming the
// first term the design does not determine.
absl::StatusOr<QuadraticSurface> FitQuadraticSurface(const std::vector<std::string>& names,
                                                     const std::vector<std::vector<double>>& points,
                                                     const std::vector<double>& values);

// The surface at `x`.
double EvaluateSurface(const QuadraticSurface& surface, const std::vector<double>& x);

struct SurfaceMinimum {
  std::vector<double> x;
  double value = 0.0;
  bool on_boundary = false;  // some coordinate at its box bound
};

// The global minimum of the surface over its bounding box, convex or not: the best of the
// stationary points of the surface restricted to each face of the box (3^p faces), which is
// exact for a quadratic. Ties go to the face enumerated first, so the result is deterministic.
SurfaceMinimum MinimizeInBox(const QuadraticSurface& surface);

}  // namespace wasserwarp

#endif  // WASSERWARP_RESPONSE_SURFACE_H_
