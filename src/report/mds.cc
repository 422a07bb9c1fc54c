#include "report/mds.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {
namespace {

// Eigenvalues in descending order, and unit eigenvectors: vectors[k * n + i]
// is component i of the eigenvector of values[k].
struct SymmetricEigen {
  std::vector<double> values;
  std::vector<double> vectors;
};

// The cyclic Jacobi method on the symmetric n x n row-major matrix `a`:
// rotations zero one off-diagonal element at a time until the off-diagonal
// mass is at rounding level. Slower than a tridiagonal QR, but short,
// accurate for small eigenvalues and exact in its handling of repeated ones.
SymmetricEigen JacobiEigen(std::vector<double> a, size_t n) {
  std::vector<double> v(n * n, 0.0);
  for (size_t i = 0; i < n; ++i) v[i * n + i] = 1.0;
  const double total = std::inner_product(a.begin(), a.end(), a.begin(), 0.0);
  constexpr int kMaxSweeps = 100;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    double off = 0.0;
    for (size_t p = 0; p < n; ++p) {
      for (size_t q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    }
    if (off <= 1e-30 * total) break;
    for (size_t p = 0; p < n; ++p) {
      for (size_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0.0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
        // The smaller root of t^2 + 2 theta t - 1 = 0, so the rotation angle is at most pi/4.
        const double t =
            std::abs(theta) > 1e150
                ? 0.5 / theta
                : std::copysign(1.0, theta) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0);
        const double s = t * c;
        for (size_t k = 0; k < n; ++k) {  // A <- A J
          const double akp = a[k * n + p];
          const double akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (size_t k = 0; k < n; ++k) {  // A <- J^T A
          const double apk = a[p * n + k];
          const double aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        a[p * n + q] = 0.0;
        a[q * n + p] = 0.0;
        for (size_t k = 0; k < n; ++k) {  // V <- V J
          const double vkp = v[k * n + p];
          const double vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return a[x * n + x] > a[y * n + y]; });
  SymmetricEigen eigen{.values = std::vector<double>(n), .vectors = std::vector<double>(n * n)};
  for (size_t k = 0; k < n; ++k) {
    eigen.values[k] = a[order[k] * n + order[k]];
    for (size_t i = 0; i < n; ++i) eigen.vectors[k * n + i] = v[i * n + order[k]];
  }
  return eigen;
}

absl::Status ValidateDistances(const CostMatrix& d) {
  if (d.rows != d.cols || d.values.size() != d.rows * d.cols) {
    return absl::InvalidArgumentError(
        absl::StrCat("MDS needs a square distance matrix, got ", d.rows, " x ", d.cols));
  }
  if (d.rows == 0) return absl::InvalidArgumentError("MDS needs at least one point");
  for (size_t i = 0; i < d.rows; ++i) {
    for (size_t j = 0; j < d.cols; ++j) {
      const double x = d.at(i, j);
      if (!std::isfinite(x) || x < 0.0 || (i == j && x != 0.0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "MDS distance (", i, ", ", j, ") is ", x,
            i == j ? "; the diagonal must be 0" : "; distances must be finite and >= 0"));
      }
      const double y = d.at(j, i);
      if (std::abs(x - y) > 1e-9 * std::max(x, y)) {
        return absl::InvalidArgumentError(absl::StrCat("MDS distances are not symmetric: (", i,
                                                       ", ", j, ") is ", x, " but (", j, ", ", i,
                                                       ") is ", y));
      }
    }
  }
  return absl::OkStatus();
}

// Flips `axis` so that its first coordinate of largest magnitude is positive.
void FixSign(std::vector<double>& axis) {
  const auto largest = std::max_element(
      axis.begin(), axis.end(), [](double x, double y) { return std::abs(x) < std::abs(y); });
  if (largest != axis.end() && *largest < 0.0) {
    for (double& x : axis) x = -x;
  }
}

}  // namespace

absl::StatusOr<MdsEmbedding> ClassicalMds(const CostMatrix& distances, size_t max_landmarks) {
  if (absl::Status s = ValidateDistances(distances); !s.ok()) return s;
  const size_t n = distances.rows;
  const size_t l = std::clamp<size_t>(max_landmarks, 1, n);
  std::vector<size_t> landmark(l);
  for (size_t k = 0; k < l; ++k) landmark[k] = k * n / l;

  // Squared distances between landmarks, symmetrised, and their column means.
  const auto squared = [&](size_t i, size_t j) {
    const double d = 0.5 * (distances.at(i, j) + distances.at(j, i));
    return d * d;
  };
  std::vector<double> b(l * l);
  std::vector<double> mean(l, 0.0);
  for (size_t i = 0; i < l; ++i) {
    for (size_t j = 0; j < l; ++j) {
      b[i * l + j] = squared(landmark[i], landmark[j]);
      mean[j] += b[i * l + j] / static_cast<double>(l);
    }
  }
  const double grand = std::accumulate(mean.begin(), mean.end(), 0.0) / static_cast<double>(l);
  // B = -1/2 J D^2 J; D^2 is symmetric, so row means equal column means.
  for (size_t i = 0; i < l; ++i) {
    for (size_t j = 0; j < l; ++j) b[i * l + j] = -0.5 * (b[i * l + j] - mean[i] - mean[j] + grand);
  }
  const SymmetricEigen eigen = JacobiEigen(std::move(b), l);

  MdsEmbedding embedding{.x = std::vector<double>(n, 0.0),
                         .y = std::vector<double>(n, 0.0),
                         .eigenvalue_x = eigen.values[0],
                         .eigenvalue_y = l > 1 ? eigen.values[1] : 0.0,
                         .explained = 0.0,
                         .landmarks = l};
  double positive = 0.0;
  for (double value : eigen.values) positive += std::max(value, 0.0);
  if (positive > 0.0) {
    embedding.explained =
        (std::max(embedding.eigenvalue_x, 0.0) + std::max(embedding.eigenvalue_y, 0.0)) / positive;
  }
  // Distance-based triangulation: x_k(a) = -1/2 sum_j v_k[j] / sqrt(lambda_k) (d(a, j)^2 - mean_j),
  // which gives a landmark exactly its classical-MDS coordinate sqrt(lambda_k) v_k[i].
  std::vector<double>* axes[2] = {&embedding.x, &embedding.y};
  for (size_t k = 0; k < std::min<size_t>(2, l); ++k) {
    const double lambda = eigen.values[k];
    if (!(lambda > 1e-12 * positive)) continue;
    const double* v = eigen.vectors.data() + k * l;
    const double scale = -0.5 / std::sqrt(lambda);
    for (size_t a = 0; a < n; ++a) {
      double sum = 0.0;
      for (size_t j = 0; j < l; ++j) sum += v[j] * (squared(a, landmark[j]) - mean[j]);
      (*axes[k])[a] = scale * sum;
    }
    FixSign(*axes[k]);
  }
  return embedding;
}

}  // namespace wasserwarp
