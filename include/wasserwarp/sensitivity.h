// How strongly W and the quantities of interest react to small changes of each model parameter
// around its nominal value: derivatives by finite differences over the design points that
// differ from the nominal vector in one parameter only, with bootstrap intervals paired by
// trial (common random numbers) and the gain of that pairing.

#ifndef WASSERWARP_SENSITIVITY_H_
#define WASSERWARP_SENSITIVITY_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "wasserwarp/parameter_study.h"

namespace wasserwarp {

struct SensitivityOptions {
  StudyOptions study;
  std::map<std::string, double> nominal;  // every parameter of the design
  // t12 / t1: the machine time of one dependent trial (the nominal and the varied run on the
  // same random inputs) over that of one run. 2 when each is a run of its own.
  double pair_cost = 2.0;
};

// A derivative along one parameter from the values at h0 + deltas (h0 itself at delta 0).
struct DerivativeEstimate {
  // "central" with points on both sides, else "forward" or "backward".
  std::string scheme;
  double derivative = 0.0;
  // Where three points exist (one each side, or two on one side).
  std::optional<double> second_derivative;
  // f(h0 + d) - f(h0) - derivative d at the nearest forward deviation (backward when there is
  // none; the farther one for a one-sided derivative): the second-order remainder of the
  // linear estimate, i.e. the central estimate checked against the one-sided one. Absent for a
  // one-sided derivative from two points.
  std::optional<double> remainder;
  // (h0 / f(h0)) df/dh: the relative change of f per relative change of h; absent at f = 0.
  std::optional<double> normalised;
};

struct ParameterSensitivity {
  std::string name;
  double nominal = 0.0;
  std::vector<double> deltas;     // tested deviations h - h0, ascending, without 0
  std::vector<double> distances;  // W at h0 + delta
  std::vector<double> changes;    // W(h0 + delta) - W(h0)
  std::vector<int> runs;          // at h0 + delta
  DerivativeEstimate estimate;
  double interval_lo = 0.0;  // of the derivative, bootstrap at the study's confidence
  double interval_hi = 0.0;
  bool paired = false;  // the points hold the same trials, resampled together
  // Var(independent resampling) / Var(paired) of the derivative; with pairing only.
  std::optional<double> variance_gain;
  // a: Var(W at the varied point) / Var(W at the nominal point), resampled independently; the
  // varied point is the remainder's.
  std::optional<double> variance_ratio;
  // (1 + a) / g < 1: pairing wins in trials; (1 + a) pair_cost / g < 1: in machine time.
  std::optional<bool> pays_off;
  std::optional<bool> pays_off_in_time;
  // The smallest tested deviation moves W by more than the references' baseline spread.
  bool flagged = false;

  // The largest |W change| among the deviations of smallest size |delta|: what `flagged`
  // compares with the baseline spread.
  double change_at_smallest_deviation() const;
};

struct QuantitySensitivity {
  std::string quantity;   // "channel:quantity"
  std::string statistic;  // "avm" (against the references) or "mean" (of the runs)
  std::string parameter;
  double nominal_value = 0.0;  // the statistic at the nominal point
  std::vector<double> values;  // at h0 + each delta of the parameter
  DerivativeEstimate estimate;
};

struct SensitivityReport {
  std::vector<std::string> names;
  std::vector<double> nominal;
  double distance_nominal = 0.0;
  int nominal_runs = 0;
  std::vector<ParameterSensitivity> parameters;  // those with points along their axis
  std::vector<QuantitySensitivity> quantities;
  std::optional<double> baseline_ref_ref_median;
  std::vector<StudyPoint> points;
  StudySummary summary;
  double pair_cost = 0.0;
  std::vector<FixedParameter> fixed;  // the design's (parameter_study.h)
  bool flagged() const;
};

// Derivatives of f along one axis from f(h0) and f(h0 + deltas[k]) = values[k] (deltas non-empty,
// non-zero, ascending); the scheme the nearest points on each side allow.
DerivativeEstimate EstimateDerivative(double h0, double f0, const std::vector<double>& deltas,
                                      const std::vector<double>& values);

// The sensitivity of every parameter of `design` with points along its axis through the nominal
// vector, which must be a design point. InvalidArgument for a nominal vector that names other
// parameters than the design or is no design point, and when no parameter has such points.
absl::StatusOr<SensitivityReport> AnalyseSensitivity(const StudyDesign& design,
                                                     const StudyCosts& costs,
                                                     const SensitivityOptions& options);

}  // namespace wasserwarp

#endif  // WASSERWARP_SENSITIVITY_H_
