// The parameter file is written by a script or by hand beside the runs, so it gets the weights
// file's leniency (comments, blank lines) but no guessing: every run needs every parameter,
// because a design point with a silently missing value would be another point.

#include "wasserwarp/run_parameters.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "common/absl_view.h"
#include "common/file_contents.h"
#include "series/csv_fields.h"
#include "wasserwarp/user_text.h"

namespace wasserwarp {
namespace {

using csv::ErrorAt;

constexpr char kTrialColumn[] = "trial";

bool IsParameterNameCharacter(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

bool IsTrialCharacter(char c) {
  return absl::ascii_isprint(static_cast<unsigned char>(c)) && c != ',';
}

// "it holds 'c'" for the first character of `text` that `allowed` refuses; empty when none.
std::string RefusedCharacter(absl::string_view text, bool (*allowed)(char)) {
  for (const char c : text) {
    if (!allowed(c)) {
      return absl::StrCat("it holds '", absl::CHexEscape(absl::string_view(&c, 1)), "'");
    }
  }
  return "";
}

// The first line that is not blank or a comment, as an index; lines.size() when none.
size_t FirstEntry(const std::vector<absl::string_view>& lines) {
  size_t i = 0;
  while (i < lines.size() && csv::IsBlankOrComment(lines[i])) ++i;
  return i;
}

struct Header {
  std::vector<std::string> names;
  size_t trial_field = 0;  // 0: none (field 0 is run_id)
};

absl::StatusOr<Header> ParseHeader(absl::string_view line_text, absl::string_view source,
                                   size_t line) {
  const std::vector<absl::string_view> fields = csv::Fields(line_text);
  if (fields[0] != "run_id") {
    return ErrorAt(source, line, 1,
                   absl::StrCat("expected the header \"run_id,<parameter>,...[,trial]\", got ",
                                QuotedText(fields[0]), " as the first column"));
  }
  Header header;
  std::set<absl::string_view> seen;
  for (size_t k = 1; k < fields.size(); ++k) {
    const absl::string_view name = fields[k];
    if (name.empty()) return ErrorAt(source, line, k + 1, "empty column name");
    if (name != kTrialColumn) {
      if (const std::string fault = ParameterNameFault(std::string_view(name.data(), name.size()));
          !fault.empty()) {
        return ErrorAt(source, line, k + 1,
                       absl::StrCat("parameter name ", QuotedText(name), " must be ",
                                    kParameterNameRule, ": ", fault));
      }
    }
    if (!seen.insert(name).second) {
      return ErrorAt(source, line, k + 1, absl::StrCat("duplicate column ", QuotedText(name)));
    }
    if (name == kTrialColumn) {
      header.trial_field = k;
    } else {
      header.names.emplace_back(name);
    }
  }
  if (header.names.empty()) {
    return ErrorAt(source, line, fields.size() + 1,
                   "expected at least one parameter column after \"run_id\"");
  }
  if (header.names.size() > kMaxRunParameters) {
    return ErrorAt(
        source, line, 1,
        absl::StrCat(header.names.size(), " parameters, over the limit of ", kMaxRunParameters));
  }
  return header;
}

}  // namespace

std::string ParameterNameFault(std::string_view name_view) {
  const absl::string_view name = AbslView(name_view);
  if (name.empty()) return "it is empty";
  if (name.size() > kMaxParameterNameLength) {
    return absl::StrCat("it has ", name.size(), " characters");
  }
  if (absl::ascii_isdigit(static_cast<unsigned char>(name.front()))) {
    return "it starts with a digit";
  }
  return RefusedCharacter(name, IsParameterNameCharacter);
}

std::string TrialFault(std::string_view trial_view) {
  const absl::string_view trial = AbslView(trial_view);
  if (trial.size() > kMaxTrialLength) return absl::StrCat("it has ", trial.size(), " characters");
  return RefusedCharacter(trial, IsTrialCharacter);
}

absl::StatusOr<ParameterTable> ParseParameterCsv(std::string_view content_view,
                                                 std::string_view source_view) {
  const absl::string_view source = AbslView(source_view);
  const std::vector<absl::string_view> lines = csv::Lines(AbslView(content_view));
  const size_t first = FirstEntry(lines);
  if (first == lines.size()) {
    return ErrorAt(source, 1, 1, "expected the header \"run_id,<parameter>,...[,trial]\"");
  }
  absl::StatusOr<Header> header = ParseHeader(lines[first], source, first + 1);
  if (!header.ok()) return header.status();
  const size_t columns = header->names.size() + 1 + (header->trial_field > 0 ? 1 : 0);

  ParameterTable table;
  table.source = std::string(source);
  table.names = header->names;
  table.has_trials = header->trial_field > 0;
  for (size_t i = first + 1; i < lines.size(); ++i) {
    if (csv::IsBlankOrComment(lines[i])) continue;
    const size_t line = i + 1;
    const std::vector<absl::string_view> fields = csv::Fields(lines[i]);
    if (fields.size() != columns) {
      return ErrorAt(
          source, line, std::min(fields.size(), columns) + 1,
          absl::StrCat("expected ", columns, " fields as in the header, got ", fields.size()));
    }
    if (fields[0].empty()) return ErrorAt(source, line, 1, "empty run id");
    RunParameters run;
    run.line = line;
    for (size_t k = 1; k < fields.size(); ++k) {
      if (k == header->trial_field) {
        if (fields[k].empty()) {
          return ErrorAt(source, line, k + 1, "empty trial (every run names its random inputs)");
        }
        if (const std::string fault =
                TrialFault(std::string_view(fields[k].data(), fields[k].size()));
            !fault.empty()) {
          return ErrorAt(
              source, line, k + 1,
              absl::StrCat("trial ", QuotedText(fields[k]), " must be ", kTrialRule, ": ", fault));
        }
        run.trial = std::string(fields[k]);
        continue;
      }
      const std::string& name = table.names[run.values.size()];
      if (fields[k].empty()) {
        return ErrorAt(source, line, k + 1,
                       absl::StrCat("parameter ", QuotedText(name), " missing for run ",
                                    QuotedText(fields[0])));
      }
      absl::StatusOr<double> value = csv::ParseFiniteAt(fields[k], source, line, k + 1);
      if (!value.ok()) return value.status();
      run.values.push_back(*value);
    }
    const auto [it, inserted] = table.runs.emplace(std::string(fields[0]), std::move(run));
    if (!inserted) {
      return ErrorAt(source, line, 1,
                     absl::StrCat("duplicate run ", QuotedText(fields[0]), " (first on line ",
                                  it->second.line, ")"));
    }
  }
  if (table.runs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": no runs after the header"));
  }
  return table;
}

absl::StatusOr<ParameterTable> ReadParameterCsv(const std::string& path) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  return ParseParameterCsv(*content, path);
}

absl::StatusOr<std::vector<RunParameters>> ParametersForRuns(
    const ParameterTable& table, const std::vector<std::string>& run_ids) {
  std::vector<RunParameters> ordered;
  ordered.reserve(run_ids.size());
  std::set<std::string_view> known;
  for (const std::string& id : run_ids) {
    known.insert(id);
    const auto it = table.runs.find(id);
    if (it == table.runs.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(table.source, ": no parameters for simulated run ", QuotedText(id)));
    }
    ordered.push_back(it->second);
  }
  // The unknown run on the first line, so that the message points where the user looks.
  const RunParameters* unknown = nullptr;
  const std::string* unknown_id = nullptr;
  for (const auto& [id, run] : table.runs) {
    if (!known.contains(id) && (unknown == nullptr || run.line < unknown->line)) {
      unknown = &run;
      unknown_id = &id;
    }
  }
  if (unknown != nullptr) {
    return ErrorAt(
        table.source, unknown->line, 1,
        absl::StrCat("unknown run ", QuotedText(*unknown_id), " (no simulated run has this id)"));
  }
  return ordered;
}

absl::StatusOr<std::map<std::string, double>> ParseParameterVector(std::string_view text_view) {
  std::map<std::string, double> values;
  const absl::string_view text = AbslView(text_view);
  if (absl::StripAsciiWhitespace(text).empty()) {
    return absl::InvalidArgumentError("expected name=value[,name=value...], got nothing");
  }
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    item = absl::StripAsciiWhitespace(item);
    const size_t equals = item.find('=');
    if (equals == absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected name=value, got ", QuotedText(item)));
    }
    const absl::string_view name = absl::StripAsciiWhitespace(item.substr(0, equals));
    if (name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("empty parameter name in ", QuotedText(item)));
    }
    absl::StatusOr<double> value =
        csv::ParseFinite(absl::StripAsciiWhitespace(item.substr(equals + 1)));
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", QuotedText(name), ": ", value.status().message()));
    }
    if (!values.emplace(std::string(name), *value).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter ", QuotedText(name), " given twice"));
    }
  }
  return values;
}

absl::StatusOr<std::map<std::string, std::string>> ReadRunGroupsCsv(const std::string& path) {
  absl::StatusOr<std::string> content = ReadFileContents(path);
  if (!content.ok()) return content.status();
  const std::vector<absl::string_view> lines = csv::Lines(*content);
  const size_t first = FirstEntry(lines);
  if (first == lines.size() ||
      csv::Fields(lines[first]) != std::vector<absl::string_view>{"run_id", "group"}) {
    return ErrorAt(path, first + 1, 1, "expected the header \"run_id,group\"");
  }
  std::map<std::string, std::string> groups;
  std::map<std::string, size_t, std::less<>> line_of_run;
  for (size_t i = first + 1; i < lines.size(); ++i) {
    if (csv::IsBlankOrComment(lines[i])) continue;
    const size_t line = i + 1;
    const std::vector<absl::string_view> fields = csv::Fields(lines[i]);
    if (fields.size() != 2) {
      return ErrorAt(path, line, std::min<size_t>(fields.size(), 2) + 1,
                     absl::StrCat("expected \"run_id,group\", got ", fields.size(), " fields"));
    }
    if (fields[0].empty()) return ErrorAt(path, line, 1, "empty run id");
    if (fields[1].empty()) return ErrorAt(path, line, 2, "empty group");
    const auto [it, inserted] = line_of_run.emplace(fields[0], line);
    if (!inserted) {
      return ErrorAt(path, line, 1,
                     absl::StrCat("duplicate run ", QuotedText(fields[0]), " (first on line ",
                                  it->second, ")"));
    }
    groups.emplace(std::string(fields[0]), std::string(fields[1]));
  }
  if (groups.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": no runs"));
  return groups;
}

absl::StatusOr<std::vector<std::string>> GroupsForRuns(
    const std::map<std::string, std::string>& groups, const std::vector<std::string>& run_ids,
    std::string_view source_view) {
  const absl::string_view source = AbslView(source_view);
  std::vector<std::string> ordered;
  std::set<std::string_view> known;
  for (const std::string& id : run_ids) {
    known.insert(id);
    const auto it = groups.find(id);
    if (it == groups.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": no group for reference run ", QuotedText(id)));
    }
    ordered.push_back(it->second);
  }
  std::vector<std::string> unknown;
  for (const auto& [id, group] : groups) {
    if (!known.contains(id)) unknown.push_back(QuotedText(id));
  }
  if (!unknown.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": group for unknown run ", absl::StrJoin(unknown, ", ")));
  }
  return ordered;
}

}  // namespace wasserwarp
