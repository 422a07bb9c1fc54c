#include "inspect_command.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "flag_definition.h"
#include "nlohmann/json.hpp"
#include "output_file.h"
#include "run_flags.h"
#include "wasserwarp/csv.h"
#include "wasserwarp/run_files.h"

namespace wasserwarp::cli {
namespace {

constexpr DocumentedFlag kJsonSwitch = {
    {"--json", Arity::kSwitch}, "", "print JSON instead of text (layout in the README)"};
constexpr DocumentedFlag kChannelsFlag = {
    {"--channels", Arity::kOne},
    "a,b",
    "the channels of the run, as group/channel where a name is in\n"
    "several MDF 4 groups (default: every readable one)"};
constexpr DocumentedFlag kOutFlag = {
    {"--out", Arity::kOne}, "FILE", "write the run here (default: stdout)"};

nlohmann::json Number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nullptr; }

nlohmann::json ChannelJson(const Mdf4ChannelSummary& c) {
  return {{"name", c.name},
          {"unit", c.unit},
          {"data_type", c.data_type},
          {"conversion", c.conversion},
          {"master", c.master},
          {"samples", c.samples},
          {"invalid_samples", c.invalid_samples},
          {"non_finite_samples", c.non_finite_samples},
          {"time_first", Number(c.time_first)},
          {"time_last", Number(c.time_last)},
          {"min", Number(c.min)},
          {"max", Number(c.max)},
          {"mean", Number(c.mean)},
          {"readable", c.readable},
          {"reason", c.reason}};
}

std::string ChannelLine(const Mdf4ChannelSummary& c) {
  std::string line = absl::StrCat("    ", c.name);
  if (!c.unit.empty()) absl::StrAppend(&line, " [", c.unit, "]");
  if (c.master) absl::StrAppend(&line, " (master)");
  absl::StrAppend(&line, ": ", c.data_type, ", ", c.conversion);
  if (!c.readable) return absl::StrCat(line, "\n      cannot be read: ", c.reason, "\n");
  absl::StrAppend(&line, ", ", c.samples, " samples");
  if (c.invalid_samples + c.non_finite_samples > 0) {
    absl::StrAppend(&line, " (", c.invalid_samples, " invalid and ", c.non_finite_samples,
                    " not finite dropped)");
  }
  if (c.samples > 0) {
    absl::StrAppendFormat(&line, "\n      time %.9g .. %.9g s, min %.9g, max %.9g, mean %.9g",
                          c.time_first, c.time_last, c.min, c.max, c.mean);
  }
  return line + "\n";
}

absl::Status RunInspect(const ParsedArgs& args) {
  if (args.positional().empty()) {
    return absl::InvalidArgumentError(
        "inspect: expected one or more run files (FILE.mf4, FILE.mat or FILE.csv...)");
  }
  std::vector<Mdf4FileSummary> files;
  for (const std::string& path : args.positional()) {
    absl::StatusOr<Mdf4FileSummary> summary = InspectRunFile(path);
    if (!summary.ok()) return summary.status();
    files.push_back(*std::move(summary));
  }
  const std::string out = args.Has(kJsonSwitch.name) ? InspectJson(files) : InspectText(files);
  std::fputs(out.c_str(), stdout);
  return absl::OkStatus();
}

absl::Status RunConvert(const ParsedArgs& args) {
  if (args.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "convert: expected one run file (FILE.mf4 or FILE.mat), got ", args.positional().size()));
  }
  std::vector<std::string> notes;
  absl::StatusOr<Series> run = ReadRunFile(args.positional()[0], RunFileOptionsOf(args), notes);
  if (!run.ok()) return run.status();
  PrintNotes(notes);
  absl::StatusOr<std::string> csv = FormatSeriesCsv(*run);
  if (!csv.ok()) return csv.status();
  if (const std::string* out = args.Value(kOutFlag.name); out != nullptr) {
    return WriteOutputFile(*out, *csv);
  }
  std::fputs(csv->c_str(), stdout);
  return absl::OkStatus();
}

}  // namespace

std::string InspectJson(const std::vector<Mdf4FileSummary>& files) {
  nlohmann::json out = {{"files", nlohmann::json::array()}};
  for (const Mdf4FileSummary& file : files) {
    nlohmann::json groups = nlohmann::json::array();
    for (const Mdf4GroupSummary& group : file.groups) {
      nlohmann::json channels = nlohmann::json::array();
      for (const Mdf4ChannelSummary& channel : group.channels) {
        channels.push_back(ChannelJson(channel));
      }
      groups.push_back({{"name", group.name}, {"samples", group.samples}, {"channels", channels}});
    }
    out["files"].push_back({{"path", file.path},
                            {"format", file.format},
                            {"version", file.version},
                            {"groups", groups}});
  }
  return out.dump(2) + "\n";
}

std::string InspectText(const std::vector<Mdf4FileSummary>& files) {
  std::string out;
  for (const Mdf4FileSummary& file : files) {
    const std::string format = file.format == "mat"   ? absl::StrCat("MATLAB ", file.version)
                               : file.format == "csv" ? std::string("CSV")
                                                      : absl::StrCat("MDF ", file.version);
    absl::StrAppend(&out, file.path, ": ", format, ", ", file.groups.size(),
                    file.groups.size() == 1 ? " group\n" : " groups\n");
    for (const Mdf4GroupSummary& group : file.groups) {
      absl::StrAppend(&out, "  group \"", group.name, "\": ", group.samples, " records\n");
      for (const Mdf4ChannelSummary& channel : group.channels) out += ChannelLine(channel);
    }
  }
  return out;
}

Command InspectCommand() {
  const std::vector<FlagSection> sections = {{"options", {kJsonSwitch}}};
  return {
      .name = "inspect",
      .synopsis = "inspect FILE.mf4|FILE.mat|FILE.csv... [--json]",
      .usage = HelpText("usage: wasserwarp inspect FILE.mf4|FILE.mat|FILE.csv... [--json]\n"
                        "\n"
                        "Lists what run files hold: their groups and channels, each "
                        "channel's unit,\n"
                        "data type, conversion, samples, first and last time, and the minimum, "
                        "maximum and mean\n"
                        "of its physical values, or why it cannot be read. A MATLAB or CSV file "
                        "is one group, its\n"
                        "master channel the time. Files not named .mf4 or .mat are read as CSV.\n",
                        sections),
      .flags = FlagSpecs(sections),
      .run = &RunInspect,
  };
}

Command ConvertCommand() {
  const std::vector<FlagSection> sections = {{"options", {kChannelsFlag, kOutFlag}}};
  return {
      .name = "convert",
      .synopsis = "convert FILE.mf4|FILE.mat [--channels a,b] [--out run.csv]",
      .usage = HelpText("usage: wasserwarp convert FILE.mf4|FILE.mat [--channels a,b] "
                        "[--out run.csv]\n"
                        "\n"
                        "Writes the run of an MDF 4 or MATLAB file as wasserwarp's CSV. For MDF 4: "
                        "the times of\n"
                        "the first channel's group, the channels of other groups interpolated "
                        "linearly onto them.\n",
                        sections),
      .flags = FlagSpecs(sections),
      .run = &RunConvert,
  };
}

}  // namespace wasserwarp::cli
