#include "jobs/validation_outcome.h"

namespace wasserwarp::service {

ValidationOutcome OutcomeOf(const v1::ValidationReport& report) {
  ValidationOutcome outcome;
  outcome.distance = report.distance();
  if (!report.has_verdict()) return outcome;
  const v1::Verdict& verdict = report.verdict();
  if (verdict.has_passed()) outcome.passed = verdict.passed();
  outcome.p_value = verdict.p_value();
  if (verdict.has_baseline()) {
    const v1::Baseline& baseline = verdict.baseline();
    outcome.ratio = baseline.ratio();
    outcome.ratio_interval_lo = baseline.ratio_interval_lo();
    outcome.ratio_interval_hi = baseline.ratio_interval_hi();
  }
  return outcome;
}

v1::ValidationOutcome ToProto(const ValidationOutcome& outcome) {
  v1::ValidationOutcome out;
  out.set_distance(outcome.distance);
  if (outcome.passed.has_value()) out.set_passed(*outcome.passed);
  if (outcome.p_value.has_value()) out.set_p_value(*outcome.p_value);
  if (outcome.ratio.has_value()) out.set_ratio(*outcome.ratio);
  if (outcome.ratio_interval_lo.has_value()) out.set_ratio_interval_lo(*outcome.ratio_interval_lo);
  if (outcome.ratio_interval_hi.has_value()) out.set_ratio_interval_hi(*outcome.ratio_interval_hi);
  return out;
}

}  // namespace wasserwarp::service
