#include "upload_messages.h"

#include <algorithm>
#include <cstdint>

namespace wasserwarp::client {

bool WriteRunMessages(const Series& run, const RunHeader& header, size_t max_chunk_bytes,
                      absl::FunctionRef<bool(v1::UploadSeriesRequest&)> write) {
  v1::UploadSeriesRequest message;
  v1::SeriesHeader* sent = message.mutable_header();
  sent->set_role(header.role);
  sent->set_series_id(run.id);
  for (const std::string& channel : run.channels) sent->add_channels(channel);
  if (header.weight.has_value()) sent->set_weight(*header.weight);
  sent->mutable_parameters()->insert(header.inputs.parameters.begin(),
                                     header.inputs.parameters.end());
  sent->set_trial(header.inputs.trial);
  if (header.source.has_value()) {
    sent->mutable_source()->set_file(header.source->file);
    sent->mutable_source()->set_sha256(header.source->sha256);
  }
  // As the run's file gave them, so that the server converts them as the embedded engine does.
  for (const std::string& unit : run.units) sent->add_units(unit);
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
