#include "upload_messages.h"

#include <algorithm>
#include <cstdint>

namespace wasserwarp::client {

bool WriteRunMessages(const Series& run, v1::Role role, std::optional<double> weight,
                      size_t max_chunk_bytes,
                      absl::FunctionRef<bool(v1::UploadSeriesRequest&)> write) {
  v1::UploadSeriesRequest message;
  v1::SeriesHeader* header = message.mutable_header();
  header->set_role(role);
  header->set_series_id(run.id);
  for (const std::string& channel : run.channels) header->add_channels(channel);
  if (weight.has_value()) header->set_weight(*weight);
  if (!write(message)) return false;

  const size_t channels = run.num_channels();
  const size_t sample_bytes = sizeof(double) * (1 + channels);
  const size_t samples_per_chunk = std::max<size_t>(1, max_chunk_bytes / sample_bytes);
  for (size_t first = 0; first < run.samples(); first += samples_per_chunk) {
    const size_t last = std::min(run.samples(), first + samples_per_chunk);
    // One message object for every chunk keeps the repeated fields' capacity between chunks.
    v1::SeriesChunk* chunk = message.mutable_chunk();
    chunk->mutable_times()->Assign(run.times.begin() + first, run.times.begin() + last);
    chunk->mutable_values()->Assign(run.values.begin() + first * channels,
                                    run.values.begin() + last * channels);
    if (!write(message)) return false;
  }

  message.mutable_end()->set_expected_samples(static_cast<int64_t>(run.samples()));
  return write(message);
}

}  // namespace wasserwarp::client
