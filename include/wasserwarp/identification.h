// Validation by identification: which parameter values make the simulation closest to the
// measurements, and how sure is that. W at every design point, a quadratic response surface
// through them, its minimum inside the design's box, and bootstrap and per-group spreads.

#ifndef WASSERWARP_IDENTIFICATION_H_
#define WASSERWARP_IDENTIFICATION_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/parameter_study.h"
#include "wasserwarp/response_surface.h"

namespace wasserwarp {

// What the quadratic surface is fitted to. W of a set shifted by d from the references grows
// like |d| away from a noise floor a, about sqrt(a^2 + d' S d): not a quadratic, so a quadratic
// fitted to W puts its vertex off the minimum wherever the design is not symmetric around it,
// whereas W^2 = a^2 + d' S d is exactly one, the same minimum, valleys along correlated
// parameters included.
enum class SurfaceResponse { kSquaredDistance, kDistance };

struct IdentifyOptions {
  StudyOptions study;
  SurfaceResponse response = SurfaceResponse::kSquaredDistance;
  std::optional<std::map<std::string, double>> nominal;
  // One per reference run (the columns of the costs): e.g. its measurement campaign. The
  // identification is repeated on each group's references.
  std::optional<std::vector<std::string>> reference_groups;
  // When set, a predicted W at the identified vector above max_ratio x the baseline fails.
  std::optional<double> max_ratio;
};

struct NominalDifference {
  double difference = 0.0;  // identified - nominal
  std::optional<double> z;  // difference / std; absent when std is 0
};

struct GroupIdentification {
  std::string group;
  int reference_runs = 0;
  std::vector<double> identified;
  bool on_boundary = false;
  double predicted_distance = 0.0;
};

// "squared_distance" or "distance".
const char* SurfaceResponseName(SurfaceResponse response);

// W from a value of a surface fitted to `response`: the square root of a fitted W^2, 0 where it
// is negative, or the fitted W itself.
double DistanceOf(SurfaceResponse response, double value);

// The fitted W along one parameter through the identified vector, with the pointwise bootstrap
// band of the resampled surfaces: what the report draws.
struct SurfaceSlice {
  std::string parameter;
  std::vector<double> x;
  std::vector<double> fitted;  // W (the square root of a fitted W^2, 0 where it is negative)
  std::vector<double> lo;
  std::vector<double> hi;
};

struct IdentificationReport {
  std::vector<std::string> names;
  std::vector<StudyPoint> points;
  SurfaceResponse response = SurfaceResponse::kSquaredDistance;
  QuadraticSurface surface;  // of the response: W^2 or W
  std::vector<double> identified;
  std::vector<double> std;          // bootstrap standard deviation
  std::vector<double> interval_lo;  // bootstrap percentile interval at confidence
  std::vector<double> interval_hi;
  bool on_boundary = false;
  bool paired = false;  // resampled by shared trials
  std::optional<std::vector<NominalDifference>> nominal_difference;
  std::vector<double> nominal;  // with nominal_difference
  std::vector<GroupIdentification> groups;
  std::vector<double> group_std;    // across groups, with 2 or more groups
  double predicted_distance = 0.0;  // W at the identified vector, from the surface
  std::optional<double> baseline_ref_ref_median;
  // predicted_distance / baseline_ref_ref_median (absent without a positive baseline).
  std::optional<double> predicted_ratio;
  std::optional<double> max_ratio;
  std::vector<SurfaceSlice> slices;
  StudySummary summary;
  std::vector<FixedParameter> fixed;  // the design's (parameter_study.h)
  // False when the predicted ratio is above max_ratio; true without max_ratio or without a
  // ratio, which then cannot fail it.
  bool within_max_ratio() const;
  // On the boundary, not convex, or above max_ratio: the identified vector is not to be trusted
  // as the model's, or no parameter value brings the model as close as the references are to
  // each other.
  bool flagged() const;
};

// InvalidArgument for a design with more than kMaxSurfaceParameters parameters, for the fit's
// errors (too few points, rank deficiency), for a nominal vector naming other parameters and for
// reference groups of the wrong count.
absl::StatusOr<IdentificationReport> Identify(const StudyDesign& design, const StudyCosts& costs,
                                              const IdentifyOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_IDENTIFICATION_H_
