// How one run travels in an UploadSeries stream: a header, chunks of samples small enough for
// any server's message limit, and an end mark that lets the server check the sample count.

#ifndef WASSERWARP_CLIENT_UPLOAD_MESSAGES_H_
#define WASSERWARP_CLIENT_UPLOAD_MESSAGES_H_

#include <cstddef>
#include <optional>

#include "absl/functional/function_ref.h"
#include "wasserwarp/run_parameters.h"
#include "wasserwarp/run_source.h"
#include "wasserwarp/series.h"
#include "wasserwarp/v1/validation.pb.h"

namespace wasserwarp::client {

// 1 MiB of sample data per chunk stays far below the 4 MiB that even an unconfigured gRPC
// peer accepts, and is large enough that per-message costs do not matter.
inline constexpr size_t kDefaultChunkBytes = size_t{1} << 20;

// What a run's header says besides its id and channels (SeriesHeader).
struct RunHeader {
  v1::Role role = v1::ROLE_SIMULATION;
  std::optional<double> weight;
  // A simulated run's parameters and trial; the service refuses them on a reference run.
  SimulationInputs inputs;
  // The file the run was read from, when it was (SeriesHeader.source).
  std::optional<RunSource> source;
};

// Hands the messages for `run` to `write` in stream order: header, chunks with at most
// `max_chunk_bytes` of times and values each (but at least one sample), end mark. The
// messages carry no session name; the caller sets it on the stream's first message. Stops
// at the first `write` that returns false and returns false.
bool WriteRunMessages(const Series& run, const RunHeader& header, size_t max_chunk_bytes,
                      absl::FunctionRef<bool(v1::UploadSeriesRequest&)> write);

}  // namespace wasserwarp::client

#endif  // WASSERWARP_CLIENT_UPLOAD_MESSAGES_H_
