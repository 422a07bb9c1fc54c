#include "wire/verdict.h"

#include <utility>

#include "wire/repeated_fields.h"

namespace wasserwarp::wire {

VerdictOptions VerdictOptionsFromProto(const v1::VerdictParameters& params) {
  VerdictOptions options;
  if (params.has_permutations()) options.permutations = params.permutations();
  if (params.has_seed()) options.seed = params.seed();
  if (params.has_max_distance()) options.max_distance = params.max_distance();
  if (params.has_max_ratio()) options.max_ratio = params.max_ratio();
  if (params.has_alpha()) options.alpha = params.alpha();
  if (params.has_subtract_sampling_floor()) {
    options.subtract_sampling_floor = params.subtract_sampling_floor();
  }
  switch (params.ratio_rule()) {
    case v1::RATIO_RULE_UNSPECIFIED:
      break;
    case v1::RATIO_RULE_INTERVAL:
      options.ratio_rule = RatioRule::kUpperBound;
      break;
    case v1::RATIO_RULE_MEDIAN:
      options.ratio_rule = RatioRule::kMedian;
      break;
    default:
      // Out of the enum: ValidateVerdictOptions refuses it, naming the field.
      options.ratio_rule = static_cast<RatioRule>(params.ratio_rule());
  }
  if (params.has_ratio_confidence()) options.ratio_confidence = params.ratio_confidence();
  if (params.has_band_min_inside()) options.band_min_inside = params.band_min_inside();
  if (params.has_min_iso_rating()) options.min_iso_rating = params.min_iso_rating();
  return options;
}

v1::VerdictParameters VerdictParametersOf(const VerdictOptions& options) {
  v1::VerdictParameters params;
  params.set_permutations(options.permutations);
  params.set_seed(options.seed);
  if (options.max_distance.has_value()) params.set_max_distance(*options.max_distance);
  if (options.max_ratio.has_value()) params.set_max_ratio(*options.max_ratio);
  if (options.alpha.has_value()) params.set_alpha(*options.alpha);
  params.set_subtract_sampling_floor(options.subtract_sampling_floor);
  params.set_ratio_rule(options.ratio_rule == RatioRule::kMedian ? v1::RATIO_RULE_MEDIAN
                                                                 : v1::RATIO_RULE_INTERVAL);
  params.set_ratio_confidence(options.ratio_confidence);
  if (options.band_min_inside.has_value()) params.set_band_min_inside(*options.band_min_inside);
  if (options.min_iso_rating.has_value()) params.set_min_iso_rating(*options.min_iso_rating);
  return params;
}

void VerdictToProto(const Verdict& verdict, v1::Verdict& proto) {
  if (verdict.pass.has_value()) proto.set_passed(*verdict.pass);
  for (const VerdictRule& rule : verdict.rules) {
    v1::VerdictRule* out = proto.add_rules();
    out->set_name(rule.name);
    out->set_value(rule.value);
    out->set_threshold(rule.threshold);
    out->set_passed(rule.pass);
    out->set_basis(rule.basis);
  }
  proto.set_statistic(verdict.statistic);
  proto.set_p_value(verdict.p_value);
  proto.set_permutations(verdict.permutations);
  proto.set_seed(verdict.seed);
  proto.set_sampling_floor_subtracted(verdict.sampling_floor_subtracted);
  if (verdict.baseline.has_value()) {
    const Baseline& baseline = *verdict.baseline;
    v1::Baseline* out = proto.mutable_baseline();
    out->set_subset_size(baseline.subset_size);
    out->set_ref_ref_median(baseline.ref_ref_median);
    out->set_ref_ref_p05(baseline.ref_ref_p05);
    out->set_ref_ref_p95(baseline.ref_ref_p95);
    out->set_sim_ref_median(baseline.sim_ref_median);
    out->set_sim_ref_p05(baseline.sim_ref_p05);
    out->set_sim_ref_p95(baseline.sim_ref_p95);
    out->set_ratio(baseline.ratio);
    out->set_ratio_interval_lo(baseline.ratio_interval_lo);
    out->set_ratio_interval_hi(baseline.ratio_interval_hi);
    out->set_ratio_confidence(baseline.ratio_confidence);
  }
  for (const std::string& warning : verdict.warnings) proto.add_warnings(warning);
  if (verdict.resample_rate.has_value()) proto.set_resample_rate(*verdict.resample_rate);
  proto.set_same_grid_as_distance(verdict.same_grid_as_distance);
}

Verdict VerdictFromProto(const v1::Verdict& proto) {
  Verdict verdict;
  if (proto.has_passed()) verdict.pass = proto.passed();
  for (const v1::VerdictRule& rule : proto.rules()) {
    verdict.rules.push_back({.name = rule.name(),
                             .basis = rule.basis(),
                             .value = rule.value(),
                             .threshold = rule.threshold(),
                             .pass = rule.passed()});
  }
  verdict.statistic = proto.statistic();
  verdict.p_value = proto.p_value();
  verdict.permutations = proto.permutations();
  verdict.seed = proto.seed();
  verdict.sampling_floor_subtracted = proto.sampling_floor_subtracted();
  if (proto.has_baseline()) {
    const v1::Baseline& baseline = proto.baseline();
    verdict.baseline = Baseline{
        baseline.subset_size(),       baseline.ref_ref_median(),  baseline.ref_ref_p05(),
        baseline.ref_ref_p95(),       baseline.sim_ref_median(),  baseline.sim_ref_p05(),
        baseline.sim_ref_p95(),       baseline.ratio(),           baseline.ratio_interval_lo(),
        baseline.ratio_interval_hi(), baseline.ratio_confidence()};
  }
  verdict.warnings = ToVector(proto.warnings());
  if (proto.has_resample_rate()) verdict.resample_rate = proto.resample_rate();
  verdict.same_grid_as_distance = proto.same_grid_as_distance();
  return verdict;
}

}  // namespace wasserwarp::wire
