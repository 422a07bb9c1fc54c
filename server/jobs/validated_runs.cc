#include "jobs/validated_runs.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "wasserwarp/run_checksum.h"
#include "wire/resource_names.h"

namespace wasserwarp::service {

absl::StatusOr<SessionSnapshot> SnapshotOfValidation(SessionStore& sessions,
                                                     const ValidationRecord& record) {
  const absl::Status gone = absl::NotFoundError(absl::StrCat(
      "session ", wire::SessionName(record.session_id), " was deleted before the validation ran"));
  absl::StatusOr<SessionSnapshot> session = sessions.Snapshot(record.session_id, record.owner);
  if (!session.ok()) return absl::IsNotFound(session.status()) ? gone : session.status();
  if (session->key != record.session_key) return gone;
  SessionSnapshot runs;
  runs.id = session->id;
  runs.key = session->key;
  runs.default_parameters = session->default_parameters;
  for (const ValidatedRun& wanted : record.runs) {
    const std::vector<StoredRun>& held =
        wanted.role == RunRole::kSimulation ? session->simulation : session->reference;
    auto it = std::find_if(held.begin(), held.end(), [&](const StoredRun& run) {
      return run.series->id == wanted.series_id;
    });
    if (it == held.end() || RunChecksum(*it->series) != wanted.checksum) {
      return absl::DataLossError(absl::StrFormat(
          "%s run \"%s\" of session %s is not the run this validation was created with",
          RoleName(wanted.role), wanted.series_id, wire::SessionName(record.session_id)));
    }
    (wanted.role == RunRole::kSimulation ? runs.simulation : runs.reference).push_back(*it);
  }
  runs.lease = std::move(session->lease);
  return runs;
}

RunsView ViewOf(const std::vector<StoredRun>& runs) {
  std::vector<const Series*> series;
  series.reserve(runs.size());
  for (const StoredRun& run : runs) series.push_back(run.series.get());
  return RunsView(std::move(series));
}

}  // namespace wasserwarp::service
