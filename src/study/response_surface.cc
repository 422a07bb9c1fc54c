// The fit is a Householder QR on the scaled design matrix: with u in [-1, 1] the columns have
// comparable norms, so a column whose remainder after the previous ones is a tiny fraction of
// its own norm is a term the design cannot tell apart from the others, and the error can name it.

#include "wasserwarp/response_surface.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace wasserwarp {
namespace {

// A column left with less than this fraction of its norm is dependent on the previous ones.
constexpr double kRankTolerance = 1e-9;
// A pivot below this fraction of the largest Hessian entry makes a face's system singular.
constexpr double kPivotTolerance = 1e-12;
constexpr double kBoundaryTolerance = 1e-9;

// The scaled features of one point: 1, u_i, u_i u_j (i <= j).
std::vector<double> Features(const std::vector<double>& u) {
  std::vector<double> features = {1.0};
  features.insert(features.end(), u.begin(), u.end());
  for (size_t i = 0; i < u.size(); ++i) {
    for (size_t j = i; j < u.size(); ++j) features.push_back(u[i] * u[j]);
  }
  return features;
}

std::vector<double> Scaled(const QuadraticSurface& surface, const std::vector<double>& x) {
  std::vector<double> u(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double centre = 0.5 * (surface.lower[i] + surface.upper[i]);
    const double half = 0.5 * (surface.upper[i] - surface.lower[i]);
    u[i] = (x[i] - centre) / half;
  }
  return u;
}

double Dot(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (size_t k = 0; k < a.size(); ++k) sum += a[k] * b[k];
  return sum;
}

// The gradient at u = 0 and the Hessian of the scaled fit.
struct ScaledDerivatives {
  std::vector<double> gradient;
  std::vector<std::vector<double>> hessian;
};

ScaledDerivatives DerivativesOf(const QuadraticSurface& surface) {
  const size_t p = surface.names.size();
  ScaledDerivatives d;
  d.gradient.assign(surface.scaled.begin() + 1, surface.scaled.begin() + 1 + p);
  d.hessian.assign(p, std::vector<double>(p, 0.0));
  size_t k = 1 + p;
  for (size_t i = 0; i < p; ++i) {
    for (size_t j = i; j < p; ++j, ++k) {
      if (i == j) {
        d.hessian[i][i] = 2.0 * surface.scaled[k];
      } else {
        d.hessian[i][j] = d.hessian[j][i] = surface.scaled[k];
      }
    }
  }
  return d;
}

double LargestEntry(const std::vector<std::vector<double>>& matrix) {
  double largest = 0.0;
  for (const std::vector<double>& row : matrix) {
    for (double value : row) largest = std::max(largest, std::abs(value));
  }
  return largest;
}

bool PositiveDefinite(std::vector<std::vector<double>> a) {
  const double scale = LargestEntry(a);
  if (scale == 0.0) return false;
  const size_t n = a.size();
  for (size_t k = 0; k < n; ++k) {
    for (size_t m = 0; m < k; ++m) a[k][k] -= a[k][m] * a[k][m];
    if (!(a[k][k] > kPivotTolerance * scale)) return false;
    a[k][k] = std::sqrt(a[k][k]);
    for (size_t i = k + 1; i < n; ++i) {
      for (size_t m = 0; m < k; ++m) a[i][k] -= a[i][m] * a[k][m];
      a[i][k] /= a[k][k];
    }
  }
  return true;
}

// Solves a x = b by Gaussian elimination with partial pivoting; false when a pivot falls below
// `tolerance`.
bool Solve(std::vector<std::vector<double>> a, std::vector<double> b, double tolerance,
           std::vector<double>& x) {
  const size_t n = b.size();
  for (size_t k = 0; k < n; ++k) {
    size_t pivot = k;
    for (size_t i = k + 1; i < n; ++i) {
      if (std::abs(a[i][k]) > std::abs(a[pivot][k])) pivot = i;
    }
    if (!(std::abs(a[pivot][k]) > tolerance)) return false;
    std::swap(a[k], a[pivot]);
    std::swap(b[k], b[pivot]);
    for (size_t i = k + 1; i < n; ++i) {
      const double factor = a[i][k] / a[k][k];
      for (size_t j = k; j < n; ++j) a[i][j] -= factor * a[k][j];
      b[i] -= factor * b[k];
    }
  }
  x.assign(n, 0.0);
  for (size_t k = n; k-- > 0;) {
    double sum = b[k];
    for (size_t j = k + 1; j < n; ++j) sum -= a[k][j] * x[j];
    x[k] = sum / a[k][k];
  }
  return true;
}

// Least squares by Householder QR; the index of the first dependent column on failure.
struct LeastSquares {
  std::vector<double> coefficients;
  std::optional<size_t> dependent_column;
};

LeastSquares SolveLeastSquares(std::vector<std::vector<double>> rows, std::vector<double> b) {
  const size_t n = rows.size();
  const size_t terms = rows.front().size();
  std::vector<double> norms(terms, 0.0);
  for (size_t j = 0; j < terms; ++j) {
    for (size_t i = 0; i < n; ++i) norms[j] += rows[i][j] * rows[i][j];
    norms[j] = std::sqrt(norms[j]);
  }
  LeastSquares result;
  for (size_t k = 0; k < terms; ++k) {
    double remainder = 0.0;
    for (size_t i = k; i < n; ++i) remainder += rows[i][k] * rows[i][k];
    remainder = std::sqrt(remainder);
    if (!(remainder > kRankTolerance * norms[k])) {
      result.dependent_column = k;
      return result;
    }
    const double alpha = rows[k][k] > 0.0 ? -remainder : remainder;
    std::vector<double> v(n - k);
    for (size_t i = k; i < n; ++i) v[i - k] = rows[i][k];
    v[0] -= alpha;
    const double v_norm2 = Dot(v, v);
    for (size_t j = k; j < terms; ++j) {
      double s = 0.0;
      for (size_t i = k; i < n; ++i) s += v[i - k] * rows[i][j];
      s = 2.0 * s / v_norm2;
      for (size_t i = k; i < n; ++i) rows[i][j] -= s * v[i - k];
    }
    double s = 0.0;
    for (size_t i = k; i < n; ++i) s += v[i - k] * b[i];
    s = 2.0 * s / v_norm2;
    for (size_t i = k; i < n; ++i) b[i] -= s * v[i - k];
  }
  result.coefficients.assign(terms, 0.0);
  for (size_t k = terms; k-- > 0;) {
    double sum = b[k];
    for (size_t j = k + 1; j < terms; ++j) sum -= rows[k][j] * result.coefficients[j];
    result.coefficients[k] = sum / rows[k][k];
  }
  return result;
}

// The expansion of the scaled fit in the original units (u_i = a_i x_i + b_i).
void Expand(QuadraticSurface& surface) {
  const size_t p = surface.names.size();
  std::vector<double> a(p);
  std::vector<double> b(p);
  for (size_t i = 0; i < p; ++i) {
    const double half = 0.5 * (surface.upper[i] - surface.lower[i]);
    a[i] = 1.0 / half;
    b[i] = -0.5 * (surface.lower[i] + surface.upper[i]) / half;
  }
  const std::vector<double>& s = surface.scaled;
  surface.constant = s[0];
  surface.linear.assign(p, 0.0);
  surface.quadratic.clear();
  for (size_t i = 0; i < p; ++i) {
    surface.linear[i] += s[1 + i] * a[i];
    surface.constant += s[1 + i] * b[i];
  }
  size_t k = 1 + p;
  for (size_t i = 0; i < p; ++i) {
    for (size_t j = i; j < p; ++j, ++k) {
      surface.quadratic.push_back(s[k] * a[i] * a[j]);
      surface.linear[i] += s[k] * a[i] * b[j];
      surface.linear[j] += s[k] * b[i] * a[j];
      surface.constant += s[k] * b[i] * b[j];
    }
  }
}

}  // namespace

size_t QuadraticTerms(size_t parameters) { return (parameters + 1) * (parameters + 2) / 2; }

std::vector<std::string> QuadraticTermNames(const std::vector<std::string>& names) {
  std::vector<std::string> terms = {"1"};
  terms.insert(terms.end(), names.begin(), names.end());
  for (size_t i = 0; i < names.size(); ++i) {
    for (size_t j = i; j < names.size(); ++j) {
      terms.push_back(i == j ? absl::StrCat(names[i], "^2")
                             : absl::StrCat(names[i], "*", names[j]));
    }
  }
  return terms;
}

absl::StatusOr<QuadraticSurface> FitQuadraticSurface(const std::vector<std::string>& names,
                                                     const std::vector<std::vector<double>>& points,
                                                     const std::vector<double>& values) {
  const size_t p = names.size();
  if (p == 0 || p > kMaxSurfaceParameters) {
    return absl::InvalidArgumentError(absl::StrCat("a quadratic response surface takes 1 to ",
                                                   kMaxSurfaceParameters, " parameters, got ", p));
  }
  if (values.size() != points.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(points.size(), " design points but ", values.size(), " values"));
  }
  QuadraticSurface surface;
  surface.names = names;
  surface.lower.assign(p, 0.0);
  surface.upper.assign(p, 0.0);
  for (size_t i = 0; i < p; ++i) {
    std::set<double> distinct;
    for (const std::vector<double>& point : points) distinct.insert(point[i]);
    if (distinct.size() < 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter \"", names[i], "\" takes ", distinct.size(),
                       " distinct values in the design; a quadratic in it needs at least 3"));
    }
    surface.lower[i] = *distinct.begin();
    surface.upper[i] = *distinct.rbegin();
  }
  const size_t terms = QuadraticTerms(p);
  if (points.size() < terms) {
    return absl::InvalidArgumentError(absl::StrCat("a quadratic surface in ", p, " parameters has ",
                                                   terms, " coefficients; the design has only ",
                                                   points.size(), " points"));
  }
  std::vector<std::vector<double>> rows;
  rows.reserve(points.size());
  for (const std::vector<double>& point : points) rows.push_back(Features(Scaled(surface, point)));
  LeastSquares fit = SolveLeastSquares(rows, values);
  if (fit.dependent_column.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rank-deficient design: the term ", QuadraticTermNames(names)[*fit.dependent_column],
        " of the quadratic surface is not determined by the ", points.size(),
        " design points (add points that vary it independently of the other terms)"));
  }
  surface.scaled = std::move(fit.coefficients);
  Expand(surface);

  double mean = 0.0;
  for (double value : values) mean += value;
  mean /= static_cast<double>(values.size());
  double total = 0.0;
  double residual = 0.0;
  surface.residuals.reserve(values.size());
  for (size_t k = 0; k < values.size(); ++k) {
    const double r = values[k] - Dot(rows[k], surface.scaled);
    surface.residuals.push_back(r);
    residual += r * r;
    total += (values[k] - mean) * (values[k] - mean);
  }
  surface.r_squared = total > 0.0 ? 1.0 - residual / total : (residual == 0.0 ? 1.0 : 0.0);
  surface.convex = PositiveDefinite(DerivativesOf(surface).hessian);
  return surface;
}

double EvaluateSurface(const QuadraticSurface& surface, const std::vector<double>& x) {
  return Dot(Features(Scaled(surface, x)), surface.scaled);
}

SurfaceMinimum MinimizeInBox(const QuadraticSurface& surface) {
  const size_t p = surface.names.size();
  const ScaledDerivatives d = DerivativesOf(surface);
  const double tolerance = kPivotTolerance * std::max(1.0, LargestEntry(d.hessian));
  size_t faces = 1;
  for (size_t i = 0; i < p; ++i) faces *= 3;

  std::vector<double> best_u;
  double best = 0.0;
  std::vector<int> state(p, 0);  // 0 free, 1 at -1, 2 at +1
  for (size_t face = 0; face < faces; ++face) {
    size_t code = face;
    std::vector<size_t> free;
    std::vector<double> u(p, 0.0);
    for (size_t i = 0; i < p; ++i, code /= 3) {
      state[i] = static_cast<int>(code % 3);
      if (state[i] == 0) {
        free.push_back(i);
      } else {
        u[i] = state[i] == 1 ? -1.0 : 1.0;
      }
    }
    if (!free.empty()) {
      std::vector<std::vector<double>> a(free.size(), std::vector<double>(free.size()));
      std::vector<double> rhs(free.size());
      for (size_t r = 0; r < free.size(); ++r) {
        rhs[r] = -d.gradient[free[r]];
        for (size_t j = 0; j < p; ++j) {
          if (state[j] != 0) rhs[r] -= d.hessian[free[r]][j] * u[j];
        }
        for (size_t c = 0; c < free.size(); ++c) a[r][c] = d.hessian[free[r]][free[c]];
      }
      std::vector<double> solution;
      if (!Solve(a, rhs, tolerance, solution)) continue;
      bool inside = true;
      for (size_t r = 0; r < free.size(); ++r) {
        if (!(std::abs(solution[r]) <= 1.0 + kBoundaryTolerance)) inside = false;
        u[free[r]] = std::clamp(solution[r], -1.0, 1.0);
      }
      if (!inside) continue;
    }
    const double value = Dot(Features(u), surface.scaled);
    if (best_u.empty() || value < best) {
      best = value;
      best_u = u;
    }
  }

  SurfaceMinimum minimum;
  minimum.value = best;
  minimum.x.resize(p);
  for (size_t i = 0; i < p; ++i) {
    const double centre = 0.5 * (surface.lower[i] + surface.upper[i]);
    const double half = 0.5 * (surface.upper[i] - surface.lower[i]);
    minimum.x[i] = centre + half * best_u[i];
    if (std::abs(best_u[i]) >= 1.0 - kBoundaryTolerance) minimum.on_boundary = true;
  }
  return minimum;
}

}  // namespace wasserwarp
