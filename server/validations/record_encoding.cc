#include "validations/record_encoding.h"

#include <cstddef>
#include <cstdint>
#include <utility>

#include "absl/strings/str_split.h"
#include "storage/byte_encoding.h"

namespace wasserwarp::service {

std::string EncodeValidatedRuns(const std::vector<ValidatedRun>& runs) {
  std::vector<std::string> entries;
  entries.reserve(runs.size());
  for (const ValidatedRun& run : runs) {
    std::string entry(1, static_cast<char>(run.role));
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
    const std::optional<RunRole> role = RoleFromNumber(static_cast<unsigned char>(entry[0]));
    if (!role.has_value()) return std::nullopt;
    ValidatedRun run{.series_id = entry.substr(9), .role = *role};
    for (int b = 0; b < 8; ++b) {
      run.checksum |= uint64_t{static_cast<unsigned char>(entry[1 + b])} << (8 * b);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

std::string EncodeLabels(const std::map<std::string, std::string>& labels) {
  if (labels.empty()) return "";
  std::vector<std::string> entries;
  entries.reserve(2 * labels.size());
  for (const auto& [key, value] : labels) {
    entries.push_back(key);
    entries.push_back(value);
  }
  return EncodeStrings(entries);
}

std::optional<std::map<std::string, std::string>> DecodeLabels(std::string_view bytes) {
  std::map<std::string, std::string> labels;
  if (bytes.empty()) return labels;
  std::optional<std::vector<std::string>> entries = DecodeStrings(bytes);
  if (!entries.has_value() || entries->size() % 2 != 0) return std::nullopt;
  for (size_t i = 0; i < entries->size(); i += 2) {
    labels.emplace(std::move((*entries)[i]), std::move((*entries)[i + 1]));
  }
  return labels;
}

std::vector<std::string> DecodeLostReplicas(std::string_view text) {
  return absl::StrSplit(absl::string_view(text.data(), text.size()), '\n', absl::SkipEmpty());
}

}  // namespace wasserwarp::service
