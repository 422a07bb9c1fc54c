#include "identify_command.h"

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
#include "wasserwarp/identification.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/study_html.h"
#include "wasserwarp/study_json.h"
#include "wire/study.h"

namespace wasserwarp::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr DocumentedFlag kRefGroupsFlag = {
    "--ref-groups", Arity::kOne, "FILE",
    "the group of each reference run (e.g. its measurement campaign): a\n"
    "CSV with the header run_id,group; identification is repeated per group"};

absl::Status ReadMaxRatio(absl::string_view flag, const ParsedArgs& args,
                          IdentifyOptions& options) {
  absl::StatusOr<double> ratio = GivenNumber(args, flag);
  if (!ratio.ok()) return ratio.status();
  if (!(*ratio > 0.0)) return FlagError(flag, "must be a positive number, e.g. 1.5");
  options.max_ratio = *ratio;
  return absl::OkStatus();
}

constexpr FlagDefinition<IdentifyOptions> kMaxRatioFlag = {
    "--max-ratio", Arity::kOne, "R",
    "fail when the predicted W at the identified vector exceeds R times\n"
    "the references' baseline spread: no parameter value brings the\n"
    "model as close as the references are to each other",
    &ReadMaxRatio};

absl::Status ReadResponse(absl::string_view flag, const ParsedArgs& args,
                          IdentifyOptions& options) {
  const std::string& value = *args.Value(flag);
  if (value == "squared") {
    options.response = SurfaceResponse::kSquaredDistance;
  } else if (value == "distance") {
    options.response = SurfaceResponse::kDistance;
  } else {
    return FlagError(flag, absl::StrCat("expected squared or distance, got \"", value, "\""));
  }
  return absl::OkStatus();
}

constexpr FlagDefinition<IdentifyOptions> kResponseFlag = {
    "--response", Arity::kOne, "squared|distance",
    "what the quadratic surface is fitted to: squared (default), W^2,\n"
    "which is quadratic in the parameters around the minimum even where\n"
    "W grows like |h - h*|; distance, W itself",
    &ReadResponse};

std::string Vector(const std::vector<std::string>& names, const std::vector<double>& values) {
  std::vector<std::string> items;
  for (size_t i = 0; i < names.size(); ++i) {
    items.push_back(absl::StrFormat("%s=%.6g", names[i], values[i]));
  }
  return absl::StrJoin(items, ", ");
}

std::string FormatIdentification(const IdentificationReport& report, double total_seconds) {
  std::string out =
      absl::StrFormat("design: %d points in %s; %d simulated runs, %d reference runs\n",
                      report.points.size(), absl::StrJoin(report.names, ", "),
                      report.summary.simulation_runs, report.summary.reference_runs);
  absl::StrAppend(&out, FixedParametersLine(report.fixed));
  absl::StrAppendFormat(&out, "surface: quadratic in %s, R^2 %.4f, %s\n",
                        report.response == SurfaceResponse::kSquaredDistance ? "W^2" : "W",
                        report.surface.r_squared, report.surface.convex ? "convex" : "NOT convex");
  absl::StrAppend(&out, "identified:\n");
  for (size_t i = 0; i < report.names.size(); ++i) {
    absl::StrAppendFormat(&out, "  %s = %.6g (std %.3g, %g%% interval [%.6g, %.6g])",
                          report.names[i], report.identified[i], report.std[i],
                          100.0 * report.summary.confidence, report.interval_lo[i],
                          report.interval_hi[i]);
    if (report.nominal_difference.has_value()) {
      const NominalDifference& d = (*report.nominal_difference)[i];
      absl::StrAppendFormat(&out, "; %+.4g from nominal %.6g", d.difference, report.nominal[i]);
      if (d.z.has_value()) absl::StrAppendFormat(&out, " (%.2f std)", *d.z);
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppendFormat(&out, "resampling: %s, %d resamples, seed %d\n",
                        report.paired ? "paired by trial" : "independent per point",
                        report.summary.resamples, report.summary.seed);
  for (const GroupIdentification& group : report.groups) {
    absl::StrAppendFormat(&out, "group %s (%d references): %s%s\n", group.group,
                          group.reference_runs, Vector(report.names, group.identified),
                          group.on_boundary ? " (on the boundary)" : "");
  }
  if (!report.group_std.empty()) {
    absl::StrAppendFormat(&out, "spread across groups (std): %s\n",
                          Vector(report.names, report.group_std));
  }
  absl::StrAppendFormat(&out, "predicted W at the identified vector: %.6g\n",
                        report.predicted_distance);
  if (report.baseline_ref_ref_median.has_value()) {
    absl::StrAppendFormat(&out, "references' baseline spread (ref-ref median): %.6g",
                          *report.baseline_ref_ref_median);
    if (report.predicted_ratio.has_value()) {
      absl::StrAppendFormat(&out, " (predicted / baseline = %.3g)", *report.predicted_ratio);
    }
    absl::StrAppend(&out, "\n");
  }
  for (const std::string& warning : report.summary.warnings) {
    absl::StrAppendFormat(&out, "warning: %s\n", warning);
  }
  absl::StrAppendFormat(&out, "result: %s\n",
                        report.flagged()
                            ? "FAIL (the identified vector is on the boundary, the surface is "
                              "not convex, or W stays above --max-ratio)"
                            : "PASS (a minimum inside the design)");
  absl::StrAppendFormat(&out, "sizes: %d DP cells\n", report.summary.dp_cells);
  absl::StrAppendFormat(&out, "time: %.3f s (analysis %.3f s)\n", total_seconds,
                        report.summary.seconds);
  return out;
}

// Here, or with --server there as one validation; the same numbers either way. The server
// takes the groups by run id.
absl::StatusOr<IdentificationReport> Analyse(const ParsedArgs& args, const StudyInputs& inputs,
                                             const IdentifyOptions& options,
                                             const std::map<std::string, std::string>& groups) {
  if (!args.Has(kServerFlag.name)) {
    absl::StatusOr<StudyCosts> costs = ComputeCosts(inputs);
    if (!costs.ok()) return costs.status();
    return Identify(inputs.design, *costs, options);
  }
  absl::StatusOr<v1::ValidationReport> report =
      StudyOnServer(args, inputs, wire::StudyParametersOf(options, groups), "identify");
  if (!report.ok()) return report.status();
  if (!report->has_identification()) {
    return absl::InternalError("the server's report holds no identification");
  }
  return wire::IdentificationFromProto(report->identification());
}

absl::StatusOr<Judged> RunIdentify(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  IdentifyOptions options;
  if (absl::Status status = ReadFlag(kMaxRatioFlag, args, options); !status.ok()) return status;
  if (absl::Status status = ReadFlag(kResponseFlag, args, options); !status.ok()) return status;
  absl::StatusOr<std::optional<std::map<std::string, double>>> nominal = ReadNominal(args);
  if (!nominal.ok()) return nominal.status();
  options.nominal = *nominal;
  std::optional<std::map<std::string, std::string>> groups;
  if (args.Has(kRefGroupsFlag.name)) {
    absl::StatusOr<std::map<std::string, std::string>> read =
        ReadRunGroupsCsv(*args.Value(kRefGroupsFlag.name));
    if (!read.ok()) return read.status();
    groups = *std::move(read);
  }
  absl::StatusOr<StudyInputs> inputs = ReadStudyInputs(args, "identify");
  if (!inputs.ok()) return inputs.status();
  options.study = inputs->study;
  if (groups.has_value()) {
    std::vector<std::string> ids;
    for (const Series& run : inputs->runs.reference) ids.push_back(run.id);
    absl::StatusOr<std::vector<std::string>> ordered =
        GroupsForRuns(*groups, ids, *args.Value(kRefGroupsFlag.name));
    if (!ordered.ok()) return ordered.status();
    options.reference_groups = *std::move(ordered);
  }
  absl::StatusOr<IdentificationReport> report =
      Analyse(args, *inputs, options, groups.value_or(std::map<std::string, std::string>()));
  if (!report.ok()) return report.status();
  absl::StatusOr<std::FILE*> stream =
      WriteJsonIfAsked(args, [&] { return IdentificationToJson(*report); });
  if (!stream.ok()) return stream.status();
  if (absl::Status status = WritePageIfAsked(
          args, [&] { return RenderIdentificationHtml(*report, PageOptionsNow()); });
      !status.ok()) {
    return status;
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fputs(FormatIdentification(*report, seconds).c_str(), *stream);
  return Judged(report->flagged() ? Judgement::kFail : Judgement::kPass,
                JudgedIdentification(*report));
}

}  // namespace

Command IdentifyCommand() {
  const std::vector<FlagSection> sections =
      StudySections({kRefGroupsFlag}, {DescribedAs(kNominalFlag,
                                                   "the nominal parameter vector, to compare the "
                                                   "identified one with"),
                                       kResponseFlag, kMaxRatioFlag});
  return {
      .name = "identify",
      .synopsis = "identify --sim PATH... --sim-params FILE --ref PATH... [options]",
      .usage = HelpText(
          "usage: wasserwarp identify --sim PATH... --sim-params FILE --ref PATH... [options]\n"
          "\n"
          "Which parameter values make the simulation closest to the measurements. W at every\n"
          "design point (transport solves on one shared cost matrix), a quadratic response\n"
          "surface in the parameters (1 to 6) fitted by least squares, and its minimum inside\n"
          "the design's bounding box: the identified vector. A bootstrap over the reference\n"
          "runs and the runs of each point (by trial where the points share them) gives its\n"
          "standard deviation and interval; --ref-groups repeats the identification per group\n"
          "of references. Exit status 1 when the minimum lies on the boundary of the design or\n"
          "the surface is not convex (or W stays above --max-ratio times the references' own\n"
          "spread): the identification is then not to be trusted.\n",
          sections),
      .flags = FlagSpecs(sections),
      .judge = &RunIdentify,
  };
}

}  // namespace wasserwarp::cli
