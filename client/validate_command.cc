#include "validate_command.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "comparison_flags.h"
#include "summary.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/prepare.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::cli {
namespace {

// Weights from `--<side>-weights FILE` for `runs`; empty (uniform) without the flag.
absl::StatusOr<std::vector<double>> ReadWeights(const ParsedArgs& args, absl::string_view flag,
                                                const std::vector<Series>& runs) {
  const std::string* path = args.Value(flag);
  if (path == nullptr) return std::vector<double>();
  absl::StatusOr<std::map<std::string, double>> weights = ReadWeightsCsv(*path);
  if (!weights.ok()) return weights.status();
  return WeightsForRuns(*weights, runs, *path);
}

absl::Status WriteFile(const std::string& path, const std::string& content) {
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "wb"),
                                                             &std::fclose);
  if (file == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot write"));
  if (std::fwrite(content.data(), 1, content.size(), file.get()) != content.size() ||
      std::fflush(file.get()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat(path, ": cannot write"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ValidationOptions> ReadOptions(const ParsedArgs& args) {
  ValidationOptions options;
  if (absl::Status status = ReadComparisonFlags(args, options.twed, options.prepare);
      !status.ok()) {
    return status;
  }
  if (const std::string* scale = args.Value("--scale")) {
    absl::StatusOr<Scale> parsed = ParseScale(*scale);
    if (!parsed.ok()) return FlagError("--scale", parsed.status().message());
    options.prepare.scale = *parsed;
  }
  absl::StatusOr<double> order = args.Number("--order", options.order);
  if (!order.ok()) return order.status();
  options.order = *order;
  absl::StatusOr<std::optional<int>> threads = args.Integer("--threads");
  if (!threads.ok()) return threads.status();
  if (threads->has_value()) {
    if (**threads < 1) return FlagError("--threads", "must be at least 1");
    options.compute.max_threads = **threads;
  }
  options.keep_cost_matrix = args.Has("--cost-matrix");
  return options;
}

absl::Status RunValidate(const ParsedArgs& args) {
  const auto start = std::chrono::steady_clock::now();
  if (!args.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validate: unexpected argument \"", args.positional().front(),
                     "\"; give the runs with --sim PATH... and --ref PATH..."));
  }
  for (absl::string_view flag : {"--sim", "--ref"}) {
    if (!args.Has(flag)) {
      return absl::InvalidArgumentError(absl::StrCat("validate: ", flag, " PATH... is required"));
    }
  }
  absl::StatusOr<ValidationOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();

  absl::StatusOr<std::vector<Series>> simulation = ReadRuns(args.Values("--sim"));
  if (!simulation.ok()) return simulation.status();
  absl::StatusOr<std::vector<Series>> reference = ReadRuns(args.Values("--ref"));
  if (!reference.ok()) return reference.status();
  absl::StatusOr<std::vector<double>> sim_weights = ReadWeights(args, "--sim-weights", *simulation);
  if (!sim_weights.ok()) return sim_weights.status();
  options->simulation_weights = *std::move(sim_weights);
  absl::StatusOr<std::vector<double>> ref_weights = ReadWeights(args, "--ref-weights", *reference);
  if (!ref_weights.ok()) return ref_weights.status();
  options->reference_weights = *std::move(ref_weights);

  absl::StatusOr<ValidationReport> report = Validate(*simulation, *reference, *options);
  if (!report.ok()) return report.status();

  // With the JSON on stdout, the summary moves to stderr so that stdout stays one document.
  std::FILE* summary_stream = stdout;
  if (const std::string* json_path = args.Value("--json")) {
    const std::string json = ReportToJson(*report);
    if (*json_path == "-") {
      std::fputs(json.c_str(), stdout);
      summary_stream = stderr;
    } else if (absl::Status written = WriteFile(*json_path, json); !written.ok()) {
      return written;
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::fputs(FormatSummary(*report, seconds).c_str(), summary_stream);
  return absl::OkStatus();
}

std::vector<FlagSpec> ValidateFlags() {
  std::vector<FlagSpec> flags = ComparisonFlags();
  flags.insert(flags.end(), {{"--sim", Arity::kMany},
                             {"--ref", Arity::kMany},
                             {"--sim-weights", Arity::kOne},
                             {"--ref-weights", Arity::kOne},
                             {"--scale", Arity::kOne},
                             {"--order", Arity::kOne},
                             {"--json", Arity::kOne},
                             {"--cost-matrix", Arity::kSwitch},
                             {"--threads", Arity::kOne}});
  return flags;
}

}  // namespace

Command ValidateCommand() {
  return {
      .name = "validate",
      .synopsis = "validate --sim PATH... --ref PATH... [options]",
      .usage = absl::StrCat(
          "usage: wasserwarp validate --sim PATH... --ref PATH... [options]\n"
          "\n"
          "Computes the TWED between every simulated and every reference run and the\n"
          "Wasserstein distance between the two sets, with the optimal transport plan and its\n"
          "certificate. A PATH is a CSV file or a directory, which stands for every *.csv file\n"
          "directly in it; a run's id is its file name without .csv.\n"
          "\n"
          "runs:\n"
          "  --sim PATH...        simulated runs (required)\n"
          "  --ref PATH...        measured reference runs (required)\n"
          "  --sim-weights FILE   \"run_id,weight\" lines for the simulated runs (default: equal)\n"
          "  --ref-weights FILE   the same for the reference runs\n"
          "\n"
          "comparison:\n",
          kComparisonFlagsUsage,
          "  --scale none|reference-std\n"
          "                       reference-std: divide each channel by its standard deviation\n"
          "                       over all reference samples (default none)\n"
          "  --order Q            order of the Wasserstein distance, >= 1 (default 1)\n"
          "\n"
          "output:\n"
          "  --json FILE|-        write the JSON report to FILE; with -, to stdout, and the\n"
          "                       summary to stderr\n"
          "  --cost-matrix        include the TWED cost matrix in the JSON report\n"
          "  --threads N          worker threads (default: every core)\n"),
      .flags = ValidateFlags(),
      .run = &RunValidate,
  };
}

}  // namespace wasserwarp::cli
