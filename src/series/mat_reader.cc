// ReadMatRun and InspectMatFile on the table of a .mat file: the channels named are looked up by
// name, and a channel is in the run only when every one of its values is finite.

#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "series/channel_summary.h"
#include "series/mat_table.h"
#include "wasserwarp/mat.h"

namespace wasserwarp {
namespace {

using mat::Column;
using mat::Table;

absl::Status ColumnError(const Table& table, const Column& column, const std::string& what) {
  return absl::InvalidArgumentError(
      absl::StrCat(table.path, ": variable \"", column.variable, "\": ", what));
}

absl::StatusOr<const Column*> Lookup(const Table& table, const std::string& name) {
  std::vector<const Column*> found;
  std::vector<std::string> names;
  for (const Column& column : table.columns) {
    if (column.name == name) found.push_back(&column);
    names.push_back(column.name);
  }
  if (found.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(table.path, ": no channel named \"", name,
                                                   "\"; its channels are ",
                                                   absl::StrJoin(names, ", ")));
  }
  if (found.size() > 1) {
    std::vector<std::string> variables;
    for (const Column* column : found) variables.push_back(column->variable);
    return absl::InvalidArgumentError(
        absl::StrCat(table.path, ": channel \"", name,
                     "\" is the name of several variables: ", absl::StrJoin(variables, ", ")));
  }
  if (!found[0]->reason.empty()) return ColumnError(table, *found[0], found[0]->reason);
  return found[0];
}

// The columns `channels` name, or every readable one (noting the others) where it is empty.
absl::StatusOr<std::vector<const Column*>> Select(const Table& table,
                                                  const std::vector<std::string>& channels,
                                                  std::vector<std::string>& notes) {
  std::vector<const Column*> selected;
  if (channels.empty()) {
    for (const Column& column : table.columns) {
      if (!column.reason.empty()) {
        notes.push_back(absl::StrCat(table.path, ": variable \"", column.variable,
                                     "\" left out: ", column.reason));
        continue;
      }
      absl::StatusOr<const Column*> unique = Lookup(table, column.name);
      if (!unique.ok()) return unique.status();
      selected.push_back(&column);
    }
    if (selected.empty()) {
      return mat::LayoutError(table.path, table.variables, "no variable can be a channel");
    }
    return selected;
  }
  for (const std::string& name : channels) {
    absl::StatusOr<const Column*> column = Lookup(table, name);
    if (!column.ok()) return column.status();
    selected.push_back(*column);
  }
  return selected;
}

Mdf4ChannelSummary Summarize(const Table& table, const Column& column) {
  Mdf4ChannelSummary out =
      SummarizeChannel(column.name, column.data_type, table.times, column.values.size(),
                       [&](size_t i) { return column.values[i]; });
  out.readable = column.reason.empty();
  out.reason = column.reason;
  return out;
}

}  // namespace

absl::StatusOr<Mdf4FileSummary> InspectMatFile(const std::string& path, const MatLimits& limits) {
  absl::StatusOr<Table> table = mat::LoadTable(path, limits);
  if (!table.ok()) return table.status();
  Mdf4GroupSummary group;
  group.name = table->group;
  group.samples = table->times.size();
  Mdf4ChannelSummary time = Summarize(
      *table, {table->time_variable, table->time_variable, table->time_class, "", table->times});
  time.master = true;
  group.channels.push_back(std::move(time));
  for (const Column& column : table->columns) group.channels.push_back(Summarize(*table, column));
  Mdf4FileSummary summary;
  summary.path = path;
  summary.format = "mat";
  summary.version = table->version;
  summary.groups.push_back(std::move(group));
  return summary;
}

absl::StatusOr<Mdf4Run> ReadMatRun(const std::string& path,
                                   const std::vector<std::string>& channels,
                                   const MatLimits& limits) {
  absl::StatusOr<Table> table = mat::LoadTable(path, limits);
  if (!table.ok()) return table.status();
  Mdf4Run run;
  absl::StatusOr<std::vector<const Column*>> selected = Select(*table, channels, run.notes);
  if (!selected.ok()) return selected.status();
  Series& series = run.series;
  series.id = std::filesystem::path(path).stem().string();
  series.times = table->times;
  const size_t samples = series.times.size();
  series.values.resize(samples * selected->size());
  for (size_t c = 0; c < selected->size(); ++c) {
    const Column& column = *(*selected)[c];
    series.channels.push_back(column.name);
    for (size_t i = 0; i < samples; ++i) {
      const double value = column.values[i];
      if (!std::isfinite(value)) {
        return ColumnError(*table, column,
                           absl::StrCat("sample ", i, ": value ", value, " is not finite"));
      }
      series.values[i * selected->size() + c] = value;
    }
  }
  return run;
}

}  // namespace wasserwarp
