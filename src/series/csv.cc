// Choices the header leaves open, made here (the lexical ones in series/csv_fields.h):
// - In a run file, blank lines are allowed only at the end: a blank line between samples usually
//   means two files were pasted together or one was cut, which should not pass silently. Weights
//   files are written by hand, so there blank lines and `#` comments are skipped anywhere.
// - A header field `name[unit]` gives the channel's unit; the unit must be one udunits reads, so
//   that a misspelt unit is found where it was written rather than when runs are compared.

#include "wasserwarp/csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <set>
#include <system_error>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/absl_view.h"
#include "common/file_contents.h"
#include "series/csv_fields.h"
#include "wasserwarp/units.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp {
namespace {

namespace fs = std::filesystem;
using csv::ErrorAt;
using csv::Fields;
using csv::IsBlank;
using csv::Lines;
using csv::ParseFiniteAt;

std::string RunId(const std::string& path) {
  const fs::path name = fs::path(path).filename();
  return (name.extension() == ".csv" ? name.stem() : name).string();
}

// A header field `name` or `name[unit]`: the name and the unit ("" where none).
std::pair<absl::string_view, absl::string_view> NameAndUnit(absl::string_view field) {
  const size_t open = field.rfind('[');
  if (open == absl::string_view::npos || !absl::EndsWith(field, "]")) return {field, ""};
  return {absl::StripTrailingAsciiWhitespace(field.substr(0, open)),
          field.substr(open + 1, field.size() - open - 2)};
}

}  // namespace

absl::StatusOr<Series> ParseSeriesCsv(std::string_view content_view, std::string_view source_view,
                                      std::string id) {
  const absl::string_view content = AbslView(content_view);
  const absl::string_view source = AbslView(source_view);
  const std::vector<absl::string_view> lines = Lines(content);
  size_t end = lines.size();
  while (end > 0 && IsBlank(lines[end - 1])) --end;
  if (end == 0 || IsBlank(lines[0])) {
    return ErrorAt(source, 1, 1, "expected the header \"time,<channel>,...\"");
  }

  Series series;
  series.id = std::move(id);
  const std::vector<absl::string_view> header = Fields(lines[0]);
  if (header[0] != "time") {
    return ErrorAt(
        source, 1, 1,
        absl::StrCat("the first column must be named \"time\", got ", QuotedText(header[0])));
  }
  if (header.size() < 2) {
    return ErrorAt(source, 1, 2, "expected at least one channel after \"time\"");
  }
  bool any_unit = false;
  for (size_t k = 1; k < header.size(); ++k) {
    const auto [name, unit] = NameAndUnit(header[k]);
    if (name.empty()) return ErrorAt(source, 1, k + 1, "empty channel name");
    if (header[k] != name) {
      if (absl::Status known = CheckUnit(unit); !known.ok()) {
        return ErrorAt(source, 1, k + 1,
                       absl::StrCat("channel ", QuotedText(name), ": ", known.message()));
      }
      any_unit = true;
    }
    const auto previous = std::find(series.channels.begin(), series.channels.end(), name);
    if (previous != series.channels.end()) {
      return ErrorAt(source, 1, k + 1,
                     absl::StrCat("duplicate channel ", QuotedText(name), " (also column ",
                                  previous - series.channels.begin() + 2, ")"));
    }
    series.channels.emplace_back(name);
    series.units.emplace_back(unit);
  }
  if (!any_unit) series.units.clear();
  if (end == 1) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": no data rows after the header"));
  }

  series.times.reserve(end - 1);
  series.values.reserve((end - 1) * series.channels.size());
  absl::string_view previous_time;
  for (size_t i = 1; i < end; ++i) {
    const size_t line = i + 1;
    if (IsBlank(lines[i])) {
      return ErrorAt(source, line, 1, "blank line between samples (allowed only at the end)");
    }
    const std::vector<absl::string_view> fields = Fields(lines[i]);
    if (fields.size() != header.size()) {
      return ErrorAt(source, line, std::min(fields.size(), header.size()) + 1,
                     absl::StrCat("expected ", header.size(), " fields (time and ",
                                  series.channels.size(), " channels), got ", fields.size()));
    }
    absl::StatusOr<double> time = ParseFiniteAt(fields[0], source, line, 1);
    if (!time.ok()) return time.status();
    if (!series.times.empty() && *time <= series.times.back()) {
      return ErrorAt(source, line, 1,
                     absl::StrCat("time ", fields[0], " is not after time ", previous_time,
                                  " on line ", line - 1, "; times must be strictly increasing"));
    }
    series.times.push_back(*time);
    previous_time = fields[0];
    for (size_t k = 1; k < fields.size(); ++k) {
      absl::StatusOr<double> value = ParseFiniteAt(fields[k], source, line, k + 1);
      if (!value.ok()) return value.status();
      series.values.push_back(*value);
    }
  }

  if (absl::Status valid = ValidateSeries(series); !valid.ok()) {
    return absl::Status(valid.code(), absl::StrCat(source, ": ", valid.message()));
  }
  return series;
}

absl::StatusOr<std::string> FormatSeriesCsv(const Series& series) {
  std::string out = "time";
  for (size_t c = 0; c < series.num_channels(); ++c) {
    const std::string& channel = series.channels[c];
    if (channel.empty() || channel.find_first_of(",\r\n") != std::string::npos ||
        absl::StripAsciiWhitespace(channel) != channel || absl::EndsWith(channel, "]")) {
      return absl::InvalidArgumentError(
          absl::StrCat(series.id, ": channel ", QuotedText(channel),
                       " cannot be a CSV column name (empty, a comma, ",
                       "a line break or white space around it, or a closing ']')"));
    }
    absl::StrAppend(&out, ",", channel);
    if (!series.unit(c).empty()) absl::StrAppend(&out, "[", series.unit(c), "]");
  }
  out += '\n';
  const auto append = [&out](double x) {
    char buffer[32];
    const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), x);
    out.append(buffer, result.ptr);
  };
  for (size_t i = 0; i < series.samples(); ++i) {
    append(series.times[i]);
    for (size_t c = 0; c < series.num_channels(); ++c) {
      out += ',';
      append(series.value(i, c));
    }
    out += '\n';
  }
  return out;
}

absl::StatusOr<Series> ReadSeriesCsv(const std::string& path) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  return ParseSeriesCsvFile(*content, path);
}

absl::StatusOr<Series> ParseSeriesCsvFile(std::string_view content, const std::string& path) {
  return ParseSeriesCsv(content, path, RunId(path));
}

absl::StatusOr<std::map<std::string, double>> ReadWeightsCsv(const std::string& path) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  std::map<std::string, double> weights;
  std::map<std::string, size_t, std::less<>> line_of_id;
  const std::vector<absl::string_view> lines = Lines(*content);
  bool first_entry = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    const size_t line = i + 1;
    if (csv::IsBlankOrComment(lines[i])) continue;
    const std::vector<absl::string_view> fields = Fields(lines[i]);
    const bool header =
        first_entry && fields.size() == 2 && fields[0] == "id" && fields[1] == "weight";
    first_entry = false;
    if (header) continue;
    if (fields.size() != 2) {
      return ErrorAt(path, line, std::min<size_t>(fields.size(), 2) + 1,
                     absl::StrCat("expected \"run_id,weight\", got ", fields.size(), " fields"));
    }
    if (fields[0].empty()) return ErrorAt(path, line, 1, "empty run id");
    absl::StatusOr<double> weight = ParseFiniteAt(fields[1], path, line, 2);
    if (!weight.ok()) return weight.status();
    if (*weight < 0) {
      return ErrorAt(path, line, 2,
                     absl::StrCat("a weight must not be negative, got ", QuotedText(fields[1])));
    }
    const auto [it, inserted] = line_of_id.emplace(fields[0], line);
    if (!inserted) {
      return ErrorAt(path, line, 1,
                     absl::StrCat("duplicate run id ", QuotedText(fields[0]), " (first on line ",
                                  it->second, ")"));
    }
    weights.emplace(fields[0], *weight);
  }
  if (weights.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no weights"));
  return weights;
}

absl::StatusOr<std::vector<double>> WeightsForRuns(const std::map<std::string, double>& weights,
                                                   const std::vector<Series>& runs,
                                                   std::string_view source_view) {
  const absl::string_view source = AbslView(source_view);
  std::vector<double> ordered;
  ordered.reserve(runs.size());
  std::set<std::string_view> run_ids;
  std::vector<std::string> missing;
  for (const Series& run : runs) {
    run_ids.insert(run.id);
    const auto it = weights.find(run.id);
    if (it == weights.end()) {
      missing.push_back(QuotedText(run.id));
    } else {
      ordered.push_back(it->second);
    }
  }
  if (!missing.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": no weight for run ", absl::StrJoin(missing, ", ")));
  }
  std::vector<std::string> unknown;
  for (const auto& [id, weight] : weights) {
    if (!run_ids.contains(id)) unknown.push_back(QuotedText(id));
  }
  if (!unknown.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": weight for unknown run ", absl::StrJoin(unknown, ", ")));
  }
  return ordered;
}

}  // namespace wasserwarp
