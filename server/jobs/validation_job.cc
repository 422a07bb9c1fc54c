#include "jobs/validation_job.h"

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "jobs/validated_runs.h"
#include "wasserwarp/engine_info.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/labels.h"
#include "wasserwarp/quantity_of_interest.h"
#include "wasserwarp/request_digest.h"
#include "wasserwarp/study_costs.h"
#include "wasserwarp/tolerance_band.h"
#include "wire/convert.h"
#include "wire/evidence.h"
#include "wire/parameters.h"
#include "wire/request_fields.h"
#include "wire/resource_names.h"
#include "wire/status_to_grpc.h"

namespace wasserwarp::service {
namespace {

// Both sets must hold runs: what is missing is in the session, not in the request.
absl::Status CheckSessionHoldsRuns(const SessionSnapshot& snapshot) {
  for (const auto& [runs, set] : {std::pair{&snapshot.simulation, "simulated"},
                                  std::pair{&snapshot.reference, "reference"}}) {
    if (!runs->empty()) continue;
    const std::string name = wire::SessionName(snapshot.id);
    return wire::WithPreconditionFailure(
        absl::FailedPreconditionError(absl::StrCat("session ", name, " holds no ", set,
                                                   " runs; upload them (UploadSeries) first")),
        "SESSION_RUNS", name);
  }
  return absl::OkStatus();
}

// The weights of one set: none, or one per run.
absl::StatusOr<std::vector<double>> Weights(const std::vector<StoredRun>& runs,
                                            absl::string_view set, const std::string& session) {
  const StoredRun* weighted = nullptr;
  const StoredRun* unweighted = nullptr;
  for (const StoredRun& run : runs) (run.weight.has_value() ? weighted : unweighted) = &run;
  if (weighted == nullptr) return std::vector<double>();
  if (unweighted != nullptr) {
    return wire::WithPreconditionFailure(
        absl::FailedPreconditionError(
            absl::StrCat(set, " run \"", unweighted->series->id, "\" has no weight while run \"",
                         weighted->series->id, "\" has one: weight every run of a set or none")),
        "RUN_WEIGHTS", session);
  }
  std::vector<double> weights;
  weights.reserve(runs.size());
  for (const StoredRun& run : runs) weights.push_back(*run.weight);
  return weights;
}

std::vector<RunShape> Shapes(const std::vector<StoredRun>& runs) {
  std::vector<RunShape> shapes;
  shapes.reserve(runs.size());
  for (const StoredRun& run : runs) shapes.push_back(ShapeOf(*run.series));
  return shapes;
}

absl::StatusOr<ValidationJob> Prepare(const v1::ValidateRequest& request,
                                      const SessionSnapshot& snapshot,
                                      const ValidationLimits& limits) {
  if (absl::Status status = CheckSessionHoldsRuns(snapshot); !status.ok()) return status;
  ValidationJob job;
  job.labels = wire::LabelsFromProto(request.labels());
  if (absl::Status status = CheckLabels(job.labels, "labels"); !status.ok()) return status;
  ValidationOptions& options = job.options;
  absl::StatusOr<ParameterOverrides> parameters = wire::OverridesFromProto(request.parameters());
  if (!parameters.ok()) return parameters.status();
  job.parameters = MergeOverrides(snapshot.default_parameters, *parameters);
  ApplyOverrides(job.parameters, options);
  const std::string session = wire::SessionName(snapshot.id);
  absl::StatusOr<std::vector<double>> simulation_weights =
      Weights(snapshot.simulation, "simulation", session);
  if (!simulation_weights.ok()) return simulation_weights.status();
  absl::StatusOr<std::vector<double>> reference_weights =
      Weights(snapshot.reference, "reference", session);
  if (!reference_weights.ok()) return reference_weights.status();
  options.simulation_weights = *std::move(simulation_weights);
  options.reference_weights = *std::move(reference_weights);
  job.include_cost_matrix = request.include_cost_matrix();
  job.include_pooled_cost_matrix = request.include_pooled_cost_matrix();
  job.include_html_report = request.include_html_report();
  options.exhaustive = request.exhaustive();
  options.iso18571 = request.iso18571();
  // The page draws both matrices; they go on the wire only when asked for.
  options.keep_cost_matrix = job.include_cost_matrix || job.include_html_report;
  if (request.has_verdict()) {
    options.verdict = wire::VerdictOptionsFromProto(request.verdict());
    options.keep_pooled_cost_matrix = job.include_pooled_cost_matrix || job.include_html_report;
  }
  if (request.has_study()) {
    if (request.has_verdict()) {
      return InvalidFieldError("study",
                               "goes without a verdict: a study's baseline is the references' "
                               "own spread");
    }
    absl::StatusOr<StudyJob> study = PrepareStudyJob(request.study(), snapshot);
    if (!study.ok()) return study.status();
    job.study = *std::move(study);
    options = StudyValidationOptions(options);
  }
  for (int i = 0; i < request.quantities_size(); ++i) {
    absl::StatusOr<QuantityOfInterest> quantity = ParseQuantityOfInterest(request.quantities(i));
    if (!quantity.ok()) {
      return InvalidFieldError(absl::StrCat("quantities[", i, "]"), quantity.status().message());
    }
    options.quantities.push_back(*std::move(quantity));
  }
  for (int i = 0; i < request.bands_size(); ++i) {
    absl::StatusOr<ToleranceBand> band = ParseToleranceBand(request.bands(i));
    if (!band.ok()) {
      return InvalidFieldError(absl::StrCat("bands[", i, "]"), band.status().message());
    }
    options.bands.push_back(*std::move(band));
  }
  if (absl::Status status =
          ValidateValidationOptions(options, snapshot.simulation.size(), snapshot.reference.size());
      !status.ok()) {
    return status;
  }
  // A study's own settings are not among the options: its request's text stands for them.
  job.request_digest =
      RequestDigest(options, ViewOf(snapshot.simulation), ViewOf(snapshot.reference),
                    job.study.has_value() ? request.study().ShortDebugString() : std::string());
  ValidationLimits job_limits = limits;
  job_limits.html_report = job.include_html_report;
  const std::vector<RunShape> simulation = Shapes(snapshot.simulation);
  const std::vector<RunShape> reference = Shapes(snapshot.reference);
  if (absl::Status status = CheckValidationSize(simulation, reference, options, job_limits);
      !status.ok()) {
    return status;
  }
  absl::StatusOr<ValidationSize> size =
      EstimateValidationSize(simulation, reference, options, job_limits);
  if (!size.ok()) return size.status();
  job.size = *size;
  if (job.study.has_value()) {
    // The references against themselves, for their baseline spread.
    const ValidationOptions references = ReferenceValidationOptions(options, {});
    if (absl::Status status = CheckValidationSize(reference, reference, references, job_limits);
        !status.ok()) {
      return status;
    }
    absl::StatusOr<ValidationSize> within =
        EstimateValidationSize(reference, reference, references, job_limits);
    if (!within.ok()) return within.status();
    job.size.dp_cells += within->dp_cells;
  }
  return job;
}

// Where each run came from, as its upload said, by run id: the report lists the runs an event
// window kept, which are fewer than the snapshot's where it left some out.
std::unordered_map<std::string_view, const RunSource*> SourcesById(
    const std::vector<StoredRun>& runs) {
  std::unordered_map<std::string_view, const RunSource*> sources;
  for (const StoredRun& run : runs) {
    if (run.source.has_value()) sources.emplace(run.series->id, &*run.source);
  }
  return sources;
}

void AddSources(const std::vector<StoredRun>& runs, std::vector<RunSummary>& summaries) {
  const std::unordered_map<std::string_view, const RunSource*> sources = SourcesById(runs);
  for (RunSummary& summary : summaries) {
    const auto found = sources.find(summary.id);
    if (found != sources.end()) summary.source = *found->second;
  }
}

void AddSources(const std::vector<StoredRun>& runs,
                google::protobuf::RepeatedPtrField<v1::RunSummary>& summaries) {
  const std::unordered_map<std::string_view, const RunSource*> sources = SourcesById(runs);
  for (v1::RunSummary& summary : summaries) {
    const auto found = sources.find(summary.id());
    if (found != sources.end()) wire::RunSourceToProto(*found->second, *summary.mutable_source());
  }
}

// A study's report is made as a proto (study_job.h): its evidence goes there.
void AddEvidence(const ValidationJob& job, const SessionSnapshot& snapshot,
                 v1::ValidationReport& proto) {
  wire::LabelsToProto(job.labels, *proto.mutable_labels());
  wire::EngineToProto(ThisEngine(), *proto.mutable_engine());
  proto.set_request_digest(job.request_digest);
  AddSources(snapshot.simulation, *proto.mutable_simulation());
  AddSources(snapshot.reference, *proto.mutable_reference());
}

HtmlReportOptions HtmlReportOptionsNow() {
  HtmlReportOptions options;
  options.tool_version = WASSERWARP_VERSION;
  options.generated_at = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  return options;
}

}  // namespace

absl::StatusOr<v1::ValidationReport> RunValidationJob(const ValidationJob& job,
                                                      const SessionSnapshot& snapshot,
                                                      const std::function<void()>& on_computed) {
  const RunsView simulation = ViewOf(snapshot.simulation);
  const RunsView reference = ViewOf(snapshot.reference);
  if (job.study.has_value()) {
    const HtmlReportOptions page = HtmlReportOptionsNow();
    absl::StatusOr<v1::ValidationReport> proto =
        RunStudyJob(*job.study, simulation, reference, job.options, job.include_cost_matrix,
                    job.include_html_report ? &page : nullptr);
    on_computed();
    if (proto.ok()) AddEvidence(job, snapshot, *proto);
    return proto;
  }
  absl::StatusOr<ValidationReport> report = Validate(simulation, reference, job.options);
  on_computed();
  // Errors only the runs reveal (strict_units, a window without its trigger) name the request's
  // field, as those found before the computation do.
  if (!report.ok()) return wire::InRequestTerms(report.status());
  // Validate computed the digest from the same options and runs; the labels and sources are the
  // request's and the uploads'.
  report->labels = job.labels;
  report->request_digest = job.request_digest;
  AddSources(snapshot.simulation, report->simulation);
  AddSources(snapshot.reference, report->reference);
  std::string page;
  if (job.include_html_report) {
    absl::StatusOr<std::string> rendered =
        RenderHtmlReport(*report, simulation, reference, HtmlReportOptionsNow());
    if (!rendered.ok()) return rendered.status();
    page = *std::move(rendered);
  }
  if (!job.include_cost_matrix) report->cost_matrix.reset();
  if (!job.include_pooled_cost_matrix) report->pooled_cost_matrix.reset();
  v1::ValidationReport proto;
  wire::ReportToProto(*report, proto);
  proto.set_html_report(std::move(page));
  return proto;
}

absl::StatusOr<ValidationJob> PrepareValidationJob(const v1::ValidateRequest& request,
                                                   const SessionSnapshot& snapshot,
                                                   const ValidationLimits& limits) {
  absl::StatusOr<ValidationJob> job = Prepare(request, snapshot, limits);
  if (!job.ok()) return wire::InRequestTerms(job.status());
  return job;
}

}  // namespace wasserwarp::service
