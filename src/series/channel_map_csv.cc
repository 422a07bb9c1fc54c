// ReadChannelMapCsv: a channel map written by hand, so blank lines and '#' comments are skipped
// anywhere, as in weights files, and a first line naming the columns is a header.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/file_contents.h"
#include "series/csv_fields.h"
#include "wasserwarp/csv.h"

namespace wasserwarp {

absl::StatusOr<std::vector<ChannelMapping>> ReadChannelMapCsv(const std::string& path) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  std::vector<ChannelMapping> channel_map;
  const std::vector<absl::string_view> lines = csv::Lines(*content);
  bool first_entry = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t line = i + 1;
    if (csv::IsBlankOrComment(lines[i])) continue;
    const std::vector<absl::string_view> fields = csv::Fields(lines[i]);
    const bool header = first_entry && fields[0] == "sim_channel";
    first_entry = false;
    if (header) continue;
    if (fields.size() < 2 || fields.size() > 3) {
      return csv::ErrorAt(path, line, std::min<size_t>(fields.size(), 3) + 1,
                          absl::StrCat("expected \"sim_channel,ref_channel[,unit]\", got ",
                                       fields.size(), " fields"));
    }
    ChannelMapping mapping{.simulation = std::string(fields[0]),
                           .reference = std::string(fields[1]),
                           .unit = fields.size() == 3 ? std::string(fields[2]) : ""};
    if (channel_map.size() == kMaxChannelMappings) {
      return csv::ErrorAt(path, line, 1,
                          absl::StrCat("more than the ", kMaxChannelMappings, " mappings allowed"));
    }
    if (absl::Status status = CheckChannelMapping(mapping, channel_map); !status.ok()) {
      return csv::ErrorAt(path, line, 1, status.message());
    }
    channel_map.push_back(std::move(mapping));
  }
  if (channel_map.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": no channel mappings"));
  }
  return channel_map;
}

}  // namespace wasserwarp
