#include "report/mds.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "wasserwarp/cost_matrix.h"

namespace wasserwarp {
namespace {

using ::testing::HasSubstr;

using Point = std::vector<double>;

CostMatrix EuclideanDistances(const std::vector<Point>& points) {
  CostMatrix d(points.size(), points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    for (size_t j = 0; j < points.size(); ++j) {
      double sum = 0.0;
      for (size_t k = 0; k < points[i].size(); ++k) {
        sum += (points[i][k] - points[j][k]) * (points[i][k] - points[j][k]);
      }
      d.at(i, j) = std::sqrt(sum);
    }
  }
  return d;
}

// Recovered up to rotation, reflection and translation: the embedding's
// pairwise distances are the input's.
void ExpectDistancesRecovered(const MdsEmbedding& e, const CostMatrix& d, double tolerance) {
  ASSERT_EQ(e.x.size(), d.rows);
  ASSERT_EQ(e.y.size(), d.rows);
  for (size_t i = 0; i < d.rows; ++i) {
    for (size_t j = 0; j < d.rows; ++j) {
      EXPECT_NEAR(std::hypot(e.x[i] - e.x[j], e.y[i] - e.y[j]), d.at(i, j), tolerance)
          << i << ", " << j;
    }
  }
}

TEST(MdsTest, PointsOnALineLieOnTheFirstAxis) {
  const CostMatrix d = EuclideanDistances({{0}, {1}, {3}, {7}});
  const absl::StatusOr<MdsEmbedding> e = ClassicalMds(d);
  ASSERT_TRUE(e.ok()) << e.status();
  ExpectDistancesRecovered(*e, d, 1e-12);
  // Centred at the mean 2.75; the largest coordinate in magnitude (7) is positive.
  EXPECT_NEAR(e->x[0], -2.75, 1e-12);
  EXPECT_NEAR(e->x[1], -1.75, 1e-12);
  EXPECT_NEAR(e->x[2], 0.25, 1e-12);
  EXPECT_NEAR(e->x[3], 4.25, 1e-12);
  for (double y : e->y) EXPECT_EQ(y, 0.0);
  // The eigenvalue is the sum of squared centred coordinates.
  EXPECT_NEAR(e->eigenvalue_x, 2.75 * 2.75 + 1.75 * 1.75 + 0.25 * 0.25 + 4.25 * 4.25, 1e-12);
  EXPECT_NEAR(e->eigenvalue_y, 0.0, 1e-12);
  EXPECT_NEAR(e->explained, 1.0, 1e-12);
  EXPECT_EQ(e->landmarks, 4u);
}

TEST(MdsTest, RightTriangle) {
  const CostMatrix d = EuclideanDistances({{0, 0}, {3, 0}, {0, 4}});
  const absl::StatusOr<MdsEmbedding> e = ClassicalMds(d);
  ASSERT_TRUE(e.ok()) << e.status();
  ExpectDistancesRecovered(*e, d, 1e-12);
  EXPECT_NEAR(e->explained, 1.0, 1e-12);
  EXPECT_GT(e->eigenvalue_x, e->eigenvalue_y);
  // Centred: the centroid is at the origin.
  EXPECT_NEAR(e->x[0] + e->x[1] + e->x[2], 0.0, 1e-12);
  EXPECT_NEAR(e->y[0] + e->y[1] + e->y[2], 0.0, 1e-12);
}

// Both eigenvalues equal: a solver that finds one eigenvector per distinct
// eigenvalue would flatten the triangle.
TEST(MdsTest, EquilateralTriangle) {
  CostMatrix d(3, 3, 1.0);
  for (size_t i = 0; i < 3; ++i) d.at(i, i) = 0.0;
  const absl::StatusOr<MdsEmbedding> e = ClassicalMds(d);
  ASSERT_TRUE(e.ok()) << e.status();
  ExpectDistancesRecovered(*e, d, 1e-12);
  EXPECT_NEAR(e->eigenvalue_x, 0.5, 1e-12);
  EXPECT_NEAR(e->eigenvalue_y, 0.5, 1e-12);
}

// Points in 3-D with principal axes x, y, z: classical MDS is the projection
// onto the first two, and the eigenvalues are the sums of squares per axis.
TEST(MdsTest, ThreeDimensionsProjectOntoThePrincipalPlane) {
  const std::vector<Point> points = {{3, 0, 0},  {-3, 0, 0}, {0, 2, 0},
                                     {0, -2, 0}, {0, 0, 1},  {0, 0, -1}};
  const absl::StatusOr<MdsEmbedding> e = ClassicalMds(EuclideanDistances(points));
  ASSERT_TRUE(e.ok()) << e.status();
  std::vector<Point> projected;
  for (const Point& p : points) projected.push_back({p[0], p[1]});
  ExpectDistancesRecovered(*e, EuclideanDistances(projected), 1e-12);
  EXPECT_NEAR(e->eigenvalue_x, 18.0, 1e-12);
  EXPECT_NEAR(e->eigenvalue_y, 8.0, 1e-12);
  EXPECT_NEAR(e->explained, 26.0 / 28.0, 1e-12);
}

// Landmark MDS is exact for points that lie in a plane, whichever landmarks.
TEST(MdsTest, LandmarksRecoverPlanarPoints) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Point> points;
  for (int i = 0; i < 60; ++i) points.push_back({3.0 * normal(rng), normal(rng)});
  const CostMatrix d = EuclideanDistances(points);
  for (size_t landmarks : {size_t{60}, size_t{7}}) {
    const absl::StatusOr<MdsEmbedding> e = ClassicalMds(d, landmarks);
    ASSERT_TRUE(e.ok()) << e.status();
    EXPECT_EQ(e->landmarks, landmarks);
    ExpectDistancesRecovered(*e, d, 1e-9);
    EXPECT_NEAR(e->explained, 1.0, 1e-12);
  }
}

TEST(MdsTest, DeterministicSigns) {
  const CostMatrix d = EuclideanDistances({{0, 0}, {-5, 0}, {1, 2}, {0, -1}});
  const absl::StatusOr<MdsEmbedding> first = ClassicalMds(d);
  const absl::StatusOr<MdsEmbedding> second = ClassicalMds(d);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->x, second->x);
  EXPECT_EQ(first->y, second->y);
  // Point 1 is furthest out along the first axis; it comes out positive.
  EXPECT_GT(first->x[1], 0.0);
}

TEST(MdsTest, OnePointAndCoincidentPoints) {
  const absl::StatusOr<MdsEmbedding> one = ClassicalMds(CostMatrix(1, 1, 0.0));
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->x, std::vector<double>{0.0});
  EXPECT_EQ(one->explained, 0.0);
  const absl::StatusOr<MdsEmbedding> same = ClassicalMds(CostMatrix(4, 4, 0.0));
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->x, std::vector<double>(4, 0.0));
  EXPECT_EQ(same->y, std::vector<double>(4, 0.0));
}

TEST(MdsTest, RejectsWhatIsNotADistanceMatrix) {
  EXPECT_THAT(ClassicalMds(CostMatrix(2, 3)).status().message(), HasSubstr("2 x 3"));
  EXPECT_EQ(ClassicalMds(CostMatrix()).status().code(), absl::StatusCode::kInvalidArgument);
  CostMatrix d = EuclideanDistances({{0}, {1}, {2}});
  d.at(0, 2) = 2.5;
  EXPECT_THAT(ClassicalMds(d).status().message(), HasSubstr("not symmetric: (0, 2)"));
  d.at(2, 0) = 2.5;
  d.at(1, 1) = 0.5;
  EXPECT_THAT(ClassicalMds(d).status().message(), HasSubstr("(1, 1)"));
  d.at(1, 1) = 0.0;
  d.at(0, 1) = d.at(1, 0) = -1.0;
  EXPECT_THAT(ClassicalMds(d).status().message(), HasSubstr("(0, 1)"));
  d.at(0, 1) = d.at(1, 0) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(ClassicalMds(d).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace wasserwarp
