// The quadratic response surface against hand-computed cases and its box minimum against a
// brute-force search over a fine grid.

#include "wasserwarp/response_surface.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace wasserwarp {
namespace {

using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pointwise;

TEST(ResponseSurfaceTest, ExactParabolaInOneParameter) {
  // f(x) = 3 - 2 x + 0.5 x^2: vertex at 2, value 1.
  std::vector<std::vector<double>> points;
  std::vector<double> values;
  for (double x : {-1.0, 0.5, 1.0, 2.5, 4.0}) {
    points.push_back({x});
    values.push_back(3.0 - 2.0 * x + 0.5 * x * x);
  }
  absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface({"x"}, points, values);
  ASSERT_TRUE(surface.ok()) << surface.status();
  EXPECT_NEAR(surface->constant, 3.0, 1e-12);
  EXPECT_THAT(surface->linear, Pointwise(DoubleNear(1e-12), {-2.0}));
  EXPECT_THAT(surface->quadratic, Pointwise(DoubleNear(1e-12), {0.5}));
  EXPECT_NEAR(surface->r_squared, 1.0, 1e-12);
  EXPECT_TRUE(surface->convex);
  const SurfaceMinimum minimum = MinimizeInBox(*surface);
  EXPECT_NEAR(minimum.x[0], 2.0, 1e-12);
  EXPECT_NEAR(minimum.value, 1.0, 1e-12);
  EXPECT_FALSE(minimum.on_boundary);
}

TEST(ResponseSurfaceTest, ExactQuadraticInTwoParametersWithACrossTerm) {
  // f = 1 + x - 2 y + 2 x^2 + x y + 3 y^2 on a 3 x 3 grid in large units.
  const auto f = [](double x, double y) {
    return 1.0 + x - 2.0 * y + 2.0 * x * x + x * y + 3.0 * y * y;
  };
  std::vector<std::vector<double>> points;
  std::vector<double> values;
  for (double x : {-1.0, 0.0, 1.0}) {
    for (double y : {-1.0, 0.0, 1.0}) {
      points.push_back({x, y});
      values.push_back(f(x, y));
    }
  }
  absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface({"x", "y"}, points, values);
  ASSERT_TRUE(surface.ok()) << surface.status();
  EXPECT_NEAR(surface->constant, 1.0, 1e-12);
  EXPECT_THAT(surface->linear, Pointwise(DoubleNear(1e-12), {1.0, -2.0}));
  EXPECT_THAT(surface->quadratic, Pointwise(DoubleNear(1e-12), {2.0, 1.0, 3.0}));
  EXPECT_THAT(QuadraticTermNames({"x", "y"}), ElementsAre("1", "x", "y", "x^2", "x*y", "y^2"));
  // The stationary point solves [4 1; 1 6] (x, y) = (-1, 2).
  const SurfaceMinimum minimum = MinimizeInBox(*surface);
  EXPECT_NEAR(minimum.x[0], -8.0 / 23.0, 1e-12);
  EXPECT_NEAR(minimum.x[1], 9.0 / 23.0, 1e-12);
  EXPECT_NEAR(minimum.value, f(-8.0 / 23.0, 9.0 / 23.0), 1e-12);
}

TEST(ResponseSurfaceTest, CoefficientsAreInTheParametersUnits) {
  // Stiffness-like magnitudes: the fit is scaled, the coefficients are not.
  std::vector<std::vector<double>> points;
  std::vector<double> values;
  for (double x : {60000.0, 70000.0, 80000.0, 90000.0}) {
    points.push_back({x});
    values.push_back(1e-8 * (x - 72000.0) * (x - 72000.0) + 5.0);
  }
  absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface({"cf"}, points, values);
  ASSERT_TRUE(surface.ok());
  EXPECT_NEAR(surface->quadratic[0], 1e-8, 1e-16);
  EXPECT_NEAR(surface->linear[0], -2e-8 * 72000.0, 1e-10);
  EXPECT_NEAR(MinimizeInBox(*surface).x[0], 72000.0, 1e-6);
}

TEST(ResponseSurfaceTest, RankDeficientDesignsAreRefusedNamingTheTerm) {
  // Points on the two axes only: x*y is not determined.
  const std::vector<std::vector<double>> axes = {{-1, 0}, {0, 0}, {1, 0}, {0, -1},
                                                 {0, 1},  {2, 0}, {0, 2}};
  const std::vector<double> values(axes.size(), 1.0);
  absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface({"a", "b"}, axes, values);
  EXPECT_EQ(surface.status().message(),
            "rank-deficient design: the term a*b of the quadratic surface is not determined by "
            "the 7 design points (add points that vary it independently of the other terms)");
  EXPECT_EQ(FitQuadraticSurface({"a"}, {{0}, {1}, {0}}, {1, 2, 1}).status().message(),
            "parameter \"a\" takes 2 distinct values in the design; a quadratic in it needs at "
            "least 3");
  EXPECT_THAT(
      FitQuadraticSurface({"a", "b"}, {{0, 0}, {1, 1}, {2, 2}}, {1, 2, 3}).status().message(),
      HasSubstr("has 6 coefficients; the design has only 3 points"));
  EXPECT_THAT(FitQuadraticSurface({}, {}, {}).status().message(), HasSubstr("1 to 6"));
}

TEST(ResponseSurfaceTest, NonConvexSurfacesAreSaidSoAndMinimisedOnTheBoundary) {
  // A saddle f = x^2 - y^2 on [-1, 1]^2: the minimum is -1 at y = +-1, x = 0.
  std::vector<std::vector<double>> points;
  std::vector<double> values;
  for (double x : {-1.0, 0.0, 1.0}) {
    for (double y : {-1.0, 0.0, 1.0}) {
      points.push_back({x, y});
      values.push_back(x * x - y * y);
    }
  }
  absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface({"x", "y"}, points, values);
  ASSERT_TRUE(surface.ok());
  EXPECT_FALSE(surface->convex);
  const SurfaceMinimum minimum = MinimizeInBox(*surface);
  EXPECT_TRUE(minimum.on_boundary);
  EXPECT_NEAR(minimum.value, -1.0, 1e-12);
  EXPECT_NEAR(minimum.x[0], 0.0, 1e-12);
  EXPECT_NEAR(std::abs(minimum.x[1]), 1.0, 1e-12);
}

TEST(ResponseSurfaceTest, BoxMinimumMatchesABruteForceSearch) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<std::vector<double>> points;
    std::vector<double> values;
    for (int k = 0; k < 12; ++k) {
      std::vector<double> x = {normal(rng), normal(rng)};
      points.push_back(x);
      values.push_back(normal(rng));
    }
    absl::StatusOr<QuadraticSurface> surface = FitQuadraticSurface({"a", "b"}, points, values);
    ASSERT_TRUE(surface.ok()) << surface.status();
    const SurfaceMinimum minimum = MinimizeInBox(*surface);
    double best = INFINITY;
    constexpr int kSteps = 400;
    for (int i = 0; i <= kSteps; ++i) {
      for (int j = 0; j <= kSteps; ++j) {
        const double a = surface->lower[0] + (surface->upper[0] - surface->lower[0]) * i / kSteps;
        const double b = surface->lower[1] + (surface->upper[1] - surface->lower[1]) * j / kSteps;
        best = std::min(best, EvaluateSurface(*surface, {a, b}));
      }
    }
    EXPECT_LE(minimum.value, best + 1e-12) << "trial " << trial;
    EXPECT_NEAR(minimum.value, best, 1e-3 * (1.0 + std::abs(best))) << "trial " << trial;
    EXPECT_NEAR(EvaluateSurface(*surface, minimum.x), minimum.value, 1e-9);
  }
}

}  // namespace
}  // namespace wasserwarp
