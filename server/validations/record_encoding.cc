#include "validations/record_encoding.h"

#include <cstdint>
#include <utility>

#include "storage/byte_encoding.h"
#include "wire/convert.h"
#include "wire/session_proto.h"

namespace wasserwarp::service {

std::string EncodeValidatedRuns(const std::vector<ValidatedRun>& runs) {
  std::vector<std::string> entries;
  entries.reserve(runs.size());
  for (const ValidatedRun& run : runs) {
    std::string entry(1, static_cast<char>(wire::ToProto(run.role)));
    for (int shift = 0; shift < 64; shift += 8) {
      entry.push_back(static_cast<char>(run.checksum >> shift));
    }
    entry += run.series_id;
    entries.push_back(std::move(entry));
  }
  return EncodeStrings(entries);
}

std::optional<std::vector<ValidatedRun>> DecodeValidatedRuns(std::string_view bytes) {
  std::optional<std::vector<std::string>> entries = DecodeStrings(bytes);
  if (!entries.has_value()) return std::nullopt;
  std::vector<ValidatedRun> runs;
  runs.reserve(entries->size());
  for (const std::string& entry : *entries) {
    if (entry.size() < 9) return std::nullopt;
    const std::optional<wire::RunRole> role =
        wire::RoleFromProto(static_cast<v1::Role>(static_cast<unsigned char>(entry[0])));
    if (!role.has_value()) return std::nullopt;
    ValidatedRun run{.series_id = entry.substr(9), .role = *role};
    for (int b = 0; b < 8; ++b) {
      run.checksum |= uint64_t{static_cast<unsigned char>(entry[1 + b])} << (8 * b);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace wasserwarp::service
