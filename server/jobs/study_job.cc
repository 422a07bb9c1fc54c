#include "jobs/study_job.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "wasserwarp/field_error.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/study_costs.h"
#include "wasserwarp/study_html.h"
#include "wire/convert.h"
#include "wire/resource_names.h"
#include "wire/study.h"

namespace wasserwarp::service {
namespace {

StudyOptions WithExecution(StudyOptions study, const ValidationOptions& options) {
  study.max_threads = options.compute.max_threads;
  study.cancel = options.compute.cancel;
  study.progress = options.verdict_progress;
  return study;
}

}  // namespace

absl::StatusOr<StudyJob> PrepareStudyJob(const v1::StudyParameters& parameters,
                                         const SessionSnapshot& snapshot) {
  absl::StatusOr<wire::StudyRequest> request = wire::StudyRequestFromProto(parameters);
  if (!request.ok()) return PrefixField(request.status(), "study");
  std::vector<std::string> ids;
  std::vector<std::map<std::string, double>> values;
  std::vector<std::string> trials;
  for (const StoredRun& run : snapshot.simulation) {
    ids.push_back(run.series->id);
    values.push_back(run.inputs.parameters);
    trials.push_back(run.inputs.trial);
  }
  const std::string session = wire::SessionName(snapshot.id);
  absl::StatusOr<StudyDesign> design =
      DesignOfNamedRuns(ids, values, trials, absl::StrCat("session ", session));
  if (!design.ok()) return absl::FailedPreconditionError(design.status().message());
  StudyJob job;
  job.design = *std::move(design);
  job.sensitivity = std::move(request->sensitivity);
  job.identify = std::move(request->identify);
  if (job.identify.has_value() && !request->reference_groups.empty()) {
    std::vector<std::string> references;
    for (const StoredRun& run : snapshot.reference) references.push_back(run.series->id);
    absl::StatusOr<std::vector<std::string>> groups =
        GroupsForRuns(request->reference_groups, references, "reference_groups");
    if (!groups.ok()) {
      return InvalidFieldError("study.identify.reference_groups", groups.status().message());
    }
    job.identify->reference_groups = *std::move(groups);
  }
  return job;
}

absl::StatusOr<v1::ValidationReport> RunStudyJob(const StudyJob& study, const RunsView& simulation,
                                                 const RunsView& reference,
                                                 const ValidationOptions& options,
                                                 bool include_cost_matrix,
                                                 const HtmlReportOptions* page_options) {
  ValidationReport sim_ref;
  absl::StatusOr<StudyCosts> costs = ComputeStudyCosts(simulation, reference, options, &sim_ref);
  if (!costs.ok()) return costs.status();
  if (options.on_phase) options.on_phase(ValidationPhase::kResampling);
  if (!include_cost_matrix) sim_ref.cost_matrix.reset();
  v1::ValidationReport proto;
  wire::ReportToProto(sim_ref, proto);
  absl::StatusOr<std::string> page = std::string();
  if (study.sensitivity.has_value()) {
    SensitivityOptions sensitivity = *study.sensitivity;
    sensitivity.study = WithExecution(sensitivity.study, options);
    absl::StatusOr<SensitivityReport> report =
        AnalyseSensitivity(study.design, *costs, sensitivity);
    if (!report.ok()) return report.status();
    wire::SensitivityToProto(*report, *proto.mutable_sensitivity());
    if (page_options != nullptr) page = RenderSensitivityHtml(*report, *page_options);
  } else {
    IdentifyOptions identify = *study.identify;
    identify.study = WithExecution(identify.study, options);
    absl::StatusOr<IdentificationReport> report = Identify(study.design, *costs, identify);
    if (!report.ok()) return report.status();
    wire::IdentificationToProto(*report, *proto.mutable_identification());
    if (page_options != nullptr) page = RenderIdentificationHtml(*report, *page_options);
  }
  if (!page.ok()) return page.status();
  proto.set_html_report(*std::move(page));
  return proto;
}

}  // namespace wasserwarp::service
