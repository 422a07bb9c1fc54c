#include "validate_command.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "embedded_limits.h"
#include "execution_flags.h"
#include "flag_definition.h"
#include "label_flags.h"
#include "one_off_validation.h"
#include "output_file.h"
#include "pipeline_reports.h"
#include "report_output.h"
#include "report_page.h"
#include "resource_format.h"
#include "run_flags.h"
#include "server_flags.h"
#include "validation_client.h"
#include "validation_flags.h"
#include "verdict_flags.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/validation.h"
#include "wire/convert.h"
#include "wire/parameters.h"

namespace wasserwarp::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr DocumentedFlag kDetachFlag = {
    "--detach", Arity::kSwitch, "",
    "with --session: queue the validation and print its name at once\n"
    "(with --json, the validation as JSON); see 'wasserwarp validations'.\n"
    "--report and --cost-matrix ask the server to keep the page and the\n"
    "matrices for 'validations show'; no file is written now"};

constexpr DocumentedFlag kExhaustiveFlag = {
    "--exhaustive", Arity::kSwitch, "",
    "compute the TWED of every pair; by default only of the pairs\n"
    "the transport needs, with a proof that the others cannot\n"
    "change it: the same W and plan from fewer DP cells (pairs_computed\n"
    "in the JSON). --report, --cost-matrix and a verdict compute every pair"};

absl::StatusOr<ValidationOptions> ReadOptions(const ParsedArgs& args) {
  absl::StatusOr<ParameterSettings> parameters = ReadValidationParameterFlags(args);
  if (!parameters.ok()) return parameters.status();
  ValidationOptions options = std::move(parameters->options);
  if (absl::Status status = ReadVerdictFlags(args, options); !status.ok()) return status;
  if (absl::Status status = ReadFlag(kThreadsFlag, args, options.compute); !status.ok()) {
    return status;
  }
  // The HTML report draws both matrices; the JSON holds them only with --cost-matrix.
  options.keep_cost_matrix = args.Has(kCostMatrixFlag.name) || args.Has(kReportFlag.name);
  options.keep_pooled_cost_matrix = options.keep_cost_matrix;
  options.exhaustive = args.Has(kExhaustiveFlag.name);
  options.iso18571 = args.Has(kIso18571Flag.name);
  return options;
}

absl::Status RequireRuns(const ParsedArgs& args) {
  for (const DocumentedFlag& flag : {kSimFlag, kRefFlag}) {
    if (!args.Has(flag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("validate: ", flag.name, " ", flag.value_name, " is required"));
    }
  }
  return absl::OkStatus();
}

// The page for `report` when --report asks for one, drawn from the runs read here.
absl::StatusOr<std::string> RenderIfAsked(const ParsedArgs& args, const ValidationReport& report,
                                          const RunSets& runs) {
  if (!args.Has(kReportFlag.name)) return std::string();
  return RenderHtmlReport(report, runs.simulation, runs.reference, PageOptionsNow());
}

// Where each run came from; the report lists the runs in the order they were read.
void AddSources(const RunSets& runs, ValidationReport& report) {
  for (auto [sources, summaries] : {std::pair{&runs.simulation_sources, &report.simulation},
                                    std::pair{&runs.reference_sources, &report.reference}}) {
    if (sources->size() != summaries->size()) continue;
    for (size_t i = 0; i < sources->size(); ++i) (*summaries)[i].source = (*sources)[i];
  }
}

absl::StatusOr<Labels> ReadLabels(const ParsedArgs& args) {
  Labels labels;
  if (absl::Status status = ReadFlag(kLabelFlag, args, labels); !status.ok()) return status;
  return labels;
}

absl::StatusOr<Judged> ValidateHere(const ParsedArgs& args, Clock::time_point start) {
  if (absl::Status status = RequireRuns(args); !status.ok()) return status;
  absl::StatusOr<ValidationOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();
  absl::StatusOr<Labels> labels = ReadLabels(args);
  if (!labels.ok()) return labels.status();
  absl::StatusOr<RunSets> runs = ReadRunFlags(args);
  if (!runs.ok()) return runs.status();
  options->simulation_weights = runs->simulation_weights;
  options->reference_weights = runs->reference_weights;
  if (absl::Status status =
          ValidateValidationOptions(*options, runs->simulation.size(), runs->reference.size());
      !status.ok()) {
    return status;
  }
  if (absl::Status status = CheckEmbeddedValidation(runs->simulation, runs->reference, *options,
                                                    args.Has(kReportFlag.name));
      !status.ok()) {
    return status;
  }
  absl::StatusOr<ValidationReport> report = Validate(runs->simulation, runs->reference, *options);
  if (!report.ok()) return report.status();
  report->input_notes = runs->notes;
  report->labels = *std::move(labels);
  AddSources(*runs, *report);
  absl::StatusOr<std::string> page = RenderIfAsked(args, *report, *runs);
  if (!page.ok()) return page.status();
  return WriteResults(args, *report, *page, start);
}

// `options` gives the verdict, quantities and matrices asked for; `parameters` the rest.
v1::ValidateRequest RequestFor(const v1::ValidationParameters& parameters,
                               const ValidationOptions& options, const Labels& labels) {
  v1::ValidateRequest request;
  request.mutable_labels()->insert(labels.begin(), labels.end());
  *request.mutable_parameters() = parameters;
  request.set_include_cost_matrix(options.keep_cost_matrix);
  request.set_include_pooled_cost_matrix(options.keep_pooled_cost_matrix);
  request.set_exhaustive(options.exhaustive);
  request.set_iso18571(options.iso18571);
  AddVerdictToRequest(options, request);
  return request;
}

// Uploads into a session of its own, validates and deletes the session whatever happened.
absl::StatusOr<Judged> ValidateOneOff(const ParsedArgs& args, Clock::time_point start) {
  if (absl::Status status = RequireRuns(args); !status.ok()) return status;
  absl::StatusOr<ValidationOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();
  absl::StatusOr<Labels> labels = ReadLabels(args);
  if (!labels.ok()) return labels.status();
  absl::StatusOr<RunSets> runs = ReadRunFlags(args);
  if (!runs.ok()) return runs.status();
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
      ConnectToServer(args, "validate");
  if (!client.ok()) return client.status();
  // Every parameter, defaults included, so that the server computes exactly what this
  // command would compute without --server.
  const client::RunSources sources = {runs->simulation_sources, runs->reference_sources};
  absl::StatusOr<v1::ValidationReport> proto =
      ValidateProtoInOneOffSession(**client,
                                   {runs->simulation,
                                    runs->reference,
                                    runs->simulation_weights,
                                    runs->reference_weights,
                                    {},
                                    &sources},
                                   RequestFor(wire::ParametersOf(*options), *options, *labels));
  if (!proto.ok()) return proto.status();
  absl::StatusOr<ValidationReport> report = (*client)->Converted(*proto, nullptr);
  if (!report.ok()) return report.status();
  report->input_notes = runs->notes;
  absl::StatusOr<std::string> page = RenderIfAsked(args, *report, *runs);
  if (!page.ok()) return page.status();
  return WriteResults(args, *report, *page, start);
}

// The session's runs are on the server only, so the server draws the page.
absl::StatusOr<Judged> ValidateSession(const ParsedArgs& args, Clock::time_point start) {
  for (const DocumentedFlag& flag : RunFlags()) {
    if (args.Has(flag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("validate: ", flag.name,
                       " does not go with --session, which validates the runs the session "
                       "holds; add runs with 'wasserwarp upload'"));
    }
  }
  absl::StatusOr<v1::ValidationParameters> overrides = GivenParameters(args);
  if (!overrides.ok()) return overrides.status();
  absl::StatusOr<ValidationOptions> options = ReadOptions(args);
  if (!options.ok()) return options.status();
  absl::StatusOr<Labels> labels = ReadLabels(args);
  if (!labels.ok()) return labels.status();
  absl::StatusOr<std::unique_ptr<client::ValidationClient>> client =
      ConnectToServer(args, "validate");
  if (!client.ok()) return client.status();
  v1::ValidateRequest request = RequestFor(*overrides, *options, *labels);
  request.set_include_html_report(args.Has(kReportFlag.name));
  if (args.Has(kDetachFlag.name)) {
    absl::StatusOr<v1::Validation> created =
        (*client)->CreateValidation(*args.Value(kSessionFlag.name), std::move(request));
    if (!created.ok()) return created.status();
    absl::StatusOr<std::FILE*> name_stream =
        WriteJsonIfAsked(args, [&] { return ValidationToJson(*created); });
    if (!name_stream.ok()) return name_stream.status();
    // The name alone, so that a script can capture it; the link for a person, on stderr.
    std::fprintf(*name_stream, "%s\n", created->name().c_str());
    if (!created->link().empty()) std::fprintf(stderr, "record: %s\n", created->link().c_str());
    return Judgement::kPass;
  }
  std::string page;
  absl::StatusOr<ValidationReport> report =
      ValidateShowingProgress(**client, *args.Value(kSessionFlag.name), std::move(request), &page);
  if (!report.ok()) return report.status();
  return WriteResults(args, *report, page, start);
}

absl::StatusOr<Judged> RunValidate(const ParsedArgs& args) {
  const Clock::time_point start = Clock::now();
  if (!args.positional().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validate: unexpected argument \"", args.positional().front(),
                     "\"; give the runs with --sim PATH... and --ref PATH..."));
  }
  if (args.Has(kDetachFlag.name) && (!args.Has(kServerFlag.name) || !args.Has(kSessionFlag.name))) {
    return absl::InvalidArgumentError(
        "validate: --detach needs --server HOST:PORT and --session ID: a detached validation "
        "runs on the server, on the runs a session holds, after this command has ended");
  }
  if (!args.Has(kServerFlag.name)) {
    if (args.Has(kSessionFlag.name)) {
      return absl::InvalidArgumentError("validate: --session needs --server HOST:PORT");
    }
    return ValidateHere(args, start);
  }
  if (args.Has(kThreadsFlag.name)) {
    return FlagError(kThreadsFlag.name,
                     "does not go with --server, which decides how many cores "
                     "a validation gets");
  }
  return args.Has(kSessionFlag.name) ? ValidateSession(args, start) : ValidateOneOff(args, start);
}

std::vector<FlagSection> ValidateSections() {
  std::vector<DocumentedFlag> server = {
      DescribedAs(kServerFlag,
                  "validate on this wasserwarp-server; a progress bar shows on\n"
                  "stderr when it is a terminal"),
      DescribedAs(kSessionFlag, "validate the runs this session on the server holds"), kDetachFlag};
  const std::vector<DocumentedFlag> security = SecurityFlags();
  server.insert(server.end(), security.begin(), security.end());
  return {
      {"runs",
       {DescribedAs(kSimFlag, "simulated runs (required without --session)"),
        DescribedAs(kRefFlag, "measured reference runs (required without --session)"),
        kSimWeightsFlag, kRefWeightsFlag}},
      {"comparison", ValidationParameterFlags()},
      {"verdict (exit status 0 on PASS, 1 on FAIL)", VerdictFlags()},
      {"server", server},
      {"output",
       {kJsonFlag, kReportFlag, kJunitFlag, kOpenMetricsFlag, kCostMatrixFlag, kExhaustiveFlag,
        kLabelFlag, kIso18571Flag,
        DescribedAs(kThreadsFlag, "worker threads (default: every core; not with --server)")}},
  };
}

}  // namespace

Command ValidateCommand() {
  const std::vector<FlagSection> sections = ValidateSections();
  return {
      .name = "validate",
      .synopsis =
          "validate --sim PATH... --ref PATH... [options]\n"
          "validate --server HOST:PORT --session ID [--detach] [options]",
      .usage = HelpText("usage: wasserwarp validate --sim PATH... --ref PATH... [options]\n"
                        "       wasserwarp validate --server HOST:PORT --session ID "
                        "[--detach] [options]\n"
                        "\n"
                        "Computes the TWED between every simulated and every reference run "
                        "and the\n"
                        "Wasserstein distance between the two sets, with the optimal "
                        "transport plan and its\n"
                        "certificate. A PATH is a CSV, MDF 4 (.mf4) or MATLAB (.mat) file or "
                        "a directory,\n"
                        "which stands for every *.csv, *.mf4 and *.mat file directly in it; "
                        "a run's id is its\n"
                        "file name without extension. --channels picks the channels of MDF 4 "
                        "and MATLAB files\n"
                        "too; a name in several MDF 4 groups is given as group/channel.\n"
                        "\n"
                        "With --server, a wasserwarp-server does the work, with the same "
                        "output and exit\n"
                        "status: given --sim and --ref, in a session of its own that is "
                        "deleted afterwards;\n"
                        "given --session, on the runs that session holds (see 'wasserwarp "
                        "upload'), with the\n"
                        "session's default parameters where no comparison option is given "
                        "here.\n"
                        "With --detach, the validation is queued on the server and this "
                        "command ends at once;\n"
                        "'wasserwarp validations' follows it, shows its report and cancels "
                        "it.\n",
                        sections),
      .flags = FlagSpecs(sections),
      .judge = &RunValidate,
  };
}

}  // namespace wasserwarp::cli
