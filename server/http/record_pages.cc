#include "http/record_pages.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "wasserwarp/html_report.h"
#include "wasserwarp/report_json.h"
#include "wasserwarp/runs_view.h"
#include "wire/convert.h"
#include "wire/state_word.h"

namespace wasserwarp::service::http {
namespace {

// A SUCCEEDED record and its full stored report.
struct Found {
  ValidationHandle handle;
  v1::Validation record;
  v1::ValidationReport report;
};

// The record `name` and, when it succeeded, its report; the page that answers instead
// otherwise (not found; or, with `pending`, how a record without a report stands).
absl::StatusOr<Found> FindRecord(const std::string& name, const Navigation& caller,
                                 ValidationResources& resources) {
  absl::StatusOr<ValidationHandle> handle = resources.Find(name, caller.principal);
  if (!handle.ok()) return handle.status();
  absl::StatusOr<v1::Validation> record = resources.ReadWithFullReport(*handle);
  if (!record.ok()) return record.status();
  Found found{.handle = *handle, .record = *std::move(record), .report = {}};
  found.report.Swap(found.record.mutable_report());
  found.record.clear_report();
  return found;
}

// A record still queued or running, or one that failed or was cancelled.
HttpResponse PendingPage(const v1::Validation& record, const Navigation& caller) {
  const std::string state = wire::StateWord(record.state());
  std::string text = absl::StrCat("This validation is ", state, "; it has no report");
  if (record.has_error()) absl::StrAppend(&text, ": ", record.error().message());
  return MessagePage(200, record.name(), absl::StrCat(text, "."), caller);
}

// The runs of `report`, in its order, from the session that still holds them: the same instance
// of the session (its key), whose runs never change once committed. Unset when the session is
// gone or a run is missing.
std::optional<std::pair<RunsView, RunsView>> HeldRuns(const ValidationReport& report,
                                                      const SessionSnapshot& snapshot) {
  std::map<std::pair<RunRole, std::string>, const Series*> held;
  for (const std::vector<StoredRun>* side : {&snapshot.simulation, &snapshot.reference}) {
    for (const StoredRun& run : *side) held[{run.role, run.series->id}] = run.series.get();
  }
  const auto view = [&held](RunRole role,
                            const std::vector<RunSummary>& runs) -> std::optional<RunsView> {
    std::vector<const Series*> series;
    for (const RunSummary& run : runs) {
      const auto it = held.find({role, run.id});
      if (it == held.end()) return std::nullopt;
      series.push_back(it->second);
    }
    return RunsView(std::move(series));
  };
  std::optional<RunsView> simulation = view(RunRole::kSimulation, report.simulation);
  std::optional<RunsView> reference = view(RunRole::kReference, report.reference);
  if (!simulation.has_value() || !reference.has_value()) return std::nullopt;
  return std::pair{*std::move(simulation), *std::move(reference)};
}

absl::StatusOr<std::string> DrawnPage(const Found& found, const Navigation& caller,
                                      SessionStore& sessions) {
  absl::StatusOr<ValidationReport> report = wire::ReportFromProto(found.report);
  if (!report.ok()) return report.status();
  absl::StatusOr<SessionSnapshot> snapshot =
      sessions.Snapshot(found.handle.session_id, caller.principal);
  if (snapshot.ok() && snapshot->key == found.handle.session_key) {
    if (std::optional<std::pair<RunsView, RunsView>> runs = HeldRuns(*report, *snapshot)) {
      return RenderHtmlReport(*report, runs->first, runs->second, CorePageOptions());
    }
  }
  return RenderHtmlReportWithoutRuns(*report, CorePageOptions());
}

}  // namespace

HttpResponse ReportPage(const std::string& name, const Navigation& caller,
                        ValidationResources& resources, SessionStore& sessions) {
  absl::StatusOr<Found> found = FindRecord(name, caller, resources);
  if (!found.ok()) return ErrorPage(found.status(), caller);
  if (found->record.state() != v1::VALIDATION_STATE_SUCCEEDED) {
    return PendingPage(found->record, caller);
  }
  HttpResponse response;
  if (!found->report.html_report().empty()) {
    response.body = std::move(*found->report.mutable_html_report());
    return response;
  }
  absl::StatusOr<std::string> page = DrawnPage(*found, caller, sessions);
  if (!page.ok()) return ErrorPage(page.status(), caller);
  response.body = *std::move(page);
  return response;
}

HttpResponse ReportJson(const std::string& name, const Navigation& caller,
                        ValidationResources& resources) {
  absl::StatusOr<Found> found = FindRecord(name, caller, resources);
  HttpResponse response;
  response.content_type = "application/json";
  if (found.ok() && found->record.state() != v1::VALIDATION_STATE_SUCCEEDED) {
    response.status = 409;
    response.content_type = "text/plain; charset=utf-8";
    response.body = absl::StrCat(name, " has no report: it is ",
                                 v1::ValidationState_Name(found->record.state()), "\n");
    return response;
  }
  absl::StatusOr<ValidationReport> report =
      found.ok() ? wire::ReportFromProto(found->report) : found.status();
  if (!report.ok()) {
    HttpResponse error = ErrorPage(report.status(), caller);
    error.content_type = "text/plain; charset=utf-8";
    error.body = absl::StrCat(report.status().message(), "\n");
    return error;
  }
  response.body = ReportJsonDocument(*report, /*with_cost_matrices=*/false);
  return response;
}

}  // namespace wasserwarp::service::http
