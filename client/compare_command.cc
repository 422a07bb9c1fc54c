#include "compare_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "bootstrap_flags.h"
#include "embedded_limits.h"
#include "execution_flags.h"
#include "flag_definition.h"
#include "judged_results.h"
#include "one_off_validation.h"
#include "output_file.h"
#include "pipeline_reports.h"
#include "run_flags.h"
#include "server_flags.h"
#include "summary.h"
#include "validation_client.h"
#include "validation_flags.h"
#include "wasserwarp/compare.h"
#include "wasserwarp/comparison_json.h"
#include "wasserwarp/csv.h"
#include "wire/convert.h"
#include "wire/parameters.h"

namespace wasserwarp::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Variants {
  std::vector<Series> a;
  std::vector<Series> b;
  std::vector<Series> reference;
};

const FlagDefinition<std::vector<Series>> kSimAFlag = {
    "--sim-a", Arity::kMany, "PATH...", "simulated runs of variant A (required)", &ReadRunFiles};
const FlagDefinition<std::vector<Series>> kSimBFlag = {
    "--sim-b", Arity::kMany, "PATH...", "simulated runs of variant B (required)", &ReadRunFiles};

// Each flag with the variant it reads.
std::vector<std::pair<const FlagDefinition<std::vector<Series>>*, std::vector<Series>*>> RunsOf(
    Variants& variants) {
  return {{&kSimAFlag, &variants.a}, {&kSimBFlag, &variants.b}, {&kRefFlag, &variants.reference}};
}

absl::StatusOr<CompareOptions> ReadOptions(const ParsedArgs& args) {
  absl::StatusOr<ParameterSettings> parameters = ReadValidationParameterFlags(args);
  if (!parameters.ok()) return parameters.status();
  CompareOptions options;
  options.prepare = parameters->options.prepare;
  options.twed = parameters->options.twed;
  options.order = parameters->options.order;
  BootstrapSettings bootstrap;
  if (absl::Status status = ReadBootstrapFlags(args, bootstrap); !status.ok()) return status;
  options.resamples = bootstrap.resamples;
  options.confidence = bootstrap.confidence;
  if (absl::Status status = ReadFlag(kSeedFlag, args, options.seed); !status.ok()) return status;
  if (absl::Status status = ReadFlag(kThreadsFlag, args, options.compute); !status.ok()) {
    return status;
  }
  options.iso18571 = args.Has(kIso18571Flag.name);
  // The rest (--order) before any file is read.
  if (absl::Status status = ValidateCompareOptions(options); !status.ok()) return status;
  return options;
}

absl::StatusOr<Variants> ReadVariants(const ParsedArgs& args) {
  Variants variants;
  for (const auto& [flag, runs] : RunsOf(variants)) {
    if (!args.Has(flag->name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("compare: ", flag->name, " ", flag->value_name, " is required"));
    }
  }
  for (const auto& [flag, runs] : RunsOf(variants)) {
    if (absl::Status status = ReadFlag(*flag, args, *runs); !status.ok()) return status;
  }
  return variants;
}

// Each variant's cost matrix against the references is one validation's, computed one after
// the other; the bootstrap only reads them.
absl::Status CheckComparisonHere(const Variants& runs, const CompareOptions& options) {
  ValidationOptions validation;
  validation.prepare = options.prepare;
  validation.twed = options.twed;
  validation.order = options.order;
  validation.keep_cost_matrix = true;
  validation.compute = options.compute;
  validation.iso18571 = options.iso18571;
  for (const std::vector<Series>* variant : {&runs.a, &runs.b}) {
    if (absl::Status status =
            CheckEmbeddedValidation(*variant, runs.reference, validation, /*html_report=*/false);
        !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status WithVariant(const absl::Status& status, absl::string_view variant) {
  return absl::Status(status.code(), absl::StrCat("variant ", variant, ": ", status.message()));
}

// The cost matrices come from two one-off validations on the server; the resampling, which
// needs only them, runs here.
absl::StatusOr<ComparisonReport> CompareOnServer(const ParsedArgs& args, const Variants& runs,
                                                 const CompareOptions& options) {
  // Checked and prepared here first, as the embedded comparison does: bad input is named
  // before anything is uploaded, and both sessions compare exactly A's channels.
  absl::StatusOr<PreparedVariants> prepared =
      PrepareVariants(runs.a, runs.b, runs.reference, options.prepare);
  if (!prepared.ok()) return prepared.status();
  ValidationOptions validation;
  validation.prepare = options.prepare;
  validation.prepare.channels = prepared->a.channels;
  validation.twed = options.twed;
  validation.order = options.order;
  // Every parameter, defaults included, so that the server computes exactly the matrices
  // this command would compute without --server.
  v1::ValidateRequest request;
  *request.mutable_parameters() = wire::ParametersOf(validation);
  request.set_include_cost_matrix(true);
  request.set_iso18571(options.iso18571);

  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
      ConnectToServer(args, "compare");
  if (!client.ok()) return client.status();
  ValidationReport reports[2];
  const std::pair<const std::vector<Series>*, absl::string_view> variants[] = {{&runs.a, "A"},
                                                                               {&runs.b, "B"}};
  for (size_t k = 0; k < 2; ++k) {
    absl::StatusOr<ValidationReport> report =
        ValidateInOneOffSession(**client, *variants[k].first, runs.reference, {}, {}, request);
    if (!report.ok()) return WithVariant(report.status(), variants[k].second);
    if (!report->cost_matrix.has_value()) {
      return absl::InternalError(
          absl::StrCat("variant ", variants[k].second, ": the server sent no cost matrix"));
    }
    reports[k] = *std::move(report);
  }

  std::vector<std::string> ids[2];
  for (size_t k = 0; k < 2; ++k) {
    for (const RunSummary& run : reports[k].simulation) ids[k].push_back(run.id);
  }
  absl::StatusOr<ComparisonReport> comparison = CompareCostMatrices(
      *reports[0].cost_matrix, *reports[1].cost_matrix, ids[0], ids[1], options);
  if (!comparison.ok()) return comparison.status();
  comparison->dp_cells = reports[0].dp_cells + reports[1].dp_cells;
  if (options.iso18571) {
    // Each validation rated its plan: the plan of the matrix the comparison solved again.
    std::optional<VariantIso18571>* rated[2] = {&comparison->iso18571_a, &comparison->iso18571_b};
    for (size_t k = 0; k < 2; ++k) {
      *rated[k] = VariantIso18571{.channels = std::move(reports[k].channels),
                                  .iso18571 = std::move(reports[k].iso18571),
                                  .iso18571_average = std::move(reports[k].iso18571_average),
                                  .iso18571_warnings = std::move(reports[k].iso18571_warnings)};
    }
  }
  comparison->seconds += reports[0].seconds + reports[1].seconds;
  return comparison;
}

std::string FormatComparison(const ComparisonReport& report, double total_seconds) {
  std::string out =
      absl::StrFormat("W_a: %.17g (variant A, %d runs)\n", report.distance_a, report.runs_a);
  absl::StrAppendFormat(&out, "W_b: %.17g (variant B, %d runs)\n", report.distance_b,
                        report.runs_b);
  absl::StrAppendFormat(&out, "difference W_a - W_b: %.17g\n", report.difference);
  absl::StrAppendFormat(&out, "%g%% interval: [%.6g, %.6g] (bootstrap, %d resamples, seed %d)\n",
                        100.0 * report.confidence, report.interval_lo, report.interval_hi,
                        report.resamples, report.seed);
  if (!report.paired) {
    absl::StrAppend(&out, "resampling: independent (the variants hold different run ids)\n");
  } else if (std::isinf(*report.variance_gain)) {
    absl::StrAppend(&out,
                    "resampling: paired by run id; the paired difference "
                    "does not vary at all\n");
  } else {
    absl::StrAppendFormat(&out,
                          "resampling: paired by run id; variance gain %.3g over independent\n",
                          *report.variance_gain);
  }
  if (report.interval_hi < 0.0) {
    absl::StrAppend(&out, "result: variant A is closer to the references\n");
  } else if (report.interval_lo > 0.0) {
    absl::StrAppend(&out, "result: variant B is closer to the references\n");
  } else {
    absl::StrAppend(&out, "result: no clear difference (the interval contains 0)\n");
  }
  for (const auto& [prefix, rated] : {std::pair{"variant A: ", &report.iso18571_a},
                                      std::pair{"variant B: ", &report.iso18571_b}}) {
    if (!rated->has_value()) continue;
    AppendIso18571Averages(prefix, (*rated)->channels, (*rated)->iso18571_average,
                           (*rated)->iso18571_warnings, out);
  }
  absl::StrAppendFormat(&out, "sizes: %d reference runs, %d DP cells\n", report.runs_ref,
                        report.dp_cells);
  absl::StrAppendFormat(&out, "time: %.3f s (comparison %.3f s)\n", total_seconds, report.seconds);
  return out;
}

// compare judges nothing its exit status shows: PASS, with what it found for the pipeline
// reports.
absl::StatusOr<Judged> WriteResults(const ParsedArgs& args, const ComparisonReport& report,
                                    Clock::time_point start) {
  absl::StatusOr<std::FILE*> summary_stream =
      WriteJsonIfAsked(args, [&] { return ComparisonToJson(report); });
  if (!summary_stream.ok()) return summary_stream.status();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::fputs(FormatComparison(report, seconds).c_str(), *summary_stream);
  return Judged(Judgement::kPass, JudgedComparison(report));
}

absl::StatusOr<Judged> RunCompare(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  if (!args.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("compare: unexpected argument \"", args.positional().front(),
                     "\"; give the runs with --sim-a PATH..., --sim-b PATH... and --ref "
                     "PATH..."));
  }
  if (!args.Has(kServerFlag.name)) {
    for (const DocumentedFlag& flag : SecurityFlags()) {
      if (args.Has(flag.name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("compare: ", flag.name, " needs --server HOST:PORT"));
      }
    }
  }
  absl::StatusOr<CompareOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();
  absl::StatusOr<Variants> runs = ReadVariants(args);
  if (!runs.ok()) return runs.status();
  if (!args.Has(kServerFlag.name)) {
    if (absl::Status status = CheckComparisonHere(*runs, *options); !status.ok()) return status;
  }
  absl::StatusOr<ComparisonReport> report =
      args.Has(kServerFlag.name) ? CompareOnServer(args, *runs, *options)
                                 : CompareVariants(runs->a, runs->b, runs->reference, *options);
  if (!report.ok()) return report.status();
  return WriteResults(args, *report, start);
}

std::vector<FlagSection> CompareSections() {
  std::vector<DocumentedFlag> resampling = BootstrapFlags();
  resampling.insert(resampling.end(), {kSeedFlag, kThreadsFlag});
  std::vector<DocumentedFlag> server = {
      DescribedAs(kServerFlag,
                  "compute the two cost matrices on this wasserwarp-server, each\n"
                  "variant in a session of its own; the resampling runs here")};
  const std::vector<DocumentedFlag> security = SecurityFlags();
  server.insert(server.end(), security.begin(), security.end());
  return {
      {"runs", {kSimAFlag, kSimBFlag, DescribedAs(kRefFlag, "measured reference runs (required)")}},
      {"comparison", ValidationParameterFlags()},
      {"ratings",
       {DescribedAs(kIso18571Flag,
                    "rate each variant's plan pairs and channels by ISO/TS 18571\n"
                    "(r, corridor, phase, magnitude, slope, grade), as validate\n"
                    "--iso18571 of that variant rates them")}},
      {"resampling", resampling},
      {"server", server},
      {"output", {kJsonFlag, kJunitFlag, kOpenMetricsFlag}},
  };
}

}  // namespace

Command CompareCommand() {
  const std::vector<FlagSection> sections = CompareSections();
  return {
      .name = "compare",
      .synopsis = "compare --sim-a PATH... --sim-b PATH... --ref PATH... [options]",
      .usage = HelpText("usage: wasserwarp compare --sim-a PATH... --sim-b "
                        "PATH... --ref PATH... [options]\n"
                        "\n"
                        "Compares two model variants A and B against the same "
                        "reference runs: their\n"
                        "Wasserstein distances W_a and W_b (uniform weights), "
                        "the difference W_a - W_b, and a\n"
                        "percentile bootstrap interval for it. Each resample "
                        "draws the reference runs with\n"
                        "replacement, shared by both variants, and the runs of "
                        "each variant. When both\n"
                        "variants hold the same run ids (runs of the same "
                        "random inputs), run i of A and run i\n"
                        "of B are drawn together, which removes their shared "
                        "scatter from the interval; the\n"
                        "variance gain says by how much. A PATH is a CSV, "
                        "MDF 4 (.mf4) or MATLAB (.mat) file\n"
                        "or a directory, which stands for every *.csv, *.mf4 and "
                        "*.mat file directly in it; a run's\n"
                        "id is its file name without extension.\n",
                        sections),
      .flags = FlagSpecs(sections),
      .judge = &RunCompare,
  };
}

}  // namespace wasserwarp::cli
