// A C++ client of the wasserwarp validation service (wasserwarp.v1.ValidationService), for
// test benches and pipelines that keep their reference runs on a server: sessions, uploads of
// runs in chunks, validations with progress, quick TWED checks. Every error is an
// absl::Status with the service's code and message.
//
// A client is safe to share between threads; each call is independent.

#ifndef WASSERWARP_CLIENT_VALIDATION_CLIENT_H_
#define WASSERWARP_CLIENT_VALIDATION_CLIENT_H_

#include <grpcpp/channel.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "channel_security.h"
#include "upload_messages.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.grpc.pb.h"
#include "wasserwarp/v1/validation.pb.h"
#include "wasserwarp/validation.h"

namespace wasserwarp::client {

// The largest message either side of the channel accepts; it matches the server's default
// limit. A report needs no more than gRPC's default 4 MiB (its bulky parts come in chunks);
// a session with many runs, listed by GetSession, may.
inline constexpr int kMaxMessageBytes = 64 << 20;

struct ClientOptions {
  // How long Connect waits for the connection to be ready.
  absl::Duration connect_timeout = absl::Seconds(10);
  // The deadline of each unary call. Uploads and validations have none, as their length
  // depends on the data; keepalive pings every 10 s notice a server that went away.
  absl::Duration call_timeout = absl::Seconds(60);
  // Sample data per upload message.
  size_t chunk_bytes = kDefaultChunkBytes;
  // Sessions per ListSessions page; the service's maximum is 1000.
  int list_page_size = 1000;
  // Unset: a plaintext channel.
  std::optional<ClientTls> tls;
  // Sent as "authorization: Bearer <token>" with every call, for a server
  // with --auth_tokens_file; empty: none.
  std::string token;
  // Send `token` over a plaintext channel to a host that is not loopback (behind a
  // TLS-terminating proxy, on a trusted network); without it Connect refuses
  // (PlaintextTokenCheck, channel_security.h).
  bool insecure = false;
};

using ProgressCallback = std::function<void(const v1::ValidateProgress&)>;

// Which validation records ListValidations returns.
struct ValidationQuery {
  // A session's id; empty: every session of the caller (`sessions/-`), tombstones included.
  std::string session_id;
  // UNSPECIFIED: every state.
  v1::ValidationState state = v1::VALIDATION_STATE_UNSPECIFIED;
  // ListValidationsRequest.filter and order_by; empty: none, newest first.
  std::string filter;
  std::string order_by;
  // At most this many, over as many pages as that takes; 0: every one.
  int limit = 0;
};

// Where uploaded runs came from: each vector empty or one per run of its side.
struct RunSources {
  std::vector<RunSource> simulation;
  std::vector<RunSource> reference;
};

class ValidationClient {
 public:
  // Connects to `target` (HOST:PORT), over TLS when options.tls is set. Unavailable, saying
  // "cannot reach server <target>", when the connection (or the TLS handshake) fails or is
  // not ready in time; InvalidArgument for a TLS file that cannot be used.
  static absl::StatusOr<std::unique_ptr<ValidationClient>> Connect(
      std::string target, const ClientOptions& options = ClientOptions());

  const std::string& target() const { return target_; }

  // `settings` provides default_parameters, labels and idle_ttl; an empty `session_id` lets
  // the service choose one.
  absl::StatusOr<v1::Session> CreateSession(absl::string_view session_id,
                                            const v1::Session& settings);
  // The session with the runs it holds.
  absl::StatusOr<v1::Session> GetSession(absl::string_view session_id);
  // Every session, in the order of their ids (all pages); with `show_deleted`, the tombstones
  // of expired and deleted sessions too.
  absl::StatusOr<std::vector<v1::Session>> ListSessions(bool show_deleted = false);
  absl::Status DeleteSession(absl::string_view session_id);

  // Uploads the runs in one stream, simulated runs first, in the given order; the session's
  // runs keep that order, which is the order of the report's indices. A weights vector is
  // empty (the service weighs runs alike) or holds one raw weight per run;
  // `simulation_inputs` is empty or holds the parameters and trial of each simulated run.
  // Runs are checked here first (ValidateSeries), so that a bad file is named before anything
  // is sent. `sources`' vectors are empty or hold where each run came from.
  absl::StatusOr<v1::UploadSeriesResponse> UploadRuns(
      absl::string_view session_id, const std::vector<Series>& simulation,
      const std::vector<Series>& reference, const std::vector<double>& simulation_weights = {},
      const std::vector<double>& reference_weights = {},
      const std::vector<SimulationInputs>& simulation_inputs = {}, const RunSources& sources = {});

  // Validates what the session holds, with `overrides` over the session's default parameters.
  // `on_progress`, when set, sees each progress event on the calling thread.
  absl::StatusOr<ValidationReport> Validate(absl::string_view session_id,
                                            const v1::ValidationParameters& overrides,
                                            bool include_cost_matrix,
                                            const ProgressCallback& on_progress = nullptr);
  // The same with every option of the request (verdict, quantities, ...); its session field
  // is set from `session_id`. The HTML page the request may ask for goes to `html_report`.
  absl::StatusOr<ValidationReport> Validate(absl::string_view session_id,
                                            v1::ValidateRequest request,
                                            const ProgressCallback& on_progress = nullptr,
                                            std::string* html_report = nullptr);

  // The same, returning the report as it came, its bulky parts assembled but not converted:
  // for what a ValidationReport does not hold (a study's result).
  absl::StatusOr<v1::ValidationReport> ValidateToProto(
      absl::string_view session_id, v1::ValidateRequest request,
      const ProgressCallback& on_progress = nullptr);
  // A report ValidateToProto returned, as Validate returns it; its HTML page moved to
  // `html_report`. Internal when the server's report is inconsistent.
  absl::StatusOr<ValidationReport> Converted(v1::ValidationReport& report,
                                             std::string* html_report = nullptr) const;

  // Validations as stored resources (`sessions/{session_id}/validations/{validation_id}`).
  // Queues the validation `request` asks for (its session field is set from `session_id`) and
  // returns it at once, QUEUED.
  absl::StatusOr<v1::Validation> CreateValidation(absl::string_view session_id,
                                                  v1::ValidateRequest request);
  // `name` is the validation's full name. Its report, once it succeeded, lacks the values of
  // the bulky parts; WatchValidation has them.
  absl::StatusOr<v1::Validation> GetValidation(absl::string_view name);
  // The session's validations newest first, in `state` (UNSPECIFIED: every state): all pages,
  // or the first `limit` when `limit` > 0.
  absl::StatusOr<std::vector<v1::Validation>> ListValidations(absl::string_view session_id,
                                                              v1::ValidationState state,
                                                              int limit = 0);
  // The validations `query` selects, in its order, without their reports.
  absl::StatusOr<std::vector<v1::Validation>> ListValidations(const ValidationQuery& query);
  // The validation after the request: CANCELLED when it was queued, as it was when it ended.
  absl::StatusOr<v1::Validation> CancelValidation(absl::string_view name);
  // Deletes an ended validation's record; FailedPrecondition for one still queued or running.
  absl::Status DeleteValidation(absl::string_view name);
  // Follows the validation until it ends, `on_progress` seeing each progress event on the
  // calling thread, and returns it with its complete report: the matrices with their values,
  // html_report with the page.
  absl::StatusOr<v1::Validation> WatchValidation(absl::string_view name,
                                                 const ProgressCallback& on_progress = nullptr);
  // The report of a SUCCEEDED validation that WatchValidation returned, with the record's link,
  // its HTML page moved to `html_report`; Internal when the server's report is inconsistent.
  absl::StatusOr<ValidationReport> ReportOf(v1::Validation& validation,
                                            std::string* html_report = nullptr) const;

  // TWED(a, b) with its diagnostics; `parameters` provides nu, deletion_penalty, p,
  // time_window, align and channels.
  absl::StatusOr<v1::ComputeTwedResponse> ComputeTwed(const Series& a, const Series& b,
                                                      const v1::ValidationParameters& parameters);

 private:
  ValidationClient(std::string target, const ClientOptions& options,
                   std::shared_ptr<grpc::Channel> channel);

  void SetCallDeadline(grpc::ClientContext& context) const;
  absl::Status FromGrpc(const grpc::Status& status) const;

  std::string target_;
  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::ValidationService::Stub> stub_;
};

}  // namespace wasserwarp::client

#endif  // WASSERWARP_CLIENT_VALIDATION_CLIENT_H_
