#include "sensitivity_command.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "flag_definition.h"
#include "judged_results.h"
#include "output_file.h"
#include "report_page.h"
#include "server_flags.h"
#include "study_inputs.h"
#include "wasserwarp/sensitivity.h"
#include "wasserwarp/study_html.h"
#include "wasserwarp/study_json.h"
#include "wire/study.h"

namespace wasserwarp::cli {
namespace {

using Clock = std::chrono::steady_clock;

absl::Status ReadPairCost(absl::string_view flag, const ParsedArgs& args,
                          SensitivityOptions& options) {
  absl::StatusOr<double> cost = GivenNumber(args, flag);
  if (!cost.ok()) return cost.status();
  if (!(*cost > 0.0)) return FlagError(flag, "must be a positive number, e.g. 2");
  options.pair_cost = *cost;
  return absl::OkStatus();
}

constexpr FlagDefinition<SensitivityOptions> kPairCostFlag = {
    "--pair-cost", Arity::kOne, "R",
    "machine time of one dependent trial (nominal and varied run on the\n"
    "same random inputs) over that of one run, t12 / t1 (default 2)",
    &ReadPairCost};

// `value` to `significant` digits, or "-" when it could not be estimated.
std::string Optional(const std::optional<double>& value, int significant = 4) {
  return value.has_value() ? absl::StrFormat("%.*g", significant, *value) : std::string("-");
}

std::string YesNo(const std::optional<bool>& value) {
  return value.has_value() ? (*value ? "yes" : "no") : "-";
}

std::string FormatSensitivity(const SensitivityReport& report, double total_seconds) {
  std::vector<std::string> nominal;
  for (size_t i = 0; i < report.names.size(); ++i) {
    nominal.push_back(absl::StrFormat("%s=%.17g", report.names[i], report.nominal[i]));
  }
  std::string out =
      absl::StrFormat("nominal: %s\nW at nominal: %.17g (%d runs)\n", absl::StrJoin(nominal, ", "),
                      report.distance_nominal, report.nominal_runs);
  absl::StrAppend(&out, FixedParametersLine(report.fixed));
  absl::StrAppendFormat(&out, "references' baseline spread (ref-ref median): %s\n",
                        Optional(report.baseline_ref_ref_median, 6));
  for (const ParameterSensitivity& p : report.parameters) {
    absl::StrAppendFormat(&out, "\n%s (%s differences over deltas %s)\n", p.name, p.estimate.scheme,
                          absl::StrJoin(p.deltas, ", ", [](std::string* s, double d) {
                            absl::StrAppendFormat(s, "%.6g", d);
                          }));
    absl::StrAppendFormat(&out, "  dW/dh: %.6g, %g%% interval [%.6g, %.6g]\n",
                          p.estimate.derivative, 100.0 * report.summary.confidence, p.interval_lo,
                          p.interval_hi);
    absl::StrAppendFormat(&out, "  d2W/dh2: %s, remainder: %s, normalised (h/W) dW/dh: %s\n",
                          Optional(p.estimate.second_derivative), Optional(p.estimate.remainder),
                          Optional(p.estimate.normalised));
    if (p.paired) {
      absl::StrAppendFormat(&out,
                            "  pairing by trial: variance gain %s, a = %s, pays off: %s (in "
                            "machine time: %s)\n",
                            Optional(p.variance_gain, 3), Optional(p.variance_ratio, 3),
                            YesNo(p.pays_off), YesNo(p.pays_off_in_time));
    } else {
      absl::StrAppend(&out, "  resampled independently (the points hold different trials)\n");
    }
    if (p.flagged) {
      absl::StrAppend(&out,
                      "  FLAGGED: its smallest tested deviation moves W by more than the "
                      "references' spread\n");
    }
  }
  for (const QuantitySensitivity& q : report.quantities) {
    absl::StrAppendFormat(&out, "%s %s along %s: d/dh %.6g (%s), normalised %s\n", q.quantity,
                          q.statistic, q.parameter, q.estimate.derivative, q.estimate.scheme,
                          Optional(q.estimate.normalised));
  }
  for (const std::string& warning : report.summary.warnings) {
    absl::StrAppendFormat(&out, "warning: %s\n", warning);
  }
  absl::StrAppendFormat(&out, "\nresult: %s\n",
                        report.flagged() ? "FAIL (a parameter is flagged)"
                                         : "PASS (no parameter moves W beyond the references' "
                                           "spread at its smallest deviation)");
  absl::StrAppendFormat(&out,
                        "sizes: %d simulated runs at %d points, %d reference runs, %d DP "
                        "cells\n",
                        report.summary.simulation_runs, report.points.size(),
                        report.summary.reference_runs, report.summary.dp_cells);
  absl::StrAppendFormat(&out, "time: %.3f s (analysis %.3f s)\n", total_seconds,
                        report.summary.seconds);
  return out;
}

// Here, or with --server there as one validation; the same numbers either way.
absl::StatusOr<SensitivityReport> Analyse(const ParsedArgs& args, const StudyInputs& inputs,
                                          const SensitivityOptions& options) {
  if (!args.Has(kServerFlag.name)) {
    absl::StatusOr<StudyCosts> costs = ComputeCosts(inputs);
    if (!costs.ok()) return costs.status();
    return AnalyseSensitivity(inputs.design, *costs, options);
  }
  absl::StatusOr<v1::ValidationReport> report =
      StudyOnServer(args, inputs, wire::StudyParametersOf(options), "sensitivity");
  if (!report.ok()) return report.status();
  if (!report->has_sensitivity()) {
    return absl::InternalError("the server's report holds no sensitivity");
  }
  return wire::SensitivityFromProto(report->sensitivity());
}

absl::StatusOr<Judged> RunSensitivity(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  if (!args.Has(kNominalFlag.name)) {
    return absl::InvalidArgumentError("sensitivity: --nominal K=V[,K=V...] is required");
  }
  SensitivityOptions options;
  if (absl::Status status = ReadFlag(kPairCostFlag, args, options); !status.ok()) return status;
  absl::StatusOr<std::optional<std::map<std::string, double>>> nominal = ReadNominal(args);
  if (!nominal.ok()) return nominal.status();
  options.nominal = **nominal;
  absl::StatusOr<StudyInputs> inputs = ReadStudyInputs(args, "sensitivity");
  if (!inputs.ok()) return inputs.status();
  options.study = inputs->study;
  absl::StatusOr<SensitivityReport> report = Analyse(args, *inputs, options);
  if (!report.ok()) return report.status();
  absl::StatusOr<std::FILE*> stream =
      WriteJsonIfAsked(args, [&] { return SensitivityToJson(*report); });
  if (!stream.ok()) return stream.status();
  if (absl::Status status =
          WritePageIfAsked(args, [&] { return RenderSensitivityHtml(*report, PageOptionsNow()); });
      !status.ok()) {
    return status;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fputs(FormatSensitivity(*report, seconds).c_str(), *stream);
  return Judged(report->flagged() ? Judgement::kFail : Judgement::kPass,
                JudgedSensitivity(*report));
}

}  // namespace

Command SensitivityCommand() {
  const std::vector<FlagSection> sections =
      StudySections({kNominalFlag}, Documented<SensitivityOptions>({&kPairCostFlag, 1}));
  return {
      .name = "sensitivity",
      .synopsis =
          "sensitivity --sim PATH... --sim-params FILE --ref PATH... --nominal K=V,... "
          "[options]",
      .usage = HelpText(
          "usage: wasserwarp sensitivity --sim PATH... --sim-params FILE --ref PATH...\n"
          "                              --nominal K=V[,K=V...] [options]\n"
          "\n"
          "How strongly W reacts to each model parameter around its nominal value. For every\n"
          "parameter with design points at the nominal vector but for that one parameter:\n"
          "dW/dh by central differences where points lie on both sides (one-sided otherwise),\n"
          "d2W/dh2 where three points exist, the remainder of the linear estimate and the\n"
          "normalised sensitivity (h/W) dW/dh, each --qoi's AVM and mean likewise. Intervals\n"
          "come from a bootstrap that draws the references and, where the points hold the same\n"
          "trials, the trials once for all points (dependent trials); the variance gain says\n"
          "what that pairing bought. A parameter whose smallest tested deviation moves W by\n"
          "more than the references' own spread (the median W between random halves of them)\n"
          "is flagged, and the exit status is then 1. One cost matrix of all simulated runs\n"
          "against the references is computed; each point's W is a transport solve on its rows.\n",
          sections),
      .flags = FlagSpecs(sections),
      .judge = &RunSensitivity,
  };
}

}  // namespace wasserwarp::cli
