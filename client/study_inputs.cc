#include "study_inputs.h"

#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "bootstrap_flags.h"
#include "embedded_limits.h"
#include "execution_flags.h"
#include "one_off_validation.h"
#include "output_file.h"
#include "pipeline_reports.h"
#include "report_output.h"
#include "server_flags.h"
#include "validation_client.h"
#include "validation_flags.h"
#include "verdict_flags.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/study_costs.h"
#include "wire/parameters.h"

namespace wasserwarp::cli {
namespace {

absl::Status ReadSplits(absl::string_view flag, const ParsedArgs& args, StudyOptions& options) {
  absl::StatusOr<int> splits = GivenInteger(args, flag);
  if (!splits.ok()) return splits.status();
  options.splits = *splits;
  return absl::OkStatus();
}

constexpr FlagDefinition<StudyOptions> kSplitsFlag = {
    "--splits", Arity::kOne, "K",
    "random splits of the references into halves for their baseline\n"
    "spread (default 999)",
    &ReadSplits};

absl::Status RequireFlags(const ParsedArgs& args, absl::string_view command) {
  for (const DocumentedFlag& flag :
       {DocumentedFlag(kSimFlag), DocumentedFlag(kRefFlag), kSimParamsFlag}) {
    if (!args.Has(flag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(command, ": ", flag.name, " ", flag.value_name, " is required"));
    }
  }
  if (!args.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(command, ": unexpected argument \"", args.positional().front(),
                     "\"; give the runs with --sim PATH..., --sim-params FILE and --ref PATH..."));
  }
  if (!args.Has(kServerFlag.name)) {
    for (const DocumentedFlag& flag : SecurityFlags()) {
      if (args.Has(flag.name)) {
        return absl::InvalidArgumentError(
            absl::StrCat(command, ": ", flag.name, " needs --server HOST:PORT"));
      }
    }
  } else if (args.Has(kThreadsFlag.name)) {
    return FlagError(kThreadsFlag.name,
                     "does not go with --server, which decides how many cores a validation "
                     "gets");
  }
  return absl::OkStatus();
}

absl::StatusOr<StudyOptions> ReadStudyOptions(const ParsedArgs& args,
                                              const ValidationOptions& validation) {
  StudyOptions study;
  study.order = validation.order;
  BootstrapSettings bootstrap;
  if (absl::Status status = ReadBootstrapFlags(args, bootstrap); !status.ok()) return status;
  study.resamples = bootstrap.resamples;
  study.confidence = bootstrap.confidence;
  if (absl::Status status = ReadFlag(kSplitsFlag, args, study); !status.ok()) return status;
  if (absl::Status status = ReadFlag(kSeedFlag, args, study.seed); !status.ok()) return status;
  study.max_threads = validation.compute.max_threads;
  if (absl::Status status = ValidateStudyOptions(study); !status.ok()) return status;
  return study;
}

}  // namespace

std::vector<FlagSection> StudySections(const std::vector<DocumentedFlag>& extra_runs,
                                       const std::vector<DocumentedFlag>& extra_analysis) {
  std::vector<DocumentedFlag> runs = {
      DescribedAs(kSimFlag, "simulated runs of every design point (required)"), kSimParamsFlag,
      DescribedAs(kRefFlag, "measured reference runs (required)")};
  runs.insert(runs.end(), extra_runs.begin(), extra_runs.end());
  std::vector<DocumentedFlag> comparison = ValidationParameterFlags();
  comparison.push_back(kQoiFlag);
  std::vector<DocumentedFlag> resampling = BootstrapFlags();
  resampling.insert(
      resampling.end(),
      {kSplitsFlag, DescribedAs(kSeedFlag, "seed of the resamples and splits"), kThreadsFlag});
  std::vector<DocumentedFlag> server = {
      DescribedAs(kServerFlag,
                  "run the study on this wasserwarp-server, in a session of its\n"
                  "own that holds the runs with their parameters and trials")};
  const std::vector<DocumentedFlag> security = SecurityFlags();
  server.insert(server.end(), security.begin(), security.end());
  return {
      {"runs", runs},
      {"analysis", extra_analysis},
      {"comparison", comparison},
      {"resampling", resampling},
      {"server", server},
      {"output",
       {kJsonFlag,
        DescribedAs(kReportFlag,
                    "write a self-contained HTML report (the tornado chart of the\n"
                    "sensitivities; W against each parameter with the fitted\n"
                    "surface, its band and the identified value)"),
        kJunitFlag, kOpenMetricsFlag}},
  };
}

absl::StatusOr<StudyInputs> ReadStudyInputs(const ParsedArgs& args, absl::string_view command) {
  if (absl::Status status = RequireFlags(args, command); !status.ok()) return status;
  StudyInputs inputs;
  absl::StatusOr<ParameterSettings> parameters = ReadValidationParameterFlags(args);
  if (!parameters.ok()) return parameters.status();
  inputs.validation = std::move(parameters->options);
  if (absl::Status status = ReadFlag(kQoiFlag, args, inputs.validation.quantities); !status.ok()) {
    return status;
  }
  if (absl::Status status = ReadFlag(kThreadsFlag, args, inputs.validation.compute); !status.ok()) {
    return status;
  }
  absl::StatusOr<StudyOptions> study = ReadStudyOptions(args, inputs.validation);
  if (!study.ok()) return study.status();
  inputs.study = *study;
  if (absl::StatusOr<std::optional<std::map<std::string, double>>> nominal = ReadNominal(args);
      !nominal.ok()) {
    return nominal.status();
  }
  absl::StatusOr<ParameterTable> table = ReadParameterCsv(*args.Value(kSimParamsFlag.name));
  if (!table.ok()) return table.status();
  absl::StatusOr<RunSets> runs = ReadRunFlags(args);
  if (!runs.ok()) return runs.status();
  inputs.runs = *std::move(runs);
  PrintNotes(inputs.runs.notes);
  std::vector<std::string> ids;
  for (const Series& run : inputs.runs.simulation) ids.push_back(run.id);
  absl::StatusOr<StudyDesign> design = DesignOf(*table, ids);
  if (!design.ok()) return design.status();
  for (const std::string& id : ids) {
    const RunParameters& run = table->runs.at(id);
    SimulationInputs& inputs_of_run = inputs.inputs.emplace_back();
    for (size_t k = 0; k < table->names.size(); ++k) {
      inputs_of_run.parameters[table->names[k]] = run.values[k];
    }
    inputs_of_run.trial = run.trial;
  }
  inputs.design = *std::move(design);
  if (absl::Status status = ValidateValidationOptions(
          inputs.validation, inputs.runs.simulation.size(), inputs.runs.reference.size());
      !status.ok()) {
    return status;
  }
  return inputs;
}

absl::StatusOr<std::optional<std::map<std::string, double>>> ReadNominal(const ParsedArgs& args) {
  if (!args.Has(kNominalFlag.name)) return std::optional<std::map<std::string, double>>();
  absl::StatusOr<std::map<std::string, double>> nominal =
      ParseParameterVector(*args.Value(kNominalFlag.name));
  if (!nominal.ok()) return FlagError(kNominalFlag.name, nominal.status().message());
  return std::optional<std::map<std::string, double>>(*std::move(nominal));
}

absl::StatusOr<StudyCosts> ComputeCosts(const StudyInputs& inputs) {
  const ValidationOptions study = StudyValidationOptions(inputs.validation);
  for (const std::vector<Series>* rows : {&inputs.runs.simulation, &inputs.runs.reference}) {
    if (absl::Status status = CheckEmbeddedValidation(*rows, inputs.runs.reference, study,
                                                      /*html_report=*/false);
        !status.ok()) {
      return status;
    }
  }
  return ComputeStudyCosts(inputs.runs.simulation, inputs.runs.reference, study);
}

absl::StatusOr<v1::ValidationReport> StudyOnServer(const ParsedArgs& args,
                                                   const StudyInputs& inputs,
                                                   v1::StudyParameters study,
                                                   absl::string_view command) {
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client = ConnectToServer(args, command);
  if (!client.ok()) return client.status();
  // Every parameter, defaults included, so that the server computes exactly the costs this
  // command computes without --server.
  const ValidationOptions options = StudyValidationOptions(inputs.validation);
  v1::ValidateRequest request;
  *request.mutable_parameters() = wire::ParametersOf(options);
  AddVerdictToRequest(options, request);
  *request.mutable_study() = std::move(study);
  return ValidateProtoInOneOffSession(
      **client, {inputs.runs.simulation, inputs.runs.reference, {}, {}, inputs.inputs},
      std::move(request));
}

std::string FixedParametersLine(const std::vector<FixedParameter>& fixed) {
  if (fixed.empty()) return "";
  std::vector<std::string> items;
  for (const FixedParameter& parameter : fixed) {
    items.push_back(absl::StrFormat("%s=%.17g", parameter.name, parameter.value));
  }
  return absl::StrCat("fixed (the same in every simulated run): ", absl::StrJoin(items, ", "),
                      "\n");
}

}  // namespace wasserwarp::cli
