// UploadSeries: runs streamed into a session, each committed atomically when
// its end mark arrives and it is valid.

#ifndef WASSERWARP_SERVER_UPLOAD_REACTOR_H_
#define WASSERWARP_SERVER_UPLOAD_REACTOR_H_

#include <grpcpp/support/server_callback.h>

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "rpc_log.h"
#include "server_config.h"
#include "session_store.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::service {

// Reads one message at a time; each reaction runs alone, so the state needs
// no lock. A run's header text and samples count against the byte limits as
// they arrive and are released unless the run commits.
class UploadReactor final : public grpc::ServerReadReactor<v1::UploadSeriesRequest> {
 public:
  // `response` is the call's, filled as runs commit.
  UploadReactor(grpc::CallbackServerContext* context, v1::UploadSeriesResponse* response,
                SessionStore& store, const SessionLimits& limits);

  void OnReadDone(bool ok) override;
  void OnDone() override;

 private:
  struct PendingRun {
    v1::Role role = v1::ROLE_UNSPECIFIED;
    Series series;
    std::optional<double> weight;
    int64_t reserved_bytes = 0;
  };

  absl::Status Handle(const v1::UploadSeriesRequest& request);
  absl::Status SelectSession(const v1::UploadSeriesRequest& request);
  absl::Status Header(const v1::SeriesHeader& header);
  absl::Status Chunk(const v1::SeriesChunk& chunk);
  absl::Status End(const v1::SeriesEnd& end);
  absl::Status EndOfStream();
  void Discard();
  void Complete(const absl::Status& status);

  grpc::CallbackServerContext* const context_;
  SessionStore& store_;
  const SessionLimits& limits_;
  RpcLog log_;
  v1::UploadSeriesRequest request_;
  std::optional<SessionRef> session_;
  std::optional<PendingRun> run_;
  v1::UploadSeriesResponse* const response_;
};

}  // namespace wasserwarp::service

#endif  // WASSERWARP_SERVER_UPLOAD_REACTOR_H_
