// What one UploadSeries stream has received so far: the session it writes to
// and the run in progress. Kept apart from the gRPC reactor so that message
// sequences can be fed to it directly (tests, fuzzing).

#ifndef WASSERWARP_SERVER_RPC_UPLOAD_STATE_H_
#define WASSERWARP_SERVER_RPC_UPLOAD_STATE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "ops/server_config.h"
#include "sessions/session_store.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

// Runs are committed atomically when their end mark arrives and they are
// valid. A run's header text and samples count against the byte limits as
// they arrive and are released unless the run commits. Not thread-safe: one
// stream's messages arrive one at a time.
class UploadState {
 public:
  // `response` is the call's, filled as runs commit. `owner` is the caller's
  // principal (call_principal.h): only its own sessions can be written.
  UploadState(SessionStore& store, const SessionLimits& limits, v1::UploadSeriesResponse* response,
              std::string owner = {});
  // Releases the reservation of a run left unfinished.
  ~UploadState();
  UploadState(const UploadState&) = delete;
  UploadState& operator=(const UploadState&) = delete;

  // The next message of the stream. An error ends the stream.
  absl::Status Handle(const v1::UploadSeriesRequest& request);
  // The client closed the stream: an error if a run is unfinished or no
  // session was named.
  absl::Status EndOfStream();
  // Drops the run in progress and its reservation; the partial run leaves
  // no trace, whatever went wrong.
  void Discard();

 private:
  struct PendingRun {
    RunRole role = RunRole::kSimulation;
    Series series;
    std::optional<double> weight;
    SimulationInputs inputs;
    std::optional<RunSource> source;
    int64_t reserved_bytes = 0;
  };

  absl::Status SelectSession(const v1::UploadSeriesRequest& request);
  absl::Status Header(const v1::SeriesHeader& header);
  // The checks and the reservation of a header; errors name the header's field.
  absl::Status BeginRun(const v1::SeriesHeader& header);
  absl::Status Chunk(const v1::SeriesChunk& chunk);
  absl::Status End(const v1::SeriesEnd& end);

  SessionStore& store_;
  const SessionLimits& limits_;
  v1::UploadSeriesResponse* const response_;
  const std::string owner_;
  std::optional<SessionRef> session_;
  std::optional<PendingRun> run_;
  // Runs begun in this stream; errors name the run as `series[k]`, k counted from 0.
  int runs_begun_ = 0;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_RPC_UPLOAD_STATE_H_
